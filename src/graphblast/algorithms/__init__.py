"""Graph algorithms written on graphblast's public, python-graphblas-compatible API.

The five algorithms of the GraphBLAST paper (Yang, Buluc, Owens).  Each uses only Matrix,
Vector and operator calls, so one code runs on every backend; push or pull, masking and load
balancing are the backend's decisions.  Definitions, conventions and costs are in each
function's docstring and in docs/algorithms.md.
"""

from .betweenness import betweenness_centrality
from .bfs import bfs
from .connected_components import connected_components
from .edge_betweenness import edge_betweenness_centrality
from .pagerank import ConvergenceFailure, pagerank
from .sssp import NegativeCycle, sssp
from .triangle_count import triangle_count

__all__ = [
    "bfs", "sssp", "pagerank", "connected_components", "triangle_count",
    "betweenness_centrality", "edge_betweenness_centrality",
    "ConvergenceFailure", "NegativeCycle",
]
