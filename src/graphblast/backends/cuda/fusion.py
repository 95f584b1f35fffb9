"""Kernels of a captured loop round fused where the round makes a known sequence of launches.

A device loop's round costs about 4 us a kernel under a WHILE node (design.md, "What a level
costs"), whatever the kernel does, so a round of many small kernels is bound by their count.
The algorithms stay on the public API; here the backend recognises, in the launches of the
dry rounds (recording.py), a sequence whose kernels each touch only the same list's
positions, and the captured round launches one kernel instead:

- ``relax``: a folding push's gather, ``c = t op d`` over the list t (a comparison with a
  bitmap d), ``d(accum) << t`` and ``t<~c.V>`` (its list mask marked, filtered, unmarked):
  SSSP's relaxation (algorithms/sssp.py ``_relax``), six kernels, as gbk_relax_list.

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

# Fuse the known sequences of a captured round (False: every kernel as the body makes it).
FUSE = True

RELAX = "relax"
KERNELS = {RELAX: "gbk_relax_list"}  # each sequence's fused kernel
_SEQUENCES = {RELAX: ("push_gather", "ewise_list_dense", "accum_list", "list_to_bitmap",
                      "filter_list", "list_unmark")}


def _roles():
    """Each compiled kernel's (role, program arguments), from jit's cache of compiled calls:
    the push's fold gather, a list-dense ewise_mult, a list accumulation, a list's marks,
    a list filter, a list's unmarking."""
    roles = {}
    for (_, program, args), kernels in list(jit._by_call.items()):
        fns = kernels.fns
        if program is programs.push and args[-1] == programs.PUSH_FOLD:
            roles[fns[2]] = ("push_gather", args)
        elif program is programs.ewise_list_dense:
            roles[fns[0]] = ("ewise_list_dense", args)
        elif program is programs.accum_list:
            roles[fns[0]] = ("accum_list", args)
        elif program is programs.vector_kernel and args[0] in ("list_to_bitmap",
                                                                "filter_list"):
            roles[fns[0]] = (args[0], args)
        elif program is programs.list_unmark:
            roles[fns[0]] = ("list_unmark", args)
    return roles


def plan(launches):
    """{index of a sequence's first launch: (its name, its length, the fused program's
    arguments)} for a dry round's ``launches`` ((fn, grid, block, args) as noted)."""
    if not FUSE:
        return {}
    roles = _roles()
    found = {}
    names = [roles.get(fn, (None, None)) for fn, *_ in launches]
    for name, sequence in _SEQUENCES.items():
        k = 0
        while k + len(sequence) <= len(names):
            if tuple(r for r, _ in names[k:k + len(sequence)]) == sequence:
                key = _relax_key([a for _, a in names[k:k + len(sequence)]])
                if key is not None:
                    jit.compiled(programs.relax_list, *key)  # loaded before the capture
                    found[k] = (name, len(sequence), key)
                    k += len(sequence)
                    continue
            k += 1
    return found


def _relax_key(args):
    """The arguments of programs.relax_list for a relax sequence's programs' arguments, or
    None where its types do not line up (t, d and the fold one type; t the left operand)."""
    (semiring, *_), (op, a_type, b_type, z_type, list_a), (c_type, u_type, accum), \
        (_, mark_type), (_, filter_type), _ = args
    t = semiring.monoid.return_type
    if not list_a or not (a_type is b_type is c_type is u_type is filter_type is t) \
            or mark_type is not z_type:
        return None
    return semiring.monoid, op, accum, t, z_type


def launch(name, key, made):
    """Launch the fused kernel of the sequence ``name`` for its launches ``made`` ((fn,
    grid, block, args) as the body made them), if their arguments are one data flow; else
    launch them as they were.  Called with no recording current."""
    if name == RELAX:
        args = _relax_args(made)
        if args is not None:
            (fn,) = jit.compiled(programs.relax_list, *key).fns
            jit.run(fn, made[-2][1], jit.BLOCK, args)
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


def _relax_args(made):
    """gbk_relax_list's arguments from a relax sequence's launches, or None where they are
    not the relaxation's one data flow."""
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
    flows = (
        all(_same(a, b) for a, b in zip(t_list, (l_ptr, l_idx, l_vals))),
        all(_same(a, b) for a, b in zip(t_list, (z_ptr, z_idx, z_vals))),
        all(_same(a, b) for a, b in zip(t_list, (f_ptr, f_idx, f_vals))),
        dbits is not None and _same(dbits, bits) and _same(dvals, vals),
        all(_same(a, b) for a, b in zip(c_list, (m_ptr, m_idx, m_vals))),
        _same(marks, mbits) and (mvals is None or _same(marked, mvals)),
        _same(c_counts, u_ptr) and _same(c_idx, u_idx) and _same(marks, u_marks),
    )
    if not all(flows):
        return None
    return (t_counts, t_idx, scratch, t_vals, stamp, dbits, dvals, d_counts, p, p2, c_dptr,
            c_idx, c_vals, c_counts, np.int32(mkind), np.int32(mmode), dptr, out_idx,
            out_vals, counters)
