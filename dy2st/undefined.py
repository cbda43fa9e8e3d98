"""`UndefinedVar`: the value of a name that is not defined on every path.

Converted code starts names that may be unbound as ``UndefinedVar("name")`` so that branch and
loop functions can carry them as state. Reading one as a value (an operator, an attribute, an
op input) raises an `UndefinedVariableError` (an UnboundLocalError, so a NameError, and the
TypeError Paddle raises) that names the variable and says why it is undefined, instead of a
confusing error deep inside the framework.

A name bound on only some paths through tensor-dependent control flow (assigned in one branch of a
tensor ``if``, or first assigned in the body of a tensor loop that may run zero times) becomes a
`MaybeUnbound`: its value (a placeholder of the right structure on the paths that do not bind it)
and a bool Variable saying whether it is bound. Converted code reads such names through
``_jst.read_maybe_unbound``, which stages a check that fails at run time, naming the variable and the
user's line, when the value is read on a path that did not bind it.
"""
from __future__ import annotations


class UndefinedVariableError(UnboundLocalError, TypeError):
    """A name read where it is not bound: Python's UnboundLocalError (a NameError), and the TypeError
    Paddle's converted code raises for it."""


class UndefinedVar:
    __slots__ = ("_name", "_why")

    def __init__(self, name, why=None):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_why", why)

    def _fail(self, *_, **__):
        name = object.__getattribute__(self, "_name")
        why = object.__getattribute__(self, "_why")
        if why:
            raise UndefinedVariableError(f"variable '{name}' is used but {why}")
        raise UndefinedVariableError(f"local variable '{name}' is referenced before assignment in converted code: "
                                     "it is not assigned on every path that reaches this use")

    def __getattr__(self, item):
        if item.startswith("__") and item.endswith("__"):
            raise AttributeError(item)
        self._fail()

    def __setattr__(self, key, value):
        self._fail()

    def __repr__(self):
        return f"UndefinedVar({object.__getattribute__(self, '_name')!r})"

    def __array__(self, *a, **k):
        self._fail()

    __bool__ = __len__ = __iter__ = __call__ = __getitem__ = __setitem__ = __int__ = __float__ = __index__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _fail
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __matmul__ = __rmatmul__ = _fail
    __neg__ = __pos__ = __abs__ = __invert__ = __lt__ = __le__ = __gt__ = __ge__ = _fail
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = _fail

    def __eq__(self, other):
        return other is self

    def __ne__(self, other):
        return other is not self

    def __hash__(self):
        return id(self)


class MaybeUnbound(UndefinedVar):
    """A name bound on some paths only: ``value`` (a structure of Variables, placeholders where it is not
    bound), ``flag`` (a bool Variable of shape [1], true where it is bound) and ``sites`` (the user's lines
    of the control flow that may leave it unbound). Used as a value without ``read_maybe_unbound`` it fails
    like an `UndefinedVar`."""
    __slots__ = ("value", "flag", "sites")

    def __init__(self, name, value, flag, sites):
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "flag", flag)
        object.__setattr__(self, "sites", tuple(sites))
        why = ("it is assigned only on some paths through the tensor-dependent control flow at "
               + ", ".join(self.sites) + ", and it was read where it is not known to be assigned")
        super().__init__(name, why)

    def __repr__(self):
        return f"MaybeUnbound({object.__getattribute__(self, '_name')!r})"


def is_maybe_unbound(v):
    return type(v) is MaybeUnbound


def is_undefined(v):
    return type(v) is UndefinedVar


def undefined_name(v):
    return object.__getattribute__(v, "_name")


def undefined_reason(v):
    """Why ``v`` is undefined (None for a name simply not bound yet on its path)."""
    return object.__getattribute__(v, "_why")
