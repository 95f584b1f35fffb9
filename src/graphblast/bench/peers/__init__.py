"""The benchmark's participants: graphblast itself and the peers it is measured against.

=================  ===================================  ================================
``--peers`` name   library                              algorithms
=================  ===================================  ================================
``suitesparse``    SuiteSparse:GraphBLAS (python-       bfs, sssp, pagerank, cc, tc
                   graphblas), LAGraph's algorithms
``networkit``      networkit, all cores                 bfs, pagerank, cc, tc
``igraph``         python-igraph                        bfs, sssp, pagerank, cc
``scipy``          SciPy csgraph                        bfs, sssp, pagerank, cc
``networkx``       NetworkX (small graphs only)         bfs, sssp, pagerank, cc, tc
``cusparse``       cuSPARSE via CuPy (GPU only)         the primitives (``--primitives``)
=================  ===================================  ================================

A peer whose library is missing is reported as unavailable with the reason; nothing stands
in for it.
"""

from ._base import AlgorithmParams, Peer, PeerUnavailable
from .cusparse import CuSparse
from .igraph import IGraph
from .networkit import Networkit
from .networkx import NetworkX
from .ours import Graphblast
from .scipy_csgraph import SciPy
from .suitesparse import SuiteSparse

__all__ = [
    "PEER_NAMES",
    "AlgorithmParams",
    "Graphblast",
    "Peer",
    "PeerUnavailable",
    "make_peer",
]

PEER_NAMES = ("suitesparse", "networkit", "igraph", "scipy", "networkx", "cusparse")


def make_peer(name, device):
    """A new (not yet loaded) peer by its ``--peers`` name."""
    if name == "suitesparse":
        return SuiteSparse()
    if name == "networkit":
        return Networkit()
    if name == "igraph":
        return IGraph()
    if name == "scipy":
        return SciPy()
    if name == "networkx":
        return NetworkX()
    if name == "cusparse":
        return CuSparse(device)
    raise ValueError(f"unknown peer {name!r}; known: {', '.join(PEER_NAMES)}")
