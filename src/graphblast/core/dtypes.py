"""python-graphblas's ``graphblas.core.dtypes``: the data types (:mod:`graphblast.dtypes`)."""

from ..dtypes import *  # noqa: F401, F403
from ..dtypes import DataType, _default_name, lookup_dtype, register_anonymous, register_new  # noqa: F401
