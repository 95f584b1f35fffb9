"""graphblast's compiled parts: the Matrix Market reader's fast path, the CPU backend's
sorted-row intersection (the masked product of triangle counting), the GPU backend's
kernel launcher, and the GPU kernel catalogue.

Everything else is in pyproject.toml.  The extensions are optional: without a C compiler the
install still succeeds, ``graphblast.io.mmread`` uses its NumPy parser alone, the CPU masked
product its NumPy searches and GPU launches CuPy's own (slower, same results and errors).

The kernel catalogue (``backends/cuda/catalogue_build.py``) is compiled with NVRTC (the
``nvidia-cuda-nvrtc`` wheel of the build requirements, or a CUDA toolkit) after the
extensions, into the package (the source tree for an in-place or editable build, the build
folder for a wheel).  Without NVRTC the build goes on with a warning: the kernels then
compile on their first use.  ``GRAPHBLAST_BUILD_CATALOGUE=0`` skips it.
"""

import os
import sys
import warnings

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class BuildExtAndCatalogue(build_ext):
    """The C extensions, then the kernel catalogue."""

    def run(self):
        super().run()
        if os.environ.get("GRAPHBLAST_BUILD_CATALOGUE", "1") == "0":
            return
        here = os.path.dirname(os.path.abspath(__file__))
        if self.inplace or getattr(self, "editable_mode", False):
            out = os.path.join(here, "src", "graphblast", "backends", "cuda", "catalogue")
        else:
            out = os.path.join(os.path.abspath(self.build_lib), "graphblast", "backends",
                               "cuda", "catalogue")
        sys.path.insert(0, os.path.join(here, "src"))
        try:
            from graphblast.backends.cuda import catalogue_build

            result = catalogue_build.build(out, log=lambda line: print(line, flush=True))
        except Exception as e:  # noqa: BLE001 - the package works without it
            result = {"built": False, "reason": f"{type(e).__name__}: {e}"}
        finally:
            sys.path.pop(0)
        if not result["built"]:
            warnings.warn("graphblast: the GPU kernel catalogue was not built "
                          f"({result['reason']}); each GPU kernel will compile on its first "
                          "use (about 0.3 s each)", stacklevel=1)


setup(
    cmdclass={"build_ext": BuildExtAndCatalogue},
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
