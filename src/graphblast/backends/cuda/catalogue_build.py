"""Build the kernel catalogue (see ``catalogue``): NVRTC, no GPU, no CuPy.

    python -m graphblast.backends.cuda.catalogue_build [--out DIR] [--jobs N]

``setup.py`` runs :func:`build` when the package is built (``pip install``, ``make``, a
wheel, CI).  The programs are those of the manifest ``catalogue_keys.txt`` (the problem keys
the test suite, the benchmark and the demo asked for on a GPU, recorded with
``GRAPHBLAST_RECORD_KEYS``) and the enumerated families of :func:`enumerated` (the built-in
operators the algorithms' kernels use, on BOOL, INT32, INT64, FP32 and FP64).  They are
grouped by kernel header into translation units of at most :data:`PER_UNIT` programs (one
front-end pass instantiates many kernels), and each unit is compiled once per target, in
parallel over the machine's cores.

Why NVRTC and not nvcc: NVRTC is the compiler CuPy uses on a miss, so a shipped kernel is
byte for byte what a miss would compile (same front end, same options); and NVRTC names each
template instantiation's symbol (``nvrtcGetLoweredName``), which is how the run time finds a
kernel in a cubin.  nvcc has no such query: its symbols would have to be demangled and
matched against the name expressions' spelling (typedefs, ``int64_t`` against ``long``).
"""

import argparse
import json
import lzma
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from . import catalogue, jit, nvrtc, programs

TARGETS = ("sm_80", "sm_89", "sm_90", "sm_100", "compute_100")
PER_UNIT = 48
MANIFEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "catalogue_keys.txt")
TYPES = ("BOOL", "INT32", "INT64", "FP32", "FP64")
#: (semiring, type) of the enumerated products (pull, push, one-block, masked dot, hash)
MV_SEMIRINGS = (("any_pair", "BOOL"), ("lor_land", "BOOL"), ("any_pair", "INT64"),
                ("plus_times", "FP32"), ("plus_times", "FP64"), ("plus_times", "INT64"),
                ("min_plus", "FP32"), ("min_plus", "FP64"), ("min_plus", "INT64"),
                ("plus_pair", "INT32"), ("plus_pair", "INT64"), ("plus_second", "FP32"),
                ("plus_second", "FP64"), ("min_second", "INT64"), ("min_first", "INT64"),
                ("max_times", "FP64"), ("plus_first", "FP64"))


def manifest_specs(path=MANIFEST):
    """The manifest's lines (problem keys as program calls), comments and blanks dropped."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = [line.split("#", 1)[0].strip() for line in f]
    except FileNotFoundError:
        return []
    return [line for line in lines if line]


def enumerated():
    """Program calls of the families the algorithms, the generators and the NetworkX backend
    use, for the built-in operators they use on BOOL, INT32, INT64, FP32 and FP64."""
    from ... import dtypes
    from ...ops import binary, monoid, semiring, unary
    from ...ops import select as select_ops

    types = [getattr(dtypes, t) for t in TYPES]
    calls = []

    def add(fn, *args):
        calls.append((fn, args))

    for name in ("gbk_expand", "gbk_pair_run_starts", "gbk_pair_run_ends", "gbk_csr_unsorted",
                 "gbk_row_run_firsts", "gbk_row_run_lengths", "gbk_degree_classes_count",
                 "gbk_degree_classes_fill"):
        add(programs.structure, name)
    for fn in (programs.list_degrees, programs.list_unmark, programs.list_unclaim,
               programs.dot_bins):
        add(fn)
    for vec in (False, True):
        add(programs.match, vec)
        add(programs.mask_allows, vec)
    for idx32 in (True, False):
        for word in (1, 2, 4, 8):
            add(programs.column_select, idx32, word)
            for out32 in (True, False):
                add(programs.permute_rows, idx32, out32, word)
                add(programs.renumber_rows, idx32, out32, word)
    for name in programs.GENERATOR_KERNELS:
        add(programs.generator_kernel, name)
    for t in (dtypes.UINT8, dtypes.INT8, dtypes.UINT16, dtypes.INT16, dtypes.UINT32,
              dtypes.INT32, dtypes.INT64, dtypes.FP64):  # grid2d's weight types
        add(programs.grid_kernel, t)
    # arrays.py's helpers: every type, 32- and 64-bit indices
    index_types = [dtypes.INT32, dtypes.INT64]
    add(programs.array_kernel, "compact_positions")
    for name in ("lengths_of_rows", "indptr_union", "indptr_kept", "scan_columns4",
                 "window_offsets4", "chunks_of_rows", "chunk_starts", "row_sums_of_scan",
                 "rank_in_group"):
        add(programs.array_kernel, name)
    for t in dtypes.ALL_TYPES:
        for name in ("fill", "iota", "count_nonzero", "nonzero_flags", "broadcast",
                     "count_unequal", "flags_at_least"):
            add(programs.array_kernel, name, t)
        if t.name not in ("BOOL", "FP32", "FP64"):
            add(programs.array_kernel, "bitnot", t)
        for z in dtypes.ALL_TYPES:
            if z is not t:
                add(programs.array_kernel, "convert", t, z)
        for i in index_types:
            add(programs.array_kernel, "gather", t, i)
            add(programs.array_kernel, "scatter", t, i)
    for i in index_types:
        for name in ("adjacent_diff", "degree_key", "rank_of_order", "count_unmapped",
                     "search_sorted"):
            add(programs.array_kernel, name, i)
    for k in (dtypes.INT32, dtypes.INT64):
        for q in (dtypes.INT64, dtypes.UINT64):
            add(programs.array_kernel, "find_sorted", k, q)
        for c in (dtypes.INT32, dtypes.INT64):
            add(programs.array_kernel, "pair_key", k, c)
    for t in types:
        arith = t.name != "BOOL"
        add(programs.merge_kept, t)
        for name in ("list_to_bitmap", "dense_to_list", "write_list", "write_dense",
                     "filter_list", "list_copy"):
            add(programs.vector_kernel, name, t)
        # a device loop's round end, alone or with the next round's hoisted scalar assign
        # into a bitmap of another type (BFS's levels(frontier.S) << depth)
        add(programs.loop_next, t)
        for c in (dtypes.BOOL, dtypes.INT32, dtypes.INT64, dtypes.FP32, dtypes.FP64):
            add(programs.loop_next, t, c)
        accums = [None, binary.min[t], binary.plus[t] if arith else binary.lor[t],
                  binary.first[t], binary.second[t]]
        for accum in accums:
            for on_device in (False, True):
                add(programs.assign_scalar, "list", t, accum, on_device)
                add(programs.assign_scalar, "dense", t, accum, on_device)
        for m in ("plus", "min", "max", "any") if arith else ("lor", "land", "any"):
            mon = getattr(monoid, m)[t]
            add(programs.reduce_all, mon, t)
            for warp in (False, True):
                add(programs.reduce_segments, mon, t, warp)
            add(programs.scatter_atomic, mon)
        if arith:  # sssp's delta-stepping round: the pending distances plus the width, their
            # minimum (a list's, its count on the device), the near and the waiting vertices
            # by that bound left on the device, the union of the waiting and the improved
            add(programs.ewise_list_dense, binary.plus[t], t, t, t, True)
            add(programs.reduce_list, monoid.min[t], t)
            add(programs.ewise_reduce_list, binary.plus[t], t, t, t, True, monoid.min[t])
            for s in ("valuele", "valuegt"):
                add(programs.select_list, getattr(select_ops, s)[t], t, "thunk_device")
            # both in one pass in a captured round (fusion.py)
            add(programs.select_pair, select_ops.valuele[t], select_ops.valuegt[t], t,
                "thunk_device", "thunk_device")
            add(programs.union_lists, binary.min[t], t)
            add(programs.union_lists_loop, binary.min[t], t)  # its last kernel ending a round
        for z in types:
            if z is not t:
                add(programs.cast, t, z)
        add(programs.fold, binary.first[t], t)
        add(programs.fold, binary.plus[t] if arith else binary.lor[t], t)
        ops = [binary.min, binary.plus, binary.first, binary.second, binary.times,
               binary.max] if arith else [binary.lor, binary.land, binary.first, binary.second]
        for op in ops:
            op = op[t]
            for vec in (False, True):
                for kind in ("mult", "add"):
                    add(programs.ewise, kind, op, t, t, op.return_type, vec)
            add(programs.ewise_dense, "mult", op, t, t, op.return_type)
            add(programs.ewise_dense, "add", op, t, t, op.return_type)
            add(programs.accum_list, t, t, op)
        for s in ("valuene", "valueeq", "valuelt", "valuele", "valuegt", "valuege", "tril",
                  "triu", "offdiag"):
            op = getattr(select_ops, s)[t]
            for vec in (False, True):
                add(programs.map_op, op, t, "thunk", vec)
            add(programs.select_dense, op, t, "thunk")
            add(programs.select_list, op, t, "thunk")
        for u in ("one", "identity", "abs", "ainv", "minv") if arith else ("one", "identity"):
            op = getattr(unary, u)[t]
            for vec in (False, True):
                add(programs.map_op, op, t, None, vec)
        add(programs.kron, binary.times[t] if arith else binary.land[t], t, t)
    # the products (the costliest kernels to compile: about 2 s of a core each for the five
    # targets): the semirings of the algorithms and the NetworkX backend on their usual
    # types, both operand orders, 32-bit column indices (the recorded keys add the rest)
    for name, tname in MV_SEMIRINGS:
        t = getattr(dtypes, tname)
        s = getattr(semiring, name)[t]
        mode = (programs.PUSH_FOLD if s.monoid.parent.name != "any" else
                programs.PUSH_FIRST if jit.constant_product(s.binaryop) else
                programs.PUSH_SMALLEST)
        for vfirst in (False, True):
            add(programs.pull, s, t, t, vfirst, True)
            add(programs.push, s, t, t, vfirst, True, mode)
            for push in (False, True):  # a one-block product either way round
                add(programs.mv_small, s, t, t, vfirst, push)
        if s.monoid.parent.name in ("plus", "min", "max"):
            add(programs.dot, s, t, t, True)
            add(programs.spgemm_hash, s, t, t)
        add(programs.spgemm_gather, s, t, t)
        if tname != "BOOL" and name.endswith(("_second", "_pair")):
            # over a pattern (BOOL) matrix, whose values these products need not read: the
            # algorithms' graphs (PageRank's pull over its degree-ordered copy, B c with
            # plus_second over a BOOL B, FastSV's min_second), pushed or pulled
            for vfirst in (False, True):
                add(programs.pull, s, dtypes.BOOL, t, vfirst, True)
                add(programs.push, s, dtypes.BOOL, t, vfirst, True, mode)
                for push in (False, True):
                    add(programs.mv_small, s, dtypes.BOOL, t, vfirst, push)
    # BFS's level as one kernel of a device loop (gbk_push_loop), and its levels as one
    # cooperative launch (gbk_push_levels), over the graphs' usual types, with the next
    # level's assign into INT64 levels (algorithms.bfs) and without
    any_pair = semiring.any_pair[dtypes.BOOL]
    for m in (dtypes.BOOL, dtypes.UINT8, dtypes.INT64, dtypes.FP64):
        for c in (None, dtypes.INT64):
            add(programs.push_loop, any_pair, m, dtypes.BOOL, True, True, c)
            add(programs.push_levels, any_pair, m, dtypes.BOOL, True, True, c)
    # SSSP on its distance types (INT64 for integer and BOOL weights, FP32, FP64; the recorded
    # graphs have integer weights): a round's comparison t >= dist (lists and dense vectors),
    # the NaN check of float weights (A != A), delta-stepping's default width (a sum in FP64),
    # the squaring's SpGEMM and the min of A and its square; min.plus over INT32 and BOOL
    # weights too
    for t in (dtypes.INT64, dtypes.FP32, dtypes.FP64):
        ge = binary.ge[t]
        for list_a in (False, True):
            add(programs.ewise_list_dense, ge, t, t, dtypes.BOOL, list_a)
        add(programs.ewise_dense, "mult", ge, t, t, dtypes.BOOL)
        for vec in (False, True):
            add(programs.ewise, "mult", ge, t, t, dtypes.BOOL, vec)
        if t.is_float:
            add(programs.ewise, "mult", binary.ne[t], t, t, dtypes.BOOL, False)
        add(programs.reduce_all, monoid.plus[dtypes.FP64], t)
        # a recorded round's relaxation as one kernel (fusion.py)
        add(programs.relax_list, monoid.min[t], ge, binary.min[t], t, dtypes.BOOL)
        add(programs.spgemm, semiring.min_plus[t], t, t)
        add(programs.fold, binary.min[t], t)
    s = semiring.min_plus[dtypes.INT64]
    for m in (dtypes.BOOL, dtypes.INT32):
        add(programs.pull, s, m, dtypes.INT64, True, True)
        add(programs.push, s, m, dtypes.INT64, True, True, programs.PUSH_FOLD)
        for push in (False, True):
            add(programs.mv_small, s, m, dtypes.INT64, True, push)
        add(programs.reduce_all, monoid.plus[dtypes.FP64], m)
        add(programs.spgemm, s, m, m)
        add(programs.spgemm_hash, s, m, m)
        add(programs.ewise, "add", binary.min[dtypes.INT64], m, dtypes.INT64, dtypes.INT64,
            False)
    # Louvain's and Leiden's products with one entry per row (the shift of the gains' keys)
    add(programs.spgemm_gather, semiring.any_minus[dtypes.INT64], dtypes.INT64, dtypes.INT64)
    # the batched traversals' bitmaps (bitmap.py): multi-source BFS and betweenness
    # centrality over pattern (BOOL) graphs and graphs of their own type
    for t in types:
        add(programs.bitmap_make, t)
        add(programs.packed_assign, t)  # levels(frontier.S) << depth, a packed frontier
        if t.name != "BOOL":
            add(programs.bitmap_accum, binary.plus[t], t)
            add(programs.bitmap_reduce_rows, monoid.plus[t], t)
    for name, tname in (("any_pair", "BOOL"), ("plus_first", "FP64"), ("any_pair", "INT64"),
                        ("plus_times", "FP64")):
        t = getattr(dtypes, tname)
        s = getattr(semiring, name)[t]
        for b in dict.fromkeys((t, dtypes.BOOL)):
            add(programs.mxm_bitmap, s, t, b, True)
    add(programs.mxm_packed, True)  # structural products over packed bitmaps (packed.py)
    return calls


def collect(manifest=MANIFEST):
    """``{hash: (call text, Program)}`` of the catalogue: the manifest's keys, then the
    enumerated families; an unreadable manifest line is an error naming it."""
    found = {}
    for line in manifest_specs(manifest):
        try:
            fn, args = catalogue.parse(line)
            program = fn(*args)[1]()
        except Exception as e:
            raise ValueError(f"{manifest}: cannot make the program of {line!r}: {e}") from e
        found.setdefault(catalogue.program_hash(program), (line, program))
    for fn, args in enumerated():
        program = fn(*args)[1]()
        text = catalogue.spec(fn, args) or f"{fn.__name__}{args!r}"
        found.setdefault(catalogue.program_hash(program), (text, program))
    return found


def _units(found):
    """Translation units: programs grouped by their kernel headers, PER_UNIT at most, the
    manifest's (the recorded keys, which the algorithms use together) in units of their own,
    so that a first call decompresses and loads few and small binaries."""
    recorded = set()
    for line in manifest_specs():
        try:
            fn, args = catalogue.parse(line)
            recorded.add(catalogue.spec(fn, args) or line)
        except (ValueError, KeyError, AttributeError, TypeError):
            continue
    by_headers = {}
    for h, (text, program) in found.items():
        by_headers.setdefault((text not in recorded, tuple(program.headers)), []).append(
            (h, program))
    units = []
    for group in by_headers.values():
        for k in range(0, len(group), PER_UNIT):
            units.append(group[k:k + PER_UNIT])
    return [(f"u{n:03d}", part) for n, part in enumerate(units)]


def build(out=catalogue.FOLDER, jobs=None, targets=TARGETS, log=print, found=None):
    """Compile the catalogue (``found``: :func:`collect`'s answer, by default all of it) into
    ``out`` (emptied first); a dict of what was done.  Without NVRTC, nothing is written and
    the result says so (kernels then compile on first use)."""
    start = time.perf_counter()
    compiler = nvrtc.find()
    if compiler is None:
        return {"built": False, "reason": "NVRTC not found (pip install nvidia-cuda-nvrtc, or "
                                          "a CUDA toolkit)"}
    found = collect() if found is None else found
    units = _units(found)
    options = list(jit.OPTIONS + catalogue.CUPY_OPTIONS)
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        if name.endswith((".xz", ".json", ".txt")):
            os.remove(os.path.join(out, name))
    sources = {name: jit.translation_unit([p for _, p in part]) for name, part in units}
    kernels = {name: sorted({k for _, p in part for k in p.kernels}) for name, part in units}

    def one(task):
        name, target = task
        data, lowered = compiler.compile(sources[name], name, options, kernels[name], target)
        packed = lzma.compress(data)
        with open(os.path.join(out, catalogue.unit_file(name, target)), "wb") as f:
            f.write(packed)
        return name, lowered, len(data), len(packed)

    tasks = [(name, target) for name, _ in units for target in targets]
    jobs = jobs or os.cpu_count() or 2
    lowered_by_unit, raw, size = {}, 0, 0
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for name, lowered, n, packed in pool.map(one, tasks):
            lowered_by_unit[name] = lowered
            raw += n
            size += packed
    index = {"format": catalogue.FORMAT, "nvrtc": list(compiler.version), "options": options,
             "targets": list(targets), "programs": {}}
    for name, part in units:
        for h, program in part:
            index["programs"][h] = [name, [lowered_by_unit[name][k] for k in program.kernels]]
    index["built"] = {"seconds": round(time.perf_counter() - start, 1), "jobs": jobs,
                      "bytes": size, "bytes_uncompressed": raw}
    with open(os.path.join(out, "index.json"), "w", encoding="utf-8") as f:
        json.dump(index, f, separators=(",", ":"), sort_keys=True)
    with open(os.path.join(out, "programs.txt"), "w", encoding="utf-8") as f:
        f.write("".join(f"{h} {text}\n" for h, (text, _) in sorted(found.items(),
                                                                   key=lambda x: x[1][0])))
    seconds = time.perf_counter() - start
    result = {"built": True, "programs": len(found), "units": len(units),
              "targets": list(targets), "bytes": size, "bytes_uncompressed": raw, "seconds": round(seconds, 1),
              "jobs": jobs, "nvrtc": ".".join(map(str, compiler.version)), "out": out}
    log(f"graphblast: kernel catalogue: {len(found)} programs in {len(units)} units for "
        f"{', '.join(targets)}: {size / 2**20:.1f} MiB ({raw / 2**20:.0f} MiB before xz) in {seconds:.0f} s on {jobs} threads "
        f"(NVRTC {result['nvrtc']})")
    return result


_HEADER = """\
# graphblast's kernel catalogue: the problem keys compiled when the package is built, besides
# the enumerated families of catalogue_build.enumerated().  One program call of
# backends/cuda/programs.py a line.  Recorded on a GPU by benchmarks/gpu/record_keys.sh (the
# demo, `graphblast run bfs|cc kron:16`, the five algorithms on kron and grid graphs, the
# generators, the benchmark, the GPU tests of the algorithms) and folded in with
#     python -m graphblast.backends.cuda.catalogue_build --merge RECORD...
"""


def merge(records, manifest=MANIFEST):
    """Fold the keys of recorder files into the manifest (sorted, each once); the number of
    keys added.  Lines the current code cannot make a program of are left out, counted."""
    keep = set(manifest_specs(manifest))
    before = len(keep)
    dropped = 0
    for path in records:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                try:
                    fn, args = catalogue.parse(line)
                    fn(*args)[1]()
                except Exception:  # noqa: BLE001 - a key of another version of the code
                    dropped += 1
                    continue
                keep.add(catalogue.spec(fn, args) or line)
    with open(manifest, "w", encoding="utf-8") as f:
        f.write(_HEADER + "".join(f"{line}\n" for line in sorted(keep)))
    return len(keep) - before, dropped


def main(argv=None):
    parser = argparse.ArgumentParser(description="Build graphblast's kernel catalogue.")
    parser.add_argument("--out", default=catalogue.FOLDER)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--merge", nargs="+", metavar="RECORD",
                        help="fold recorded keys into catalogue_keys.txt instead of building")
    args = parser.parse_args(argv)
    if args.merge:
        added, dropped = merge(args.merge)
        print(f"catalogue_keys.txt: {added} keys added, {dropped} unreadable lines left out")
        return 0
    result = build(args.out, args.jobs, tuple(args.targets.split(",")))
    if not result["built"]:
        print(f"graphblast: kernel catalogue not built: {result['reason']}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
