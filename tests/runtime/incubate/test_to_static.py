"""paddle.incubate inside paddle.jit.to_static: the same values as eager (and gradients through the converted
forward)."""
import numpy as np

import dy2st as paddle

inc = paddle.incubate
A = paddle.incubate.autograd
X = np.array([0.1, 0.5, -0.3])


class MaskedAttention(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(5, 5)

    def forward(self, x, m):
        y = inc.softmax_mask_fuse(self.fc(x), m)
        return inc.identity_loss(y, "mean"), y


def test_masked_softmax_and_identity_loss_convert():
    paddle.seed(0)
    net = MaskedAttention()
    x, m = paddle.randn([2, 3, 4, 5]), paddle.randn([2, 1, 4, 5])
    eager = net(x, m)
    static = paddle.jit.to_static(net)(x, m)
    np.testing.assert_allclose(static[1].numpy(), eager[1].numpy(), rtol=1e-6)
    static[0].backward()
    assert net.fc.weight.grad is not None


@paddle.jit.to_static
def _vjp_jvp(x, v):
    _, g = A.vjp(lambda t: paddle.tanh(t) * t.sum(), x, v)
    _, jv = A.jvp(lambda t: paddle.tanh(t) * t.sum(), x, v)
    return g, jv


def test_vjp_jvp_convert():
    v = np.array([1.0, -2.0, 0.5])
    g, jv = _vjp_jvp(paddle.to_tensor(X), paddle.to_tensor(v))
    t = np.tanh(X)
    jac = np.diag((1 - t ** 2) * X.sum()) + t[:, None]
    np.testing.assert_allclose(g.numpy(), v @ jac, rtol=1e-12)
    np.testing.assert_allclose(jv.numpy(), jac @ v, rtol=1e-12)


class FusedNorms(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.w = self.create_parameter([8], default_initializer=paddle.nn.initializer.Constant(1.5))
        self.b = self.create_parameter([8], is_bias=True, default_initializer=paddle.nn.initializer.Constant(0.1))

    def forward(self, x, r):
        a = inc.nn.functional.fused_rms_norm(x, self.w, None, 1e-6, 2, residual=r)
        c = inc.nn.functional.fused_layer_norm(x, self.w, self.b, 1e-5, begin_norm_axis=2, residual=r,
                                               residual_alpha=0.5)
        return a[0], a[1], c[0], c[1], c[2], c[3]


def test_fused_norms_build_static_programs():
    net = FusedNorms()
    x, r = paddle.randn([2, 3, 8]), paddle.randn([2, 3, 8])
    eager = net(x, r)
    static_net = paddle.jit.to_static(net, input_spec=[paddle.static.InputSpec([None, 3, 8], "float32", "x"),
                                                       paddle.static.InputSpec([None, 3, 8], "float32", "r")])
    static = static_net(x, r)
    for a, b in zip(eager, static):
        assert a.shape == b.shape
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-6)
    ops = {op.type for op in static_net.forward.concrete_program.main_program.global_block().ops}
    assert {"reduce_mean", "rsqrt"} <= ops
