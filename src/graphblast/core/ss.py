"""SuiteSparse extensions python-graphblas exposes under ``.ss``: those graphblast has.

python-graphblas puts SuiteSparse:GraphBLAS's own functions (``GxB_*``) in an ``ss``
namespace of each object.  graphblast has, with python-graphblas's names, arguments and
results:

- ``v.ss.sort(op=binary.lt, *, values=True, permutation=True)``: ``GxB_Vector_sort``.
"""

from ..dtypes import BOOL
from ..exceptions import DomainMismatch
from ..ops import binary
from .operations import typed_binary

# The comparisons a sort orders by: name -> descending.  ``le``/``ge`` sort as ``lt``/``gt``
# (equal values by increasing index); SuiteSparse leaves their order of equal values open.
_ORDERS = {"lt": False, "le": False, "gt": True, "ge": True}
_ACCEPTED = "binary.lt or binary.le (ascending) or binary.gt or binary.ge (descending)"


class VectorSS:
    """``v.ss``: the SuiteSparse extensions python-graphblas exposes under ``.ss``."""

    __slots__ = ("_parent",)

    def __init__(self, parent):
        self._parent = parent

    def sort(self, op=binary.lt, *, values=True, permutation=True, **opts):
        """Sort the values of the Vector (SuiteSparse's ``GxB_Vector_sort``).

        Parameters
        ----------
        op : BinaryOp or str, default binary.lt
            ``binary.lt`` (or ``le``, ``"<"``) sorts ascending, ``binary.gt`` (or ``ge``,
            ``">"``) descending.  Equal values keep the order of their indices.  A typed
            operator of another type compares the values cast to its type, as SuiteSparse
            does; the values returned are the Vector's own.
        values : bool, default True
            Whether to return the sorted values (else None in their place).
        permutation : bool, default True
            Whether to return the permutation (else None in its place).
        nthreads, ... : accepted as python-graphblas accepts descriptor options, and unused.

        Returns
        -------
        (Vector, Vector[UINT64])
            The values sorted, at positions ``0..nvals-1`` of a Vector of this one's size
            and type; and at position ``k`` of the permutation, the index in this Vector of
            the ``k``-th value.

        NaN sorts above every number, as NumPy sorts it: last ascending, first descending
        (SuiteSparse's order of NaN is not defined).  Only these four comparisons are
        accepted: SuiteSparse also sorts by another operator with a BOOL result (``eq``,
        ``lor``, ...), whose order is not a sort order.
        """
        v = self._parent
        typed = typed_binary(op, v.dtype, method="sort")
        name = typed.parent.builtin_name
        if typed.return_type is not BOOL:
            raise DomainMismatch(f"v.ss.sort compares values with {_ACCEPTED}, whose result "
                                 f"is BOOL; got {typed!r}")
        if name not in _ORDERS:
            raise ValueError(f"v.ss.sort orders values by {_ACCEPTED}; got {typed!r}")
        if not (values or permutation):
            return None, None
        backend = v._backend
        if not hasattr(backend, "sort_vector"):
            # a device group has no sort of its own yet: sorted on the host, then placed
            # back on the group (one gather and one scatter of the vector)
            w, p = v.to_device("cpu").ss.sort(op, values=values, permutation=permutation)
            return tuple(None if x is None else x.to_device(v.device) for x in (w, p))
        descending = _ORDERS[name]
        if typed.type is v.dtype:
            w, p = backend.sort_vector(v._data, descending)
        else:
            # SuiteSparse orders by the values cast to the operator's type and returns the
            # Vector's own values in that order.
            _, p = backend.sort_vector(backend.cast_vector(v._data, typed.type), descending)
            w = backend.gather_vector(v._data, p) if values else None
        Vector = type(v)
        return (Vector._from_data(w, backend, v.device, "values") if values else None,
                Vector._from_data(p, backend, v.device, "permutation") if permutation
                else None)
