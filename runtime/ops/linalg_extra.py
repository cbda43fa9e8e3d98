"""Matrix ops with Paddle op types of their own: trace, mv, addmm and baddbmm, with their grads."""
from __future__ import annotations

import numpy as np

from .elementwise import unbroadcast
from .meta import broadcast_shapes, normalize_axis
from .registry import Meta, register, grad_op
from .special import check_dtype


# -- trace ---------------------------------------------------------------------------------------

def _trace_axes(ndim, axis1, axis2):
    if ndim < 2:
        raise ValueError(f"trace: the input must be at least 2-dimensional, got rank {ndim}")
    a1, a2 = normalize_axis(int(axis1), ndim, "axis1"), normalize_axis(int(axis2), ndim, "axis2")
    if a1 == a2:
        raise ValueError(f"trace: axis1 and axis2 cannot be the same axis, got axis1 = {axis1}, axis2 = {axis2}")
    return a1, a2


def _trace(x, offset=0, axis1=0, axis2=1, **_):
    check_dtype("trace", x, "fiu")
    a1, a2 = _trace_axes(x.ndim, axis1, axis2)
    return np.asarray(np.trace(x, int(offset), a1, a2, dtype=x.dtype))


def _trace_meta(x, offset=0, axis1=0, axis2=1, **_):
    check_dtype("trace", x, "fiu")
    a1, a2 = _trace_axes(len(x.shape), axis1, axis2)
    return Meta(tuple(d for i, d in enumerate(x.shape) if i not in (a1, a2)), x.dtype)


def _trace_grad(x, dout, offset=0, axis1=0, axis2=1, **_):
    a1, a2 = _trace_axes(x.ndim, axis1, axis2)
    g = np.zeros(x.shape, dout.dtype)
    view = np.moveaxis(g, (a1, a2), (-2, -1))     # a view: writes land in g
    n1, n2 = view.shape[-2], view.shape[-1]
    k = np.arange(max(0, min(n1 - max(0, -offset), n2 - max(0, offset))))
    rows, cols = k + max(0, -offset), k + max(0, offset)
    view[..., rows, cols] = dout[..., None]
    return g


register("trace", ["Input"], ["Out"], {"offset": ("INT", 0), "axis1": ("INT", 0), "axis2": ("INT", 1)},
         kernel=_trace, infer_meta=_trace_meta)
grad_op("trace", ["Input", "Out@GRAD"], ["Input@GRAD"], _trace_grad)


# -- mv ------------------------------------------------------------------------------------------

def _mv_check(x, vec):
    check_dtype("mv", x, "f")
    check_dtype("mv", vec, "f")
    if len(x.shape) != 2 or len(vec.shape) != 1:
        raise ValueError(f"mv: x must be 2-D and vec 1-D, got shapes {list(x.shape)} and {list(vec.shape)}")
    if x.shape[1] >= 0 and vec.shape[0] >= 0 and x.shape[1] != vec.shape[0]:
        raise ValueError(f"mv: x's columns ({x.shape[1]}) must equal vec's length ({vec.shape[0]})")


def _mv(x, vec, **_):
    _mv_check(x, vec)
    return (x @ vec.astype(x.dtype, copy=False)).astype(x.dtype, copy=False)


def _mv_grad(x, vec, dout, **_):
    return np.outer(dout, vec).astype(x.dtype, copy=False), (x.T @ dout).astype(vec.dtype, copy=False)


register("mv", ["X", "Vec"], ["Out"], {}, kernel=_mv,
         infer_meta=lambda x, v, **_: (_mv_check(x, v), Meta((x.shape[0],), x.dtype))[1])
grad_op("mv", ["X", "Vec", "Out@GRAD"], ["X@GRAD", "Vec@GRAD"], _mv_grad)


# -- addmm / baddbmm: Beta * Input + Alpha * (X @ Y) ---------------------------------------------

def _mm_meta(op, rank):
    def meta(inp, x, y, **_):
        for v in (inp, x, y):
            check_dtype(op, v, "f")
        if len({np.dtype(inp.dtype), np.dtype(x.dtype), np.dtype(y.dtype)}) > 1:
            raise ValueError(f"{op}: input, x and y must have one dtype, got {np.dtype(inp.dtype).name}, "
                             f"{np.dtype(x.dtype).name} and {np.dtype(y.dtype).name} (cast them first)")
        if len(x.shape) != rank or len(y.shape) != rank:
            raise ValueError(f"{op}: x and y must be {rank}-D, got shapes {list(x.shape)} and {list(y.shape)}")
        out = tuple(x.shape[:-1]) + (y.shape[-1],)
        ishape = tuple(inp.shape)
        if rank == 3 and len(ishape) == 2:
            ishape = (ishape[0], 1, ishape[1])
        return Meta(broadcast_shapes(out, ishape), x.dtype)
    return meta


def _mm_kernel(op, rank):
    meta = _mm_meta(op, rank)

    def kernel(inp, x, y, Beta=1.0, Alpha=1.0, **_):
        if op == "baddbmm" and inp.ndim == 2:
            inp = inp[:, None, :]          # a 2-D input is [batch, columns], the same for every row
        m = meta(Meta.of(inp), Meta.of(x), Meta.of(y))
        # Alpha and Beta are float attributes: Paddle's kernel scales by their float32 values
        Beta, Alpha = float(np.float32(Beta)), float(np.float32(Alpha))
        prod = np.matmul(x, y.astype(x.dtype, copy=False))
        out = Beta * inp.astype(x.dtype, copy=False) + Alpha * prod
        return np.ascontiguousarray(np.broadcast_to(out, m.shape)).astype(x.dtype, copy=False)
    kernel.__name__ = "_" + op
    return kernel


def _mm_grad(inp, x, y, dout, Beta=1.0, Alpha=1.0, **_):
    swap = lambda a: np.swapaxes(a, -1, -2)  # noqa: E731
    Beta, Alpha = float(np.float32(Beta)), float(np.float32(Alpha))
    if x.ndim == 3 and inp.ndim == 2:
        g_in = Beta * dout.sum(axis=1)
        g_in = unbroadcast(g_in, inp.shape).astype(inp.dtype, copy=False)
        return g_in, (Alpha * np.matmul(dout, swap(y))).astype(x.dtype, copy=False), \
            (Alpha * np.matmul(swap(x), dout)).astype(y.dtype, copy=False)
    g_in = unbroadcast(Beta * dout, inp.shape).astype(inp.dtype, copy=False)
    g_x = (Alpha * np.matmul(dout, swap(y))).astype(x.dtype, copy=False)
    g_y = (Alpha * np.matmul(swap(x), dout)).astype(y.dtype, copy=False)
    return g_in, g_x, g_y


for _op, _rank in (("addmm", 2), ("baddbmm", 3)):
    register(_op, ["Input", "X", "Y"], ["Out"], {"Beta": ("FLOAT", 1.0), "Alpha": ("FLOAT", 1.0)},
             kernel=_mm_kernel(_op, _rank), infer_meta=_mm_meta(_op, _rank))
    grad_op(_op, ["Input", "X", "Y", "Out@GRAD"], ["Input@GRAD", "X@GRAD", "Y@GRAD"], _mm_grad)
