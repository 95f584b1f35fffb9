"""The object NetworkX loads through the ``networkx.backends`` entry point.

NetworkX's dispatcher asks :meth:`BackendInterface.can_run` whether the backend can run a call
with its arguments and, when dispatching automatically (``NETWORKX_BACKEND_PRIORITY``),
:meth:`BackendInterface.should_run` whether it is worth it; both answer True or a string that
says why not, which NetworkX logs (``logging.getLogger("networkx")`` at DEBUG level).  It then
converts the graph with :meth:`convert_from_nx`, caching the result on the graph, and calls
the function of the same name here.
"""

import inspect

import networkx as nx

from . import algorithms
# Modules of further functions; importing one registers its functions with algorithms.
from . import (  # noqa: F401
    betweenness, centrality, centrality_degree, communities, cores, link_prediction, mis,
    shortest_paths, strongly_connected, structure, traversal,
)
from ._info import DEFAULT_MIN_EDGES
from .convert import GraphblastGraph, convert_from_nx, convert_to_nx

__all__ = ["BackendInterface"]

_SIGNATURES = {name: inspect.signature(func)
               for name, func in algorithms.IMPLEMENTATIONS.items()}


# name -> (parameter names, defaults): every implementation takes positional-or-keyword
# parameters only, so binding is a zip (inspect.Signature.bind costs ~20 us a call).
_PARAMETERS = {name: ([p.name for p in sig.parameters.values()],
                      {p.name: p.default for p in sig.parameters.values()})
               for name, sig in _SIGNATURES.items()}


def _bind(name, args, kwargs):
    """The call's arguments by parameter name, defaults filled in; a string if they do not
    match the signature (NetworkX's own function then reports the mistake)."""
    names, defaults = _PARAMETERS[name]
    if len(args) <= len(names) and defaults.keys() >= kwargs.keys() and not any(
            key in kwargs for key in names[:len(args)]):
        arguments = dict(defaults)
        arguments.update(zip(names, args))
        arguments.update(kwargs)
        if all(value is not inspect.Parameter.empty for value in arguments.values()):
            return arguments
    try:
        _SIGNATURES[name].bind(*args, **kwargs)
    except TypeError as err:
        return f"the arguments do not match {name}'s signature ({err})"
    raise AssertionError(f"{name}: a signature _bind does not handle")  # pragma: no cover


def _min_edges():
    # The config is missing only if NetworkX could not load backend_info (it warned then).
    cfg = getattr(nx.config.backends, "graphblast", None)
    return getattr(cfg, "min_edges", DEFAULT_MIN_EDGES)


def _cached(G):
    """Whether NetworkX holds a graphblast conversion of ``G`` in its cache."""
    cache = getattr(G, "__networkx_cache__", None) or {}
    converted = cache.get("backends", {}).get("graphblast", {})
    return any(isinstance(g, GraphblastGraph) for g in list(converted.values()))


class BackendInterface:
    """The graphblast NetworkX backend: conversions, dispatch rules and the algorithms.

    Every function of ``graphblast.nx.algorithms.IMPLEMENTATIONS`` is an attribute of this
    class under its NetworkX name.
    """

    convert_from_nx = staticmethod(convert_from_nx)
    convert_to_nx = staticmethod(convert_to_nx)

    @staticmethod
    def can_run(name, args, kwargs):
        """True if graphblast can run ``name`` with these arguments, else the reason."""
        if name not in _SIGNATURES:
            return f"graphblast does not implement {name}"
        arguments = _bind(name, args, kwargs)
        if isinstance(arguments, str):
            return arguments
        G = arguments.get("G")
        if not isinstance(G, (nx.Graph, GraphblastGraph)):
            return f"G is a {type(G).__name__}, not a NetworkX or graphblast graph"
        rule = algorithms.CAN_RUN_RULES.get(name)
        return True if rule is None else rule(arguments)

    @staticmethod
    def should_run(name, args, kwargs):
        """True if running ``name`` in graphblast likely pays for converting the graph.

        A graph already converted (and cached) always runs here.  Otherwise graphs with fewer
        than ``nx.config.backends.graphblast.min_edges`` edges stay in NetworkX, and so does
        ``to_scipy_sparse_array``, which NetworkX does in one pass without converting.
        """
        G = args[0] if args else kwargs.get("G")
        if isinstance(G, GraphblastGraph) or _cached(G):
            return True
        if name == "to_scipy_sparse_array":
            return ("converting to graphblast only to convert to SciPy costs more than "
                    "NetworkX's direct conversion; it runs here for graphs already converted")
        min_edges = _min_edges()
        if min_edges:
            edges = G.number_of_edges()
            if edges < min_edges:
                return (f"the graph has {edges} edges, fewer than "
                        f"nx.config.backends.graphblast.min_edges = {min_edges}: converting it "
                        "would cost more than running in NetworkX")
        return True


for _name, _func in algorithms.IMPLEMENTATIONS.items():
    setattr(BackendInterface, _name, staticmethod(_func))
del _name, _func
