"""elementwise_add_grad's row-bias path (issue 17): Y of shape [n] added along the last axis of an X
shaped like Out@GRAD (every Linear) returns Out@GRAD itself and its sum over the leading axes, through
the eager kernel and the kernel codegen binds. Checked bit for bit against numpy's reduction (what the
general kernel computes) on odd, 0-size, non-contiguous and NaN/inf inputs, and every other case
(broadcast X, mixed dtypes, a 2-D bias, a legacy axis, integers) against numpy's broadcasting sums."""
from __future__ import annotations

import numpy as np
import pytest

from runtime.ops.registry import lookup

OP = lookup("elementwise_add_grad")
SHAPES = [((64, 256), (256,)), ((3, 5), (5,)), ((1, 7), (7,)), ((0, 4), (4,)), ((4, 0), (0,)),
          ((2, 3, 5), (5,)), ((7, 1), (1,)), ((2, 3, 4, 6), (6,)), ((33, 17), (17,))]


def _kernels(axis):
    return [lambda x, y, d: OP.kernel(x, y, d, axis=axis), OP.bind({"axis": axis})]


def _dout(rs, shape, dtype, layout):
    d = rs.standard_normal(shape).astype(dtype)
    if layout == "strided" and shape[-1] > 0:
        wide = rs.standard_normal(shape[:-1] + (2 * shape[-1],)).astype(dtype)
        d = wide[..., ::2]          # every other column: not contiguous
    elif layout == "fortran":
        d = np.asfortranarray(d)
    elif layout == "special" and d.size:
        d.flat[0], d.flat[-1] = np.nan, np.inf
        if d.size > 2:
            d.flat[1] = -np.inf
    return d


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("layout", ["plain", "strided", "fortran", "special"])
def test_row_bias_grads_are_the_dout_and_its_leading_sum(dtype, layout):
    rs = np.random.RandomState(0)
    for dshape, yshape in SHAPES:
        d = _dout(rs, dshape, dtype, layout)
        x = np.empty(dshape, dtype)
        y = rs.standard_normal(yshape).astype(dtype)
        lead = tuple(range(d.ndim - 1))
        want = d.sum(axis=lead, keepdims=True).reshape(yshape)     # the general kernel's unbroadcast
        for axis in (-1, d.ndim - 1):
            for kernel in _kernels(axis):
                gx, gy = kernel(x, y, d)
                assert gx is d
                assert gy.dtype == want.dtype and gy.shape == want.shape
                assert gy.tobytes() == want.tobytes(), (dshape, layout)


def _ref(x, y, d, axis):
    """numpy reference: the broadcast sums of Out@GRAD down to X's and Y's shapes (Paddle's axis aligns Y)."""
    ys = y.shape if axis == -1 else y.shape + (1,) * (x.ndim - axis - y.ndim)

    def down(g, shape):
        lead = g.ndim - len(shape)
        axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and g.shape[i + lead] != 1)
        return g.sum(axis=axes, keepdims=True).reshape(shape) if axes else g.reshape(shape)
    return down(d, x.shape), down(d, ys).reshape(y.shape)


@pytest.mark.parametrize("x, y, d, axis", [
    (np.ones((1, 5), "f4"), np.arange(5, dtype="f4"), np.arange(15, dtype="f4").reshape(3, 5), -1),   # X broadcast
    (np.ones((3, 5), "f4"), np.arange(5, dtype="f4"), np.arange(15, dtype="f4").reshape(3, 5), -1),   # (fast)
    (np.ones((3, 5), "f4"), np.ones((1, 5), "f4"), np.arange(15, dtype="f4").reshape(3, 5), -1),      # 2-D bias
    (np.ones((3, 3), "f4"), np.arange(3, dtype="f4"), np.arange(9, dtype="f4").reshape(3, 3), 0),     # legacy axis
    (np.ones((3, 5), "i4"), np.ones(5, "i4"), np.arange(15, dtype="i4").reshape(3, 5), -1),           # integers
    (np.ones((3, 5), "f4"), np.ones(1, "f4"), np.arange(15, dtype="f4").reshape(3, 5), -1),           # [1] bias
])
def test_other_cases_take_the_general_kernel(x, y, d, axis):
    wx, wy = _ref(x, y, d, axis)
    for kernel in _kernels(axis):
        gx, gy = kernel(x, y, d)
        np.testing.assert_array_equal(gx, wx)
        np.testing.assert_array_equal(gy, wy)
        assert gx.shape == x.shape and gy.shape == y.shape
        assert gx.dtype == x.dtype and gy.dtype == y.dtype


def test_mixed_dtypes_promote_as_before():
    x = np.ones((3, 5), "f4")
    y = np.arange(5, dtype="f8")
    d = np.arange(15, dtype="f8").reshape(3, 5)
    for kernel in _kernels(-1):
        gx, gy = kernel(x, y, d)
        assert gx.dtype == np.float32 and gy.dtype == np.float64
        np.testing.assert_array_equal(gy, d.sum(0))
        np.testing.assert_array_equal(gx, d.astype("f4"))
