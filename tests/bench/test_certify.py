"""Certificates (bench/certify.py): an answer checked on the graph itself is accepted when
right and rejected when any part of it is wrong, on every device."""

import numpy as np
import pytest

from graphblast import algorithms
from graphblast.bench import certify, check, graphs
from graphblast.bench.peers import AlgorithmParams


_GRAPHS = {}


@pytest.fixture
def graph(device, data_dir):
    """kron-8, built once per device: isolated vertices, one giant component, and hubs
    (rows longer than the small chunks below)."""
    if device not in _GRAPHS:
        _GRAPHS[device] = graphs.build(graphs.GraphSpec("kron", 8), device, data_dir)
    return _GRAPHS[device]


def _answer(algorithm, graph):
    A = graph.Aw if algorithm == "sssp" else graph.A
    raw = {"bfs": lambda: algorithms.bfs(A, graph.source),
           "sssp": lambda: algorithms.sssp(A, graph.source),
           "pagerank": lambda: algorithms.pagerank(A, tol=1e-9, max_iter=1000),
           "cc": lambda: algorithms.connected_components(A)}[algorithm]()
    return check.graphblas_answer(algorithm, raw, graph)


@pytest.mark.parametrize("chunk", [1 << 27, 64])
@pytest.mark.parametrize("algorithm", ["bfs", "sssp", "pagerank", "cc"])
def test_right_answers_are_certified(graph, monkeypatch, algorithm, chunk):
    monkeypatch.setattr(certify, "CHUNK_EDGES", chunk)
    ok, how = certify.certify(algorithm, graph, _answer(algorithm, graph), AlgorithmParams())
    assert ok, how


def _reached_not_source(answer, graph, reached):
    v = np.flatnonzero(reached)
    return int(v[v != graph.source][0])


@pytest.mark.parametrize("algorithm, corrupt", [
    ("bfs", "one level too deep"), ("bfs", "one level too shallow"),
    ("bfs", "an unreached vertex"), ("sssp", "a distance too long"),
    ("sssp", "a distance too short"), ("pagerank", "a rank moved"),
    ("cc", "two components merged"), ("cc", "a component split"),
])
def test_wrong_answers_are_rejected(graph, algorithm, corrupt):
    a = _answer(algorithm, graph).copy()
    if algorithm == "bfs":
        v = _reached_not_source(a, graph, a >= 1)
        a[v] = {"one level too deep": a[v] + 1, "one level too shallow": a[v] - 1,
                "an unreached vertex": -1}[corrupt]
    elif algorithm == "sssp":
        v = _reached_not_source(a, graph, np.isfinite(a))
        a[v] += 1.0 if corrupt == "a distance too long" else -1.0
    elif algorithm == "pagerank":
        a[0] += 1e-3
        a[1] -= 1e-3
    else:
        labels, counts = np.unique(a, return_counts=True)
        if corrupt == "two components merged":
            small = labels[counts == counts.min()][-1]
            a[a == small] = labels[0] if small != labels[0] else labels[1]
        else:
            big = labels[np.argmax(counts)]
            members = np.flatnonzero(a == big)
            a[members[len(members) // 2:]] = members[len(members) // 2]
    ok, how = certify.certify(algorithm, graph, a, AlgorithmParams())
    assert not ok, (corrupt, how)


def test_no_certificate_for_triangles(graph):
    assert certify.certify("tc", graph, 3, AlgorithmParams()) is None

