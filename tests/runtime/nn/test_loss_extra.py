"""ctc_loss, rnnt_loss, hsigmoid_loss, margin_cross_entropy, class_center_sample, dice_loss, npair_loss,
sigmoid_focal_loss, adaptive_log_softmax_with_loss and their layers: eager against a static Program
and a to_static function, numpy references where Paddle cannot serve (npair_loss in float64,
margin_cross_entropy at the default scale), the sampling's seeding, and the clear errors for input
Paddle would read out of bounds. (Values against real Paddle: tests/interop/test_loss_extra_interop.py.)"""
import numpy as np
import pytest

import dy2st as paddle
from runtime import static

F = paddle.nn.functional
rng = np.random.default_rng(7)


def _i32(a):
    return paddle.to_tensor(np.array(a, dtype="int32"))


def _i64(a):
    return paddle.to_tensor(np.array(a, dtype="int64"))


def _static_run(build, feeds):
    """Run ``build(*data)`` as a static Program on ``feeds`` (name -> array)."""
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            data = [static.data(n, list(v.shape), str(v.dtype)) for n, v in feeds.items()]
            outs = build(*data)
        return static.Executor().run(main, feed=dict(feeds), fetch_list=outs)
    finally:
        paddle.disable_static()


def _losses(logits, acts, hx, ml):
    w = paddle.to_tensor(np.linspace(-1, 1, 15).reshape(5, 3))
    return [F.ctc_loss(logits, _i32([[1, 2], [3, 3]]), _i64([5, 4]), _i64([2, 2])),
            F.rnnt_loss(acts, _i32([[1, 2], [3, 0]]), _i32([3, 2]), _i32([2, 1]), reduction="none"),
            F.hsigmoid_loss(hx, _i64([[0], [5], [3], [2]]), 6, w),
            F.margin_cross_entropy(ml, _i64([1, 0, 2]), scale=8.0, return_softmax=True)[1],
            F.dice_loss(F.sigmoid(hx), _i64([[0], [2], [1], [2]])),
            F.sigmoid_focal_loss(hx, (hx > 0).astype("float64"), reduction="none")]


FEEDS = {"logits": rng.uniform(-2, 2, (5, 2, 4)), "acts": rng.uniform(-2, 0, (2, 3, 3, 4)),
         "hx": rng.uniform(-1, 1, (4, 3)), "ml": rng.uniform(-0.9, 0.9, (3, 4))}


def test_eager_static_and_to_static_agree():
    eager = [t.numpy() for t in _losses(*[paddle.to_tensor(v) for v in FEEDS.values()])]
    program = _static_run(_losses, FEEDS)
    compiled = [t.numpy() for t in paddle.jit.to_static(_losses)(*[paddle.to_tensor(v) for v in FEEDS.values()])]
    for e, s, c in zip(eager, program, compiled):
        np.testing.assert_allclose(s, e, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(c, e, rtol=1e-12, atol=1e-12)


_W = np.linspace(-1, 1, 15).reshape(5, 3)
GRAD_CASES = {
    "ctc": ("logits", lambda x: F.ctc_loss(x, _i32([[1, 2], [3, 3]]), _i64([5, 4]), _i64([2, 2]), norm_by_times=True)),
    "rnnt": ("acts", lambda x: F.rnnt_loss(x, _i32([[1, 2], [3, 0]]), _i32([3, 2]), _i32([2, 1]))),
    "hsig": ("hx", lambda x: F.hsigmoid_loss(x, _i64([[0], [5], [3], [2]]), 6, paddle.to_tensor(_W)).sum()),
    "hsig_bias": ("hx", lambda x: F.hsigmoid_loss(x, _i64([[0], [5], [3], [2]]), 6, paddle.to_tensor(_W),
                                                  paddle.to_tensor(_W[:, :1])).sum()),
    "mce": ("ml", lambda x: F.margin_cross_entropy(x, _i64([1, 0, 2]), 0.9, 0.3, 0.1, 8.0)),
    "focal": ("hx", lambda x: F.sigmoid_focal_loss(x, (x > 0).astype("float64"), reduction="mean")),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_static_gradients_match_eager(case):
    name, fn = GRAD_CASES[case]
    x = paddle.to_tensor(FEEDS[name], stop_gradient=False)
    fn(x).backward()
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            d = static.data(name, list(FEEDS[name].shape), "float64")
            d.stop_gradient = False
            (g,) = static.gradients([fn(d)], [d])
        got = static.Executor().run(main, feed={name: FEEDS[name]}, fetch_list=[g])[0]
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got, x.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_npair_loss_float64_against_numpy():
    # Paddle itself fails on float64 embeddings (float32 soft labels meet float64 logits in one kernel)
    a, p = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
    lab = np.array([1, 2, 1, 0, 2])
    same = (lab[:, None] == lab[None, :]).astype(np.float64)
    target = same / same.sum(1, keepdims=True)
    sim = a @ p.T
    logp = sim - sim.max(1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(1, keepdims=True))
    ce = -(target * logp).sum(1, keepdims=True)
    expected = (np.mean((target * ce).sum(0)) + 0.25 * 0.01 * (np.mean((a ** 2).sum(1)) + np.mean((p ** 2).sum(1))))
    got = F.npair_loss(paddle.to_tensor(a), paddle.to_tensor(p), _i64(lab), l2_reg=0.01)
    assert got.dtype == paddle.float64 and got.shape == []
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12)


def test_margin_cross_entropy_default_scale_against_numpy():
    x = rng.uniform(-0.9, 0.9, (4, 6))
    lab = np.array([1, 0, 5, 3])
    z = x.copy()
    z[np.arange(4), lab] = np.cos(np.arccos(z[np.arange(4), lab]) + 0.5)
    z *= 64.0
    logp = z - z.max(1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(1, keepdims=True))
    loss, sm = F.margin_cross_entropy(paddle.to_tensor(x), _i64(lab), return_softmax=True, reduction="none")
    assert loss.shape == [4, 1] and sm.shape == [4, 6]
    np.testing.assert_allclose(loss.numpy()[:, 0], -logp[np.arange(4), lab], rtol=1e-12)
    np.testing.assert_allclose(sm.numpy(), np.exp(logp), rtol=1e-12, atol=1e-300)


def test_margin_cross_entropy_refuses_multi_rank_groups():
    class Group:
        nranks = 2

        def is_member(self):
            return True
    with pytest.raises(NotImplementedError, match="single-process"):
        F.margin_cross_entropy(paddle.rand([2, 3]), _i64([0, 1]), group=Group())


def test_class_center_sample_follows_the_seed():
    label = _i64([9, 2, 2, 30])
    paddle.seed(11)
    a = [t.numpy() for t in F.class_center_sample(label, 40, 10)]
    paddle.seed(11)
    b = [t.numpy() for t in F.class_center_sample(label, 40, 10)]
    c = [t.numpy() for t in F.class_center_sample(label, 40, 10)]
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(b[1], c[1])          # a new draw without reseeding
    np.testing.assert_array_equal(a[0], [1, 0, 0, 2])
    np.testing.assert_array_equal(a[1][:3], [2, 9, 30])


def test_class_center_sample_takes_the_main_programs_seed():
    main = static.default_main_program()
    old = main.random_seed
    main.random_seed = 5
    try:
        a = F.class_center_sample(_i64([3, 1]), 50, 12)[1].numpy()
        b = F.class_center_sample(_i64([3, 1]), 50, 12)[1].numpy()
    finally:
        main.random_seed = old
    np.testing.assert_array_equal(a, b)     # fix_seed: every run draws the same negatives


@pytest.mark.parametrize("call, match", [
    (lambda: F.ctc_loss(paddle.rand([4, 1, 3]), _i32([[1, 2]]), _i64([5]), _i64([2])), "input_lengths"),
    (lambda: F.ctc_loss(paddle.rand([4, 1, 3]), _i32([[1, 2]]), _i64([4]), _i64([3])), "label_lengths"),
    (lambda: F.ctc_loss(paddle.rand([4, 1, 3]), _i32([[0, 2]]), _i64([4]), _i64([2])), "blank"),
    (lambda: F.rnnt_loss(paddle.rand([1, 2, 3, 4]), _i32([[1, 2]]), _i32([0]), _i32([2])), "input_lengths"),
    (lambda: F.rnnt_loss(paddle.rand([1, 2, 3, 4]), _i32([[1, 2, 1]]), _i32([2]), _i32([2])), "max_U"),
    (lambda: F.hsigmoid_loss(paddle.rand([2, 3]), _i64([[0], [6]]), 6, paddle.rand([5, 3])), "num_classes"),
    (lambda: F.class_center_sample(_i64([1, 7]), 5, 3), "num_classes"),
])
def test_reads_out_of_bounds_are_refused(call, match):
    # Paddle reads past its buffers (wrong values or a crash) on these; we raise
    with pytest.raises(ValueError, match=match):
        call()


def test_hsigmoid_layer_prints_paddles_notices(capsys):
    layer = paddle.nn.HSigmoidLoss(3, 6, is_sparse=True)
    printed = capsys.readouterr().out
    assert "Sparse mode should not be used without custom tree" in printed
    assert "With sparse mode" in printed
    assert layer._is_sparse is False and layer.weight.shape == [5, 3] and layer.bias.shape == [5, 1]
    custom = paddle.nn.HSigmoidLoss(3, 4, is_custom=True, is_sparse=True, bias_attr=False)
    assert custom.weight.shape == [4, 3] and custom.bias is None


def test_adaptive_layer_log_prob_and_tail_gradients():
    paddle.seed(3)
    layer = paddle.nn.AdaptiveLogSoftmaxWithLoss(6, 9, [2, 5], div_value=2.0)
    x = paddle.randn([7, 6])
    prob = layer.log_prob(x).exp().sum(axis=1)
    np.testing.assert_allclose(prob.numpy(), np.ones(7), rtol=1e-5)
    label = _i64([0, 3, 8, 1, 6, 2, 4])
    out, loss = layer(x, label)
    np.testing.assert_allclose(out.numpy(), layer.log_prob(x).numpy()[np.arange(7), label.numpy()], rtol=1e-5,
                               atol=1e-6)
    loss.backward()
    # the tail projections are plain tensors (not registered), yet trainable through the loss
    assert all(w.grad is not None for pair in layer.tail_weights for w in pair)
    assert [n for n, _ in layer.named_parameters()] == ["head_weight"]


_TAILS = [rng.standard_normal((4, 2)), rng.standard_normal((2, 3))]
FD_CASES = {
    "dice": (lambda x: F.dice_loss(F.sigmoid(x), _i64([[0], [2], [1], [2]])), (4, 3)),
    "npair": (lambda x: F.npair_loss(x[:, :2], x[:, 2:], _i64([1, 0, 1, 2])), (4, 4)),
    "focal": (lambda x: F.sigmoid_focal_loss(x, paddle.to_tensor(np.eye(4, 3)), gamma=1.5, reduction="mean"),
              (4, 3)),
    "adaptive": (lambda x: F.adaptive_log_softmax_with_loss(
        x, _i64([0, 3, 4, 1]), paddle.to_tensor(np.linspace(-1, 1, 12).reshape(4, 3)),
        [[paddle.to_tensor(a) for a in _TAILS]], [2, 5])[1], (4, 4)),
}


@pytest.mark.parametrize("case", sorted(FD_CASES))
def test_composite_gradients_against_finite_differences(case):
    fn, shape = FD_CASES[case]
    x0 = np.random.default_rng(1).uniform(-1, 1, shape)
    x = paddle.to_tensor(x0, stop_gradient=False)
    fn(x).backward()
    num = np.zeros_like(x0)
    eps = 1e-6
    for i in range(x0.size):
        up, down = x0.copy().reshape(-1), x0.copy().reshape(-1)
        up[i] += eps
        down[i] -= eps
        num.reshape(-1)[i] = (float(fn(paddle.to_tensor(up.reshape(shape)))) -
                              float(fn(paddle.to_tensor(down.reshape(shape))))) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-5, atol=1e-7)
