"""graphblast as a NetworkX backend.

With graphblast installed, NetworkX finds the backend named ``graphblast`` through its entry
points::

    import networkx as nx
    nx.pagerank(G, backend="graphblast")          # one call
    # NETWORKX_BACKEND_PRIORITY=graphblast python script.py    (every call it implements)

The graph is converted to graphblast matrices once and cached on ``G``.  To convert
explicitly, and keep the converted graph::

    import graphblast.nx
    H = graphblast.nx.convert_from_nx(G, edge_attrs={"weight": 1})
    nx.pagerank(H)                                # runs in graphblast, no conversion

The names here are imported when first used, so that NetworkX reading the backend's metadata
(``graphblast.nx._info``) stays cheap.  See docs/networkx.md.
"""

import importlib

__all__ = ["BackendInterface", "GraphblastGraph", "convert_from_nx", "convert_to_nx",
           "get_info"]

_WHERE = {
    "BackendInterface": "backend",
    "GraphblastGraph": "convert",
    "convert_from_nx": "convert",
    "convert_to_nx": "convert",
    "get_info": "_info",
}


def __getattr__(name):
    if name in _WHERE:
        return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)
