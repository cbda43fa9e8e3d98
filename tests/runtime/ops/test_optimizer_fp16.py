"""Optimizer kernels on float16 parameters compute in float32 and store rounded (Paddle's "MP type"):
in float16 arithmetic Adam's epsilon (1e-8) is 0 and the square of a small gradient underflows, which
turned the first O2 step into inf."""
import numpy as np

import dy2st as paddle


def _step(opt_cls, dtype, **kw):
    p = paddle.create_parameter([4], dtype, default_initializer=paddle.nn.initializer.Assign(
        np.array([0.5, -0.25, 1.0, 2.0], dtype)))
    opt = opt_cls(learning_rate=0.1, parameters=[p], **kw)
    p.grad = paddle.to_tensor(np.array([1e-4, -3e-5, 0.0, 2.0], dtype))
    opt.step()
    return p.numpy()


def test_adam_float16_equals_float32_rounded():
    got = _step(paddle.optimizer.Adam, "float16")
    want = _step(paddle.optimizer.Adam, "float32").astype("float16")
    assert np.isfinite(got).all()
    np.testing.assert_array_equal(got, want)


def test_sgd_and_momentum_float16_equal_float32_rounded():
    for cls, kw in ((paddle.optimizer.SGD, {}), (paddle.optimizer.Momentum, {"momentum": 0.9})):
        got = _step(cls, "float16", **kw)
        want = _step(cls, "float32", **kw).astype("float16")
        np.testing.assert_array_equal(got, want)
