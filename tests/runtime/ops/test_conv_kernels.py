"""The convolution kernel's internal choices agree with each other: the whole-batch GEMM and the
per-sample GEMM, the scratch-memory padding and ``_pad_zero``, the fused kernels and the separate ops."""
import numpy as np
import pytest

from runtime.ops import conv
from runtime.ops.registry import lookup

rng = np.random.default_rng(3)


def test_pad_scratch_equals_pad_zero_whatever_the_scratch_held():
    x = rng.standard_normal((2, 3, 5, 4)).astype(np.float32)
    for pads in ([1, 1, 1, 1], [0, 2, 1, 0], [3, 0, 0, 2]):
        shape = (2, 3, 5 + pads[0] + pads[1], 4 + pads[2] + pads[3])
        conv.scratch("pad", shape, np.float32)[...] = np.nan      # garbage a previous call left
        np.testing.assert_array_equal(conv._pad_scratch(x, pads), conv._pad_zero(x, pads))
    assert conv._pad_scratch(x, [0, 0, 0, 0]) is x


@pytest.mark.parametrize("shape,w,attrs", [
    ((3, 4, 7, 6), (5, 4, 3, 3), {"paddings": [1, 1]}),
    ((2, 4, 9, 8), (3, 4, 3, 2), {"strides": [2, 1], "paddings": [1, 0, 2, 1], "dilations": [2, 2]}),
    ((4, 6, 5, 5), (7, 6, 1, 1), {}),
    ((2, 5, 6, 4), (3, 4, 3, 3), {"paddings": [1, 1], "data_format": "NHWC"}),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_whole_batch_gemm_equals_per_sample(monkeypatch, shape, w, attrs, dtype):
    x = rng.standard_normal(shape).astype(dtype)
    f = rng.standard_normal(w).astype(dtype)
    assert conv._whole_batch_gemm(shape[0], 2, 2, 9, 1)
    whole = conv._conv2d(x, f, **attrs)
    monkeypatch.setattr(conv, "_whole_batch_gemm", lambda *a: False)
    per_sample = conv._conv2d(x, f, **attrs)
    assert whole.dtype == per_sample.dtype == dtype and whole.shape == per_sample.shape
    assert whole.flags.c_contiguous
    np.testing.assert_allclose(whole, per_sample, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)


def _bn_params(m, dtype):
    return (rng.uniform(0.5, 1.5, m).astype(dtype), rng.standard_normal(m).astype(dtype),
            rng.standard_normal(m).astype(dtype), rng.uniform(0.5, 2.0, m).astype(dtype))


@pytest.mark.parametrize("batch", [1, 3])
@pytest.mark.parametrize("x_shape,w_shape,groups", [((6, 8, 8), (4, 6, 3, 3), 1),      # filter folded
                                                     ((32, 2, 2), (8, 32, 3, 3), 1),    # output scaled
                                                     ((4, 7, 7), (4, 1, 3, 3), 4)])     # depthwise
def test_fused_conv_bn_equals_separate_ops(batch, x_shape, w_shape, groups):
    x = rng.standard_normal((batch,) + x_shape).astype(np.float32)
    w = rng.standard_normal(w_shape).astype(np.float32)
    scale, bias, mean, var = _bn_params(w_shape[0], np.float32)
    res = rng.standard_normal((batch, w_shape[0]) + x_shape[1:]).astype(np.float32)
    attrs = {"paddings": [1, 1], "groups": groups}
    y = conv._conv2d(x, w, **attrs)
    y = lookup("batch_norm").kernel(y, scale, bias, mean, var, is_test=True)[0]
    expected = np.maximum(y + res, 0)
    got = conv._conv2d_bn(x, w, scale, bias, mean, var, res, activation="relu", **attrs)
    assert got.dtype == np.float32 and got.flags.c_contiguous
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_fused_conv_bias_act_same_bits_as_separate_ops():
    x = rng.standard_normal((3, 4, 6, 6)).astype(np.float32)
    w = rng.standard_normal((5, 4, 3, 3)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    for n in (1, 3):
        y = conv._conv2d(x[:n], w, paddings=[1, 1]) + b.reshape(1, -1, 1, 1)
        np.testing.assert_array_equal(conv._conv2d_bias_act(x[:n], w, b, paddings=[1, 1], activation="relu"),
                                      np.maximum(y, 0))


def test_fused_kernels_reject_unknown_activation():
    x, w = np.ones((1, 1, 3, 3), np.float32), np.ones((1, 1, 1, 1), np.float32)
    with pytest.raises(ValueError, match="activation must be one of"):
        conv._conv2d_bias_act(x, w, np.zeros(1, np.float32), activation="gelu")
    with pytest.raises(ValueError, match="activation must be one of"):
        conv._conv2d_bn(x, w, None, None, np.zeros(1, np.float32), np.ones(1, np.float32), activation="tanh")


@pytest.mark.parametrize("shape,w,attrs", [
    ((3, 4, 7, 6), (5, 4, 3, 3), {"paddings": [1, 1]}),                                  # whole batch
    ((1, 3, 20, 19), (4, 3, 5, 3), {"paddings": [2, 0, 1, 1], "dilations": [1, 2]}),      # per sample
    ((2, 4, 18, 17), (6, 2, 3, 3), {"paddings": [1, 1], "groups": 2}),                   # per sample, groups
    ((2, 5, 6, 4), (3, 5, 2, 2), {"data_format": "NHWC"}),                              # strided rows: not wide
    ((2, 3, 9, 9), (4, 3, 1, 1), {"paddings": [1, 1]}),                                  # 1x1 with padding
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_wide_columns_equal_strided_columns(monkeypatch, shape, w, attrs, dtype):
    x = rng.standard_normal(shape).astype(dtype)
    if attrs.get("data_format") == "NHWC":
        x = x.transpose(0, 2, 3, 1).copy()
    f = rng.standard_normal(w).astype(dtype)
    x[0, 0, 0, 0] = np.inf                  # non-finite inputs land in the same outputs
    b = rng.standard_normal(w[0]).astype(dtype)
    scale, bias, mean, var = _bn_params(w[0], dtype)
    calls = []
    real_wide = conv._conv_product_wide
    monkeypatch.setattr(conv, "_conv_product_wide", lambda *a: calls.append(1) or real_wide(*a))
    got = (conv._conv2d(x, f, **attrs), conv._conv2d_bias_act(x, f, b, activation="relu", **attrs),
           conv._conv2d_bn(x, f, scale, bias, mean, var, **attrs))
    for _ in range(2):                      # garbage a previous call left in the scratch columns changes nothing
        conv.scratch("cols", (1 << 15,), np.float64)[...] = np.nan
        np.testing.assert_array_equal(conv._conv2d(x, f, **attrs), got[0])
    assert bool(calls) == (w[2:] != (1, 1) and attrs.get("data_format") != "NHWC")
    monkeypatch.setattr(conv, "_wide_ok", lambda *a: False)
    want = (conv._conv2d(x, f, **attrs), conv._conv2d_bias_act(x, f, b, activation="relu", **attrs),
            conv._conv2d_bn(x, f, scale, bias, mean, var, **attrs))
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    for g, e in zip(got, want):
        assert g.dtype == e.dtype == dtype and g.shape == e.shape and g.flags.c_contiguous
        np.testing.assert_array_equal(np.isfinite(g), np.isfinite(e))
        np.testing.assert_allclose(g, e, **tol)


def test_wide_columns_used_for_stride_one_only():
    xp = np.zeros((2, 3, 8, 9), np.float32)
    assert conv._wide_ok(xp, 3, 3, [1, 1])
    assert not conv._wide_ok(xp, 3, 3, [2, 1])
    assert not conv._wide_ok(xp, 1, 1, [1, 1])
    assert not conv._wide_ok(xp.transpose(0, 1, 3, 2), 3, 3, [1, 1])
    assert not conv._wide_ok(xp, 3, 3, [1, 1], M=256, ow=7)       # the GEMM's extra columns cost more
    assert not conv._wide_ok(xp, 3, 3, [1, 1], M=16, ow=7, whole_batch=False)    # 16 > 3*3*3 / 2: the crop costs more
    assert conv._wide_ok(xp, 3, 3, [1, 1], M=16, ow=7, whole_batch=True)
