"""Search: argmax, argmin, topk, argsort, sort, nonzero."""
from __future__ import annotations

import numbers

import numpy as np

from ..dtype import convert_dtype, int32, int64
from ..dispatch import run_op
from ..tensor import Tensor, tensor_method
from ..ops.meta import normalize_axis
from ._helpers import is_var
from .param_alias import param_alias

__all__ = ["argmax", "argmin", "topk", "argsort", "sort", "nonzero"]


def _int_axis(axis, x, op):
    if isinstance(axis, Tensor):
        axis = axis.item()
    if not isinstance(axis, (numbers.Integral, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"{op}: axis must be an int, got {axis!r}")
    ndim = len(x.shape)
    normalize_axis(int(axis), ndim, "axis")
    return int(axis)


def _arg(op_type, name, x, axis, keepdim, dtype):
    d = convert_dtype(dtype) if dtype is not None else int64
    if d not in (int32, int64):
        raise ValueError(f"{name}: dtype must be int32 or int64, got {d.name}")
    if axis is None:
        return run_op(op_type, x, axis=0, keepdims=bool(keepdim), flatten=True, dtype=d.proto)
    return run_op(op_type, x, axis=_int_axis(axis, x, name), keepdims=bool(keepdim), flatten=False,
                  dtype=d.proto)


@tensor_method
def argmax(x, axis=None, keepdim=False, dtype="int64", name=None):
    """Index of the maximum (over all elements when ``axis`` is None: a 0-D result)."""
    return _arg("arg_max", "argmax", x, axis, keepdim, dtype)


@tensor_method
def argmin(x, axis=None, keepdim=False, dtype="int64", name=None):
    return _arg("arg_min", "argmin", x, axis, keepdim, dtype)


@tensor_method
@param_alias(x="input", axis="dim")
def topk(x, k, axis=None, largest=True, sorted=True, name=None):
    """The ``k`` largest (or smallest) values along ``axis`` (default: last) and their int64 indices."""
    ax = -1 if axis is None else _int_axis(axis, x, "topk")
    if is_var(k) and not isinstance(k, Tensor):
        return run_op("top_k_v2", x, k, axis=ax, largest=bool(largest), sorted=bool(sorted))
    if isinstance(k, Tensor):
        k = k.item()
    if not isinstance(k, (numbers.Integral, np.integer)) or isinstance(k, bool):
        raise TypeError(f"topk: k must be an int or a 1-element integer tensor, got {k!r}")
    shape = list(x.shape)
    if shape:
        n = shape[normalize_axis(ax, len(shape))]
        if n != -1 and not 0 <= int(k) <= n:
            raise ValueError(f"topk: k={int(k)} is out of range for axis {ax} of size {n} (x has shape {shape})")
    return run_op("top_k_v2", x, None, k=int(k), axis=ax, largest=bool(largest), sorted=bool(sorted))


@tensor_method
def argsort(x, axis=-1, descending=False, stable=False, name=None):
    """Indices that sort ``x`` along ``axis``; ties keep their original order."""
    ax = _int_axis(axis, x, "argsort")
    return run_op("argsort", x, axis=ax, descending=bool(descending), stable=bool(stable))[1]


@tensor_method
def sort(x, axis=-1, descending=False, stable=False, name=None):
    """``x`` sorted along ``axis`` (differentiable: gradients go back to the original positions)."""
    ax = _int_axis(axis, x, "sort")
    return run_op("argsort", x, axis=ax, descending=bool(descending), stable=bool(stable))[0]


@tensor_method
@param_alias(x="input")
def nonzero(x, as_tuple=False):
    """Coordinates of the nonzero elements: an int64 ``[N, x.ndim]`` tensor, or one 1-D
    tensor per dimension when ``as_tuple``."""
    if len(x.shape) == 0:
        raise ValueError("nonzero: x must have at least 1 dimension, got a 0-D tensor")
    idx = run_op("where_index", x)
    if not as_tuple:
        return idx
    return tuple(run_op("slice", idx, None, None, None, None, axes=[1], starts=[i], ends=[i + 1],
                        decrease_axis=[1])
                 for i in range(len(x.shape)))
