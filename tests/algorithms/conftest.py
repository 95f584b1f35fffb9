"""Fixtures shared by the algorithm tests."""

import functools

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
