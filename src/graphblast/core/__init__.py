"""Matrix, Vector, Scalar, delayed expressions, masks and the ``<<`` update.

``operator`` is python-graphblas's ``graphblas.core.operator``: the operator classes.
"""

# python-graphblas's flag for whether user-defined operators are available (its tests read it);
# graphblast translates a user's function itself, so they always are
_supports_udfs = True

from . import operator  # noqa: E402,F401
