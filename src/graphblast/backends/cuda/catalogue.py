"""The kernel catalogue: kernels compiled when the package is built, found by problem key.

``catalogue_build`` compiles the programs of the common problem keys (``catalogue_keys.txt``
and the enumerated families of ``catalogue_build``) with NVRTC into cubins for sm_80, sm_89,
sm_90 and sm_100 and PTX for newer GPUs, many programs per translation unit, and writes them
with ``index.json`` into the package's ``catalogue/`` folder.  At run time :func:`load` finds
a program there by the hash of its source and kernel names (so a header changed since the
build can never be served an old kernel: its source no longer matches), loads the unit's
cubin for the device once (xz-compressed in the package: a cubin shrinks about 17 times)
and takes each kernel by the lowered name NVRTC gave it at build time.  A key the catalogue lacks is compiled by NVRTC
through CuPy as before (``jit._compile``) and kept in CuPy's disk cache.

Recording: with ``GRAPHBLAST_RECORD_KEYS=path`` set, every problem key a process asks for is
appended to ``path`` in the manifest's form (``pull(semiring.any_pair[BOOL], BOOL, BOOL,
False, True)``), and every kernel compiled at run time - a catalogue miss, or one of CuPy's
own element-wise and reduction kernels - to ``path + ".compiles"`` with the graphblast lines
that asked for it; the catalogue's manifest is made from such records.
"""

import ast
import hashlib
import json
import logging
import os
import threading

logger = logging.getLogger("graphblast")

FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "catalogue")
INDEX = os.path.join(FOLDER, "index.json")
#: NVRTC's options: jit.OPTIONS plus what CuPy adds to every RawModule compile, so that a
#: shipped kernel is the kernel CuPy would have compiled.
CUPY_OPTIONS = ("--device-as-default-execution-space", "-ftz=true")
FORMAT = 1

_lock = threading.Lock()
_state = {}  # "index": the parsed index or False; (device, unit): loaded RawModule or False


def program_hash(program):
    """The catalogue's key of a program: a hash of its source and kernel names."""
    text = program.source() + "\0" + "\0".join(program.kernels)
    return hashlib.sha256(text.encode()).hexdigest()[:40]


def _index():
    found = _state.get("index")
    if found is None:
        found = False
        try:
            with open(INDEX, encoding="utf-8") as f:
                found = json.load(f)
            from . import jit

            if found.get("format") != FORMAT or found.get("options") != list(
                    jit.OPTIONS + CUPY_OPTIONS):
                logger.warning("cuda: the kernel catalogue was built with other options; "
                               "kernels compile at run time")
                found = False
        except FileNotFoundError:
            logger.info("cuda: no kernel catalogue in the package (built without NVRTC); "
                        "each kernel compiles on its first use")
        except (OSError, ValueError) as e:
            logger.warning("cuda: the kernel catalogue's index is unreadable (%s)", e)
            found = False
        _state["index"] = found
    return found


def _target(index, device_id):
    """The file kind of the catalogue for this device: the cubin of the newest architecture
    of its major version not above it, else the newest PTX not above it; None if neither."""
    import cupy

    cc = int(cupy.cuda.Device(device_id).compute_capability)
    cubins = [int(t[3:]) for t in index["targets"] if t.startswith("sm_")]
    same_major = [a for a in cubins if a // 10 == cc // 10 and a <= cc]
    if same_major:
        return f"sm_{max(same_major)}"
    ptx = [int(t[8:]) for t in index["targets"] if t.startswith("compute_") and int(t[8:]) <= cc]
    return f"compute_{max(ptx)}" if ptx else None


class ShippedKernel:
    """A kernel of the catalogue, launched as jit.run launches a ``cupy.RawKernel``:
    ``fn(grid, block, args)``, and ``fn.kernel.ptr`` for the compiled launcher."""

    __slots__ = ("kernel", "name")

    def __init__(self, kernel, name):
        self.kernel = kernel
        self.name = name

    def __call__(self, grid, block, args, shared_mem=0, stream=None):
        return self.kernel(grid, block, args, shared_mem, stream)

    def __repr__(self):
        return f"<catalogue kernel {self.name}>"


def unit_file(unit, target):
    return f"{unit}.{target}.{'cubin' if target.startswith('sm_') else 'ptx'}.xz"


def _module(index, device_id, unit):
    key = (device_id, unit)
    module = _state.get(key)
    if module is None:
        module = False
        target = _state.get(("target", device_id))
        if target is None:
            target = _state[("target", device_id)] = _target(index, device_id) or False
        if target:
            import lzma

            path = os.path.join(FOLDER, unit_file(unit, target))
            try:
                from cupy.cuda.function import Module

                with open(path, "rb") as f:
                    data = lzma.decompress(f.read())
                if not target.startswith("sm_"):
                    data += b"\0"  # PTX is loaded as a C string
                import cupy

                with cupy.cuda.Device(device_id):
                    module = Module()
                    module.load(data)
            except Exception as e:  # noqa: BLE001 - any failure: compile at run time instead
                logger.warning("cuda: the kernel catalogue's %s did not load on device %d "
                               "(%s); its kernels compile at run time", path, device_id, e)
                module = False
        _state[key] = module
    return module


def load(device_id, program):
    """The kernels of ``program`` from the catalogue on device ``device_id``, in the
    program's order, or None where the catalogue lacks it (or cannot serve this device)."""
    if os.environ.get("GRAPHBLAST_CATALOGUE", "1") == "0":
        return None
    with _lock:
        index = _index()
        if not index:
            return None
        entry = index["programs"].get(program_hash(program))
        if entry is None:
            return None
        unit, lowered = entry
        module = _module(index, device_id, unit)
        if not module:
            return None
        import cupy

        with cupy.cuda.Device(device_id):
            return tuple(ShippedKernel(module.get_function(low), name)
                         for low, name in zip(lowered, program.kernels))


# -- problem keys as text --------------------------------------------------------------------

def spec(program, args):
    """``program(*args)`` as a line of the manifest, or None where an argument has no
    name to write (a user's own operator, a parameterized one)."""
    try:
        text = f"{program.__name__}({', '.join(_arg_text(a) for a in args)})"
    except ValueError:
        return None
    try:
        again = parse(text)
    except (ValueError, KeyError, AttributeError, TypeError):
        return None
    return text if again[0] is program and _same(again[1], args) else None


def _same(a, b):
    from .jit import op_key

    def norm(x):
        if isinstance(x, tuple):
            return tuple(norm(e) for e in x)
        return op_key(x) if hasattr(x, "parent") else x

    return norm(a) == norm(b)


def _arg_text(a):
    from ...dtypes import DataType
    from ...ops.swapped import SwappedBinaryOp, SwappedSemiring

    if a is None or isinstance(a, (bool, int, str)):
        return repr(a)
    if isinstance(a, DataType):
        return a.name
    if isinstance(a, tuple):
        inner = ", ".join(_arg_text(x) for x in a)
        return f"({inner},)" if len(a) == 1 else f"({inner})"
    if isinstance(a, SwappedBinaryOp):
        return f"swapped({_arg_text(a.op)})"
    if isinstance(a, SwappedSemiring):
        return f"swapped({_arg_text(a.unswapped)})"
    parent = getattr(a, "parent", None)
    namespace = getattr(parent, "_namespace", None)
    if namespace is None or getattr(parent, "parameters", None) is not None:
        raise ValueError(f"no name for {a!r}")
    return f"{namespace}.{parent.name}[{a.type.name}]"


def parse(text):
    """``(program function, args)`` of a manifest line such as
    ``pull(semiring.any_pair[BOOL], BOOL, BOOL, False, True)``."""
    from . import programs

    node = ast.parse(text.strip(), mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"not a program call: {text!r}")
    fn = getattr(programs, node.func.id, None)
    if not callable(fn) or node.func.id.startswith("_"):
        raise ValueError(f"no program {node.func.id!r} in backends/cuda/programs.py")
    return fn, tuple(_value(a) for a in node.args)


def _value(node):
    from ... import dtypes
    from ...ops.base import _op_lookup, _typed_lookup
    from ...ops.swapped import SwappedBinaryOp, swap_semiring

    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Tuple):
        return tuple(_value(e) for e in node.elts)
    if isinstance(node, ast.Name):
        t = getattr(dtypes, node.id, None)
        if isinstance(t, dtypes.DataType):
            return t
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute):
        parent = _op_lookup(node.value.value.id, node.value.attr)
        return _typed_lookup(parent, getattr(dtypes, node.slice.id))
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "swapped":
        inner = _value(node.args[0])
        return swap_semiring(inner) if inner.opclass == "Semiring" else SwappedBinaryOp(inner)
    raise ValueError(f"cannot read {ast.unparse(node)!r} as a program argument")


# -- recording -------------------------------------------------------------------------------

_record = {"path": os.environ.get("GRAPHBLAST_RECORD_KEYS") or None, "seen": set()}


def recording():
    return _record["path"] is not None


def record(program, args):
    """Append ``program(*args)`` to the record (once per process and key)."""
    line = spec(program, args)
    if line is None:
        line = f"# unnamed: {getattr(program, '__name__', program)}{args!r}"
    with _lock:
        if line in _record["seen"]:
            return
        _record["seen"].add(line)
        with open(_record["path"], "a", encoding="utf-8") as f:
            f.write(line + "\n")


def note_compile(what):
    """Append a run-time compilation and the graphblast lines that caused it to the
    record's ``.compiles`` file."""
    import traceback

    frames = [f"{os.path.relpath(fr.filename, os.path.dirname(FOLDER))}:{fr.lineno} "
              f"{fr.name}" for fr in traceback.extract_stack()[:-2]
              if "graphblast" in fr.filename and "catalogue.py" not in fr.filename]
    with _lock:
        with open(_record["path"] + ".compiles", "a", encoding="utf-8") as f:
            f.write(f"{what}\n    " + "\n    ".join(frames[-6:]) + "\n")


def install_cupy_hook():
    """While recording: note every kernel CuPy compiles (its own element-wise and reduction
    kernels included), through the function CuPy's compiler calls on a cache miss."""
    if not recording() or _record.get("hooked"):
        return
    _record["hooked"] = True
    from cupy.cuda import compiler

    for name in ("_compile_using_nvrtc_no_warning", "compile_using_nvrtc"):
        original = getattr(compiler, name, None)
        if original is not None:
            break
    else:
        return

    def hooked(source, *args, **kwargs):
        import re

        names = re.findall(r"__global__\s+void\s+(\w+)", source)[:3]
        exprs = kwargs.get("name_expressions") or (args[3] if len(args) > 3 else None)
        note_compile(f"compiled: {', '.join(exprs or names) or '?'}")
        return original(source, *args, **kwargs)

    setattr(compiler, name, hooked)


if recording():  # note CuPy's compilations from the start where CuPy is there
    try:
        install_cupy_hook()
    except ImportError:
        pass


def _main(argv):
    """``python -m graphblast.backends.cuda.catalogue RECORD MODULE [ARGS...]``: run a
    module (``graphblast.cli``, ``graphblast.demo``, ``pytest``) as ``python -m`` would, with
    every problem key it asks for and every run-time compilation recorded into RECORD."""
    import runpy
    import sys

    if len(argv) < 2:
        print(_main.__doc__, file=sys.stderr)
        return 2
    from graphblast.backends.cuda import catalogue  # this module as jit imports it

    catalogue._record["path"] = os.path.abspath(argv[0])
    try:
        catalogue.install_cupy_hook()
    except ImportError:  # no CuPy: only the keys are recorded
        pass
    sys.argv = [argv[1], *argv[2:]]
    runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(_main(sys.argv[1:]))
