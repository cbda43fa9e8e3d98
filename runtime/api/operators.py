"""Python operators on tensors (``+ - * / // % ** @``, unary ``-``, comparisons, ``& | ^ ~``).

Each operator is one `run_op` call; Python scalars are turned into 0-D arrays of the
tensor's dtype first (see `scalar_like`), so ``x * 2`` keeps ``x``'s dtype. As in Paddle,
``+ - * /`` between a floating tensor and a Python number are one ``scale`` op (no constant
tensor), which is also what real Paddle's static Programs contain for them. A 0-D operand of another
dtype is cast explicitly to the promoted dtype first (`_explicit_casts`), as in Paddle's Programs.
"""
from __future__ import annotations

import numpy as np

from ..dispatch import run_op
from ..dtype import from_numpy_dtype
from ..ops.promotion import category, operand_dtype
from ..tensor import TensorMethods
from ._helpers import scalar_like


def _forward(op_type):
    def op(self, other):
        form = _scale_form(op_type, self, other, False)
        if form is not None:
            return run_op("scale", self, None, scale=form[0], bias=form[1], bias_after_scale=True)
        if not isinstance(other, TensorMethods):
            if other is None or not _numeric(other):
                return NotImplemented
            other = scalar_like(other, self)
        return run_op(op_type, *_explicit_casts(op_type, self, other))
    return op


def _reverse(op_type):
    def op(self, other):
        form = _scale_form(op_type, self, other, True)
        if form is not None:
            return run_op("scale", self, None, scale=form[0], bias=form[1], bias_after_scale=True)
        if not _numeric(other):
            return NotImplemented
        return run_op(op_type, *_explicit_casts(op_type, scalar_like(other, self), self))
    return op


def _numeric(v):
    return hasattr(v, "__float__") or hasattr(v, "__complex__") or hasattr(v, "__array__")


def _np_dtype(v):
    return v.dtype if isinstance(v, np.ndarray) else v.dtype.np


def _cast(v, d):
    if isinstance(v, np.ndarray):
        return v.astype(d)
    return run_op("cast", v, in_dtype=v.dtype.proto, out_dtype=from_numpy_dtype(d).proto)


def _explicit_casts(op_type, a, b):
    """Operands as Paddle's operator overloads pass them: a 0-D operand of another dtype (a
    "scalar tensor") and the operand it is promoted with are cast explicitly to their common
    dtype, and integer operands of ``/`` to float32, so programs hold the same cast ops as
    Paddle's. Two shaped tensors go to the op uncast; the op itself promotes them (or raises)."""
    da, db = _np_dtype(a), _np_dtype(b)
    if da == db and not (op_type == "elementwise_div" and category(da) == 1):
        return a, b
    na = a.ndim if isinstance(a, np.ndarray) else len(a.shape)
    nb = b.ndim if isinstance(b, np.ndarray) else len(b.shape)
    if da != db and na != 0 and nb != 0:
        return a, b
    d = operand_dtype(op_type, da, na, db, nb)
    if op_type == "elementwise_div" and category(d) == 1:
        d = np.dtype(np.float32)
    return (a if da == d else _cast(a, d)), (b if db == d else _cast(b, d))


def _is_scalar(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# (scale, bias) of ``x <op> c`` and of ``c <op> x`` as a scale op; None when it is not one
_SCALE_FORMS = {
    "elementwise_add": (lambda c: (1.0, c), lambda c: (1.0, c)),
    "elementwise_sub": (lambda c: (1.0, -c), lambda c: (-1.0, c)),
    "elementwise_mul": (lambda c: (c, 0.0), lambda c: (c, 0.0)),
    "elementwise_div": (lambda c: (1.0 / c, 0.0) if c != 0 else None, lambda c: None),
}


def _scale_form(op_type, self, other, reverse):
    forms = _SCALE_FORMS.get(op_type)
    # complex tensors too: Paddle's static programs hold a scale op for ``z * 2.0`` as for floats
    if forms is None or not _is_scalar(other) or self.dtype.np.kind not in "fc":
        return None
    return forms[1 if reverse else 0](float(other))


_BINARY = {
    "add": "elementwise_add", "sub": "elementwise_sub", "mul": "elementwise_mul",
    "truediv": "elementwise_div", "floordiv": "elementwise_floordiv", "mod": "elementwise_mod",
    "pow": "elementwise_pow",
}
for _name, _op in _BINARY.items():
    setattr(TensorMethods, f"__{_name}__", _forward(_op))
    setattr(TensorMethods, f"__r{_name}__", _reverse(_op))


def _pow(self, other):
    if isinstance(other, (int, float)) and not isinstance(other, bool) and self.dtype.np.kind == "f":
        return run_op("pow", self, factor=float(other))
    return _forward("elementwise_pow")(self, other)


TensorMethods.__pow__ = _pow

_COMPARE = {"lt": "less_than", "le": "less_equal", "gt": "greater_than", "ge": "greater_equal",
            "eq": "equal", "ne": "not_equal"}
for _name, _op in _COMPARE.items():
    setattr(TensorMethods, f"__{_name}__", _forward(_op))
TensorMethods.__hash__ = lambda self: id(self)
# As in Paddle: numpy defers to the tensor's operators (np.float64(2.5) * x is x.__rmul__, a Tensor)
TensorMethods.__array_ufunc__ = None

_LOGICAL = {"and": "logical_and", "or": "logical_or", "xor": "logical_xor"}


def _bitwise(logical_op, bitwise_op):
    def op(self, other):
        if not isinstance(other, TensorMethods):
            other = scalar_like(other, self)
        return run_op(logical_op if self.dtype.np.kind == "b" else bitwise_op, self, other)
    return op


for _name, _op in _LOGICAL.items():
    setattr(TensorMethods, f"__{_name}__", _bitwise(_op, "bitwise_" + _name))
    setattr(TensorMethods, f"__r{_name}__", _bitwise(_op, "bitwise_" + _name))


def _invert(self):
    return run_op("logical_not" if self.dtype.np.kind == "b" else "bitwise_not", self)


def _neg(self):
    return run_op("scale", self, scale=-1.0, bias=0.0, bias_after_scale=True)


def _matmul(self, other):
    return run_op("matmul_v2", self, other)


def _rmatmul(self, other):
    return run_op("matmul_v2", other, self)


TensorMethods.__invert__ = _invert
TensorMethods.__neg__ = _neg
TensorMethods.__pos__ = lambda self: self
TensorMethods.__abs__ = lambda self: run_op("abs", self)
TensorMethods.__matmul__ = _matmul
TensorMethods.__rmatmul__ = _rmatmul
