"""Second-order gradient rules (runtime/double_grad.py): one row per op family member.

For each row ``f``, ``loss = sum(w * d/dx sum(v * f(x)))`` is built with ``paddle.grad(create_graph=True)``
and differentiated again, eagerly and under to_static; ``x.grad`` must equal central finite differences
of the first-order gradient (float64, first-order grads from the ordinary tape, trusted by the op table).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from runtime.double_grad import ensure_double_grads
from runtime.ops.registry import all_ops

_rs = np.random.RandomState(0)
POS = _rs.uniform(0.5, 1.5, (3, 4))
ANY = _rs.uniform(-1, 1, (3, 4))
W = _rs.uniform(-1, 1, (3, 4))
IDX = np.array([2, 0])

ROWS = {
    "tanh": (paddle.tanh, ANY), "sigmoid": (F.sigmoid, ANY), "exp": (paddle.exp, ANY), "expm1": (paddle.expm1, ANY),
    "sqrt": (paddle.sqrt, POS), "rsqrt": (paddle.rsqrt, POS), "reciprocal": (paddle.reciprocal, POS),
    "log": (paddle.log, POS), "log1p": (paddle.log1p, POS), "square": (paddle.square, ANY), "sin": (paddle.sin, ANY),
    "cos": (paddle.cos, ANY), "pow": (lambda x: paddle.pow(x, 3.0), ANY),
    "softmax": (lambda x: F.softmax(x, -1), ANY), "log_softmax": (lambda x: F.log_softmax(x, -1), ANY),
    "relu": (lambda x: F.relu(x) * x, ANY), "relu6": (lambda x: F.relu6(x * 4) * x, ANY),
    "leaky_relu": (lambda x: F.leaky_relu(x) * x, ANY), "abs": (lambda x: paddle.abs(x) * x, ANY),
    "reshape": (lambda x: paddle.reshape(x * x, [4, 3]), ANY),
    "transpose": (lambda x: paddle.transpose(x * x, [1, 0]), ANY),
    "squeeze_unsqueeze": (lambda x: paddle.squeeze(paddle.unsqueeze(x * x, 0), 0), ANY),
    "flatten": (lambda x: paddle.flatten(x * x), ANY),
    "sum": (lambda x: paddle.sum(x * x, axis=1, keepdim=True) * x, ANY),
    "mean": (lambda x: paddle.mean(x * x, axis=0) * x, ANY),
    "expand": (lambda x: paddle.expand((x * x)[0:1], [3, 4]) * x, ANY),
    "tile": (lambda x: paddle.tile((x * x)[:, 0:2], [1, 2]) * x, ANY),
    "slice": (lambda x: (x * x)[1:, 1:3], ANY), "concat": (lambda x: paddle.concat([x * x, paddle.sin(x)], 0), ANY),
    "gather": (lambda x: paddle.gather(x * x, paddle.to_tensor(IDX)), ANY),
    "index_select": (lambda x: paddle.index_select(x * x, paddle.to_tensor(IDX), axis=1), ANY),
    "roll": (lambda x: paddle.roll(x * x, 1, 1) * x, ANY), "cumsum": (lambda x: paddle.cumsum(x * x, 1) * x, ANY),
    "tril": (lambda x: paddle.tril(x * x) * x, ANY),
    "matmul": (lambda x: paddle.matmul(x * x, paddle.transpose(x, [1, 0])), ANY),
    "div": (lambda x: x / (x * x + 1.0), ANY), "sub": (lambda x: x * x - paddle.sin(x), ANY),
    "mul_broadcast": (lambda x: (x * x)[0:1] * x, ANY), "div_broadcast": (lambda x: x / (x * x + 1.0)[0:1], ANY),
}


def _first(f, x0, v):
    x = paddle.to_tensor(x0, stop_gradient=False)
    (g,) = paddle.grad((f(x) * paddle.to_tensor(v)).sum(), x)
    return g.numpy()


def _second(f):
    def loss(x, v, w):
        (g,) = paddle.grad((f(x) * v).sum(), x, create_graph=True)
        return (g * w).sum()
    return loss


@pytest.mark.parametrize("name", sorted(ROWS))
def test_second_order_matches_finite_differences(name):
    f, x0 = ROWS[name]
    v = np.random.RandomState(1).uniform(-1, 1, f(paddle.to_tensor(x0)).shape)
    want = np.zeros_like(x0)
    for i in np.ndindex(*x0.shape):
        e = np.zeros_like(x0)
        e[i] = 1e-6
        want[i] = ((_first(f, x0 + e, v) * W).sum() - (_first(f, x0 - e, v) * W).sum()) / 2e-6
    for fn in (_second(f), paddle.jit.to_static(_second(f))):
        x = paddle.to_tensor(x0, stop_gradient=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # to_static: "create_graph ... jit will discard it"
            fn(x, paddle.to_tensor(v), paddle.to_tensor(W)).backward()
        np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6, atol=1e-8)


def test_every_grad_op_has_a_rule_or_a_clear_error():
    ensure_double_grads()
    missing = [t for t, d in all_ops().items() if t.endswith("_grad") and t[:-5] in all_ops()
               and d.grad is None and d.interpret is None]
    assert not missing, f"grad ops left without a second-order rule or error: {missing}"
