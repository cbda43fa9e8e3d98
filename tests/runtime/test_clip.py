"""Gradient clipping (runtime/nn/clip.py): each strategy alone and inside an optimizer."""
import numpy as np
import pytest

from runtime.nn.clip import (ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue, clip_grad_norm_,
                             clip_grad_value_)
from runtime.optimizer import SGD
from runtime.tensor import Parameter, Tensor


def pg(*grads, need_clip=None, dtype="float64"):
    pairs = []
    for i, g in enumerate(grads):
        p = Parameter(np.zeros(np.shape(g), dtype=dtype), name=f"clip_p{i}")
        if need_clip is not None:
            p.need_clip = need_clip[i]
        t = None if g is None else Tensor(np.array(g, dtype=dtype))
        p.grad = t
        pairs.append((p, t))
    return pairs


def test_by_value():
    out = ClipGradByValue(0.5)(pg([1.0, -3.0, 0.2]))
    np.testing.assert_array_equal(out[0][1].numpy(), [0.5, -0.5, 0.2])
    out = ClipGradByValue(1.0, min=0.0)(pg([1.5, -3.0, 0.2]))
    np.testing.assert_array_equal(out[0][1].numpy(), [1.0, 0.0, 0.2])


def test_by_value_respects_need_clip_and_missing_grads():
    pairs = pg([3.0], [3.0], None, need_clip=[True, False, True])
    out = ClipGradByValue(1.0)(pairs)
    assert out[0][1].numpy()[0] == 1.0
    assert out[1][1] is pairs[1][1] and out[2][1] is None


def test_by_value_errors():
    with pytest.raises(ValueError, match="max must be > 0"):
        ClipGradByValue(-1.0)
    with pytest.raises(ValueError, match="must not be greater"):
        ClipGradByValue(1.0, 2.0)


def test_by_norm_per_tensor():
    g1, g2 = np.array([3.0, 4.0]), np.array([0.3, 0.4])
    out = ClipGradByNorm(1.0)(pg(g1, g2))
    np.testing.assert_allclose(out[0][1].numpy(), g1 / 5.0)
    np.testing.assert_allclose(out[1][1].numpy(), g2)


def test_global_norm_scales_all_and_writes_back():
    g1, g2 = np.array([3.0, 0.0]), np.array([0.0, 4.0])
    pairs = pg(g1, g2)
    out = ClipGradByGlobalNorm(1.0)(pairs)
    np.testing.assert_allclose(out[0][1].numpy(), g1 / 5.0)
    np.testing.assert_allclose(out[1][1].numpy(), g2 / 5.0)
    np.testing.assert_allclose(pairs[0][0].grad.numpy(), g1 / 5.0)   # Paddle scales .grad in place


def test_global_norm_below_threshold_is_identity():
    g = np.array([0.3, 0.4])
    out = ClipGradByGlobalNorm(1.0)(pg(g))
    np.testing.assert_allclose(out[0][1].numpy(), g)


def test_global_norm_ignores_params_that_need_no_clip():
    pairs = pg([3.0, 4.0], [30.0, 40.0], need_clip=[True, False])
    out = ClipGradByGlobalNorm(1.0)(pairs)
    np.testing.assert_allclose(out[0][1].numpy(), [0.6, 0.8])
    np.testing.assert_allclose(out[1][1].numpy(), [30.0, 40.0])


def test_global_norm_float32():
    out = ClipGradByGlobalNorm(1.0)(pg([3.0, 4.0], dtype="float32"))
    assert out[0][1].numpy().dtype == np.float32
    np.testing.assert_allclose(out[0][1].numpy(), [0.6, 0.8], rtol=1e-6)


def test_str():
    assert str(ClipGradByGlobalNorm(1.0)) == "Gradient Clip By GlobalNorm, global_norm=1.000000"
    assert str(ClipGradByNorm(2.0)) == "Gradient Clip By Norm, clip_norm=2.000000"
    assert str(ClipGradByValue(2.0)) == "Clip Gradient By Value, min = -2.000000, max=2.000000"


def test_inside_optimizer_clip_runs_before_weight_decay():
    # clip grad to [-0.5, 0.5] first, then add 0.1 * param (Paddle's order)
    p = Parameter(np.array([1.0, 2.0]), name="clip_opt_p")
    p.grad = Tensor(np.array([1.0, -3.0]))
    SGD(1.0, parameters=[p], weight_decay=0.1, grad_clip=ClipGradByValue(0.5)).step()
    np.testing.assert_allclose(p.numpy(), [1.0 - 0.6, 2.0 + 0.3])


def test_global_norm_is_per_param_group():
    p = Parameter(np.array([1.0, 2.0]), name="clip_group_p")
    q = Parameter(np.array([1.0, 2.0]), name="clip_group_q")
    for t in (p, q):
        t.grad = Tensor(np.array([3.0, 4.0]))
    SGD(1.0, parameters=[{"params": [p]}, {"params": [q]}], grad_clip=ClipGradByGlobalNorm(1.0)).step()
    np.testing.assert_allclose(p.numpy(), [0.4, 1.2])
    np.testing.assert_allclose(q.numpy(), [0.4, 1.2])


def test_clip_grad_norm_():
    pairs = pg([3.0, 0.0], [0.0, 4.0])
    params = [p for p, _ in pairs]
    total = clip_grad_norm_(params, 1.0)
    assert total.shape == [] and total.item() == pytest.approx(5.0)
    np.testing.assert_allclose(params[0].grad.numpy(), [3.0 / (5 + 1e-6), 0.0])


def test_clip_grad_value_():
    (p, _), = pg([3.0, -0.5])
    assert clip_grad_value_(p, 1.0) is None
    np.testing.assert_array_equal(p.grad.numpy(), [1.0, -0.5])


@pytest.mark.parametrize("norm_type, total", [(float("inf"), 4.0), (1.0, 7.0), (3.0, (27 + 64) ** (1 / 3))])
def test_clip_grad_norm_other_orders(norm_type, total):
    from runtime.ops.registry import all_ops
    if not {"abs", "reduce_sum", "reduce_max"} <= set(all_ops()):
        pytest.skip("needs the abs / reduce_sum / reduce_max ops")
    (p, _), = pg([3.0, -4.0])
    got = clip_grad_norm_([p], 1.0, norm_type=norm_type)
    assert got.item() == pytest.approx(total)
    np.testing.assert_allclose(p.grad.numpy(), np.array([3.0, -4.0]) / (total + 1e-6))
