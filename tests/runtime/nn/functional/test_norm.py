"""paddle.nn.functional normalisation vs numpy written out by hand."""
import numpy as np
import pytest

import runtime as paddle
import runtime.nn.functional as F

rng = np.random.default_rng(3)


def t(a, stop_gradient=True):
    return paddle.Tensor(np.asarray(a), stop_gradient=stop_gradient)


def np_bn(x, mean, var, w, b, eps=1e-5, c_axis=1):
    shape = [1] * x.ndim
    shape[c_axis] = -1
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * w.reshape(shape) + b.reshape(shape)


def test_batch_norm_training_updates_running_stats_over_two_steps():
    C = 3
    rm = t(np.zeros(C, np.float32))
    rv = t(np.ones(C, np.float32))
    w = t(rng.uniform(0.5, 1.5, C).astype(np.float32))
    b = t(rng.standard_normal(C).astype(np.float32))
    exp_m, exp_v = np.zeros(C), np.ones(C)
    for step in range(2):
        x = rng.standard_normal((4, C, 2, 3)).astype(np.float32) * (step + 1) + step
        y = F.batch_norm(t(x), rm, rv, w, b, training=True, momentum=0.8)
        bm = x.mean(axis=(0, 2, 3))
        bv = x.var(axis=(0, 2, 3))                     # biased, as Paddle uses for the update
        exp_m = 0.8 * exp_m + 0.2 * bm
        exp_v = 0.8 * exp_v + 0.2 * bv
        np.testing.assert_allclose(y.numpy(), np_bn(x, bm, bv, w.numpy(), b.numpy()), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(rm.numpy(), exp_m, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(rv.numpy(), exp_v, rtol=1e-5, atol=1e-6)
        assert rm.dtype == paddle.float32 and y.dtype == paddle.float32
    assert rm.stop_gradient and rv.stop_gradient


def test_batch_norm_eval_uses_running_stats_and_leaves_them():
    C = 2
    x = rng.standard_normal((3, C, 4)).astype(np.float32)
    m = rng.standard_normal(C).astype(np.float32)
    v = rng.uniform(0.5, 2, C).astype(np.float32)
    rm, rv = t(m.copy()), t(v.copy())
    y = F.batch_norm(t(x), rm, rv, t(np.ones(C, np.float32)), t(np.zeros(C, np.float32)))
    np.testing.assert_allclose(y.numpy(), np_bn(x, m, v, np.ones(C), np.zeros(C)), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(rm.numpy(), m)
    np.testing.assert_array_equal(rv.numpy(), v)


def test_batch_norm_use_global_stats_in_training_does_not_update():
    C = 2
    x = rng.standard_normal((5, C)).astype(np.float32)
    rm, rv = t(np.full(C, 0.5, np.float32)), t(np.full(C, 2.0, np.float32))
    y = F.batch_norm(t(x), rm, rv, training=True, use_global_stats=True)
    np.testing.assert_allclose(y.numpy(), (x - 0.5) / np.sqrt(2.0 + 1e-5), rtol=1e-5)
    np.testing.assert_array_equal(rm.numpy(), [0.5, 0.5])


def test_batch_norm_nhwc_and_grad():
    C = 3
    x = rng.standard_normal((2, 2, 2, C))
    w = t(rng.uniform(0.5, 1.5, C), stop_gradient=False)
    b = t(rng.standard_normal(C), stop_gradient=False)
    xt = t(x, stop_gradient=False)
    y = F.batch_norm(xt, t(np.zeros(C)), t(np.ones(C)), w, b, training=True, data_format="NHWC")
    flat = x.reshape(-1, C)
    xhat = (x - flat.mean(0)) / np.sqrt(flat.var(0) + 1e-5)
    np.testing.assert_allclose(y.numpy(), xhat * w.numpy() + b.numpy(), rtol=1e-6)
    (y * y).sum().backward()
    # d/dw sum(y^2) = sum(2 y xhat); d/db = sum(2 y)
    np.testing.assert_allclose(w.grad.numpy(), (2 * y.numpy() * xhat).reshape(-1, C).sum(0), rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), (2 * y.numpy()).reshape(-1, C).sum(0), rtol=1e-6)
    assert xt.grad.shape == [2, 2, 2, C]


def test_batch_norm_bad_args():
    x = t(np.zeros((2, 3, 4), np.float32))
    with pytest.raises(ValueError, match="data_format"):
        F.batch_norm(x, t(np.zeros(3, np.float32)), t(np.ones(3, np.float32)), data_format="NWC")
    with pytest.raises(ValueError, match="running_mean has 4 entries but x has 3 channels"):
        F.batch_norm(x, t(np.zeros(4, np.float32)), t(np.ones(4, np.float32)))


def np_ln(x, k, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - k, x.ndim))
    y = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + eps)
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return y


def test_layer_norm_int_and_list_shapes():
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    w = rng.uniform(0.5, 1.5, 4).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    y = F.layer_norm(t(x), 4, t(w), t(b))
    np.testing.assert_allclose(y.numpy(), np_ln(x, 1, w, b), rtol=1e-4, atol=1e-5)
    w2 = rng.uniform(0.5, 1.5, (3, 4)).astype(np.float32)
    y2 = F.layer_norm(t(x), [3, 4], t(w2), epsilon=1e-3)
    np.testing.assert_allclose(y2.numpy(), np_ln(x, 2, w2, eps=1e-3), rtol=1e-4, atol=1e-5)
    assert y2.dtype == paddle.float32


def test_layer_norm_grad_reaches_2d_weight():
    x = rng.standard_normal((2, 3, 4))
    w = t(rng.uniform(0.5, 1.5, (3, 4)), stop_gradient=False)
    y = F.layer_norm(t(x), [3, 4], w)
    y.sum().backward()
    assert w.grad.shape == [3, 4]
    np.testing.assert_allclose(w.grad.numpy(), np_ln(x, 2).sum(0), rtol=1e-6, atol=1e-9)


def test_layer_norm_shape_mismatch():
    with pytest.raises(ValueError, match=r"normalized_shape \[5\] must match the trailing dimensions"):
        F.layer_norm(t(np.zeros((2, 4))), 5)


def test_instance_norm():
    x = rng.standard_normal((2, 3, 2, 2))
    w, b = rng.uniform(0.5, 1.5, 3), rng.standard_normal(3)
    y = F.instance_norm(t(x), weight=t(w), bias=t(b), eps=1e-5)
    ref = np.empty_like(x)
    for n in range(2):
        for c in range(3):
            v = x[n, c]
            ref[n, c] = (v - v.mean()) / np.sqrt(v.var() + 1e-5) * w[c] + b[c]
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-6)


def test_group_norm_nchw_and_nhwc():
    x = rng.standard_normal((2, 4, 3))
    w, b = rng.uniform(0.5, 1.5, 4), rng.standard_normal(4)
    y = F.group_norm(t(x), 2, weight=t(w), bias=t(b), data_format="NCL")
    ref = np.empty_like(x)
    for n in range(2):
        for g in range(2):
            v = x[n, 2 * g:2 * g + 2]
            ref[n, 2 * g:2 * g + 2] = (v - v.mean()) / np.sqrt(v.var() + 1e-5)
    ref = ref * w[:, None] + b[:, None]
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-6)
    y2 = F.group_norm(t(np.ascontiguousarray(x.transpose(0, 2, 1))), 2, weight=t(w), bias=t(b), data_format="NLC")
    np.testing.assert_allclose(y2.numpy(), ref.transpose(0, 2, 1), rtol=1e-6)
    with pytest.raises(ValueError, match="divisible by num_groups"):
        F.group_norm(t(x), 3)


def test_local_response_norm_and_its_layer():
    # nn.LocalResponseNorm called F.local_response_norm, which did not exist
    x = np.random.default_rng(2).standard_normal((2, 5, 3)).astype(np.float32)
    size, alpha, beta, k = 4, 0.2, 0.6, 1.5
    want = np.empty_like(x)
    for c in range(5):
        lo, hi = max(0, c - size // 2), min(5, c + (size - 1) // 2 + 1)
        s = (x[:, lo:hi] ** 2).sum(axis=1)
        want[:, c] = x[:, c] / (k + alpha * s / size) ** beta
    got = paddle.nn.functional.local_response_norm(paddle.to_tensor(x), size, alpha, beta, k, data_format="NCL")
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)
    layer = paddle.nn.LocalResponseNorm(size, alpha, beta, k, data_format="NCL")
    np.testing.assert_allclose(layer(paddle.to_tensor(x)).numpy(), want, rtol=1e-5)
    nlc = paddle.nn.functional.local_response_norm(paddle.to_tensor(x.transpose(0, 2, 1)), size, alpha, beta, k,
                                                   data_format="NLC")
    np.testing.assert_allclose(nlc.numpy(), want.transpose(0, 2, 1), rtol=1e-5)
