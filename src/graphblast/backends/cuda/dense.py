"""Vector operations on the GPU's dense formats (bitmap and full, ``vectors.py``): the masked
write-back and scalar assign, in place where the output's owner allows; element-wise
operations, apply, select, casts and reductions.

Each function returns NotImplemented where its format does not apply; the backend then runs
the list-based primitive (which reads any format through its sorted lists).

Work: a write-back or assign under a list mask, of a list into a bitmap (also accumulated),
of a list into an empty output or with replace, ewise_mult of a list with a dense vector and
select on a list (also under its output's mask, in the same kernel) touch only the list's
entries (and clear an n-byte mask bitmap where the mask is a list).
Everything else here is one pass over the n positions, taken only where an operand is a
dense vector already (O(n) data).
"""

import weakref

import cupy as cp
import numpy as np

from ... import plan
from ...dtypes import ALL_TYPES
from ..base import SparseVector, computed_under
from . import arrays, blocks, jit, programs, recording, storage
from .apply import (
    _fold, finish_reduction, partials, reduce_values, thunk_param, value_range as _value_range)
from .blocks import INDEX, i64
from .vectors import (
    BitmapVector, Counters, DeviceVector, FullVector, ListVector, as_bitmap, cast,
    dense_mask, dense_of, is_dense, is_list, list_parts, mask_view, owned_by,
)


def _known(v):
    return v.known_nvals() if isinstance(v, DeviceVector) else v.nvals


def _writable(owner, C):
    """C as a bitmap this call may update in place: C itself when ``owner`` alone holds it,
    else a copy (None when C is a list and the planner keeps it a list)."""
    if isinstance(C, BitmapVector) and owned_by(C, owner):
        return C
    if isinstance(C, (BitmapVector, FullVector)):
        # a full vector's values may be shared by lists made from it (its sorted form is
        # (arange, values)): the bitmap that will change in place gets copies
        return as_bitmap(C)
    choice, _ = plan.vector_format(C.size, _known(C))
    return as_bitmap(C) if choice == "bitmap" else None


# -- scalar assign ------------------------------------------------------------------------------

def assign_scalar(owner, C, value, mask, accum, replace):
    """``C(mask, accum, replace) << value`` for a whole vector, or None (the general path).
    ``value``: a host scalar, or a value of C's type left on the device (a one-element
    array, core/scalar.py), which the kernels read there."""
    if mask is None and accum is None:
        return storage.vector_full(C.size, value, C.dtype)
    W = _writable(owner, C)
    if W is None:
        return None
    on_device = jit.is_device_value(value)
    value = jit.scalar_arg(value, C.dtype)
    kind = "list" if (mask is not None and not mask.complement and not replace
                      and is_list(mask.data)) else "dense"
    (fn,) = jit.compiled(programs.assign_scalar, kind, C.dtype, accum, on_device).fns
    has_accum = np.int32(accum is not None)
    if kind == "list":
        idx, vals, nm_ptr, cap = list_parts(mask.data)
        mkind = programs.mask_kind(mask)
        if cap:
            args = (i64(cap), nm_ptr, idx, vals if mkind else None, np.int32(mkind), value,
                    has_accum, W.bits, W.vals, W.counters.array)
            rec = recording.thread.rec
            # a recorded loop's round may leave it to the loop's last kernel (loops.py)
            if rec is None or not rec.hoist_assign(
                    fn, jit.grid_for(cap), jit.BLOCK, args, idx,
                    accum is None and not mkind and any(C.dtype is t for t in ALL_TYPES),
                    value, W):
                jit.launch(fn, cap, args)
        W = _grown(W, _known(mask.data))
    else:
        W = _rewrite(W, fn, (*mask_view(mask), value, has_accum, np.int32(replace)))
    if isinstance(C, FullVector) and not replace:
        # a scalar assigned without replace deletes no position of a full vector: it stays
        # full (a bitmap would make a later reduction read whether it has any entry, and
        # every ewise over it test a presence byte: PageRank's sinks' share)
        return FullVector(C.size, C.dtype, W.vals)
    return W


def _grown(W, added):
    """W after a kernel queued a list of at most ``added`` entries (None: not known) into it in
    place: stale, with the bound of its count the host can keep (the planner reads it)."""
    before = W.known_nvals()
    before = W.count_hi if before is None else before
    W.changed()
    if before is not None and added is not None:
        W.count_hi = min(W.size, before + added)
    return W


def _rewrite(W, fn, args):
    """W after a kernel that rewrites every position of the bitmap W (called as
    fn(n, *args, bits, vals, counters)) and counts its entries anew."""
    W.counters.array.fill(0)
    if W.size:
        jit.launch(fn, W.size, (i64(W.size), *args, W.bits, W.vals, W.counters.array))
    W.changed()
    return W


# -- accumulate ------------------------------------------------------------------------------------

def accum_into(owner, C, T, accum):
    """``C(accum) << T`` without a mask for a list T: T's entries folded into C's bitmap in
    place at O(T's entries) (SSSP's ``dist(min) << t``), or NotImplemented (a C the planner
    keeps a list: the list union)."""
    if not is_list(T):
        return NotImplemented
    W = _writable(owner, C)
    if W is None:
        return NotImplemented
    idx, vals, nt_ptr, cap = list_parts(T)
    (fn,) = jit.compiled(programs.accum_list, C.dtype, T.dtype, accum).fns
    if cap:
        jit.launch(fn, cap, (i64(cap), nt_ptr, idx, vals, W.bits, W.vals, W.counters.array))
    if isinstance(C, FullVector):
        # an accumulation adds no position to a full vector: it stays full (as a bitmap,
        # every later product and ewise over it tested a presence byte per entry: PageRank's
        # scaling vector, accumulated from a list, slowed each step on kron-22 by a third)
        return FullVector(C.size, C.dtype, W.vals)
    return _grown(W, _known(T))


# -- the masked write-back -----------------------------------------------------------------------

def mask_write_into(owner, C, Z, mask, replace):
    """``C<mask, replace> = Z`` (Z has C's type), in place in C where owner alone holds it."""
    if mask is None:
        return Z
    # Z computed under this very mask holds only what it allows: with replace, or into an
    # empty C (``expr.new(mask=M)``), it is the result as it is
    if computed_under(Z, mask) and (replace or _known(C) == 0):
        return Z
    if not (is_dense(C) or is_dense(Z) or is_dense(mask.data)):
        if not (isinstance(C, DeviceVector) or isinstance(Z, DeviceVector)):
            return NotImplemented
    if is_list(Z) and (replace or _known(C) == 0):
        out = _filter_list(Z, mask)
        out.made_by = getattr(Z, "made_by", None)  # the planner's hysteresis reads it
        return out
    W = _writable(owner, C)
    if W is None:
        return NotImplemented
    own_structure = (mask.structural and not mask.complement and mask.data is Z
                     and not replace and is_list(Z))
    if own_structure:
        # C<Z.S> = Z: Z's entries scattered into C, nothing else touched
        idx, vals, nz_ptr, cap = list_parts(Z)
        (fn,) = jit.compiled(programs.vector_kernel, "write_list", C.dtype).fns
        if cap:
            jit.launch(fn, cap, (i64(cap), nz_ptr, idx, vals, W.bits, W.vals, W.counters.array))
        W.changed()
        return W
    (fn,) = jit.compiled(programs.vector_kernel, "write_dense", C.dtype).fns
    return _rewrite(W, fn, (*dense_of(Z), *mask_view(mask), np.int32(replace)))


def _filter_list(Z, mask):
    """The entries of the list Z that ``mask`` allows, as a new list (no host read)."""
    kernels = jit.compiled(programs.vector_kernel, "filter_list", Z.dtype)
    return _list_under_mask(Z, Z.dtype, kernels, (), mask)


def _list_under_mask(L, dtype, kernels, args, mask):
    """:func:`_list_kernel` over the list L with ``args`` and then the mask's dense view
    (bits, values, kind, mode; a list mask marked and unmarked around it: dense_mask)."""
    with dense_mask(mask) as view:
        return _list_kernel(L, dtype, kernels, (*args, *view))


def _list_kernel(L, dtype, kernels, args):
    """A new list of ``dtype`` from one of vector.cuh's list kernels (``kernels``, from
    jit.compiled) over the entries of the list L, called as fn(capacity, count pointer,
    indices, values, *args, row pointers of the degrees, out_idx, out_vals, counters): no
    host read; the result carries L's degree sum."""
    idx, vals, count_ptr, cap = list_parts(L)
    dptr = _deg_of(L)
    counters = Counters()
    out_idx = cp.empty(cap, dtype=idx.dtype)
    out_vals = cp.empty(cap, dtype=dtype.np_type)
    if cap:
        (fn,) = kernels.fns
        jit.launch(fn, cap, (i64(cap), count_ptr, idx, vals, *args, dptr, out_idx, out_vals,
                             counters.array))
    counters.touch()
    return ListVector(L.size, dtype, out_idx, out_vals, counters, False, dptr)


def _deg_of(v):
    """The row pointers whose degree sum a list's counters carry (a push's result carries
    its matrix's): a list made from it sums the same degrees, so that the next push needs
    no extra read."""
    return v.deg_of if isinstance(v, DeviceVector) else None


def mask_write(C, Z, mask, replace):
    """The write-back into a new vector (C is left as it is)."""
    if not isinstance(C, SparseVector):
        return NotImplemented
    return mask_write_into(None, C, Z, mask, replace)


# -- element-wise, apply, select, cast, reduce ----------------------------------------------------

def _dense_pair(A, B):
    return (isinstance(A, SparseVector) and isinstance(B, SparseVector)
            and (is_dense(A) or is_dense(B)))


def _ewise(kind, A, B, op, dtype, left=None, right=None):
    abits, avals = dense_of(A)
    bbits, bvals = dense_of(B)
    a_full, b_full = abits is None, bbits is None
    full = (a_full and b_full) if kind == "mult" else (a_full or b_full)
    n = A.size
    out_vals = cp.empty(n, dtype=dtype.np_type)
    out_bits = None if full else cp.empty(n, dtype=cp.uint8)
    counters = None if full else Counters()
    on_device = (jit.is_device_value(left), jit.is_device_value(right))
    (fn,) = jit.compiled(programs.ewise_dense, kind, op, A.dtype, B.dtype, dtype, on_device).fns
    p1 = np.int8(0) if left is None else jit.scalar_arg(left, op.type)
    p2 = np.int8(0) if right is None else jit.scalar_arg(right, op.type2)
    if n:
        jit.launch(fn, n, (i64(n), abits, avals, bbits, bvals, p1, p2, out_bits, out_vals,
                           None if counters is None else counters.array))
    if full:
        return FullVector(n, dtype, out_vals)
    counters.touch()
    return BitmapVector(n, dtype, out_bits, out_vals, counters)


def ewise_mult(A, B, op):
    if not _dense_pair(A, B):
        return NotImplemented
    if is_list(A) or is_list(B):
        return _ewise_list_dense(A, B, op)
    return _ewise("mult", A, B, op, op.return_type)


def _ewise_list_dense(A, B, op):
    """The intersection of a list with a dense vector, touching only the list's entries."""
    list_a = is_list(A)
    L, D = (A, B) if list_a else (B, A)
    kernels = jit.compiled(programs.ewise_list_dense, op, A.dtype, B.dtype, op.return_type,
                           list_a)
    return _list_kernel(L, op.return_type, kernels, (*D.dense(), np.int8(0), np.int8(0)))


def ewise_add(A, B, op, out_dtype=None):
    if not _dense_pair(A, B):
        return NotImplemented
    return _ewise("add", A, B, op, out_dtype or op.return_type)


def ewise_union(A, B, op, left_default, right_default):
    if not _dense_pair(A, B):
        return NotImplemented
    return _ewise("union", A, B, op, op.return_type, left_default, right_default)


def _map_param(op, left, right, thunk):
    kind = op.opclass
    if kind == "UnaryOp":
        return None, np.int8(0)
    if kind == "BinaryOp":
        if left is not None:
            return jit.bound("left", left, op.type)
        return jit.bound("right", right, op.type2)
    return thunk_param(op, thunk)


def apply(A, op, left=None, right=None, thunk=None):
    if not is_dense(A):
        return NotImplemented
    extra, param = _map_param(op, left, right, thunk)
    bits, vals = A.dense()
    n = A.size
    z = cp.empty(n, dtype=op.return_type.np_type)
    (fn,) = jit.compiled(programs.map_dense, op, A.dtype, extra).fns
    if n:
        jit.launch(fn, n, (i64(n), bits, vals, z, param))
    if bits is None:
        return FullVector(n, op.return_type, z)
    counters = Counters(A.counters.peek())
    if counters.known is None:
        arrays.copy_into(A.counters.array, counters.array)
        counters.touch()
    return BitmapVector(n, op.return_type, arrays.copy(bits), z, counters)


def select(A, op, thunk):
    if is_list(A):  # a list or a sorted vector: its entries only, no host read
        return _select_list(A, op, thunk)
    if not is_dense(A):
        return NotImplemented
    extra, param = thunk_param(op, thunk)
    bits, vals = A.dense()
    n = A.size
    out_bits = cp.empty(n, dtype=cp.uint8)
    counters = Counters()
    (fn,) = jit.compiled(programs.select_dense, op, A.dtype, extra).fns
    if n:
        jit.launch(fn, n, (i64(n), bits, vals, param, out_bits, counters.array))
    counters.touch()
    return BitmapVector(n, A.dtype, out_bits, arrays.copy(vals), counters)


def _select_list(A, op, thunk):
    """select on a list or a sorted vector, touching only its entries (no sort, no host
    read; the result is an unordered list whose count stays on the device)."""
    extra, param = thunk_param(op, thunk)
    return _list_kernel(A, A.dtype, jit.compiled(programs.select_list, op, A.dtype, extra),
                        (param, *mask_view(None)))


def select_masked(A, op, thunk, mask):
    """select on a list under the output's vector mask, in the same kernel (SSSP's bucket
    ``t.select(valuelt, hi).new(mask=...)``): the write-back has nothing left to filter.
    NotImplemented for any other operand (then select, and the write-back applies the
    mask)."""
    if not is_list(A):
        return NotImplemented
    extra, param = thunk_param(op, thunk)
    out = _list_under_mask(A, A.dtype, jit.compiled(programs.select_list, op, A.dtype, extra),
                           (param,), mask)
    out._under_mask = weakref.ref(mask)
    return out


def cast_vector(v, dtype):
    if not isinstance(v, DeviceVector) or v.dtype is dtype:
        return NotImplemented
    return cast(v, dtype)


def value_range(v):
    """(smallest, largest) value of an integer vector, or None when it has none: one pass
    over its values (a dense vector's in place, else the list's), read in one transfer."""
    if is_dense(v):
        bits, vals = v.dense()
    elif isinstance(v, ListVector):
        bits, vals = None, v.vals[:v.nvals]  # no sort: order does not matter here
    else:
        bits, vals = None, v.values
    if vals.shape[0] == 0 or v.size == 0:
        return None
    return _value_range(vals, v.dtype, bits)


def reduce_scalar(A, monoid, keep=False):
    """The monoid over a dense vector's entries (a NumPy scalar, None when empty): one
    reduction over the values, skipping absent positions.  ``keep``: a full vector's value
    stays on the device (see apply.reduce_values)."""
    if not is_dense(A):
        return NotImplemented
    if A.size == 0:
        return None
    bits, vals = A.dense()
    if getattr(monoid.parent, "in_order", False):
        if bits is not None:
            return NotImplemented  # the list primitive folds the entries in order
        out = _fold(vals, A.dtype, cp.asarray(np.array([0, A.size], dtype=INDEX)), 1, monoid)
        return out if keep else out.get()[0]
    return reduce_values(vals, A.dtype, bits, monoid, keep)


def inner(A, B, semiring, keep=False):
    """The inner product of two dense vectors in one pass (gbk_inner_dense: no vector of the
    products), as :func:`reduce_scalar` returns it; ``keep``: two full vectors' value stays
    on the device.  NotImplemented unless both are dense."""
    if not (is_dense(A) and is_dense(B)):
        return NotImplemented
    n = A.size
    if n == 0:
        return None
    abits, avals = A.dense()
    bbits, bvals = B.dense()
    nblocks, part, part_have, result = partials(semiring.monoid.return_type, n)
    (fn,) = jit.compiled(programs.inner_dense, semiring, A.dtype, B.dtype).fns
    jit.run(fn, nblocks, jit.BLOCK, (i64(n), abits, avals, bbits, bvals, part, part_have))
    return finish_reduction(semiring.monoid, nblocks, part, part_have, result,
                            keep and abits is None and bbits is None)
