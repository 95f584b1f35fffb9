"""The five algorithms, unchanged, on a graph placed on N CPU partitions: the single-device
answers (PageRank's to a relative 1e-9: its sums run in another order)."""

import numpy as np
import pytest
from grouphelp import check, graph

from graphblast import Matrix, binary
from graphblast.algorithms import (NegativeCycle, bfs, connected_components, pagerank, sssp,
                                   triangle_count)
from graphblast.algorithms.pagerank import ConvergenceFailure
from graphblast.generators import kron


@pytest.fixture(scope="module")
def skewed():
    """A small Kronecker graph: hub vertices (unbalanced rows), and more than 1024 vertices of
    average degree above 8, so that connected components samples."""
    return kron(11, 16, seed=7, device="cpu")


def _core_and_leaves(rng, core=80, leaves=520):
    """A clique with a leaf hanging from each other vertex: average degree above 10 and a
    median of 1, so that triangle counting orders the vertices by degree (A[p, p])."""
    i, j = np.triu_indices(core, 1)
    leaf = np.arange(core, core + leaves)
    hang = rng.integers(0, core, leaves)
    rows, cols = np.r_[i, leaf], np.r_[j, hang]
    n = core + leaves
    return Matrix.from_coo(np.r_[rows, cols], np.r_[cols, rows], True, nrows=n, ncols=n)


def _path(n, weight=1):
    """A path 0 - 1 - ... - n-1: as many BFS levels and Bellman-Ford rounds as vertices."""
    i = np.arange(n - 1)
    return Matrix.from_coo(np.r_[i, i + 1], np.r_[i + 1, i], weight, "INT64", nrows=n, ncols=n)


@pytest.mark.parametrize("directed", [False, True])
def test_bfs(rng, parts, directed):
    A = graph(rng, 200, 500, symmetric=not directed)
    check(parts, lambda A: (bfs(A, 3), bfs(A, 3, parents=True)), A)


def test_bfs_long_path_and_hubs(parts, skewed):
    check(parts, lambda A: bfs(A, 40, parents=True), _path(60))
    check(parts, lambda A: (bfs(A, 0), bfs(A, 5, parents=True)), skewed)


@pytest.mark.parametrize("method", ["auto", "bellman-ford", "delta"])
def test_sssp(rng, parts, method):
    A = graph(rng, 150, 400, weighted=True, symmetric=False)
    check(parts, lambda A: sssp(A, 0, method=method), A)


def test_sssp_switches_to_delta_stepping(rng, parts):
    """More Bellman-Ford rounds than SWITCH_ROUNDS on a long path: the auto method goes on
    with delta-stepping from the distances found."""
    A = _path(80).apply(binary.times, right=3).new()
    check(parts, lambda A: (sssp(A, 0), sssp(A, 0, delta=5.5)), A)


def test_sssp_negative_weights(rng, parts):
    A = graph(rng, 60, 150, weighted=True, symmetric=False)
    A = A.apply(binary.minus, right=2).new().select("valuene", 0).new()
    dag = A.select("triu", 1).new()  # no cycle at all: negative edges are fine
    check(parts, lambda dag: sssp(dag, 0, negative_weights=True), dag)
    A[0, 1] = -5
    A[1, 0] = 1  # a cycle of weight -4 at the source
    error = check(parts, lambda A: sssp(A, 0, negative_weights=True), A)
    assert isinstance(error, NegativeCycle)


@pytest.mark.parametrize("dangling", ["uniform", "ignore"])
@pytest.mark.parametrize("weighted", [False, True])
def test_pagerank(rng, parts, dangling, weighted):
    A = graph(rng, 180, 500, weighted=True, symmetric=False, dtype="FP64")
    check(parts, lambda A: (pagerank(A, dangling=dangling, weighted=weighted),
                            pagerank(A, tol=None, max_iter=7, dangling=dangling,
                                     weighted=weighted)), A)


def test_pagerank_on_hubs_and_failure(parts, skewed):
    check(parts, pagerank, skewed)
    error = check(parts, lambda A: pagerank(A, tol=1e-12, max_iter=3), skewed)
    assert isinstance(error, ConvergenceFailure)


@pytest.mark.parametrize("directed", [False, True])
def test_connected_components(rng, parts, directed):
    A = graph(rng, 300, 220, symmetric=not directed)  # many small components
    check(parts, connected_components, A)


def test_connected_components_sampling(parts, skewed):
    """More than 1024 vertices and average degree above 8: two sampled rounds, then the rest
    without the largest component's inner edges."""
    check(parts, connected_components, skewed)


def test_triangle_count(rng, parts, skewed):
    A = graph(rng, 120, 900)
    check(parts, triangle_count, A)
    check(parts, triangle_count, skewed)
    check(parts, triangle_count, _core_and_leaves(rng))  # ordered by degree: A[p, p]
    directed = graph(rng, 80, 400, symmetric=False)
    check(parts, lambda A: triangle_count(A, symmetrize=True), directed)
    check(parts, triangle_count, directed)  # raises: not symmetric
