"""``graphblas`` as a name for graphblast, for running python-graphblas's own tests.

This package re-exports graphblast; it implements nothing.  Importing it replaces itself in
``sys.modules`` by the ``graphblast`` module, and a finder answers every ``graphblas.X.Y``
import with the graphblast module (or module attribute) at the same path, so that
``graphblas.core.operator`` *is* ``graphblast.core.operator``.

The only modules it makes up are those of SuiteSparse:GraphBLAS's C library that
python-graphblas's tests import at module level (``graphblas.core.lib``, ``ffi``,
``descriptor``): graphblast has no C library, so they are modules that raise on every
attribute.  The tests that use them are listed in ``internals.txt``.
"""

import importlib
import importlib.abc
import importlib.util
import sys
import types

import graphblast

# python-graphblas's C-library modules, absent from graphblast by design (``from graphblas.core
# import lib`` asks for ``graphblast.core.lib``, so both spellings)
_ABSENT = {f"{top}.core.{name}" for top in ("graphblas", "graphblast")
           for name in ("lib", "ffi", "descriptor", "NULL")}


class _Absent(types.ModuleType):
    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise AttributeError(f"{self.__name__}.{attr}: SuiteSparse:GraphBLAS's C library, "
                             "which graphblast does not have")


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``graphblas.X.Y`` -> the object at ``graphblast.X.Y`` (a module)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in _ABSENT:
            return importlib.util.spec_from_loader(fullname, self)
        if not fullname.startswith("graphblas."):
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        name = spec.name
        if name in _ABSENT:
            return _Absent(name)
        parent_name, _, attr = name.rpartition(".")
        parent = sys.modules[parent_name]
        obj = getattr(parent, attr, None)
        if isinstance(obj, types.ModuleType):
            return obj
        real_parent = parent.__name__
        return importlib.import_module(f"{real_parent}.{attr}")

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _Alias())
sys.modules[__name__] = graphblast
