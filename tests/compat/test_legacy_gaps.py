"""Regressions for gaps Paddle's legacy API tests found (/tmp/pd_api harness): Variable/Program ``desc``,
the Executor's feed-shape rule, sampler argument errors, exact integer arange, static.data in dygraph,
and the ``input=`` alias of the padding layers. Expected behaviour is Paddle 3.3.1's (the interop test
tests/interop/test_amp_debugging_interop.py checks the same cases against real Paddle)."""
import numpy as np
import pytest

import dy2st as paddle


@pytest.fixture
def static_mode():
    paddle.enable_static()
    yield
    paddle.disable_static()


def _program(shape, fn=lambda x: x * 2.0):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("v", shape, "float32")
        y = fn(x)
    return main, x, y


@pytest.mark.parametrize("shape,fed,ok", [
    ([-1, 1], (2,), True), ([-1, 1, 1], (2,), True), ([-1, 3], (6,), True), ([-1, 3, 4], (2, 3), True),
    ([-1, 1], (0,), True), ([2, 3], (2, 3), True),
    ([-1], (2, 1), False), ([1, -1], (2,), False), ([-1, 1], (2, 1, 1), False), ([-1, 1], (2, 3), False),
    ([3, 1], (2,), False), ([-1, 1], (), False)])
def test_feed_shape_rule(static_mode, shape, fed, ok):
    main, x, y = _program(shape)
    exe = paddle.static.Executor(paddle.CPUPlace())
    feed = {"v": np.ones(fed, "float32")}
    if ok:
        out, = exe.run(main, feed=feed, fetch_list=[y])
        np.testing.assert_array_equal(out, np.full(fed, 2.0, "float32"))
    else:
        with pytest.raises(ValueError, match=rf"should have dimensions = {len(shape)}.*on each device"):
            exe.run(main, feed=feed, fetch_list=[y])


def test_gather_with_1d_index_for_declared_column(static_mode):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [-1, 2], "float64")
        idx = paddle.static.data("index", [-1, 1], "int32")
        out = paddle.gather(x, idx)
    exe = paddle.static.Executor(paddle.CPUPlace())
    xs = np.arange(6.0).reshape(3, 2)
    res, = exe.run(main, feed={"x": xs, "index": np.array([2, 0], "int32")}, fetch_list=[out])
    np.testing.assert_array_equal(res, xs[[2, 0]])


def test_variable_desc_and_need_check_feed(static_mode):
    main, x, y = _program([-1, 2])
    assert x.desc.need_check_feed() is True and x.desc.name() == "v" and x.desc.shape() == [-1, 2]
    assert x.desc.dtype() == paddle.float32 and not x.desc.persistable()
    exe = paddle.static.Executor(paddle.CPUPlace())
    with pytest.raises(ValueError, match="should have dimensions"):
        exe.run(main, feed={"v": np.ones((2, 3), "float32")}, fetch_list=[y])
    with pytest.raises(ValueError, match="must be 'float32'"):
        exe.run(main, feed={"v": np.ones((2, 2), "float64")}, fetch_list=[y])
    x.desc.set_need_check_feed(False)    # the executor's cached feed specs must see it
    assert x.desc.need_check_feed() is False
    out, = exe.run(main, feed={"v": np.ones((2, 3), "float32")}, fetch_list=[y])
    np.testing.assert_array_equal(out, np.full((2, 3), 2.0))


def test_program_desc_serialize_and_parse(static_mode):
    main, x, y = _program([-1, 3], lambda x: paddle.nn.functional.relu(x) + 1.0)
    assert main.desc.need_update() and main.desc.num_blocks() == 1
    data = main.desc.serialize_to_string()
    assert isinstance(data, bytes) and not main.desc.need_update()
    main.global_block().var("v").desc.set_stop_gradient(False)
    assert main.desc.need_update()
    back = paddle.static.Program.parse_from_string(data)
    assert [op.type for op in back.global_block().ops] == [op.type for op in main.global_block().ops]
    assert back.global_block().var("v").shape == [-1, 3]


def test_static_data_in_dygraph_asserts():
    with pytest.raises(AssertionError, match=r"'data\(\)' is only supported in static graph mode"):
        paddle.static.data("x", [2, 3])


def test_arange_huge_int64_exact():
    out = paddle.arange(0, -9007199254740994, -9007199254740993)
    assert out.dtype == paddle.int64 and out.numpy().tolist() == [0, -9007199254740993]
    big = 2 ** 62
    assert paddle.arange(big, big + 3).numpy().tolist() == [big, big + 1, big + 2]
    assert paddle.arange(10, 0, -3, dtype="int32").numpy().tolist() == [10, 7, 4, 1]
    assert paddle.arange(3, 1).numpy().tolist() == []


def test_sampler_argument_errors():
    io = paddle.io
    data = list(range(6))
    with pytest.raises(AssertionError, match="shuffle should be False when sampler is set"):
        io.BatchSampler(sampler=io.SequenceSampler(data), shuffle=True)
    with pytest.raises(AssertionError, match="drop_last should be a boolean value"):
        io.BatchSampler(dataset=data, drop_last=1)
    with pytest.raises(ValueError, match="replacement should be a boolean value"):
        io.WeightedRandomSampler([0.5, 0.5], 5, 5)
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        io.WeightedRandomSampler([0.5, 0.5], 2.3)
    sampler = io.WeightedRandomSampler(np.zeros(4, "float32"), 4)   # checked when iterated, as in Paddle
    with pytest.raises(AssertionError, match="weights should have positive values"):
        list(sampler)


def test_padding_layer_input_alias():
    x = paddle.to_tensor(np.arange(4.0).reshape(1, 1, 2, 2))
    pad = paddle.nn.ZeroPad2D([1, 0, 2, 1])
    expected = np.pad(np.arange(4.0).reshape(1, 1, 2, 2), [(0, 0), (0, 0), (2, 1), (1, 0)])
    np.testing.assert_array_equal(pad(input=x).numpy(), expected)
    np.testing.assert_array_equal(pad(x).numpy(), expected)
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        pad()
