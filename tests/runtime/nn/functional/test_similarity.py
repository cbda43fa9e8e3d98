"""F.pairwise_distance / F.bilinear and their layers against numpy formulas, in eager and static mode."""
import numpy as np
import pytest

import runtime as paddle
import runtime.nn.functional as F
from runtime import static

rng = np.random.default_rng(22)
A, B = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))


def t(a, stop_gradient=True):
    return paddle.Tensor(np.asarray(a), stop_gradient=stop_gradient)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf")])
def test_pairwise_distance_is_the_p_norm_of_the_shifted_difference(p):
    d = A - B + 1e-6
    ref = np.abs(d).max(-1) if p == float("inf") else (np.abs(d) ** p).sum(-1) ** (1 / p)
    np.testing.assert_allclose(F.pairwise_distance(t(A), t(B), p=p).numpy(), ref, rtol=1e-10)
    assert paddle.nn.PairwiseDistance(p, keepdim=True)(t(A), t(B)).shape == [4, 1]


def test_bilinear_matches_einsum_and_the_layer():
    y, w, b = rng.standard_normal((4, 3)), rng.standard_normal((2, 5, 3)), rng.standard_normal((1, 2))
    ref = np.einsum("bi,oij,bj->bo", A, w, y) + b
    np.testing.assert_allclose(F.bilinear(t(A), t(y), t(w), t(b)).numpy(), ref, rtol=1e-12)
    layer = paddle.nn.Bilinear(5, 3, 2)
    assert layer.bias.shape == [1, 2]
    np.testing.assert_allclose(layer(t(A.astype("float32")), t(y.astype("float32"))).numpy(),
                               np.einsum("bi,oij,bj->bo", A, layer.weight.numpy(), y) + layer.bias.numpy(),
                               rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="2-D"):
        F.bilinear(t(A[0]), t(y), t(w))
    with pytest.raises(ValueError, match="must match"):
        F.bilinear(t(A), t(y[:3]), t(w))


def test_static_graph_matches_eager():
    y, w = rng.standard_normal((4, 3)), rng.standard_normal((2, 5, 3))
    eager = [F.pairwise_distance(t(A), t(B), p=1.0).numpy(), F.bilinear(t(A), t(y), t(w)).numpy()]
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            a = static.data("a", [None, 5], "float64")
            bb = static.data("b", [None, 5], "float64")
            yy = static.data("y", [None, 3], "float64")
            ww = static.data("w", [2, 5, 3], "float64")
            outs = [F.pairwise_distance(a, bb, p=1.0), F.bilinear(a, yy, ww)]
        assert "bilinear_tensor_product" in [op.type for op in main.global_block().ops]
        got = static.Executor().run(main, feed={"a": A, "b": B, "y": y, "w": w}, fetch_list=outs)
    finally:
        paddle.disable_static()
    for g, e in zip(got, eager):
        np.testing.assert_allclose(g, e, rtol=1e-12)
