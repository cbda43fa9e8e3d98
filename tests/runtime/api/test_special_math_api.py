"""The special / extra math APIs in static mode (composites such as gcd's while loop, frexp, sinc,
multigammaln, isin and cdist build the same values as eager) and their in-place forms' gradients."""
import math

import numpy as np
import pytest

import runtime as paddle
from runtime import static


def _static(build, feeds):
    paddle.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            data = [static.data(n, list(v.shape), str(v.dtype)) for n, v in feeds.items()]
            outs = build(*data)
        return static.Executor().run(main, feed=feeds, fetch_list=outs)
    finally:
        paddle.disable_static()


def _eager(build, feeds):
    outs = build(*[paddle.to_tensor(v) for v in feeds.values()])
    return [o.numpy() for o in outs]


CASES = {
    "gcd_lcm": (lambda a, b: [paddle.gcd(a, b), paddle.lcm(a, b)],
                {"a": np.array([0, -12, 7, 0, 48]), "b": np.array([0, 18, -21, 5, 36])}),
    "frexp_sinc": (lambda x: list(paddle.frexp(x)) + [paddle.sinc(x), paddle.signbit(x), paddle.isposinf(x)],
                   {"x": np.array([0.0, -3.5, 8.0, 0.7, np.inf])}),
    "special": (lambda x: [paddle.multigammaln(x, 3), paddle.gammainc(x, x * 2), paddle.polygamma(x, 0),
                           paddle.logaddexp(x, x * 3)], {"x": np.array([1.5, 2.0, 4.25])}),
    "isin_cdist": (lambda x, y: [paddle.isin(x, y), paddle.cdist(x, y, p=1.0), paddle.pdist(x),
                                 paddle.trapezoid(x, axis=0), paddle.nanmean(x, axis=1)],
                   {"x": np.array([[1.0, 2.0], [3.0, 5.0], [0.5, 2.0]]), "y": np.array([[2.0, 0.0], [5.0, 1.0]])}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_static_matches_eager(name):
    build, feeds = CASES[name]
    got, want = _static(build, feeds), _eager(build, feeds)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, err_msg=name)


def test_inplace_keeps_the_gradient_path():
    x = paddle.to_tensor(np.array([0.5, 1.5, 3.0]), stop_gradient=False)
    y = x * 2.0
    r = paddle.lgamma_(y)
    assert r is y
    r.sum().backward()
    psi = [(math.lgamma(v + 1e-6) - math.lgamma(v - 1e-6)) / 2e-6 for v in (1.0, 3.0, 6.0)]
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.array(psi), rtol=1e-6)


def test_inplace_refuses_a_leaf_that_needs_grad():
    x = paddle.to_tensor(np.array([0.5, 1.5]), stop_gradient=False)
    with pytest.raises(ValueError, match="inplace"):
        paddle.digamma_(x)


def test_unsupported_dtypes_name_the_op():
    with pytest.raises(TypeError, match="gammaln: no kernel for dtype int32"):
        paddle.gammaln(paddle.to_tensor(np.array([1, 2], np.int32)))
    with pytest.raises(RuntimeError, match="bitwise_left_shift"):
        paddle.bitwise_left_shift(paddle.to_tensor([1.0]), paddle.to_tensor([1.0]))
