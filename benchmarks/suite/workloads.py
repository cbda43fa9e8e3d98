"""The issue-7 benchmark models, written once for any Paddle-API module (dy2st or real Paddle).

Load with ``suite.load_workloads(paddle_module)``: the module is executed with ``paddle``
already bound, so the same source (and so the same ``forward`` text that ``to_static``
converts) runs on ``dy2st`` and on real PaddlePaddle. Imported plainly, ``paddle`` is dy2st.
"""
if "paddle" not in globals():  # bound by suite.load_workloads() for another framework
    import dy2st as paddle  # noqa: F401

nn = paddle.nn
F = paddle.nn.functional


class MLP(nn.Layer):
    """784-256-10 with ReLU; ``softmax=True`` appends a softmax (the inference workloads)."""

    def __init__(self, d_in=784, d_hidden=256, d_out=10, softmax=True):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_out)
        self.softmax = softmax

    def forward(self, x):
        h = F.relu(self.fc1(x))
        out = self.fc2(h)
        if self.softmax:
            out = F.softmax(out, axis=-1)
        return out


class ControlFlow(nn.Layer):
    """Linear 16->32, relu, a tensor ``if`` (double or subtract), a tensor ``while``, Linear 32->4."""

    def __init__(self, d_in=16, d_hidden=32, d_out=4):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        if paddle.mean(h) > 0.5:
            h = h * 2.0
        else:
            h = h - 1.0
        i = paddle.zeros([1], dtype="int64")
        while i < 3:
            h = paddle.tanh(h) + h * 0.5
            i = i + 1
        return self.fc2(h)


class LSTM(nn.Layer):
    """One LSTM layer written out over time-major input [T, batch, features]."""

    def __init__(self, input_size=32, hidden=128):
        super().__init__()
        self.hidden = hidden
        self.gates = nn.Linear(input_size + hidden, 4 * hidden)

    def forward(self, x):
        h = paddle.zeros([x.shape[1], self.hidden], dtype=x.dtype)
        c = paddle.zeros([x.shape[1], self.hidden], dtype=x.dtype)
        outs = []
        for t in range(x.shape[0]):
            z = self.gates(paddle.concat([x[t], h], axis=-1))
            i, f, g, o = paddle.split(z, 4, axis=-1)
            c = F.sigmoid(f) * c + F.sigmoid(i) * paddle.tanh(g)
            h = F.sigmoid(o) * paddle.tanh(c)
            outs.append(h)
        return paddle.stack(outs, axis=0)


class LeNet5(nn.Layer):
    """LeNet-5 on 1x28x28: conv5(pad 2)-relu-pool2, conv5-relu-pool2, 400-120-84-10."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2D(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2D(6, 16, 5)
        self.pool = nn.MaxPool2D(2, 2)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = paddle.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class EncoderBlock(nn.Layer):
    """Post-norm Transformer encoder block; attention written out with matmul/softmax, tanh-GELU FFN."""

    def __init__(self, d_model=64, heads=4, d_ff=256):
        super().__init__()
        self.heads = heads
        self.dh = d_model // heads
        self.q = nn.Linear(d_model, d_model)
        self.k = nn.Linear(d_model, d_model)
        self.v = nn.Linear(d_model, d_model)
        self.o = nn.Linear(d_model, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.ff1 = nn.Linear(d_model, d_ff)
        self.ff2 = nn.Linear(d_ff, d_model)

    def split_heads(self, t, seq):
        t = paddle.reshape(t, [-1, seq, self.heads, self.dh])
        return paddle.transpose(t, [0, 2, 1, 3])

    def forward(self, x):
        seq = x.shape[1]
        d = x.shape[2]
        q = self.split_heads(self.q(x), seq)
        k = self.split_heads(self.k(x), seq)
        v = self.split_heads(self.v(x), seq)
        att = F.softmax(paddle.matmul(q, k, transpose_y=True) * (self.dh ** -0.5), axis=-1)
        ctx = paddle.transpose(paddle.matmul(att, v), [0, 2, 1, 3])
        ctx = paddle.reshape(ctx, [-1, seq, d])
        x = self.norm1(x + self.o(ctx))
        return self.norm2(x + self.ff2(F.gelu(self.ff1(x), approximate=True)))


class TrainNet(nn.Layer):
    """Wraps a classifier: ``forward(x, label)`` is the mean softmax cross-entropy loss."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x, label):
        return F.cross_entropy(self.net(x), label)


def build(model, cfg):
    """A model instance by name (the names in ``suite.spec.WORKLOADS``) and its config dict."""
    if model == "mlp":
        return MLP(cfg["d_in"], cfg["d_hidden"], cfg["d_out"], softmax=True)
    if model == "control_flow":
        return ControlFlow(cfg["d_in"], cfg["d_hidden"], cfg["d_out"])
    if model == "lstm":
        return LSTM(cfg["input_size"], cfg["hidden"])
    if model == "lenet":
        return LeNet5()
    if model == "transformer":
        return EncoderBlock(cfg["d_model"], cfg["heads"], cfg["d_ff"])
    if model == "train_mlp":
        return TrainNet(MLP(cfg["d_in"], cfg["d_hidden"], cfg["d_out"], softmax=False))
    if model == "train_lenet":
        return TrainNet(LeNet5())
    raise KeyError(model)
