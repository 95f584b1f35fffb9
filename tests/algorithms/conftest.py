"""Fixtures shared by the algorithm tests."""

import functools
import os

import numpy as np
import pytest
import scipy.sparse as sp


@functools.lru_cache(maxsize=None)
def _gap_graph(kind, scale, device, weighted=False):
    from graphblast import generators

    A = getattr(generators, kind)(scale, weighted=weighted, device=device)
    rows, cols, vals = (np.asarray(x) for x in A.to_coo())
    return sp.csr_array((vals, (rows, cols)), shape=A.shape), A


@pytest.fixture(scope="session")
def gap_graph():
    """``gap_graph(kind, scale, device, weighted=False)``: GAP's kron or urand graph as
    (SciPy CSR, graphblast Matrix), made once per session for all algorithm tests."""
    return _gap_graph


# Real graphs of tests/data/real (see its README) for the oracle tests: file -> lines to skip.
REAL_SKIP = {"facebook_combined.txt.gz": 0, "wiki-Vote.txt": 0, "CA-GrQc.txt": 1,
             "p2p-Gnutella04.txt": 1, "as20000102.txt": 0, "email-Eu-core.csv": 0}


@functools.lru_cache(maxsize=None)
def _real_arcs(path, skip):
    arcs = np.loadtxt(path, dtype=np.int64, comments="#", skiprows=skip, usecols=(0, 1),
                      ndmin=2)
    ids, renumbered = np.unique(arcs, return_inverse=True)
    return renumbered.reshape(arcs.shape), len(ids)


@pytest.fixture(scope="session")
def real_graph(data_dir):
    """``real_graph(name, directed, device, loops=False)``: a graph of tests/data/real (ids
    renumbered 0..n-1 in sorted order) as (NetworkX graph or DiGraph on 0..n-1, graphblast
    Matrix of its arcs, both directions for an undirected one, BOOL).  Self-loops are dropped
    unless ``loops``."""
    import networkx as nx

    import graphblast as gb

    def make(name, directed, device, loops=False):
        arcs, n = _real_arcs(os.path.join(data_dir, "real", name), REAL_SKIP[name])
        if not loops:
            arcs = arcs[arcs[:, 0] != arcs[:, 1]]
        G = (nx.DiGraph if directed else nx.Graph)()
        G.add_nodes_from(range(n))
        G.add_edges_from(arcs.tolist())
        M = sp.coo_array(nx.to_scipy_sparse_array(G, nodelist=range(n), dtype=bool))
        A = gb.Matrix.from_coo(M.row, M.col, True, nrows=n, ncols=n, device=device)
        return G, A

    return make


def nx_matrix(G, device, weight=None, dtype=float):
    """The adjacency matrix of the NetworkX graph ``G`` (nodes 0..n-1) as a graphblast
    Matrix: ``weight``'s values, or True (BOOL) when ``weight`` is None."""
    import graphblast as gb

    n = len(G)
    M = sp.coo_array(nx_scipy(G, weight, dtype))
    if weight is None:
        return gb.Matrix.from_coo(M.row, M.col, True, nrows=n, ncols=n, device=device)
    return gb.Matrix.from_coo(M.row, M.col, M.data, nrows=n, ncols=n, device=device)


def nx_scipy(G, weight, dtype):
    import networkx as nx

    return nx.to_scipy_sparse_array(G, nodelist=range(len(G)), weight=weight, dtype=dtype)


@pytest.fixture(scope="session")
def to_matrix():
    """``to_matrix(G, device, weight=None)``: a NetworkX graph on 0..n-1 as a Matrix."""
    return nx_matrix
