"""The five benchmark models of issue 7 with ``@paddle.jit.to_static`` forward: converted vs eager.

MLP 784-256-10 + softmax; a control-flow model (tensor ``if`` and tensor ``while``); a hand-written
LSTM over time (``for t in range(x.shape[0])``, hidden states appended to a list then stacked);
LeNet-5 on 28x28; a Transformer encoder block (hand-written multi-head attention, LayerNorm, FFN).
Each: outputs and parameter gradients (after ``loss.backward()``) equal to the eager run of a copy
with the same parameters; the traced Program run by the interpreter back end gives the same
outputs; an InputSpec with a None batch dim serves two batch sizes with one Program. The first
call time and converted/eager time per call are printed (run with ``-s`` to see them).
"""
from __future__ import annotations

import time

import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn as nn
import dy2st.nn.functional as F
from dy2st.static import InputSpec

RTOL, ATOL = 1e-5, 1e-6


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.fc2 = nn.Linear(256, 10)

    @paddle.jit.to_static
    def forward(self, x):
        h = F.relu(self.fc1(x))
        return F.softmax(self.fc2(h), axis=-1)


class ControlFlow(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 4)

    @paddle.jit.to_static
    def forward(self, x):
        h = F.relu(self.fc1(x))
        if paddle.mean(h) > 0.5:
            h = h * 2.0
        else:
            h = h - 1.0
        i = paddle.to_tensor(0)
        while i < 3:
            h = paddle.tanh(h) + h * 0.5
            i = i + 1
        return self.fc2(h)


class LSTM(nn.Layer):
    """One LSTM layer written out: gates from [x_t, h] , time-major input [T, batch, features]."""

    def __init__(self, input_size=8, hidden=16):
        super().__init__()
        self.hidden = hidden
        self.gates = nn.Linear(input_size + hidden, 4 * hidden)

    @paddle.jit.to_static
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
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2D(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2D(6, 16, 5)
        self.pool = nn.MaxPool2D(2, 2)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    @paddle.jit.to_static
    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = paddle.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class EncoderBlock(nn.Layer):
    """Post-norm Transformer encoder block: multi-head self-attention + FFN, residuals, LayerNorm."""

    def __init__(self, d_model=16, heads=4, d_ff=32):
        super().__init__()
        self.heads, self.dh = heads, d_model // heads
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

    @paddle.jit.to_static
    def forward(self, x):
        seq, d = x.shape[1], x.shape[2]
        q = self.split_heads(self.q(x), seq)
        k = self.split_heads(self.k(x), seq)
        v = self.split_heads(self.v(x), seq)
        att = F.softmax(paddle.matmul(q, k, transpose_y=True) * (self.dh ** -0.5), axis=-1)
        ctx = paddle.transpose(paddle.matmul(att, v), [0, 2, 1, 3])
        ctx = paddle.reshape(ctx, [-1, seq, d])
        x = self.norm1(x + self.o(ctx))
        return self.norm2(x + self.ff2(F.relu(self.ff1(x))))


# name: (class, input shape, InputSpec shape with None batch, batch axis, second batch size)
MODELS = {
    "mlp": (MLP, [4, 784], [None, 784], 0, 7),
    "control_flow": (ControlFlow, [8, 16], [None, 16], 0, 3),
    "lstm": (LSTM, [5, 4, 8], [5, None, 8], 1, 2),
    "lenet": (LeNet5, [4, 1, 28, 28], [None, 1, 28, 28], 0, 2),
    "transformer": (EncoderBlock, [2, 8, 16], [None, 8, 16], 0, 3),
}


def _pair(cls, seed=7):
    """Two copies of a model with equal parameters: (converted, eager)."""
    paddle.seed(seed)
    a = cls()
    b = cls()
    b.set_state_dict(a.state_dict())
    return a, b


def _eager(layer, x):
    paddle.jit.enable_to_static(False)
    try:
        return layer(x)
    finally:
        paddle.jit.enable_to_static(True)


def _input(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def _grads(layer):
    return {n: p.grad.numpy() for n, p in layer.named_parameters() if p.grad is not None}


@pytest.fixture(params=["compiled", "interpreter"])
def backend(request):
    return request.param


@pytest.mark.parametrize("name", list(MODELS))
def test_model_matches_eager(name, backend):
    cls, shape, _, _, _ = MODELS[name]
    conv, eager = _pair(cls)
    xv = _input(shape)
    x1 = paddle.to_tensor(xv, stop_gradient=False)
    x2 = paddle.to_tensor(xv, stop_gradient=False)
    out_s = conv(x1)
    out_e = _eager(eager, x2)
    np.testing.assert_allclose(out_s.numpy(), out_e.numpy(), rtol=RTOL, atol=ATOL)
    if backend == "interpreter":
        cp = type(conv).forward.__get__(conv).concrete_program
        exe = paddle.static.Executor(backend="interpreter")
        (out_i,) = exe.run(cp.main_program, feed={cp.inputs[0].name: xv}, fetch_list=list(cp.outputs))
        np.testing.assert_allclose(out_i, out_e.numpy(), rtol=RTOL, atol=ATOL)
        return
    w = paddle.to_tensor(_input(out_e.shape, seed=1))   # a loss that weighs every output differently
    (out_s * w).sum().backward()
    (out_e * w).sum().backward()
    gs, ge = _grads(conv), _grads(eager)
    assert sorted(gs) == sorted(ge) and ge
    for n in ge:
        np.testing.assert_allclose(gs[n], ge[n], rtol=RTOL, atol=ATOL, err_msg=n)
    np.testing.assert_allclose(x1.grad.numpy(), x2.grad.numpy(), rtol=RTOL, atol=ATOL)


def test_lstm_gradients_through_a_tensor_loop():
    """With the time dimension unknown (InputSpec None) the LSTM's ``for t in range(x.shape[0])`` is a
    while op appending to a tensor array: gradients flow back through the loop and the array."""
    conv, eager = _pair(LSTM)
    conv = paddle.jit.to_static(conv, input_spec=[InputSpec([None, None, 8], "float32", "x")])
    xv = _input([5, 4, 8])
    x1 = paddle.to_tensor(xv, stop_gradient=False)
    x2 = paddle.to_tensor(xv, stop_gradient=False)
    out_s = conv(x1)
    out_e = _eager(eager, x2)
    np.testing.assert_allclose(out_s.numpy(), out_e.numpy(), rtol=RTOL, atol=ATOL)
    ops = [op.type for b in conv.forward.concrete_program.main_program.blocks for op in b.ops]
    assert "while" in ops and "write_to_array" in ops
    w = paddle.to_tensor(_input(out_e.shape, seed=1))
    (out_s * w).sum().backward()
    (out_e * w).sum().backward()
    gs, ge = _grads(conv), _grads(eager)
    assert sorted(gs) == sorted(ge) and ge
    for n in ge:
        np.testing.assert_allclose(gs[n], ge[n], rtol=RTOL, atol=ATOL, err_msg=n)
    np.testing.assert_allclose(x1.grad.numpy(), x2.grad.numpy(), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("name", list(MODELS))
def test_model_dynamic_batch_one_program(name):
    cls, shape, spec_shape, axis, other = MODELS[name]
    conv, eager = _pair(cls)
    conv = paddle.jit.to_static(conv, input_spec=[InputSpec(spec_shape, "float32", "x")])
    shape2 = list(shape)
    shape2[axis] = other
    for k, shp in enumerate((shape, shape2)):
        xv = _input(shp, seed=10 + k)
        out_s = conv(paddle.to_tensor(xv))
        out_e = _eager(eager, paddle.to_tensor(xv))
        assert out_s.shape == out_e.shape
        np.testing.assert_allclose(out_s.numpy(), out_e.numpy(), rtol=RTOL, atol=ATOL)
    assert len(conv.forward.program_cache) == 1


def _timeit(fn, reps, rounds=5):
    """Best per-call time over ``rounds`` rounds of ``reps`` calls (after one warm-up call)."""
    fn()
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter() - t0) / reps)
    return best


def test_model_timings():
    """Prints (does not assert) first-call time and converted/eager time per call of each model."""
    rows = []
    for name, (cls, shape, _, _, _) in MODELS.items():
        conv, eager = _pair(cls)
        x = paddle.to_tensor(_input(shape))
        from dy2st import conversion
        fwd = type(conv).forward.dygraph_function
        # measure the source conversion too (forget what earlier tests converted)
        conversion._code_cache.pop(fwd.__code__, None)
        conversion._fn_cache.pop(fwd, None)
        t0 = time.perf_counter()
        conversion.converted_code(fwd)
        t_conv = time.perf_counter() - t0
        conversion._code_cache.pop(fwd.__code__, None)
        t0 = time.perf_counter()
        with paddle.no_grad():
            conv(x)
        first = time.perf_counter() - t0
        with paddle.no_grad():
            t_s = _timeit(lambda: conv(x), 10)
            t_e = _timeit(lambda: _eager(eager, x), 10)
        xg = paddle.to_tensor(_input(shape), stop_gradient=False)

        def train_s():
            conv(xg).sum().backward()

        def train_e():
            _eager(eager, xg).sum().backward()
        tt_s, tt_e = _timeit(train_s, 5), _timeit(train_e, 5)
        rows.append((name, t_conv * 1e3, first * 1e3, t_s * 1e3, t_e * 1e3, t_s / t_e, tt_s * 1e3, tt_e * 1e3, tt_s / tt_e))
    print("\nmodel          convert ms  first call ms | fwd ms: to_static  eager  ratio | "
          "fwd+bwd ms: to_static  eager  ratio")
    for r in rows:
        print(f"{r[0]:<14} {r[1]:>10.1f} {r[2]:>14.1f} | {r[3]:>16.2f} {r[4]:>6.2f} {r[5]:>6.2f} | {r[6]:>19.2f} "
              f"{r[7]:>6.2f} {r[8]:>6.2f}")
