"""Kernels of a captured loop round fused where the round makes a known sequence of launches.

A device loop's round costs about 4 us a kernel under a WHILE node (design.md, "What a level
costs"), whatever the kernel does, so a round of many small kernels is bound by their count.
The algorithms stay on the public API; here the backend recognises, in the launches of the
dry rounds (recording.py), a sequence whose kernels each touch only the same list's
positions, and the captured round launches one kernel instead:

- "relax": a folding push's gather, ``c = t op d`` over the list t (a comparison with a
  bitmap d), ``d(accum) << t`` and ``t<~c.V>`` (its list mask marked, filtered, unmarked):
  SSSP's relaxation (algorithms/sssp.py ``_relax``), six kernels, as gbk_relax_list, with
  the marking of an unrelated list that follows it ("relax, mark": delta-stepping's waiting
  vertices marked for the union of the round's end);
- "select pair": two selects of one list (delta-stepping's near and waiting vertices), as
  gbk_select_pair;
- "ewise reduce": a list-dense ewise_mult and the reduction of its list (delta-stepping's
  bucket bound, ``(pending + width).reduce(min)``), as gbk_ewise_reduce_list.

The plan comes from the dry rounds' kernels (which program made each, from jit's cache);
while capturing, the launches of a planned sequence are compared as usual but not made,
and at its last one the arguments are checked to be one data flow (the same lists, the
same bitmap, the mask the comparison's complement) before the fused kernel is launched in
their place; where they are not, the launches are made as they were, in order.  Nothing
else reaches the stream between them (a recorded round makes no memset, and the engine's
kernels go through ``jit.run``), so making them later changes nothing.
"""

import numpy as np

from . import jit, programs
from .blocks import i64

# Fuse the known sequences of a captured round (False: every kernel as the body makes it).
FUSE = True


def _roles():
    """Each compiled kernel's (role, program arguments), from jit's cache of compiled calls:
    the push's fold gather, a list-dense ewise_mult, a list accumulation, a list's marks, a
    list filter, a list's unmarking, a list select."""
    roles = {}
    for (_, program, args), kernels in list(jit._by_call.items()):
        fns = kernels.fns
        if program is programs.push and args[-1] == programs.PUSH_FOLD:
            roles[fns[2]] = ("push_gather", args)
        elif program is programs.vector_kernel and args[0] in ("list_to_bitmap",
                                                                "filter_list"):
            roles[fns[0]] = (args[0], args)
        elif program in _ROLES:
            roles[fns[0]] = (_ROLES[program], args)
    return roles


def plan(launches):
    """{index of a sequence's first launch: (its name, its length, the fused program's
    arguments)} for a dry round's ``launches`` ((fn, grid, block, args) as noted); the fused
    kernels loaded (not while capturing)."""
    if not FUSE:
        return {}
    roles = _roles()
    names = [roles.get(fn, (None, None)) for fn, *_ in launches]
    found = {}
    k = 0
    while k < len(names):
        for name, (sequence, key_of, program, _) in _SEQUENCES.items():
            if tuple(r for r, _ in names[k:k + len(sequence)]) != sequence:
                continue
            key = key_of([a for _, a in names[k:k + len(sequence)]])
            if key is not None:
                jit.compiled(program, *key)
                found[k] = (name, len(sequence), key)
                k += len(sequence) - 1
                break
        k += 1
    return found


def launch(name, key, made):
    """Launch the fused kernel of the sequence ``name`` for its launches ``made`` ((fn,
    grid, block, args) as the body made them) if their arguments are one data flow, and
    return True; else launch them as they were.  Called with no recording current."""
    if name is not None:
        _, _, program, args_of = _SEQUENCES[name]
        args = args_of(made)
        if args is not None:
            (fn,) = jit.compiled(program, *key).fns
            # the grid of the sequence's last launch (a reduction's partials are sized by it)
            jit.run(fn, made[-1][1], jit.BLOCK, args)
            return True
    for fn, grid, block, args in made:
        jit.run(fn, grid, block, args)
    return False


def _ptr(a):
    data = getattr(a, "data", None)
    return getattr(data, "ptr", None)


def _same(a, b):
    return a is b or (a is not None and b is not None and _ptr(a) is not None
                      and _ptr(a) == _ptr(b))


def _all_same(xs, ys):
    return all(_same(a, b) for a, b in zip(xs, ys))


# -- relax: a folding push's gather, t op d, d(accum) << t, t<~c.V> ------------------------------

def _relax_key(args):
    """programs.relax_list's arguments for a relax sequence's programs' arguments, or None
    where its types do not line up (t, d and the fold one type; t the left operand; a list
    marked after it of that type too)."""
    (semiring, *_), (op, a_type, b_type, z_type, list_a), (c_type, u_type, accum), \
        (_, mark_type), (_, filter_type), _, *then = args
    t = semiring.monoid.return_type
    if not list_a or not (a_type is b_type is c_type is u_type is filter_type is t) \
            or mark_type is not z_type or (then and then[0][1] is not t):
        return None
    return semiring.monoid, op, accum, t, z_type


def _relax_args(made):
    """gbk_relax_list's arguments from a relax sequence's launches, or None where they are
    not the relaxation's one data flow: the comparison, the accumulation and the filter
    over the gather's list, the comparison and the accumulation on one bitmap, the mask the
    comparison's list as marked, and that list unmarked; and a list marked after it, if one
    is, none of whose arrays the relaxation touches."""
    *made, then = made if len(made) == 7 else (*made, None)
    gather, ewise, accum, mark, filt, unmark = (args for _, _, _, args in made)
    t_counts, t_idx, scratch, t_vals, stamp = gather
    _, l_ptr, l_idx, l_vals, dbits, dvals, p, p2, c_dptr, c_idx, c_vals, c_counts = ewise
    _, z_ptr, z_idx, z_vals, bits, vals, d_counts = accum
    _, m_ptr, m_idx, m_vals, marks, marked = mark
    (_, f_ptr, f_idx, f_vals, mbits, mvals, mkind, mmode, dptr, out_idx, out_vals,
     counters) = filt
    _, u_ptr, u_idx, u_marks = unmark
    t_list = (t_counts, t_idx, t_vals)
    c_list = (c_counts, c_idx, c_vals)
    if not (_all_same(t_list, (l_ptr, l_idx, l_vals)) and _all_same(t_list, (z_ptr, z_idx, z_vals))
            and _all_same(t_list, (f_ptr, f_idx, f_vals))
            and dbits is not None and _same(dbits, bits) and _same(dvals, vals)
            and _all_same(c_list, (m_ptr, m_idx, m_vals))
            and _same(marks, mbits) and (mvals is None or _same(marked, mvals))
            and _all_same((c_counts, c_idx, marks), (u_ptr, u_idx, u_marks))):
        return None
    w = (i64(0), None, None, None, None, None)
    if then is not None:
        w = then[3]
        touched = (scratch, t_vals, stamp, dbits, dvals, d_counts, c_idx, c_vals, c_counts,
                   out_idx, out_vals, counters, marks, marked)
        if any(_same(x, y) for x in w[1:] for y in touched):
            return None
    return (t_counts, t_idx, scratch, t_vals, stamp, dbits, dvals, d_counts, p, p2, c_dptr,
            c_idx, c_vals, c_counts, np.int32(mkind), np.int32(mmode), dptr, out_idx,
            out_vals, counters, *w)


# -- select pair: two selects of one list --------------------------------------------------------

def _pair_key(args):
    (op1, a_type, extra1), (op2, b_type, extra2) = args
    return (op1, op2, a_type, extra1, extra2) if a_type is b_type else None


def _pair_args(made):
    """gbk_select_pair's arguments from two gbk_select_list launches over one list, or
    None where their lists differ."""
    (cap, n_ptr, idx, a, p1, *mask1, dptr1, idx1, vals1, c1), \
        (cap2, n_ptr2, idx2, a2, p2, *mask2, dptr2, idx2_out, vals2, c2) = (
            args for _, _, _, args in made)
    if cap != cap2 or not _all_same((n_ptr, idx, a), (n_ptr2, idx2, a2)):
        return None
    return (cap, n_ptr, idx, a, p1, *mask1, p2, *mask2, dptr1, idx1, vals1, c1, dptr2,
            idx2_out, vals2, c2)


# -- ewise reduce: a list-dense ewise_mult's list reduced ---------------------------------------

def _ewise_reduce_key(args):
    (op, a_type, b_type, z_type, list_a), (monoid, r_type) = args
    return (op, a_type, b_type, z_type, list_a, monoid) if r_type is z_type else None


def _ewise_reduce_args(made):
    """gbk_ewise_reduce_list's arguments from a gbk_ewise_list_dense and a gbk_reduce_list
    of its list, or None where the reduction's list is another."""
    ewise, reduce = (args for _, _, _, args in made)
    _, n_ptr, a, part, part_have, ticket, value, have = reduce
    if not _all_same((n_ptr, a), (ewise[-1], ewise[-2])):
        return None
    return (*ewise, part, part_have, ticket, value, have)


# -- the round's end: a union written into the loop's state -----------------------------------

def round_end(launches):
    """(index of the first launch, programs.union_lists_loop's arguments) where a dry
    round's ``launches`` end with the two kernels of one union of lists (gbk_union_lists_b,
    gbk_union_lists_a), which can write the round's result into the loop's state and end the
    round (gbk_union_lists_a_loop); else None."""
    if not FUSE or len(launches) < 2:
        return None
    unions = {}
    for (_, program, args), kernels in list(jit._by_call.items()):
        if program is programs.union_lists:
            unions[kernels.fns[0]], unions[kernels.fns[1]] = ("b", args), ("a", args)
    (fb, *_), (fa, *_) = launches[-2:]
    b, a = unions.get(fb), unions.get(fa)
    if b is None or a is None or b[0] != "b" or a[0] != "a" or b[1] != a[1]:
        return None
    jit.compiled(programs.union_lists_loop, *a[1])  # loaded before the capture
    return len(launches) - 2, a[1]


def end_round(key, held, state, loop):
    """Launch a round's held union (``held``: its two launches as the body made them) into
    the loop's ``state`` (a ListVector with room for every position), its last kernel ending
    the round (``loop``: the control words, the round limit, the state's capacity as the host
    keeps it, the counter page and its words, the WHILE node's condition handle), and return
    True; or False (nothing launched) where the two are not one union whose lists are not
    the state's.  Called with no recording current."""
    if len(held) != 2:
        return False
    (fb, grid_b, block_b, b_args), (_, grid_a, _, a_args) = held
    out = b_args[-3:]
    if not _all_same(out, a_args[-3:]) or not _all_same(a_args[4:6], b_args[4:6]):
        return False
    mine = (state.idx, state.vals, state.counters.array)
    if any(_same(x, y) for x in (*b_args, *a_args) for y in mine):
        return False
    counters = out[2]
    jit.run(fb, grid_b, block_b, (*b_args[:-3], state.idx, state.vals, counters))
    (fn,) = jit.compiled(programs.union_lists_loop, *key).fns
    jit.run(fn, grid_a, jit.BLOCK, (*a_args[:-3], state.idx, state.vals, counters, *loop))
    return True


_ROLES = {programs.ewise_list_dense: "ewise_list_dense", programs.accum_list: "accum_list",
          programs.list_unmark: "list_unmark", programs.select_list: "select_list",
          programs.reduce_list: "reduce_list"}

# name: (the roles of its launches, the fused program's arguments from theirs, the fused
# program, its launch's arguments from theirs)
_RELAX = ("push_gather", "ewise_list_dense", "accum_list", "list_to_bitmap", "filter_list",
          "list_unmark")
_SEQUENCES = {  # the longer first where one begins another
    "relax, mark": (_RELAX + ("list_to_bitmap",), _relax_key, programs.relax_list,
                    _relax_args),
    "relax": (_RELAX, _relax_key, programs.relax_list, _relax_args),
    "select pair": (("select_list", "select_list"), _pair_key, programs.select_pair,
                    _pair_args),
    "ewise reduce": (("ewise_list_dense", "reduce_list"), _ewise_reduce_key,
                     programs.ewise_reduce_list, _ewise_reduce_args),
}
KERNELS = {"relax": "gbk_relax_list", "relax, mark": "gbk_relax_list",
           "select pair": "gbk_select_pair",
           "ewise reduce": "gbk_ewise_reduce_list"}
