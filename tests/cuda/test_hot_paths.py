"""No CuPy function that CuPy compiles on first use is called on the CUDA backend's and the
generators' GPU paths, except where listed below with the reason (read without CuPy: CI).

CuPy compiles its element-wise, reduction, indexing and sorting helpers (``cp.concatenate``,
``cp.flatnonzero``, ``cp.arange``, ``cp.full``, ``cp.where``, ``cp.argsort``'s copy, ...) with
NVRTC on their first use in a process, about 0.3 s each: a user's first call would wait for
the compiler although graphblast's own kernels come from the catalogue.  The backend takes
such steps through ``backends/cuda/arrays.py`` (catalogue kernels, CUB's scan, Thrust's sort,
memcpy and memset) instead.  This test reads the modules' syntax: every call ``cp.NAME(...)``
(or ``cupy.NAME``) whose NAME is not in :data:`PRECOMPILED` must stand in a function listed in
:data:`KNOWN`, and every listed function must still hold one (the list stays true).

What it cannot see: operators and methods on CuPy arrays (``a + b``, ``a[index]``,
``a.astype(t)``), which look the same as NumPy's, and the generators' shared NumPy/CuPy code
(``xp.NAME``).  Those are caught at run time by ``test_catalogue.py``'s fresh processes, which
count the kernels compiled while the five algorithms and every generator run.
"""

import ast
import os

import graphblast

SRC = os.path.dirname(os.path.abspath(graphblast.__file__))

#: CuPy functions that compile nothing: allocation, memset, host transfers, types, devices.
#: ``cp.asarray`` copies host data or returns a device array as it is; with ``dtype=`` it may
#: cast (an element-wise kernel), so such a call counts as compiling.
PRECOMPILED = {"empty", "empty_like", "zeros", "zeros_like", "asarray", "asnumpy", "ndarray",
               "get_default_memory_pool", "get_default_pinned_memory_pool", "may_share_memory",
               "shares_memory", "dtype", "iinfo", "finfo", "result_type", "bool_", "int8",
               "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32",
               "float64", "intp"}

# The build tools run no kernel; the rest is the CUDA backend and the generators.
NOT_RUN = {"catalogue_build.py", "codegen.py", "nvrtc.py"}

#: (module, function) -> why a CuPy-compiled function may stay there.
KNOWN = {
    ("backends/cuda/bitmap.py", "_to_lists"):
        "a column-major batch bitmap read as lists (a multi-source traversal's result, off the "
        "five algorithms' paths), transposed by CuPy's strided copy",
    ("backends/cuda/jit.py", "_compile"):
        "cupy.RawModule is the run-time compile of a program the catalogue lacks",
    ("backends/cuda/backend.py", "searchsorted"):
        "the array module's searchsorted of other types or with a sorter (a Vector's element "
        "read, int64 indices, takes the catalogue's gbk_search_sorted)",
    ("backends/cuda/storage.py", "_out_of_range"): "error path: names a bad index",
    ("backends/cuda/storage.py", "coo_to_csr"): "error path: names a duplicate entry",
    ("backends/cuda/storage.py", "_indices"):
        "copies a strided view of the user's device indices (contiguous ones pass as they are)",
    ("backends/cuda/storage.py", "_values"):
        "copies a strided view of the user's device values (contiguous ones pass as they are)",
    ("backends/cuda/storage.py", "_matrix_from_device_csr"):
        "copies a strided view of the user's device CSR arrays (contiguous ones pass as they "
        "are)",
    ("backends/cuda/storage.py", "matrix_full"): "a dense matrix from a scalar",
    ("backends/cuda/extract.py", "extract_matrix"):
        "A[I, J] with a range or a short list of columns (a permutation or a large share of "
        "them, triangle counting's A[p, p], takes _extract_permuted_columns)",
    ("backends/cuda/extract.py", "_extract_distinct_columns"):
        "A[I, J] with a short list of distinct columns (as extract_matrix)",
    ("backends/cuda/extract.py", "assign_region"):
        "C[I, J] << B: python-graphblas's region assign, on no algorithm's path",
    ("backends/cuda/extract.py", "sort_vector"): "a vector's sort (ss.sort)",
    ("backends/cuda/mxm.py", "_mxm_cusparse"):
        "cuSPARSE's plus_times SpGEMM on floats (cupyx's sparse matrices compile their own "
        "kernels too)",
    ("backends/cuda/mxm.py", "mxm_direction"):
        "a masked mxm's direction where B is at hand (batched traversals)",
}


def _compiling_calls(path):
    """[(function, line, name)] of the calls ``cp.NAME(...)``/``cupy.NAME(...)`` in ``path``
    that CuPy compiles (NAME not in PRECOMPILED, or ``asarray`` with ``dtype=``)."""
    found, where = [], []

    class Visitor(ast.NodeVisitor):
        def visit_FunctionDef(self, node):
            where.append(node.name)
            self.generic_visit(node)
            where.pop()

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_Call(self, node):
            f = node.func
            if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                    and f.value.id in ("cp", "cupy")):
                casts = f.attr == "asarray" and any(k.arg == "dtype" for k in node.keywords)
                if f.attr not in PRECOMPILED or casts:
                    found.append((where[0] if where else "<module>", node.lineno, f.attr))
            self.generic_visit(node)

    with open(path, encoding="utf-8") as f:
        Visitor().visit(ast.parse(f.read(), path))
    return found


def _modules():
    for folder in ("backends/cuda", "generators"):
        for name in sorted(os.listdir(os.path.join(SRC, folder))):
            if name.endswith(".py") and name not in NOT_RUN:
                yield f"{folder}/{name}"


def test_no_cupy_compiled_function_outside_the_known_places():
    unexpected, used = [], set()
    for module in _modules():
        for function, line, name in _compiling_calls(os.path.join(SRC, module)):
            if (module, function) in KNOWN:
                used.add((module, function))
            else:
                unexpected.append(f"{module}:{line} {function}: cp.{name}")
    assert not unexpected, (
        "CuPy functions that CuPy compiles on first use (a first call would wait about 0.3 s "
        "each): take the step through backends/cuda/arrays.py (catalogue kernels, CUB, Thrust, "
        "memcpy) or list the function in KNOWN with the reason: " + "; ".join(unexpected))
    stale = sorted(set(KNOWN) - used)
    assert not stale, f"KNOWN lists functions that no longer call such a function: {stale}"


def test_the_check_sees_what_it_should(tmp_path):
    code = tmp_path / "m.py"
    code.write_text("import cupy as cp\n"
                    "def f(x):\n"
                    "    a = cp.empty(3)\n"
                    "    b = cp.asarray(x)\n"
                    "    c = cp.asarray(x, dtype=cp.int64)\n"
                    "    return cp.concatenate([a, b, c]), cp.cuda.Device(0)\n"
                    "y = cupy.flatnonzero(z)\n")
    assert _compiling_calls(str(code)) == [("f", 5, "asarray"), ("f", 6, "concatenate"),
                                           ("<module>", 7, "flatnonzero")]
