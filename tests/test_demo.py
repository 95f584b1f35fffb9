"""``python -m graphblast.demo`` (``make demo``): it runs, every answer agrees with its oracle,
and it says what it used and what to do next.  Its speed is measured, not tested (README)."""

import os

import numpy as np
import scipy.io
import scipy.sparse as sp

from graphblast import demo


def test_demo_small_scale_on_the_cpu(capsys, tmp_path):
    status = demo.main(["--scale", "8", "--device", "cpu", "--repeat", "1",
                        "--plot", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "on device cpu" in out and "kron scale 8 (--scale)" in out
    for name in ("BFS", "SSSP", "PageRank", "connected components", "triangle count"):
        rows = [line for line in out.splitlines() if line.startswith(name + " ")]
        assert len(rows) == 1, out  # one table, printed once
        assert rows[0].endswith(" ok"), rows[0]
    assert out.rstrip().splitlines()[-1].startswith("Next: graphblast bench")
    assert os.path.isfile(tmp_path / "demo-speedup.png")


def test_default_scale_is_explained(capsys, monkeypatch):
    monkeypatch.setattr(demo, "run", lambda scale, device, repeat, out_dir: True)
    assert demo.main(["--device", "cpu"]) == 0
    out = capsys.readouterr().out
    assert f"kron scale {demo.SCALES['cpu'][0]} (--scale N for another): " in out


def test_triangle_oracle_on_known_answers(data_dir):
    """The oracle itself: karate has 45 triangles, a 4-clique 4 (tests/data/README.md)."""
    S = sp.csr_array(scipy.io.mmread(os.path.join(data_dir, "lagraph", "karate.mtx")))
    assert demo._triangle_oracle(S) == 45
    K4 = sp.csr_array(np.ones((4, 4)) - np.eye(4))
    assert demo._triangle_oracle(K4) == 4
