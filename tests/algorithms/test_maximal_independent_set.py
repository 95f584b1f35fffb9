"""maximal_independent_set: independent and maximal (the answer is random), reproducible
by seed, as large as NetworkX's."""

import networkx as nx
import numpy as np
import pytest

import graphblast as gb
from graphblast.algorithms import maximal_independent_set as mis
from graphblast.exceptions import DimensionMismatch, InvalidValue


def members(v):
    assert v.dtype == gb.dtypes.BOOL
    return set(v.to_coo()[0].tolist())


def check(G, chosen):
    assert not any(G.has_edge(u, w) for u in chosen for w in G[u] if w in chosen and w != u)
    assert all(v in chosen or any(w in chosen for w in G[v] if w != v) for v in G)


@pytest.mark.parametrize("name", ["CA-GrQc.txt", "facebook_combined.txt.gz",
                                  "as20000102.txt"])
def test_real(device, real_graph, name):
    G, A = real_graph(name, False, device, loops=True)
    chosen = members(mis(A, seed=7))
    check(G, chosen)
    # Luby with degree-weighted scores finds sets about as large as NetworkX's greedy one
    assert len(chosen) >= 0.9 * len(nx.maximal_independent_set(G, seed=7))


@pytest.mark.parametrize("seed", range(4))
def test_generated(device, to_matrix, seed):
    for G in (nx.gnp_random_graph(300, 0.02, seed=seed),
              nx.barabasi_albert_graph(300, 4, seed=seed)):
        A = to_matrix(G, device)
        chosen = members(mis(A, seed=seed))
        check(G, chosen)
        assert members(mis(A, seed=seed)) == chosen


def test_directed_include_and_edge_cases(device, to_matrix):
    D = nx.gnp_random_graph(100, 0.05, seed=1, directed=True)
    check(D.to_undirected(), members(mis(to_matrix(D, device), seed=1)))
    G = nx.path_graph(6)
    A = to_matrix(G, device)
    chosen = members(mis(A, seed=3, include=gb.Vector.from_coo([1, 4], True, size=6,
                                                               device=device)))
    assert {1, 4} <= chosen
    check(G, chosen)
    with pytest.raises(InvalidValue, match="not independent"):
        mis(A, include=gb.Vector.from_coo([1, 2], True, size=6, device=device))
    assert mis(gb.Matrix(bool, 0, 0, device=device)).nvals == 0
    assert members(mis(gb.Matrix(bool, 3, 3, device=device))) == {0, 1, 2}
    loops = gb.Matrix.from_coo([0, 1, 1, 2], [0, 2, 1, 1], True, nrows=3, ncols=3,
                               device=device)   # self-loops ignored
    chosen = members(mis(loops, seed=0))
    assert 0 in chosen and len(chosen & {1, 2}) == 1


def test_bad_arguments(device):
    with pytest.raises(DimensionMismatch):
        mis(gb.Matrix(bool, 2, 3, device=device))
    with pytest.raises(DimensionMismatch):
        mis(gb.Matrix(bool, 2, 2, device=device), include=gb.Vector(bool, 3, device=device))
