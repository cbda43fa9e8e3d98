"""array_pop / array_insert (Python's list.pop / list.insert on tensor arrays): values, Python's index
rules and errors, and static gradients (float64, against numpy), with both executors."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import static
from runtime.static import tensor_array
from runtime.static.backward import gradients

BACKENDS = ("compiled", "interpreter")


@pytest.fixture(autouse=True)
def static_mode():
    paddle.enable_static()
    try:
        yield
    finally:
        paddle.disable_static()


def _run(main, feed, fetch):
    main.verify()
    results = []
    for backend in BACKENDS:
        exe = static.Executor(backend=backend) if backend != "compiled" else static.Executor()
        results.append(exe.run(main, feed=feed, fetch_list=fetch))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12, err_msg="compiled and interpreter executors differ")
    return results[0]


XV = np.array([0.5, -1.0, 2.0])


@pytest.mark.parametrize("index", [0, 1, 2, 3, -1, -4])
def test_pop_follows_python_list_pop(index):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [3], "float64")
        x.stop_gradient = False
        arr = static.create_array("float64")
        items = [x * 1.0, x * 2.0, x * 3.0, x * 4.0]
        for k, v in enumerate(items):
            static.array_write(v, k, arr)
        popped = tensor_array.array_pop(arr, index)
        rest, _ = static.tensor_array_to_tensor(arr, axis=0, use_stack=True)
        # d/dx of sum(popped * 10 + rest * w): the popped item's factor times 10, the others' times w
        w = np.array([[1.0], [2.0], [3.0]])
        loss = paddle.sum(popped * 10.0) + paddle.sum(rest * paddle.to_tensor(w))
        gx, = gradients([loss], [x])
    p, r, g = _run(main, {"x": XV}, [popped, rest, gx])
    factors = [1.0, 2.0, 3.0, 4.0]
    expected = list(factors)
    k = expected.pop(index)
    np.testing.assert_allclose(p, XV * k)
    np.testing.assert_allclose(r, np.stack([XV * f for f in expected]))
    np.testing.assert_allclose(g, np.full(3, 10.0 * k + sum(f * wk for f, wk in zip(expected, w[:, 0]))))


@pytest.mark.parametrize("index", [0, 2, 4, 99, -1, -99])
def test_insert_follows_python_list_insert(index):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [3], "float64")
        x.stop_gradient = False
        arr = static.create_array("float64")
        for k in range(4):
            static.array_write(x * float(k + 1), k, arr)
        tensor_array.array_insert(arr, index, paddle.sin(x))
        whole, _ = static.tensor_array_to_tensor(arr, axis=0, use_stack=True)
        w = np.arange(1.0, 6.0).reshape(5, 1)
        loss = paddle.sum(whole * paddle.to_tensor(w))
        gx, = gradients([loss], [x])
    out, g = _run(main, {"x": XV}, [whole, gx])
    ref = [XV * f for f in (1.0, 2.0, 3.0, 4.0)]
    dref = [np.full(3, f) for f in (1.0, 2.0, 3.0, 4.0)]
    ref.insert(index, np.sin(XV))
    dref.insert(index, np.cos(XV))
    np.testing.assert_allclose(out, np.stack(ref))
    np.testing.assert_allclose(g, sum(d * wk for d, wk in zip(dref, w[:, 0])))


def test_pop_out_of_range_raises_index_error():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [3], "float64")
        arr = static.create_array("float64")
        static.array_write(x, 0, arr)
        tensor_array.array_pop(arr, 0)
        popped = tensor_array.array_pop(arr)
    for backend in BACKENDS:
        exe = static.Executor(backend=backend) if backend != "compiled" else static.Executor()
        with pytest.raises(IndexError, match="pop from an empty tensor array"):
            exe.run(main, feed={"x": XV}, fetch_list=[popped])


def test_pop_in_a_while_loop_gradient():
    """pop(0) once per iteration, each popped item added to an accumulator: d/dx counts the items."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [3], "float64")
        x.stop_gradient = False
        arr = static.create_array("float64")
        for k in range(4):
            static.array_write(x * float(k + 1), k, arr)
        i = paddle.zeros([1], "int64")
        acc = paddle.zeros([3], "float64")

        def cond(i, acc):
            return i < 3

        def body(i, acc):
            return [i + 1, acc + tensor_array.array_pop(arr, 0)]
        i, acc = static.nn.while_loop(cond, body, [i, acc])
        gx, = gradients([paddle.sum(acc)], [x])
    a, g = _run(main, {"x": XV}, [acc, gx])
    np.testing.assert_allclose(a, XV * 6.0)
    np.testing.assert_allclose(g, np.full(3, 6.0))


def test_saving_a_program_with_dy2st_only_ops_warns(tmp_path):
    """array_pop is not a Paddle op: the .pdmodel is written (dy2st loads it) with a warning saying so."""
    from runtime.formats.pdmodel import serialize_program
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [3], "float64")
        arr = static.create_array("float64")
        static.array_write(x * 2.0, 0, arr)
        static.array_write(x * 3.0, 1, arr)
        popped = tensor_array.array_pop(arr, 0)
    with pytest.warns(UserWarning, match=r"dy2st's own op\(s\) \['array_pop'\].*real PaddlePaddle cannot"):
        serialize_program(main, ["x"], [popped.name])
