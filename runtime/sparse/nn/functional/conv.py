"""paddle.sparse.nn.functional conv2d / conv3d / subm_conv2d / subm_conv3d (channel-last COO input).

A rulebook (``_rulebook``) pairs active input sites with output sites per kernel offset; the values
are then gathered into an im2col matrix [out_sites, K * Cin] and multiplied by the weight reshaped to
[K * Cin, Cout], so gradients reach the input values, the weight and the bias through dense ops.
"""
from __future__ import annotations

import numpy as np

from ....api import linalg as _linalg
from ....api import manipulation as _manip
from ....api import math as _m
from ... import _prims as P
from ...tensor import SparseCooTensor, _SparseBase, coalesce_coo
from . import _rulebook as R

__all__ = ["conv2d", "conv3d", "subm_conv2d", "subm_conv3d", "subm_conv2d_igemm", "subm_conv3d_igemm"]


def _conv(x, weight, bias, stride, padding, dilation, groups, subm, data_format, dims, op):
    fmt = "NDHWC" if dims == 3 else "NHWC"
    if groups != 1:
        raise ValueError(f"{op}: Currently, only support groups=1, got groups={groups}")
    if data_format != fmt:
        raise ValueError(f"Attr(data_format) should be '{fmt}'. Received Attr(data_format): {data_format}.")
    if len(x.shape) != dims + 2:
        raise ValueError(f"Input x should be {dims + 2}D tensor, but received x with the shape of {x.shape}")
    if not isinstance(x, SparseCooTensor):
        raise NotImplementedError(f"(Unimplemented) {op} takes a sparse COO tensor (x.to_sparse_coo({dims + 1})), "
                                  f"got {'CSR' if isinstance(x, _SparseBase) else 'a dense tensor'}")
    if x._sparse_dim != dims + 1:
        raise ValueError(f"{op}: x must be sparse in its batch and spatial dims (sparse_dim {dims + 1}) with "
                         f"channels as values, got sparse_dim {x._sparse_dim}")
    kernel = [int(k) for k in weight.shape[:dims]]
    cin, cout = int(weight.shape[dims]), int(weight.shape[dims + 1])
    if x.shape[-1] != cin:
        raise ValueError(f"{op}: x has {x.shape[-1]} channels but the weight [*kernel, in, out] expects {cin}")
    stride = R.as_list(stride, dims, "stride")
    dilation = R.as_list(dilation, dims, "dilation")
    padding = R.conv_padding(padding, dims)
    batch, in_dims = x.shape[0], x.shape[1:1 + dims]
    x = coalesce_coo(x)         # as Paddle: repeated sites are summed, and subm outputs come sorted
    if subm:
        in_rows, kids, out_rows = R.submanifold(x._indices, in_dims, kernel, dilation, batch)
        out_idx, odims = x._indices, list(in_dims)
        n_out = x._indices.shape[1]
    else:
        in_rows, kids, out_rows, out_idx, odims = R.regular(x._indices, in_dims, kernel, stride, padding,
                                                            dilation, batch)
        n_out = out_idx.shape[1]
    K = int(np.prod(kernel))
    gathered = P.take_rows(x._values, in_rows)
    cols = P.segment_sum(gathered, out_rows * K + kids, n_out * K)
    out_v = _linalg.matmul(_manip.reshape(cols, [n_out, K * cin]), _manip.reshape(weight, [K * cin, cout]))
    if bias is not None:
        out_v = _m.add(out_v, bias)
    shape = [batch] + odims + [cout]
    return SparseCooTensor(out_idx.astype(x._indices.dtype), out_v, shape, coalesced=True)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NDHWC", name=None):
    """Sparse 3-D convolution: output sites are every position an active input reaches (sorted)."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, False, data_format, 3, "conv3d")


def subm_conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NDHWC", key=None,
                name=None):
    """Submanifold sparse 3-D convolution: computed only at the input's active sites (kernel centred)."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, True, data_format, 3, "subm_conv3d")


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NHWC", name=None):
    """Sparse 2-D convolution: output sites are every position an active input reaches (sorted)."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, False, data_format, 2, "conv2d")


def subm_conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NHWC", key=None,
                name=None):
    """Submanifold sparse 2-D convolution: computed only at the input's active sites (kernel centred)."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, True, data_format, 2, "subm_conv2d")


def igemm_unavailable():
    return RuntimeError("(NotFound) The kernel `conv3d_implicit_gemm` is not registered: Paddle 3.3.1 has the "
                        "implicit-GEMM sparse conv on GPU only; use subm_conv3d / subm_conv2d (or backend=None), "
                        "which compute the same result on the CPU")


def subm_conv3d_igemm(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NDHWC",
                      key=None, name=None):
    """Paddle's implicit-GEMM kernel is GPU-only: raises on the CPU as Paddle does (use subm_conv3d)."""
    raise igemm_unavailable()


def subm_conv2d_igemm(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NHWC",
                      key=None, name=None):
    """Paddle's implicit-GEMM kernel is GPU-only: raises on the CPU as Paddle does (use subm_conv2d)."""
    raise igemm_unavailable()
