"""Every problem key of the CUDA backend and the program (source + kernels) it names.

Each function returns ``(key, build)`` for :func:`jit.kernels`: the key is a cheap tuple of
the things that select an instantiation (operators, types, mask kind, formats), ``build()``
makes the :class:`jit.Program` only the first time.  The primitives call them through
:func:`jit.compiled` (``jit.compiled(programs.pull, semiring, ...)``), which remembers each
argument tuple's kernels, so that a call repeated with the same operators and types makes
neither the key nor the builder again.  The primitives (``mxm.py``, ...) and the
CPU-only compile test use the same functions, so the test compiles exactly what runs.  No
CuPy here.
"""

from . import jit

_TF = ("false", "true")


def _one(key, headers, names):
    """A program of operator-free kernels."""
    return key, lambda: jit.Program(headers, [], names)


# -- structure and write-back ----------------------------------------------------------------

def structure(name):
    """gbk_expand, gbk_pair_run_starts, gbk_pair_run_ends, gbk_csr_unsorted,
    gbk_row_run_firsts, gbk_row_run_lengths, gbk_degree_classes_count or
    gbk_degree_classes_fill."""
    return _one(("structure", name), ["structure.cuh"], [name])


def column_select(idx32, value_bytes):
    """gbk_column_cut and gbk_copy_ranges for column indices of 32 (idx32) or 64 bits and
    values copied as words of ``value_bytes`` bytes (1, 2, 4 or 8)."""
    idx = "int" if idx32 else "idx_t"
    word = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int",
            8: "unsigned long long"}[value_bytes]
    return _one(("column_select", idx32, value_bytes), ["structure.cuh"],
                [f"gbk_column_cut<{idx}>", f"gbk_copy_ranges<{idx}, {word}>"])


def permute_rows(idx32_in, idx32_out, value_bytes):
    """gbk_permute_rows_warp, gbk_permute_rows_block and gbk_permute_rows_kept: rows copied
    with their columns renamed through a list of distinct columns (those not in it dropped)
    and sorted again; column indices of 32 or 64 bits in and out, values moved as words of
    ``value_bytes`` bytes (1, 2, 4 or 8)."""
    idx, out = ("int" if idx32_in else "idx_t"), ("int" if idx32_out else "long long")
    word = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int",
            8: "unsigned long long"}[value_bytes]
    return _one(("permute_rows", idx32_in, idx32_out, value_bytes), ["structure.cuh"],
                [f"gbk_permute_rows_warp<{idx}, {out}, {word}>",
                 f"gbk_permute_rows_block<{idx}, {out}, {word}>",
                 f"gbk_permute_rows_kept<{idx}, {out}>"])


def renumber_rows(idx32_in, idx32_out, value_bytes):
    """gbk_renumber_rows: rows copied in a new order with their columns renamed, entries left
    in their stored order (PageRank's pull matrix in degree order)."""
    idx, out = ("int" if idx32_in else "idx_t"), ("int" if idx32_out else "long long")
    word = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int",
            8: "unsigned long long"}[value_bytes]
    return _one(("renumber_rows", idx32_in, idx32_out, value_bytes), ["structure.cuh"],
                [f"gbk_renumber_rows<{idx}, {out}, {word}>"])


def match(vec):
    return _one(("match", vec), ["ewise.cuh"], [f"gbk_match<{_TF[vec]}>"])


def merge_kept(dtype):
    return _one(("merge_kept", dtype), ["ewise.cuh"], [f"gbk_merge_kept<{dtype.c_type}>"])


def mask_allows(vec):
    return _one(("mask_allows", vec), ["ewise.cuh"], [f"gbk_mask_allows<{_TF[vec]}>"])


# -- entry-wise ------------------------------------------------------------------------------

def cast(a_type, z_type):
    """A cast with GraphBLAS rules, as a map."""
    def build():
        ad = jit.map_adapter(None, a_type, z_type)
        return jit.Program(["apply.cuh"], [ad], [f"gbk_map<{ad.name}, {a_type.c_type}, false>"])
    return ("cast", a_type, z_type), build


def map_op(op, a_type, extra, vec):
    """apply/select: a unary, bound binary (``extra`` "left"/"right") or index-unary op."""
    def build():
        ad = jit.map_adapter(op, a_type, extra)
        return jit.Program(["apply.cuh"], [ad],
                           [f"gbk_map<{ad.name}, {a_type.c_type}, {_TF[vec]}>"])
    return ("map", jit.op_key(op), extra, a_type, vec), build


def ewise(kind, op, a_type, b_type, z_type, vec, on_device=(False, False)):
    """ewise_mult ("mult": one kernel) or ewise_add/union ("add"/"union": A's and B's side);
    ``on_device``: union's defaults passed by pointer (jit.zip_adapter)."""
    def build():
        ad = jit.zip_adapter(kind, op, a_type, b_type, z_type, on_device)
        v = _TF[vec]
        if kind == "mult":
            names = [f"gbk_ewise_mult<{ad.name}, {a_type.c_type}, {b_type.c_type}, {v}>"]
        else:
            names = [f"gbk_union_a<{ad.name}, {a_type.c_type}, {b_type.c_type}, {v}>",
                     f"gbk_union_b<{ad.name}, {b_type.c_type}, {v}>"]
        return jit.Program(["ewise.cuh"], [ad], names)
    return ("ewise", kind, jit.op_key(op), a_type, b_type, z_type, vec, on_device), build


def fold(dup_op, dtype):
    """build's in-order fold of duplicates with a binary operator."""
    def build():
        x = dup_op.type
        ad = jit.mult_adapter(dup_op, x, x, dup_op.return_type)
        return jit.Program(["reduce.cuh"], [ad],
                           [f"gbk_fold_segments<{ad.name}, {x.c_type}, {dtype.c_type}>"])
    return ("fold", jit.op_key(dup_op), dtype), build


# -- reductions ------------------------------------------------------------------------------

def reduce_segments(monoid, a_type, warp):
    def build():
        ad = jit.monoid_adapter(monoid)
        return jit.Program(["reduce.cuh"], [ad], [
            f"gbk_reduce_segments<{ad.name}, {a_type.c_type}, {_TF[warp]}>"])
    return ("segments", monoid, a_type, warp), build


def reduce_all(monoid, a_type):
    def build():
        ad = jit.monoid_adapter(monoid)
        return jit.Program(["reduce.cuh"], [ad], [f"gbk_reduce_all<{ad.name}, {a_type.c_type}>"])
    return ("all", monoid, a_type), build


def reduce_list(monoid, a_type):
    """gbk_reduce_list: a whole-list reduction's first pass, its count read on the device."""
    def build():
        ad = jit.monoid_adapter(monoid)
        return jit.Program(["reduce.cuh"], [ad],
                           [f"gbk_reduce_list<{ad.name}, {a_type.c_type}>"])
    return ("reduce_list", monoid, a_type), build


def inner_dense(semiring, a_type, b_type):
    """gbk_inner_dense: an inner product of two dense vectors (the semiring's monoid over its
    multiplier's products) in one pass, no products' vector."""
    def build():
        m = jit.monoid_adapter(semiring.monoid)
        op = semiring.binaryop
        z = jit.zip_adapter("mult", op, a_type, b_type, op.return_type)
        return jit.Program(["reduce.cuh"], [m, z], [
            f"gbk_inner_dense<{m.name}, {z.name}, {a_type.c_type}, {b_type.c_type}>"])
    return ("inner_dense", jit.op_key(semiring.binaryop), semiring.monoid, a_type,
            b_type), build


def value_range(a_type):
    """gbk_value_range over an integer type."""
    return _one(("value_range", a_type), ["reduce.cuh"], [f"gbk_value_range<{a_type.c_type}>"])


# -- products --------------------------------------------------------------------------------

def mask_kind(mask):
    """How kernels read a mask's values (see gbk::mask_value in common.cuh): 0 for a
    structural mask, else the value type's size plus 16 for a float type."""
    if mask.structural:
        return 0
    t = mask.data.dtype
    return t.np_type.itemsize + (16 if t.is_float else 0)


def _mv_adapters(semiring, m_type, u_type, vfirst):
    monoid = semiring.monoid
    a, b = (u_type, m_type) if vfirst else (m_type, u_type)
    mul = jit.mult_adapter(semiring.binaryop, a, b, monoid.return_type)
    mon = jit.monoid_adapter(monoid)
    return mul, mon, f"{mul.name}, {mon.name}, {m_type.c_type}, {u_type.c_type}, {_TF[vfirst]}"


def _mv_key(name, semiring, m_type, u_type, vfirst, *rest):
    return (name, jit.op_key(semiring.binaryop), semiring.monoid, m_type, u_type, vfirst) + rest


def mv_small(semiring, m_type, u_type, vfirst, push):
    """The one-block mxv/vxm of small matrices (spmv.cuh)."""
    def build():
        mul, mon, args = _mv_adapters(semiring, m_type, u_type, vfirst)
        return jit.Program(["spmv.cuh"], [mul, mon], [f"gbk_mv_small<{args}, {_TF[push]}>"])
    return _mv_key("mv_small", semiring, m_type, u_type, vfirst, push), build


def _idx(idx32):
    return "int" if idx32 else "long long"


def pull(semiring, m_type, u_type, vfirst, idx32):
    """Pull (SpMV): the light rows by groups of lanes; the heavy rows by a block each, or in
    chunks (init, chunks, count)."""
    def build():
        mul, mon, args = _mv_adapters(semiring, m_type, u_type, vfirst)
        args += f", {_idx(idx32)}"
        return jit.Program(["spmv.cuh"], [mul, mon],
                           [f"gbk_pull<{args}>", f"gbk_pull_heavy<{args}>",
                            f"gbk_pull_chunks_init<{mon.name}>", f"gbk_pull_chunks<{args}>",
                            "gbk_pull_chunks_count"])
    return _mv_key("pull", semiring, m_type, u_type, vfirst, idx32), build


# Push's reduction (spmspv.cuh): the first claim of an `any` whose product is a constant;
# the smallest k of any other `any`; an atomic fold for every other monoid.
PUSH_FIRST, PUSH_SMALLEST, PUSH_FOLD = 0, 1, 2


def push(semiring, m_type, u_type, vfirst, idx32, mode):
    """Push (SpMSpV): pass 1 (light, heavy), and pass 2 (light, heavy) for PUSH_SMALLEST, or
    the gather and the scratch fill for PUSH_FOLD."""
    def build():
        mul, mon, args = _mv_adapters(semiring, m_type, u_type, vfirst)
        args += f", {_idx(idx32)}, {mode}"
        names = [f"gbk_push<{args}, 1>", f"gbk_push_heavy<{args}, 1>"]
        if mode == PUSH_SMALLEST:
            names += [f"gbk_push<{args}, 2>", f"gbk_push_heavy<{args}, 2>"]
        if mode == PUSH_FOLD:
            names += [f"gbk_push_gather<{mon.name}>", f"gbk_fill_empty<{mon.name}>"]
        return jit.Program(["spmspv.cuh"], [mul, mon], names)
    return _mv_key("push", semiring, m_type, u_type, vfirst, idx32, mode), build


def push_loop(semiring, m_type, u_type, vfirst, idx32, c_type=None):
    """gbk_push_loop: a device loop's round that is one first-claim push, the loop's end
    fused into it (loops.py), with the next round's scalar assign into a bitmap of ``c_type``
    where given."""
    return _push_rounds("push_loop", semiring, m_type, u_type, vfirst, idx32, c_type)


def push_levels(semiring, m_type, u_type, vfirst, idx32, c_type=None):
    """gbk_push_levels: gbk_push_loop's rounds in one cooperative launch, a barrier of the
    grid between them (loops.py, the "persistent" mode); ``c_type`` as for push_loop."""
    return _push_rounds("push_levels", semiring, m_type, u_type, vfirst, idx32, c_type)


def _push_rounds(name, semiring, m_type, u_type, vfirst, idx32, c_type):
    def build():
        mul, mon, args = _mv_adapters(semiring, m_type, u_type, vfirst)
        c = c_type.c_type if c_type is not None else "unsigned char"
        return jit.Program(["spmspv.cuh"], [mul, mon],
                           [f"gbk_{name}<{args}, {_idx(idx32)}, {c}>"])
    return _mv_key(name, semiring, m_type, u_type, vfirst, idx32, c_type), build


# -- vector formats (vector.cuh) -------------------------------------------------------------

def vector_kernel(name, dtype):
    """list_to_bitmap, dense_to_list, write_list, write_dense, filter_list or list_copy for
    values of ``dtype``."""
    return _one(("vector", name, dtype), ["vector.cuh"], [f"gbk_{name}<{dtype.c_type}>"])


def loop_next(dtype, c_type=None):
    """gbk_loop_next for a state of ``dtype``, with the next round's scalar assign into a
    bitmap of ``c_type`` where given (loops.py's hoisted assign)."""
    c = "" if c_type is None else f", {c_type.c_type}"
    return _one(("loop_next", dtype, c_type), ["vector.cuh"],
                [f"gbk_loop_next<{dtype.c_type}{c}>"])


def list_degrees():
    return _one(("list_degrees",), ["vector.cuh"], ["gbk_list_degrees"])


def list_unmark():
    return _one(("list_unmark",), ["vector.cuh"], ["gbk_list_unmark"])


def list_unclaim():
    return _one(("list_unclaim",), ["vector.cuh"], ["gbk_list_unclaim"])


def assign_scalar(kind, dtype, accum, on_device=False):
    """Scalar assign into a bitmap under a mask list ("list") or a dense mask ("dense"),
    with an accumulator (a typed binary op) or none; ``on_device``: the value passed by
    pointer (a value left on the device, read by each thread)."""
    def build():
        ads = []
        acc = "gbk::no_accum"
        if accum is not None:
            ad = jit.mult_adapter(accum, dtype, dtype, dtype)
            ads, acc = [ad], ad.name
        c = dtype.c_type
        value = f"const {c}*" if on_device else c
        return jit.Program(["vector.cuh"], ads, [f"gbk_assign_{kind}<{c}, {acc}, {value}>"])
    return ("assign_scalar", kind, dtype, None if accum is None else jit.op_key(accum),
            on_device), build


def accum_list(c_type, z_type, accum):
    """A list accumulated into a bitmap without a mask: ``C(accum) << Z`` (gbk_accum_list)."""
    def build():
        ad = jit.mult_adapter(accum, c_type, z_type, c_type)
        return jit.Program(["vector.cuh"], [ad], [
            f"gbk_accum_list<{c_type.c_type}, {z_type.c_type}, {ad.name}>"])
    return ("accum_list", c_type, z_type, jit.op_key(accum)), build


_EWISE_KIND = {"mult": 0, "add": 1, "union": 2}


def ewise_dense(kind, op, a_type, b_type, z_type, on_device=(False, False)):
    def build():
        ad = jit.zip_adapter(kind, op, a_type, b_type, z_type, on_device)
        return jit.Program(["vector.cuh"], [ad], [
            f"gbk_ewise_dense<{ad.name}, {a_type.c_type}, {b_type.c_type}, "
            f"{_EWISE_KIND[kind]}>"])
    return ("ewise_dense", kind, jit.op_key(op), a_type, b_type, z_type, on_device), build


def ewise_list_dense(op, a_type, b_type, z_type, list_a):
    """ewise_mult of a list and a dense vector (the list the left operand when ``list_a``)."""
    def build():
        ad = jit.zip_adapter("mult", op, a_type, b_type, z_type)
        return jit.Program(["vector.cuh"], [ad], [
            f"gbk_ewise_list_dense<{ad.name}, {a_type.c_type}, {b_type.c_type}, "
            f"{'true' if list_a else 'false'}>"])
    return ("ewise_list_dense", jit.op_key(op), a_type, b_type, z_type, list_a), build


def ewise_reduce_list(op, a_type, b_type, z_type, list_a, monoid):
    """gbk_ewise_reduce_list: gbk_ewise_list_dense's list and its reduction by ``monoid`` in
    one kernel (fusion.py)."""
    def build():
        zip_ = jit.zip_adapter("mult", op, a_type, b_type, z_type)
        mon = jit.monoid_adapter(monoid)
        return jit.Program(["vector.cuh"], [zip_, mon], [
            f"gbk_ewise_reduce_list<{zip_.name}, {mon.name}, {a_type.c_type}, "
            f"{b_type.c_type}, {'true' if list_a else 'false'}>"])
    return ("ewise_reduce_list", jit.op_key(op), a_type, b_type, z_type, list_a,
            monoid), build


def relax_list(monoid, op, accum, dtype, z_type):
    """gbk_relax_list: a folding push's gather, ``c = op(t, d)`` over t's entries, ``d(accum)
    << t`` and t under a mask of c, in one kernel (fusion.py), for t and d of ``dtype`` and c
    of ``z_type``."""
    def build():
        mon = jit.monoid_adapter(monoid)
        zip_ = jit.zip_adapter("mult", op, dtype, dtype, z_type)
        acc = jit.mult_adapter(accum, dtype, dtype, dtype)
        return jit.Program(["vector.cuh"], [mon, zip_, acc], [
            f"gbk_relax_list<{mon.name}, {zip_.name}, {acc.name}, {dtype.c_type}>"])
    return ("relax_list", monoid, jit.op_key(op), jit.op_key(accum), dtype, z_type), build


def union_lists(op, dtype):
    """gbk_union_lists_b and gbk_union_lists_a: ewise_add of two unsorted lists of
    ``dtype``, ``op`` typed to it, through a kept bitmap of marks (vector.cuh)."""
    def build():
        ad = jit.zip_adapter("add", op, dtype, dtype, dtype)
        return jit.Program(["vector.cuh"], [ad], [
            f"gbk_union_lists_b<{ad.name}, {dtype.c_type}>",
            f"gbk_union_lists_a<{ad.name}, {dtype.c_type}>"])
    return ("union_lists", jit.op_key(op), dtype), build


def union_lists_loop(op, dtype):
    """gbk_union_lists_a_loop: the union's last kernel ending a device loop's round."""
    def build():
        ad = jit.zip_adapter("add", op, dtype, dtype, dtype)
        return jit.Program(["vector.cuh"], [ad],
                           [f"gbk_union_lists_a_loop<{ad.name}, {dtype.c_type}>"])
    return ("union_lists_loop", jit.op_key(op), dtype), build


def map_dense(op, a_type, extra):
    """apply on a dense vector (see :func:`map_op` for ``extra``)."""
    def build():
        ad = jit.map_adapter(op, a_type, extra)
        return jit.Program(["vector.cuh"], [ad], [f"gbk_map_dense<{ad.name}, {a_type.c_type}>"])
    return ("map_dense", jit.op_key(op), extra, a_type), build


def select_dense(op, a_type, extra):
    """select on a dense vector; ``extra``: "thunk", or "thunk_device" for a thunk passed by
    pointer (jit.bound)."""
    def build():
        ad = jit.map_adapter(op, a_type, extra)
        return jit.Program(["vector.cuh"], [ad],
                           [f"gbk_select_dense<{ad.name}, {a_type.c_type}>"])
    return ("select_dense", jit.op_key(op), a_type, extra), build


def select_list(op, a_type, extra):
    """select on a list (``extra`` as for :func:`select_dense`)."""
    def build():
        ad = jit.map_adapter(op, a_type, extra)
        return jit.Program(["vector.cuh"], [ad],
                           [f"gbk_select_list<{ad.name}, {a_type.c_type}>"])
    return ("select_list", jit.op_key(op), a_type, extra), build


def select_pair(op1, op2, a_type, extra1, extra2):
    """gbk_select_pair: two selects of one list in one pass (fusion.py)."""
    def build():
        ad1 = jit.map_adapter(op1, a_type, extra1)
        ad2 = jit.map_adapter(op2, a_type, extra2)
        return jit.Program(["vector.cuh"], [ad1] if ad2.name == ad1.name else [ad1, ad2],
                           [f"gbk_select_pair<{ad1.name}, {ad2.name}, {a_type.c_type}>"])
    return ("select_pair", jit.op_key(op1), jit.op_key(op2), a_type, extra1, extra2), build


def dot_bins():
    """gbk_dot_bin_count and gbk_dot_bin_fill: the masked dot product's entries by work."""
    return _one(("dot_bins",), ["masked_spgemm.cuh"], ["gbk_dot_bin_count", "gbk_dot_bin_fill"])


def dot(semiring, a_type, b_type, idx32):
    """Masked SpGEMM by dot products over the mask's entries: a thread per entry with little
    work, a warp per entry with much (binned by the launcher); 32-bit column indices when
    ``idx32``."""
    monoid = semiring.monoid

    def build():
        mul = jit.mult_adapter(semiring.binaryop, a_type, b_type, monoid.return_type)
        mon = jit.monoid_adapter(monoid)
        args = f"{mul.name}, {mon.name}, {a_type.c_type}, {b_type.c_type}, {_idx(idx32)}"
        return jit.Program(["masked_spgemm.cuh"], [mul, mon], [
            f"gbk_mxm_dot<{args}>", f"gbk_mxm_dot_warp<{args}>"])
    return ("dot", jit.op_key(semiring.binaryop), monoid, a_type, b_type, idx32), build


def mxm_pull(semiring, a_type, b_type, idx32):
    """Pull for a masked mxm over a batch of frontiers (mxm_pull.cuh): the frontier's and the
    mask's dense layouts, a thread or a warp per allowed output, the compaction."""
    monoid = semiring.monoid
    t = monoid.return_type

    def build():
        mul = jit.mult_adapter(semiring.binaryop, a_type, b_type, t)
        mon = jit.monoid_adapter(monoid)
        args = f"{mul.name}, {mon.name}, {a_type.c_type}, {b_type.c_type}, {_idx(idx32)}"
        return jit.Program(["mxm_pull.cuh"], [mul, mon], [
            f"gbk_mxm_pull_frontier<{a_type.c_type}>", "gbk_mxm_pull_mask",
            f"gbk_mxm_pull<{args}>", f"gbk_mxm_pull_warp<{args}>",
            f"gbk_mxm_pull_compact<{t.c_type}>", f"gbk_mxm_pull_entries<{args}>",
            f"gbk_mxm_pull_entries_warp<{args}>", f"gbk_mxm_pull_tiled<{args}>",
            f"gbk_mxm_pull_heavy_t<{args}>"])
    return ("mxm_pull", jit.op_key(semiring.binaryop), monoid, a_type, b_type, idx32), build


def spgemm(semiring, a_type, b_type):
    """The expand-sort-compress SpGEMM: work, expand, run starts, run offsets (the reduction
    is :func:`reduce_segments`)."""
    t = semiring.monoid.return_type

    def build():
        mul = jit.mult_adapter(semiring.binaryop, a_type, b_type, t)
        return jit.Program(["spgemm.cuh"], [mul], [
            "gbk_entry_work", f"gbk_spgemm_expand<{mul.name}, {a_type.c_type}, {b_type.c_type}>",
            "gbk_run_starts", "gbk_run_offsets"])
    return ("spgemm", jit.op_key(semiring.binaryop), a_type, b_type, t), build


def spgemm_hash(semiring, a_type, b_type):
    """The hash SpGEMM of rows of few products: count pass, fill pass (spgemm.cuh)."""
    return _warp_rows("spgemm_hash", "gbk_spgemm_hash", semiring, a_type, b_type)


def spgemm_gather(semiring, a_type, b_type):
    """The product with a right operand of at most one entry per row: count pass, fill pass
    (gbk_spgemm_gather, spgemm.cuh)."""
    return _warp_rows("spgemm_gather", "gbk_spgemm_gather", semiring, a_type, b_type)


def _warp_rows(kind, kernel, semiring, a_type, b_type):
    """A product of spgemm.cuh whose kernel takes a warp per row of A, in two passes (count,
    then fill: the template's last argument)."""
    t = semiring.monoid.return_type

    def build():
        mul = jit.mult_adapter(semiring.binaryop, a_type, b_type, t)
        mon = jit.monoid_adapter(semiring.monoid)
        args = f"{mul.name}, {mon.name}, {a_type.c_type}, {b_type.c_type}"
        return jit.Program(["spgemm.cuh"], [mul, mon], [f"{kernel}<{args}, 1>",
                                                         f"{kernel}<{args}, 2>"])
    return (kind, jit.op_key(semiring.binaryop), semiring.monoid, a_type, b_type), build


def kron(op, a_type, b_type):
    def build():
        mul = jit.mult_adapter(op, a_type, b_type, op.return_type)
        return jit.Program(["kron.cuh"], [mul], [
            "gbk_kron_counts", f"gbk_kron<{mul.name}, {a_type.c_type}, {b_type.c_type}>"])
    return ("kron", jit.op_key(op), a_type, b_type), build


# -- gather and scatter with a Vector of positions -------------------------------------------

def scatter_atomic(monoid):
    """graphblast's scatter with an atomic monoid: fill the accumulator, combine the pairs."""
    def build():
        mon = jit.monoid_adapter(monoid)
        return jit.Program(["scatter.cuh"], [mon], [f"gbk_fill_empty<{mon.name}>",
                                                    f"gbk_scatter_atomic<{mon.name}>"])
    return ("scatter_atomic", monoid), build


# -- array helpers (arrays.cuh, used through arrays.py) --------------------------------------

def array_kernel(name, *types):
    """``gbk_<name>`` of arrays.cuh over ``types`` (graphblast types): convert (from, to);
    fill, iota, count_nonzero, nonzero_flags (the value type); gather, scatter (the value
    type, the index type); compact_positions (none)."""
    expr = f"gbk_{name}<{', '.join(t.c_type for t in types)}>" if types else f"gbk_{name}"
    return _one(("array", name, *types), ["arrays.cuh"], [expr])


#: The kernels of generators.cuh (the generators' device steps), each a catalogue program.
GENERATOR_KERNELS = ("mt19937_streams", "rmat", "gen_keys", "gen_firsts", "gen_compact",
                     "gap_weights", "urand", "counter_bits_range", "counter_bits_at",
                     "run_starts", "pair_endpoints", "graph500_rmat", "permutation_keys",
                     "permutation_ids", "rgg_points", "rgg_place", "rgg_cell_starts",
                     "rgg_edges", "swap_keys", "swap_group_starts", "swap_groups",
                     "swap_round")


def generator_kernel(name):
    """``gbk_<name>`` of generators.cuh, one of :data:`GENERATOR_KERNELS` (the generators'
    device steps)."""
    return _one(("generator", name), ["generators.cuh"], [f"gbk_{name}"])


def bitmap_make(t):
    """Bitmap matrices by column (mxm_bitmap.cuh): CSR entries and a CSR mask scattered into
    them, a scalar assigned under a bitmap mask and under a CSR one."""
    return _one(("bitmap_make", t), ["mxm_bitmap.cuh"], [
        f"gbk_bitmapc_scatter<{t.c_type}>", "gbk_bitmapc_scatter_mask",
        f"gbk_bitmapc_assign_scalar<{t.c_type}>",
        f"gbk_bitmapc_assign_scalar_list<{t.c_type}>"])


def bitmap_reduce_rows(monoid, t):
    """Each row of a bitmap matrix by row folded by ``monoid`` (mxm_bitmap.cuh)."""
    def build():
        mon = jit.monoid_adapter(monoid)
        return jit.Program(["mxm_bitmap.cuh"], [mon],
                           [f"gbk_bitmapr_reduce_rows<{mon.name}, {t.c_type}>"])
    return ("bitmap_reduce_rows", monoid, t), build


def bitmap_accum(op, t):
    """C accum= T for two bitmap matrices by column of type ``t`` (mxm_bitmap.cuh)."""
    def build():
        fn = jit.mult_adapter(op, t, t, t)
        return jit.Program(["mxm_bitmap.cuh"], [fn], [f"gbk_bitmapc_accum<{fn.name}, {t.c_type}>"])
    return ("bitmap_accum", jit.op_key(op), t), build


def mxm_bitmap(semiring, a_type, b_type, idx32):
    """C<M> = F (+.x) B over bitmap matrices by column (mxm_bitmap.cuh): pull, its heavy
    columns' chunks, push, its heavy rows' chunks, the fill of push's values, and the fold
    of pull's chunks."""
    monoid = semiring.monoid
    t = monoid.return_type

    def build():
        mul = jit.mult_adapter(semiring.binaryop, a_type, b_type, t)
        mon = jit.monoid_adapter(monoid)
        args = f"{mul.name}, {mon.name}, {a_type.c_type}, {b_type.c_type}, {_idx(idx32)}"
        return jit.Program(["mxm_bitmap.cuh"], [mul, mon], [
            f"gbk_bitmapc_pull<{args}>", f"gbk_bitmapc_pull_chunks<{args}>",
            f"gbk_bitmapc_push<{args}>", f"gbk_bitmapc_push_chunks<{args}>",
            f"gbk_fill_empty<{mon.name}>", f"gbk_bitmapc_pull_combine<{mon.name}>"])
    return ("mxm_bitmap", jit.op_key(semiring.binaryop), monoid, a_type, b_type, idx32), build


def grid_kernel(value_type):
    """``gbk_grid`` of generators.cuh writing weights of ``value_type`` (a graphblast type;
    a pattern grid uses UINT8's and writes none)."""
    return _one(("grid", value_type), ["generators.cuh"], [f"gbk_grid<{value_type.c_type}>"])


def mxm_packed(idx32):
    """C<M> = F any.pair B over packed bitmaps by column (mxm_packed.cuh): packing and
    unpacking, pull and its heavy columns' chunks, push and its heavy rows' chunks, the
    masked count of the result."""
    idx = _idx(idx32)
    return _one(("mxm_packed", idx32), ["mxm_packed.cuh"], [
        "gbk_packed_from_list", "gbk_packed_from_bitmap", "gbk_packed_to_bitmap",
        f"gbk_packed_pull<{idx}>", f"gbk_packed_pull_chunks<{idx}>",
        f"gbk_packed_push<{idx}>", f"gbk_packed_push_chunks<{idx}>", "gbk_packed_finish"])


def packed_assign(t):
    """A scalar of type ``t`` assigned under a packed mask into a byte bitmap by column
    (mxm_packed.cuh)."""
    return _one(("packed_assign", t), ["mxm_packed.cuh"],
                [f"gbk_packed_assign_scalar<{t.c_type}>"])
