"""Convolution ops: conv2d, depthwise_conv2d, conv2d_transpose, depthwise_conv2d_transpose and grads,
and the internal fused convolutions the fuse_conv graph pass makes (conv + eval batch_norm [+ residual]
[+ relu/relu6], conv + bias [+ relu/relu6]).

Every convolution is im2col + one batched GEMM: a strided view of the padded input gives the
columns laid out (N, groups, C/g*kh*kw, OH*OW), so ``W @ cols`` lands directly in NCHW (this
beat one big (N*OH*OW, C*kh*kw) GEMM, per-offset accumulation and cached fancy-index im2col on
LeNet-sized layers). When the per-sample product is thin (batch > 1, outputs of at most 16x16) the
columns are laid out (C*kh*kw, N*OH*OW) instead and one GEMM covers the batch; its (M, N, ...) result
is transposed while the output is written (by the fused kernels' epilogue, for free). A channels-last
im2col with one (N*OH*OW, kh*kw*C) GEMM was measured too and lost on whole models (1.2-1.35x). The
scatter side (input grads, transposed convolutions) is kh*kw strided slice-adds instead of
``np.add.at``. NHWC is handled by transposing to NCHW and back.

Issue 17: depthwise convolutions run the direct kernels of conv_depthwise.py (no im2col: the forward
for outputs of 32x32 and more, both gradients always); stride-1 convolutions copy their columns
"wide" (one contiguous slice per tap, `_conv_product_wide`) when the GEMM's extra columns are cheap,
and their input gradients scatter wide columns (`_scatter_wide`: kh*kw adds of long rows); the
gradients of a whole-batch-GEMM convolution are one GEMM each (`_grads_whole_batch`). Small-channel
convolutions (LeNet's; ``conv_small.wanted``) use the whole-batch column layouts of conv_small.py (batch
innermost for narrow outputs, two-stage "rows" copies for wider ones) where they measured faster (both
gradients, the forward of narrow outputs). The fused kernels' relu epilogue takes the maximum against
an array of zeros (`zeros.relu_inplace`: numpy's maximum against a broadcast scalar runs a slow loop here;
same bits).
"""
from __future__ import annotations

import math
import threading

import numpy as np
from numpy.lib.stride_tricks import as_strided

from . import conv_depthwise, conv_small
from .norm import bn_eval_affine
from .zeros import relu_inplace, zeros_readonly  # noqa: F401  (zeros_readonly: also the tests')
from .registry import Meta, grad_op, lookup, register

_CONV_ATTRS = {
    "strides": ("INTS", [1, 1]),
    "paddings": ("INTS", [0, 0]),
    "padding_algorithm": ("STRING", "EXPLICIT"),
    "dilations": ("INTS", [1, 1]),
    "groups": ("INT", 1),
    "data_format": ("STRING", "NCHW"),
}
_CONVT_ATTRS = {
    "strides": ("INTS", [1, 1]),
    "paddings": ("INTS", [0, 0]),
    "output_padding": ("INTS", []),
    "output_size": ("INTS", []),
    "padding_algorithm": ("STRING", "EXPLICIT"),
    "groups": ("INT", 1),
    "dilations": ("INTS", [1, 1]),
    "data_format": ("STRING", "NCHW"),
}


# -- shared geometry ------------------------------------------------------------------------------

def pads4(paddings, what="paddings"):
    """Paddle's 2-value [h, w] or 4-value [top, bottom, left, right] paddings as 4 ints."""
    p = [int(v) for v in paddings]
    if len(p) == 2:
        return [p[0], p[0], p[1], p[1]]
    if len(p) == 4:
        return p
    raise ValueError(f"{what} must have 2 values [pad_h, pad_w] or 4 values [top, bottom, left, right], "
                     f"got {list(paddings)}")


def same_pads(size, k, s):
    """Paddle's SAME padding for one dim: output ceil(size / s), extra padding at the end."""
    if size < 0:
        return 0, 0
    out = (size + s - 1) // s
    total = max((out - 1) * s + k - size, 0)
    return total // 2, total - total // 2


def resolve_padding(in_hw, k_hw, strides, paddings, dilations, algorithm):
    """Effective (pads4, dilations): SAME pads for ceil(in / stride) and resets dilation to 1
    (as Paddle does); VALID means no padding."""
    algorithm = (algorithm or "EXPLICIT").upper()
    if algorithm == "SAME":
        pt, pb = same_pads(in_hw[0], k_hw[0], strides[0])
        pl, pr = same_pads(in_hw[1], k_hw[1], strides[1])
        return [pt, pb, pl, pr], [1, 1]
    if algorithm == "VALID":
        return [0, 0, 0, 0], list(dilations)
    if algorithm != "EXPLICIT":
        raise ValueError(f"padding_algorithm must be 'EXPLICIT', 'SAME' or 'VALID', got {algorithm!r}")
    return pads4(paddings), list(dilations)


def _conv_out(size, k, s, p0, p1, d):
    if size < 0:
        return -1
    return (size + p0 + p1 - (d * (k - 1) + 1)) // s + 1


def _check_format(data_format):
    if data_format not in ("NCHW", "NHWC", "AnyLayout"):
        raise ValueError(f"data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    return data_format == "NHWC"


def _pad_zero(x, pads):
    pt, pb, pl, pr = pads
    if not (pt or pb or pl or pr):
        return x
    N, C, H, W = x.shape
    xp = np.zeros((N, C, H + pt + pb, W + pl + pr), dtype=x.dtype)
    xp[:, :, pt:pt + H, pl:pl + W] = x
    return xp


def _pad_scratch(x, pads):
    """``_pad_zero`` into scratch memory (the padded input only feeds the column copy): only the border
    is zeroed, where a new ``np.zeros`` array page-faults over its whole size on first touch."""
    pt, pb, pl, pr = pads
    if not (pt or pb or pl or pr):
        return x
    N, C, H, W = x.shape
    xp = scratch("pad", (N, C, H + pt + pb, W + pl + pr), x.dtype)
    xp[:, :, :pt] = 0
    xp[:, :, pt + H:] = 0
    xp[:, :, pt:pt + H, :pl] = 0
    xp[:, :, pt:pt + H, pl + W:] = 0
    xp[:, :, pt:pt + H, pl:pl + W] = x
    return xp


_tls = threading.local()
_SCRATCH_MAX = 1 << 26


def scratch(key, shape, dtype):
    """An uninitialised array for an intermediate that never leaves the kernel, reusing the memory
    of the previous call with the same ``key``: freshly allocated large arrays page-fault on first
    touch, which cost more than the GEMMs themselves on LeNet-sized layers."""
    dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > _SCRATCH_MAX:
        return np.empty(shape, dtype)
    bufs = getattr(_tls, "bufs", None)
    if bufs is None:
        bufs = _tls.bufs = {}
    buf = bufs.get(key)
    if buf is None or buf.nbytes < nbytes:
        buf = bufs[key] = np.empty(nbytes, np.uint8)
    return buf[:nbytes].view(dtype).reshape(shape)


def _cols(xp, kh, kw, strides, dilations, oh, ow, key="cols"):
    """Columns (N, C*kh*kw, oh*ow) of the (already padded) NCHW array ``xp``, in scratch memory."""
    N, C = xp.shape[:2]
    if kh == kw == 1 and (oh, ow) == xp.shape[2:] and xp.flags.c_contiguous:
        return xp.reshape(N, C, oh * ow)     # a 1x1 stride-1 convolution reads its input as the columns
    sn, sc, sh, sw = xp.strides
    v = as_strided(xp, (N, C, kh, kw, oh, ow),
                   (sn, sc, sh * dilations[0], sw * dilations[1], sh * strides[0], sw * strides[1]),
                   writeable=False)
    out = scratch(key, (N, C * kh * kw, oh * ow), xp.dtype)
    np.copyto(out.reshape(N, C, kh, kw, oh, ow), v)
    return out


def _scatter_cols(cols, canvas_hw, strides, dilations):
    """Inverse of `_cols`: add columns (N, C, kh, kw, oh, ow) into a zero (N, C, *canvas_hw) array."""
    N, C, kh, kw, oh, ow = cols.shape
    out = np.zeros((N, C) + tuple(canvas_hw), dtype=cols.dtype)
    sh, sw = strides
    dh, dw = dilations
    for i in range(kh):
        for j in range(kw):
            out[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw] += cols[:, :, i, j]
    return out


def _group_matmul(a, b, groups, key=None):
    """``a`` (g, P, Q) times ``b`` (N, g*Q, R) per group -> (N, g*P, R); in scratch memory if ``key``."""
    N = b.shape[0]
    g, P, Q = a.shape
    R = b.shape[-1]
    dtype = np.result_type(a.dtype, b.dtype)
    out = None if key is None else scratch(key, (N, g, P, R), dtype)
    if groups == 1:
        return np.matmul(a[0], b, out=None if out is None else out.reshape(N, P, R))
    return np.matmul(a, b.reshape(N, g, Q, R), out=out).reshape(N, g * P, R)


# -- conv2d ---------------------------------------------------------------------------------------

def _conv_setup(x, w, strides, paddings, padding_algorithm, dilations, groups):
    N, C, H, W = x.shape
    M, Cg, kh, kw = w.shape
    if groups < 1 or C != Cg * groups or M % groups:
        raise ValueError(f"conv2d: input has {C} channels and filter shape {list(w.shape)} with groups={groups}; "
                         f"expected channels == filter.shape[1] * groups and filter.shape[0] divisible by groups")
    strides = [int(s) for s in strides]
    pads, dil = resolve_padding((H, W), (kh, kw), strides, paddings, dilations, padding_algorithm)
    oh = _conv_out(H, kh, strides[0], pads[0], pads[1], dil[0])
    ow = _conv_out(W, kw, strides[1], pads[2], pads[3], dil[1])
    if oh <= 0 or ow <= 0:
        raise ValueError(f"conv2d: input spatial size {[H, W]} with paddings {pads} is smaller than the "
                         f"dilated filter {[dil[0] * (kh - 1) + 1, dil[1] * (kw - 1) + 1]}")
    return pads, dil, strides, oh, ow


def _conv_nchw(x, w, strides, paddings, padding_algorithm, dilations, groups):
    prod, batch_last = _conv_product(x, w, strides, paddings, padding_algorithm, dilations, groups)
    if not batch_last:
        return prod
    M, N, oh, ow = prod.shape
    out = np.empty((N, M, oh, ow), dtype=x.dtype)
    np.copyto(out, prod.transpose(1, 0, 2, 3), casting="unsafe")
    return out


def _whole_batch_gemm(n, oh, ow, k, groups):
    """One GEMM over the whole batch (columns (C*kh*kw, N*oh*ow)) instead of one per sample when the
    per-sample product is thin: measured at 1 BLAS thread on ResNet-50 layer shapes, 0.85-0.93x the
    per-sample time for 7x7 and 14x14 outputs (3x3 and 1x1, batch 2 and 16), even on larger ones."""
    return groups == 1 and n > 1 and (oh * ow <= 64 or (k > 1 and oh * ow <= 256))


def _conv_product(x, w, strides, paddings, padding_algorithm, dilations, groups):
    """The convolution of NCHW ``x``: ``(out, False)`` with out a new (N, M, oh, ow) array, or
    ``(prod, True)`` with prod an (M, N, oh, ow) array in scratch memory (a whole-batch GEMM's result,
    which the caller transposes while writing its own output)."""
    N = x.shape[0]
    M, Cg, kh, kw = w.shape
    pads, dil, strides, oh, ow = _conv_setup(x, w, strides, paddings, padding_algorithm, dilations, groups)
    if conv_depthwise.direct_wanted(x.shape, w.shape, groups, oh, ow):
        g = conv_depthwise.geometry(x.shape, w.shape, strides, pads, dil, oh, ow)
        return conv_depthwise.forward(x, w, g), False
    xp = _pad_scratch(x, pads)
    if conv_small.wanted(N, x.shape[1], kh, kw, oh, ow, groups):
        return conv_small.forward(xp, w, dil, strides, oh, ow), True
    if _wide_ok(xp, kh, kw, strides, M, ow, _whole_batch_gemm(N, oh, ow, kh * kw, groups)):
        return _conv_product_wide(xp, w, dil, oh, ow, groups, x.dtype)
    if _whole_batch_gemm(N, oh, ow, kh * kw, groups):
        C = xp.shape[1]
        sn, sc, sh, sw = xp.strides
        v = as_strided(xp, (C, kh, kw, N, oh, ow),
                       (sc, sh * dil[0], sw * dil[1], sn, sh * strides[0], sw * strides[1]), writeable=False)
        cols = scratch("cols", (C, kh, kw, N, oh, ow), xp.dtype)
        np.copyto(cols, v)
        k = C * kh * kw
        dtype = np.result_type(w.dtype, cols.dtype)
        prod = np.matmul(w.reshape(M, k), cols.reshape(k, N * oh * ow), out=scratch("gemm", (M, N * oh * ow), dtype))
        return prod.reshape(M, N, oh, ow), True
    cols = _cols(xp, kh, kw, strides, dil, oh, ow)
    out = _group_matmul(w.reshape(groups, M // groups, Cg * kh * kw), cols, groups)
    return out.reshape(N, M, oh, ow).astype(x.dtype, copy=False), False


def _wide_ok(xp, kh, kw, strides, M=1, ow=None, whole_batch=True):
    """Whether to copy the columns wide (`_conv_product_wide`): a stride-1 convolution (not 1x1, whose
    columns are the input itself) of a padded input whose rows are contiguous, when the extra work is
    small beside the copy it saves: the GEMM's (M filters times Wp - ow extra columns per row) and,
    per sample, the crop of the GEMM's wide output into a new array (the whole-batch path transposes
    its output anyway), which costs more than it saves when the filter count M exceeds half the
    column height C*kh*kw (VGG's first layer, 3 -> 64 channels: 1.5x). Measured (one thread, thread
    CPU time): LeNet's layers 0.89-0.96x, 64 filters on 56x56 and 112x112 0.99-1.03x, 128 on 28x28
    1.04x, 256 on 14x14 1.13-1.15x, 512 on 7x7 1.24x; hence M * (Wp - ow) <= 8 * ow."""
    it = xp.itemsize
    C, Wp = xp.shape[1], xp.shape[3]
    if ow is None:
        ow = Wp - kw + 1
    return (strides == [1, 1] and (kh, kw) != (1, 1) and xp.strides[3] == it
            and xp.strides[2] == Wp * it and M * (Wp - ow) <= 8 * ow and (whole_batch or 2 * M <= C * kh * kw))


def _conv_product_wide(xp, w, dil, oh, ow, groups, out_dtype):
    """`_conv_product` of a stride-1 convolution with the columns laid out wide: in the padded input
    every tap (i, j) is a constant flat offset, so its column row is ONE contiguous slice of
    (oh - 1) * Wp + ow values (rows of the padded width Wp; the last Wp - ow values of each row are
    outputs that do not exist). Copying those long slices took 0.3-0.8x the time of the 6-D strided
    copy with rows of ``ow`` values (LeNet, ResNet layer shapes); the GEMM grows by Wp / ow and the
    garbage outputs are dropped when the result is cropped (each output is its own dot product, so
    they never mix with the real ones; the gradients keep the exact columns)."""
    N, C, Hp, Wp = xp.shape
    M, Cg, kh, kw = w.shape
    L = (oh - 1) * Wp + ow
    sn, sc, sh, sw = xp.strides
    dtype = np.result_type(w.dtype, xp.dtype)
    if _whole_batch_gemm(N, oh, ow, kh * kw, groups):
        v = as_strided(xp, (C, kh, kw, N, L), (sc, sh * dil[0], sw * dil[1], sn, sw), writeable=False)
        cols = scratch("cols", (C, kh, kw, N, oh * Wp), xp.dtype)
        np.copyto(cols[..., :L], v)
        cols[..., L:] = 0
        k = C * kh * kw
        prod = np.matmul(w.reshape(M, k), cols.reshape(k, N * oh * Wp), out=scratch("gemm", (M, N * oh * Wp), dtype))
        return prod.reshape(M, N, oh, Wp)[..., :ow], True
    v = as_strided(xp, (N, C, kh, kw, L), (sn, sc, sh * dil[0], sw * dil[1], sw), writeable=False)
    cols = scratch("cols", (N, C * kh * kw, oh * Wp), xp.dtype)
    np.copyto(cols.reshape(N, C, kh, kw, oh * Wp)[..., :L], v)
    cols[..., L:] = 0
    prod = _group_matmul(w.reshape(groups, M // groups, Cg * kh * kw), cols, groups, key="gemm")
    out = np.empty((N, M, oh, ow), dtype=out_dtype)
    np.copyto(out, prod.reshape(N, M, oh, Wp)[..., :ow], casting="unsafe")
    return out, False


def _conv2d(x, w, strides=(1, 1), paddings=(0, 0), padding_algorithm="EXPLICIT", dilations=(1, 1),
            groups=1, data_format="NCHW", **_):
    if _check_format(data_format):
        out = _conv_nchw(x.transpose(0, 3, 1, 2), w, strides, paddings, padding_algorithm, dilations, groups)
        return np.ascontiguousarray(out.transpose(0, 2, 3, 1))
    return _conv_nchw(x, w, strides, paddings, padding_algorithm, dilations, groups)


def _conv2d_grad(x, w, dout, strides=(1, 1), paddings=(0, 0), padding_algorithm="EXPLICIT", dilations=(1, 1),
                 groups=1, data_format="NCHW", **_):
    return conv2d_grads(x, w, dout, strides, paddings, padding_algorithm, dilations, groups, data_format)


def conv2d_grads(x, w, dout, strides, paddings, padding_algorithm, dilations, groups, data_format, want_x=True):
    """(Input@GRAD, Filter@GRAD) of conv2d; Input@GRAD is None unless ``want_x`` (the compiled backward's
    partial kernel, runtime/static/partial_grads.py, asks only for the filter's: same operations)."""
    nhwc = _check_format(data_format)
    if nhwc:
        x = x.transpose(0, 3, 1, 2)
        dout = dout.transpose(0, 3, 1, 2)
    N, C, H, W = x.shape
    M, Cg, kh, kw = w.shape
    g = groups
    pads, dil, strides, oh, ow = _conv_setup(x, w, strides, paddings, padding_algorithm, dilations, groups)
    if conv_depthwise.is_depthwise(x.shape, w.shape, groups):     # direct kernels: faster at every shape
        dg = conv_depthwise.geometry(x.shape, w.shape, strides, pads, dil, oh, ow)
        dw = conv_depthwise.filter_grad(x, dout, dg, w.shape, w.dtype)
        dx = conv_depthwise.input_grad(w, dout, dg, x.dtype) if want_x else None
    elif conv_small.wanted(N, C, kh, kw, oh, ow, groups, grad=True):
        dx, dw = conv_small.grads(_pad_scratch(x, pads), w, dout, (H, W), pads, dil, strides, oh, ow, want_x)
    elif _whole_batch_gemm(N, oh, ow, kh * kw, groups):
        dx, dw = _grads_whole_batch(x, w, dout, pads, dil, strides, oh, ow, want_x)
    else:
        cols = _cols(_pad_zero(x, pads), kh, kw, strides, dil, oh, ow)          # (N, C*kk, P)
        d = np.ascontiguousarray(dout).reshape(N, g, M // g, oh * ow)
        # dW[g] = sum_n dout[n, g] @ cols[n, g].T
        dw = np.matmul(d, cols.reshape(N, g, Cg * kh * kw, oh * ow).transpose(0, 1, 3, 2)).sum(axis=0)
        dx = None
        if want_x:
            wm = w.reshape(g, M // g, Cg * kh * kw).transpose(0, 2, 1)              # (g, Cg*kk, Mg)
            if kh == kw == 1 and (oh, ow) == (H, W) and not any(pads):
                # 1x1 stride 1: the columns are dx
                dx = _group_matmul(wm, d.reshape(N, M, oh * ow), g).reshape(N, C, H, W)
            elif strides == [1, 1]:
                wide = _wide(dout, (N, M, oh, ow), W + pads[2] + pads[3], "dwide")       # (N, M, oh * Wp)
                dcols = _group_matmul(wm, wide, g, key="dcols")                           # (N, C*kk, oh * Wp)
                dx = _scatter_wide(dcols.reshape(N, C, kh * kw, wide.shape[2]), (H, W), pads, dil, kw, oh, ow)
            else:
                dcols = _group_matmul(wm, d.reshape(N, M, oh * ow), g, key="dcols")     # (N, C*kk, P)
                canvas = (H + pads[0] + pads[1], W + pads[2] + pads[3])
                dxp = _scatter_cols(dcols.reshape(N, C, kh, kw, oh, ow), canvas, strides, dil)
                dx = dxp[:, :, pads[0]:pads[0] + H, pads[2]:pads[2] + W]
    if dx is not None:
        if nhwc:
            dx = dx.transpose(0, 2, 3, 1)
        dx = np.ascontiguousarray(dx, dtype=x.dtype)
    return dx, dw.reshape(w.shape).astype(w.dtype, copy=False)


def _wide(d, shape, Wp, key):
    """``d`` (A, B, oh, ow) (any strides) laid out wide in scratch memory: (A, B, oh * Wp) with rows
    of ``Wp`` values, the last ``Wp - ow`` of each zero (so a GEMM over it gives zero there)."""
    A, B, oh, ow = shape
    out = scratch(key, (A, B, oh, Wp), d.dtype)
    out[..., ow:] = 0
    out[..., :ow] = d
    return out.reshape(A, B, oh * Wp)


def _scatter_wide(dcols, hw, pads, dil, kw, oh, ow, channels_first=False):
    """Col2im of a stride-1 convolution from wide columns: ``dcols`` (A, B, kh*kw, oh*Wp) (A, B = N, C,
    or C, N if ``channels_first``) whose tap ``t`` adds at the constant flat offset of (i*dh, j*dw) of the
    padded canvas: kh*kw adds of long contiguous rows (the per-tap 2-D slice-adds of `_scatter_cols`
    run their inner loop over ``ow`` values only). The zero garbage columns add nothing. Returns dx
    (N, C, H, W), a view of a new array."""
    A, B, kk, _ = dcols.shape
    H, W = hw
    Hp, Wp = H + pads[0] + pads[1], W + pads[2] + pads[3]
    L = (oh - 1) * Wp + ow
    dxp = np.zeros((A, B, Hp * Wp), dtype=dcols.dtype)
    for t in range(kk):
        off = (t // kw) * dil[0] * Wp + (t % kw) * dil[1]
        dst = dxp[:, :, off:off + L]
        np.add(dst, dcols[:, :, t, :L], out=dst)
    dx = dxp.reshape(A, B, Hp, Wp)[:, :, pads[0]:pads[0] + H, pads[2]:pads[2] + W]
    return dx.transpose(1, 0, 2, 3) if channels_first else dx


def _grads_whole_batch(x, w, dout, pads, dil, strides, oh, ow, want_x):
    """Both gradients with one GEMM each over the whole batch (the layout of the forward's
    `_whole_batch_gemm` path, groups == 1): dW = dout (M, N*P) @ cols (C*kk, N*P).T instead of N
    per-sample GEMMs and a sum, dcols = W.T @ dout."""
    N, C, H, W = x.shape
    M, _, kh, kw = w.shape
    K, P = C * kh * kw, N * oh * ow
    xp = _pad_scratch(x, pads)
    sn, sc, sh, sw = xp.strides
    v = as_strided(xp, (C, kh, kw, N, oh, ow),
                   (sc, sh * dil[0], sw * dil[1], sn, sh * strides[0], sw * strides[1]), writeable=False)
    cols = scratch("cols", (C, kh, kw, N, oh, ow), xp.dtype)
    np.copyto(cols, v)
    dT = dout.transpose(1, 0, 2, 3)                                       # (M, N, oh, ow) view
    dt = scratch("dT", (M, N, oh, ow), dout.dtype)
    np.copyto(dt, dT)
    dw = np.dot(dt.reshape(M, P), cols.reshape(K, P).T)
    if not want_x:
        return None, dw
    wt = w.reshape(M, K).T
    if strides == [1, 1]:
        wide = _wide(dT, (M, N, oh, ow), W + pads[2] + pads[3], "dwide")        # (M, N, oh * Wp)
        dcols = np.dot(wt, wide.reshape(M, -1), out=scratch("dcols", (K, wide.shape[1] * wide.shape[2]),
                                                            np.result_type(wt.dtype, wide.dtype)))
        dcols = dcols.reshape(C, kh * kw, N, wide.shape[2]).transpose(0, 2, 1, 3)          # (C, N, kk, oh * Wp)
        return _scatter_wide(dcols, (H, W), pads, dil, kw, oh, ow, channels_first=True), dw
    dcols = np.dot(wt, dt.reshape(M, P)).reshape(C, kh, kw, N, oh, ow).transpose(3, 0, 1, 2, 4, 5)
    canvas = (H + pads[0] + pads[1], W + pads[2] + pads[3])
    dxp = _scatter_cols(dcols, canvas, strides, dil)
    return dxp[:, :, pads[0]:pads[0] + H, pads[2]:pads[2] + W], dw


def _conv2d_meta(x, w, strides=(1, 1), paddings=(0, 0), padding_algorithm="EXPLICIT", dilations=(1, 1),
                 groups=1, data_format="NCHW", **_):
    if len(x.shape) != 4 or len(w.shape) != 4:
        raise ValueError(f"conv2d: Input and Filter must be 4-D, got shapes {list(x.shape)} and {list(w.shape)}")
    nhwc = _check_format(data_format)
    N, C, H, W = (x.shape[0], x.shape[3], x.shape[1], x.shape[2]) if nhwc else tuple(x.shape)
    M, Cg, kh, kw = w.shape
    if C != -1 and Cg != -1 and C != Cg * groups:
        raise ValueError(f"conv2d: input has {C} channels but filter shape {list(w.shape)} with groups={groups} "
                         f"expects {Cg * groups}")
    pads, dil = resolve_padding((H, W), (kh, kw), strides, paddings, dilations, padding_algorithm)
    if (padding_algorithm or "").upper() == "SAME":
        oh = -1 if H < 0 else (H + strides[0] - 1) // strides[0]
        ow = -1 if W < 0 else (W + strides[1] - 1) // strides[1]
    else:
        oh = _conv_out(H, kh, strides[0], pads[0], pads[1], dil[0])
        ow = _conv_out(W, kw, strides[1], pads[2], pads[3], dil[1])
    shape = (N, oh, ow, M) if nhwc else (N, M, oh, ow)
    return Meta(shape, x.dtype)


for _t in ("conv2d", "depthwise_conv2d"):
    register(_t, ["Input", "Filter"], ["Output"], _CONV_ATTRS, kernel=_conv2d, infer_meta=_conv2d_meta)
    grad_op(_t, ["Input", "Filter", "Output@GRAD"], ["Input@GRAD", "Filter@GRAD"], _conv2d_grad)


# -- conv2d_transpose -----------------------------------------------------------------------------

def _convt_setup(x, w, strides, paddings, output_padding, output_size, padding_algorithm, dilations, groups):
    N, C, H, W = x.shape
    Cw, Mg, kh, kw = w.shape
    if groups < 1 or C != Cw or C % groups:
        raise ValueError(f"conv2d_transpose: input has {C} channels and filter shape {list(w.shape)} with "
                         f"groups={groups}; expected channels == filter.shape[0], divisible by groups")
    strides = [int(s) for s in strides]
    pads, dil = resolve_padding((H, W), (kh, kw), strides, paddings, dilations, padding_algorithm)
    out_hw = _convt_out((H, W), (kh, kw), strides, pads, dil, output_padding, output_size)
    return pads, dil, strides, out_hw


def _convt_out(in_hw, k_hw, strides, pads, dil, output_padding, output_size):
    res = []
    for i in range(2):
        if in_hw[i] < 0:
            res.append(-1)
            continue
        base = (in_hw[i] - 1) * strides[i] - pads[2 * i] - pads[2 * i + 1] + dil[i] * (k_hw[i] - 1) + 1
        if output_size is not None and len(output_size):
            want = int(output_size[i])
            if not base <= want < base + strides[i]:
                raise ValueError(f"conv2d_transpose: output_size {list(output_size)} is out of range: dimension "
                                 f"{i} must be in [{base}, {base + strides[i]}) for this input, stride and padding")
            res.append(want)
        elif output_padding is not None and len(output_padding):
            op = int(output_padding[i])
            if not 0 <= op < max(strides[i], dil[i]):
                raise ValueError(f"conv2d_transpose: output_padding {list(output_padding)} must be smaller than "
                                 f"stride or dilation ({strides}, {dil})")
            res.append(base + op)
        else:
            res.append(base)
        if res[-1] <= 0:
            raise ValueError(f"conv2d_transpose: computed output size {res} is not positive")
    return res


def _convt_nchw(x, w, bias, strides, paddings, output_padding, output_size, padding_algorithm, dilations, groups):
    N, C, H, W = x.shape
    _, Mg, kh, kw = w.shape
    g = groups
    pads, dil, strides, (oh, ow) = _convt_setup(x, w, strides, paddings, output_padding, output_size,
                                                padding_algorithm, dilations, groups)
    wm = w.reshape(g, C // g, Mg * kh * kw).transpose(0, 2, 1)               # (g, Mg*kk, Cg)
    cols = _group_matmul(wm, x.reshape(N, C, H * W), g, key="dcols")         # (N, M*kk, H*W)
    full_h = max((H - 1) * strides[0] + dil[0] * (kh - 1) + 1, pads[0] + oh)
    full_w = max((W - 1) * strides[1] + dil[1] * (kw - 1) + 1, pads[2] + ow)
    full = _scatter_cols(cols.reshape(N, g * Mg, kh, kw, H, W), (full_h, full_w), strides, dil)
    out = full[:, :, pads[0]:pads[0] + oh, pads[2]:pads[2] + ow]
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1)
    return out.astype(x.dtype, copy=False)


def _conv2d_transpose(x, w, bias=None, strides=(1, 1), paddings=(0, 0), output_padding=(), output_size=(),
                      padding_algorithm="EXPLICIT", groups=1, dilations=(1, 1), data_format="NCHW", **_):
    args = (strides, paddings, output_padding, output_size, padding_algorithm, dilations, groups)
    if _check_format(data_format):
        out = _convt_nchw(x.transpose(0, 3, 1, 2), w, bias, *args)
        return np.ascontiguousarray(out.transpose(0, 2, 3, 1))
    return np.ascontiguousarray(_convt_nchw(x, w, bias, *args))


def _conv2d_transpose_grad(x, w, dout, strides=(1, 1), paddings=(0, 0), output_padding=(), output_size=(),
                           padding_algorithm="EXPLICIT", groups=1, dilations=(1, 1), data_format="NCHW", **_):
    nhwc = _check_format(data_format)
    if nhwc:
        x = x.transpose(0, 3, 1, 2)
        dout = dout.transpose(0, 3, 1, 2)
    N, C, H, W = x.shape
    _, Mg, kh, kw = w.shape
    g = groups
    pads, dil, strides, (oh, ow) = _convt_setup(x, w, strides, paddings, output_padding, output_size,
                                                padding_algorithm, dilations, groups)
    full_h = max((H - 1) * strides[0] + dil[0] * (kh - 1) + 1, pads[0] + oh)
    full_w = max((W - 1) * strides[1] + dil[1] * (kw - 1) + 1, pads[2] + ow)
    dfull = np.zeros((N, g * Mg, full_h, full_w), dtype=dout.dtype)
    dfull[:, :, pads[0]:pads[0] + oh, pads[2]:pads[2] + ow] = dout
    cols = _cols(dfull, kh, kw, strides, dil, H, W)                          # (N, M*kk, H*W)
    wm = w.reshape(g, C // g, Mg * kh * kw)                                  # (g, Cg, Mg*kk)
    dx = _group_matmul(wm, cols, g).reshape(N, C, H, W)
    xg = np.ascontiguousarray(x).reshape(N, g, C // g, H * W)
    dw = np.matmul(xg, cols.reshape(N, g, Mg * kh * kw, H * W).transpose(0, 1, 3, 2)).sum(axis=0)
    if nhwc:
        dx = dx.transpose(0, 2, 3, 1)
    return np.ascontiguousarray(dx, dtype=x.dtype), dw.reshape(w.shape).astype(w.dtype, copy=False)


def _conv2d_transpose_meta(x, w, bias=None, strides=(1, 1), paddings=(0, 0), output_padding=(), output_size=(),
                           padding_algorithm="EXPLICIT", groups=1, dilations=(1, 1), data_format="NCHW", **_):
    if len(x.shape) != 4 or len(w.shape) != 4:
        raise ValueError(f"conv2d_transpose: Input and Filter must be 4-D, got shapes {list(x.shape)} "
                         f"and {list(w.shape)}")
    nhwc = _check_format(data_format)
    N, C, H, W = (x.shape[0], x.shape[3], x.shape[1], x.shape[2]) if nhwc else tuple(x.shape)
    Cw, Mg, kh, kw = w.shape
    if C != -1 and Cw != -1 and C != Cw:
        raise ValueError(f"conv2d_transpose: input has {C} channels but filter shape {list(w.shape)} expects {Cw}")
    strides = [int(s) for s in strides]
    pads, dil = resolve_padding((H, W), (kh, kw), strides, paddings, dilations, padding_algorithm)
    oh, ow = _convt_out((H, W), (kh, kw), strides, pads, dil, output_padding, output_size)
    M = Mg * groups if Mg != -1 else -1
    return Meta((N, oh, ow, M) if nhwc else (N, M, oh, ow), x.dtype)


for _t in ("conv2d_transpose", "depthwise_conv2d_transpose"):
    register(_t, ["Input", "Filter", "Bias?(extra)"], ["Output"], _CONVT_ATTRS, kernel=_conv2d_transpose,
             infer_meta=_conv2d_transpose_meta, differentiable=("Input", "Filter"))
    grad_op(_t, ["Input", "Filter", "Output@GRAD"], ["Input@GRAD", "Filter@GRAD"], _conv2d_transpose_grad)


# -- fused_conv2d_bn (internal: made by the fuse_conv graph pass, never in a user's Program) ----------
# An eval-mode batch_norm (running statistics) after a convolution is a per-channel ``a * conv + shift``
# with a = scale / sqrt(variance + epsilon), shift = bias - mean * a: ``a`` goes into the filter when the
# filter is smaller than the output (else one in-place multiply of the output), the shift and a
# relu / relu6 are applied in place in the convolution's own output buffer. This replaces batch_norm's
# four passes and two new arrays (and relu's pass and array) by one or two passes and none. A residual
# input (``ResidualData``: ResNet's ``relu(bn(conv(x)) + shortcut)``) is added in place before the activation.

_BN_EPS = 9.999999747378752e-06     # batch_norm's default: Paddle's float32 1e-5
_CONV_BN_ATTRS = dict(_CONV_ATTRS, epsilon=("FLOAT", _BN_EPS), activation=("STRING", "none"))
_CONV_BN_ACTIVATIONS = ("none", "relu", "relu6")


def _conv2d_bn(x, w, scale, bias, mean, variance, residual=None, strides=(1, 1), paddings=(0, 0),
               padding_algorithm="EXPLICIT", dilations=(1, 1), groups=1, data_format="NCHW", epsilon=_BN_EPS,
               activation="none", **_):
    if activation not in _CONV_BN_ACTIVATIONS:
        raise ValueError(f"fused_conv2d_bn: activation must be one of {_CONV_BN_ACTIVATIONS}, got {activation!r}")
    nhwc = _check_format(data_format)
    a, shift = bn_eval_affine(x.dtype, scale, bias, mean, variance, epsilon)    # as batch_norm computes it
    xc = x.transpose(0, 3, 1, 2) if nhwc else x
    M, Cg, kh, kw = w.shape
    _, _, _, oh, ow = _conv_setup(xc, w, strides, paddings, padding_algorithm, dilations, groups)
    fold = Cg * kh * kw <= x.shape[0] * oh * ow       # the filter is the smaller array to scale
    if fold:
        w = w * a.astype(w.dtype, copy=False).reshape(M, 1, 1, 1)
    prod, batch_last = _conv_product(xc, w, strides, paddings, padding_algorithm, dilations, groups)
    bshape = (1, 1, 1, M) if nhwc else (1, M, 1, 1)
    if batch_last:    # (M, N, oh, ow) in scratch: the epilogue writes the NCHW / NHWC output from it
        N = prod.shape[1]
        out = np.empty((N, oh, ow, M) if nhwc else (N, M, oh, ow), dtype=x.dtype)
        view = out.transpose(3, 0, 1, 2) if nhwc else out.transpose(1, 0, 2, 3)     # (M, N, oh, ow) of out
        if not fold:
            np.multiply(prod, a.reshape(M, 1, 1, 1), out=prod, casting="unsafe")
        _add_batch_last(prod, shift.reshape(M, 1, 1, 1), view)
    else:
        if nhwc:
            out = np.ascontiguousarray(prod.transpose(0, 2, 3, 1))
            if not fold:
                np.multiply(out, a.reshape(bshape), out=out, casting="unsafe")
            np.add(out, shift.reshape(bshape), out=out, casting="unsafe")
        else:
            out = prod
            if not fold:
                _per_channel(np.multiply, out, a)
            _per_channel(np.add, out, shift)
    if residual is not None:    # a residual connection's ``bn(conv(x)) + shortcut`` (ResNet)
        if residual.shape == out.shape and np.result_type(out, residual) == out.dtype:
            np.add(out, residual, out=out)
        else:
            out = np.add(out, residual)
    if activation == "relu":
        relu_inplace(out)
    elif activation == "relu6":
        np.clip(out, 0, 6, out=out)
    return out


def _add_batch_last(prod, shift, view):
    """``view[...] = prod + shift`` for a whole-batch product ``prod`` (M, N, oh, ow) in scratch memory and
    ``view``, the (M, N, oh, ow) view of the caller's output. A product in a layout of conv_small.py (a
    view of an (M, oh, N, ow) or (M, oh, ow, N) array) takes the shift in place in its own memory order,
    then one transposing copy: adding straight into the output, whose order differs from both operands',
    took up to twice as long (same arithmetic, same bits). A product of another dtype than the output (a
    float64 filter on a float32 input) is cast first, then shifted, as conv2d + elementwise_add do."""
    if prod.dtype != view.dtype:
        np.copyto(view, prod, casting="unsafe")
        np.add(view, shift, out=view, casting="unsafe")
    elif prod.flags.c_contiguous:
        np.add(prod, shift, out=view, casting="unsafe")
    else:
        np.add(prod, shift, out=prod, casting="unsafe")
        np.copyto(view, prod, casting="unsafe")


def _per_channel(ufunc, out, v):
    """``ufunc(out, v[channel], out=out)`` in place on a C-contiguous NCHW ``out``, for the batch > 1
    arrays of at most 4M values where it pays, against a (channels, H*W) plane of ``v`` (the values
    of the result dtype, as the broadcast operand gives them): numpy's loop for a (1, M, 1, 1) operand
    runs ~4x slower than for a whole contiguous one; 0.48x the time on LeNet's conv1 output at batch
    32, 0.5x on 16x512x7x7, 0.85x on 2x64x56x56, but 1.2-1.9x at batch 1 and on larger arrays."""
    N, M = out.shape[:2]
    hw = out.size // max(N * M, 1)
    if N < 2 or out.size > (1 << 22) or not out.flags.c_contiguous:
        return ufunc(out, v.reshape(1, M, 1, 1), out=out, casting="unsafe")
    plane = scratch("chan_plane", (M, hw), np.result_type(out.dtype, v.dtype))
    np.copyto(plane, v.reshape(M, 1))
    flat = out.reshape(N, M * hw)
    return ufunc(flat, plane.reshape(M * hw), out=flat, casting="unsafe")


def _conv2d_bn_meta(x, w, scale, bias, mean, variance, residual=None, **attrs):
    out = _conv2d_meta(x, w, **{k: v for k, v in attrs.items() if k in _CONV_ATTRS})
    if residual is not None:
        return lookup("elementwise_add").infer_meta(out, residual, axis=-1)
    return out


register("fused_conv2d_bn", ["Input", "Filter", "Scale?", "Bias?", "Mean", "Variance", "ResidualData?"], ["Output"],
         _CONV_BN_ATTRS, kernel=_conv2d_bn, infer_meta=_conv2d_bn_meta, differentiable=(), internal=True)


# -- fused_conv2d_bias_act (internal: made by the fuse_conv graph pass) --------------------------------
# conv2d + the bias add of a Conv2D layer [+ relu / relu6] (VGG, AlexNet, GoogLeNet, SqueezeNet): the bias
# and the activation in place in the convolution's own output, the same ufuncs on the same values as the
# separate ops (so the same bits) without their two new arrays.

def _conv2d_bias_act(x, w, bias, strides=(1, 1), paddings=(0, 0), padding_algorithm="EXPLICIT", dilations=(1, 1),
                     groups=1, data_format="NCHW", activation="none", **_):
    if activation not in _CONV_BN_ACTIVATIONS:
        raise ValueError(f"fused_conv2d_bias_act: activation must be one of {_CONV_BN_ACTIVATIONS}, "
                         f"got {activation!r}")
    nhwc = _check_format(data_format)
    M = w.shape[0]
    if bias.size != M:
        raise ValueError(f"fused_conv2d_bias_act: bias of shape {list(bias.shape)} does not match the {M} output "
                         f"channels")
    b = bias.reshape(M)
    prod, batch_last = _conv_product(x.transpose(0, 3, 1, 2) if nhwc else x, w, strides, paddings,
                                     padding_algorithm, dilations, groups)
    if np.result_type(x.dtype, bias.dtype) != x.dtype:    # the add promotes: a new array, as the two ops make
        conv = (prod.transpose(1, 0, 2, 3) if batch_last else prod).astype(x.dtype, copy=False)   # (N, M, oh, ow)
        if nhwc:
            conv = conv.transpose(0, 2, 3, 1)
        out = np.add(conv, b.reshape((1, 1, 1, M) if nhwc else (1, M, 1, 1)), order="C")
    elif batch_last:
        _, N, oh, ow = prod.shape
        out = np.empty((N, oh, ow, M) if nhwc else (N, M, oh, ow), dtype=x.dtype)
        _add_batch_last(prod, b.reshape(M, 1, 1, 1), out.transpose(3, 0, 1, 2) if nhwc else out.transpose(1, 0, 2, 3))
    elif nhwc:
        out = np.ascontiguousarray(prod.transpose(0, 2, 3, 1))
        np.add(out, b.reshape(1, 1, 1, M), out=out)
    else:
        out = prod
        _per_channel(np.add, out, b)
    if activation == "relu":
        relu_inplace(out)
    elif activation == "relu6":
        np.clip(out, 0, 6, out=out)
    return out


def _conv2d_bias_act_meta(x, w, bias, **attrs):
    out = _conv2d_meta(x, w, **{k: v for k, v in attrs.items() if k in _CONV_ATTRS})
    axis = -1 if attrs.get("data_format") == "NHWC" else 1
    return lookup("elementwise_add").infer_meta(out, bias, axis=axis)


register("fused_conv2d_bias_act", ["Input", "Filter", "Bias"], ["Output"],
         dict(_CONV_ATTRS, activation=("STRING", "none")), kernel=_conv2d_bias_act, infer_meta=_conv2d_bias_act_meta,
         differentiable=(), internal=True)
