"""paddle.nn.functional losses vs numpy computed by hand (Paddle's reduction rules included)."""
import numpy as np
import pytest

import runtime as paddle
import runtime.nn.functional as F

rng = np.random.default_rng(8)


def t(a, stop_gradient=True):
    return paddle.Tensor(np.asarray(a), stop_gradient=stop_gradient)


def np_log_softmax(z, axis=-1):
    z = z - z.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


X = rng.standard_normal((5, 4))
LS = np_log_softmax(X)
LAB = np.array([1, 3, 0, 2, 1])
NL = -LS[np.arange(5), LAB]                 # per-sample loss
W = np.array([0.5, 1.0, 2.0, 1.5])


def test_cross_entropy_basic_label_shapes():
    assert F.cross_entropy(t(X), t(LAB)).shape == []
    np.testing.assert_allclose(F.cross_entropy(t(X), t(LAB)).numpy(), NL.mean(), rtol=1e-10)
    np.testing.assert_allclose(F.cross_entropy(t(X), t(LAB[:, None])).numpy(), NL.mean(), rtol=1e-10)
    none1 = F.cross_entropy(t(X), t(LAB), reduction="none")
    none2 = F.cross_entropy(t(X), t(LAB[:, None]), reduction="none")
    assert none1.shape == [5] and none2.shape == [5, 1]
    np.testing.assert_allclose(none1.numpy(), NL, rtol=1e-10)
    np.testing.assert_allclose(F.cross_entropy(t(X), t(LAB), reduction="sum").numpy(), NL.sum(), rtol=1e-10)


def test_cross_entropy_float32_keeps_dtype():
    out = F.cross_entropy(t(X.astype(np.float32)), t(LAB))
    assert out.dtype == paddle.float32
    np.testing.assert_allclose(out.numpy(), NL.mean(), rtol=1e-5)


def test_cross_entropy_weighted_mean():
    wl = W[LAB]
    np.testing.assert_allclose(F.cross_entropy(t(X), t(LAB), weight=t(W)).numpy(),
                               (NL * wl).sum() / wl.sum(), rtol=1e-10)
    np.testing.assert_allclose(F.cross_entropy(t(X), t(LAB), weight=t(W), reduction="none").numpy(),
                               NL * wl, rtol=1e-10)
    np.testing.assert_allclose(F.cross_entropy(t(X), t(LAB), weight=t(W), reduction="sum").numpy(),
                               (NL * wl).sum(), rtol=1e-10)


def test_cross_entropy_ignore_index_negative_divides_by_all_labels():
    lab = np.array([1, -100, 0, 2, -100])
    valid = lab != -100
    per = np.where(valid, -LS[np.arange(5), np.where(valid, lab, 0)], 0)
    np.testing.assert_allclose(F.cross_entropy(t(X), t(lab), reduction="none").numpy(), per, rtol=1e-10)
    # Paddle: with a negative ignore_index and no weight, 'mean' divides by every label
    np.testing.assert_allclose(F.cross_entropy(t(X), t(lab)).numpy(), per.sum() / 5, rtol=1e-10)
    # with a weight, the ignored labels are out of both sums
    wl = np.where(valid, W[np.where(valid, lab, 0)], 0)
    np.testing.assert_allclose(F.cross_entropy(t(X), t(lab), weight=t(W)).numpy(),
                               (per * wl).sum() / wl.sum(), rtol=1e-10)


def test_cross_entropy_ignore_index_in_range_divides_by_valid_count():
    lab = np.array([1, 3, 0, 2, 3])
    valid = lab != 3
    per = np.where(valid, -LS[np.arange(5), lab], 0)
    np.testing.assert_allclose(F.cross_entropy(t(X), t(lab), ignore_index=3).numpy(), per.sum() / valid.sum(),
                               rtol=1e-10)
    wl = np.where(valid, W[lab], 0)
    np.testing.assert_allclose(F.cross_entropy(t(X), t(lab[:, None]), ignore_index=3, weight=t(W)).numpy(),
                               (per * wl).sum() / wl.sum(), rtol=1e-10)
    # every label ignored: 0, not nan
    assert F.cross_entropy(t(X), t(np.full(5, 3)), ignore_index=3).item() == 0.0
    assert F.cross_entropy(t(X), t(np.full(5, 3)), ignore_index=3, weight=t(W)).item() == 0.0


def test_cross_entropy_grad_with_weight_and_ignore():
    lab = np.array([1, -100, 0, 2, 3])
    x = t(X.copy(), stop_gradient=False)
    F.cross_entropy(x, t(lab), weight=t(W)).backward()
    valid = lab != -100
    safe = np.where(valid, lab, 0)
    wl = np.where(valid, W[safe], 0)
    sm = np.exp(LS)
    onehot = np.eye(4)[safe]
    ref = (sm - onehot) * (wl / wl.sum())[:, None]
    np.testing.assert_allclose(x.grad.numpy(), ref, rtol=1e-9, atol=1e-12)


def test_cross_entropy_soft_labels_and_weight():
    soft = rng.uniform(0.1, 1, (5, 4))
    soft /= soft.sum(1, keepdims=True)
    per = -(soft * LS).sum(1)
    np.testing.assert_allclose(F.cross_entropy(t(X), t(soft), soft_label=True).numpy(), per.mean(), rtol=1e-10)
    assert F.cross_entropy(t(X), t(soft), soft_label=True, reduction="none").shape == [5, 1]
    sw = soft @ W
    np.testing.assert_allclose(F.cross_entropy(t(X), t(soft), soft_label=True, weight=t(W)).numpy(),
                               (per * sw).sum() / sw.sum(), rtol=1e-10)


def test_cross_entropy_label_smoothing():
    eps = 0.1
    target = np.eye(4)[LAB] * (1 - eps) + eps / 4
    per = -(target * LS).sum(1)
    np.testing.assert_allclose(F.cross_entropy(t(X), t(LAB), label_smoothing=eps).numpy(), per.mean(), rtol=1e-10)
    sw = target @ W
    np.testing.assert_allclose(F.cross_entropy(t(X), t(LAB), weight=t(W), label_smoothing=eps).numpy(),
                               (per * sw).sum() / sw.sum(), rtol=1e-10)


def test_cross_entropy_axis1_and_no_softmax():
    x = rng.standard_normal((2, 4, 3))
    lab = np.array([[1, 0, 3], [2, 2, 0]])
    ls = np_log_softmax(x, axis=1)
    per = -np.take_along_axis(ls, lab[:, None, :], axis=1)[:, 0, :]
    out = F.cross_entropy(t(x), t(lab), axis=1, reduction="none")
    assert out.shape == [2, 3]
    np.testing.assert_allclose(out.numpy(), per, rtol=1e-10)
    wl = W[lab]
    np.testing.assert_allclose(F.cross_entropy(t(x), t(lab), axis=1, weight=t(W)).numpy(),
                               (per * wl).sum() / wl.sum(), rtol=1e-10)
    p = np.exp(LS)
    np.testing.assert_allclose(F.cross_entropy(t(p), t(LAB), use_softmax=False).numpy(), NL.mean(), rtol=1e-10)


def test_cross_entropy_errors():
    with pytest.raises(ValueError, match="reduction must be 'none', 'mean' or 'sum', got 'avg'"):
        F.cross_entropy(t(X), t(LAB), reduction="avg")
    with pytest.raises(ValueError, match=r"class dimension \(4\) must equal weight's class dimension \(3\)"):
        F.cross_entropy(t(X), t(LAB), weight=t(W[:3]))
    with pytest.raises(IndexError, match="label value 7 is out of range"):
        F.cross_entropy(t(X), t(np.array([1, 3, 0, 7, 1])))
    with pytest.raises(ValueError, match=r"hard labels of shape \[6, 1\] do not match the input shape \[5, 4\]"):
        F.cross_entropy(t(X), t(np.array([1, 3, 0, 2, 1, 1])))


def test_softmax_with_cross_entropy():
    loss, sm = F.softmax_with_cross_entropy(t(X), t(LAB[:, None]), return_softmax=True)
    assert loss.shape == [5, 1] and sm.shape == [5, 4]
    np.testing.assert_allclose(loss.numpy()[:, 0], NL, rtol=1e-10)
    np.testing.assert_allclose(sm.numpy(), np.exp(LS), rtol=1e-10)


def test_nll_loss():
    lab = np.array([1, -100, 0, 2, 3])
    valid = lab != -100
    per = np.where(valid, -LS[np.arange(5), np.where(valid, lab, 0)], 0)
    np.testing.assert_allclose(F.nll_loss(t(LS), t(lab)).numpy(), per.sum() / valid.sum(), rtol=1e-10)
    wl = np.where(valid, W[np.where(valid, lab, 0)], 0)
    np.testing.assert_allclose(F.nll_loss(t(LS), t(lab), weight=t(W)).numpy(), (per * wl).sum() / wl.sum(),
                               rtol=1e-10)
    np.testing.assert_allclose(F.nll_loss(t(LS), t(lab), reduction="none").numpy(), per, rtol=1e-10)
    with pytest.raises(ValueError, match="2 or more dimensions"):
        F.nll_loss(t(LS[0]), t(lab[:1]))


def test_mse_l1_and_square_error():
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    np.testing.assert_allclose(F.mse_loss(t(a), t(b)).numpy(), ((a - b) ** 2).mean(), rtol=1e-10)
    np.testing.assert_allclose(F.mse_loss(t(a), t(b), "sum").numpy(), ((a - b) ** 2).sum(), rtol=1e-10)
    np.testing.assert_allclose(F.l1_loss(t(a), t(b), reduction="none").numpy(), np.abs(a - b), rtol=1e-10)
    np.testing.assert_allclose(F.square_error_cost(t(a), t(b)).numpy(), (a - b) ** 2, rtol=1e-10)
    assert F.mse_loss(t(a), t(b)).shape == []


def test_binary_cross_entropy():
    p = rng.uniform(0.05, 0.95, (3, 4))
    y = rng.integers(0, 2, (3, 4)).astype(np.float64)
    w = rng.uniform(0.5, 2, 4)
    per = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    np.testing.assert_allclose(F.binary_cross_entropy(t(p), t(y)).numpy(), per.mean(), rtol=1e-10)
    np.testing.assert_allclose(F.binary_cross_entropy(t(p), t(y), weight=t(w), reduction="sum").numpy(),
                               (per * w).sum(), rtol=1e-10)
    # log is clamped at -100, as in Paddle
    np.testing.assert_allclose(F.binary_cross_entropy(t(np.array([0.0, 1.0])), t(np.array([1.0, 0.0])),
                                                      reduction="none").numpy(), [100.0, 100.0])


def test_binary_cross_entropy_with_logits_pos_weight():
    z = rng.standard_normal((3, 4)) * 3
    y = rng.integers(0, 2, (3, 4)).astype(np.float64)
    pw = rng.uniform(0.5, 3, 4)
    w = rng.uniform(0.5, 2, (3, 4))
    s = 1 / (1 + np.exp(-z))
    per = -(pw * y * np.log(s) + (1 - y) * np.log(1 - s))
    out = F.binary_cross_entropy_with_logits(t(z), t(y), weight=t(w), pos_weight=t(pw), reduction="none")
    np.testing.assert_allclose(out.numpy(), per * w, rtol=1e-9)
    zt = t(z, stop_gradient=False)
    F.binary_cross_entropy_with_logits(zt, t(y)).backward()
    np.testing.assert_allclose(zt.grad.numpy(), (s - y) / 12, rtol=1e-9)


def test_smooth_l1_loss():
    a = np.array([0.0, 0.5, 3.0, -2.0])
    b = np.array([0.2, 2.0, 0.0, -2.1])
    r = np.abs(a - b)
    for delta in (1.0, 2.0):
        ref = np.where(r <= delta, 0.5 * r ** 2, delta * (r - 0.5 * delta))
        np.testing.assert_allclose(F.smooth_l1_loss(t(a), t(b), reduction="none", delta=delta).numpy(), ref)
        np.testing.assert_allclose(F.smooth_l1_loss(t(a), t(b), reduction="none", delta=delta,
                                                    is_huber=False).numpy(), ref / delta)
    np.testing.assert_allclose(F.smooth_l1_loss(t(a), t(b)).numpy(),
                               np.where(r <= 1, 0.5 * r ** 2, r - 0.5).mean())


def test_kl_div():
    x = np_log_softmax(rng.standard_normal((2, 3)))
    y = np.array([[0.2, 0.0, 0.8], [0.5, 0.25, 0.25]])
    per = np.where(y > 0, y * (np.log(np.where(y > 0, y, 1)) - x), 0)
    np.testing.assert_allclose(F.kl_div(t(x), t(y), reduction="none").numpy(), per, rtol=1e-10)
    np.testing.assert_allclose(F.kl_div(t(x), t(y)).numpy(), per.mean(), rtol=1e-10)
    np.testing.assert_allclose(F.kl_div(t(x), t(y), reduction="batchmean").numpy(), per.sum() / 2, rtol=1e-10)
    ly = np.log(np.array([[0.2, 0.3, 0.5], [0.5, 0.25, 0.25]]))
    np.testing.assert_allclose(F.kl_div(t(x), t(ly), reduction="sum", log_target=True).numpy(),
                               (np.exp(ly) * (ly - x)).sum(), rtol=1e-10)
    with pytest.raises(ValueError, match="batchmean"):
        F.kl_div(t(x), t(y), reduction="avg")


def test_margin_ranking_loss():
    a, b = rng.standard_normal(6), rng.standard_normal(6)
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0, 1.0])
    ref = np.maximum(0, -y * (a - b) + 0.1)
    np.testing.assert_allclose(F.margin_ranking_loss(t(a), t(b), t(y), margin=0.1, reduction="none").numpy(), ref,
                               rtol=1e-10)
    np.testing.assert_allclose(F.margin_ranking_loss(t(a), t(b), t(y), margin=0.1).numpy(), ref.mean(), rtol=1e-10)


def test_log_loss():
    p = rng.uniform(0.1, 0.9, (4, 1))
    y = rng.integers(0, 2, (4, 1)).astype(np.float64)
    ref = -y * np.log(p + 1e-4) - (1 - y) * np.log(1 - p + 1e-4)
    np.testing.assert_allclose(F.log_loss(t(p), t(y)).numpy(), ref, rtol=1e-10)
