"""bench/first_process.py: a whole fresh process of the command line, timed with empty
caches (on the CPU here: nothing is compiled, and the time is the process's)."""

from graphblast.bench import first_process, report


def test_a_fresh_cli_process_is_timed_and_compiles_nothing_on_the_cpu():
    r = first_process.measure("first_process_bfs_kron16_s", "cpu")
    assert "error" not in r, r
    assert r["wall_s"] > 0 and r["kernels_compiled"] == 0
    assert r["command"] == "graphblast run bfs kron:16 --device cpu"


def test_summary_keys_of_the_first_use():
    doc = {"options": {"device": "cuda"},
           "first_call": {"bfs": {"graph": "kron-22", "first_call_s": 0.1,
                                  "kernels_compiled": 0},
                          "cc": {"graph": "kron-22", "first_call_s": 0.2,
                                 "kernels_compiled": 1},
                          "tc": {"graph": "kron-22", "error": "out of memory"}},
           "first_process": {"first_process_bfs_kron16_s": {
               "command": "graphblast run bfs kron:16 --device cuda", "wall_s": 1.5,
               "kernels_compiled": 2}}}
    summary, notes = {}, {}
    report._first_use(doc, True, summary, notes)
    assert summary["first_call_max_s"] == 0.2 and "cc" in notes["first_call_max_s"]
    assert summary["first_call_kernels_compiled"] == 1
    assert "failed: tc" in notes["first_call_kernels_compiled"]
    assert summary["first_process_bfs_kron16_s"] == 1.5
    assert summary["first_process_cc_kron16_s"] is None
    assert summary["first_process_kernels_compiled"] == 2
