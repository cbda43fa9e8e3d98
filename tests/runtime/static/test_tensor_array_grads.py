"""Static gradients through tensor arrays (write_to_array / read_from_array / tensor_array_to_tensor),
at the top level and inside while loops, against eager autograd in float64; both executors."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import static

BACKENDS = ("compiled", "interpreter")


@pytest.fixture(autouse=True)
def static_mode():
    paddle.enable_static()
    try:
        yield
    finally:
        paddle.disable_static()


def _run(main, feed, fetch):
    main.verify()
    results = []
    for backend in BACKENDS:
        exe = static.Executor(backend=backend) if backend != "compiled" else static.Executor()
        results.append(exe.run(main, feed=feed, fetch_list=fetch))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12, err_msg="compiled and interpreter executors differ")
    return results[0]


def _eager_grads(fn, arrays, weight):
    """Gradients of sum(fn(*tensors) * weight) with eager autograd."""
    paddle.disable_static()
    try:
        ts = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
        out = fn(*ts)
        (out * paddle.to_tensor(weight)).sum().backward()
        return out.numpy(), [t.grad.numpy() for t in ts]
    finally:
        paddle.enable_static()


@pytest.mark.parametrize("use_stack,axis", [(True, 0), (True, 1), (False, 0), (False, -1)])
def test_array_write_read_and_to_tensor(use_stack, axis):
    """Elements read twice and also gathered by tensor_array_to_tensor: every contribution adds up."""
    xv = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [2, 3], "float64")
        x.stop_gradient = False
        arr = static.create_array("float64")
        static.array_write(x * 2.0, 0, arr)
        static.array_write(paddle.sin(x), 1, arr)
        static.array_write(x * x, 2, arr)
        r1 = static.array_read(arr, 1)
        r1_again = static.array_read(arr, 1)
        whole, _ = static.tensor_array_to_tensor(arr, axis=axis, use_stack=use_stack)
        loss_parts = [whole, r1 * 3.0, r1_again]
        assert all(not v.stop_gradient for v in loss_parts)
        out = whole.sum() * 0.0 + (whole * whole).sum() + (r1 * 3.0).sum() + r1_again.sum()
        (g,) = static.gradients([out], [x])
    (gx,) = _run(main, {"x": xv}, [g])

    def eager(t):
        parts = [t * 2.0, paddle.sin(t), t * t]
        whole = paddle.stack(parts, axis=axis) if use_stack else paddle.concat(parts, axis=axis)
        return ((whole * whole).sum() + (parts[1] * 3.0).sum() + parts[1].sum()).reshape([1])
    _, (want,) = _eager_grads(eager, [xv], np.ones(1))
    np.testing.assert_allclose(gx, want)


def test_prefilled_array_read_last_in_a_loop():
    """outs = [x]; repeat: outs.append(outs[-1] * 2 + x) -- the read of the previous element and the
    write happen inside a while loop; the gradient flows back through every element."""
    xv = np.array([0.5, -2.0])
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [2], "float64")
        x.stop_gradient = False
        arr = static.create_array("float64", [x * 1.0])
        i = paddle.full([1], 0, "int64")

        def body(i):
            last = static.array_read(arr, i)
            static.array_write(last * 2.0 + x, i + 1, arr)
            return [i + 1]
        static.nn.while_loop(lambda i: i < 3, body, [i])
        n = static.array_length(arr)
        final = static.array_read(arr, n - 1)
        (g,) = static.gradients([final.sum()], [x])
    fv, gx = _run(main, {"x": xv}, [final, g])
    # e0 = x, e1 = 3x, e2 = 7x, e3 = 15x
    np.testing.assert_allclose(fv, 15 * xv)
    np.testing.assert_allclose(gx, [15.0, 15.0])


def _lstm_weights(rng, features, hidden):
    return rng.standard_normal((features + hidden, 4 * hidden)) * 0.3, rng.standard_normal(4 * hidden) * 0.1


def _lstm_eager(x, w, b, hidden):
    h = paddle.zeros([x.shape[1], hidden], "float64")
    c = paddle.zeros([x.shape[1], hidden], "float64")
    outs = []
    for t in range(x.shape[0]):
        z = paddle.matmul(paddle.concat([x[t], h], axis=-1), w) + b
        i, f, g, o = paddle.split(z, 4, axis=-1)
        c = paddle.nn.functional.sigmoid(f) * c + paddle.nn.functional.sigmoid(i) * paddle.tanh(g)
        h = paddle.nn.functional.sigmoid(o) * paddle.tanh(c)
        outs.append(h)
    return paddle.stack(outs, axis=0)


def test_lstm_over_a_tensor_loop_trains():
    """An LSTM over time as a while loop, its hidden states appended to a tensor array and stacked:
    outputs and gradients (inputs, weights) equal eager autograd, and an SGD step lowers the loss."""
    T, batch, features, hidden = 4, 3, 2, 3
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((T, batch, features))
    wv, bv = _lstm_weights(rng, features, hidden)
    weight = rng.standard_normal((T, batch, hidden))
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [-1, batch, features], "float64")
        w = static.data("w", list(wv.shape), "float64")
        b = static.data("b", list(bv.shape), "float64")
        for v in (x, w, b):
            v.stop_gradient = False
        steps = paddle.shape(x)[0:1].astype("int64")
        outs = static.create_array("float64")
        t = paddle.full([1], 0, "int64")
        h = paddle.zeros([batch, hidden], "float64")
        c = paddle.zeros([batch, hidden], "float64")

        def body(t, h, c):
            xt = paddle.gather(x, t).reshape([batch, features])
            z = paddle.matmul(paddle.concat([xt, h], axis=-1), w) + b
            i, f, g, o = paddle.split(z, 4, axis=-1)
            c2 = paddle.nn.functional.sigmoid(f) * c + paddle.nn.functional.sigmoid(i) * paddle.tanh(g)
            h2 = paddle.nn.functional.sigmoid(o) * paddle.tanh(c2)
            static.array_write(h2, t, outs)
            return [t + 1, h2, c2]
        static.nn.while_loop(lambda t, h, c: t < steps, body, [t, h, c])
        seq, _ = static.tensor_array_to_tensor(outs, axis=0, use_stack=True)
        loss = (seq * weight).sum()
        gx, gw, gb = static.gradients([loss], [x, w, b])
    ops = [op.type for blk in main.blocks for op in blk.ops]
    assert "while_grad" in ops and "tensor_array_to_tensor_grad" in ops
    seq_v, lv, gxv, gwv, gbv = _run(main, {"x": xv, "w": wv, "b": bv}, [seq, loss, gx, gw, gb])
    want, (want_x, want_w, want_b) = _eager_grads(lambda a, b_, c_: _lstm_eager(a, b_, c_, hidden),
                                                  [xv, wv, bv], weight)
    np.testing.assert_allclose(seq_v, want, rtol=1e-10)
    np.testing.assert_allclose(gxv, want_x, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(gwv, want_w, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(gbv, want_b, rtol=1e-9, atol=1e-12)
    # a few SGD steps with these gradients train it
    exe = static.Executor()
    losses = []
    for _ in range(3):
        lv, gwv, gbv = exe.run(main, feed={"x": xv, "w": wv, "b": bv}, fetch_list=[loss, gw, gb])
        losses.append(float(lv))
        wv, bv = wv - 0.05 * gwv, bv - 0.05 * gbv
    assert losses[2] < losses[1] < losses[0]


def test_array_written_in_a_loop_then_stacked():
    """Each iteration writes a value computed from a row of x; the stacked array's gradient reaches
    every row."""
    xv = np.array([[1.0, -2.0], [-3.0, 0.5], [2.0, 2.0], [-1.0, -1.0]])
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [4, 2], "float64")
        x.stop_gradient = False
        arr = static.create_array("float64")
        i = paddle.full([1], 0, "int64")

        def body(i):
            row = paddle.gather(x, i).reshape([2])
            static.array_write(row * row, i, arr)
            return [i + 1]
        static.nn.while_loop(lambda i: i < 4, body, [i])
        seq, _ = static.tensor_array_to_tensor(arr, axis=0, use_stack=True)
        (g,) = static.gradients([(seq * np.arange(8.0).reshape(4, 2)).sum()], [x])
    (gx,) = _run(main, {"x": xv}, [g])
    np.testing.assert_allclose(gx, 2 * xv * np.arange(8.0).reshape(4, 2))


def test_array_gradient_without_read_of_some_elements():
    """Elements nobody reads get zero gradients (write_to_array_grad of an absent element)."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [2], "float64")
        x.stop_gradient = False
        y = static.data("y", [2], "float64")
        y.stop_gradient = False
        arr = static.create_array("float64")
        static.array_write(x * 3.0, 0, arr)
        static.array_write(y * 5.0, 1, arr)
        r = static.array_read(arr, 1)
        gx, gy = static.gradients([r.sum()], [x, y])
    # the array is one variable: x reaches it, so x gets a gradient, zero as its element is never read
    gxv, gyv = _run(main, {"x": np.ones(2), "y": np.ones(2)}, [gx, gy])
    np.testing.assert_allclose(gxv, [0.0, 0.0])
    np.testing.assert_allclose(gyv, [5.0, 5.0])
