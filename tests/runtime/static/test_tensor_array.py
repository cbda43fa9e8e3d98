"""Tensor arrays: create_array / array_write / array_read / array_length / tensor_array_to_tensor."""
import numpy as np
import pytest

import runtime as paddle
from runtime import static
from runtime.static import nn
from runtime.static.tensor_array import (create_array, array_write, array_read, array_length,
                                         tensor_array_to_tensor)


@pytest.fixture
def prog():
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    try:
        with static.program_guard(main, startup):
            yield main
    finally:
        paddle.disable_static()


def test_static_write_read_length(prog):
    x = static.data("x", [2], "float32")
    arr = create_array("float32")
    assert arr.type == static.VarType.LOD_TENSOR_ARRAY
    array_write(x, 0, arr)
    array_write(x * 2, 1, arr)
    r1 = array_read(arr, 1)
    n = array_length(arr)
    assert r1.shape == [2] and r1.dtype.name == "float32"
    prog.verify()
    a, b = static.Executor().run(prog, feed={"x": np.array([1.0, 2.0], np.float32)}, fetch_list=[r1, n])
    assert a.tolist() == [2.0, 4.0] and b.tolist() == [2] and b.dtype == np.int64


@pytest.mark.parametrize("use_stack,axis", [(True, 0), (False, 0), (False, 1)])
def test_arrays_in_while_then_to_tensor(prog, use_stack, axis):
    n = static.data("n", [1], "int64")
    x = static.data("x", [1, 2], "float32")
    arr = create_array("float32")
    i = paddle.full([1], 0, "int64")

    def body(i, x):
        array_write(x, i, arr)
        return [i + 1, x + 1.0]
    nn.while_loop(lambda i, x: i < n, body, [i, x])
    out, idx = tensor_array_to_tensor(arr, axis=axis, use_stack=use_stack)
    length = array_length(arr)
    prog.verify()
    assert "write_to_array" in [op.type for op in prog.block(1).ops]
    w = [op for op in prog.global_block().ops if op.type == "while"][0]
    assert arr.name in w.output("Out")
    xv = np.array([[1.0, 5.0]], np.float32)
    ro, ri, rl = static.Executor().run(prog, feed={"n": np.array([3], np.int64), "x": xv},
                                       fetch_list=[out, idx, length])
    elems = [xv + k for k in range(3)]
    expect = np.stack(elems, axis) if use_stack else np.concatenate(elems, axis)
    np.testing.assert_allclose(ro, expect)
    assert rl.tolist() == [3]
    assert ri.tolist() == ([1, 1, 1] if use_stack else [e.shape[axis] for e in elems])


def test_read_unwritten_index_fails(prog):
    x = static.data("x", [2], "float32")
    arr = create_array("float32", [x])
    r = array_read(arr, 3)
    prog.verify()
    with pytest.raises(IndexError, match="never written"):
        static.Executor().run(prog, feed={"x": np.zeros(2, np.float32)}, fetch_list=[r])


def test_eager_arrays_and_grad():
    x = paddle.to_tensor(np.array([1.0, 2.0], np.float32), stop_gradient=False)
    arr = create_array("float32")
    for k in range(3):
        array_write(x * float(k + 1), paddle.to_tensor(np.array([k], np.int64)), arr)
    assert array_length(arr).numpy().tolist() == [3]
    assert array_read(arr, 2).numpy().tolist() == [3.0, 6.0]
    out, idx = tensor_array_to_tensor(arr, axis=0, use_stack=True)
    assert out.shape == [3, 2] and idx.numpy().tolist() == [1, 1, 1]
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0])
    with pytest.raises(IndexError, match="out of range"):
        array_read(arr, 5)


def test_an_overwritten_element_gets_no_gradient():
    """Writing twice at one index: only the second value is read, so only it gets a gradient (the old
    value's used to flow back too: 2x + 2 instead of 2x for x*2 then x*x)."""
    import dy2st

    def f(x):
        arr = dy2st.tensor.create_array("float32")
        i = dy2st.zeros([1], "int64") + 1
        arr = dy2st.tensor.array_write(x * 2, i, array=arr)
        arr = dy2st.tensor.array_write(x * x, i, array=arr)
        return dy2st.tensor.array_read(arr, i) * 3

    xs = np.array([1.0, -3.0, 0.5], "float64")
    x = dy2st.to_tensor(xs, stop_gradient=False)
    dy2st.jit.to_static(f)(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * xs)


def test_array_reassigned_in_a_tensor_while_loop_with_gradient():
    """``arr = array_write(v, i, array=arr)`` in a tensor while loop: the array is written in place, so the
    loop adds no self-assign (which turned the array into a stacked tensor and broke the next write), and
    the gradient flows through the loop."""
    import dy2st

    def f(x):
        arr = dy2st.tensor.create_array("float64")
        i = dy2st.zeros([1], "int64")
        n = dy2st.full([1], 3, "int64")
        while i < n:
            arr = dy2st.tensor.array_write(x * dy2st.cast(i + 1, "float64"), i, array=arr)
            i = i + 1
        return dy2st.tensor.array_read(arr, dy2st.full([1], 2, "int64")), dy2st.tensor.array_length(arr)

    xs = np.array([1.0, 2.0])
    x = dy2st.to_tensor(xs, stop_gradient=False)
    out, n = dy2st.jit.to_static(f)(x)
    np.testing.assert_allclose(out.numpy(), 3 * xs)
    assert int(n) == 3
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
