"""The one compiled part of graphblast: the Matrix Market reader's fast path.

Everything else is in pyproject.toml.  The extension is optional: without a C compiler the
install still succeeds and ``graphblast.io.mmread`` uses its NumPy parser alone (slower, same
results and errors).
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
        )
    ]
)
