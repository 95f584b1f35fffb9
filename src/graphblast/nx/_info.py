"""What NetworkX learns about the graphblast backend before loading it.

NetworkX calls :func:`get_info` (the ``networkx.backend_info`` entry point) at the end of
``import networkx`` for every installed backend, so this module must stay cheap: it imports
nothing from graphblast's core, its backends or CuPy, only NetworkX's own ``Config``.  The
backend itself (``graphblast.nx.backend``) is loaded the first time a call is dispatched to it.

The names in :data:`FUNCTIONS` are the NetworkX functions the backend implements; the
dispatcher reads this list to add a "Backends" section to their docstrings and
``graphblast.nx.algorithms`` implements exactly these (a test checks that both agree).
"""

import os
import re
import warnings

from networkx.utils.configs import Config

__all__ = ["DEFAULT_MIN_EDGES", "FUNCTIONS", "GraphblastConfig", "get_info"]

# Below this many edges a graph stays in NetworkX unless the backend is asked for by name:
# converting a NetworkX graph costs about as much as one pass of NetworkX's own linear-time
# algorithms over it, so only graphs large enough for the algorithm to dominate gain (see
# docs/networkx.md, "When graphblast runs", for the measurements behind this number).
DEFAULT_MIN_EDGES = 20_000

_ENV_MIN_EDGES = "GRAPHBLAST_NX_MIN_EDGES"
_DEVICE = re.compile(r"^(cpu|cuda|gpu|cuda:\d+)$", re.IGNORECASE)

# name -> one line for NetworkX's "Backends" docstring section (what differs, if anything).
FUNCTIONS = {
    "all_pairs_bellman_ford_path": "One shortest-path tree per node (see "
                                   "single_source_bellman_ford).",
    "all_pairs_bellman_ford_path_length": "One Bellman-Ford search per node.",
    "all_pairs_dijkstra": "One shortest-path tree per node (see single_source_dijkstra).",
    "all_pairs_dijkstra_path": "One shortest-path tree per node (see single_source_dijkstra).",
    "all_pairs_dijkstra_path_length": "One search per node over the (min, +) semiring.",
    "all_pairs_shortest_path": "One BFS tree per node, in NetworkX's order.",
    "all_pairs_shortest_path_length": "One BFS per node, in NetworkX's order.",
    "ancestors": "BFS over the transposed adjacency.",
    "average_clustering": "Triangles by masked sparse products; see clustering.",
    "bellman_ford_path": "Distances over the (min, +) semiring, the path along the tight edges; "
                         "where several paths are shortest (and the weights differ), NetworkX's "
                         "queue decides and NetworkX runs the call.",
    "bellman_ford_path_length": "Bellman-Ford over the (min, +) semiring.",
    "betweenness_centrality": "Batched Brandes sweeps (LAGraph's LAGr_Betweenness): many "
                              "sources a masked matrix product; the same sources as NetworkX "
                              "for a seed. weight=... over Dijkstra's paths; a callable "
                              "weight, or weights not all > 0, run in NetworkX.",
    "bfs_edges": "Level-synchronous BFS; edges come out in NetworkX's order (reverse=True "
                 "follows G.pred's order); sort_neighbors runs in NetworkX.",
    "bfs_layers": "Level-synchronous BFS; layers come out in NetworkX's order.",
    "bfs_predecessors": "Level-synchronous BFS, in NetworkX's order; sort_neighbors runs "
                        "in NetworkX.",
    "bfs_successors": "Level-synchronous BFS, in NetworkX's order; sort_neighbors runs "
                      "in NetworkX.",
    "bfs_tree": "Level-synchronous BFS in NetworkX's order; sort_neighbors runs in NetworkX.",
    "bidirectional_shortest_path": "NetworkX's alternating search replayed a layer at a time: "
                                   "the same path.",
    "clustering": "Per-node triangles by masked sparse products (C<S> = S plus.times S).",
    "connected_components": "FastSV; components come out in the order of their first node.",
    "degree_centrality": "Row (and column) sums of the adjacency.",
    "descendants": "BFS over the any.pair semiring.",
    "descendants_at_distance": "Level-synchronous BFS over the any.pair semiring.",
    "dijkstra_path": "Distances over the (min, +) semiring; the path follows the tight edges in "
                     "the order NetworkX's heap settles the nodes (replayed), so equally short "
                     "paths resolve as in NetworkX. Negative weights run in NetworkX.",
    "dijkstra_path_length": "Shortest paths over the (min, +) semiring.",
    "edge_betweenness_centrality": "From the same batched sweeps as betweenness_centrality. "
                                   "Multigraphs, a callable weight and weights not all "
                                   "> 0 run in NetworkX.",
    "ego_graph": "BFS (or shortest paths with distance) for the nodes; the subgraph is "
                 "NetworkX's copy of them.",
    "generic_bfs_edges": "Level-synchronous BFS in NetworkX's order; a neighbors function runs "
                         "in NetworkX.",
    "has_path": "Bidirectional BFS.",
    "in_degree_centrality": "Column sums of the adjacency.",
    "is_arborescence": "Edge count, FastSV components and in-degrees.",
    "is_branching": "Edges per FastSV component and in-degrees.",
    "is_connected": "FastSV connected components.",
    "is_forest": "Edges per FastSV component.",
    "is_isolate": "Row and column sums of the adjacency.",
    "is_negatively_weighted": "A select of the negative weights; edge= on a multigraph runs in "
                              "NetworkX.",
    "is_tree": "Edge count and FastSV components.",
    "is_weakly_connected": "FastSV on A + A'.",
    "isolates": "Row and column sums of the adjacency.",
    "lowest_common_ancestor": "DAG test by peeling sources; ancestors by reverse BFS in "
                              "NetworkX's order, so that several lowest ancestors resolve as in "
                              "NetworkX.",
    "node_connected_component": "BFS from the node.",
    "number_connected_components": "FastSV connected components.",
    "number_of_isolates": "Row and column sums of the adjacency.",
    "number_of_selfloops": "The diagonal of the adjacency.",
    "number_weakly_connected_components": "FastSV on A + A'.",
    "out_degree_centrality": "Row sums of the adjacency.",
    "overall_reciprocity": "The adjacency times its transpose, element-wise.",
    "pagerank": "Power iteration with graphblast vector-matrix products; same iteration and "
                "stopping rule as NetworkX.",
    "reciprocity": "The adjacency times its transpose, element-wise, per node.",
    "shortest_path": "The unweighted, Dijkstra or Bellman-Ford function NetworkX would call, "
                     "here.",
    "shortest_path_length": "The unweighted, Dijkstra or Bellman-Ford function NetworkX would "
                            "call, here.",
    "single_source_bellman_ford": "Distances over the (min, +) semiring, paths along the tight "
                                  "edges; where several paths are shortest (and the weights "
                                  "differ), NetworkX's queue decides and NetworkX runs the "
                                  "call.",
    "single_source_bellman_ford_path": "See single_source_bellman_ford.",
    "single_source_bellman_ford_path_length": "Bellman-Ford over the (min, +) semiring; "
                                              "a callable weight runs in NetworkX.",
    "single_source_dijkstra": "Distances over the (min, +) semiring; paths along the tight "
                              "edges in NetworkX's settling order (replayed), so equally short "
                              "paths resolve as in NetworkX. Negative weights run in NetworkX.",
    "single_source_dijkstra_path": "See single_source_dijkstra.",
    "single_source_dijkstra_path_length": "Shortest paths over the (min, +) semiring "
                                          "(Bellman-Ford with an active frontier); negative "
                                          "weights and a callable weight run in NetworkX.",
    "single_source_shortest_path": "BFS tree in NetworkX's order.",
    "single_source_shortest_path_length": "Level-synchronous BFS over the any.pair semiring.",
    "single_target_shortest_path": "BFS over the predecessors in G.pred's order.",
    "single_target_shortest_path_length": "BFS over the predecessors in G.pred's order.",
    "to_scipy_sparse_array": "The stored adjacency matrix; runs automatically only for "
                             "graphs already converted (cached).",
    "transitivity": "Triangle counting by a masked sparse product (L plus.pair L').",
    "triangles": "Per-node triangle counts from masked products of the lower and upper "
                 "triangles.",
    "weakly_connected_components": "FastSV on A + A'; components come out in the order of "
                                   "their first node.",
}

FUNCTIONS.update({
    "core_number": "Peeling by masked sparse products (LAGraph's k-core); self-loops raise, as "
                   "in NetworkX.",
    "k_truss": "LAGraph's k-truss: masked support counts (C<C> = C plus.pair C) until no "
               "edge leaves.",
    "hits": "Power iteration (NetworkX's reference iteration, not its SVD solver); tol bounds "
            "the L1 change of the hubs.",
    "katz_centrality": "NetworkX's power iteration as sparse vector-matrix products.",
    "eigenvector_centrality": "NetworkX's power iteration on A' + I as sparse vector-matrix "
                              "products.",
    "strongly_connected_components": "Trimming, forward coloring and backward search; "
                                     "components come out in the order of their first node.",
    "number_strongly_connected_components": "Trimming, forward coloring and backward search.",
    "is_strongly_connected": "Trimming, forward coloring and backward search.",
    "maximal_independent_set": "Luby's rounds (every node whose random score beats its "
                               "neighbours' joins at once); a valid set, seeded, not NetworkX's "
                               "sequence.",
    "jaccard_coefficient": "Neighbour-set intersections by sparse products for all pairs at "
                           "once.",
    "louvain_communities": "Every node moves at once (row argmax of K = A P); seed has no "
                           "effect; directed graphs run in NetworkX.",
    "label_propagation_communities": "NetworkX's semi-synchronous propagation replayed: its "
                                     "greedy colouring (each colour class found in parallel "
                                     "rounds), each class updated at once by a sparse "
                                     "product and a row argmax; the same communities. "
                                     "Multigraphs run in NetworkX.",
    "bipartite_betweenness_centrality": "betweenness_centrality's batched sweeps, each side "
                                        "scaled by NetworkX's formula.",
    "leiden_communities": "Louvain's parallel moves, a refinement by joins and connected "
                          "components, aggregation of the refined partition; every community "
                          "connected; seed has no effect.",
})


class GraphblastConfig(Config):
    """Settings of the graphblast NetworkX backend (``nx.config.backends.graphblast``).

    Parameters
    ----------
    min_edges : int
        Graphs with fewer edges stay in NetworkX when dispatching is automatic
        (``NETWORKX_BACKEND_PRIORITY=graphblast``); ``backend="graphblast"`` always runs
        graphblast.  The default is 20,000, or the environment variable
        ``GRAPHBLAST_NX_MIN_EDGES`` when set.  0 sends every graph to graphblast.
    device : str or None
        Device that converted graphs are built on (``"cpu"``, ``"cuda"``, ``"cuda:1"``).
        None uses graphblast's default device (``GRAPHBLAST_DEVICE``, else cuda when a GPU
        is usable, else cpu).  Graphs already converted and cached stay where they are.
    """

    min_edges: int
    device: str | None

    def _on_setattr(self, key, value):
        if key == "min_edges":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise TypeError(
                    f"nx.config.backends.graphblast.min_edges must be an integer >= 0, "
                    f"got {value!r}"
                )
        elif key == "device" and not (
                value is None or isinstance(value, str) and _DEVICE.match(value)):
            raise ValueError(
                "nx.config.backends.graphblast.device must be None, 'cpu', 'cuda' or "
                f"'cuda:N', got {value!r}"
            )
        return value


def _min_edges_from_environment():
    raw = os.environ.get(_ENV_MIN_EDGES)
    if raw is None or not raw.strip():
        return DEFAULT_MIN_EDGES
    try:
        value = int(raw)
        if value < 0:
            raise ValueError
    except ValueError:
        # A bad value must not break `import networkx` for everyone: warn and go on.
        warnings.warn(
            f"{_ENV_MIN_EDGES}={raw!r} is not an integer >= 0; using the default "
            f"{DEFAULT_MIN_EDGES}",
            RuntimeWarning,
            stacklevel=2,
        )
        return DEFAULT_MIN_EDGES
    return value


def get_info():
    """The ``networkx.backend_info`` entry point: metadata and default configuration.

    Returns
    -------
    dict
        ``backend_name``, ``project``, ``package``, ``short_summary``,
        ``description``, ``functions`` (name -> ``{"additional_docs": ...}``) and
        ``default_config`` (a :class:`GraphblastConfig`).
    """
    return {
        "backend_name": "graphblast",
        "project": "graphblast",
        "package": "graphblast",
        "short_summary": "GraphBLAS on NVIDIA GPUs (CuPy) or NumPy/SciPy.",
        "description": (
            "Runs NetworkX algorithms as sparse linear algebra (semirings and masks) on "
            "graphblast, on an NVIDIA GPU when one is usable, else on the CPU."
        ),
        "functions": {
            name: {"additional_docs": docs} for name, docs in FUNCTIONS.items()
        },
        "default_config": GraphblastConfig(
            min_edges=_min_edges_from_environment(), device=None
        ),
    }
