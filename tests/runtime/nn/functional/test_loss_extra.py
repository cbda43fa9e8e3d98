"""The margin / embedding / likelihood losses and their layers against numpy formulas, their gradients
against finite differences, static graphs against eager, and argument errors."""
import math

import numpy as np
import pytest

import runtime as paddle
import runtime.nn.functional as F
from runtime import static

rng = np.random.default_rng(24)
X, P, N = rng.standard_normal((5, 4)), rng.standard_normal((5, 4)), rng.standard_normal((5, 4))
SIGN = np.sign(rng.standard_normal(5))
LAB = np.array([0, 3, 1, 2, 1])
VAR = np.abs(rng.standard_normal((5, 4))) + 0.2


def t(a, stop_gradient=True):
    return paddle.Tensor(np.asarray(a), stop_gradient=stop_gradient)


def dist(a, b, p=2.0, eps=1e-6):
    return (np.abs(a - b + eps) ** p).sum(-1) ** (1 / p)


def softplus(v):
    return np.log1p(np.exp(v))


REFS = {
    "hinge_embedding_loss": (lambda: F.hinge_embedding_loss(t(X), t(np.sign(P)), margin=0.5, reduction="none"),
                             lambda: np.where(np.sign(P) == 1, X, 0) + np.where(np.sign(P) == -1,
                                                                               np.maximum(0.5 - X, 0), 0)),
    "cosine_embedding_loss": (lambda: F.cosine_embedding_loss(t(X), t(P), t(SIGN), margin=0.1, reduction="none"),
                              lambda: (lambda c: np.where(SIGN == 1, 1 - c, np.maximum(c - 0.1, 0)))(
                                  (X * P).sum(-1) / np.sqrt(((X ** 2).sum(-1) + 1e-11) * ((P ** 2).sum(-1) + 1e-11)))),
    "triplet_margin_loss": (lambda: F.triplet_margin_loss(t(X), t(P), t(N), margin=1.5, p=1, swap=True,
                                                          reduction="none"),
                            lambda: np.maximum(dist(X, P, 1) - np.minimum(dist(X, N, 1), dist(P, N, 1)) + 1.5, 0)),
    "triplet_margin_with_distance_loss": (
        lambda: F.triplet_margin_with_distance_loss(t(X), t(P), t(N), distance_function=lambda a, b: (a - b).abs()
                                                    .sum(-1), reduction="none"),
        lambda: np.maximum(np.abs(X - P).sum(-1) - np.abs(X - N).sum(-1) + 1.0, 0)),
    "multi_margin_loss": (lambda: F.multi_margin_loss(t(X), t(LAB), p=2, margin=0.75, weight=t(np.arange(1.0, 5.0)),
                                                      reduction="none"),
                          lambda: np.array([sum(np.arange(1.0, 5.0)[y] * max(0.75 - X[i, y] + X[i, j], 0) ** 2
                                                for j in range(4) if j != y) / 4 for i, y in enumerate(LAB)])),
    "multi_label_soft_margin_loss": (
        lambda: F.multi_label_soft_margin_loss(t(X), t((P > 0) * 1.0), weight=t(np.arange(1.0, 5.0)), reduction="none"),
        lambda: ((((P > 0) * softplus(-X) + (P <= 0) * softplus(X))) * np.arange(1.0, 5.0)).mean(-1)),
    "multi_label_margin_loss": (
        lambda: F.multi_label_margin_loss(t(X), t(np.array([[3, 0, -1, 1], [1, 1, -1, 0], [2, -1, 0, 1],
                                                            [-1, 0, 1, 2], [0, 1, 2, 3]])), reduction="none"),
        lambda: np.array([sum(max(0.0, 1 - X[i, j] + X[i, k]) for j in tg for k in range(4) if k not in tg) / 4
                          for i, tg in enumerate([[3, 0], [1, 1], [2], [], [0, 1, 2, 3]])])),
    "soft_margin_loss": (lambda: F.soft_margin_loss(t(X), t(np.sign(P)), reduction="none"),
                         lambda: np.log(1 + np.exp(-np.sign(P) * X))),
    "poisson_nll_loss": (lambda: F.poisson_nll_loss(t(X), t(np.abs(P) * 3), full=True, reduction="none"),
                         lambda: np.exp(X) - 3 * np.abs(P) * X + np.where(
                             3 * np.abs(P) > 1, (lambda y: y * np.log(y) - y + 0.5 * np.log(2 * math.pi * y))(
                                 3 * np.abs(P) + (3 * np.abs(P) <= 1)), 0)),
    "poisson_nll_loss_no_log": (lambda: F.poisson_nll_loss(t(VAR), t(np.abs(P)), log_input=False, reduction="none"),
                                lambda: VAR - np.abs(P) * np.log(VAR + 1e-8)),
    "gaussian_nll_loss": (lambda: F.gaussian_nll_loss(t(X), t(P), t(VAR[:, :1]), full=True, reduction="none"),
                          lambda: 0.5 * (np.log(VAR[:, :1]) + (X - P) ** 2 / VAR[:, :1]) + 0.5 * math.log(2 * math.pi)),
}


@pytest.mark.parametrize("name", sorted(REFS))
def test_values_match_numpy(name):
    got, ref = REFS[name]
    np.testing.assert_allclose(got().numpy(), ref(), rtol=1e-10, atol=1e-12)


def test_reductions_and_layers():
    none = F.soft_margin_loss(t(X), t(np.sign(P)), reduction="none").numpy()
    assert F.soft_margin_loss(t(X), t(np.sign(P))).numpy() == pytest.approx(none.mean())
    assert paddle.nn.SoftMarginLoss(reduction="sum")(t(X), t(np.sign(P))).numpy() == pytest.approx(none.sum())
    layers = [(paddle.nn.HingeEmbeddingLoss(), (X, np.sign(P))), (paddle.nn.CosineEmbeddingLoss(), (X, P, SIGN)),
              (paddle.nn.TripletMarginLoss(), (X, P, N)), (paddle.nn.TripletMarginWithDistanceLoss(), (X, P, N)),
              (paddle.nn.MultiMarginLoss(), (X, LAB)), (paddle.nn.MultiLabelSoftMarginLoss(), (X, (P > 0) * 1.0)),
              (paddle.nn.PoissonNLLLoss(), (X, np.abs(P))), (paddle.nn.GaussianNLLLoss(), (X, P, VAR))]
    for layer, args in layers:
        assert layer(*[t(a) for a in args]).shape == []


def _fd(fn, x0, eps=1e-6):
    num = np.zeros_like(x0)
    for idx in np.ndindex(x0.shape):
        xp, xm = x0.copy(), x0.copy()
        xp[idx] += eps
        xm[idx] -= eps
        num[idx] = (float(fn(t(xp)).numpy()) - float(fn(t(xm)).numpy())) / (2 * eps)
    return num


@pytest.mark.parametrize("fn", [
    lambda x: F.cosine_embedding_loss(x, t(P), t(SIGN), margin=-0.5),
    lambda x: F.triplet_margin_loss(x, t(P), t(N), margin=3.0, p=3.0),
    lambda x: F.multi_margin_loss(x, t(LAB), p=2, margin=2.0),
    lambda x: F.multi_label_soft_margin_loss(x, t((P > 0) * 1.0)),
    lambda x: F.poisson_nll_loss(x, t(np.abs(P)), reduction="sum"),
    lambda x: F.gaussian_nll_loss(x, t(P), t(VAR)),
], ids=["cosine_embedding", "triplet", "multi_margin", "multi_label_soft_margin", "poisson_nll", "gaussian_nll"])
def test_grads_match_finite_differences(fn):
    x = t(X, stop_gradient=False)
    fn(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), _fd(fn, X), rtol=1e-5, atol=1e-8)


def test_gaussian_nll_gives_variance_no_gradient_as_paddle():
    v = t(VAR, stop_gradient=False)
    x = t(X, stop_gradient=False)
    F.gaussian_nll_loss(x, t(P), v).backward()
    assert v.grad is None and x.grad is not None


def test_static_graph_matches_eager():
    eager = [F.multi_margin_loss(t(X), t(LAB)).numpy(), F.triplet_margin_loss(t(X), t(P), t(N)).numpy(),
             F.gaussian_nll_loss(t(X), t(P), t(VAR), full=True).numpy()]
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", [5, 4], "float64")
            p = static.data("p", [5, 4], "float64")
            n = static.data("n", [5, 4], "float64")
            v = static.data("v", [5, 4], "float64")
            lab = static.data("lab", [5], "int64")
            outs = [F.multi_margin_loss(x, lab), F.triplet_margin_loss(x, p, n),
                    F.gaussian_nll_loss(x, p, v, full=True)]
        got = static.Executor().run(main, feed={"x": X, "p": P, "n": N, "v": VAR, "lab": LAB}, fetch_list=outs)
    finally:
        paddle.disable_static()
    for g, e in zip(got, eager):
        np.testing.assert_allclose(g, e, rtol=1e-12)


def test_errors():
    with pytest.raises(ValueError, match="reduction"):
        F.hinge_embedding_loss(t(X), t(P), reduction="avg")
    with pytest.raises(ValueError, match="1-D"):
        F.cosine_embedding_loss(t(X), t(P), t(np.ones((5, 1))))
    with pytest.raises(ValueError, match="same shape"):
        F.triplet_margin_loss(t(X), t(P[:2]), t(N))
    with pytest.raises(ValueError, match="negative distance"):
        F.triplet_margin_with_distance_loss(t(X), t(P), t(N), distance_function=lambda a, b: (a - b).sum(-1) - 100)
    with pytest.raises(ValueError, match="epsilon"):
        F.poisson_nll_loss(t(X), t(P), epsilon=0)
    with pytest.raises(ValueError, match="variance"):
        F.gaussian_nll_loss(t(X), t(P), t(VAR[:, :2]))
    with pytest.raises(ValueError, match="negative"):
        F.gaussian_nll_loss(t(X), t(P), t(-VAR))
    with pytest.raises(ValueError, match="margin"):
        paddle.nn.CosineEmbeddingLoss(margin=1.5)
    with pytest.raises(ValueError, match="label.shape"):
        F.multi_margin_loss(t(X), t(LAB[:2]))
