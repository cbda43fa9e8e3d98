"""Paddle's argument checks as its API unit tests exercise them: TypeError while building a static
Program, nothing in eager mode, ValueError-and-TypeError for a non-Tensor argument; and what those tests
read back: shapes known while building, ``name=`` on outputs, tensor-array ``stack``, ``full``'s
complex default. Expected values from numpy (tests/interop/test_legacy_api_interop.py compares with Paddle)."""
import numpy as np
import pytest

import dy2st as paddle
from runtime.api.arg_checks import ArgumentTypeError


@pytest.fixture
def static_program():
    paddle.enable_static()
    main = paddle.static.Program()
    try:
        with paddle.static.program_guard(main, paddle.static.Program()):
            yield main
    finally:
        paddle.disable_static()


def test_argument_error_is_both_of_paddles_error_types():
    assert issubclass(ArgumentTypeError, TypeError) and issubclass(ArgumentTypeError, ValueError)
    with pytest.raises(ValueError, match=r"bmm: x must be a Tensor, got ndarray"):
        paddle.bmm(np.ones([2, 3, 4], "float32"), paddle.ones([2, 4, 2]))
    with pytest.raises(TypeError, match=r"mse_loss\(\): argument 'input' \(position 0\) must be Tensor, but got tuple"):
        paddle.nn.functional.mse_loss((paddle.ones([2]),), paddle.ones([2]))
    with pytest.raises(TypeError, match="data type 'uint4' not understood"):
        paddle.full([1], 5, dtype="uint4")
    with pytest.raises(TypeError, match="num_rows should be a non-negative int"):
        paddle.eye(-1)
    with pytest.raises(TypeError, match="num_columns should be a non-negative int"):
        paddle.eye(2, num_columns=2.5)
    with pytest.raises(TypeError, match="'axis' must be int"):
        paddle.unbind(paddle.ones([2, 3]), axis=1.0)
    with pytest.raises(ValueError, match="expected to be no less than 0"):
        paddle.zeros([-1, 5])


def test_dtype_checks_apply_only_while_building(static_program):
    x = paddle.static.data("x", [3, 4], "float32")
    i32 = paddle.static.data("i", [3], "int32")
    with pytest.raises(TypeError, match=r"'dtype' in full_like/zeros_like/ones_like must be"):
        paddle.zeros_like(x, "int8")
    with pytest.raises(TypeError, match=r"'dtype' in range/arange must be"):
        paddle.arange(5, dtype="int8")
    with pytest.raises(TypeError, match=r"'x' in std must be"):
        paddle.std(i32)
    with pytest.raises(TypeError, match=r"'shape' in full must be"):
        paddle.full(paddle.static.data("fs", [2], "float32"), 1.0)
    with pytest.raises(TypeError, match=r"'num' in linspace must be"):
        paddle.linspace(0, 1, 2.5)
    with pytest.raises(ValueError, match="may cause data type overflows"):
        paddle.linspace(paddle.static.data("st", [1], "float64"), 1, 3, dtype="float32")
    with pytest.raises(RuntimeError, match="can not match"):
        paddle.searchsorted(paddle.static.data("s", [2, 2, 3], "float64"), paddle.static.data("v", [2, 5], "float64"))
    paddle.disable_static()
    try:    # the same calls are fine in eager mode, as in Paddle
        assert paddle.zeros_like(paddle.ones([2]), "int8").numpy().dtype == np.int8
        np.testing.assert_allclose(paddle.std(paddle.to_tensor([1, 3], "int32")).numpy(), np.std([1, 3], ddof=1))
        np.testing.assert_allclose(paddle.linspace(0, 1, 2.5).numpy(), [0.0, 1.0])
    finally:
        paddle.enable_static()


def test_what_a_static_program_knows_before_running(static_program):
    assert paddle.arange(0, 1 + 0.005, 0.005).shape == [201]
    assert paddle.arange(0, -9007199254740994, -9007199254740993).shape == [2]   # exact, not float division
    assert paddle.arange(10, 1, -3).shape == [3]
    assert paddle.arange(3, 3).shape == [0]
    out = paddle.linspace(0, 10, 5, dtype="float32", name="linspace_res")
    assert out.name.startswith("linspace_res.tmp_")
    arr = paddle.tensor.create_array(dtype="float32")
    zero = paddle.tensor.fill_constant(shape=[1], value=0, dtype="int64")
    src = paddle.assign(np.arange(6, dtype="float32").reshape(2, 3))
    for k in range(3):
        paddle.tensor.array_write(src * (k + 1), zero + k, arr)
    stacked = paddle.stack(arr, axis=1)
    assert stacked.shape == [2, -1, 3]
    full_c = paddle.full([3], 1.1 + 1.1j)
    exe = paddle.static.Executor(paddle.CPUPlace())
    res_lin, res_stack, res_c = exe.run(static_program, fetch_list=[out, stacked, full_c])
    np.testing.assert_allclose(res_lin, np.linspace(0, 10, 5, dtype="float32"))
    base = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_array_equal(res_stack, np.stack([base, base * 2, base * 3], axis=1))
    assert res_c.dtype == np.complex128
    np.testing.assert_array_equal(res_c, np.full([3], 1.1 + 1.1j))


def test_full_defaults_and_alias():
    assert paddle.full([2], 1 + 2j).dtype == paddle.complex128
    assert paddle.full([2], True).dtype == paddle.bool
    np.testing.assert_array_equal(paddle.full(size=[2, 3], fill_value=3, dtype="int32").numpy(),
                                  np.full([2, 3], 3, "int32"))
    with pytest.raises(TypeError, match="shape once"):
        paddle.full([2], 1, size=[2])
