"""static.py_func: numpy forward/backward functions as ops (static training and eager)."""
import numpy as np
import pytest

import runtime as paddle
from runtime import static
from runtime.static.py_func import py_func


def relu(x):
    return np.maximum(x, 0.0)


def relu_backward(y, dy):   # x is skipped: (outputs, output grads)
    return np.array(dy) * (y > 0)


def test_py_func_forward_static():
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", [-1, 4], "float32")
            y = main.current_block().create_var(name="output", dtype="float32", shape=[-1, 4])
            out = py_func(func=relu, x=x, out=y, backward_func=relu_backward, skip_vars_in_backward_input=x)
            z = out * 2
        assert out is y
        op = [o for o in main.global_block().ops if o.type == "py_func"][0]
        assert op.attr("backward_skip_vars") == ["x"]
        assert main._py_funcs[op.attr("forward_callable_id")] is relu
        assert main._py_funcs[op.attr("backward_callable_id")] is relu_backward
        main.verify()
        xv = np.array([[-1.0, 2.0, -3.0, 4.0]], np.float32)
        (r,) = static.Executor().run(main, feed={"x": xv}, fetch_list=[z])
        np.testing.assert_allclose(r, relu(xv) * 2)
        assert r.dtype == np.float32
    finally:
        paddle.disable_static()


def test_py_func_grad_rule_static():
    """The grad rule appends a py_func op calling backward_func on (outputs, output grads)."""
    from runtime.ops.registry import lookup
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", [2, 4], "float32")
            x.stop_gradient = False
            y = main.current_block().create_var(name="y", dtype="float32", shape=[2, 4])
            py_func(relu, x, y, backward_func=relu_backward, skip_vars_in_backward_input=[x])
            assert y.stop_gradient is False
            fwd = main.global_block().ops[-1]
            dy = static.data("dy", [2, 4], "float32")

            class Ctx:
                inputs = ([x],)
                attrs = fwd.attrs

                def attr(self, n):
                    return fwd.attrs[n]

                def output(self, i):
                    return [y][i]
            (gx,) = lookup("py_func").grad(Ctx(), [dy])[0]
        gop = main.global_block().ops[-1]
        assert gop.type == "py_func" and gop.input("X") == ["y", "dy"] and gop.output("Out") == [gx.name]
        assert gop.attr("forward_callable_id") == fwd.attr("backward_callable_id")
        main.verify()
        xv = np.array([[-1.0, 2.0, -3.0, 4.0], [1.0, -1.0, 0.5, -0.5]], np.float32)
        dyv = np.arange(8, dtype=np.float32).reshape(2, 4)
        (g,) = static.Executor().run(main, feed={"x": xv, "dy": dyv}, fetch_list=[gx])
        np.testing.assert_allclose(g, dyv * (xv > 0))
    finally:
        paddle.disable_static()


def test_py_func_eager_forward_backward():
    xv = np.array([-1.0, 2.0, -3.0, 4.0], np.float32)
    x = paddle.to_tensor(xv, stop_gradient=False)
    y = py_func(relu, x, None, backward_func=relu_backward, skip_vars_in_backward_input=x)
    np.testing.assert_allclose(y.numpy(), relu(xv))
    (y * paddle.to_tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32))).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 2.0, 0.0, 4.0])


def test_py_func_eager_multi_io_no_skip():
    def f(a, b):
        return a * b, a + b

    def f_grad(a, b, p, s, dp, ds):   # inputs, outputs, output grads
        return dp * b + ds, dp * a + ds
    a = paddle.to_tensor(np.array([1.0, 2.0]), stop_gradient=False)
    b = paddle.to_tensor(np.array([3.0, 5.0]), stop_gradient=False)
    p, s = py_func(f, [a, b], [None, None], backward_func=f_grad)
    (p + s * 2.0).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [3.0 + 2.0, 5.0 + 2.0])
    np.testing.assert_allclose(b.grad.numpy(), [1.0 + 2.0, 2.0 + 2.0])


def test_py_func_errors():
    x = paddle.to_tensor(np.ones(2, np.float32))
    with pytest.raises(TypeError, match="func must be callable"):
        py_func(3, x, None)
    with pytest.raises(ValueError, match="neither an input nor an output"):
        py_func(relu, x, None, backward_func=relu_backward, skip_vars_in_backward_input=["nope"])


def test_py_func_static_gradients():
    from runtime.static.backward import gradients
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", [2, 4], "float32")
            x.stop_gradient = False
            y = main.current_block().create_var(name="y", dtype="float32", shape=[2, 4])
            py_func(relu, x, y, backward_func=relu_backward, skip_vars_in_backward_input=x)
            loss = paddle.mean(y)
            (gx,) = gradients(loss, [x])
        main.verify()
        assert [op.type for op in main.global_block().ops].count("py_func") == 2
        xv = np.array([[-1.0, 2.0, -3.0, 4.0], [1.0, 1.0, -1.0, 1.0]], np.float32)
        (g,) = static.Executor().run(main, feed={"x": xv}, fetch_list=[gx])
        np.testing.assert_allclose(g, (xv > 0) / 8.0)
    finally:
        paddle.disable_static()
