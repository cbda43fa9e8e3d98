"""Layers: self.attr / buffers read and assigned in forward, dropout and batch_norm per train/eval,
dict / tuple / list returns."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn as nn

from .harness import check_layer, f32

X = f32(4, 3, seed=11)


class Mlp(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 5)
        self.fc2 = nn.Linear(5, 2)

    def forward(self, x):
        return self.fc2(nn.functional.relu(self.fc1(x)))


class ReadsAttr(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.scale = 2.5
        self.use_tanh = True

    def forward(self, x):
        h = self.fc(x) * self.scale
        if self.use_tanh:
            h = paddle.tanh(h)
        return h


class ReadsBuffer(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.register_buffer("offset", paddle.to_tensor(np.array([1.0, 2.0, 3.0], "float32")))

    def forward(self, x):
        return self.fc(x) + self.offset


class AssignsBuffer(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.register_buffer("total", paddle.zeros([3]))

    def forward(self, x):
        h = self.fc(x)
        self.total = self.total + h.sum(axis=0).detach()
        return h * 2


class BufferInBranch(nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", paddle.zeros([1]))
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            self.count = self.count + 1
        return h


class DropoutModel(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 6)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.fc(x))


class BatchNormModel(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.bn = nn.BatchNorm1D(4)

    def forward(self, x):
        return self.bn(self.fc(x))


class DictOut(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        h = self.fc(x)
        return {"logits": h, "prob": nn.functional.softmax(h), "n": 2}


class TupleOut(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        h = self.fc(x)
        return h, h.mean(), [h * 2, h * 3]


class ControlFlowLayer(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x, n):
        h = self.fc(x)
        i = 0
        while i < n:
            if h.mean() > 0:
                h = paddle.tanh(h) - 0.1
            else:
                h = h + 0.2
            i += 1
        return h


class SelfAttrAssigned(nn.Layer):
    """A Python attribute written in forward: happens at trace time (as in Paddle's AST mode)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        self.last_shape = x.shape[1]
        return self.fc(x) * self.last_shape


LAYERS = [Mlp, ReadsAttr, ReadsBuffer, AssignsBuffer, DictOut, TupleOut, SelfAttrAssigned]


@pytest.mark.parametrize("make", LAYERS, ids=[m.__name__ for m in LAYERS])
@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
def test_layer(make, train, backend):
    check_layer(make, [[X], [-X]], backend, train=train)


def test_control_flow_layer(backend):
    check_layer(ControlFlowLayer, [[X, np.array([0])], [X, np.array([3])], [-X, np.array([3])]], backend)


def test_buffer_assign_is_recorded_and_written_back():
    eager, static = check_layer(AssignsBuffer, [[X], [X]])
    np.testing.assert_allclose(static.total.numpy(), eager.total.numpy(), rtol=1e-5)
    assert np.abs(static.total.numpy()).sum() > 0
    ops = [op.type for op in static.forward.concrete_program.main_program.global_block().ops]
    assert "assign" in ops


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
def test_dropout(train, backend):
    check_layer(DropoutModel, [[X], [X]], backend, train=train)


def test_dropout_train_and_eval_are_separate_programs():
    _, static = check_layer(DropoutModel, [[X]], train=True)
    static.eval()
    out1 = static(paddle.to_tensor(X))
    out2 = static(paddle.to_tensor(X))
    np.testing.assert_allclose(out1.numpy(), out2.numpy())   # eval: no dropout
    assert len(static.forward.program_cache) == 2
    train_prog, eval_prog = [cp.main_program for cp in static.forward.program_cache.concrete_programs()]
    assert "dropout" in [op.type for op in train_prog.global_block().ops]


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
def test_batch_norm(train, backend):
    eager, static = check_layer(BatchNormModel, [[X], [X * 2]], backend, train=train)
    np.testing.assert_allclose(static.bn._mean.numpy(), eager.bn._mean.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(static.bn._variance.numpy(), eager.bn._variance.numpy(), rtol=1e-5, atol=1e-6)


def test_buffer_assigned_in_tensor_branch():
    check_layer(BufferInBranch, [[X], [-X]])
