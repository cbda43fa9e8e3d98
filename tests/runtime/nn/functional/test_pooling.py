"""F.max_pool1d/2d, avg_pool1d/2d, adaptive pools: Paddle's window rules (ceil_mode, exclusive,
SAME), masks, divisor_override, op choice, errors and infer_meta with unknown dims."""
import contextlib
import math

import numpy as np
import pytest

import runtime as paddle
import runtime.nn.functional as F
from runtime.framework import state
from runtime.ops.registry import Meta, lookup

rng = np.random.default_rng(8)
FLT_MAX = float(np.finfo(np.float32).max)


def t(a, stop_gradient=True):
    return paddle.Tensor(np.asarray(a), stop_gradient=stop_gradient)


@contextlib.contextmanager
def record_ops():
    ops = []
    old = state.tracer
    state.tracer = lambda opdef, inputs, attrs, outs: ops.append(opdef.type)
    try:
        yield ops
    finally:
        state.tracer = old


def distinct(*shape):
    n = int(np.prod(shape))
    return (rng.permutation(n) - n / 2.0).reshape(shape)


def pool_np(x, k, s, pads, ceil_mode=False, kind="max", exclusive=True):
    """Loops with Paddle's rule: end = min(start + k, size + pad_before); pads = (t, b, l, r)."""
    N, C, H, W = x.shape

    def wins(size, k, s, p0, p1):
        n = (size - k + p0 + p1 + (s - 1 if ceil_mode else 0)) // s + 1
        return [(i * s - p0, min(i * s - p0 + k, size + p0)) for i in range(n)]
    out = np.zeros((N, C, len(wins(H, k[0], s[0], pads[0], pads[1])), len(wins(W, k[1], s[1], pads[2], pads[3]))))
    for i, (h0, h1) in enumerate(wins(H, k[0], s[0], pads[0], pads[1])):
        for j, (w0, w1) in enumerate(wins(W, k[1], s[1], pads[2], pads[3])):
            win = x[:, :, max(h0, 0):min(h1, H), max(w0, 0):min(w1, W)]
            if kind == "max":
                out[:, :, i, j] = win.max(axis=(2, 3)) if win.size else -FLT_MAX
            else:
                n = win.shape[2] * win.shape[3] if exclusive else (h1 - h0) * (w1 - w0)
                with np.errstate(invalid="ignore"):   # a window past the input: 0/0 as in Paddle
                    out[:, :, i, j] = win.sum(axis=(2, 3)) / n
    return out


def adaptive_np(x, oh, ow, kind):
    N, C, H, W = x.shape
    out = np.zeros((N, C, oh, ow))
    mask = np.zeros((N, C, oh, ow), dtype=np.int64)
    for i in range(oh):
        h0, h1 = (i * H) // oh, math.ceil((i + 1) * H / oh)
        for j in range(ow):
            w0, w1 = (j * W) // ow, math.ceil((j + 1) * W / ow)
            win = x[:, :, h0:h1, w0:w1]
            out[:, :, i, j] = win.max(axis=(2, 3)) if kind == "max" else win.mean(axis=(2, 3))
            a = win.reshape(N, C, -1).argmax(-1)
            mask[:, :, i, j] = (h0 + a // (w1 - w0)) * W + w0 + a % (w1 - w0)
    return out, mask


X = distinct(2, 3, 7, 6)


@pytest.mark.parametrize("kwargs, k, s, pads", [
    (dict(kernel_size=2), (2, 2), (2, 2), (0, 0, 0, 0)),
    (dict(kernel_size=3, stride=2, padding=1), (3, 3), (2, 2), (1, 1, 1, 1)),
    (dict(kernel_size=[3, 2], stride=[1, 2], padding=[1, 0, 0, 1]), (3, 2), (1, 2), (1, 0, 0, 1)),
    (dict(kernel_size=2, stride=2, padding=1, ceil_mode=True), (2, 2), (2, 2), (1, 1, 1, 1)),
    (dict(kernel_size=2, stride=2, padding=[[0, 0], [0, 0], [1, 0], [0, 1]]), (2, 2), (2, 2), (1, 0, 0, 1)),
])
def test_max_and_avg_pool2d(kwargs, k, s, pads):
    np.testing.assert_allclose(F.max_pool2d(t(X), **kwargs).numpy(), pool_np(X, k, s, pads, kwargs.get("ceil_mode")))
    for excl in (True, False):
        np.testing.assert_allclose(F.avg_pool2d(t(X), exclusive=excl, **kwargs).numpy(),
                                   pool_np(X, k, s, pads, kwargs.get("ceil_mode"), "avg", excl), rtol=1e-12)


def test_avg_pool2d_ceil_mode_paddle_divisor():
    # 6x6, k3 s3 p1, ceil: the last window is [5, 7) clipped at size + pad_before = 7, so the
    # non-exclusive divisor of the corner is 2 * 2 = 4, not 9 (checked against real Paddle)
    x = np.arange(36.0).reshape(1, 1, 6, 6)
    out = F.avg_pool2d(t(x), 3, 3, padding=1, ceil_mode=True, exclusive=False).numpy()
    assert out.shape == (1, 1, 3, 3)
    assert out[0, 0, 0, 0] == pytest.approx((0 + 1 + 6 + 7) / 9)
    assert out[0, 0, 2, 2] == pytest.approx(35 / 4)
    assert out[0, 0, 0, 2] == pytest.approx((5 + 11) / 6)


def test_pool_same_padding_and_valid():
    x = distinct(1, 2, 5, 5)
    out = F.max_pool2d(t(x), 2, 2, padding="SAME")
    assert out.shape == [1, 2, 3, 3]
    np.testing.assert_allclose(out.numpy(), pool_np(x, (2, 2), (2, 2), (0, 1, 0, 1)))
    out = F.avg_pool2d(t(x), 2, 1, padding="SAME", exclusive=False)
    np.testing.assert_allclose(out.numpy(), pool_np(x, (2, 2), (1, 1), (0, 1, 0, 1), kind="avg", exclusive=False))
    out = F.avg_pool2d(t(x), 2, 2, padding="VALID")
    np.testing.assert_allclose(out.numpy(), pool_np(x, (2, 2), (2, 2), (0, 0, 0, 0), kind="avg"))
    with pytest.raises(ValueError, match="ceil_mode"):
        F.max_pool2d(t(x), 2, padding="VALID", ceil_mode=True)


def test_max_pool2d_return_mask_and_grad():
    x = t(X, stop_gradient=False)
    out, mask = F.max_pool2d(x, 3, 2, padding=1, return_mask=True)
    np.testing.assert_allclose(out.numpy(), pool_np(X, (3, 3), (2, 2), (1, 1, 1, 1)))
    assert mask.dtype == paddle.int32
    flat = X.reshape(2, 3, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, mask.numpy().reshape(2, 3, -1).astype(np.int64), 2),
                                  out.numpy().reshape(2, 3, -1))
    out.sum().backward()
    # each input element gets one unit per window whose maximum it is
    counts = np.zeros(flat.shape)
    for n in range(2):
        for c in range(3):
            np.add.at(counts[n, c], mask.numpy()[n, c].ravel(), 1.0)
    np.testing.assert_array_equal(x.grad.numpy(), counts.reshape(X.shape))


def test_max_pool2d_grad_without_mask_matches_mask_routing():
    x = t(X, stop_gradient=False)
    F.max_pool2d(x, 3, 2, padding=1).sum().backward()
    g1 = x.grad.numpy().copy()
    x2 = t(X, stop_gradient=False)
    F.max_pool2d(x2, 3, 2, padding=1, return_mask=True)[0].sum().backward()
    np.testing.assert_array_equal(g1, x2.grad.numpy())


def test_avg_pool2d_divisor_override_and_nhwc():
    x = distinct(1, 2, 4, 5)
    out = F.avg_pool2d(t(x), 2, 2, divisor_override=3)
    np.testing.assert_allclose(out.numpy(), pool_np(x, (2, 2), (2, 2), (0, 0, 0, 0), kind="avg") * 4 / 3)
    xn = x.transpose(0, 2, 3, 1)
    out = F.avg_pool2d(t(xn), 2, 1, padding=1, data_format="NHWC")
    np.testing.assert_allclose(out.numpy(),
                               pool_np(x, (2, 2), (1, 1), (1, 1, 1, 1), kind="avg").transpose(0, 2, 3, 1))
    out = F.max_pool2d(t(xn), [2, 3], data_format="NHWC")
    np.testing.assert_allclose(out.numpy(), pool_np(x, (2, 3), (2, 3), (0,) * 4).transpose(0, 2, 3, 1))
    with pytest.raises(ValueError, match="NCHW"):
        F.max_pool2d(t(xn), 2, return_mask=True, data_format="NHWC")
    with pytest.raises(ValueError, match="data_format"):
        F.avg_pool2d(t(x), 2, data_format="CHWN")


def test_adaptive_pools():
    x = distinct(2, 3, 7, 5)
    out = F.adaptive_avg_pool2d(t(x), [3, 2])
    np.testing.assert_allclose(out.numpy(), adaptive_np(x, 3, 2, "avg")[0], rtol=1e-12)
    out = F.adaptive_avg_pool2d(t(x), 4)
    np.testing.assert_allclose(out.numpy(), adaptive_np(x, 4, 4, "avg")[0], rtol=1e-12)
    out = F.adaptive_avg_pool2d(t(x), [None, 3])
    np.testing.assert_allclose(out.numpy(), adaptive_np(x, 7, 3, "avg")[0], rtol=1e-12)
    out = F.adaptive_avg_pool2d(t(x.transpose(0, 2, 3, 1)), [3, 2], data_format="NHWC")
    np.testing.assert_allclose(out.numpy(), adaptive_np(x, 3, 2, "avg")[0].transpose(0, 2, 3, 1), rtol=1e-12)
    with record_ops() as ops:
        out, mask = F.adaptive_max_pool2d(t(x), [3, 4], return_mask=True)
    assert ops == ["max_pool2d_with_index"]
    ref, ref_mask = adaptive_np(x, 3, 4, "max")
    np.testing.assert_allclose(out.numpy(), ref)
    np.testing.assert_array_equal(mask.numpy(), ref_mask)
    np.testing.assert_allclose(F.adaptive_max_pool2d(t(x), 1).numpy(), x.max(axis=(2, 3), keepdims=True))
    with pytest.raises(ValueError, match="output_size"):
        F.adaptive_avg_pool2d(t(x), [1, 2, 3])


def test_adaptive_avg_pool2d_grad_spreads_evenly():
    x = t(distinct(1, 1, 5, 4), stop_gradient=False)
    F.adaptive_avg_pool2d(x, [2, 3]).sum().backward()
    # each element receives 1/|bin| from every bin containing it
    ref = np.zeros((5, 4))
    for i in range(2):
        h0, h1 = (i * 5) // 2, math.ceil((i + 1) * 5 / 2)
        for j in range(3):
            w0, w1 = (j * 4) // 3, math.ceil((j + 1) * 4 / 3)
            ref[h0:h1, w0:w1] += 1.0 / ((h1 - h0) * (w1 - w0))
    np.testing.assert_allclose(x.grad.numpy()[0, 0], ref, rtol=1e-12)


def test_1d_pools():
    x = distinct(2, 3, 9)
    x4 = x[:, :, None, :]
    np.testing.assert_allclose(F.max_pool1d(t(x), 3, 2, padding=1).numpy(),
                               pool_np(x4, (1, 3), (1, 2), (0, 0, 1, 1))[:, :, 0])
    np.testing.assert_allclose(F.avg_pool1d(t(x), 2, padding=[1, 0], exclusive=False, ceil_mode=True).numpy(),
                               pool_np(x4, (1, 2), (1, 2), (0, 0, 1, 0), True, "avg", False)[:, :, 0])
    out, mask = F.max_pool1d(t(x), 2, return_mask=True)
    np.testing.assert_array_equal(np.take_along_axis(x, mask.numpy().astype(np.int64), 2), out.numpy())
    np.testing.assert_allclose(F.adaptive_avg_pool1d(t(x), 4).numpy(), adaptive_np(x4, 1, 4, "avg")[0][:, :, 0],
                               rtol=1e-12)
    out, mask = F.adaptive_max_pool1d(t(x), 4, return_mask=True)
    ref, ref_mask = adaptive_np(x4, 1, 4, "max")
    np.testing.assert_allclose(out.numpy(), ref[:, :, 0])
    np.testing.assert_array_equal(mask.numpy(), ref_mask[:, :, 0])
    with pytest.raises(ValueError, match="3-D"):
        F.max_pool1d(t(X), 2)


def test_pool_float32_dtype():
    x = X.astype(np.float32)
    assert F.max_pool2d(t(x), 2).dtype == paddle.float32
    assert F.avg_pool2d(t(x), 2, padding=1).dtype == paddle.float32
    assert F.adaptive_avg_pool2d(t(x), 3).dtype == paddle.float32


def test_pool_infer_meta_unknown_dims():
    f32 = np.dtype(np.float32)
    opdef = lookup("pool2d")
    meta = opdef.infer_meta(Meta((-1, 6, 28, 28), f32), **opdef.full_attrs(
        {"ksize": [2, 2], "strides": [2, 2], "pooling_type": "max"}))
    assert meta == Meta((-1, 6, 14, 14), f32)
    meta = opdef.infer_meta(Meta((-1, 6, 7, 7), f32), **opdef.full_attrs(
        {"ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1], "ceil_mode": True, "pooling_type": "avg"}))
    assert meta.shape == (-1, 6, 4, 4)
    meta = opdef.infer_meta(Meta((-1, -1, -1, 6), f32), **opdef.full_attrs(
        {"ksize": [2, 2], "strides": [2, 2], "padding_algorithm": "SAME", "data_format": "NHWC",
         "pooling_type": "max"}))
    assert meta.shape == (-1, -1, -1, 6)
    meta = opdef.infer_meta(Meta((-1, 6, -1, -1), f32), **opdef.full_attrs(
        {"ksize": [3, 2], "adaptive": True, "pooling_type": "avg"}))
    assert meta.shape == (-1, 6, 3, 2)
    meta = opdef.infer_meta(Meta((-1, 6, -1, -1), f32), **opdef.full_attrs(
        {"ksize": [1, 1], "global_pooling": True, "pooling_type": "avg"}))
    assert meta.shape == (-1, 6, 1, 1)
    opdef = lookup("max_pool2d_with_index")
    out, mask = opdef.infer_meta(Meta((-1, 3, 8, 8), f32), **opdef.full_attrs({"ksize": [2, 2], "strides": [2, 2]}))
    assert out == Meta((-1, 3, 4, 4), f32) and mask == Meta((-1, 3, 4, 4), np.dtype(np.int32))
