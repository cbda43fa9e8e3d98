"""The models the jit.save / ONNX tests save: each a Layer factory, its InputSpecs and sample inputs.

Control-flow models get inputs that take each branch and different trip counts.
"""
import numpy as np

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st.static import InputSpec


class LinearReLU(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(8, 4)

    def forward(self, x):
        return F.relu(self.fc(x))


class MLP(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = paddle.nn.Linear(16, 32), paddle.nn.Linear(32, 10)

    def forward(self, x):
        return F.softmax(self.l2(F.relu(self.l1(x))), axis=-1)


class LeNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.c1 = paddle.nn.Conv2D(1, 6, 5, padding=2)
        self.c2 = paddle.nn.Conv2D(6, 16, 5)
        self.f1, self.f2, self.f3 = paddle.nn.Linear(16 * 5 * 5, 120), paddle.nn.Linear(120, 84), \
            paddle.nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2, 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2, 2)
        x = paddle.flatten(x, 1)
        return self.f3(F.relu(self.f2(F.relu(self.f1(x)))))


class IfElse(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        if paddle.mean(y) > 0:
            y = y * 2
        else:
            y = y - 1
        return y


class WhileLoop(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)

    def forward(self, x, n):
        y = self.fc(x)
        i = paddle.zeros([1], "int64")
        while i < n:
            y = y * 0.5 + 1.0
            i = i + 1
        return y


class Both(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = paddle.nn.Linear(16, 32), paddle.nn.Linear(32, 4)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        if paddle.mean(h) > 0.5:
            h = h * 2
        else:
            h = h - 1
        i = paddle.zeros([1], "int64")
        while i < 3:
            h = h + 0.5
            i = i + 1
        return self.fc2(h)


class BNEval(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(6, 5)
        self.bn = paddle.nn.BatchNorm1D(5)

    def forward(self, x):
        return self.bn(self.fc(x))


class TwoInputs(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.a, self.b = paddle.nn.Linear(4, 3), paddle.nn.Linear(5, 3)

    def forward(self, x, y):
        return paddle.tanh(self.a(x) + self.b(y))


class NoParams(paddle.nn.Layer):
    def forward(self, x):
        return paddle.exp(x) * 2.0 + paddle.sum(x, axis=-1, keepdim=True)


class EncoderBlock(paddle.nn.Layer):
    """Pre-norm Transformer encoder block: 4-head self-attention + FFN, written by hand."""

    def __init__(self, d=16, heads=4):
        super().__init__()
        self.d, self.h = d, heads
        self.qkv = paddle.nn.Linear(d, 3 * d)
        self.proj = paddle.nn.Linear(d, d)
        self.ln1, self.ln2 = paddle.nn.LayerNorm(d), paddle.nn.LayerNorm(d)
        self.ff1, self.ff2 = paddle.nn.Linear(d, 2 * d), paddle.nn.Linear(2 * d, d)

    def forward(self, x):
        b, s = x.shape[0], x.shape[1]
        h = self.ln1(x)
        qkv = paddle.reshape(self.qkv(h), [b, s, 3, self.h, self.d // self.h])
        qkv = paddle.transpose(qkv, [2, 0, 3, 1, 4])
        q, k, v = qkv[0], qkv[1], qkv[2]
        att = F.softmax(paddle.matmul(q, k, transpose_y=True) * (1.0 / (self.d // self.h) ** 0.5), axis=-1)
        o = paddle.reshape(paddle.transpose(paddle.matmul(att, v), [0, 2, 1, 3]), [b, s, self.d])
        x = x + self.proj(o)
        return x + self.ff2(F.gelu(self.ff1(self.ln2(x))))


def _r(*shape, seed=0):
    return np.random.RandomState(seed).randn(*shape).astype("float32")


# name -> (factory, input specs, list of input tuples)
MODELS = {
    "linear_relu": (LinearReLU, [InputSpec([None, 8], "float32", "x")], [(_r(3, 8),), (_r(5, 8, seed=1),)]),
    "mlp": (MLP, [InputSpec([None, 16], "float32", "x")], [(_r(4, 16),)]),
    "lenet": (LeNet, [InputSpec([None, 1, 28, 28], "float32", "x")], [(_r(2, 1, 28, 28),)]),
    "ifelse": (IfElse, [InputSpec([None, 4], "float32", "x")], [(_r(3, 4) + 3,), (_r(3, 4) - 3,)]),
    "while": (WhileLoop, [InputSpec([None, 4], "float32", "x"), InputSpec([1], "int64", "n")],
              [(_r(2, 4), np.array([0], "int64")), (_r(2, 4), np.array([3], "int64"))]),
    "both": (Both, [InputSpec([None, 16], "float32", "x")], [(_r(8, 16) + 2,), (_r(8, 16) - 2,)]),
    "bn_eval": (BNEval, [InputSpec([None, 6], "float32", "x")], [(_r(4, 6),)]),
    "two_inputs": (TwoInputs, [InputSpec([None, 4], "float32", "x"), InputSpec([None, 5], "float32", "y")],
                   [(_r(3, 4), _r(3, 5, seed=2))]),
    "no_params": (NoParams, [InputSpec([None, 3], "float32", "x")], [(_r(2, 3),)]),
    "encoder": (EncoderBlock, [InputSpec([2, 8, 16], "float32", "x")], [(_r(2, 8, 16),)]),
}


def build(name, seed=0):
    paddle.seed(seed)
    factory, specs, inputs = MODELS[name]
    model = factory()
    if name == "bn_eval":   # non-trivial running stats
        model.bn._mean.set_value(np.linspace(-1, 1, 5).astype("float32"))
        model.bn._variance.set_value(np.linspace(0.5, 2, 5).astype("float32"))
    model.eval()
    return model, specs, inputs
