"""F.linear, dropout variants, label_smooth, normalize, cosine_similarity vs numpy."""
import numpy as np
import pytest

import runtime as paddle
import runtime.nn.functional as F

rng = np.random.default_rng(4)


def t(a, stop_gradient=True):
    return paddle.Tensor(np.asarray(a), stop_gradient=stop_gradient)


def test_linear():
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    w = rng.standard_normal((4, 5)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    np.testing.assert_allclose(F.linear(t(x), t(w), t(b)).numpy(), x @ w + b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(F.linear(t(x), t(w)).numpy(), x @ w, rtol=1e-5, atol=1e-6)
    wt = t(w.astype(np.float64), stop_gradient=False)
    bt = t(b.astype(np.float64), stop_gradient=False)
    x64 = x.astype(np.float64)
    F.linear(t(x64), wt, bt).sum().backward()
    np.testing.assert_allclose(wt.grad.numpy(), np.repeat(x64.reshape(-1, 4).sum(0)[:, None], 5, 1), rtol=1e-10)
    np.testing.assert_allclose(bt.grad.numpy(), np.full(5, 6.0))


def test_dropout_upscale_train_and_eval():
    x = rng.uniform(1, 2, (50, 40)).astype(np.float32)
    out = F.dropout(t(x), p=0.25)
    o = out.numpy()
    kept = o != 0
    assert abs(kept.mean() - 0.75) < 0.05
    np.testing.assert_allclose(o[kept], x[kept] / 0.75, rtol=1e-6)
    assert out.dtype == paddle.float32
    np.testing.assert_array_equal(F.dropout(t(x), p=0.25, training=False).numpy(), x)


def test_dropout_downscale_in_infer():
    x = rng.uniform(1, 2, (30, 30)).astype(np.float32)
    o = F.dropout(t(x), p=0.4, mode="downscale_in_infer").numpy()
    kept = o != 0
    np.testing.assert_array_equal(o[kept], x[kept])
    np.testing.assert_allclose(F.dropout(t(x), p=0.4, training=False, mode="downscale_in_infer").numpy(),
                               x * 0.6, rtol=1e-6)


def test_dropout_grad_uses_the_forward_mask():
    x = t(rng.uniform(1, 2, (20, 10)), stop_gradient=False)
    out = F.dropout(x, p=0.5)
    out.backward(paddle.Tensor(np.full((20, 10), 3.0)))
    kept = out.numpy() != 0
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, 6.0, 0.0))


def test_dropout_is_reproducible_under_seed():
    x = t(np.ones((8, 8), np.float32))
    paddle.seed(123)
    a = F.dropout(x, 0.5).numpy()
    paddle.seed(123)
    b = F.dropout(x, 0.5).numpy()
    np.testing.assert_array_equal(a, b)


def test_dropout_axis_drops_whole_rows():
    x = rng.uniform(1, 2, (40, 6))
    o = F.dropout(t(x), p=0.5, axis=0).numpy()
    rows_kept = (o != 0).all(axis=1)
    rows_dropped = (o == 0).all(axis=1)
    assert np.all(rows_kept | rows_dropped) and rows_kept.any() and rows_dropped.any()
    np.testing.assert_allclose(o[rows_kept], x[rows_kept] * 2)


def test_dropout2d_channels():
    x = rng.uniform(1, 2, (4, 10, 3, 3)).astype(np.float32)
    o = F.dropout2d(t(x), p=0.5).numpy()
    per_channel = o.reshape(4, 10, -1)
    assert np.all((per_channel != 0).all(-1) | (per_channel == 0).all(-1))


def test_dropout_errors_and_p0():
    x = t(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="p must be between 0 and 1, got 1.5"):
        F.dropout(x, 1.5)
    with pytest.raises(ValueError, match="mode must be"):
        F.dropout(x, 0.5, mode="bogus")
    assert F.dropout(x, 0.0) is x


def test_alpha_dropout_keeps_moments():
    paddle.seed(1)
    x = rng.standard_normal((200, 100)).astype(np.float32)
    o = F.alpha_dropout(t(x), p=0.2).numpy()
    assert abs(o.mean()) < 0.05 and abs(o.std() - 1) < 0.05
    np.testing.assert_array_equal(F.alpha_dropout(t(x), p=0.2, training=False).numpy(), x)


def test_label_smooth():
    y = np.eye(3, dtype=np.float32)[[0, 2]]
    np.testing.assert_allclose(F.label_smooth(t(y)).numpy(), y * 0.9 + 0.1 / 3, rtol=1e-6)
    prior = np.array([[0.5, 0.25, 0.25]], np.float32)
    np.testing.assert_allclose(F.label_smooth(t(y), t(prior), epsilon=0.2).numpy(), y * 0.8 + 0.2 * prior,
                               rtol=1e-6)
    with pytest.raises(ValueError, match="epsilon must be between 0 and 1"):
        F.label_smooth(t(y), epsilon=2.0)


def test_normalize():
    x = np.array([[3.0, 4.0], [0.0, 0.0]], np.float32)
    np.testing.assert_allclose(F.normalize(t(x)).numpy(), [[0.6, 0.8], [0, 0]], rtol=1e-6)
    y = rng.standard_normal((3, 4))
    np.testing.assert_allclose(F.normalize(t(y), p=1, axis=0).numpy(), y / np.abs(y).sum(0), rtol=1e-10)


def test_cosine_similarity():
    a, b = rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    ref = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    np.testing.assert_allclose(F.cosine_similarity(t(a), t(b)).numpy(), ref, rtol=1e-10)


def test_sequence_mask():
    lengths = paddle.to_tensor(np.array([2, 0, 3], np.int64))
    m = F.sequence_mask(lengths, maxlen=4)
    assert m.dtype == paddle.int64
    np.testing.assert_array_equal(m.numpy(), [[1, 1, 0, 0], [0, 0, 0, 0], [1, 1, 1, 0]])
    m = F.sequence_mask(paddle.to_tensor(np.array([[1, 3]], np.int64)), dtype="float32")   # maxlen = max length
    assert m.shape == [1, 2, 3] and m.dtype == paddle.float32
    np.testing.assert_array_equal(m.numpy(), [[[1, 0, 0], [1, 1, 1]]])


def _sdpa_ref(q, k, v, mask=None, causal=False, scale=None):
    q, k, v = (a.transpose(0, 2, 1, 3).astype(np.float64) for a in (q, k, v))
    if k.shape[1] != q.shape[1]:
        k, v = (np.repeat(a, q.shape[1] // a.shape[1], axis=1) for a in (k, v))
    s = q @ k.transpose(0, 1, 3, 2) * (scale if scale is not None else 1 / np.sqrt(q.shape[-1]))
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == bool else s + mask
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return (p @ v).transpose(0, 2, 1, 3)


def test_scaled_dot_product_attention():
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal(s).astype(np.float32) for s in ((2, 4, 2, 3), (2, 5, 2, 3), (2, 5, 2, 3)))
    bm = rng.random((2, 1, 4, 5)) > 0.3
    bm[..., 0] = True                              # no fully masked row
    fm = rng.standard_normal((4, 5)).astype(np.float32)
    T = paddle.to_tensor
    sdpa = F.scaled_dot_product_attention
    np.testing.assert_allclose(sdpa(T(q), T(k), T(v)).numpy(), _sdpa_ref(q, k, v), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sdpa(T(q), T(k), T(v), attn_mask=T(bm)).numpy(), _sdpa_ref(q, k, v, bm),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sdpa(T(q), T(k), T(v), attn_mask=T(fm), scale=0.3).numpy(),
                               _sdpa_ref(q, k, v, fm, scale=0.3), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sdpa(T(q), T(k[:, :4]), T(v[:, :4]), is_causal=True).numpy(),
                               _sdpa_ref(q, k[:, :4], v[:, :4], causal=True), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sdpa(T(q), T(k[:, :, :1]), T(v[:, :, :1])).numpy(),
                               _sdpa_ref(q, k[:, :, :1], v[:, :, :1]), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="query must be 4-D"):
        sdpa(T(q[0]), T(k), T(v))
