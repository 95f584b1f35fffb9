"""What only an assignment writes to: ``C(...)`` (Updater), ``C(...)[I]`` and ``C[I](...)``
(Assigner)."""


class AssignTarget:
    """Something only to assign to (an Updater, an Assigner): it has no value, so no truth
    value and no ``==``, as in python-graphblas."""

    __slots__ = ()

    def __bool__(self):
        raise TypeError(f"__bool__ not defined for objects of type {type(self)}: an "
                        "assignment target has no value")

    def __eq__(self, other):
        raise TypeError(f"__eq__ not defined for objects of type {type(self)}: an "
                        "assignment target has no value")

    __hash__ = object.__hash__
