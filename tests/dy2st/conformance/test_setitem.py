"""Item assignment on tensors (``y[i] = v``, ``y[i] += v``) in converted code: each becomes a
``set_value`` (or, for tensor indices, ``scatter``) op and rebinds the name, also inside tensor
branches and loops; Python containers keep their ordinary item assignment."""
import numpy as np
import pytest

import dy2st as paddle

from .harness import check, check_layer, f32, i64

X = f32(4, 3, seed=3)
V = f32(3, seed=4)


def set_row_constant(x):
    y = x * 1
    y[0] = 2.0
    return y


def set_slice_from_tensor(x, v):
    y = x + 0.5
    y[1:3] = v
    return y * v


def aug_assign_item(x):
    y = x * 2
    y[2] += x[0]
    y[:, 1] *= 3.0
    return y


def set_in_tensor_branch(x):
    y = x * 1
    if x.mean() > 0:
        y[0] = x[1] * 4.0
    else:
        y[3] = -1.0
    return y


def set_in_tensor_loop(x, n):
    y = x * 1
    i = paddle.zeros([1], "int64")
    while i < n:
        y[i] = y[i] * 2.0 + 1.0
        i += 1
    return y


def set_in_range_loop_tensor_bound(x, n):
    y = x * 1
    for i in range(n):
        y[i] = y[i] - x[0]
    return y


def python_containers(x):
    d = {"a": x * 1, "b": 2}
    d["a"][0] = 1.0
    d["b"] += 1
    lst = [x, x]
    lst[1] = x * 3
    nested = {"t": [0, 0]}
    nested["t"][1] = 5
    return d["a"] * d["b"] + lst[1] + nested["t"][1]


@pytest.mark.parametrize("fn,argsets", [
    (set_row_constant, [[X]]),
    (set_slice_from_tensor, [[X, V]]),
    (aug_assign_item, [[X]]),
    (set_in_tensor_branch, [[X], [-X]]),
    (set_in_tensor_loop, [[X, i64(0)], [X, i64(2)], [X, i64(4)]]),
    (set_in_range_loop_tensor_bound, [[X, i64(1)], [X, i64(3)]]),
    (python_containers, [[X]]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_setitem(fn, argsets, backend):
    check(fn, argsets, backend)


def test_setitem_emits_set_value_and_rebinds():
    sf = paddle.jit.to_static(set_row_constant)
    sf(paddle.to_tensor(X))
    assert "y = _jst.convert_setitem(y, 0, 2.0)" in sf.code
    ops = [op.type for op in sf.concrete_program.main_program.global_block().ops]
    assert "set_value" in ops


class BufferRowUpdate(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)
        self.register_buffer("last", paddle.zeros([2, 3]))

    def forward(self, x):
        h = self.fc(x)
        self.last[0] = h.mean(axis=0).detach()
        return h * 2.0


def test_buffer_item_assignment_is_written_back(backend):
    eager, static = check_layer(BufferRowUpdate, [[X], [X * 2]], backend)
    np.testing.assert_allclose(static.last.numpy(), eager.last.numpy(), rtol=1e-5, atol=1e-6)
    assert np.abs(static.last.numpy()[0]).sum() > 0


class BufferInTensorLoop(paddle.nn.Layer):
    """A buffer updated on every iteration of a tensor while loop and under a tensor if."""

    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)
        self.register_buffer("steps", paddle.zeros([1]))
        self.register_buffer("hits", paddle.zeros([1]))

    def forward(self, x):
        h = self.fc(x)
        i = paddle.zeros([1], "int64")
        while i < 3:
            h = h * 0.5 + 0.1
            self.steps = self.steps + 1.0
            if h.mean() > 0:
                self.hits[0] += 1.0
            i += 1
        return h


def test_buffer_assigned_in_tensor_loop_and_branch(backend):
    eager, static = check_layer(BufferInTensorLoop, [[X], [-X * 4]], backend)
    for name in ("steps", "hits"):
        np.testing.assert_allclose(getattr(static, name).numpy(), getattr(eager, name).numpy())
    assert float(static.steps.numpy()[0]) > 0
