"""Comparison, logical, bitwise and is-finite/nan/inf ops. All broadcast; none has a gradient.

Comparisons take Paddle's legacy ``axis`` (align a lower-rank Y at dimension ``axis``)
and give bool; ``logical_*`` treat any nonzero value as True; ``bitwise_*`` accept
integer and bool tensors only.
"""
from __future__ import annotations

import numpy as np

from .elementwise import align
from .meta import broadcast_shapes, compare_meta, same_as_x
from .promotion import operand_dtype, promote_arrays
from .registry import Meta, register

_CMP_ATTRS = {"axis": ("INT", -1), "force_cpu": ("BOOLEAN", False)}


def _compare_meta(op_type):
    def meta(x, y, axis=-1, **attrs):
        operand_dtype(op_type, x.dtype, len(x.shape), y.dtype, len(y.shape))  # TypeError like Paddle
        return compare_meta(x, y, axis, **attrs)
    return meta


def _compare(fn, op_type):
    def kernel(x, y, axis=-1, **_):
        if x.dtype != y.dtype:
            x, y = promote_arrays(op_type, x, y)
        if axis != -1:
            x, y = align(x, y, axis)
        return np.asarray(fn(x, y))
    return kernel


for _name, _fn in (("less_than", np.less), ("less_equal", np.less_equal),
                   ("greater_than", np.greater), ("greater_equal", np.greater_equal),
                   ("equal", np.equal), ("not_equal", np.not_equal)):
    register(_name, ["X", "Y"], ["Out"], _CMP_ATTRS, kernel=_compare(_fn, _name),
             infer_meta=_compare_meta(_name), differentiable=())


def _logical(fn):
    def kernel(x, y, **_):
        return np.asarray(fn(x, y))
    return kernel


for _name, _fn in (("logical_and", np.logical_and), ("logical_or", np.logical_or),
                   ("logical_xor", np.logical_xor)):
    register(_name, ["X", "Y"], ["Out"], {}, kernel=_logical(_fn), infer_meta=compare_meta, differentiable=())

register("logical_not", ["X"], ["Out"], {}, kernel=lambda x, **_: np.asarray(np.logical_not(x)),
         infer_meta=lambda x, **_: Meta(tuple(x.shape), np.dtype(np.bool_)), differentiable=())


def _float_check(fn, want_for_int):
    def kernel(x, **_):
        if x.dtype.kind in "fc":
            return np.asarray(fn(x))
        return np.full(x.shape, want_for_int, dtype=np.bool_)
    return kernel


for _name, _fn, _int in (("isfinite_v2", np.isfinite, True), ("isnan_v2", np.isnan, False),
                         ("isinf_v2", np.isinf, False)):
    register(_name, ["X"], ["Out"], {}, kernel=_float_check(_fn, _int),
             infer_meta=lambda x, **_: Meta(tuple(x.shape), np.dtype(np.bool_)), differentiable=())


def _check_int(op, *arrays):
    for a in arrays:
        if a.dtype.kind not in "iub":
            raise TypeError(f"{op} supports integer and bool tensors only, got {a.dtype}")


def _bitwise(fn, name):
    def kernel(x, y, **_):
        _check_int(name, x, y)
        return np.asarray(fn(x, y))
    return kernel


def _bitwise_meta(x, y, **_):
    return Meta(broadcast_shapes(x.shape, y.shape), np.result_type(x.dtype, y.dtype))


for _name, _fn in (("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                   ("bitwise_xor", np.bitwise_xor)):
    register(_name, ["X", "Y"], ["Out"], {}, kernel=_bitwise(_fn, _name), infer_meta=_bitwise_meta,
             differentiable=())


def _bitwise_not(x, **_):
    _check_int("bitwise_not", x)
    return np.asarray(np.invert(x))


register("bitwise_not", ["X"], ["Out"], {}, kernel=_bitwise_not, infer_meta=same_as_x, differentiable=())
