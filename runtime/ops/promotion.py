"""Result dtypes of binary elementwise ops and comparisons: Paddle 3.3.1's promotion rules.

The single place that decides which dtype two operands are computed in (kernels and
infer_meta of elementwise_* and the comparison ops call `operand_dtype`). Rules, as
measured on real Paddle 3.3.1 (tests/runtime/api/test_type_promotion.py holds the table):

* neither operand 0-D: equal dtypes stay; two floating dtypes, or any complex operand,
  promote (float32 x float64 -> float64); every other mix (float32 x int64, int32 x int64,
  bool x int32 ...) is a TypeError.
* exactly one operand 0-D ("scalar tensor"): within one category (bool < int < float <
  complex) the other tensor's dtype wins (float32 x 0-D float64 -> float32); a 0-D of a
  higher category takes over (int32 x 0-D float64 -> float64); with complex on one side
  only, the standard promotion (float64 x 0-D complex64 -> complex128).
* both 0-D, and floor-division with any 0-D operand: the standard promotion lattice
  (uint8 x int8 -> int16, int32 x int64 -> int64, int64 x float16 -> float16, float16 x
  bfloat16 -> float32).
* maximum/minimum ignore the 0-D rules (always the tensor rule).
"""
from __future__ import annotations

import numpy as np

_ORDER = {np.dtype(d): i for i, d in enumerate(
    (np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64,
     np.float16, np.float32, np.float64, np.complex64, np.complex128))}

# ops whose 0-D operands are not treated as scalars
_TENSOR_RULE_ONLY = frozenset({"elementwise_max", "elementwise_min", "elementwise_fmax", "elementwise_fmin"})
# ops whose 0-D operands always take the full promotion lattice
_LATTICE_WITH_0D = frozenset({"elementwise_floordiv"})

_MSG = ("(InvalidType) Type promotion only support calculations between floating-point numbers and "
        "between complex and real numbers. But got different data type x: {x}, y: {y}.")


def category(d) -> int:
    """0 bool, 1 integer, 2 floating, 3 complex."""
    k = np.dtype(d).kind
    return 0 if k == "b" else 1 if k in "iu" else 2 if k == "f" else 3


def promote_types(a, b) -> np.dtype:
    """The standard (lattice) promotion of two dtypes, Paddle's promoteTypes."""
    a, b = np.dtype(a), np.dtype(b)
    if a == b:
        return a
    ca, cb = category(a), category(b)
    if ca == 3 or cb == 3:
        wide = np.dtype(np.complex128) in (a, b) or np.dtype(np.float64) in (a, b)
        return np.dtype(np.complex128 if wide else np.complex64)
    if ca != cb:
        return a if ca > cb else b
    if ca == 1 and {a.kind, b.kind} == {"u", "i"}:
        signed = a if a.kind == "i" else b
        return np.dtype(np.int16) if signed == np.int8 else signed
    return a if _ORDER[a] > _ORDER[b] else b


def _name(d):
    return np.dtype(d).name


def operand_dtype(op_type, x_dtype, x_ndim, y_dtype, y_ndim) -> np.dtype:
    """The dtype both operands are computed in; raises TypeError where Paddle refuses the mix."""
    xd, yd = np.dtype(x_dtype), np.dtype(y_dtype)
    if xd == yd:
        return xd
    x0, y0 = x_ndim == 0, y_ndim == 0
    if op_type in _TENSOR_RULE_ONLY:
        x0 = y0 = False
    elif op_type in _LATTICE_WITH_0D and (x0 or y0):
        x0 = y0 = True
    cx, cy = category(xd), category(yd)
    if x0 and y0:
        return promote_types(xd, yd)
    if x0 or y0:
        t, s = (yd, xd) if x0 else (xd, yd)     # t: the shaped tensor, s: the 0-D one
        ct, cs = category(t), category(s)
        if ct == cs:
            return t
        if ct == 3 or cs == 3:
            return promote_types(t, s)
        return s if cs > ct else t
    if (cx == 2 and cy == 2) or cx == 3 or cy == 3:
        return promote_types(xd, yd)
    raise TypeError(f"{op_type}: " + _MSG.format(x=_name(xd), y=_name(yd)))


def result_dtype(op_type, x_dtype, x_ndim, y_dtype, y_ndim) -> np.dtype:
    """The output dtype of ``op_type`` (comparisons give bool; integer true division float32)."""
    d = operand_dtype(op_type, x_dtype, x_ndim, y_dtype, y_ndim)
    if op_type == "elementwise_div" and category(d) == 1:
        return np.dtype(np.float32)
    return d


def promote_arrays(op_type, x, y):
    """``x`` and ``y`` cast to their common operand dtype (as they are when they agree)."""
    if x.dtype == y.dtype:
        return x, y
    d = operand_dtype(op_type, x.dtype, x.ndim, y.dtype, y.ndim)
    return x.astype(d, copy=False), y.astype(d, copy=False)
