"""NetworkX's modularity communities on graphblast: ``louvain_communities`` and
``leiden_communities`` (which NetworkX itself leaves to backends).

NetworkX's Louvain visits the nodes in a random order (``seed``); graphblast moves all nodes
at once and needs no randomness, so ``seed`` is accepted and has no effect: the answer is one
of the partitions NetworkX's contract allows (a local optimum of modularity, each level
gaining at least ``threshold``), not the one a given seed would give.

``label_propagation_communities`` is NetworkX's semi-synchronous label propagation, with no
randomness, replayed exactly: the same greedy colouring (largest degree first), the colour
classes updated in the same order with the same Prec-Max tie rule, the same stopping test
(``graphblast.algorithms.semisynchronous_label_propagation``): the same communities, in the
order of their first node.  A multigraph runs in NetworkX (its degrees count parallel edges,
which order the colouring; the converted graph merges them).  NetworkX's asynchronous
``asyn_lpa_communities`` and ``fast_label_propagation_communities`` visit nodes in a random
order and are not dispatched; graphblast's synchronous CDLP
(``graphblast.algorithms.label_propagation``) is LDBC's, another algorithm again.
"""

import networkx as nx
import numpy as np

from graphblast import algorithms as gba
from graphblast.algorithms import _validate
from graphblast import binary
from graphblast.dtypes import FP64
from graphblast.exceptions import InvalidValue

from .algorithms import _graph, _implements, _weight_rule

__all__ = ["label_propagation_communities", "louvain_communities", "leiden_communities"]


def _directed_rule(arguments):
    G = arguments.get("G")
    if G is not None and G.is_directed():
        return ("graphblast's Louvain optimizes undirected modularity; NetworkX runs the "
                "directed variant")
    return _weight_rule(arguments)


def _weights(G, weight):
    """The weights as NetworkX's modularity reads them: parallel edges summed, and a
    self-loop counted twice in its node's degree (its matrix entry doubled).  Weights that
    are negative, NaN or infinite make NetworkX run the call (NotImplementedError): NetworkX
    computes with them, graphblast's moves need shares of a finite positive total."""
    W = G.edge_matrix(weight, 1, "sum").dup(FP64)
    try:
        _validate.modularity_weights(W, "modularity", unweighted="weight=None")
    except InvalidValue as e:
        raise NotImplementedError(str(e)) from None
    loops = W.diag()
    if loops.nvals:
        W = W.dup()
        W(binary.plus) << loops.diag()
    return W


def _communities(G, labels):
    labels = labels.to_dense()
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    return [set(G.labels(group)) for group in np.split(order, bounds)] if len(G) else []


def _max_level(max_level):
    if max_level is not None and max_level <= 0:
        raise ValueError("max_level argument must be a positive integer or None")
    return max_level


@_implements(can_run=_directed_rule)
def louvain_communities(G, weight="weight", resolution=1, threshold=0.0000001, max_level=None,
                        seed=None):
    """Louvain with every node moving at once (graphblast.algorithms.louvain)."""
    G = _graph(G, weight)
    max_level = _max_level(max_level)
    if len(G) == 0:
        return []
    labels = gba.louvain(_weights(G, weight), resolution=resolution, threshold=threshold,
                         max_level=max_level)
    return _communities(G, labels)


@_implements(can_run=_directed_rule)
def leiden_communities(G, weight="weight", resolution=1, max_level=None, seed=None):
    """Leiden with every node moving at once; each community is connected
    (graphblast.algorithms.leiden)."""
    G = _graph(G, weight)
    max_level = _max_level(max_level)
    if len(G) == 0:
        return []
    return _communities(G, gba.leiden(_weights(G, weight), resolution=resolution,
                                      max_level=max_level))


def _simple_rule(arguments):
    G = arguments.get("G")
    if G is not None and G.is_multigraph():
        return ("a multigraph's degrees count its parallel edges, which order NetworkX's "
                "colouring; graphblast's converted graph merges them")
    return True


@_implements(can_run=_simple_rule)
def label_propagation_communities(G):
    """NetworkX's semi-synchronous label propagation, the same communities in the same
    order (a ``dict_values`` of sets, as NetworkX returns)."""
    if G.is_directed():
        raise nx.NetworkXNotImplemented("not implemented for directed type")
    G = _graph(G)
    labels = gba.semisynchronous_label_propagation(G.matrix).to_dense()
    _, first, group = np.unique(labels, return_index=True, return_inverse=True)
    order = np.argsort(first[group], kind="stable")        # nodes by their group's first node
    bounds = np.flatnonzero(np.diff(first[group][order])) + 1
    return {i: set(G.labels(ids)) for i, ids in enumerate(np.split(order, bounds))
            if ids.size}.values()
