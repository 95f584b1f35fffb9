"""semisynchronous_label_propagation and greedy_coloring against NetworkX's
label_propagation_communities and greedy_color (same colours, same communities)."""

import networkx as nx
import numpy as np
import pytest

import graphblast as gb
from graphblast.algorithms import greedy_coloring, semisynchronous_label_propagation
from graphblast.exceptions import InvalidValue


def _largest_first(G):
    """NetworkX's largest_first order as priorities: degree down, then node order."""
    degree = np.array([G.degree(v) for v in G])
    return gb.Vector.from_dense((degree.max(initial=0) - degree) * len(G) + np.arange(len(G)))


def _partition(labels):
    groups = {}
    for v, label in enumerate(labels.to_dense().tolist()):
        groups.setdefault(label, set()).add(v)
    return {frozenset(g) for g in groups.values()}


def _generated():
    graphs = [nx.karate_club_graph(), nx.caveman_graph(4, 6), nx.les_miserables_graph(),
              nx.davis_southern_women_graph(), nx.empty_graph(3)]
    for seed in range(6):
        G = nx.gnp_random_graph(90, 0.02 + 0.01 * seed, seed=seed)
        G.add_edges_from([(3, 3), (10, 10)])            # self-loops count in the degree
        graphs.append(G)
    G = nx.caveman_graph(2, 10)
    G.add_edges_from([(0, 20), (20, 10)])
    graphs.append(G)
    return [nx.convert_node_labels_to_integers(G) for G in graphs]


@pytest.mark.parametrize("index", range(len(_generated())))
def test_generated(device, to_matrix, index):
    G = _generated()[index]
    A = to_matrix(G, device)
    colors = greedy_coloring(A, _largest_first(G).to_device(device)).to_dense().tolist()
    assert colors == [nx.greedy_color(G)[v] for v in G]
    labels = semisynchronous_label_propagation(A)
    assert labels.dtype == gb.dtypes.INT64 and labels.nvals == len(G)
    assert _partition(labels) == {frozenset(c) for c in
                                  nx.community.label_propagation_communities(G)}


@pytest.mark.parametrize("name", ["CA-GrQc.txt", "as20000102.txt"])
def test_real(device, real_graph, name):
    G, A = real_graph(name, False, device)
    assert _partition(semisynchronous_label_propagation(A)) == {
        frozenset(c) for c in nx.community.label_propagation_communities(G)}


def test_bad_priorities(device):
    A = gb.Matrix.from_coo([0, 1], [1, 0], True, nrows=3, ncols=3, device=device)
    with pytest.raises(InvalidValue, match="two neighbours have the same priority"):
        greedy_coloring(A, gb.Vector.from_dense(np.array([4, 4, 0]), device=device))
    with pytest.raises(InvalidValue, match="full integer Vector of size 3"):
        greedy_coloring(A, gb.Vector.from_dense(np.array([0.5, 1.0, 2.0]), device=device))
    with pytest.raises(InvalidValue, match="full integer Vector of size 3"):
        greedy_coloring(A, gb.Vector.from_coo([0, 1], [1, 2], size=3, device=device))
    # neighbours apart, equal priorities are fine: the isolated vertex 2 shares 0's
    got = greedy_coloring(A, gb.Vector.from_dense(np.array([0, 1, 0]), device=device))
    assert got.to_dense().tolist() == [0, 1, 0]
