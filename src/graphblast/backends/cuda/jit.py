"""Kernel generation: problem key -> CUDA source -> compiled kernel, memoized per device.

A *problem key* names one instantiation of a kernel template of ``kernels/*.cuh``: the
primitive, the operand types, the operators, the mask kind, the formats.  For each key this
module writes the source - the kernel headers, the operators' functor structs (``codegen``)
and small *adapter* structs that bind a functor to the kernel's calling convention (casts of
the stored types to the operator's types, positions, swapped operands) - and compiles it once
per device with ``cupy.RawModule(code=..., name_expressions=...)``.  CuPy's on-disk cache
keeps the result across processes.  Kernel names stay readable in profilers, for example
``gbk_spmv_pull<mul_times_FP64__FP64_FP64, mon_plus_FP64, double, double, false, true>``.

Nothing here imports CuPy at import time: the CI test builds every source of the catalogue
and compiles it with nvcc on a machine without a GPU (:func:`translation_unit`).
"""

import ctypes
import logging
import os
import re
import threading
import time

import numpy as np

from ...config import config
from ...ops.swapped import SwappedBinaryOp
from . import catalogue, codegen, recording

_setting = config.lookup  # the launch path reads its setting by the dict's own lookup

logger = logging.getLogger("graphblast")

KERNEL_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels")
OPTIONS = ("-std=c++17",)

BLOCK = 256
# Enough blocks to fill an H200 several times over; every kernel loops grid-stride beyond it.
MAX_GRID = 132 * 32

_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*$', re.M)
_PRAGMA_ONCE = re.compile(r"^\s*#\s*pragma\s+once\s*$", re.M)
_header_cache = {}
_lock = threading.Lock()


# -- sources ---------------------------------------------------------------------------------

def _read(name):
    text = _header_cache.get(name)
    if text is None:
        with open(os.path.join(KERNEL_DIR, name), encoding="utf-8") as f:
            text = f.read()
        _header_cache[name] = text
    return text


def headers_source(names):
    """The text of the kernel headers ``names`` with their ``#include "..."`` lines expanded,
    each file once, ``operators.cuh`` first.

    Inlining (rather than ``-I``) makes the source self-contained, so CuPy's disk cache, keyed
    by the source text, never serves a kernel built from an older header.
    """
    seen = set()
    out = []

    def expand(name):
        if name in seen:
            return
        seen.add(name)
        text = _read(name)

        def include(match):
            expand(match.group(1))
            return ""

        body = _PRAGMA_ONCE.sub("", _INCLUDE.sub(include, text))
        out.append(f"// ---- {name} ----\n{body}")

    expand("operators.cuh")
    for name in names:
        expand(name)
    return "\n".join(out)


def _c(dtype):
    return dtype.c_type


def _tag(dtype):
    return dtype.name


def _opname(op):
    """A typed operator's name in adapter names (a user operator's C identifier)."""
    return codegen.op_c_name(op.parent)


# -- adapters: a functor bound to a kernel's calling convention -----------------------------

def _base_op(op):
    """(the typed operator whose functor is used, whether its operands are swapped)."""
    if isinstance(op, SwappedBinaryOp):
        return op.op, True
    return op, False


def op_key(op):
    """A hashable, stable identity for a typed operator (a swapped operator is made anew for
    every call, so it is keyed by the operator it wraps)."""
    base, swapped = _base_op(op)
    return ("swap", base) if swapped else base


class Adapter:
    """One generated struct: its name, its source, and the functors it needs."""

    __slots__ = ("name", "source", "functors")

    def __init__(self, name, source, functors):
        self.name = name
        self.source = source
        self.functors = functors


_FN = "__device__ __forceinline__"


def _fn(sig, body):
    return f"    __device__ __forceinline__ {sig} const {{ {body} }}\n"


def _binary_call(op, xa, yb, pos="ai, aj, bi, bj"):
    """C++ that calls a (maybe swapped) typed binary operator's functor on values already of
    its operand types.  A swapped operator (``f'(x, y) = f(y, x)`` over a transposed matrix,
    see ``ops.swapped``) passes the operands exchanged and each position
    transposed, so a positional ``f`` reads the coordinates it would have read unswapped."""
    base, swapped = _base_op(op)
    f = codegen.functor_name(base)
    if swapped:
        return f"{f}()({yb}, {xa}, bj, bi, aj, ai)"
    return f"{f}()({xa}, {yb}, {pos})"


_TF = ("false", "true")

# Binary operators whose value ignores an operand: the kernels then load no value for it
# (a pattern-only traversal reads no matrix values at all).
_IGNORES_B = {"first"}
_IGNORES_A = {"second", "any"}  # any(x, y) is y
_IGNORES_BOTH = {"pair", "oneb"}


def _reads(op):
    """(reads its first operand's value, reads its second's) for a typed binary operator."""
    name = codegen.builtin_name(op.parent)
    if op.position is not None or name in _IGNORES_BOTH:
        return False, False
    return name not in _IGNORES_A, name not in _IGNORES_B


def reads_operands(op):
    """(reads its first operand's value, reads its second's) for a typed (maybe swapped)
    binary operator."""
    base, swapped = _base_op(op)
    a, b = _reads(base)
    return (b, a) if swapped else (a, b)


def constant_product(op):
    """Whether a binary operator's value is the same for every pair of entries (pair)."""
    base, _ = _base_op(op)
    return codegen.builtin_name(base.parent) in _IGNORES_BOTH and base.position is None


def mult_adapter(op, a_type, b_type, z_type):
    """``z_t operator()(A a, B b, ai, aj, bi, bj)``: a binary operator on stored values of
    types ``a_type``/``b_type`` (cast to the operator's types first), its result cast to
    ``z_type`` (a semiring's monoid type, or the operator's own return type)."""
    base, swapped = _base_op(op)
    name = (f"mul_{'swap_' if swapped else ''}{_opname(base)}_{_tag(base.type)}__"
            f"{_tag(a_type)}_{_tag(b_type)}_{_tag(z_type)}")
    x, y = _c(op.type), _c(op.type2)
    call = _binary_call(op, f"gbk::cast<{x}>(a)", f"gbk::cast<{y}>(b)")
    reads_a, reads_b = reads_operands(op)
    src = (f"struct {name} {{\n    typedef {_c(z_type)} z_t;\n    typedef char param_t;\n"
           f"    static constexpr bool reads_a = {_TF[reads_a]};\n"
           f"    static constexpr bool reads_b = {_TF[reads_b]};\n"
           f"    static constexpr bool constant = {_TF[constant_product(op)]};\n"
           f"    __device__ {name}(param_t) {{}}\n"
           + _fn(f"z_t operator()({_c(a_type)} a, {_c(b_type)} b, idx_t ai, idx_t aj, "
                 "idx_t bi, idx_t bj)",
                 f"return gbk::cast<z_t>({call});")
           + "};\n")
    return Adapter(name, src, [base])


# Bit patterns that mark an empty float accumulator of the atomics (quiet NaNs with a payload
# no operator produces; CUDA's own NaN is all ones), so the first value folded in replaces it
# exactly.
_EMPTY_BITS = {"FP32": 0x7FE5A5A5, "FP64": 0x7FFDA5A5A5A5A5A5}


# The monoids whose atomic fold the hardware has (gbk::atomic_combine): plus on 32- and
# 64-bit integers and on FP64, min and max on 32- and 64-bit integers.  FP32 plus keeps the
# compare-and-swap loop: the hardware's atom.add.f32 flushes subnormal inputs and results to
# zero, which a plain addition (the reductions', the CPU's) does not; float min and max keep
# it too (NaN keeps the reductions' meaning).  Code: 1 plus, 2 min, 3 max.
_NATIVE_ATOMICS = {
    "plus": (1, {"INT32", "UINT32", "INT64", "UINT64", "FP64"}),
    "min": (2, {"INT32", "UINT32", "INT64", "UINT64"}),
    "max": (3, {"INT32", "UINT32", "INT64", "UINT64"}),
}


def native_atomic(monoid):
    """The typed monoid's code in _NATIVE_ATOMICS when the hardware's own atomic folds it,
    else 0 (a compare-and-swap loop)."""
    code, types = _NATIVE_ATOMICS.get(codegen.builtin_name(monoid.parent), (0, ()))
    return code if monoid.return_type.name in types else 0


def monoid_adapter(monoid):
    """A typed monoid as the reductions and atomics see it."""
    f = codegen.functor_name(monoid)
    t = monoid.return_type
    name = f"mon_{_opname(monoid)}_{_tag(t)}"
    ct = _c(t)
    lines = [f"struct {name} {{", f"    typedef {ct} t;",
             f"    static constexpr int native = {native_atomic(monoid)};",
             f"    static constexpr bool is_any = {f}::is_any;",
             f"    static constexpr bool has_terminal = {f}::has_terminal;",
             f"    static __device__ __forceinline__ t identity() {{ return {f}::identity(); }}",
             f"    static __device__ __forceinline__ t terminal() {{ return {f}::terminal(); }}",
             f"    static __device__ __forceinline__ t combine(t x, t y) {{ return {f}()(x, y); }}"]
    if t.name in _EMPTY_BITS:
        bits = f"0x{_EMPTY_BITS[t.name]:X}ULL"
        word = "unsigned int" if t.name == "FP32" else "unsigned long long"
        lines += [
            f"    static {_FN} t empty() {{ return gbk::from_bits<t>({bits}); }}",
            f"    static {_FN} bool is_empty(t x) {{ union {{ t v; {word} u; }} c; c.v = x; "
            f"return c.u == ({word}){bits}; }}"]
    else:
        lines += ["    static __device__ __forceinline__ t empty() { return identity(); }",
                  "    static __device__ __forceinline__ bool is_empty(t) { return false; }"]
    lines.append("};\n")
    return Adapter(name, "\n".join(lines), [monoid])


def map_adapter(op, a_type, extra=None):
    """``z_t operator()(A a, idx_t i, idx_t j)`` for apply and select.

    ``op`` is a typed unary operator, a typed binary operator with a bound scalar (``extra``
    = "left" or "right"), a typed index-unary operator (``extra`` None or "thunk": its thunk
    by value), or None for a cast to ``extra`` (a DataType).  "left_device", "right_device"
    and "thunk_device": the kernel gets a pointer to the scalar, see :func:`bound`."""
    ca = _c(a_type)
    by_pointer = extra in ("left_device", "right_device", "thunk_device")
    if op is None:
        z = extra
        name = f"map_cast_{_tag(a_type)}_{_tag(z)}"
        body, param, uses_index, functors = "return gbk::cast<z_t>(a);", "char", "false", []
    else:
        f = codegen.functor_name(op)
        z = op.return_type
        x = _c(op.type)
        kind = op.opclass
        functors = [op]
        if kind == "UnaryOp":
            name = f"map_{_opname(op)}_{_tag(op.type)}__{_tag(a_type)}"
            body = f"return gbk::cast<z_t>({f}()(gbk::cast<{x}>(a), i, j));"
            param, uses_index = "char", "true" if op.position is not None else "false"
        elif kind == "BinaryOp":
            name = f"map_{extra}_{_opname(op)}_{_tag(op.type)}__{_tag(a_type)}"
            if extra.startswith("left"):
                call = f"{f}()(p, gbk::cast<{_c(op.type2)}>(a), i, j, i, j)"
                param = x
            else:
                call = f"{f}()(gbk::cast<{x}>(a), p, i, j, i, j)"
                param = _c(op.type2)
            body = f"return gbk::cast<z_t>({call});"
            uses_index = "true" if op.position is not None else "false"
        else:  # IndexUnaryOp / SelectOp
            name = (f"map_iu{'_ptr' if by_pointer else ''}_{_opname(op)}_{_tag(op.type)}__"
                    f"{_tag(a_type)}")
            param = "int64_t" if not op.uses_value else x
            body = f"return gbk::cast<z_t>({f}()(gbk::cast<{x}>(a), i, j, p));"
            uses_index = "true"
    # a scalar bound by pointer is read once per thread, when the adapter is made
    value, arg, init = (param, f"const {param}*", "*q") if by_pointer else (param, param, "q")
    src = (f"struct {name} {{\n    typedef {_c(z)} z_t;\n    typedef {arg} param_t;\n"
           f"    static constexpr bool uses_index = {uses_index};\n    {value} p;\n"
           f"    __device__ {name}(param_t q) : p({init}) {{}}\n"
           + _fn(f"z_t operator()({ca} a, idx_t i, idx_t j)", body) + "};\n")
    return Adapter(name, src, functors)


def zip_adapter(kind, op, a_type, b_type, z_type, on_device=(False, False)):
    """Element-wise adapter: ``both(a, b, i, j)``, ``only_a(a, i, j)``, ``only_b(b, i, j)``.

    ``kind`` is "mult" (intersection), "add" (an entry of one operand only is copied, cast to
    ``z_type``, also for a positional operator, as SuiteSparse) or "union" (a missing operand
    takes the bound default ``p`` (left) or ``p2`` (right); ``on_device``: whether each
    default comes as a pointer to a value left on the device, read once per thread)."""
    base, swapped = _base_op(op)
    x, y = _c(op.type), _c(op.type2)
    ca, cb = _c(a_type), _c(b_type)
    ptr = "".join("d" if d else "h" for d in on_device) if kind == "union" else ""
    name = (f"zip_{kind}{ptr}_{'swap_' if swapped else ''}{_opname(base)}_"
            f"{_tag(base.type)}__{_tag(a_type)}_{_tag(b_type)}_{_tag(z_type)}")
    both = _binary_call(op, f"gbk::cast<{x}>(a)", f"gbk::cast<{y}>(b)", "i, j, i, j")
    if kind == "union":
        p1, p2 = x, y
        only_a = _binary_call(op, f"gbk::cast<{x}>(a)", "p2", "i, j, i, j")
        only_b = _binary_call(op, "p", f"gbk::cast<{y}>(b)", "i, j, i, j")
    else:
        p1 = p2 = "char"
        only_a, only_b = "a", "b"
        on_device = (False, False)
    # a default bound by pointer is read when the adapter is made (both kernels pass both)
    arg1, init1 = (f"const {p1}*", "*q") if on_device[0] else (p1, "q")
    arg2, init2 = (f"const {p2}*", "*q2") if on_device[1] else (p2, "q2")
    # The positional forms of _binary_call name ai.. for swapped ops; bind them to (i, j).
    pos_bind = "idx_t ai = i, aj = j, bi = i, bj = j; (void)ai; (void)aj; (void)bi; (void)bj; "
    src = (f"struct {name} {{\n    typedef {_c(z_type)} z_t;\n    typedef {arg1} param_t;\n"
           f"    typedef {arg2} param2_t;\n    {p1} p;\n    {p2} p2;\n"
           f"    __device__ {name}(param_t q, param2_t q2 = param2_t()) : p({init1}), "
           f"p2({init2}) {{}}\n"
           + _fn(f"z_t both({ca} a, {cb} b, idx_t i, idx_t j)",
                 f"{pos_bind}return gbk::cast<z_t>({both});")
           + _fn(f"z_t only_a({ca} a, idx_t i, idx_t j)",
                 f"{pos_bind}(void)a; return gbk::cast<z_t>({only_a});")
           + _fn(f"z_t only_b({cb} b, idx_t i, idx_t j)",
                 f"{pos_bind}(void)b; return gbk::cast<z_t>({only_b});")
           + "};\n")
    return Adapter(name, src, [base])


# -- programs --------------------------------------------------------------------------------

class Program:
    """The source of one problem key: headers, functors, adapters, and the kernels to get."""

    __slots__ = ("headers", "adapters", "kernels")

    def __init__(self, headers, adapters, kernels):
        self.headers = headers
        self.adapters = adapters
        self.kernels = kernels

    def source(self):
        return translation_unit([self])


_STRUCT = re.compile(r"^struct (\w+)", re.M)


def _structs(text):
    """``[(name, source)]`` of the top-level structs of a ``codegen.functor_source`` text, so
    that functors shared by several operators (a semiring's monoid and multiplier) are emitted
    once per program."""
    starts = [(m.start(), m.group(1)) for m in _STRUCT.finditer(text)]
    ends = [s for s, _ in starts[1:]] + [len(text)]
    return [(name, text[s:e].strip() + "\n") for (s, name), e in zip(starts, ends)]


def translation_unit(programs, instantiate=False):
    """One compilable text for several programs: their headers, functors and adapters once
    each.  With ``instantiate``, each kernel's address is taken, so that nvcc (which has no
    name expressions) emits it; the CPU-only compile test builds its sources this way."""
    headers = []
    for program in programs:
        headers += [h for h in program.headers if h not in headers]
    functors, adapters, seen = [], [], set()
    for program in programs:
        for ad in program.adapters:
            for op in ad.functors:
                for name, part in _structs(codegen.functor_source(op)):
                    if name not in seen:
                        seen.add(name)
                        functors.append(part)
    for program in programs:
        for ad in program.adapters:
            if ad.name not in seen:
                seen.add(ad.name)
                adapters.append(ad.source)
    parts = [headers_source(headers), "// ---- functors ----", *functors,
             "// ---- adapters ----", *adapters]
    if instantiate:
        names = []
        for program in programs:
            names += [k for k in program.kernels if k not in names]
        parts += [f"static void* gbk_instance_{k} = (void*)&{name};"
                  for k, name in enumerate(names)]
    return "\n".join(parts) + "\n"


class Kernels:
    """The compiled kernels of one program on one device, in the program's order."""

    __slots__ = ("fns", "names")

    def __init__(self, fns, names=()):
        self.fns = fns
        self.names = tuple(names)  # for profilers (benchmarks/profiling/engine_kernels.py)


_compiled = {}  # (device_id, key) -> Kernels
_current_device = None


def _device_id():
    """The current device's id (CuPy's getter, looked up once)."""
    global _current_device
    if _current_device is None:
        import cupy

        _current_device = cupy.cuda.runtime.getDevice
    return _current_device()


def kernels(key, build):
    """The :class:`Kernels` of problem ``key`` on the current device, compiling ``build()``
    (a :class:`Program`) the first time the key is seen there."""
    device_id = _device_id()
    found = _compiled.get((device_id, key))
    if found is not None:
        return found
    with _lock:
        found = _compiled.get((device_id, key))
        if found is None:
            found = _compile(device_id, build())
            _compiled[(device_id, key)] = found
        return found


# (device id, program function, its arguments) -> Kernels: a call's kernels found by one
# lookup, without making the program's key and source builder each time (the per-call path
# of every operation).  Bounded, since arguments made anew per call (a swapped operator)
# would otherwise pile up.
_by_call = {}
_BY_CALL_MAX = 4096


def compiled(program, *args):
    """The :class:`Kernels` of ``program(*args)`` (a ``programs`` function returning a key
    and a builder) on the current device: the key and builder made, and the program
    compiled, only the first time these arguments are seen there."""
    call = (_device_id(), program, args)
    try:
        found = _by_call.get(call)
    except TypeError:  # an unhashable argument: through the program's own key
        return kernels(*program(*args))
    if found is None:
        if catalogue.recording():
            catalogue.record(program, args)
        found = kernels(*program(*args))
        if len(_by_call) >= _BY_CALL_MAX:
            _by_call.clear()
        _by_call[call] = found
    return found


#: Programs compiled by NVRTC in this process: those the catalogue lacked.
runtime_compiles = 0


def _compile(device_id, program):
    global runtime_compiles
    import cupy

    shipped = catalogue.load(device_id, program)
    if shipped is not None:
        return Kernels(shipped, program.kernels)
    runtime_compiles += 1
    if catalogue.recording():
        catalogue.install_cupy_hook()
    source = program.source()
    start = time.perf_counter()
    with cupy.cuda.Device(device_id):
        module = cupy.RawModule(code=source, options=OPTIONS,
                                name_expressions=list(program.kernels))
        fns = tuple(module.get_function(name) for name in program.kernels)
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("cuda: compiled %s on device %d in %.3f s", ", ".join(program.kernels),
                     device_id, time.perf_counter() - start)
    return Kernels(fns, program.kernels)


# -- launching -------------------------------------------------------------------------------

# While a loop body is recorded for replay (loops.py), its kernels get at most this many
# blocks (two an SM): their grids are sized by capacity (the counts live on the device), and
# a kernel of MAX_GRID blocks that finds little to do still pays for scheduling them: the cap
# took a replayed SSSP round from 86 to 81 us of GPU time on rgg-22 and from 69 to 61.5 on
# grid-2048 (H200).  Every kernel strides over its work by
# the grid it is given.
RECORDED_MAX_GRID = 132 * 2


def grid_for(threads, recorded_max=RECORDED_MAX_GRID):
    """Blocks of BLOCK threads for ``threads`` threads of work (at least one block), at most
    MAX_GRID, or ``recorded_max`` in a loop body recorded for replay."""
    blocks = (threads + BLOCK - 1) // BLOCK
    return max(1, min(blocks, MAX_GRID if recording.thread.rec is None else recorded_max))


try:
    from . import _launch as _driver  # the compiled launcher (setup.py; optional)
except ImportError:
    _driver = None
_current_stream = None
_handles = {}  # RawKernel -> its CUfunction handle


def run(fn, grid, block, args):
    """Launch the RawKernel ``fn`` as ``grid`` blocks of ``block`` threads on the current
    stream: through the compiled launcher (``_launch.c``: the arguments packed in C and the
    driver called directly, without CuPy's argument handling; design.md has the measured
    difference) unless ``gb.config["kernel_launch"]`` is "cupy" or the launcher is not
    built."""
    rec = recording.thread.rec
    if rec is not None and rec.launch(fn, grid, block, args):
        return  # a loop body recorded for replay: its launches compared (made later, fused)
    if _driver is None or _setting("kernel_launch") == "cupy":
        fn((grid,), (block,), args)
        return
    if _current_stream is None:
        _start_driver()
    handle = _handles.get(fn)
    if handle is None:  # each RawKernel is compiled for one device (kernels() keys by it)
        handle = _handles[fn] = fn.kernel.ptr
    try:
        status = _driver.launch(handle, grid, block, _current_stream().ptr, args)
    except TypeError as e:  # an argument it cannot pack: CuPy's launch, logged
        logger.warning("cuda: the compiled launcher could not pack %s's arguments (%s); "
                       "launched through CuPy", getattr(fn, "name", fn), e)
        fn((grid,), (block,), args)
        return
    if status:
        _launch_failed(status, handle, grid, block, args)


def _start_driver():
    """The compiled launcher told CuPy's array class (passed by its data pointer), and the
    current stream's getter kept."""
    global _current_stream
    import cupy

    # the base class of every CuPy array (cupy.ndarray derives from it in CuPy 13+)
    _driver.set_array_type(getattr(cupy._core.core, "_ndarray_base", cupy.ndarray))
    _current_stream = cupy.cuda.get_current_stream


_INVALID_CONTEXT = 201  # CUDA_ERROR_INVALID_CONTEXT


def _launch_failed(status, handle, grid, block, args):
    """A launch the driver refused: where the thread has no CUDA context yet (a new thread
    whose first CUDA call this is), make the device's as CuPy does and retry once; otherwise
    raise CuPy's error for the status (its message names it)."""
    import cupy

    if status == _INVALID_CONTEXT:
        cupy.cuda.runtime.memGetInfo()  # initializes the current device's primary context
        status = _driver.launch(handle, grid, block, _current_stream().ptr, args)
        if not status:
            return
    raise cupy.cuda.driver.CUDADriverError(status)


def co_resident(fn, block):
    """(blocks of ``block`` threads of ``fn`` an SM of the current device holds at once, its
    SMs): a cooperative launch may have at most their product; (0, SMs) where the device has
    no cooperative launch."""
    import cupy

    runtime = cupy.cuda.runtime
    device = runtime.getDevice()
    sms = runtime.deviceGetAttribute(_ATTR_SMS, device)
    if not runtime.deviceGetAttribute(_ATTR_COOPERATIVE_LAUNCH, device):
        return 0, sms
    return cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(fn.kernel.ptr, block,
                                                                      0), sms


_ATTR_SMS = 16  # cudaDevAttrMultiProcessorCount
_ATTR_COOPERATIVE_LAUNCH = 95  # cudaDevAttrCooperativeLaunch


def run_cooperative(fn, grid, block, args, stream):
    """Launch ``fn`` cooperatively on ``stream``: every one of its ``grid`` blocks resident at
    once (at most :func:`co_resident`), as a kernel that waits at a barrier of the whole grid
    needs: its arguments packed as :func:`run` packs them (the compiled launcher's slots), for
    CuPy's cuLaunchCooperativeKernel; through CuPy's own launch where :func:`run` would.
    Never recorded: the loop that makes it is the only caller (loops.py)."""
    import cupy

    if _driver is None or _setting("kernel_launch") == "cupy":
        fn.kernel((grid, 1, 1), (block, 1, 1), args, stream=stream,
                  enable_cooperative_groups=True)
        return
    if _current_stream is None:
        _start_driver()
    slots = ctypes.create_string_buffer(_driver.pack(args), 8 * len(args))
    base = ctypes.addressof(slots)
    params = (ctypes.c_void_p * len(args))(*(base + 8 * i for i in range(len(args))))
    cupy.cuda.driver.launchCooperativeKernel(fn.kernel.ptr, grid, 1, 1, block, 1, 1, 0,
                                             stream.ptr, ctypes.addressof(params))


def launch(fn, threads, args):
    """Launch ``fn`` on the current stream with enough threads for ``threads`` work items."""
    run(fn, grid_for(threads), BLOCK, args)


def launch_warps(fn, items, args):
    """Launch a warp-per-item kernel."""
    run(fn, grid_for(items * 32), BLOCK, args)


def bound(side, value, dtype):
    """A scalar operand as ``(extra, kernel argument)`` for :func:`map_adapter`: apply's
    bound scalar (``side`` "left"/"right") or an index-unary operator's thunk ("thunk").  A
    value left on the device (a one-element array of ``dtype``, core/scalar.py) is passed by
    pointer and read by the kernel, a host value by its bytes."""
    return (f"{side}_device" if is_device_value(value) else side), scalar_arg(value, dtype)


def is_device_value(value):
    """Whether a scalar operand is a value left on the device (passed by pointer)."""
    return hasattr(value, "__cuda_array_interface__")


def scalar_arg(value, dtype):
    """A scalar operand as a kernel argument: a value left on the device as its array (the
    kernel, compiled for a pointer, reads it), a host value by its bytes (:func:`scalar`)."""
    return value if is_device_value(value) else scalar(value, dtype)


def scalar(value, dtype):
    """A NumPy scalar of exactly ``dtype`` for a kernel argument (CuPy passes a scalar by its
    bytes, so a Python int would arrive as int64 whatever the parameter's type)."""
    return np.asarray(value).astype(dtype.np_type)[()]
