"""Weighted betweenness centrality (vertices and edges, ``weighted=True``) against NetworkX's
``weight=`` betweenness: random integer and float weights (with many equal sums), directed
and undirected, disconnected, sampled sources and batches, and bad weights."""

import random

import networkx as nx
import numpy as np
import pytest

import graphblast as gb
from graphblast.algorithms import betweenness_centrality, edge_betweenness_centrality
from graphblast.exceptions import InvalidValue

WEIGHTS = {
    "int": lambda r: r.randint(1, 4),
    # sums that tie only in exact arithmetic (0.1 + 0.2 != 0.3) and sums that tie exactly
    "float": lambda r: r.choice([0.1, 0.2, 0.3, 0.5, 0.7, 1.0]),
    "wide": lambda r: r.uniform(0.01, 100.0),
}


def weighted_graphs(kind, seed):
    """Random graphs with random weights of ``kind``, some disconnected, and a few named."""
    rng = random.Random(seed)
    out = []
    for directed in (False, True):
        for n, p in ((30, 0.08), (40, 0.12), (25, 0.03)):
            out.append(nx.gnp_random_graph(n, p, seed=rng.randrange(1 << 30),
                                           directed=directed))
    out += [nx.disjoint_union(nx.cycle_graph(5), nx.ladder_graph(4)), nx.path_graph(5),
            nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 3)]), nx.empty_graph(3)]
    for G in out:
        for u, v in G.edges:
            G[u][v]["weight"] = WEIGHTS[kind](rng)
    return out


def from_nx(G, device):
    n = G.number_of_nodes()
    rows, cols, vals = [], [], []
    for u, v, w in G.edges(data="weight"):
        rows.append(u), cols.append(v), vals.append(w)
        if not G.is_directed() and u != v:
            rows.append(v), cols.append(u), vals.append(w)
    return gb.Matrix.from_coo(rows, cols, vals, "FP64" if vals else "INT64", nrows=n, ncols=n,
                              device=device)


def dense(v):
    out = np.zeros(v.size)
    idx, vals = v.to_coo()
    out[np.asarray(idx)] = np.asarray(vals)
    return out


def edge_values(E, directed):
    """NetworkX's edge keys (u, v) -> value; an undirected edge sums its two directions."""
    rows, cols, vals = (np.asarray(x).tolist() for x in E.to_coo())
    got = dict(zip(zip(rows, cols), vals))
    return {(u, v): x + (got[v, u] if not directed and u != v else 0.0)
            for (u, v), x in got.items()}


@pytest.mark.parametrize("kind", sorted(WEIGHTS))
def test_vertices_against_networkx(device, kind):
    for G in weighted_graphs(kind, 7):
        n, half = G.number_of_nodes(), 1 if G.is_directed() else 2
        A = from_nx(G, device)
        expected = nx.betweenness_centrality(G, weight="weight")
        np.testing.assert_allclose(dense(betweenness_centrality(A, weighted=True)),
                                   [expected[v] for v in range(n)], rtol=1e-12, atol=1e-12)
        raw = nx.betweenness_centrality(G, weight="weight", normalized=False)
        np.testing.assert_allclose(
            dense(betweenness_centrality(A, normalized=False, batch=3, weighted=True)),
            [half * raw[v] for v in range(n)], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", sorted(WEIGHTS))
def test_edges_against_networkx(device, kind):
    for G in weighted_graphs(kind, 11):
        n, directed = G.number_of_nodes(), G.is_directed()
        A = from_nx(G, device)
        E = edge_betweenness_centrality(A, normalized=False, batch=4, weighted=True)
        assert E.nvals == A.nvals  # every edge, those on no shortest path 0
        got = edge_values(E, directed)
        for (u, v), x in nx.edge_betweenness_centrality(G, weight="weight",
                                                        normalized=False).items():
            key = (u, v) if (u, v) in got else (v, u)
            assert got[key] == pytest.approx((1 if directed else 2) * x, rel=1e-12, abs=1e-12)
        if n > 1:
            normalized = edge_values(edge_betweenness_centrality(A, weighted=True), directed)
            for (u, v), x in nx.edge_betweenness_centrality(G, weight="weight").items():
                key = (u, v) if (u, v) in normalized else (v, u)
                assert normalized[key] == pytest.approx(x, rel=1e-12, abs=1e-12)


def test_sampled_sources_as_networkx(device):
    for G in weighted_graphs("float", 3)[:6]:
        n = G.number_of_nodes()
        A = from_nx(G, device)
        for k in (1, 5, n):
            got = dense(betweenness_centrality(A, k=k, seed=42, normalized=False,
                                               weighted=True))
            sources = random.Random(42).sample(range(n), k)
            expected = np.zeros(n)
            for s in sources:  # NetworkX's sum over the sampled sources
                H = G.copy()
                values = nx.betweenness_centrality_subset(
                    H, [s], list(H), normalized=False, weight="weight")
                expected += [values[v] for v in range(n)]
            half = 1 if G.is_directed() else 2
            np.testing.assert_allclose(got, half * expected, rtol=1e-12, atol=1e-12)


def test_explicit_sources_and_unit_weights(device):
    G = weighted_graphs("int", 5)[1]
    A = from_nx(G, device)
    whole = dense(betweenness_centrality(A, normalized=False, weighted=True))
    parts = sum(dense(betweenness_centrality(A, [s], normalized=False, weighted=True))
                for s in range(G.number_of_nodes()))
    np.testing.assert_allclose(whole, parts, rtol=1e-12)
    ones = A.apply(gb.binary.second, right=1.0).new()  # unit weights: the hop counts' paths
    np.testing.assert_allclose(dense(betweenness_centrality(ones, weighted=True)),
                               dense(betweenness_centrality(A)), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_weights_must_be_positive(device, bad):
    A = gb.Matrix.from_coo([0, 1], [1, 2], [1.0, bad], nrows=3, ncols=3, device=device)
    for algorithm in (betweenness_centrality, edge_betweenness_centrality):
        with pytest.raises(InvalidValue, match="weight"):
            algorithm(A, weighted=True)
        algorithm(A)  # unweighted: the values are ignored


def test_weighted_flag_is_checked(device):
    A = gb.Matrix.from_coo([0], [1], [1.0], nrows=2, ncols=2, device=device)
    with pytest.raises(TypeError, match="weighted"):
        betweenness_centrality(A, weighted="yes")
