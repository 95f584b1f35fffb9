"""Reading and writing graphs: Matrix Market, edge lists, a binary cache, and converters.

Text readers validate every byte with NumPy before converting anything, and raise
:class:`graphblast.exceptions.InvalidValue` naming the file, the line and the problem.
See ``docs/io.md`` for the formats, options and measured speed.
"""

from ._binary import load, save
from ._convert import (
    from_cupy,
    from_cupy_sparse,
    from_graphblas,
    from_networkx,
    from_numpy,
    from_scipy_sparse,
    from_torch,
    to_cupy,
    to_cupy_sparse,
    to_graphblas,
    to_networkx,
    to_numpy,
    to_scipy_sparse,
    to_torch,
)
from ._edgelist import from_pandas_edgelist, read_edgelist
from ._mmio import mminfo, mmread, mmwrite

__all__ = [
    "from_cupy", "from_cupy_sparse", "from_graphblas", "from_networkx", "from_numpy",
    "from_pandas_edgelist", "from_scipy_sparse", "from_torch", "load", "mminfo", "mmread",
    "mmwrite", "read_edgelist", "save", "to_cupy", "to_cupy_sparse", "to_graphblas",
    "to_networkx", "to_numpy", "to_scipy_sparse", "to_torch",
]
