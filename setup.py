"""graphblast's compiled parts: the Matrix Market reader's fast path, the CPU backend's
sorted-row intersection (the masked product of triangle counting) and the GPU backend's
kernel launcher.

Everything else is in pyproject.toml.  The extensions are optional: without a C compiler the
install still succeeds, ``graphblast.io.mmread`` uses its NumPy parser alone, the CPU masked
product its NumPy searches and GPU launches CuPy's own (slower, same results and errors).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "graphblast.io._mmfast",
            ["src/graphblast/io/_mmfast.c"],
            # -ffp-contract=off: no fused multiply-adds, whose single rounding would break
            # the exact-rounding arguments of the float conversion.
            extra_compile_args=["-O3", "-ffp-contract=off", "-pthread"],
            extra_link_args=["-pthread"],
            optional=True,
        ),
        Extension(
            "graphblast.backends.cpu._intersect",
            ["src/graphblast/backends/cpu/_intersect.c"],
            extra_compile_args=["-O3"],
            optional=True,
        ),
        # GPU kernel launches without CuPy's argument handling (the driver is loaded at run
        # time, so this builds without CUDA); without it, launches go through CuPy.
        Extension(
            "graphblast.backends.cuda._launch",
            ["src/graphblast/backends/cuda/_launch.c"],
            extra_compile_args=["-O2"],
            libraries=["dl"],
            optional=True,
        ),
    ]
)
