"""Direct depthwise convolution kernels (groups == in_channels, any channel multiplier): forward,
input gradient and filter gradient without im2col and without a per-channel or per-group Python loop.

Layout: the padded input of every (sample, channel) row is split into ``stride_h * stride_w`` phase
images (for stride 1: the padded input itself) of a common row width ``Wq``. In a phase image every
filter tap is a constant flat offset, so output row ``r`` (laid out "wide", ``oh`` rows of ``Wq``
values, the last ``Wq - ow`` columns of each row garbage) is the sum over taps ``t`` of
``w[r, t] * phase[r, off_t : off_t + L]``: kh*kw multiply-adds over long contiguous slices. The rows
are processed in blocks small enough that the accumulator and the temporary stay in cache, so the
passes cost cache bandwidth, not memory bandwidth. Gradients are the same walk backwards: the input
gradient adds ``w[r, t] * dout_wide`` into the phase images at the same offsets (the garbage columns
of ``dout_wide`` are zero so they add nothing), the filter gradient is one row-wise dot product per
tap and block.

Measured against the im2col + batched (1 x kh*kw) GEMM path (tests/runtime/ops/test_conv_depthwise.py
checks both agree): up to 2x faster forward on MobileNet's layers with outputs of 56x56 and more,
slower on 28x28 and below (Python per block, the wide layout's waste, the phase split), so
``direct_wanted`` picks the forward path by output size; the gradients are 1.5-8x faster at every
shape and always direct (``python benchmarks/conv_profile.py --depthwise`` reprints the comparison).
"""
from __future__ import annotations

import functools

import numpy as np

__all__ = ["Geometry", "geometry", "direct_wanted", "forward", "input_grad", "filter_grad"]

_BLOCK_ELEMS = 1 << 16        # accumulator elements per block of rows (256 KiB of float32)
FORWARD_MIN_PIXELS = 32 * 32  # output pixels from which the direct forward is used (``direct_wanted``)


class Geometry:
    """The phase layout of one depthwise convolution (NCHW input shape, filter shape, attributes)."""

    __slots__ = ("N", "C", "H", "W", "k", "kh", "kw", "sh", "sw", "dh", "dw", "pads", "oh", "ow",
                 "Hq", "Wq", "L", "taps", "rows_per_block")

    def __init__(self, x_shape, w_shape, strides, pads, dil, oh, ow):
        self.N, self.C, self.H, self.W = x_shape
        M, _, self.kh, self.kw = w_shape
        self.k = M // self.C
        self.sh, self.sw = strides
        self.dh, self.dw = dil
        self.pads = tuple(pads)
        self.oh, self.ow = oh, ow
        pt, pb, pl, pr = pads
        self.Hq = -(-(self.H + pt + pb) // self.sh)
        self.Wq = -(-(self.W + pl + pr) // self.sw)
        self.L = (oh - 1) * self.Wq + ow
        taps = []
        for a in range(self.kh):
            for b in range(self.kw):
                ya, xb = a * self.dh, b * self.dw
                phase = (ya % self.sh) * self.sw + xb % self.sw
                taps.append((phase, (ya // self.sh) * self.Wq + xb // self.sw))
        self.taps = tuple(taps)
        self.rows_per_block = max(1, _BLOCK_ELEMS // (self.k * self.L))

    @property
    def phases(self):
        return self.sh * self.sw

    def phase_ranges(self, pa, pb):
        """For phase (pa, pb): (phase rows slice, input rows slice, phase cols slice, input cols slice)
        of the input pixels it holds (row ``y`` of the padded input is phase row ``y // sh``)."""
        pt, _, pl, _ = self.pads

        def one(p, pad, size, s):
            first = max(0, -(-(pad - p) // s))              # first phase index whose input row is >= 0
            last = (pad + size - 1 - p) // s                  # last phase index whose input row is < size
            if last < first:
                return slice(0, 0), slice(0, 0)
            start = p + s * first - pad
            return slice(first, last + 1), slice(start, start + s * (last - first) + 1, s)
        qr, xr = one(pa, pt, self.H, self.sh)
        qc, xc = one(pb, pl, self.W, self.sw)
        return qr, xr, qc, xc


@functools.lru_cache(maxsize=256)
def _geometry(x_shape, w_shape, strides, pads, dil, oh, ow):
    return Geometry(x_shape, w_shape, strides, pads, dil, oh, ow)


def geometry(x_shape, w_shape, strides, pads, dil, oh, ow):
    """The (cached) Geometry of a depthwise convolution."""
    return _geometry(tuple(x_shape), tuple(w_shape), tuple(strides), tuple(pads), tuple(dil), oh, ow)


def is_depthwise(x_shape, w_shape, groups):
    """groups == in_channels (> 1) and one input channel per filter: a depthwise convolution."""
    C = x_shape[1]
    return groups == C and groups > 1 and w_shape[1] == 1 and w_shape[0] % C == 0


def direct_wanted(x_shape, w_shape, groups, oh, ow):
    """Whether the direct forward beats im2col for this shape. Measured on MobileNet v1/v2 layer
    shapes at batch 2, 8 and 16 (3x3 filters; thread CPU time, one BLAS thread): 0.47-0.68x im2col's
    time on stride-1 outputs of 56x56 and 112x112, 0.66-1.01x on stride-2 outputs of 56x56, but
    0.9-1.9x on outputs of 28x28 and below, where each block's dozen ufunc calls, the wide layout's
    extra columns and (stride 2) the phase split are not amortised. (The gradients always use the
    direct kernels: 1.5-8x faster than im2col's at every shape measured.)"""
    return is_depthwise(x_shape, w_shape, groups) and oh * ow >= FORWARD_MIN_PIXELS


def _scratch(key, shape, dtype):
    from .conv import scratch
    return scratch(key, shape, dtype)


def _phase_images(x, g, key):
    """The phase images (phases, N*C, Hq*Wq) of the zero-padded NCHW ``x`` (scratch memory except for
    stride 1 without padding, where they are ``x`` itself)."""
    R = g.N * g.C
    if g.phases == 1:       # stride 1: the padded input (only its border zeroed), or x itself
        from .conv import _pad_scratch
        return np.ascontiguousarray(_pad_scratch(x, g.pads)).reshape(1, R, g.Hq * g.Wq)
    buf = _scratch(key, (g.sh, g.sw, R, g.Hq, g.Wq), x.dtype)
    xr = x.reshape(R, g.H, g.W)
    for pa in range(g.sh):
        for pb in range(g.sw):
            qr, xr_rows, qc, xr_cols = g.phase_ranges(pa, pb)
            ph = buf[pa, pb]
            ph[:, :qr.start] = 0                 # only the border around the input pixels is zeroed
            ph[:, qr.stop:] = 0
            ph[:, qr, :qc.start] = 0
            ph[:, qr, qc.stop:] = 0
            ph[:, qr, qc] = xr[:, xr_rows, xr_cols]
    return buf.reshape(g.phases, R, g.Hq * g.Wq)


def _compute_dtype(*dtypes):
    """The accumulation dtype: the inputs' result type, float32 for float16 (each tap's multiply-add
    rounds, and kh*kw roundings to half precision lose ~3x more than the matmul path)."""
    dtype = np.result_type(*dtypes)
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def _tap_weights(w, g, dtype):
    """(taps, N*C, k, 1): the filter value of tap t for every (sample, channel) row and multiplier."""
    wt = w.reshape(g.C, g.k, g.kh * g.kw).transpose(2, 0, 1).astype(dtype, copy=False)    # (kk, C, k)
    wt = np.broadcast_to(wt[:, None], (g.kh * g.kw, g.N, g.C, g.k))
    return np.ascontiguousarray(wt).reshape(g.kh * g.kw, g.N * g.C, g.k, 1)


def forward(x, w, g):
    """Depthwise convolution of NCHW ``x`` (N, C, H, W) with ``w`` (C*k, 1, kh, kw): a new
    (N, C*k, oh, ow) array of ``x``'s dtype."""
    dtype = _compute_dtype(x.dtype, w.dtype)
    ph = _phase_images(x, g, "dw_phase")
    wt = _tap_weights(w, g, dtype)
    R, k, L, rb = g.N * g.C, g.k, g.L, g.rows_per_block
    acc = _scratch("dw_acc", (min(rb, R), k, g.oh * g.Wq), dtype)
    tmp = _scratch("dw_tmp", (min(rb, R), k, L), dtype)
    out = np.empty((g.N, g.C * k, g.oh, g.ow), dtype=x.dtype)
    rows_out = out.reshape(R, k, g.oh, g.ow)
    for r0 in range(0, R, rb):
        r1 = min(R, r0 + rb)
        o = acc[:r1 - r0, :, :L]
        tm = tmp[:r1 - r0]
        for t, (phase, off) in enumerate(g.taps):
            src = ph[phase, r0:r1, None, off:off + L]
            if t == 0:
                np.multiply(src, wt[t, r0:r1], out=o)
            else:
                np.multiply(src, wt[t, r0:r1], out=tm)
                np.add(o, tm, out=o)
        # the block's wide rows, still in cache, cropped into the output
        np.copyto(rows_out[r0:r1], acc[:r1 - r0].reshape(r1 - r0, k, g.oh, g.Wq)[..., :g.ow], casting="unsafe")
    return out


def _wide_dout(dout, g):
    """``dout`` (N, C*k, oh, ow) laid out wide: (N*C, k, oh*Wq) with zero garbage columns."""
    R = g.N * g.C
    buf = _scratch("dw_dwide", (R, g.k, g.oh, g.Wq), dout.dtype)
    if g.Wq > g.ow:
        buf[:, :, :, g.ow:] = 0
    buf[:, :, :, :g.ow] = dout.reshape(R, g.k, g.oh, g.ow)
    return buf.reshape(R, g.k, g.oh * g.Wq)


def input_grad(w, dout, g, dtype):
    """The gradient of the input (N, C, H, W) of ``dtype``: the transposed depthwise convolution."""
    ctype = _compute_dtype(w.dtype, dout.dtype)
    dw_ = _wide_dout(dout, g)
    wt = _tap_weights(w, g, ctype)
    R, k, L, rb = g.N * g.C, g.k, g.L, g.rows_per_block
    dph = np.zeros((g.phases, R, g.Hq * g.Wq), dtype=ctype)
    tmp = _scratch("dw_tmp", (min(rb, R), k, L), ctype)
    tsum = _scratch("dw_tsum", (min(rb, R), L), ctype) if k > 1 else None
    for r0 in range(0, R, rb):
        r1 = min(R, r0 + rb)
        d = dw_[r0:r1, :, :L]
        tm = tmp[:r1 - r0]
        for t, (phase, off) in enumerate(g.taps):
            dst = dph[phase, r0:r1, off:off + L]
            np.multiply(d, wt[t, r0:r1], out=tm)
            if k == 1:
                np.add(dst, tm[:, 0], out=dst)
            else:
                ts = tsum[:r1 - r0]
                np.sum(tm, axis=1, out=ts)
                np.add(dst, ts, out=dst)
    dx = np.empty((g.N, g.C, g.H, g.W), dtype=dtype)
    dxr = dx.reshape(R, g.H, g.W)
    dph = dph.reshape(g.sh, g.sw, R, g.Hq, g.Wq)
    for pa in range(g.sh):
        for pb in range(g.sw):
            qr, xr_rows, qc, xr_cols = g.phase_ranges(pa, pb)
            np.copyto(dxr[:, xr_rows, xr_cols], dph[pa, pb, :, qr, qc], casting="unsafe")
    return dx


def filter_grad(x, dout, g, w_shape, dtype):
    """The gradient of the filter (C*k, 1, kh, kw) of ``dtype``: per tap, the row-wise dot product of
    the wide output gradient with the phase image at the tap's offset, summed over the batch."""
    ph = _phase_images(x, g, "dw_phase")
    dw_ = _wide_dout(dout, g)
    R, k, L, rb = g.N * g.C, g.k, g.L, g.rows_per_block
    ctype = _compute_dtype(x.dtype, dout.dtype)
    acc = np.empty((g.kh * g.kw, R, k), dtype=ctype)
    for r0 in range(0, R, rb):
        r1 = min(R, r0 + rb)
        d = dw_[r0:r1, :, :L]
        for t, (phase, off) in enumerate(g.taps):
            np.einsum("rkq,rq->rk", d, ph[phase, r0:r1, off:off + L], out=acc[t, r0:r1], dtype=ctype)
    gw = acc.reshape(g.kh * g.kw, g.N, g.C, k).sum(axis=1)          # (kk, C, k)
    return np.ascontiguousarray(gw.transpose(1, 2, 0)).reshape(w_shape).astype(dtype, copy=False)
