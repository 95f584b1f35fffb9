"""graphblast.repeat's replay path on the CUDA backend, checked without a GPU (so in CI too):
loops_host_path.py drives it with CuPy and stream capture stood in for (see its docstring),
in a process of its own."""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _paths():
    result = subprocess.run([sys.executable, os.path.join(HERE, "loops_host_path.py")],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_which_bodies_replay():
    got = _paths()
    # a body of the engine's operations is captured and replayed until its count reads zero
    # (no conditional node in the stand-in: replays)
    assert got["relax"]["said"] == ["repeat: the body replays as a CUDA graph"]
    assert got["relax"]["replays"] == 3
    assert got["relax"]["stats"]["mode"] == "replay"
    # the captured round's nodes: SSSP's four operations (the push with its fold's gather,
    # which clears the push's claims too) and the marks of the list mask; then the loop's own
    # gbk_loop_next (not the body's: not compared with the dry rounds'), which zeroes the
    # counters made in the round for the next one (no memset node)
    assert got["relax"]["captured"] == {
        "launches": ["gbk_push", "gbk_push_gather", "gbk_ewise_list_dense", "gbk_accum_list",
                     "gbk_list_to_bitmap", "gbk_select_list", "gbk_list_unmark"],
        "memsets": 0}
    # BFS's level: the level's assign under the frontier is done for the next round by the
    # loop's last kernel, so a round is two kernels: the masked push, and gbk_loop_next
    # (copying the push's output into the state, resetting its claims, stamping the levels
    # of the next frontier and setting the loop's condition); three with it unfused
    assert got["bfs level"]["stats"]["mode"] == "replay"
    assert got["bfs level"]["stats"]["round_kernels"] == ["gbk_push", "gbk_loop_next"]
    assert got["bfs level, assign unfused"]["stats"]["round_kernels"] == [
        "gbk_assign_list", "gbk_push", "gbk_loop_next"]
    # under a WHILE node (stood in) the level is one kernel, gbk_push_loop: the push, the
    # next level's assign as it claims, and the loop's end in its last block (the result's
    # count, the next output's counters zeroed, the condition); its claims are not reset
    # but made with an epoch a round, so the host moves the stamps' epoch past the rounds
    # run (3 and 4 here, besides the one of the dry rounds and the first, settling round);
    # the state has room for every position (the state and the push's output alternate)
    for name, rounds in (("bfs level, while", 3), ("bfs level, while, even", 4)):
        assert got[name]["stats"]["mode"] == "while"
        assert got[name]["stats"]["round_kernels"] == ["gbk_push_loop"]
        assert got[name]["replays"] == 1 and got[name]["epochs"] == rounds + 2
        assert got[name]["state"] == 64 * 64
    # unfused: the push and gbk_loop_next; with the assign a kernel of its own before the
    # push, which reads the state, the state cannot alternate, so it is not fused either
    assert got["bfs level, while, unfused"]["stats"]["round_kernels"] == [
        "gbk_push", "gbk_loop_next"]
    assert got["bfs level, while, unfused"]["epochs"] == 2
    assert got["bfs level, while, assign unfused"]["stats"]["round_kernels"] == [
        "gbk_assign_list", "gbk_push", "gbk_loop_next"]
    # a fused round's result that outgrows the state's capacity: grown, fused again
    outgrown = got["bfs level, while, outgrows"]
    assert outgrown["stats"]["grown"] == 1 and outgrown["replays"] == 2
    assert outgrown["stats"]["round_kernels"] == ["gbk_push_loop"]
    # where the device launches cooperative kernels ("auto", "persistent"), BFS's rounds are
    # one launch of gbk_push_levels, every block the device holds at once up to two an SM
    # (the stand-in's 132 SMs): no graph launched, the same words read, the epoch moved past
    # the rounds run, the state of every position as for gbk_push_loop
    for name, rounds in (("bfs level, persistent", 3), ("bfs level, persistent, even", 4)):
        assert got[name]["stats"]["mode"] == "persistent"
        assert got[name]["stats"]["round_kernels"] == ["gbk_push_levels"]
        assert got[name]["cooperative"] == [["gbk_push_levels", 264]]
        assert got[name]["replays"] == 1 and got[name]["epochs"] == rounds + 2
        assert got[name]["state"] == 64 * 64
        assert got[name]["said"] == [
            "repeat: the loop runs on the device (one cooperative kernel)"]
    # "while" keeps the WHILE node
    forced = got["bfs level, persistent, while"]
    assert forced["stats"]["round_kernels"] == ["gbk_push_loop"] and not forced["cooperative"]
    # a result past the capacity: grown and launched again; a wide one: from Python
    outgrown = got["bfs level, persistent, outgrows"]
    assert outgrown["stats"]["grown"] == 1 and len(outgrown["cooperative"]) == 2
    assert outgrown["stats"]["mode"] == "persistent"
    wide = got["bfs level, persistent, wide"]
    assert wide["stats"]["mode"] == "python" and wide["stats"]["rounds"] == 40
    assert wide["said"][-1] == (
        "repeat: the body runs from Python (a round outgrew the state: a wide loop)")
    # a round that is not one push runs under the WHILE node: BFS's level with its assign a
    # kernel of its own (captured once for the persistent kernel, once for the node), and
    # delta-stepping's round
    unfused = got["bfs level, persistent, assign unfused"]
    assert unfused["stats"]["mode"] == "while" and not unfused["cooperative"]
    assert unfused["captured"]["launches"] == ["gbk_assign_list", "gbk_push"] * 2
    assert unfused["stats"]["round_kernels"] == ["gbk_assign_list", "gbk_push",
                                                 "gbk_loop_next"]
    bucket = got["sssp bucket, persistent"]
    assert bucket["stats"]["mode"] == "while" and not bucket["cooperative"]
    assert bucket["stats"]["round_kernels"][-1] == "gbk_union_lists_a_loop"
    # a device that refuses the cooperative launch (nothing ran: dry rounds and a capture
    # again) or holds no block of the kernel: the WHILE node, and said why
    refused = got["bfs level, persistent, refused"]
    assert refused["stats"]["mode"] == "while"
    assert refused["stats"]["round_kernels"] == ["gbk_push_loop"]
    assert refused["persistent"] == (
        "the cooperative launch failed: CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE")
    assert refused["said"][1] == "repeat: " + refused["persistent"]
    none = got["bfs level, persistent, no block"]
    assert none["stats"]["round_kernels"] == ["gbk_push_loop"] and not none["cooperative"]
    assert none["persistent"] == "the device launches no cooperative kernel here"
    # delta-stepping's round is captured whole: the bucket's bound (the pending vertices'
    # distances plus the width, their minimum by one kernel that reads the list's count on
    # the device and folds its blocks' partials in its last block), the near and the waiting
    # vertices, the relaxation, and the union of the waiting and the improved through a kept
    # bitmap of marks: every kernel sized by the lists, none by the vertices
    assert got["sssp bucket"]["said"] == ["repeat: the body replays as a CUDA graph"]
    assert got["sssp bucket"]["captured"]["launches"] == [
        "gbk_ewise_list_dense", "gbk_reduce_list", "gbk_select_list",
        "gbk_select_list", "gbk_push", "gbk_push_gather", "gbk_ewise_list_dense",
        "gbk_accum_list", "gbk_list_to_bitmap", "gbk_filter_list", "gbk_list_unmark",
        "gbk_list_to_bitmap", "gbk_union_lists_b", "gbk_union_lists_a"]
    # and in the captured round (fusion.py) the bound is one kernel, the near and the
    # waiting vertices one pass, and the relaxation's six kernels (the push's gather, the
    # comparison with the distances, their accumulation and the improved kept under the
    # comparison's complement, marked and unmarked) one, which also marks the waiting
    # vertices for the union
    assert got["sssp bucket"]["stats"]["round_kernels"] == [
        "gbk_ewise_reduce_list", "gbk_select_pair", "gbk_push", "gbk_relax_list",
        "gbk_union_lists_b", "gbk_union_lists_a", "gbk_loop_next"]
    # under a WHILE node the union writes the round's result into the state and its last
    # kernel ends the round: six kernels
    assert got["sssp bucket, while"]["stats"]["round_kernels"] == [
        "gbk_ewise_reduce_list", "gbk_select_pair", "gbk_push", "gbk_relax_list",
        "gbk_union_lists_b", "gbk_union_lists_a_loop"]
    assert got["sssp bucket, while, unfused"]["stats"]["round_kernels"][-2:] == [
        "gbk_union_lists_a", "gbk_loop_next"]
    # Bellman-Ford's round: the push, the relaxation as one kernel, the loop's end
    assert got["bellman-ford"]["stats"]["round_kernels"] == [
        "gbk_push", "gbk_relax_list", "gbk_loop_next"]
    # SSSP's relaxation has no such first step
    assert got["relax"]["stats"]["round_kernels"][-1] == "gbk_loop_next"
    # a count read inside the body breaks the capture: every round from Python
    assert got["reads a count"]["replays"] == 0
    assert len(got["reads a count"]["said"]) == 1
    assert "D2H transfers are disallowed" in got["reads a count"]["said"][0]
    assert got["reads a count"]["stats"]["rounds"] == 40
    # a Python value that changes from round to round: the dry rounds differ, no capture
    assert got["a round counter"]["said"] == [
        "repeat: the body runs from Python (its rounds differ)"]
    assert got["a round counter"]["replays"] == 0
    # replay turned off
    assert got["never"]["replays"] == 0 and got["never"]["said"] == []
    assert got["never"]["stats"]["mode"] == "python"
    # "while" forced where conditional nodes cannot be made: said, and replayed
    assert got["while"]["said"][0].startswith("repeat: no conditional node (")
    assert got["while"]["stats"]["mode"] == "replay" and got["while"]["replays"] == 3
    # a result that outgrows the state mid-loop: the loop stops, the state grows, dry rounds
    # and a capture again, and the loop resumes
    assert got["outgrows"]["stats"]["grown"] == 1
    assert got["outgrows"]["said"] == ["repeat: the body replays as a CUDA graph"] * 2
    # a result wide enough to make a loop bound by its kernels: the rest from Python
    assert got["wide"]["stats"]["grown"] == 0 and got["wide"]["stats"]["rounds"] == 40
    assert got["wide"]["said"] == [
        "repeat: the body replays as a CUDA graph",
        "repeat: the body runs from Python (a round outgrew the state: a wide loop)"]
    # no memory for the loop's state: every round from Python, no error
    assert got["no room"]["replays"] == 0
    assert got["no room"]["said"] == [
        "repeat: the body runs from Python (no room for the state: std::bad_alloc)"]
    assert all(run["lock_free"] for name, run in got.items() if name != "capture page")
    # the page a graph zeroes holds no count of anyone else's
    assert got["capture page"] == {"kept while free": True,
                                   "renewed while a slot is held": True}
