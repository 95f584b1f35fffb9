"""``make demo`` / ``python -m graphblast.demo``: the five graph algorithms on the best device.

Makes a GAP Kronecker graph sized to the device, runs BFS, SSSP, PageRank, connected
components and triangle counting with graphblast, checks each answer against an independent
oracle on the same graph (SciPy's csgraph, a SciPy power iteration, a SciPy sparse triangle
count) and prints one table of times.  It is meant to finish within a minute on a 2-core CPU
and on a GPU, so the scale is chosen by what the slowest step can do in that time.
"""

import argparse
import os
import sys
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

import graphblast as gb
from graphblast import algorithms, generators

#: Kronecker scale (log2 of the vertex count) per kind of device, and why.
SCALES = {
    "cpu": (16, "graphblast's CPU triangle count is the slowest step and costs about 2.5x more\n"
                "  per scale; at 16 the whole demo stays well within a minute on 2 cores"),
    "cuda": (17, "the SciPy oracles run on one CPU core; the slowest, their triangle count,\n"
                 "  takes a few seconds at scale 17 and about 3x more per scale"),
}


def device_and_reason():
    """The device the demo uses and why."""
    if os.environ.get("GRAPHBLAST_DEVICE"):
        return gb.default_device(), f"GRAPHBLAST_DEVICE={os.environ['GRAPHBLAST_DEVICE']}"
    if gb.cuda_available():
        import cupy

        name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
        return "cuda:0", f"CuPy found a usable GPU ({name})"
    try:
        import cupy  # noqa: F401

        why = "CuPy is installed but no usable GPU was found"
    except ImportError:
        why = "CuPy is not installed (pip install graphblast[cuda13] for the GPU)"
    return "cpu", why


def _sync(result):
    obj = result[0] if isinstance(result, tuple) else result
    if hasattr(obj, "wait"):
        obj.wait()


def _timed(func, repeat=1, warmup=False):
    """(result, median seconds of ``repeat`` runs); ``warmup`` runs once untimed first."""
    if warmup:
        _sync(func())
    times = []
    result = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = func()
        _sync(result)
        times.append(time.perf_counter() - t0)
    return result, float(np.median(times))


# -- oracles: SciPy and NumPy only, nothing of graphblast ------------------------------------


def _levels_oracle(S, source):
    dist = csgraph.shortest_path(S, unweighted=True, indices=source)
    reached = np.isfinite(dist)
    return np.flatnonzero(reached), dist[reached].astype(np.int64)


def _pagerank_oracle(S, damping=0.85, tol=1e-4, max_iter=100):
    """Power iteration with dangling mass spread uniformly, stopped as graphblast's
    pagerank is (``sum |r' - r| < n * tol``)."""
    n = S.shape[0]
    out = np.asarray(S.sum(axis=1)).ravel()
    dangling = out == 0
    inv = np.where(dangling, 0.0, 1.0 / np.where(dangling, 1.0, out))
    P = sp.diags(inv) @ S
    r = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        new = damping * (P.T @ r + r[dangling].sum() / n) + (1 - damping) / n
        if np.abs(new - r).sum() < n * tol:
            return new
        r = new
    return r


def _triangle_oracle(S):
    """Triangles of the undirected ``S`` with SciPy's sparse product: each edge points from
    the higher to the lower degree rank, so with that lower triangle ``L`` every triangle is
    one entry of ``(L @ L) .* L`` and no row of ``L`` is long (this order is what makes it
    fast on a skewed graph such as kron)."""
    order = np.argsort(np.diff(S.indptr), kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    C = S.tocoo()
    r, c = rank[C.row], rank[C.col]
    keep = r > c
    L = sp.csr_array((np.ones(int(keep.sum())), (r[keep], c[keep])), shape=S.shape)
    return int((L @ L).multiply(L).sum())


def _dense(v, fill=0):
    idx, vals = v.to_coo()
    out = np.full(v.size, fill, dtype=vals.dtype if vals.size else np.float64)
    out[idx] = vals
    return out


def _scipy(A):
    rows, cols, vals = A.to_coo()
    return sp.csr_array((vals.astype(np.float64), (rows.astype(np.int64), cols.astype(np.int64))),
                        shape=A.shape)


# -- the demo ---------------------------------------------------------------------------------


def run(scale, device, repeat, out_dir=None):
    """Run the five algorithms and their oracles; True if every answer agrees."""
    on_gpu = device.startswith("cuda")
    print(f"generating GAP kron scale {scale} on {device} ...", flush=True)
    t0 = time.perf_counter()
    A = generators.kron(scale, device=device)
    W = generators.kron(scale, weighted=True, device=device)  # same edges, weights 1..255
    S, SW = _scipy(A), _scipy(W)
    print(f"  {A.nrows:,} vertices, {A.nvals:,} stored edges (both directions), "
          f"{time.perf_counter() - t0:.1f} s", flush=True)
    source = int(np.argmax(np.diff(S.indptr)))  # the hub: BFS and SSSP reach the most
    # GPU kernels are compiled on first use: one untimed run first.  On the CPU every run
    # costs the same, so each algorithm runs only for its timing.
    note = ("median of %d runs after one untimed run that compiles the GPU kernels" % repeat
            if on_gpu else "median of %d runs; triangle count: one run" % repeat)
    print(f"graphblast times: {note}; oracles: one run each, on one CPU core\n")
    header = (f"{'algorithm':<20} {'graphblast':>11}  {'oracle':<34} {'oracle time':>11} "
              f"{'speedup':>8}  check")
    print(header)
    print("-" * len(header), flush=True)
    results = []

    def record(name, ours_t, oracle, oracle_t, ok):
        results.append((name, ours_t, oracle, oracle_t, ok))
        print(f"{name:<20} {ours_t * 1e3:8.1f} ms  {oracle:<34} {oracle_t * 1e3:8.1f} ms "
              f"{oracle_t / ours_t:7.2f}x  {'ok' if ok else 'MISMATCH'}", flush=True)

    levels, t = _timed(lambda: algorithms.bfs(A, source), repeat, warmup=on_gpu)
    (ridx, rlev), to = _timed(lambda: _levels_oracle(S, source))
    idx, lev = levels.to_coo()
    record("BFS", t, "SciPy csgraph.shortest_path (BFS)", to,
           np.array_equal(idx, ridx) and np.array_equal(lev, rlev))

    dist, t = _timed(lambda: algorithms.sssp(W, source), repeat, warmup=on_gpu)
    ref, to = _timed(lambda: csgraph.dijkstra(SW, indices=source))
    idx, d = dist.to_coo()
    reached = np.flatnonzero(np.isfinite(ref))
    record("SSSP", t, "SciPy csgraph.dijkstra", to,
           np.array_equal(idx, reached) and np.allclose(d, ref[reached]))

    ranks, t = _timed(lambda: algorithms.pagerank(A), repeat, warmup=on_gpu)
    ref, to = _timed(lambda: _pagerank_oracle(S))
    # both stop at sum |r' - r| < n * 1e-4: they agree to well within that per vertex
    record("PageRank", t, "SciPy power iteration", to,
           np.allclose(_dense(ranks), ref, rtol=0, atol=10 * 1e-4 / A.nrows))

    labels, t = _timed(lambda: algorithms.connected_components(A), repeat, warmup=on_gpu)
    (ncomp, ref), to = _timed(lambda: csgraph.connected_components(S, directed=False))
    lab = _dense(labels)
    # the same partition: as many labels as components, and each pair of labels is one
    same = len(np.unique(lab)) == ncomp and len(np.unique(lab * (ncomp + 1) + ref)) == ncomp
    record("connected components", t, "SciPy csgraph.connected_components", to, same)

    count, t = _timed(lambda: algorithms.triangle_count(A), 1, warmup=on_gpu)
    ref, to = _timed(lambda: _triangle_oracle(S))
    record("triangle count", t, "SciPy sparse (L @ L) .* L", to, int(count) == ref)
    ok = all(r[-1] for r in results)
    print(f"\n{count:,} triangles; {'every answer agrees' if ok else 'answers DISAGREE'} with "
          "the oracles")
    if out_dir is not None:
        _plot(results, scale, device, out_dir)
    return ok


def _plot(results, scale, device, out_dir):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (pip install graphblast[plot])")
        return
    os.makedirs(out_dir, exist_ok=True)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.bar([r[0] for r in results], [r[3] / r[1] for r in results], color="#3b7dd8")
    ax.axhline(1.0, color="gray", lw=1)
    ax.set_yscale("log")
    ax.set_ylabel("oracle time / graphblast time")
    ax.set_title(f"graphblast on {device}, GAP kron scale {scale}")
    fig.autofmt_xdate(rotation=20)
    fig.tight_layout()
    path = os.path.join(out_dir, "demo-speedup.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(f"plot written to {path}")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m graphblast.demo", description=__doc__)
    parser.add_argument("--scale", type=int, default=None,
                        help=f"Kronecker scale (default {SCALES['cpu'][0]} on a CPU, "
                             f"{SCALES['cuda'][0]} on a GPU)")
    parser.add_argument("--device", default=None, help="cpu, cuda or cuda:N (default: best)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="timed runs of each algorithm but the triangle count (default 3)")
    parser.add_argument("--plot", metavar="DIR", default=None,
                        help="also write DIR/demo-speedup.png (needs matplotlib)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.device:
        from graphblast.backends import parse_device

        device, reason = parse_device(args.device), "--device"
    else:
        device, reason = device_and_reason()
    print(f"graphblast {gb.__version__} on device {device}: {reason}")
    kind = "cuda" if device.startswith("cuda") else "cpu"
    if args.scale is None:
        scale, why = SCALES[kind]
        print(f"kron scale {scale} (--scale N for another): {why}")
    else:
        scale = args.scale
        print(f"kron scale {scale} (--scale)")
    ok = run(scale, device, args.repeat, args.plot)
    print(f"demo done in {time.perf_counter() - start:.1f} s")
    print("Next: graphblast bench --smoke --out bench-results  (graphblast against SciPy, "
          "NetworkX, SuiteSparse and others; without --smoke, the full benchmark; "
          ".venv/bin/graphblast after make demo)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
