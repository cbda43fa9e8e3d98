"""Whole-batch im2col layouts for small-channel convolutions (LeNet-sized: few input channels, maps of
28x28 and below, batch > 1): the forward product and both gradients of conv2d (groups == 1, NCHW after
the caller's transposes), with one GEMM each over the whole batch.

Two column layouts, chosen by the output width (``batch_inner``):

- "batch inner", (C, kh, kw, oh, ow, N), for outputs at most 16 wide: the padded input is first
  transposed to ``xt`` (C, Hp, Wp, N); every (tap, output row) of the columns is then ONE contiguous
  run of ``ow * N`` values of ``xt`` (stride 1), and the input gradient is two passes of long adds
  (over the kernel rows into F (C, kw, Hp, ow, N), then over the kernel columns into ``xt``'s layout).
- "rows", (C, kh, kw, oh, N, ow), for wider outputs: copied in two stages through the "kw-expanded"
  input ``E[c, b, h, n, j] = xp[n, c, h, b*dw + j*sw]`` (runs of ``ow`` values, ``kh`` times fewer of
  them than a direct 6-D copy), from which every column row is one contiguous run of ``oh * N * ow``
  values (stride 1). Its gradient sums over the kernel rows with long adds, then over the columns
  with runs of ``ow``.

Measured (one BLAS thread, one process, rounds interleaved; time ratios to conv.py's paths): see
``wanted``, which uses each layout only where it paid. Batch-inner against rows on LeNet's conv2
(6 -> 16 channels, 10x10 outputs): forward 0.83, gradients 0.77-0.81, 8 -> 16 channels on 7x7 0.63,
but 1.2-1.5x on 28x28 outputs (the transposes of the input and the product are element gathers; the
rows layout's runs of 28 are long enough). The GEMMs are exact (no garbage columns); their sums run
in another order than the other paths', so results agree to float rounding, not bits.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

__all__ = ["wanted", "batch_inner", "columns", "forward", "grads"]

BATCH_INNER_MAX_OW = 16     # outputs at most this wide use the batch-inner layout


def wanted(n, c, kh, kw, oh, ow, groups, grad=False):
    """Whether these layouts are used: groups == 1, a filter larger than 1x1, outputs of at most 28x28,
    few input channels (at most 8 for the forward, 16 for the gradients), and where they measured faster
    than conv.py's paths (A/B, one BLAS thread, time ratios; LeNet's conv1 takes the rows layout, conv2
    the batch-inner one):

    - the gradients, in the batch-inner layout from batch 2 (LeNet's conv2 0.58-0.81; 1 to 16 input
      channels, 3x3 and 5x5 filters on 7x7 to 14x14 maps 0.50-0.96), in the rows layout from batch 8
      (LeNet's conv1 0.81-0.90 with the input gradient, 0.97-1.01 without; 28x28 maps with 1 to 16
      channels 0.56-1.02; at batch 2 the filter gradient alone took 1.2x);
    - the forward only in the batch-inner layout, from batch 4 and for filters of 16 taps or more (5x5:
      0.67-1.05, LeNet's conv2 0.68-0.76; 3x3 filters took 1.03-1.19x, the rows layout 1.0-1.2x).

    The choice does not depend on whether the input gradient is wanted, so the filter gradient has the
    same bits either way. Layers with more channels keep conv.py's paths, whose copies are a small part
    of their GEMMs' time."""
    if groups != 1 or kh * kw == 1 or oh * ow > 28 * 28 or c > (16 if grad else 8):
        return False
    if grad:
        return n >= (2 if batch_inner(ow) else 8)
    return n >= 4 and batch_inner(ow) and kh * kw >= 16


def batch_inner(ow):
    """Whether outputs ``ow`` wide take the batch-inner layout (else the rows layout)."""
    return ow <= BATCH_INNER_MAX_OW


def _scratch(key, shape, dtype):
    from .conv import scratch
    return scratch(key, shape, dtype)


def columns(xp, kh, kw, dil, strides, oh, ow, key="cols"):
    """The (C*kh*kw, oh*ow*N or oh*N*ow) column matrix of the padded NCHW ``xp`` in scratch memory, in
    the batch-inner layout when ``batch_inner(ow)``, else in the rows layout."""
    N, C, Hp, Wp = xp.shape
    (dh, dw), (sh, sw) = dil, strides
    if batch_inner(ow):
        xt = _scratch("cols_xt", (C, Hp, Wp, N), xp.dtype)
        np.copyto(xt, xp.transpose(1, 2, 3, 0))
        tc, th, tw, tn = xt.strides
        cols = _scratch(key, (C, kh, kw, oh, ow, N), xp.dtype)
        np.copyto(cols, as_strided(xt, cols.shape, (tc, th * dh, tw * dw, th * sh, tw * sw, tn), writeable=False))
        return cols.reshape(C * kh * kw, oh * ow * N)
    sn, sc, sh_, sw_ = xp.strides
    e = _scratch("cols_E", (C, kw, Hp, N, ow), xp.dtype)     # E[c, b, h, n, j] = xp[n, c, h, b*dw + j*sw]
    np.copyto(e, as_strided(xp, e.shape, (sc, sw_ * dw, sh_, sn, sw_ * sw), writeable=False))
    ec, eb, eh, _, _ = e.strides
    cols = _scratch(key, (C, kh, kw, oh, N * ow), xp.dtype)
    np.copyto(cols, as_strided(e, cols.shape, (ec, eh * dh, eb, eh * sh, e.itemsize), writeable=False))
    return cols.reshape(C * kh * kw, oh * N * ow)


def _to_nchw_view(a, M, N, oh, ow, inner):
    """The (M, N, oh, ow) view of a product or gradient laid out (M, oh, ow, N) or (M, oh, N, ow)."""
    if inner:
        return a.reshape(M, oh, ow, N).transpose(0, 3, 1, 2)
    return a.reshape(M, oh, N, ow).transpose(0, 2, 1, 3)


def forward(xp, w, dil, strides, oh, ow):
    """The convolution product: an (M, N, oh, ow) view of a scratch array in the columns' layout (the
    callers write their NCHW / NHWC output from it, as from conv.py's whole-batch GEMM)."""
    N = xp.shape[0]
    M = w.shape[0]
    cols = columns(xp, w.shape[2], w.shape[3], dil, strides, oh, ow)
    dtype = np.result_type(w.dtype, cols.dtype)
    prod = np.matmul(w.reshape(M, -1), cols, out=_scratch("gemm", (M, cols.shape[1]), dtype))
    return _to_nchw_view(prod, M, N, oh, ow, batch_inner(ow))


def grads(xp, w, dout, x_hw, pads, dil, strides, oh, ow, want_x):
    """(dx or None, dw) of conv2d from the padded input ``xp`` and NCHW ``dout``; dw is (M, C*kh*kw),
    dx an (N, C, H, W) view of a new array (the caller makes it contiguous)."""
    N, C, Hp, Wp = xp.shape
    M, _, kh, kw = w.shape
    K = C * kh * kw
    inner = batch_inner(ow)
    cols = columns(xp, kh, kw, dil, strides, oh, ow)
    d = _scratch("cols_dout", (M, N * oh * ow), dout.dtype)        # dout in the columns' layout
    np.copyto(_to_nchw_view(d, M, N, oh, ow, inner), dout.transpose(1, 0, 2, 3))
    dw = np.dot(cols, d.T).T        # (K, P) @ (P, M): 0.64-0.98x the time of d @ cols.T (LeNet's shapes)
    if not want_x:
        return None, dw
    dcols = np.dot(w.reshape(M, K).T, d, out=_scratch("dcols", (K, d.shape[1]), np.result_type(w.dtype, d.dtype)))
    (dh, dw_), (sh, sw) = dil, strides
    # sum over the kernel rows a into F (C, kw, Hp, ...): F[c, b, a*dh + i*sh] += dcols[c, a, b, i]
    rest = (ow, N) if inner else (N, ow)
    dcols = dcols.reshape((C, kh, kw, oh) + rest)
    f = _scratch("cols_F", (C, kw, Hp) + rest, dcols.dtype)
    f[...] = 0
    for a in range(kh):
        dst = f[:, :, a * dh:a * dh + sh * (oh - 1) + 1:sh]
        np.add(dst, dcols[:, a], out=dst)
    # sum over the kernel columns b into the padded input gradient, channels first (a new array: the
    # caller's ascontiguousarray may return a view of it when it is already contiguous)
    H, W = x_hw
    cols_w = slice(pads[2], pads[2] + W)
    if inner:
        dxt = np.zeros((C, Hp, Wp, N), dcols.dtype)
        for b in range(kw):
            dst = dxt[:, :, b * dw_:b * dw_ + sw * (ow - 1) + 1:sw]
            np.add(dst, f[:, b], out=dst)
        return dxt[:, pads[0]:pads[0] + H, cols_w].transpose(3, 0, 1, 2), dw
    dxp = np.zeros((C, Hp, N, Wp), dcols.dtype)
    for b in range(kw):
        dst = dxp[..., b * dw_:b * dw_ + sw * (ow - 1) + 1:sw]
        np.add(dst, f[:, b], out=dst)
    return dxp[:, pads[0]:pads[0] + H, :, cols_w].transpose(2, 0, 1, 3), dw
