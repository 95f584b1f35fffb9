"""Graph algorithms written on graphblast's public, python-graphblas-compatible API.

The five algorithms of the GraphBLAST paper (Yang, Buluc, Owens), LDBC Graphalytics' two
others (CDLP, LCC), and the analytics NetworkX users reach for most.  Each uses only Matrix,
Vector and operator calls, so one code runs on every backend; push or pull, masking and load
balancing are the backend's decisions.  Definitions, conventions and costs are in each
function's docstring and in docs/algorithms.md.
"""

from .betweenness import betweenness_centrality
from .bfs import bfs
from .connected_components import connected_components
from .core_number import core_number
from .edge_betweenness import edge_betweenness_centrality
from .eigenvector_centrality import eigenvector_centrality
from .greedy_coloring import greedy_coloring
from .hits import hits
from .jaccard import jaccard
from .k_truss import k_truss
from .katz_centrality import katz_centrality
from .label_propagation import label_propagation
from .leiden import leiden
from .local_clustering_coefficient import local_clustering_coefficient
from .louvain import louvain
from .maximal_independent_set import maximal_independent_set
from .pagerank import ConvergenceFailure, pagerank
from .semisynchronous_label_propagation import semisynchronous_label_propagation
from .sssp import NegativeCycle, sssp
from .strongly_connected_components import strongly_connected_components
from .triangle_count import triangle_count

__all__ = [
    "bfs", "sssp", "pagerank", "connected_components", "triangle_count",
    "core_number", "k_truss", "label_propagation", "local_clustering_coefficient", "hits",
    "katz_centrality", "eigenvector_centrality", "strongly_connected_components",
    "maximal_independent_set", "jaccard", "louvain", "leiden",
    "betweenness_centrality", "edge_betweenness_centrality", "greedy_coloring",
    "semisynchronous_label_propagation", "ConvergenceFailure", "NegativeCycle",
]
