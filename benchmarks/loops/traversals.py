"""BFS and SSSP on long-diameter and scale-free graphs: graphblast under each loop mode against
the naive CUDA BFS (benchmarks/yardsticks/naive_bfs.py), with what a level costs: the kernels
of the recorded round, the host reads, the graph launches.

    python benchmarks/loops/traversals.py grid-2048 rgg-22 urand-22 kron-22 [--out DIR]

Prints a line per measurement and writes traversals.json to --out (the current folder by
default).  Times are the minimum of --runs runs (3), each from a synchronized device.  The
options that name values (--push-grid, --loop-grid, --persistent-blocks, --first-hit-lanes,
--sssp-widths, --sssp-squarings) time BFS or SSSP again with one setting changed, in the same
process, and --bellman-ford times SSSP by Bellman-Ford alone (one repeat) against the
default.
"""

import argparse
import functools
import json
import os
import sys
import time

import cupy as cp
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "yardsticks"))

import naive_bfs  # noqa: E402


def timed(fn, runs):
    best, out = float("inf"), None
    for _ in range(runs):
        cp.cuda.get_current_stream().synchronize()
        t0 = time.perf_counter()
        out = fn()
        cp.cuda.get_current_stream().synchronize()
        best = min(best, time.perf_counter() - t0)
    return best, out


def level_profile(g, runs=2):
    """BFS level by level from Python, as graphblast's BFS issues a level: per level the
    frontier's size, the product's direction, the microseconds (synchronized), host reads
    and kernel launches (the last of ``runs`` runs)."""
    from graphblast import Vector, semiring
    from graphblast.backends.cuda import blocks, jit
    from graphblast.dtypes import BOOL, INT64

    launches = [0]
    run = jit.run

    def counting(fn, grid, block, args):
        launches[0] += 1
        return run(fn, grid, block, args)

    jit.run = counting
    try:
        for _ in range(runs):
            rows = []
            levels = Vector(INT64, g.n, device="cuda")
            frontier = Vector.from_coo([g.source], True, BOOL, size=g.n, device="cuda")
            depth = 0
            while True:
                cp.cuda.get_current_stream().synchronize()
                r0, l0, t0 = blocks.host_reads(), launches[0], time.perf_counter()
                if not frontier.nvals:
                    break
                levels(frontier.S) << depth
                depth += 1
                frontier = frontier.vxm(g.A, semiring.any_pair[BOOL]).new(mask=~levels.S,
                                                                           replace=True)
                made = getattr(frontier._data, "made_by", None)
                cp.cuda.get_current_stream().synchronize()
                rows.append({"level": depth - 1, "direction": made,
                             "us": (time.perf_counter() - t0) * 1e6,
                             "host_reads": blocks.host_reads() - r0,
                             "launches": launches[0] - l0})
    finally:
        jit.run = run
    return rows


def dense_levels(v, n):
    idx, vals = v.to_coo()
    out = np.full(n, -1, dtype=np.int64)
    out[np.asarray(idx, dtype=np.int64)] = np.asarray(vals, dtype=np.int64)
    return out


def dense_levels_f(v, n):
    idx, vals = v.to_coo()
    out = np.full(n, np.inf)
    out[np.asarray(idx, dtype=np.int64)] = np.asarray(vals, dtype=np.float64)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("graphs", nargs="+")
    ap.add_argument("--out", default=".")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--modes", default="auto,replay,never")
    ap.add_argument("--sssp-modes", default="auto,replay")
    ap.add_argument("--scipy-bfs", action="store_true", help="also SciPy's BFS (one core)")
    ap.add_argument("--level-profile", action="store_true",
                    help="also BFS level by level from Python (graphs of at most 64 levels)")
    ap.add_argument("--bellman-ford", action="store_true",
                    help="also SSSP by Bellman-Ford alone (one repeat), in --sssp-modes")
    ap.add_argument("--push-grid", default="",
                    help="also BFS (auto) on graphs of more than 64 levels with "
                         "mxv.RECORDED_PUSH_GRID (the recorded push's blocks) at each of these")
    ap.add_argument("--sssp-widths", default="",
                    help="also SSSP (auto) on graphs of more than 64 levels with sssp.WIDTH "
                         "on the GPU (the bucket width's multiple) at each of these")
    ap.add_argument("--sssp-squarings", default="",
                    help="also SSSP (auto) on graphs of more than 64 levels with "
                         "gb.config sssp_squarings at each of these")
    ap.add_argument("--sssp-bf-squarings", default="",
                    help="also SSSP (auto) on graphs of more than 64 levels going on by "
                         "Bellman-Ford (one repeat) instead of delta-stepping after the first "
                         "rounds, over A squared this many times, at each of these")
    ap.add_argument("--recorded-grid", default="",
                    help="also SSSP (auto) on graphs of more than 64 levels with the recorded "
                         "kernels' blocks at most (jit.grid_for's recorded_max, default "
                         "jit.RECORDED_MAX_GRID; the push and the loop's end keep theirs) at "
                         "each of these")
    ap.add_argument("--persistent-blocks", default="",
                    help="also BFS (auto) with loops.PERSISTENT_BLOCKS_PER_SM at each of these "
                         "(the persistent kernel's blocks an SM)")
    ap.add_argument("--loop-grid", default="",
                    help="also BFS (auto) on graphs of more than 64 levels with "
                         "loops.LOOP_NEXT_GRID (the loop's last kernel's blocks) at each of these")
    ap.add_argument("--sssp-unfused", action="store_true",
                    help="also SSSP (auto) with its round's kernels unfused (fusion.FUSE and "
                         "loops.FUSE_ROUND off)")
    ap.add_argument("--first-hit-lanes", default="",
                    help="also BFS (auto) with mxv.FIRST_HIT_LANES at each of these values, "
                         "comma-separated (the lanes a row of a first-hit pull)")
    args = ap.parse_args()

    import graphblast as gb
    from graphblast.algorithms import bfs, sssp
    from graphblast.backends.cuda import blocks, fusion, jit, loops, mxv
    from graphblast.bench import graphs

    results = []
    for spec in graphs.parse_graphs(",".join(args.graphs)):
        row = {"graph": spec}
        try:
            t0 = time.perf_counter()
            g = graphs.build(spec, "cuda")
            row = {"graph": g.name, "n": g.n, "stored_edges": g.nedges, "source": g.source,
                   "build_s": time.perf_counter() - t0}
            yard = naive_bfs.NaiveBFS(g.indptr, g.indices)
            naive_s, lv = timed(lambda: yard.run(g.source), args.runs)
            want = cp.asnumpy(lv).astype(np.int64)
            row.update(levels=yard.levels_run, naive_ms=naive_s * 1e3)
            print(f"{g.name}: n {g.n:,}, {yard.levels_run} levels; naive BFS "
                  f"{naive_s * 1e3:.3f} ms "
                  f"({naive_s * 1e6 / yard.levels_run:.2f} us a level)", flush=True)
            for mode in args.modes.split(","):
                with gb.config.set(device_loops=mode):
                    for what, fn in (("bfs", lambda: bfs(g.A, g.source)),
                                     ("bfs_parents", lambda: bfs(g.A, g.source, parents=True)),
                                     ("sssp", lambda: sssp(g.Aw, g.source)),
                                     ("sssp_bf", lambda: sssp(g.Aw, g.source,
                                                              method="bellman-ford"))):
                        if what.startswith("sssp") and mode not in args.sssp_modes.split(","):
                            continue
                        if what == "sssp_bf" and not args.bellman_ford:
                            continue
                        fn()  # compiles
                        r0 = blocks.host_reads()
                        s, out = timed(fn, args.runs)
                        reads = (blocks.host_reads() - r0) / args.runs
                        entry = {"ms": s * 1e3, "host_reads_per_run": reads,
                                 "loop": dict(loops.stats),
                                 "round_kernels": loops.stats.get("round_kernels")}
                        if what == "sssp":
                            dist_want = out
                        if what == "sssp_bf" and f"sssp_{mode}" in row:
                            a, b = (dense_levels_f(v, g.n) for v in (out, dist_want))
                            entry["agrees_with_delta"] = bool(np.allclose(a, b, rtol=1e-9))
                        if what.startswith("bfs"):
                            mine = dense_levels(out[0] if what == "bfs_parents" else out, g.n)
                            entry["agrees_with_naive"] = bool(np.array_equal(mine, want))
                            entry["us_per_level"] = s * 1e6 / yard.levels_run
                            entry["naive_over_graphblast"] = naive_s / s
                        row[f"{what}_{mode}"] = entry
                        print(f"{g.name}: {what:11s} {mode:6s} {s * 1e3:9.3f} ms"
                              + (f" ({entry['us_per_level']:.2f} us a level, naive/graphblast "
                                 f"{entry['naive_over_graphblast']:.2f}, agrees "
                                 f"{entry['agrees_with_naive']})" if "us_per_level" in entry
                                 else "")
                              + (f" (agrees with delta-stepping {entry['agrees_with_delta']})"
                                 if "agrees_with_delta" in entry else "")
                              + f"; host reads {reads:.0f}; loop {entry['loop']}; round kernels "
                              f"{entry['round_kernels']}", flush=True)
            if args.scipy_bfs:  # the CPU peer of BENCHMARKS.md's grid figure, one core
                import scipy.sparse as sp
                from scipy.sparse.csgraph import breadth_first_order

                A = sp.csr_array((np.ones(g.nedges, dtype=np.int8), g.indices, g.indptr),
                                 shape=(g.n, g.n))
                t0 = time.perf_counter()
                breadth_first_order(A, g.source, directed=True, return_predecessors=False)
                row["scipy_bfs_ms"] = (time.perf_counter() - t0) * 1e3
                print(f"{g.name}: SciPy BFS {row['scipy_bfs_ms']:.1f} ms", flush=True)
            # BFS (auto) with one of the loop's or the products' settings changed: what each
            # fusion and launch shape is worth, in the same process
            variants = [(loops, "FUSE_ROUND", False), (loops, "FUSE_UNCLAIM", False),
                        (loops, "FUSE_ASSIGN", False)]
            variants += [(mxv, "RECORDED_PUSH_GRID", int(x))
                         for x in args.push_grid.split(",") if x]
            variants += [(loops, "LOOP_NEXT_GRID", int(x))
                         for x in args.loop_grid.split(",") if x]
            variants += [(loops, "PERSISTENT_BLOCKS_PER_SM", int(x))
                         for x in args.persistent_blocks.split(",") if x]
            if yard.levels_run <= 64:  # the loop runs from Python: only the pull's setting counts
                variants = []
            variants += [(mxv, "FIRST_HIT_LANES", int(x))
                         for x in args.first_hit_lanes.split(",") if x]
            for module, name, value in variants:
                kept = getattr(module, name)
                setattr(module, name, value)
                try:
                    bfs(g.A, g.source)
                    s, out = timed(lambda: bfs(g.A, g.source), args.runs)
                finally:
                    setattr(module, name, kept)
                row[f"bfs_auto_{name.lower()}_{value}_ms"] = s * 1e3
                print(f"{g.name}: bfs auto, {name} {value}: {s * 1e3:.3f} ms "
                      f"({s * 1e6 / yard.levels_run:.2f} us a level), naive/graphblast "
                      f"{naive_s / s:.2f}, agrees "
                      f"{bool(np.array_equal(dense_levels(out, g.n), want))}; round kernels "
                      f"{loops.stats.get('round_kernels')}", flush=True)
            # SSSP (auto) with its bucket width or its squarings changed
            sssp_module = sys.modules["graphblast.algorithms.sssp"]
            sssp_variants = [("WIDTH", int(x)) for x in args.sssp_widths.split(",") if x]
            sssp_variants += [("squarings", int(x)) for x in args.sssp_squarings.split(",") if x]
            sssp_variants += [("bf_squarings", int(x))
                              for x in args.sssp_bf_squarings.split(",") if x]
            sssp_variants += [("recorded_grid", int(x))
                              for x in args.recorded_grid.split(",") if x]
            sssp_variants += [("unfused", 1)] if args.sssp_unfused else []
            grid_defaults = jit.grid_for.__defaults__
            delta_stepping = sssp_module._delta_stepping

            def bellman_ford(A, dist, pending, delta, min_plus):  # from every vertex reached
                gb.repeat(functools.partial(sssp_module._relax, A=A, dist=dist,
                                            min_plus=min_plus), dist.dup())
                return dist

            for name, value in sssp_variants if yard.levels_run > 64 else ():
                kept = dict(sssp_module.WIDTH)
                if name == "WIDTH":
                    sssp_module.WIDTH["cuda"] = value
                if name == "bf_squarings":
                    sssp_module._delta_stepping = bellman_ford
                if name == "recorded_grid":
                    jit.grid_for.__defaults__ = (value,)
                if name == "unfused":
                    fusion.FUSE = loops.FUSE_ROUND = False
                setting = gb.config.set(sssp_squarings=value if "squarings" in name else "auto")
                try:
                    with setting:
                        sssp(g.Aw, g.source)
                        r0 = blocks.host_reads()
                        s, out = timed(lambda: sssp(g.Aw, g.source), args.runs)
                        reads = (blocks.host_reads() - r0) / args.runs
                finally:
                    sssp_module.WIDTH.update(kept)
                    sssp_module._delta_stepping = delta_stepping
                    jit.grid_for.__defaults__ = grid_defaults
                    fusion.FUSE = loops.FUSE_ROUND = True
                same = None
                if "sssp_auto" in row:
                    same = bool(np.allclose(dense_levels_f(out, g.n),
                                            dense_levels_f(dist_want, g.n), rtol=1e-9))
                row[f"sssp_auto_{name.lower()}_{value}_ms"] = s * 1e3
                print(f"{g.name}: sssp auto, {name} {value}: {s * 1e3:.3f} ms; host reads "
                      f"{reads:.0f}; agrees with the default {same}; last loop {loops.stats}",
                      flush=True)
            if args.level_profile and yard.levels_run <= 64:
                row["level_profile"] = level_profile(g)
                for r in row["level_profile"]:
                    print(f"{g.name}: level {r['level']:3d} {r['direction']!s:5s} "
                          f"{r['us']:9.1f} us, host reads {r['host_reads']}, launches "
                          f"{r['launches']}", flush=True)
        except Exception as e:  # noqa: BLE001 - the other graphs are still measured
            import traceback

            traceback.print_exc()
            row["error"] = f"{type(e).__name__}: {e}"
            print(f"{spec}: stopped by {row['error']}", flush=True)
        results.append(row)
        g = yard = lv = None
        cp.get_default_memory_pool().free_all_blocks()
        os.makedirs(args.out, exist_ok=True)  # after each graph: a run cut short keeps them
        with open(os.path.join(args.out, "traversals.json"), "w") as f:
            json.dump(results, f, indent=1, default=str)


if __name__ == "__main__":
    main()
