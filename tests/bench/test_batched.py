"""The --batched stage of graphblast bench on tiny graphs: every part measured, every answer
checked, the summary keys named as the targets are."""

import json
import os

import pytest

from graphblast.bench import batched, main


def test_stage_measures_and_checks_every_part(tmp_path, device):
    doc = batched.run(str(tmp_path), device, kron_scale=8, grid_size=16, k=16, nsources=4,
                      repeat=1, check_scale=7)
    assert doc["all_checks_passed"]
    summary = doc["summary"]
    assert set(summary) == {"bc_kron_8_k16_s", "bc_kron_8_k16_vs_networkit",
                            "msbfs_kron_8_4_vs_single", "mxm_auto_direction_worst_step_ratio"}
    assert summary["bc_kron_8_k16_s"] > 0 and summary["msbfs_kron_8_4_vs_single"] > 0
    for d in doc["direction"]:
        for step in d["steps"]:
            assert step["pull_s"] > 0 and step["auto_s"] > 0
            assert step["auto_reason"].startswith("mxm direction")
    saved = json.loads((tmp_path / "batched.json").read_text())
    assert saved["summary"] == json.loads(json.dumps(summary))
    assert "| figure | value |" in (tmp_path / "batched.md").read_text()


def test_command_line_runs_the_stage_alone(tmp_path, capsys):
    pytest.importorskip("networkx")
    status = main(["--out", str(tmp_path), "--smoke", "--algorithms", "none", "--batched",
                   "msbfs", "--device", "cpu"])
    assert status == 0
    assert os.path.exists(tmp_path / "batched.json")
    assert "msbfs_kron_10_8_vs_single" in capsys.readouterr().out
