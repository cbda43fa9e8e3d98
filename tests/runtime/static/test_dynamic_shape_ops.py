"""Ops built in static programs with unknown (-1) dims take the input forms real Paddle's kernels
require: ShapeTensorList entries int32 of shape [1], equal-shape inputs to ``where`` (masked_fill,
x[mask] = v, broadcast_tensors), and paddle.shape as int64 (found by tests/interop/test_zoo.py)."""
import numpy as np
import pytest

import runtime as paddle
from runtime import static


@pytest.fixture
def program():
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            yield main
    finally:
        paddle.disable_static()


def run(main, feed, fetch):
    return static.Executor().run(main, feed=feed, fetch_list=fetch)


def test_shape_tensor_list_entries_are_int32_of_shape_1(program):
    x = static.data("x", [None, 3], "float32")
    n = paddle.full([1], 2, "int64")
    z = paddle.zeros([paddle.shape(x)[0], 4, n], "float32")    # a 0-d int64 dim (to_static's x.shape[0] is 0-d int32)
    op = [o for o in program.global_block().ops if o.type == "fill_constant" and o.inputs.get("ShapeTensorList")][0]
    for name in op.inputs["ShapeTensorList"]:
        v = program.global_block().vars[name]
        assert list(v.shape) == [1] and str(np.dtype(v.dtype.np)) == "int32", (name, v.shape, v.dtype)
    (out,) = run(program, {"x": np.ones((5, 3), np.float32)}, [z])
    assert out.shape == (5, 4, 2)


def _where_ops_have_equal_shapes(program):
    gb = program.global_block()
    wheres = [o for o in gb.ops if o.type == "where"]
    assert wheres
    for o in wheres:
        shapes = {tuple(gb.vars[o.inputs[s][0]].shape) for s in ("Condition", "X", "Y")}
        assert len(shapes) == 1, shapes


def test_masked_fill_and_bool_setitem_with_unknown_batch(program):
    x = static.data("x", [None, 4], "float32")
    y = paddle.masked_fill(x, x > 0.5, -1.0)
    z = static.setitem(x * 1.0, x < 0, 0.0)
    _where_ops_have_equal_shapes(program)
    a = np.array([[0.9, -0.2, 0.1, 0.7], [-1.0, 2.0, 0.3, 0.0]], np.float32)
    got_y, got_z = run(program, {"x": a}, [y, z])
    np.testing.assert_array_equal(got_y, np.where(a > 0.5, -1.0, a).astype(np.float32))
    np.testing.assert_array_equal(got_z, np.where(a < 0, 0.0, a).astype(np.float32))


def test_broadcast_tensors_with_unknown_dims(program):
    x = static.data("x", [None, 1, 3], "float32")
    m = static.data("m", [2, 3], "bool")
    a, b = paddle.broadcast_tensors([x, m])
    xs = np.arange(6, dtype=np.float32).reshape(2, 1, 3)
    ms = np.array([[True, False, True], [False, False, True]])
    got_a, got_b = run(program, {"x": xs, "m": ms}, [a, b])
    np.testing.assert_array_equal(got_a, np.broadcast_to(xs, (2, 2, 3)))
    np.testing.assert_array_equal(got_b, np.broadcast_to(ms, (2, 2, 3)))


def test_paddle_shape_is_int64_in_programs(program):
    x = static.data("x", [None, 3], "float32")
    s = paddle.shape(x)
    (got,) = run(program, {"x": np.ones((4, 3), np.float32)}, [s])
    assert got.dtype == np.int64 and got.tolist() == [4, 3]
