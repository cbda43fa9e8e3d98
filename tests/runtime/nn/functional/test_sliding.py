"""F.unfold / F.fold: argument forms, fold(unfold(x)) = x times the window count, errors, static graphs."""
import numpy as np
import pytest

import runtime as paddle
import runtime.nn.functional as F
from runtime import static

rng = np.random.default_rng(12)
X = rng.standard_normal((2, 3, 5, 6))


def t(a, stop_gradient=True):
    return paddle.Tensor(np.asarray(a), stop_gradient=stop_gradient)


def test_unfold_matches_explicit_patches():
    out = F.unfold(t(X), [2, 3], strides=[1, 2]).numpy()
    assert out.shape == (2, 3 * 6, 4 * 2)
    for a in range(4):
        for b in range(2):
            patch = X[:, :, a:a + 2, 2 * b:2 * b + 3].reshape(2, -1)
            np.testing.assert_array_equal(out[:, :, a * 2 + b], patch)


def test_fold_of_unfold_counts_windows():
    cols = F.unfold(t(X), 3, paddings=1)
    back = F.fold(cols, [5, 6], 3, paddings=1).numpy()
    counts = F.fold(F.unfold(t(np.ones_like(X)), 3, paddings=1), [5, 6], 3, paddings=1).numpy()
    np.testing.assert_allclose(back, X * counts, rtol=1e-12)
    assert counts[0, 0, 2, 2] == 9 and counts[0, 0, 0, 0] == 4


def test_padding_forms():
    ref = F.unfold(t(X), 2, paddings=[1, 2, 1, 2]).numpy()
    np.testing.assert_array_equal(F.unfold(t(X), 2, paddings=[1, 2]).numpy(), ref)
    assert F.unfold(t(X), 2, paddings=[1, 0, 2, 1]).shape == [2, 12, 7 * 6]


def test_layers_and_repr():
    layer = paddle.nn.Unfold(kernel_sizes=[2, 2], strides=2)
    assert "kernel_size=[2, 2]" in repr(layer) and layer(t(X)).shape == [2, 12, 6]
    fold = paddle.nn.Fold(output_sizes=[4, 6], kernel_sizes=2, strides=2)
    np.testing.assert_array_equal(fold(layer(t(X[:, :, :4]))).numpy(), X[:, :, :4])


def test_errors():
    with pytest.raises(ValueError, match="4-D"):
        F.unfold(t(X[0]), 2)
    with pytest.raises(TypeError, match="kernel_sizes"):
        F.unfold(t(X), [2, 2, 2])
    with pytest.raises(ValueError, match="paddings"):
        F.unfold(t(X), 2, paddings=[1, 1, 1])
    with pytest.raises(ValueError, match="positive"):
        F.unfold(t(X), 7)
    with pytest.raises(ValueError, match="blocks"):
        F.fold(t(rng.standard_normal((1, 12, 7))), [4, 5], 2)
    with pytest.raises(ValueError, match="divisible"):
        F.fold(t(rng.standard_normal((1, 10, 12))), [4, 5], 2)
    with pytest.raises(TypeError, match="dtypes"):
        F.unfold(t(X.astype(np.int64)), 2)


def test_static_graph_matches_eager():
    eager = F.fold(F.unfold(t(X), 2, strides=2, paddings=[1, 0]), [5, 6], 2, strides=2, paddings=[1, 0]).numpy()
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", [None, 3, 5, 6], "float64")
            cols = F.unfold(x, 2, strides=2, paddings=[1, 0])
            out = F.fold(cols, [5, 6], 2, strides=2, paddings=[1, 0])
        assert list(cols.shape) == [-1, 12, 9] and list(out.shape) == [-1, 3, 5, 6]
        got, = static.Executor().run(main, feed={"x": X}, fetch_list=[out])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got, eager, rtol=1e-12)
