"""Second-order gradients against real Paddle: a WGAN-GP gradient penalty over small conv critics
(Conv2D, BatchNorm2D in train mode and with global statistics, LeakyReLU, AvgPool2D, Linear; Conv2D,
InstanceNorm2D, celu, elu), a PINN-style tanh/silu/softplus/sigmoid MLP and a net of elementwise ops (clip,
maximum, where, sqrt, abs, pow, exp, divide, log, leaky_relu). Paddle 3.3.1 itself has no double grad for
gelu, mish, selu, layer/group norm, p_norm, max pool, softmax ...: those rules are checked against finite
differences in tests/runtime/test_double_grad_nn.py.

The same function (`penalty_cases`, sent to Paddle by its source) builds the nets from one seed, computes
``||dD/dx||`` with ``paddle.grad(create_graph=True)``, backpropagates a loss made of it and returns every
parameter's gradient; ours (eager, and the penalty step under to_static) must equal Paddle's. One Paddle
subprocess serves the whole module.
"""
from __future__ import annotations

import inspect
import textwrap
import warnings

import numpy as np
import pytest

import dy2st as paddle
from tests.interop.paddle_runner import run_paddle


def penalty_cases(paddle, np, to_static=False):
    """{case: {name: array}}: the penalty, the loss and each trainable parameter's gradient (float64)."""
    nn, F = paddle.nn, paddle.nn.functional
    paddle.set_default_dtype("float64")
    rs = np.random.RandomState(0)

    def trainable(layer):
        return [p for p in layer.parameters() if not p.stop_gradient]

    def init(layer):
        for p in trainable(layer):
            p.set_value(rs.uniform(-0.6, 0.6, p.shape).astype("float64"))

    class Critic(nn.Layer):
        def __init__(self, use_global_stats=None):
            super().__init__()
            self.conv = nn.Conv2D(2, 3, 3, padding=1)
            self.bn = nn.BatchNorm2D(3, use_global_stats=use_global_stats)
            self.act = nn.LeakyReLU(0.2)
            self.pool = nn.AvgPool2D(2)
            self.fc = nn.Linear(3 * 2 * 2, 1)

        def forward(self, x):
            h = self.pool(self.act(self.bn(self.conv(x))))
            return self.fc(h.reshape([-1, 12]))

    class InstanceCritic(nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2D(2, 2, 2, stride=2)
            self.norm = nn.InstanceNorm2D(2)
            self.fc = nn.Linear(8, 1)

        def forward(self, x):
            h = F.celu(self.norm(self.conv(x)), alpha=0.5)
            return self.fc(F.elu(h).reshape([-1, 8]))

    class MLP(nn.Layer):
        def __init__(self):
            super().__init__()
            self.l1, self.l2, self.l3, self.l4 = nn.Linear(2, 8), nn.Linear(8, 8), nn.Linear(8, 8), nn.Linear(8, 1)

        def forward(self, x):
            h = paddle.tanh(self.l1(x))
            h = F.silu(self.l2(h))
            h = F.softplus(self.l3(h), beta=2.0)
            return F.sigmoid(self.l4(h))

    class Elementwise(nn.Layer):
        def __init__(self):
            super().__init__()
            self.l1, self.l2 = nn.Linear(3, 6), nn.Linear(6, 1)

        def forward(self, x):
            h = self.l1(x)
            h = paddle.clip(h, -0.4, 0.4) + paddle.maximum(h, h * h) + paddle.where(h > 0, h, paddle.sqrt(h * h + 1))
            h = paddle.abs(h) * paddle.pow(h, 3.0) + paddle.exp(-h) / (1.0 + h * h) + F.leaky_relu(h, 0.1)
            return self.l2(paddle.log(1.0 + h * h))

    def penalty(net, x):
        out = net(x)
        (g,) = paddle.grad(out.sum(), x, create_graph=True)
        flat = g.reshape([x.shape[0], -1])
        norm = paddle.sqrt((flat * flat).sum(1))
        gp = F.mse_loss(norm, paddle.ones_like(norm))
        return gp, out.mean() + 10.0 * gp

    results = {}
    real, fake = rs.uniform(-1, 1, (3, 2, 4, 4)), rs.uniform(-1, 1, (3, 2, 4, 4))
    mix = rs.uniform(0, 1, (3, 1, 1, 1))
    for name, make, x0 in [("critic", Critic, mix * real + (1 - mix) * fake),
                           ("instance_critic", InstanceCritic, mix * fake + (1 - mix) * real),
                           ("critic_global_stats", lambda: Critic(True), mix * real + (1 - mix) * fake),
                           ("mlp", MLP, rs.uniform(-1, 1, (5, 2))),
                           ("elementwise", Elementwise, rs.uniform(-1, 1, (4, 3)))]:
        net = make()
        init(net)
        net.train()
        def step(x, net=net):
            return penalty(net, x)
        if to_static:
            step = paddle.jit.to_static(step)
        x = paddle.to_tensor(x0, stop_gradient=False)
        gp, loss = step(x)
        loss.backward()
        res = results[name] = {"gp": gp.numpy(), "loss": loss.numpy()}
        for i, p in enumerate(trainable(net)):
            res[f"grad{i}"] = p.grad.numpy()
    return results


PADDLE_CODE = """
import numpy as np
{source}
flat = {{}}
for case, res in penalty_cases(paddle, np).items():
    for k, v in res.items():
        flat[case + "/" + k] = np.asarray(v)
np.savez("paddle_out.npz", **flat)
"""


@pytest.fixture(scope="module")
def paddle_results(tmp_path_factory):
    wd = tmp_path_factory.mktemp("double_grad")
    code = PADDLE_CODE.format(source=textwrap.dedent(inspect.getsource(penalty_cases)))
    proc = run_paddle(code, wd)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with np.load(wd / "paddle_out.npz") as z:
        out = {}
        for key in z.files:
            case, name = key.split("/")
            out.setdefault(case, {})[name] = z[key]
    return out


def _compare(ours, theirs):
    assert set(ours) == set(theirs)
    for case in theirs:
        assert sorted(ours[case]) == sorted(theirs[case]), case
        for name, want in theirs[case].items():
            got = np.asarray(ours[case][name])
            assert got.shape == want.shape and got.dtype == want.dtype, (case, name, got.shape, want.shape)
            np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-10, err_msg=f"{case}/{name}")


@pytest.mark.parametrize("to_static", [False, True], ids=["eager", "to_static"])
def test_gradient_penalty_matches_paddle(paddle_results, to_static):
    old = paddle.get_default_dtype()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # to_static: "create_graph ... jit will discard it"
            ours = penalty_cases(paddle, np, to_static=to_static)
    finally:
        paddle.set_default_dtype(old)
    _compare(ours, paddle_results)
