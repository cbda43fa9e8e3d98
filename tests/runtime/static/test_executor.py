"""Executor: feed checks, fetches, pruning, persistable state, caching; compiled vs interpreter."""
import numpy as np
import pytest

import runtime as paddle
from runtime import static
from runtime.static.executor import Executor


@pytest.fixture(autouse=True)
def static_mode():
    paddle.enable_static()
    try:
        yield
    finally:
        paddle.disable_static()


BACKENDS = ["compiled", "interpreter"]


def build(fn):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        out = fn()
    main.verify()
    return main, out


def simple():
    x = static.data("x", [-1, 3], "float32")
    return x, x * 2.0 + 1.0


def run_both(main, feed, fetch, scope_init=None):
    """Run with both back ends in fresh scopes; return (compiled, interpreter) results."""
    res = []
    for b in BACKENDS:
        scope = static.Scope()
        for k, v in (scope_init or {}).items():
            scope[k] = v.copy()
        res.append(Executor(backend=b).run(main, feed=feed, fetch_list=fetch, scope=scope))
    return res


# -- feeds ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_feed_dtype_mismatch_names_var(backend):
    main, (x, y) = build(simple)
    exe = Executor(backend=backend)
    with pytest.raises(ValueError, match="fed Variable 'x' must be 'float32', but received 'float64'"):
        exe.run(main, feed={"x": np.ones((2, 3))}, fetch_list=[y])
    with pytest.raises(ValueError, match="'x' must be 'float32', but received 'int32'"):
        exe.run(main, feed={"x": np.ones((2, 3), np.int32)}, fetch_list=[y])


@pytest.mark.parametrize("backend", BACKENDS)
def test_feed_shape_checks(backend):
    main, (x, y) = build(simple)
    exe = Executor(backend=backend)
    with pytest.raises(ValueError, match=r"'x' should have dimensions = 2, shape = \(-1, 3\), but received fed "
                                         r"shape \[2, 4\]"):
        exe.run(main, feed={"x": np.ones((2, 4), np.float32)}, fetch_list=[y])
    with pytest.raises(ValueError, match=r"received fed shape \[2, 3, 1\] on each device"):
        exe.run(main, feed={"x": np.ones((2, 3, 1), np.float32)}, fetch_list=[y])
    # the -1 dimension is free
    for n in (1, 5):
        out, = exe.run(main, feed={"x": np.ones((n, 3), np.float32)}, fetch_list=[y])
        np.testing.assert_allclose(out, np.full((n, 3), 3.0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_feed_unknown_name_and_conversions(backend):
    main, (x, y) = build(simple)
    exe = Executor(backend=backend)
    with pytest.raises(ValueError, match="no variable named 'z'.*\\['x'\\]"):
        exe.run(main, feed={"z": np.ones((2, 3), np.float32)}, fetch_list=[y])
    # Python lists take the declared dtype; Tensors are accepted
    out, = exe.run(main, feed={"x": [[1.0, 2.0, 3.0]]}, fetch_list=[y])
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [[3.0, 5.0, 7.0]])
    paddle.disable_static()
    t = paddle.to_tensor(np.array([[0.5, 1.0, 1.5]], np.float32))
    paddle.enable_static()
    out, = exe.run(main, feed={"x": t}, fetch_list=[y.name], return_numpy=False)
    assert isinstance(out, paddle.Tensor)
    np.testing.assert_allclose(out.numpy(), [[2.0, 3.0, 4.0]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_fetch_errors(backend):
    main, (x, y) = build(simple)
    exe = Executor(backend=backend)
    with pytest.raises(ValueError, match="'nope' is not in the program"):
        exe.run(main, feed={"x": np.ones((1, 3), np.float32)}, fetch_list=["nope"])
    with pytest.raises(TypeError, match="fetch_list entries"):
        exe.run(main, feed={"x": np.ones((1, 3), np.float32)}, fetch_list=[3])


def test_missing_feed_names_reader():
    main, (x, y) = build(simple)
    with pytest.raises(RuntimeError, match="op 'scale' reads variable 'x', which has no value.*test_executor"):
        Executor(backend="compiled").run(main, feed={}, fetch_list=[y])


# -- pruning --------------------------------------------------------------------------------------

def bad_branch():
    x = static.data("x", [-1, -1], "float32")
    y = static.data("y", [-1, -1], "float32")
    bad = paddle.matmul(x, y)        # fails for the (2, 3) x (2, 3) feed below
    good = x + y
    return bad, good


def test_pruning_skips_unneeded_ops():
    main, (bad, good) = build(bad_branch)
    feed = {"x": np.ones((2, 3), np.float32), "y": np.ones((2, 3), np.float32)}
    out, = Executor(backend="compiled").run(main, feed=feed, fetch_list=[good])
    np.testing.assert_allclose(out, np.full((2, 3), 2.0))
    # the interpreter runs every op unless asked to prune
    with pytest.raises(ValueError):
        Executor(backend="interpreter").run(main, feed=feed, fetch_list=[good])
    out, = Executor(backend="interpreter").run(main, feed=feed, fetch_list=[good], use_prune=True)
    np.testing.assert_allclose(out, np.full((2, 3), 2.0))
    assert "matmul" not in Executor(backend="compiled").code(main, ["x", "y"], [good])


def test_prune_keeps_persistable_writers_and_startup_runs_all():
    from runtime.static.prune import prune_ops
    main, (bad, good) = build(bad_branch)
    blk = main.global_block()
    c = blk.create_var(name="counter", shape=[1], dtype="float32", persistable=True)
    blk.append_op("scale", inputs={"X": c}, outputs={"Out": c}, attrs={"scale": 1.0, "bias": 1.0})
    kept = [op.type for op in prune_ops(blk, [good.name])]
    assert kept == ["elementwise_add", "scale"]
    assert [op.type for op in prune_ops(blk, [])] == [op.type for op in blk.ops]


def test_error_annotation_names_op_and_user_line():
    main, (bad, good) = build(bad_branch)
    feed = {"x": np.ones((2, 3), np.float32), "y": np.ones((2, 3), np.float32)}
    for b in BACKENDS:
        with pytest.raises(ValueError) as ei:
            Executor(backend=b).run(main, feed=feed, fetch_list=[bad])
        notes = "\n".join(getattr(ei.value, "__notes__", []))
        assert "while running op 'matmul_v2'" in notes and "X=['x']" in notes
        assert "test_executor.py" in notes and "bad = paddle.matmul(x, y)" in notes


# -- persistable state ----------------------------------------------------------------------------

def counter_program():
    main = static.Program()
    blk = main.global_block()
    c = blk.create_var(name="step.counter", shape=[1], dtype="float32", persistable=True)
    blk.append_op("scale", inputs={"X": c}, outputs={"Out": c}, attrs={"scale": 1.0, "bias": 1.0})
    main.verify()
    return main, c


@pytest.mark.parametrize("backend", BACKENDS)
def test_persistable_counter_across_runs(backend):
    main, c = counter_program()
    scope = static.Scope()
    scope["step.counter"] = np.zeros([1], np.float32)
    exe = Executor(backend=backend)
    got = [exe.run(main, fetch_list=[c], scope=scope)[0].item() for _ in range(3)]
    assert got == [1.0, 2.0, 3.0]
    assert scope["step.counter"].item() == 3.0


def test_missing_persistable_is_a_clear_error():
    main, c = counter_program()
    with pytest.raises(RuntimeError, match="'step.counter' is persistable but has no value.*startup"):
        Executor(backend="compiled").run(main, fetch_list=[c], scope=static.Scope())


def test_eager_bound_tensor_is_read_and_updated():
    paddle.disable_static()
    w = paddle.to_tensor(np.array([1.0, 2.0], np.float32))
    paddle.enable_static()
    main, out = build(lambda: static.data("x", [2], "float32") * w)
    res = run_both(main, {"x": np.array([3.0, 4.0], np.float32)}, [out])
    for r in res:
        np.testing.assert_allclose(r[0], [3.0, 8.0])


# -- both back ends agree ------------------------------------------------------------------------

def arithmetic():
    x = static.data("x", [2, 3], "float32")
    y = static.data("y", [2, 3], "float32")
    return [x + y * 2.0, (x - y) / (y + 3.0), paddle.exp(x) - 1.0]


def reductions():
    x = static.data("x", [2, 3], "float32")
    return [paddle.sum(x), paddle.mean(x, axis=1), paddle.max(x, axis=0, keepdim=True)]


def mlp():
    x = static.data("x", [-1, 4], "float32")
    blk = static.default_main_program().global_block()
    w1 = blk.create_parameter("fc_0.w_0", [4, 8], "float32")
    w2 = blk.create_parameter("fc_1.w_0", [8, 2], "float32")
    h = paddle.nn.functional.relu(paddle.matmul(x, w1))
    return [paddle.matmul(h, w2), h]


def multi_output():
    x = static.data("x", [4, 3], "float32")
    a, b = paddle.split(x, 2, axis=0)
    vals, idx = paddle.topk(x, 2)
    parts = paddle.unstack(x, axis=1)
    return [a, b, vals, idx, parts[2]]


RNG = np.random.default_rng(0)
CASES = {
    "arithmetic": (arithmetic, {"x": RNG.standard_normal((2, 3)).astype(np.float32),
                                "y": RNG.standard_normal((2, 3)).astype(np.float32)}, None),
    "reductions": (reductions, {"x": RNG.standard_normal((2, 3)).astype(np.float32)}, None),
    "mlp": (mlp, {"x": RNG.standard_normal((3, 4)).astype(np.float32)},
            {"fc_0.w_0": RNG.standard_normal((4, 8)).astype(np.float32),
             "fc_1.w_0": RNG.standard_normal((8, 2)).astype(np.float32)}),
    "multi_output": (multi_output, {"x": RNG.permutation(12).reshape(4, 3).astype(np.float32)}, None),
}


@pytest.mark.parametrize("name", list(CASES))
def test_backends_agree(name):
    fn, feed, init = CASES[name]
    main, outs = build(fn)
    comp, interp = run_both(main, feed, outs, init)
    assert len(comp) == len(interp) == len(outs)
    for c, i in zip(comp, interp):
        assert c.dtype == i.dtype and c.shape == i.shape
        np.testing.assert_array_equal(c, i)


def test_mlp_matches_numpy():
    fn, feed, init = CASES["mlp"]
    main, outs = build(fn)
    out, h = run_both(main, feed, outs, init)[0]
    ref_h = np.maximum(feed["x"] @ init["fc_0.w_0"], 0)
    np.testing.assert_allclose(h, ref_h, rtol=1e-5)
    np.testing.assert_allclose(out, ref_h @ init["fc_1.w_0"], rtol=1e-5)


# -- cache ------------------------------------------------------------------------------------------

def test_cache_reuse_and_invalidation():
    main, (x, y) = build(simple)
    exe = Executor(backend="compiled")
    feed = {"x": np.ones((1, 3), np.float32)}
    exe.run(main, feed=feed, fetch_list=[y])
    assert len(exe._cache) == 1
    fn = next(iter(exe._cache.values()))
    exe.run(main, feed=feed, fetch_list=[y])
    assert next(iter(exe._cache.values())) is fn
    # editing the program changes its version: recompiled, the old entry dropped
    with static.program_guard(main):
        z = y * 3.0
    out, = exe.run(main, feed=feed, fetch_list=[z])
    np.testing.assert_allclose(out, np.full((1, 3), 9.0))
    assert len(exe._cache) == 1 and next(iter(exe._cache.values())) is not fn
    # a different fetch list is a different entry
    exe.run(main, feed=feed, fetch_list=[y, z])
    assert len(exe._cache) == 2


def test_env_var_selects_interpreter(monkeypatch):
    monkeypatch.setenv("DY2ST_EXECUTOR", "interpreter")
    assert Executor().backend == "interpreter"
    monkeypatch.delenv("DY2ST_EXECUTOR")
    assert Executor().backend == "compiled"
    with pytest.raises(ValueError, match="backend must be one of"):
        Executor(backend="jit")


@pytest.mark.parametrize("backend", BACKENDS)
def test_fetch_of_value_never_computed(backend):
    main, (x, y) = build(simple)
    main.global_block().create_var(name="orphan", shape=[1], dtype="float32")
    with pytest.raises(ValueError, match="'orphan' was not computed by this run"):
        Executor(backend=backend).run(main, feed={"x": np.ones((1, 3), np.float32)}, fetch_list=["orphan"])


def test_code_defaults_to_the_data_variables_and_keeps_every_op():
    """``exe.code(program)`` as the README shows it: no feed or fetch names needed."""
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", [None, 8], "float32")
            y = static.data("y", [None, 8], "float32")
            out = paddle.tanh(x) * y
        exe = Executor(backend="compiled")
        src = exe.code(main)
        assert "feed[name_x]" in src and "feed[name_y]" in src and "tanh" in src, src
        assert out.name not in src.split("return")[-1]     # nothing is fetched without fetch_names
        assert "tanh" in exe.code(main, ["x", "y"], [out])
    finally:
        paddle.disable_static()
