"""Calls of to_static functions with arguments that are not tensors (issue 12).

As in Paddle 3.3.1 (AST mode, checked in a subprocess against real Paddle): a Python value where a
tensor could go is accepted by the call and becomes part of the cache key; ``x + 3`` works, and so does
an optional ``mask=None``. Only where the function then uses None, a list, a str or a dict as a tensor
does it fail, with the exception type Python gives (AttributeError / TypeError) and a message naming
the argument, what it is, and the fix, plus the user's line as a note. An InputSpec position that gets
a non-tensor is an error (Paddle: "Give input spec into a non-tensorable arguments"); a tensor that
does not fit its InputSpec is traced as it came, with one warning.
"""
import traceback
import warnings

import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from runtime.framework import state


def _add(x, y):
    return x + y


def _shape_of(x):
    return x.shape


def _relu(x):
    return paddle.nn.functional.relu(x)


def _masked(x, mask=None):
    if mask is not None:
        x = x * mask
    return x


def _add_cast(x, y):
    return x + y.astype("float32")


def _moded(x, mode):
    if mode == "double":
        return x * 2.0
    return x


X = np.arange(6, dtype="float32").reshape(2, 3)


def _t(a=X):
    return paddle.to_tensor(a)


def _full_text(e):
    return "".join(traceback.format_exception_only(e))


@pytest.mark.parametrize("value, what, fix", [
    (None, "is None", "test `if y is not None:`"),
    ([1.0, 2.0, 3.0], "is a list of 3 floats", "pass paddle.to_tensor(y) instead of the list"),
    ("abc", "is a str ('abc')", "pass a paddle.Tensor for 'y'"),
    ({"a": 1}, "is a dict with keys ['a']", "pass a paddle.Tensor for 'y'"),
])
def test_non_tensor_used_as_tensor_names_the_argument(value, what, fix):
    fn = paddle.jit.to_static(_add)
    with pytest.raises(TypeError) as info:
        fn(_t(), value)
    msg = str(info.value)
    assert msg.startswith(f"_add: argument 'y' {what}, but the function uses it as a tensor")
    assert "to_static passes arguments that are not tensors into the function as Python values" in msg
    assert fix in msg
    assert "return x + y" in _full_text(info.value)      # the user's line, as a note
    assert not state.static                             # nothing left behind
    np.testing.assert_allclose(fn(_t(), _t()).numpy(), X + X)


def test_list_of_tensors_suggests_stacking():
    fn = paddle.jit.to_static(_add)
    with pytest.raises(TypeError, match=r"argument 'y' is a list of 2 Tensors.*paddle.stack or paddle.concat"):
        fn(_t(), [_t(), _t()])


@pytest.mark.parametrize("fn_, value, exc", [(_shape_of, None, AttributeError), (_shape_of, "s", AttributeError),
                                             (_relu, [1.0, -2.0], AttributeError), (_relu, "s", TypeError),
                                             (_relu, None, AttributeError)])
def test_keeps_python_exception_type(fn_, value, exc):
    fn = paddle.jit.to_static(fn_)
    with pytest.raises(exc, match=f"{fn_.__name__}: argument 'x' is "):
        fn(value)


def test_python_values_paddle_accepts_still_work_and_key_the_cache():
    fn = paddle.jit.to_static(_add)
    np.testing.assert_allclose(fn(_t(), 3).numpy(), X + 3)
    np.testing.assert_allclose(fn(_t(), 2.5).numpy(), X + 2.5)
    np.testing.assert_allclose(fn(_t(), np.ones((2, 3), "float32")).numpy(), X + 1)
    assert len(fn.program_cache) == 3
    masked = paddle.jit.to_static(_masked)
    np.testing.assert_allclose(masked(_t()).numpy(), X)
    np.testing.assert_allclose(masked(_t(), None).numpy(), X)
    np.testing.assert_allclose(masked(_t(), _t()).numpy(), X * X)
    moded = paddle.jit.to_static(_moded)
    np.testing.assert_allclose(moded(_t(), "double").numpy(), X * 2)
    np.testing.assert_allclose(moded(_t(), "same").numpy(), X)
    assert len(moded.program_cache) == 2


def test_int_errors_are_left_as_python_gives_them():
    # numbers are ordinary values in tensor expressions; an error mentioning 'int' is rarely the argument's
    fn = paddle.jit.to_static(_shape_of)
    with pytest.raises(AttributeError) as info:
        fn(3)
    assert str(info.value) == "'int' object has no attribute 'shape'"


def test_input_spec_position_given_a_non_tensor():
    fn = paddle.jit.to_static(_masked, input_spec=[InputSpec([None, 3], "float32", name="x"),
                                                   InputSpec([None, 3], "float32", name="mask")])
    np.testing.assert_allclose(fn(_t(), _t()).numpy(), X * X)
    with pytest.raises(TypeError, match=r"_masked: argument 'mask' has an InputSpec \(shape \[None, 3\], dtype "
                                        r"float32\) but got None, which is not a tensor; pass a tensor"):
        fn(_t(), None)
    with pytest.raises(TypeError, match=r"argument 'x' has an InputSpec .* but got a list of 3 floats"):
        fn([1.0, 2.0, 3.0], _t())


def test_input_spec_rank_and_dtype_mismatch_warn_once_and_trace_what_came():
    fn = paddle.jit.to_static(_add_cast, input_spec=[InputSpec([None, 3], "float32", name="x"),
                                                     InputSpec([None, 3], "float32", name="y")])
    x3 = np.ones((1, 2, 3), "float32")
    with pytest.warns(UserWarning, match=r"argument 'x' came with shape \[1, 2, 3\] and dtype float32, which does "
                                         r"not fit its InputSpec \(shape \[None, 3\], dtype float32"):
        out = fn(paddle.to_tensor(x3), _t())
    np.testing.assert_allclose(out.numpy(), x3 + X)
    xi = np.arange(6, dtype="int64").reshape(2, 3)
    with pytest.warns(UserWarning) as caught:
        out = fn(_t(), paddle.to_tensor(xi))
    msgs = [str(w.message) for w in caught]
    assert any("argument 'y' came with shape [2, 3] and dtype int64" in m for m in msgs)
    assert not any("argument 'x'" in m for m in msgs)          # x fits
    np.testing.assert_allclose(out.numpy(), X + xi)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fn(paddle.to_tensor(x3), _t())                          # cached, and warned once already
        fn(paddle.to_tensor(np.ones((3, 2, 3), "float32")), paddle.to_tensor(xi))
