"""graphblast's compiled parts: the Matrix Market reader's fast path and the CPU backend's
sorted-row intersection (the masked product of triangle counting).

Everything else is in pyproject.toml.  Both extensions are optional: without a C compiler the
install still succeeds, ``graphblast.io.mmread`` uses its NumPy parser alone and the CPU
masked product its NumPy searches (slower, same results and errors).
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
    ]
)
