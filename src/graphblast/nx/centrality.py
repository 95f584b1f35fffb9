"""NetworkX's spectral centralities on graphblast: ``hits``, ``katz_centrality`` and
``eigenvector_centrality``, each a power iteration of sparse vector-matrix products
(:mod:`graphblast.algorithms`) with NetworkX's starting vectors, stopping rules and
exceptions."""

import networkx as nx
import numpy as np

from graphblast import Vector
from graphblast import algorithms as gba

from .algorithms import _graph, _implements, _weight_rule

__all__ = ["hits", "katz_centrality", "eigenvector_centrality"]


def _by_node(G, mapping, what):
    """``mapping[node]`` for every node as a Vector on G's device."""
    try:
        values = [float(mapping[v]) for v in G.nodes]
    except KeyError as err:
        raise nx.NetworkXError(f"{what} must have a value for every node") from err
    return Vector.from_dense(np.array(values, dtype=float), device=G.device)


def _result(G, vector):
    return dict(zip(G.nodes, vector.to_dense().tolist()))


@_implements()
def hits(G, max_iter=100, tol=1.0e-8, nstart=None, normalized=True):
    """Hubs and authorities by power iteration on the "weight" attribute (1 where missing),
    as NetworkX's reference iteration; a run that does not converge raises
    PowerIterationFailedConvergence."""
    G = _graph(G, "weight")
    if len(G) == 0:
        return {}, {}
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    W = G.edge_matrix("weight", 1, "sum") if G.has_edge_attribute("weight") else G.matrix
    start = None if nstart is None else _by_node(G, nstart, "nstart")
    try:
        h, a = gba.hits(W, max_iter=max_iter, tol=tol, nstart=start, normalized=normalized)
    except gba.ConvergenceFailure as err:
        raise nx.PowerIterationFailedConvergence(max_iter) from err
    return _result(G, h), _result(G, a)


@_implements(can_run=_weight_rule)
def katz_centrality(G, alpha=0.1, beta=1.0, max_iter=1000, tol=1.0e-6, nstart=None,
                    normalized=True, weight=None):
    """Katz centrality by NetworkX's iteration ``x = alpha x A + beta`` from 0 (or nstart)."""
    G = _graph(G, weight)
    if len(G) == 0:
        return {}
    try:
        beta = float(beta)
    except (TypeError, ValueError, AttributeError):
        if set(beta) != set(G.nodes):
            raise nx.NetworkXError("beta dictionary must have a value for every node") from None
        beta = _by_node(G, beta, "beta")
    if max_iter < 1:
        raise nx.PowerIterationFailedConvergence(max_iter)
    W = G.edge_matrix(weight, 1, "sum")
    start = None if nstart is None else _by_node(G, nstart, "nstart")
    try:
        x = gba.katz_centrality(W, alpha=alpha, beta=beta, max_iter=max_iter, tol=tol,
                                nstart=start, normalized=normalized,
                                weighted=weight is not None)
    except gba.ConvergenceFailure as err:
        raise nx.PowerIterationFailedConvergence(max_iter) from err
    return _result(G, x)


@_implements(can_run=_weight_rule)
def eigenvector_centrality(G, max_iter=100, tol=1.0e-6, nstart=None, weight=None):
    """Eigenvector centrality by NetworkX's iteration on ``A' + I``."""
    G = _graph(G, weight)
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("cannot compute centrality for the null graph")
    if nstart is not None and all(v == 0 for v in nstart.values()):
        raise nx.NetworkXError("initial vector cannot have all zero values")
    if max_iter < 1:
        raise nx.PowerIterationFailedConvergence(max_iter)
    start = None if nstart is None else _by_node(G, nstart, "nstart")
    try:
        x = gba.eigenvector_centrality(G.edge_matrix(weight, 1, "sum"), max_iter=max_iter,
                                       tol=tol, nstart=start, weighted=weight is not None)
    except gba.ConvergenceFailure as err:
        raise nx.PowerIterationFailedConvergence(max_iter) from err
    return _result(G, x)
