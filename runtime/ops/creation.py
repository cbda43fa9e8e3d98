"""Creation ops: fill_constant, fill_any_like, assign, assign_value, range, linspace, eye,
tril_triu and diag_v2.

``dtype`` attributes are VarType numbers (5 = float32, 3 = int64, ...). A shape may come
from the ``shape`` attribute, a 1-D ``ShapeTensor`` or a ``ShapeTensorList`` of 1-element
tensors (static programs whose shape is only known at run time); the tensors win.
"""
from __future__ import annotations

import math

import numpy as np

from ..dtype import from_proto
from .registry import Meta, register, grad_op


def np_dtype(code) -> np.dtype:
    return from_proto(int(code)).np


def resolve_shape(shape_tensor, shape_list, shape, op="fill_constant"):
    """The run-time shape: ShapeTensor, else ShapeTensorList, else the ``shape`` attribute."""
    if shape_tensor is not None:
        dims = [int(v) for v in np.asarray(shape_tensor).reshape(-1)]
    elif shape_list:
        dims = [int(np.asarray(v).reshape(-1)[0]) for v in shape_list]
    else:
        dims = [int(v) for v in shape]
    if any(d < 0 for d in dims):
        raise ValueError(f"{op}: shape {dims} has a negative dimension; every dimension must be >= 0")
    return tuple(dims)


def shape_meta(shape_tensor, shape_list, shape):
    """The shape infer_meta can know: the attribute where it agrees with the tensors' rank."""
    shape = tuple(int(v) for v in shape)
    if shape_tensor is not None:
        n = shape_tensor.shape[0] if len(shape_tensor.shape) == 1 else -1
        if n == -1:
            return shape
        return shape if len(shape) == n else (-1,) * n
    if shape_list:
        return shape if len(shape) == len(shape_list) else (-1,) * len(shape_list)
    return shape


def parse_str_value(text, npd):
    """Paddle's ``str_value``: the fill value as text (keeps int64 precision)."""
    t = text.strip()
    if npd.kind == "b":
        if t.lower() in ("true", "false"):
            return t.lower() == "true"
        return float(t) != 0
    if npd.kind in "iu":
        try:
            return int(t)
        except ValueError:
            return int(float(t))
    if npd.kind == "c":
        return complex(t)
    return float(t)


# -- fill_constant -------------------------------------------------------------------------------

def _fill_constant(value_tensor, shape_tensor, shape_list, dtype=5, shape=[], value=0.0, str_value="", **_):
    npd = np_dtype(dtype)
    dims = resolve_shape(shape_tensor, shape_list, shape)
    if value_tensor is not None:
        v = np.asarray(value_tensor).reshape(-1)[0]
    elif str_value:
        v = parse_str_value(str_value, npd)
    else:
        v = value
    return np.full(dims, v, dtype=npd)


def _fill_constant_meta(value_tensor, shape_tensor, shape_list, dtype=5, shape=[], **_):
    return Meta(shape_meta(shape_tensor, shape_list, shape), np_dtype(dtype))


register("fill_constant", ["ValueTensor?", "ShapeTensor?", "ShapeTensorList[]?"], ["Out"],
         {"dtype": ("INT", 5), "shape": ("LONGS", []), "value": ("FLOAT", 0.0), "str_value": ("STRING", ""),
          "force_cpu": ("BOOLEAN", False), "place_type": ("INT", -1)},
         kernel=_fill_constant, infer_meta=_fill_constant_meta, differentiable=())


# -- fill_any_like -------------------------------------------------------------------------------

def _fill_any_like(x, value=0.0, dtype=-1, **_):
    npd = x.dtype if int(dtype) == -1 else np_dtype(dtype)
    return np.full(x.shape, value, dtype=npd)


register("fill_any_like", ["X"], ["Out"], {"value": ("FLOAT", 0.0), "dtype": ("INT", -1)},
         kernel=_fill_any_like, differentiable=(),
         infer_meta=lambda x, value=0.0, dtype=-1, **_: Meta(tuple(x.shape),
                                                             x.dtype if int(dtype) == -1 else np_dtype(dtype)))


# -- assign / assign_value -----------------------------------------------------------------------

def _assign(x, **_):
    if x is None:
        raise ValueError("assign: input X is missing")
    if isinstance(x, list):     # a tensor array (Paddle's assign copies a LoDTensorArray too)
        return list(x)
    return np.array(x, copy=True)


def _assign_grad(ctx, dout):
    from ..dispatch import run_op
    return [run_op("assign", dout)]


register("assign", ["X?"], ["Out"], {}, kernel=_assign, grad=_assign_grad,
         infer_meta=lambda x, **_: Meta(tuple(x.shape), x.dtype))


def _assign_value(values_tensor, shape=[], dtype=5, values=[], **_):
    if values_tensor is not None:
        return np.array(values_tensor, copy=True)
    npd = np_dtype(dtype)
    dims = tuple(int(d) for d in shape)
    arr = np.array(list(values), dtype=npd)
    n = math.prod(dims)
    if arr.size != n:
        raise ValueError(f"assign_value: shape {list(dims)} needs {n} values, got {arr.size}")
    return arr.reshape(dims)


register("assign_value", ["ValuesTensor?"], ["Out"],
         {"shape": ("INTS", []), "dtype": ("INT", 5), "values": ("SCALARS", [])},
         kernel=_assign_value, differentiable=(),
         infer_meta=lambda v, shape=[], dtype=5, **_: Meta(tuple(shape), np_dtype(dtype)))


# -- range / linspace / eye ----------------------------------------------------------------------

def _scalar(a, name, op):
    a = np.asarray(a)
    if a.size != 1:
        raise ValueError(f"{op}: {name} must hold exactly one value, got shape {list(a.shape)}")
    return a.reshape(-1)[0]


def _range(start, end, step, **_):
    dt = np.asarray(start).dtype
    s, e, st = (_scalar(a, n, "range").astype(dt) for a, n in ((start, "Start"), (end, "End"), (step, "Step")))
    if st == 0:
        raise ValueError("range: step must not be 0")
    if dt.kind in "iu":
        # exact integer arithmetic: numpy's arange computes the length through float64, which rounds
        # bounds past 2**53 (arange(0, -9007199254740994, -9007199254740993) would give one value)
        s, e, st = int(s), int(e), int(st)
        n = max(0, -((s - e) // st))
        with np.errstate(over="ignore"):    # s + i*step wraps only in intermediates; results are in range
            return (np.arange(n, dtype=dt) * dt.type(st) + dt.type(s)).astype(dt)
    # the length is computed in the output dtype, like Paddle
    with np.errstate(over="ignore", invalid="ignore"):
        n = np.ceil((e - s) / st)
    n = int(n) if np.isfinite(n) and n > 0 else 0   # a step pointing away from end gives nothing, as in Paddle
    if n == 0:
        return np.zeros((0,), dtype=dt)
    # Paddle accumulates ``value += step`` in the output dtype; match it bit for bit
    seq = np.full(n, st, dtype=dt)
    seq[0] = s
    return np.add.accumulate(seq, dtype=dt)


register("range", ["Start", "End", "Step"], ["Out"], {}, kernel=_range, differentiable=(),
         infer_meta=lambda s, e, st, **_: Meta((-1,), np.dtype(s.dtype)))


def _linspace(start, stop, num, dtype=5, **_):
    npd = np_dtype(dtype)
    n = int(_scalar(num, "Num", "linspace"))
    if n <= 0:
        raise ValueError(f"linspace: num must be positive, got {n}")
    # Start/Stop take the output dtype first (so integer outputs truncate them, as in Paddle);
    # float outputs are computed in their own precision, integers in float64.
    work = npd if npd.kind in "fc" else np.dtype(np.float64)
    s = _scalar(start, "Start", "linspace").astype(npd).astype(work)
    e = _scalar(stop, "Stop", "linspace").astype(npd).astype(work)
    if n == 1:
        return np.asarray([s]).astype(npd)
    step = (e - s) / work.type(n - 1)
    i = np.arange(n)
    # the first half counts up from start, the second half down from stop (exact endpoints)
    out = np.where(i < n // 2, s + step * i.astype(work), e - step * (n - 1 - i).astype(work))
    return out.astype(npd)


register("linspace", ["Start", "Stop", "Num"], ["Out"], {"dtype": ("INT", 5)}, kernel=_linspace,
         differentiable=(), infer_meta=lambda s, e, n, dtype=5, **_: Meta((-1,), np_dtype(dtype)))


def _eye(num_rows=0, num_columns=-1, dtype=5, **_):
    rows = int(num_rows)
    cols = rows if int(num_columns) == -1 else int(num_columns)
    if rows < 0 or cols < 0:
        raise ValueError(f"eye: num_rows and num_columns must be >= 0, got {rows} and {cols}")
    return np.eye(rows, cols, dtype=np_dtype(dtype))


def _eye_meta(num_rows=0, num_columns=-1, dtype=5, **_):
    rows = int(num_rows)
    cols = rows if int(num_columns) == -1 else int(num_columns)
    return Meta((rows, cols), np_dtype(dtype))


register("eye", [], ["Out"], {"num_rows": ("LONG", 0), "num_columns": ("LONG", -1), "dtype": ("INT", 5)},
         kernel=_eye, infer_meta=_eye_meta)


# -- tril_triu -----------------------------------------------------------------------------------

def _tril_triu(x, diagonal=0, lower=False, **_):
    if x.ndim < 2:
        raise ValueError(f"tril/triu: the input must have at least 2 dimensions, got shape {list(x.shape)}")
    return np.tril(x, diagonal) if lower else np.triu(x, diagonal)


register("tril_triu", ["X"], ["Out"], {"diagonal": ("INT", 0), "lower": ("BOOLEAN", False)},
         kernel=_tril_triu, infer_meta=lambda x, **_: Meta(tuple(x.shape), x.dtype))
grad_op("tril_triu", ["Out@GRAD"], ["X@GRAD"],
        lambda dout, diagonal=0, lower=False, **_: _tril_triu(dout, diagonal, lower),
        infer_meta=lambda d, **_: Meta(tuple(d.shape), d.dtype))


# -- diag_v2 -------------------------------------------------------------------------------------

def _diag_indices(n_rows, n_cols, offset):
    if offset >= 0:
        k = max(min(n_rows, n_cols - offset), 0)
        i = np.arange(k)
        return i, i + offset
    k = max(min(n_rows + offset, n_cols), 0)
    i = np.arange(k)
    return i - offset, i


def _diag_v2(x, offset=0, padding_value=0.0, **_):
    offset = int(offset)
    if x.ndim <= 1:
        v = x.reshape(-1)
        n = v.size + abs(offset)
        out = np.full((n, n), padding_value, dtype=x.dtype)
        r, c = _diag_indices(n, n, offset)
        out[r, c] = v
        return out
    if x.ndim == 2:
        r, c = _diag_indices(x.shape[0], x.shape[1], offset)
        return x[r, c]
    raise ValueError(f"diag: the input must be 0-D, 1-D or 2-D, got shape {list(x.shape)}")


def _diag_v2_meta(x, offset=0, **_):
    offset = int(offset)
    if len(x.shape) <= 1:
        n = 1 if not x.shape else x.shape[0]
        m = -1 if n == -1 else n + abs(offset)
        return Meta((m, m), x.dtype)
    r, c = x.shape
    if r == -1 or c == -1:
        return Meta((-1,), x.dtype)
    return Meta((len(_diag_indices(r, c, offset)[0]),), x.dtype)


def _diag_v2_grad(x, dout, offset=0, **_):
    offset = int(offset)
    if x.ndim <= 1:
        n = dout.shape[0]
        r, c = _diag_indices(n, n, offset)
        return dout[r, c].reshape(x.shape).astype(x.dtype, copy=False)
    g = np.zeros_like(x)
    r, c = _diag_indices(x.shape[0], x.shape[1], offset)
    g[r, c] = dout
    return g


register("diag_v2", ["X"], ["Out"], {"offset": ("INT", 0), "padding_value": ("FLOAT", 0.0)},
         kernel=_diag_v2, infer_meta=_diag_v2_meta)
grad_op("diag_v2", ["X", "Out@GRAD"], ["X@GRAD"], _diag_v2_grad)
