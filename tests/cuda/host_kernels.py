"""Kernels of the CUDA backend compiled by g++ and run on the host, kernels_on_host.h
standing in for the GPU (a block's threads as host threads, the blocks in a given order; a
cooperative launch's blocks all at once, with a working grid barrier): the shared part of the
tests that compare a kernel with a plain loop without a GPU."""

import ctypes
import os
import subprocess

import numpy as np

from graphblast.backends.cuda import jit

HERE = os.path.dirname(os.path.abspath(__file__))

_DRIVER = r"""
#include <type_traits>
#include <utility>
template <class P> P gbk_host_arg(void* a) {
    if constexpr (std::is_pointer<P>::value) return (P)a; else return *(P*)a;
}
template <class... P, std::size_t... I>
void gbk_host_call(void (*k)(P...), void** args, std::index_sequence<I...>) {
    k(gbk_host_arg<P>(args[I])...);
}
template <class... P>
void gbk_host_run(void (*k)(P...), unsigned grid, unsigned block, const unsigned* order,
                  void** args) {
    gbk_host_launch(grid, block, order, [=] {
        gbk_host_call(k, args, std::index_sequence_for<P...>{});
    });
}
template <class... P>
void gbk_host_run_cooperative(void (*k)(P...), unsigned grid, unsigned block,
                              const unsigned* order, void** args) {
    gbk_host_launch_cooperative(grid, block, order, [=] {
        gbk_host_call(k, args, std::index_sequence_for<P...>{});
    });
}
extern "C" int condition() { return gbk_host_condition; }
"""


class Arg:
    """A scalar kernel argument of an exact type, passed by address."""

    def __init__(self, value, dtype):
        self.array = np.array([value], dtype=dtype)


def build(folder, progs, kernels, cooperative=()):
    """Compile ``progs`` ({key: program}) into a library in ``folder``; ``kernels`` maps a
    name to the index of a program's kernel (every kernel of each program by its index when
    None).  Returns ``(library, {(key, name): entry point})``; programs in ``cooperative``
    launch every block at once."""
    calls, names = [], {}
    for key, program in progs.items():
        chosen = kernels or {k: k for k in range(len(program.kernels))}
        run = "gbk_host_run_cooperative" if key in cooperative else "gbk_host_run"
        for name, k in chosen.items():
            fn = f"run_{key}_{name}"
            names[(key, name)] = fn
            calls.append(f'extern "C" void {fn}(unsigned g, unsigned b, const unsigned* o, '
                         f'void** a) {{ {run}(&{program.kernels[k]}, g, b, o, a); }}')
    source = (f'#include "{os.path.join(HERE, "kernels_on_host.h")}"\n'
              + jit.translation_unit(list(progs.values())) + _DRIVER + "\n".join(calls) + "\n")
    path = folder / "kernels.cpp"
    path.write_text(source)
    lib = folder / "kernels.so"
    proc = subprocess.run(["g++", "-std=c++17", "-O1", "-w", "-fpermissive", "-pthread",
                           "-shared", "-fPIC", str(path), "-o", str(lib)],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-6000:]
    return ctypes.CDLL(str(lib)), names


def run(kernels, entry, grid, block, args, seed):
    """Launch ``entry`` (a key of :func:`build`'s names) on ``grid`` blocks of ``block``
    threads in a seeded random order; ``args`` are arrays, :class:`Arg` scalars or None."""
    lib, names = kernels
    order = np.random.default_rng(seed).permutation(grid).astype(np.uint32)
    ptrs = []
    for a in args:
        if a is None:
            ptrs.append(None)
        elif isinstance(a, Arg):
            ptrs.append(a.array.ctypes.data)
        else:
            assert a.flags.c_contiguous
            ptrs.append(a.ctypes.data)
    argv = (ctypes.c_void_p * len(ptrs))(*ptrs)
    getattr(lib, names[entry])(ctypes.c_uint(grid), ctypes.c_uint(block),
                               order.ctypes.data_as(ctypes.c_void_p), argv)
