"""``make demo`` / ``python -m graphblast.demo``: the main job, on the best device found.

Makes a GAP Kronecker graph sized to the device (scale 16 on a CPU, 22 on a GPU), runs the five
algorithms of the GraphBLAST paper, checks each against an independent SciPy oracle, prints a
table of times, GTEPS and speedups over SciPy, and writes a PNG plot.
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


def _timed(func, repeat):
    func()  # warm-up: kernel compilation, transpose caches
    times = []
    result = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = func()
        _sync(result)
        times.append(time.perf_counter() - t0)
    return result, float(np.median(times))


def _sync(result):
    obj = result[0] if isinstance(result, tuple) else result
    if hasattr(obj, "wait"):
        obj.wait()


def _levels_oracle(S, source):
    dist = csgraph.shortest_path(S, unweighted=True, indices=source)
    reached = np.isfinite(dist)
    return np.flatnonzero(reached), dist[reached].astype(np.int64)


def _pagerank_oracle(S, damping=0.85, tol=1e-4, max_iter=100):
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


def _vector_dense(v, fill=0):
    idx, vals = v.to_coo()
    out = np.full(v.size, fill, dtype=vals.dtype if vals.size else np.float64)
    out[idx] = vals
    return out


def run(scale, device, out_dir, repeat):
    print(f"generating GAP kron scale {scale} on {device} ...", flush=True)
    t0 = time.perf_counter()
    A = generators.kron(scale, device=device)
    W = generators.kron(scale, weighted=True, device=device)
    print(f"  {A.nrows:,} vertices, {A.nvals:,} stored edges in {time.perf_counter() - t0:.1f} s")
    rows, cols, _ = A.to_coo()
    S = sp.csr_array((np.ones(A.nvals), (rows.astype(np.int64), cols.astype(np.int64))),
                     shape=A.shape)
    wr, wc, wv = W.to_coo()
    SW = sp.csr_array((wv.astype(np.float64), (wr.astype(np.int64), wc.astype(np.int64))),
                      shape=W.shape)
    degrees = np.diff(S.indptr)
    source = int(np.argmax(degrees))
    results = []

    def record(name, ours_t, oracle_t, ok):
        gteps = A.nvals / ours_t / 1e9
        results.append((name, ours_t, gteps, oracle_t, oracle_t / ours_t, ok))
        print(f"  {name:<22} {ours_t * 1e3:9.2f} ms  {gteps:7.3f} GTEPS  SciPy {oracle_t * 1e3:9.2f} "
              f"ms  x{oracle_t / ours_t:6.2f}  {'ok' if ok else 'MISMATCH'}", flush=True)

    levels, t = _timed(lambda: algorithms.bfs(A, source), repeat)
    (ridx, rlev), to = _timed(lambda: _levels_oracle(S, source), 1)
    idx, lev = levels.to_coo()
    record("bfs", t, to, np.array_equal(idx, ridx) and np.array_equal(lev, rlev))

    dist, t = _timed(lambda: algorithms.sssp(W, source), repeat)
    ref, to = _timed(lambda: csgraph.dijkstra(SW, indices=source), 1)
    idx, d = dist.to_coo()
    reached = np.flatnonzero(np.isfinite(ref))
    record("sssp", t, to, np.array_equal(idx, reached) and
           np.allclose(d, ref[reached]))

    ranks, t = _timed(lambda: algorithms.pagerank(A), repeat)
    ref, to = _timed(lambda: _pagerank_oracle(S), 1)
    record("pagerank", t, to,
           np.allclose(_vector_dense(ranks), ref, atol=1e-4 / A.nrows * 10))

    labels, t = _timed(lambda: algorithms.connected_components(A), repeat)
    (ncomp, ref), to = _timed(lambda: csgraph.connected_components(S, directed=False), 1)
    lab = _vector_dense(labels)
    same = len(np.unique(lab)) == ncomp and len(np.unique(lab * (ncomp + 1) + ref)) == ncomp
    record("connected_components", t, to, same)

    count, t = _timed(lambda: algorithms.triangle_count(A), max(1, repeat // 2))
    L = sp.tril(S, k=-1, format="csr")
    ref, to = _timed(lambda: int((L @ L.T).multiply(L).sum()), 1)
    record("triangle_count", t, to, int(count) == ref)

    _table(results, scale, A, device)
    _plot(results, scale, device, out_dir)
    return all(r[-1] for r in results)


def _table(results, scale, A, device):
    print()
    print(f"kron scale {scale}: {A.nrows:,} vertices, {A.nvals:,} edges, device {device}")
    print(f"{'algorithm':<22} {'time (ms)':>10} {'GTEPS':>8} {'SciPy (ms)':>11} {'speedup':>8} "
          f"{'check':>6}")
    for name, t, gteps, to, speedup, ok in results:
        print(f"{name:<22} {t * 1e3:10.2f} {gteps:8.3f} {to * 1e3:11.2f} {speedup:8.2f} "
              f"{'ok' if ok else 'FAIL':>6}")


def _plot(results, scale, device, out_dir):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (pip install graphblast[plot])")
        return
    os.makedirs(out_dir, exist_ok=True)
    names = [r[0] for r in results]
    speedups = [r[4] for r in results]
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.bar(names, speedups, color="#3b7dd8")
    ax.axhline(1.0, color="gray", lw=1)
    ax.set_yscale("log")
    ax.set_ylabel("speedup over SciPy")
    ax.set_title(f"graphblast on {device}, GAP kron scale {scale}")
    fig.autofmt_xdate(rotation=20)
    fig.tight_layout()
    path = os.path.join(out_dir, "demo-speedup.png")
    fig.savefig(path, dpi=120)
    print(f"plot written to {path}")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m graphblast.demo", description=__doc__)
    parser.add_argument("--scale", type=int, default=None,
                        help="Kronecker scale (default 16 on a CPU, 22 on a GPU)")
    parser.add_argument("--device", default=None, help="cpu, cuda or cuda:N (default: best)")
    parser.add_argument("--out", default="demo-output", help="folder for the plot")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per algorithm")
    args = parser.parse_args(argv)
    if args.device:
        from graphblast.backends import parse_device

        device, reason = parse_device(args.device), "--device"
    else:
        device, reason = device_and_reason()
    print(f"graphblast {gb.__version__}: using {device} ({reason})")
    scale = args.scale or (22 if device.startswith("cuda") else 16)
    ok = run(scale, device, args.out, args.repeat)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
