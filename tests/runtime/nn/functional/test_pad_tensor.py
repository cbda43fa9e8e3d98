"""F.pad with a tensor ``pad`` inside a Program: the constant form with pairs for any dims (built from
concat / fill_constant ops) against the list form, shape inference with unknown dims, gradients, and the
errors for what cannot be built."""
import numpy as np
import pytest

import runtime
from runtime import static
from runtime.autograd import grad as autograd_grad

F = runtime.nn.functional
X = np.arange(2 * 3 * 4, dtype="float64").reshape(2, 3, 4) / 7.0


def _build(pads, x_shape=(2, 3, 4), **kw):
    """(program, x var, pad var, output var) for F.pad(x, tensor pad, ...) in a fresh Program."""
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", list(x_shape), "float64")
        p = static.data("p", [len(pads)], "int32")
        out = F.pad(x, p, **kw)
    return main, x, p, out


@pytest.fixture
def static_mode():
    runtime.enable_static()
    try:
        yield
    finally:
        runtime.disable_static()


@pytest.mark.parametrize("pads, kw", [
    ([1, 2, 0, 1, 2, 0], {}),                                  # all dims, from the first
    ([1, 2, 0, 1, 2, 0], {"pad_from_left_axis": False}),       # all dims, from the last
    ([1, 2], {"value": -2.5}),                                 # the last dim only
    ([0, 0, 3, 1], {"value": 4.0}),                            # the last two dims
    ([0, 0, 0, 0, 0, 0], {}),
])
def test_constant_pad_by_tensor_matches_the_list_form(static_mode, pads, kw):
    main, x, p, out = _build(pads, x_shape=(-1, 3, 4), **kw)
    pairs = [pads[i:i + 2] for i in range(0, len(pads), 2)]
    if not (len(pads) == 6 and kw.get("pad_from_left_axis", True)):
        pairs = ([[0, 0]] * (3 - len(pairs)) + pairs[::-1])     # listed from the last dim
    want = np.pad(X, pairs, constant_values=kw.get("value", 0.0))
    got = static.Executor().run(main, feed={"x": X, "p": np.array(pads, "int32")}, fetch_list=[out])[0]
    np.testing.assert_array_equal(got, want)
    assert out.dtype.name == "float64" and len(out.shape) == 3


def test_shape_inference_keeps_unpadded_dims(static_mode):
    _, _, _, out = _build([1, 2], x_shape=(-1, 3, 4))
    assert list(out.shape) == [-1, 3, -1]
    _, _, _, out = _build([1, 2, 0, 1, 2, 0])
    assert list(out.shape) == [-1, -1, -1]


def test_gradient_flows_to_x(static_mode):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2, 3, 4], "float64")
        x.stop_gradient = False
        p = static.data("p", [6], "int64")
        out = F.pad(x, p, value=1.0)
        w = static.data("w", [-1, -1, -1], "float64")
        loss = runtime.sum(out * w)
        (gx,) = static.gradients([loss], [x])
    pads = np.array([1, 0, 0, 2, 2, 1])
    wv = np.random.default_rng(0).standard_normal((3, 5, 7))
    got = static.Executor().run(main, feed={"x": X, "p": pads, "w": wv}, fetch_list=[gx])[0]
    np.testing.assert_array_equal(got, wv[1:3, 0:3, 2:6])


def test_what_cannot_be_built_is_refused(static_mode):
    with pytest.raises(ValueError, match="at most 3 dims"):
        _build([1] * 8)
    with pytest.raises(ValueError, match="spatial form"):
        _build([1, 1, 1, 1], mode="reflect")
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2, 3, 4], "float64")
        with pytest.raises(TypeError, match="int32 or int64"):
            F.pad(x, static.data("pf", [4], "float32"))
        with pytest.raises(ValueError, match="known length|spatial form"):
            F.pad(x, static.data("pu", [-1], "int32"))
