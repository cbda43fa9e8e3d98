"""paddle.autograd.PyLayer in eager mode: custom backward on the tape, ctx features, Paddle's errors."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.autograd import PyLayer, PyLayerContext


class Tanh(PyLayer):
    @staticmethod
    def forward(ctx, x):
        y = paddle.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        y, = ctx.saved_tensor()
        return dy * (1 - paddle.square(y))


class Scaled(PyLayer):
    """Two tensor inputs, a keyword non-tensor argument kept on ctx."""
    @staticmethod
    def forward(ctx, x, y, k=2.0):
        ctx.save_for_backward(x, y)
        ctx.k = k
        return x * y * k

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensor()
        return g * y * ctx.k, g * x * ctx.k


def leaf(values, dtype="float64"):
    return paddle.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=False)


def test_tanh_values_and_grad_match_analytic():
    data = np.random.default_rng(0).standard_normal((2, 3))
    x = leaf(data)
    z = Tanh.apply(x)
    assert isinstance(z, paddle.Tensor) and not z.stop_gradient
    np.testing.assert_allclose(z.numpy(), np.tanh(data))
    z.mean().backward()
    np.testing.assert_allclose(x.grad.numpy(), (1 - np.tanh(data) ** 2) / 6)
    assert isinstance(Tanh(), PyLayerContext)


def test_custom_backward_is_used_not_the_ops_rules():
    class Fake(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 10          # deliberately not the true derivative
    x = leaf([1.0, 2.0])
    Fake.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [10.0, 10.0])


def test_two_inputs_kwargs_and_chain_with_other_ops():
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    z = Scaled.apply(x, y, k=3.0)
    (z * z).sum().backward()
    np.testing.assert_allclose(z.numpy(), [9.0, 24.0])
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.array([9.0, 24.0]) * np.array([3.0, 4.0]) * 3)
    np.testing.assert_allclose(y.grad.numpy(), 2 * np.array([9.0, 24.0]) * np.array([1.0, 2.0]) * 3)


def test_multiple_outputs_non_tensor_outputs_and_none_grad():
    class Split(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2, 5, "s", x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            return ga * 2 + gb * 3
    x = leaf([1.0, 2.0])
    a, five, s, b = Split.apply(x)
    assert (five, s) == (5, "s")
    (a.sum() + b.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 5.0])
    # only one output reached: the other gradient is materialized as zeros
    x.clear_grad()
    Split.apply(x)[0].sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_backward_returning_none_gives_no_gradient():
    class NoneG(PyLayer):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g, None
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    NoneG.apply(x, y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])
    assert y.grad is None


def test_list_input_gets_a_list_of_grads():
    class ListIn(PyLayer):
        @staticmethod
        def forward(ctx, xs, w):
            return xs[0] * w + xs[1]

        @staticmethod
        def backward(ctx, g):
            return [g * 2, g * 3], g * 4
    x, y, w = leaf([1.0, 2.0]), leaf([3.0, 4.0]), leaf([1.0, 1.0])
    ListIn.apply([x, y], w).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])
    np.testing.assert_allclose(y.grad.numpy(), [3.0, 3.0])
    np.testing.assert_allclose(w.grad.numpy(), [4.0, 4.0])


def test_mark_non_differentiable_and_materialize_grads():
    seen = {}

    class Nd(PyLayer):
        @staticmethod
        def forward(ctx, x):
            a, b = x + x, x + x + x
            ctx.mark_non_differentiable(a)
            return a, b

        @staticmethod
        def backward(ctx, ga, gb):
            seen["ga"] = ga.numpy()
            return gb
    x = leaf([1.0])
    a, b = Nd.apply(x)
    assert a.stop_gradient and not b.stop_gradient
    (a + b).sum().backward()
    np.testing.assert_allclose(seen["ga"], [0.0])
    np.testing.assert_allclose(x.grad.numpy(), [1.0])

    class NoMat(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x + x + x, x + x

        @staticmethod
        def backward(ctx, g, g2):
            seen["g2"] = g2
            return g
    x = leaf([1.0])
    NoMat.apply(x)[0].sum().backward()
    assert seen["g2"] is None
    np.testing.assert_allclose(x.grad.numpy(), [1.0])


def test_no_recording_when_no_input_needs_grad_or_under_no_grad():
    a = paddle.to_tensor([1.0, 2.0])
    assert Scaled.apply(a, a).stop_gradient
    x = leaf([1.0])
    with paddle.no_grad():
        assert Tanh.apply(x).stop_gradient


def test_paddle_errors():
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])

    class TooMany(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g, g
    with pytest.raises(ValueError, match="should be 1, but received 2"):
        TooMany.apply(x).sum().backward()

    class TooFew(PyLayer):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g
    with pytest.raises(ValueError, match="should not return empty at 1 position"):
        TooFew.apply(x, y).sum().backward()

    class NotTensor(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return 3.0
    with pytest.raises(ValueError, match="only support Tensor or None"):
        NotTensor.apply(x).sum().backward()

    class NoTensorOut(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return 3

        @staticmethod
        def backward(ctx, g):
            return g
    with pytest.raises(ValueError, match="At least one output of `PyLayer.forward` is a `Tensor`"):
        NoTensorOut.apply(x)

    class Ident(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 3
    with pytest.raises(ValueError, match="can't use inplace strategy"):
        Ident.apply(x)
    x.clear_grad()
    (Ident.apply(x * 1) * 1).sum().backward()       # a non-leaf input may be returned
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])

    with pytest.raises(NotImplementedError, match="forward function"):
        PyLayer.apply(x)


def test_mark_not_inplace_returns_a_new_tensor():
    class Keep(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_not_inplace(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 3
    x = leaf([1.0, 2.0])
    o = Keep.apply(x)
    assert o is not x and not o.stop_gradient
    o.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_double_grad_through_a_pylayer_backward():
    class Square(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensor()
            return 2 * x * g
    x = leaf([1.0, 3.0])
    g, = paddle.grad(Square.apply(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), [2.0, 6.0])
    gg, = paddle.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), [2.0, 2.0])


def test_once_differentiable_and_function_alias():
    from runtime.autograd_pylayer import once_differentiable
    assert paddle.autograd.Function is PyLayer

    class Sq(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensor()
            return 2 * x * g
    x = leaf([2.0])
    g, = paddle.grad(Sq.apply(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), [4.0])
    assert g.stop_gradient


# -- under to_static: staged as a py_func op, values and custom gradients as in eager -----------------------

class Fake10(PyLayer):
    """tanh forward, a deliberately different backward (x10), a non-tensor argument."""
    @staticmethod
    def forward(ctx, x, scale=1.0):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return paddle.tanh(x) * scale

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensor()
        return g * 10 * ctx.scale


class _PyLayerNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)

    def forward(self, x):
        return Fake10.apply(self.fc(x), scale=2.0).sum(axis=1) + 1


def test_to_static_matches_eager_values_and_custom_grads():
    paddle.seed(3)
    net = _PyLayerNet()
    x = paddle.to_tensor(np.random.default_rng(1).standard_normal((4, 3)).astype("float32"))
    eager_y = net(x)
    eager_y.sum().backward()
    eager_gw = net.fc.weight.grad.numpy().copy()
    net.clear_gradients()
    static_net = paddle.jit.to_static(net)
    y = static_net(x)
    np.testing.assert_allclose(y.numpy(), eager_y.numpy(), rtol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(net.fc.weight.grad.numpy(), eager_gw, rtol=1e-6)
    # the custom rule, not tanh's: dL/dW = x^T @ (20 * ones)
    np.testing.assert_allclose(eager_gw, x.numpy().T @ np.full((4, 2), 20.0, np.float32), rtol=1e-5)
    assert "py_func" in str(static_net.forward.concrete_program.main_program)


def test_jit_save_of_a_pylayer_program_is_refused(tmp_path):
    from dy2st.static import InputSpec
    from runtime.autograd_pylayer_static import PyLayerSaveError
    net = paddle.jit.to_static(_PyLayerNet(), input_spec=[InputSpec([None, 3], "float32", "x")])
    with pytest.raises(PyLayerSaveError, match="PyLayer 'Fake10'"):
        paddle.jit.save(net, str(tmp_path / "net"))


class _TwoOut(PyLayer):
    """A list input, a keyword int, two tensor outputs and a string output."""
    @staticmethod
    def forward(ctx, xs, y, k=2):
        ctx.save_for_backward(xs[0], y)
        return xs[0] * y * k, xs[1] + y, "tag"

    @staticmethod
    def backward(ctx, g1, g2):
        x, y = ctx.saved_tensor()
        return [g1 * y * 2, g2], g1 * x * 2 + g2


def _two_out_loss(a, b, c):
    p, s, tag = _TwoOut.apply([a, b], c, k=2)
    assert tag == "tag"
    return (p * 3 + s).sum()


def test_to_static_multi_output_list_input_and_kwargs():
    vals = [np.array([1.0, 2.0]), np.array([3.0, -1.0]), np.array([0.5, 4.0])]
    results = []
    for fn in (_two_out_loss, paddle.jit.to_static(_two_out_loss)):
        ts = [paddle.to_tensor(v.astype("float32"), stop_gradient=False) for v in vals]
        ts[1].stop_gradient = True
        out = fn(*ts)
        out.backward()
        results.append((float(out), [None if t.grad is None else t.grad.numpy() for t in ts]))
    (loss_e, grads_e), (loss_s, grads_s) = results
    assert loss_e == loss_s == 57.5           # sum(3 * a*c*2 + b + c)
    np.testing.assert_allclose(grads_e[0], [3.0, 24.0])
    np.testing.assert_allclose(grads_e[2], [7.0, 13.0])
    assert grads_e[1] is None and grads_s[1] is None
    np.testing.assert_allclose(grads_s[0], grads_e[0])
    np.testing.assert_allclose(grads_s[2], grads_e[2])
