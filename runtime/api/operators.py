"""Python operators on tensors (``+ - * / // % ** @``, unary ``-``, comparisons, ``& | ^ ~``).

Each operator is one `run_op` call; Python scalars are turned into 0-D arrays of the
tensor's dtype first (see `scalar_like`), so ``x * 2`` keeps ``x``'s dtype. As in Paddle,
``+ - * /`` between a floating tensor and a Python number are one ``scale`` op (no constant
tensor), which is also what real Paddle's static Programs contain for them.
"""
from __future__ import annotations

from ..dispatch import run_op
from ..tensor import TensorMethods
from ._helpers import scalar_like


def _forward(op_type):
    def op(self, other):
        form = _scale_form(op_type, self, other, False)
        if form is not None:
            return run_op("scale", self, None, scale=form[0], bias=form[1], bias_after_scale=True)
        if not isinstance(other, TensorMethods):
            if other is None or not hasattr(other, "__float__") and not hasattr(other, "__array__"):
                return NotImplemented
            other = scalar_like(other, self)
        return run_op(op_type, self, other)
    return op


def _reverse(op_type):
    def op(self, other):
        form = _scale_form(op_type, self, other, True)
        if form is not None:
            return run_op("scale", self, None, scale=form[0], bias=form[1], bias_after_scale=True)
        if not hasattr(other, "__float__") and not hasattr(other, "__array__"):
            return NotImplemented
        return run_op(op_type, scalar_like(other, self), self)
    return op


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
    if forms is None or not _is_scalar(other) or self.dtype.np.kind != "f":
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
