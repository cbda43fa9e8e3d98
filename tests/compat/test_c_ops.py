"""``paddle._C_ops``: Paddle's positional op signatures on our ops, eager and static, against numpy."""
import importlib

import numpy as np
import pytest

import dy2st as paddle

_C_ops = importlib.import_module("dy2st._C_ops")
dt = paddle.base.framework.convert_np_dtype_to_dtype_


def test_creation_functions_take_paddles_positional_arguments():
    for npd in (np.float32, np.float64, np.int32, np.int64, np.bool_):
        z = _C_ops.zeros([3, 4], dt(npd), paddle.CPUPlace())
        o = _C_ops.ones([2], dt(npd), paddle.CPUPlace())
        np.testing.assert_array_equal(z.numpy(), np.zeros([3, 4], npd))
        assert z.numpy().dtype == npd and o.numpy().dtype == npd
        np.testing.assert_array_equal(o.numpy(), np.ones([2], npd))
    np.testing.assert_array_equal(_C_ops.full([2, 2], 1.5, dt(np.float64), None).numpy(), np.full([2, 2], 1.5))
    np.testing.assert_array_equal(_C_ops.arange(1, 7, 2, dt(np.int64), "cpu").numpy(), np.arange(1, 7, 2))
    np.testing.assert_allclose(_C_ops.linspace(0.0, 1.0, 5, dt(np.float32), None).numpy(),
                               np.linspace(0, 1, 5, dtype=np.float32))
    np.testing.assert_array_equal(_C_ops.eye(3, 2, dt(np.int32), None).numpy(), np.eye(3, 2, dtype=np.int32))
    x = paddle.to_tensor(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(_C_ops.full_like(x, 2.0, dt(np.float32), None).numpy(),
                                  np.full((2, 3), 2.0, np.float32))


def test_math_shape_and_nn_functions():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    x, y = paddle.to_tensor(a), paddle.to_tensor(b)
    np.testing.assert_allclose(_C_ops.matmul(x, y, False, False).numpy(), a @ b)
    np.testing.assert_allclose(_C_ops.matmul(y, x, True, True).numpy(), b.T @ a.T)
    np.testing.assert_allclose(_C_ops.add(x, x).numpy(), a + a)
    np.testing.assert_allclose(_C_ops.multiply(x, x).numpy(), a * a)
    np.testing.assert_allclose(_C_ops.sum(x, [], None, False).numpy(), a.sum())
    np.testing.assert_allclose(_C_ops.mean(x, [1], True).numpy(), a.mean(1, keepdims=True))
    np.testing.assert_allclose(_C_ops.max(x, [0], False).numpy(), a.max(0))
    np.testing.assert_allclose(_C_ops.scale(x, 2.0, 1.0, True).numpy(), a * 2 + 1)
    np.testing.assert_allclose(_C_ops.scale(x, 2.0, 1.0, False).numpy(), (a + 1) * 2)
    np.testing.assert_allclose(_C_ops.relu(x).numpy(), np.maximum(a, 0))
    e = np.exp(a - a.max(-1, keepdims=True))
    np.testing.assert_allclose(_C_ops.softmax(x, -1).numpy(), e / e.sum(-1, keepdims=True))
    np.testing.assert_allclose(_C_ops.transpose(x, [1, 0]).numpy(), a.T)
    np.testing.assert_allclose(_C_ops.reshape(x, [3, 2]).numpy(), a.reshape(3, 2))
    np.testing.assert_allclose(_C_ops.concat([x, x], 0).numpy(), np.concatenate([a, a]))
    np.testing.assert_allclose(_C_ops.cumsum(x, 1, False, False, False).numpy(), a.cumsum(1))
    np.testing.assert_allclose(_C_ops.cumsum(x, -1, True, False, False).numpy(), a.reshape(-1).cumsum())
    assert _C_ops.cast(x, dt(np.float32)).numpy().dtype == np.float32
    np.testing.assert_array_equal(_C_ops.argmax(x, 1, False, False, dt(np.int64)).numpy(), a.argmax(1))
    ids = paddle.to_tensor(np.array([0, 2], "int64"))
    np.testing.assert_array_equal(_C_ops.one_hot(ids, 3).numpy(), np.eye(3, dtype=np.float32)[[0, 2]])
    ln = _C_ops.layer_norm(x, None, None, 1e-5, 1).numpy()
    np.testing.assert_allclose(ln, (a - a.mean(1, keepdims=True)) / np.sqrt(a.var(1, keepdims=True) + 1e-5),
                               rtol=1e-6)


def test_static_mode_and_errors():
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data("x", [2, 3], "float32")
            out = _C_ops.add(_C_ops.ones([2, 3], dt(np.float32), None), x)
            exe = paddle.static.Executor(paddle.CPUPlace())
            (res,) = exe.run(main, feed={"x": np.full([2, 3], 2.0, "float32")}, fetch_list=[out])
        np.testing.assert_array_equal(res, np.full([2, 3], 3.0, "float32"))
    finally:
        paddle.disable_static()
    with pytest.raises(AttributeError, match=r"_C_ops.no_such_op is not provided by dy2st"):
        _C_ops.no_such_op
    with pytest.raises(RuntimeError, match="runs on the CPU"):
        _C_ops.zeros([1], dt(np.float32), paddle.CUDAPlace(0))


def test_cumsum_exclusive_and_reverse():
    a = np.random.default_rng(1).standard_normal((2, 5))
    x = paddle.to_tensor(a)
    excl = np.concatenate([np.zeros((2, 1)), a[:, :-1].cumsum(1)], 1)
    np.testing.assert_allclose(_C_ops.cumsum(x, 1, False, True, False).numpy(), excl)
    np.testing.assert_allclose(_C_ops.cumsum(x, -1, False, False, True).numpy(), a[:, ::-1].cumsum(1)[:, ::-1])
    rev_excl = np.concatenate([a[:, :0:-1].cumsum(1)[:, ::-1], np.zeros((2, 1))], 1)
    np.testing.assert_allclose(_C_ops.cumsum(x, 1, False, True, True).numpy(), rev_excl)


def test_assign_in_place_and_into_an_output():
    x = paddle.to_tensor(np.array([1.0, 2.0]))
    y = paddle.to_tensor(np.array([3.0, 4.0]))
    before = x.inplace_version
    assert _C_ops.assign_(x) is x and x.inplace_version == before + 1
    assert _C_ops.assign_out_(x, y) is y
    np.testing.assert_array_equal(y.numpy(), [1.0, 2.0])
