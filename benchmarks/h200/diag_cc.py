"""Diagnostic: connected components on the GPU against SciPy on random directed graphs, with
the traversal direction forced each way, and step-by-step against the CPU backend."""
import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

import graphblast as gb
from graphblast.algorithms import connected_components as cc_mod
import importlib

cc = importlib.import_module("graphblast.algorithms.connected_components")
cc.SAMPLE_MIN_VERTICES = 0
cc.SAMPLE_MIN_DEGREE = 0


def smallest(M):
    _, lab = csgraph.connected_components(M, directed=True, connection="weak")
    first = {}
    for v, l in enumerate(lab):
        first.setdefault(l, v)
    return np.array([first[l] for l in lab])


for seed in (724747197, 1, 2, 3):
    rng = np.random.default_rng(seed)
    n = 2000
    for rounds in (1, 2):
        cc.SAMPLE_ROUNDS = rounds
        M = sp.random_array((n, n), density=1.0 / n, rng=rng, format="coo")
        perm = rng.permutation(n)
        M = sp.coo_array((M.data, (perm[M.row], perm[M.col])), shape=(n, n))
        ref = smallest(M)
        for direction in ("auto", "push", "pull"):
            res = {}
            for dev in ("cpu", "cuda"):
                A = gb.Matrix.from_coo(M.row, M.col, M.data, nrows=n, ncols=n, device=dev)
                with gb.config.set(direction=direction):
                    f = cc_mod(A)
                res[dev] = f.to_dense()
            print(seed, rounds, direction, "cpu ok" if np.array_equal(res["cpu"], ref) else
                  "cpu WRONG", "cuda ok" if np.array_equal(res["cuda"], ref) else
                  f"cuda WRONG at {np.flatnonzero(res['cuda'] != ref)[:5]}", flush=True)
