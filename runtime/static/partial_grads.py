"""Grad kernels that compute only the gradients a compiled program reads.

The static backward leaves a grad op's ``X@GRAD`` slot empty when nothing needs that gradient
(``_Backward.prune``: the input is data, or stop_gradient); the generated code then binds that
output to ``_``. A grad kernel does not know this and computes every gradient anyway: for the
first ``matmul_v2`` / ``conv2d`` of a network (the input batch needs no gradient) that is a whole
GEMM (or a GEMM plus a col2im scatter) thrown away every training step, a third of the backward of
an MLP.

``partial_kernel(op_type, wanted, attrs)`` returns a kernel of the grad op's input arrays that
returns the same tuple as the full kernel, with ``None`` for the outputs not ``wanted``, or None
when there is no specialised version (the caller keeps the full kernel). Each specialised kernel
performs exactly the operations of the full kernel for the outputs it computes (same order, same
numpy calls), so the results are bit-identical (tests/runtime/static/test_partial_grads.py checks).
"""
from __future__ import annotations

import numpy as np

__all__ = ["partial_kernel"]


def _swap(a):
    return np.swapaxes(a, -1, -2)


def _matmul_grad_factory(wanted, attrs):
    from ..ops.math import unbroadcast
    want_x, want_y = wanted
    if want_x == want_y:
        return None
    trans_x = bool(attrs.get("trans_x", False))
    trans_y = bool(attrs.get("trans_y", False))

    def kernel(x, y, dout):
        # the operations of runtime.ops.math._matmul_grad, for one of the two gradients
        x2 = x[None, :] if x.ndim == 1 else x
        y2 = y[:, None] if y.ndim == 1 else y
        d = dout
        if y.ndim == 1:
            d = d[..., None]
        if x.ndim == 1:
            d = np.expand_dims(d, -2)
        tx = trans_x and x.ndim >= 2
        ty = trans_y and y.ndim >= 2
        a = _swap(x2) if tx else x2
        b = _swap(y2) if ty else y2
        if a.dtype.kind == "c" or b.dtype.kind == "c":
            a, b = np.conj(a), np.conj(b)
        if want_x:
            da = np.matmul(d, _swap(b))
            dx = _swap(da) if tx else da
            return unbroadcast(dx, x2.shape).reshape(x.shape).astype(x.dtype, copy=False), None
        db = np.matmul(_swap(a), d)
        dy = _swap(db) if ty else db
        return None, unbroadcast(dy, y2.shape).reshape(y.shape).astype(y.dtype, copy=False)
    return kernel


def _conv2d_grad_factory(wanted, attrs):
    want_x, want_w = wanted
    if want_x or not want_w:
        return None
    from ..ops import conv as _conv
    strides = attrs.get("strides", (1, 1))
    paddings = attrs.get("paddings", (0, 0))
    algorithm = attrs.get("padding_algorithm", "EXPLICIT")
    dilations = attrs.get("dilations", (1, 1))
    groups = attrs.get("groups", 1)
    data_format = attrs.get("data_format", "NCHW")

    def kernel(x, w, dout):
        # the Filter@GRAD half of runtime.ops.conv._conv2d_grad (no col2im for the input gradient)
        return _conv.conv2d_grads(x, w, dout, strides, paddings, algorithm, dilations, groups, data_format,
                                  want_x=False)
    return kernel


_FACTORIES = {
    "matmul_v2_grad": _matmul_grad_factory,
    "conv2d_grad": _conv2d_grad_factory,
    "depthwise_conv2d_grad": _conv2d_grad_factory,
}


def partial_kernel(op_type, wanted, attrs):
    """A kernel computing only the ``wanted`` outputs (flags per visible output slot) of grad op
    ``op_type`` with attributes ``attrs``, or None to keep the full kernel."""
    factory = _FACTORIES.get(op_type)
    if factory is None:
        return None
    return factory(tuple(bool(w) for w in wanted), attrs)
