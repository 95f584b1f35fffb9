"""Synthetic graphs, deterministic for a seed, built on the chosen device.

=================  =====================================================================
``kron``           GAP's Kronecker graph, bit for bit as gapbs makes it
``urand``          GAP's uniform random graph, bit for bit as gapbs makes it
``graph500``       the Graph500 Kronecker graph (A, B, C, D = 0.57, 0.19, 0.19, 0.05)
``rgg``            random geometric graph in the unit square (the DIMACS10 rule)
``grid2d``         4-neighbour grid, optionally weighted (the road-like class)
``erdos_renyi``    G(n, p) or G(n, m), undirected or directed
=================  =====================================================================

Every generator returns a :class:`graphblast.Matrix`: square, without self-loops, with both
directions of each edge stored for undirected graphs, BOOL (all values True) unless weighted.
Generation is vectorized on NumPy or CuPy (``device=``) and sized against free memory first.
See ``docs/generators.md``.
"""

from .gap import kron, urand
from .graph500 import graph500
from .grid import grid2d
from .random import erdos_renyi
from .rgg import rgg

__all__ = ["erdos_renyi", "graph500", "grid2d", "kron", "rgg", "urand"]
