"""Pinned error messages: they name the construct, the variable and the user's file:line."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.errors import Dy2StaticError

from .harness import f32

POS = paddle.to_tensor(f32(3, lo=0.1, hi=1.0))


def different_return_structures(x):
    if x.mean() > 0:
        return x, x
    return x


def one_branch_var_then_used(x):
    if x.mean() > 0:
        y = x * 2
    return y + 1


def dtype_change_in_loop(x, n):
    i = 0
    while i < n:
        x = paddle.cast(x, "float64")
        i += 1
    return x


def branch_dtypes_differ(x):
    if x.mean() > 0:
        y = paddle.cast(x, "float64")
    else:
        y = x
    return y


def multi_element_condition(x):
    if x > 0:
        return x
    return -x


def python_value_differs_across_branches(x):
    if x.mean() > 0:
        mode = "a"
    else:
        mode = "b"
    return x * len(mode)


def _line(fn, text):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    for k, l in enumerate(lines):
        if text in l:
            return first + k
    raise AssertionError(text)


def test_different_return_structures():
    sf = paddle.jit.to_static(different_return_structures)
    with pytest.raises(ValueError) as info:
        sf(POS)
    line = _line(different_return_structures, "if x.mean() > 0") + 2   # the second return, where the paths meet
    msg = str(info.value)
    assert ("the function returns 1 value on one path and 2 values on another" in msg
            or "the function returns 2 values on one path and 1 value on another" in msg), msg
    assert f"the paths meet under a tensor condition at test_errors.py:{line}" in msg
    assert "every return under a tensor condition must return the same structure" in msg


def test_var_defined_in_one_branch_then_used():
    sf = paddle.jit.to_static(one_branch_var_then_used)
    with pytest.raises(NameError) as info:
        sf(POS)
    line = _line(one_branch_var_then_used, "if x.mean() > 0")
    msg = str(info.value)
    assert (f"variable 'y' is used but it is assigned only in the true branch of the tensor-dependent if at "
            f"test_errors.py:{line}") in msg
    # the note points at the user's line that used it
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "return y + 1" in notes


def test_dtype_change_in_loop_var():
    # Paddle 3.3.1 accepts a loop variable the body promotes (float32 -> float64): the loop enters with it
    # promoted (narrowing is refused: tests/dy2st/conformance/test_loops_state_kinds.py)
    sf = paddle.jit.to_static(dtype_change_in_loop)
    out = sf(POS, paddle.to_tensor([2]))
    assert out.dtype == paddle.float64
    np.testing.assert_allclose(out.numpy(), POS.numpy().astype("float64"))


def test_branch_dtypes_differ():
    sf = paddle.jit.to_static(branch_dtypes_differ)
    with pytest.raises(TypeError, match=r"variable 'y' is a float64 tensor in the true branch but a float32 tensor "
                                        r"in the false branch of the tensor-dependent if at test_errors.py:\d+"):
        sf(POS)


def test_multi_element_condition():
    sf = paddle.jit.to_static(multi_element_condition)
    with pytest.raises(ValueError, match=r"the condition of the if at test_errors.py:\d+ is a tensor of shape "
                                         r"\[3\] when it runs; it must hold exactly one element"):
        sf(POS)


def test_python_values_differ_across_tensor_branches():
    sf = paddle.jit.to_static(python_value_differs_across_branches)
    with pytest.raises(NameError, match=r"variable 'mode' is used but it is str 'a' in the true branch but str 'b' "
                                        r"in the false branch"):
        sf(POS)


def test_source_not_available():
    ns = {}
    exec("def made(x):\n    return x * 2\n", ns)
    sf = paddle.jit.to_static(ns["made"])
    with pytest.raises(Dy2StaticError, match="its source code is not available"):
        sf(POS)


def test_errors_keep_type_and_point_at_user_line():
    def bad(x):
        y = x * 2
        return y.reshape([7])   # 3 elements cannot become 7
    sf = paddle.jit.to_static(bad)
    with pytest.raises(ValueError) as info:
        sf(POS)
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "test_errors.py" in notes and "return y.reshape([7])" in notes and "^" in notes


def test_fallback_runs_eagerly_with_a_warning():
    ns = {}
    exec("def made(x):\n    return x * 2\n", ns)
    sf = paddle.jit.to_static(ns["made"], fallback=True)
    with pytest.warns(UserWarning, match="eagerly"):
        out = sf(POS)
    np.testing.assert_allclose(out.numpy(), POS.numpy() * 2)
