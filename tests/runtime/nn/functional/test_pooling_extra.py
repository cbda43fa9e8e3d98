"""F.lp_pool1d / F.lp_pool2d, the LPPool layers and F.gather_tree: formulas, special norms, errors."""
import numpy as np
import pytest

import runtime as paddle
import runtime.nn.functional as F

rng = np.random.default_rng(44)
X = np.abs(rng.standard_normal((2, 3, 4, 6))) + 0.1


def t(a):
    return paddle.Tensor(np.asarray(a))


def test_lp_pool2d_norms():
    win = X.reshape(2, 3, 2, 2, 3, 2).transpose(0, 1, 2, 4, 3, 5).reshape(2, 3, 2, 3, 4)
    np.testing.assert_allclose(F.lp_pool2d(t(X), 2, 2).numpy(), np.sqrt((win ** 2).sum(-1)), rtol=1e-6)
    np.testing.assert_allclose(F.lp_pool2d(t(X), 1, 2).numpy(), win.sum(-1), rtol=1e-6)
    np.testing.assert_array_equal(F.lp_pool2d(t(X), float("inf"), 2).numpy(), F.max_pool2d(t(X), 2).numpy())
    assert paddle.nn.LPPool2D(2.0, 3, stride=1, padding=1)(t(X)).shape == [2, 3, 4, 6]
    assert paddle.nn.LPPool2d is paddle.nn.LPPool2D


def test_lp_pool1d_matches_2d_on_a_unit_height():
    x = X[:, :, 0]
    np.testing.assert_allclose(F.lp_pool1d(t(x), 3.0, 2, stride=1).numpy(),
                               F.lp_pool2d(t(x[:, :, None]), 3.0, [1, 2], stride=1).numpy()[:, :, 0], rtol=1e-6)
    nlc = F.lp_pool1d(t(np.moveaxis(x, 1, -1)), 2.0, 3, data_format="NLC").numpy()
    np.testing.assert_allclose(np.moveaxis(nlc, -1, 1), F.lp_pool1d(t(x), 2.0, 3).numpy(), rtol=1e-6)
    assert repr(paddle.nn.LPPool1D(2, 3)) == "LPPool1D(norm_type=2, kernel_size=3, stride=None, padding=0)"


def test_lp_pool_errors():
    with pytest.raises(ValueError, match="norm_type"):
        F.lp_pool2d(t(X), 0, 2)
    with pytest.raises(ValueError, match="4-D"):
        F.lp_pool2d(t(X[0]), 2, 2)
    with pytest.raises(ValueError, match="data_format"):
        F.lp_pool1d(t(X[:, :, 0]), 2, 2, data_format="NCHW")


def test_gather_tree_follows_parents():
    ids = np.array([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]])
    parents = np.array([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]])
    out = F.gather_tree(t(ids), t(parents)).numpy()
    assert out.tolist() == [[[2, 2], [1, 6]], [[3, 3], [6, 1]], [[0, 1], [9, 0]]]
    with pytest.raises(ValueError, match="3-D"):
        F.gather_tree(t(ids[0]), t(parents[0]))
    with pytest.raises(TypeError, match="int32 or int64"):
        F.gather_tree(t(ids.astype("float32")), t(parents))
    with pytest.raises(ValueError, match="parent beam"):
        F.gather_tree(t(ids), t(parents + 5))
