"""bilinear_tensor_product: out[b, o] = sum_ij x[b, i] W[o, i, j] y[b, j] + bias[0, o], with its grad."""
from __future__ import annotations

import numpy as np

from .registry import Meta, grad_op, register


def _check(x_shape, y_shape, w_shape, b_shape):
    if len(x_shape) != 2 or len(y_shape) != 2 or len(w_shape) != 3:
        raise ValueError(f"bilinear_tensor_product: X and Y must be 2-D and Weight 3-D, got shapes {list(x_shape)}, "
                         f"{list(y_shape)}, {list(w_shape)}")
    pairs = ((x_shape[0], y_shape[0], "X and Y batch sizes"),
             (x_shape[1], w_shape[1], "X.shape[1] and Weight.shape[1]"),
             (y_shape[1], w_shape[2], "Y.shape[1] and Weight.shape[2]"))
    for a, b, what in pairs:
        if a >= 0 and b >= 0 and a != b:
            raise ValueError(f"bilinear_tensor_product: {what} must match, got {a} and {b} (X {list(x_shape)}, "
                             f"Y {list(y_shape)}, Weight {list(w_shape)})")
    if b_shape is not None and (len(b_shape) != 2 or b_shape[0] not in (1, -1)
                                or (b_shape[1] >= 0 and w_shape[0] >= 0 and b_shape[1] != w_shape[0])):
        raise ValueError(f"bilinear_tensor_product: Bias must have shape [1, {w_shape[0]}], got {list(b_shape)}")


def _bilinear(x, y, w, b=None):
    _check(x.shape, y.shape, w.shape, None if b is None else b.shape)
    out = np.einsum("bi,oij,bj->bo", x, w, y, optimize=True)
    if b is not None:
        out = out + b
    return out.astype(x.dtype, copy=False)


def _bilinear_grad(x, y, w, b, dout):
    dx = np.einsum("bo,oij,bj->bi", dout, w, y, optimize=True).astype(x.dtype, copy=False)
    dy = np.einsum("bo,oij,bi->bj", dout, w, x, optimize=True).astype(y.dtype, copy=False)
    dw = np.einsum("bo,bi,bj->oij", dout, x, y, optimize=True).astype(w.dtype, copy=False)
    db = None if b is None else dout.sum(axis=0, keepdims=True).astype(b.dtype, copy=False)
    return dx, dy, dw, db


def _bilinear_meta(x, y, w, b=None, **_):
    _check(x.shape, y.shape, w.shape, None if b is None else b.shape)
    return Meta((x.shape[0] if x.shape[0] >= 0 else y.shape[0], w.shape[0]), x.dtype)


register("bilinear_tensor_product", ["X", "Y", "Weight", "Bias?"], ["Out"], {}, kernel=_bilinear,
         infer_meta=_bilinear_meta)
grad_op("bilinear_tensor_product", ["X", "Y", "Weight", "Bias?", "Out@GRAD"],
        ["X@GRAD", "Y@GRAD", "Weight@GRAD", "Bias@GRAD?"], _bilinear_grad)
