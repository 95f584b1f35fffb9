"""Where does PageRank's degree-ordered path spend its time, and when does the order pay? (core/ordering.py), phase by phase,
against the stored order, in one process: the renumbering (the backend's
pull_in_degree_order), the first product over B (its traversal view built), a warm product
over B and over A', the gather of the degrees into the order, the gather of the result back,
the whole PageRank (20 fixed steps) both ways, and a step's vector work around its product.

    python3 benchmarks/profiling/pagerank_phases.py --graphs kron-22,kron-27 --out $OUT
"""

import json
import os
import time

try:
    import cupy as cp
except ImportError:  # a dry run on a machine without a GPU (PR_DEVICE=cpu)
    cp = None
import numpy as np

import graphblast as gb
from graphblast import Vector, algorithms, binary, semiring
from graphblast.bench import graphs
from graphblast.dtypes import FP64

import per_graph  # this folder's per_graph.py (run as a script)


DEV = os.environ.get("PR_DEVICE", "cuda:0")


def sync():
    if cp is not None:
        cp.cuda.get_current_stream().synchronize()


def once(fn):
    sync()
    t0 = time.perf_counter()
    out = fn()
    sync()
    return (time.perf_counter() - t0) * 1e3, out


def warm(fn, runs=5):
    fn()
    return float(np.median([once(fn)[0] for _ in range(runs)]))


def measure(name):
    g = graphs.build(graphs.parse_graphs(name)[0], DEV)
    A, n = g.A, g.n
    rec = {"graph": name, "n": n, "nvals": A.nvals}
    runs = 3 if A.nvals < 1e9 else 1
    with gb.config.set(pagerank_order="stored"):
        rec["pagerank_stored_step_ms"] = warm(
            lambda: algorithms.pagerank(A, tol=None, max_iter=20), runs) / 20
        # without the sinks' mass, whose host read each step drains the stream
        rec["pagerank_stored_ignore_step_ms"] = warm(
            lambda: algorithms.pagerank(A, tol=None, max_iter=20, dangling="ignore"),
            runs) / 20
    with gb.config.set(pagerank_order="degree"):
        rec["pagerank_degree_step_ms"] = warm(
            lambda: algorithms.pagerank(A, tol=None, max_iter=20), runs) / 20
    with gb.config.set(pagerank_order="auto"):
        rec["pagerank_auto_step_ms"] = warm(
            lambda: algorithms.pagerank(A, tol=None, max_iter=20), runs) / 20
    backend = A._backend
    ones = Vector.from_scalar(1.0, n, FP64, device=DEV)
    rec["degrees_ms"], out = once(lambda: A.mxv(ones, semiring.plus_pair[FP64]).new())
    rec["renumber_ms"], made = once(lambda: backend.pull_in_degree_order(A._data, 0.0, False))
    rec["renumber_again_ms"] = once(
        lambda: backend.pull_in_degree_order(A._data, 0.0, False))[0]
    if cp is not None:  # the renumbering's parts: the degree sort, then the traversal view
        from graphblast.backends.cuda import mxv as cuda_mxv

        ptr = A._data.indptr
        rec["degree_sort_ms"] = once(lambda: cp.argsort(-(ptr[1:] - ptr[:-1])))[0]
        rec["view_of_B_ms"] = once(lambda: cuda_mxv.View(made[0]))[0]
    B = gb.Matrix._from_data(made[0], backend, A.device)
    P = Vector._from_data(made[1], backend, A.device)
    R = Vector._from_data(made[2], backend, A.device)
    # B keeps the vertices with an edge and one without for the rest (k of n)
    k = rec["kept_vertices"] = B.nrows
    c = Vector.from_scalar(0.5, k, FP64, device=DEV)
    rec["first_mxv_B_ms"] = once(lambda: B.mxv(c, semiring.plus_second[FP64]).new())[0]
    rec["mxv_B_ms"] = warm(lambda: B.mxv(c, semiring.plus_second[FP64]).new())
    c_n = Vector.from_scalar(0.5, n, FP64, device=DEV)
    rec["vxm_A_ms"] = warm(lambda: c_n.vxm(A, semiring.plus_first[FP64]).new())
    rec["gather_out_ms"] = warm(lambda: out[P].new())
    rec["gather_back_ms"] = warm(lambda: c[R].new())
    # a step's vector work around its product, op by op as pagerank's loop runs it (tol=None,
    # dangling="uniform" with sinks): wall time with a synchronization (warm) and GPU time
    # (CUDA events), and the bytes each op must move at least, so that its rate shows
    y = B.mxv(c, semiring.plus_second[FP64]).new()
    rank = c
    share = Vector.from_scalar(0.5, k, FP64, device=DEV)
    sink_share = Vector.from_scalar(1e-9, k, FP64, device=DEV)
    teleport = Vector.from_scalar(0.25, k, FP64, device=DEV)
    spread = rank.inner(sink_share, semiring.plus_times).new()
    new = teleport.apply(binary.plus, right=spread).new()

    def accumulate():  # into a copy of new (dup shares it; the write copies it first)
        out = new.dup()
        out(binary.plus) << y
        return out
    word = 8 * k
    ops = {  # name: (the op, its least bytes: FP64 vectors of k entries, y a bitmap)
        "inner": (lambda: rank.inner(sink_share, semiring.plus_times).new(), 2 * word),
        "teleport": (lambda: teleport.apply(binary.plus, right=spread).new(), 2 * word),
        "scale": (lambda: rank.ewise_mult(share, binary.times).new(), 3 * word),
        "accumulate_with_dup": (accumulate, 2 * word + 3 * word + k),
    }

    def step_vectors():
        s = rank.inner(sink_share, semiring.plus_times).new()
        out = teleport.apply(binary.plus, right=s).new()
        scaled = rank.ewise_mult(share, binary.times).new()
        out(binary.plus) << y
        return scaled, out
    ops["step_vectors"] = (step_vectors, 9 * word + k)
    for name, (fn, nbytes) in ops.items():
        rec[f"{name}_ms"] = warm(fn)
        if cp is not None:
            gpu = rec[f"{name}_gpu_ms"] = per_graph.gpu_ms(fn)
            rec[f"{name}_gb_per_s"] = nbytes / gpu / 1e6
    print(json.dumps(rec), flush=True)
    return rec


def main():
    per_graph.run(measure, "pr_phases.json",
                  None if cp is None else cp.get_default_memory_pool().free_all_blocks)


if __name__ == "__main__":
    main()
