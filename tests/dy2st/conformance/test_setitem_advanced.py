"""Reads and item assignments through several list / tensor indices at once (``y[[0, 1], idx]``,
``y[idx, :, idx] = v``, bool masks mixed with ints), through 0-D tensor indices
(``y[one, :, :, 2] = v``) and with tensor slice bounds (``y[one:, :, two]``) in converted code: eager
vs converted (compiled and interpreter), values and gradients to both the indexed tensor and the
assigned value; the Program uses gather_nd / index_put / set_value with tensor bounds and saves and
reloads with jit.save / jit.load."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec

from .harness import check, f32, i64

X = f32(3, 4, 5, seed=11)
V2 = f32(2, seed=12)
V4 = f32(4, seed=13)


def read_list_and_tensor(x, idx):
    return x[[0, 2], idx] * 2.0 + x[idx, :, idx].sum()


def read_adjacent_in_middle_and_mask(x, idx):
    m = x[:, 0, 0] > -2.0          # a bool mask (all True here, so shapes agree with eager)
    return x[:, idx, [0, 3]], x[m, :, [1, 2, 4]], x[[0, -1], 1:3, [-2, 1]]


def write_list_and_tensor(x, idx, v):
    y = x * 1.0
    y[[0, 1], idx] = v[0] * 3.0
    y[idx, :, idx] = paddle.reshape(v, [2, 1]) + 1.0
    return y


def write_middle_adjacent(x, idx, v):
    y = x + 0.5
    y[:, idx, [4, 0]] = paddle.stack([v, v * 2.0, v - 1.0])      # value laid out like y[:, idx, [4, 0]]
    return y * 2.0


def write_zero_d_index(x, one, two, v):
    y = x * 1.0
    y[one, :, 2] = v * 10.0
    y[two - 3, 1:3, two] = 0.5                                    # a negative 0-D index (the last row)
    return y, y[one, 1, one] + x[:, one, two]


def write_one_element_index(x, one1, v):
    y = x * 1.0
    y[one1, :, 2] = v
    return y


def write_in_tensor_branch(x, idx, v):
    y = x * 1.0
    if x.mean() > 0:
        y[idx, 1, [0, 1]] = v
    else:
        y[[2, 0], :, idx] = 0.0
    return y


def tensor_slice_bounds(x, one, two):
    y = x * 1.0
    y[one:, :, two] = y[:two, :, one] * 2.0
    y[0, one:4:two] = -1.0
    return y[:, one:two + 1], y


def write_in_tensor_loop(x, idx, n):
    y = x * 1.0
    i = paddle.zeros([], "int64")             # a 0-D loop counter indexes like an int
    while i < n:
        y[i, idx] = y[i, idx] * 2.0 + 1.0
        y[[0, 1], i, idx] = y[[1, 0], i, idx] - 0.5
        i += 1
    return y


@pytest.mark.parametrize("fn,argsets", [
    (read_list_and_tensor, [[X, i64(1, 2)], [X, i64(-1, 0)]]),
    (read_adjacent_in_middle_and_mask, [[X, i64(3, 1)]]),
    (write_list_and_tensor, [[X, i64(1, 2), V2], [X, i64(0, 0), V2]]),
    (write_middle_adjacent, [[X, i64(0, 3), V2]]),
    (write_zero_d_index, [[X, np.array(1, "int64"), np.array(2, "int64"), V4],
                          [X, np.array(-1, "int64"), np.array(3, "int64"), V4]]),
    (write_one_element_index, [[X, i64(2), V4]]),
    (write_in_tensor_branch, [[X + 1.0, i64(2, 1), V2], [X - 1.0, i64(2, 1), V2]]),
    (tensor_slice_bounds, [[X, np.array(1, "int64"), np.array(2, "int64")]]),
    (write_in_tensor_loop, [[X, i64(3, 0), np.array(2, "int64")], [X, i64(1, 2), np.array(3, "int64")]]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_setitem_advanced(fn, argsets, backend):
    check(fn, argsets, backend)


def test_program_uses_paddles_ops_and_infers_shapes():
    sf = paddle.jit.to_static(write_list_and_tensor, input_spec=[
        InputSpec([None, 4, 5], "float32"), InputSpec([2], "int64"), InputSpec([2], "float32")])
    ops = [op.type for op in sf.concrete_program.main_program.global_block().ops]
    assert ops.count("index_put") == 2 and "set_value" not in ops
    sf = paddle.jit.to_static(write_zero_d_index, input_spec=[
        InputSpec([None, 4, 5], "float32"), InputSpec([], "int64"), InputSpec([], "int64"),
        InputSpec([4], "float32")])
    prog = sf.concrete_program
    ops = [op for op in prog.main_program.global_block().ops]
    set_values = [op for op in ops if op.type == "set_value"]
    assert len(set_values) == 2 and all(op.input("StartsTensorList") for op in set_values)
    assert [list(o.shape) for o in prog.outputs] == [[-1, 4, 5], [-1]]


def test_jit_save_and_load(tmp_path):
    specs = [InputSpec([None, 4, 5], "float32", "x"), InputSpec([2], "int64", "idx"),
             InputSpec([2], "float32", "v")]
    for fn in (write_list_and_tensor, write_middle_adjacent):
        path = str(tmp_path / fn.__name__)
        paddle.jit.save(paddle.jit.to_static(fn, input_spec=specs), path)
        loaded = paddle.jit.load(path)
        x = f32(6 if fn is write_list_and_tensor else 3, 4, 5, seed=5)   # the batch dim is free (None)
        args = [paddle.to_tensor(x), paddle.to_tensor(i64(2, 1)), paddle.to_tensor(V2)]
        np.testing.assert_allclose(loaded(*args).numpy(), fn(*args).numpy(), rtol=1e-6)


def test_static_errors_are_clear():
    def bad_broadcast(x, idx):
        y = x * 1.0
        y[[0, 1, 2], idx] = 1.0
        return y

    with pytest.raises(IndexError, match="cannot be broadcast"):
        paddle.jit.to_static(bad_broadcast)(paddle.to_tensor(X), paddle.to_tensor(i64(1, 2)))

    def bad_value(x, idx):
        y = x * 1.0
        y[[0, 1], idx] = paddle.ones([3])
        return y

    with pytest.raises(ValueError, match=r"value of shape \[3\]"):
        paddle.jit.to_static(bad_value)(paddle.to_tensor(X), paddle.to_tensor(i64(1, 2)))
