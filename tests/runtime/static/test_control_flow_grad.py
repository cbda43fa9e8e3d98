"""Static gradients through cond and while_loop match central finite differences (float64), on both
executors, including loops whose trip count depends on the data; SGD training through a cond."""
import numpy as np
import pytest

import runtime as paddle
from runtime import static
import runtime.static.layers_bridge  # noqa: F401  (parameter creator/initializer hooks)

BACKENDS = ["interpreter", "compiled"]


@pytest.fixture(autouse=True)
def eager_after():
    yield
    paddle.disable_static()


def _exe(backend):
    return static.Executor(backend="interpreter") if backend == "interpreter" else static.Executor()


def _build(fn, specs):
    """Program with float64 data inputs ``specs`` (name -> shape) and bool input ``p`` if asked;
    ``fn(**inputs)`` returns the scalar loss. Returns (main, loss, grads of the float inputs)."""
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        ins = {}
        for name, (shape, dtype) in specs.items():
            v = static.data(name, shape, dtype)
            if dtype == "float64":
                v.stop_gradient = False
            ins[name] = v
        loss = fn(**ins)
        wrt = [v for n, v in ins.items() if specs[n][1] == "float64"]
        grads = static.gradients([loss], wrt)
    main.verify()
    return main, loss, grads, [v.name for v in wrt]


def _check(fn, specs, feed, backend, rtol=1e-6, atol=1e-8):
    main, loss, grads, names = _build(fn, specs)
    exe = _exe(backend)
    res = exe.run(main, feed=feed, fetch_list=[loss] + [g for g in grads if g is not None])
    got = dict(zip([n for n, g in zip(names, grads) if g is not None], res[1:]))
    eps = 1e-6
    for n in names:
        base = np.asarray(feed[n], dtype=np.float64)
        num = np.zeros_like(base)
        for i in np.ndindex(base.shape):
            vals = []
            for s in (eps, -eps):
                f = dict(feed)
                x = base.copy()
                x[i] += s
                f[n] = x
                vals.append(float(exe.run(main, feed=f, fetch_list=[loss])[0]))
            num[i] = (vals[0] - vals[1]) / (2 * eps)
        g = got.get(n, np.zeros_like(base))
        np.testing.assert_allclose(g, num, rtol=rtol, atol=atol, err_msg=f"gradient of {n}")
    return main, res


X3 = np.array([0.3, -0.5, 0.8])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("pred", [True, False])
def test_cond_each_branch(backend, pred):
    def fn(x, w, p):
        y = static.nn.cond(p, lambda: paddle.tanh(x * w) * 2.0, lambda: x * x + w)
        return paddle.sum(y * y)
    specs = {"x": ([3], "float64"), "w": ([3], "float64"), "p": ([1], "bool")}
    feed = {"x": X3, "w": np.array([1.5, 0.7, -0.4]), "p": np.array([pred])}
    main, res = _check(fn, specs, feed, backend)
    types = [op.type for op in main.global_block().ops]
    assert types.count("conditional_block_grad") == 2 and "select_input" in types


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("a,b", [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)])
def test_nested_cond(backend, a, b):
    def fn(x, pa, pb):
        def outer_true():
            return static.nn.cond(pb[0] > 0, lambda: paddle.sin(x) * x, lambda: paddle.exp(x))
        y = static.nn.cond(pa[0] > 0, outer_true, lambda: x * 3.0)
        return paddle.sum(y * x)
    specs = {"x": ([3], "float64"), "pa": ([1], "float32"), "pb": ([1], "float32")}
    _check(fn, specs, {"x": X3, "pa": np.array([a], np.float32), "pb": np.array([b], np.float32)}, backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("pred", [True, False])
def test_cond_outputs_used_after_and_input_used_outside(backend, pred):
    def fn(x, p):
        h = x * 2.0
        a, b = static.nn.cond(p, lambda: (h * h, paddle.sum(h)), lambda: (h + 1.0, paddle.sum(h * x)))
        return paddle.sum(a * h) + b * paddle.sum(x)
    specs = {"x": ([3], "float64"), "p": ([], "bool")}
    _check(fn, specs, {"x": X3, "p": np.array(pred)}, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_while_fixed_trip_count(backend):
    def fn(x):
        i = paddle.full([1], 0, "int64")
        n = paddle.full([1], 4, "int64")

        def body(i, y):
            return i + 1, paddle.sin(y) * 1.5 + y * 0.5
        _, y = static.nn.while_loop(lambda i, y: i < n, body, [i, x * 1.0])
        return paddle.sum(y * y)
    main, _ = _check(fn, {"x": ([3], "float64")}, {"x": X3}, backend)
    assert "while_grad" in [op.type for op in main.global_block().ops]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x0", [[0.5, 1.0, 0.2], [3.0, 2.5, 4.2], [20.0, 1.0, 1.0]])
def test_while_data_dependent_trip_count(backend, x0):
    # while sum(x) < 10: x = x * 1.5 (the last case runs zero iterations: the gradient is the identity)
    def fn(x):
        y = static.nn.while_loop(lambda y: paddle.sum(y) < 10.0, lambda y: [y * 1.5], [x * 1.0])[0]
        return paddle.sum(y * paddle.cos(y))
    _, res = _check(fn, {"x": ([3], "float64")}, {"x": np.array(x0)}, backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("trips", [0, 3])
def test_while_body_uses_outside_parameter(backend, trips):
    # the gradient of w accumulates over the iterations (zero when the body never runs); h carries a
    # second loop var (and an int counter)
    def fn(x, w, n):
        i = paddle.full([1], 0, "int64")

        def body(i, h, s):
            h2 = paddle.tanh(h * w + 0.1)
            return i + 1, h2, s + paddle.sum(h2 * w)
        _, h, s = static.nn.while_loop(lambda i, h, s: i < n, body, [i, x * 1.0, paddle.zeros([1], "float64")])
        return paddle.sum(h * h) + paddle.sum(s) * 0.5
    _check(fn, {"x": ([3], "float64"), "w": ([3], "float64"), "n": ([1], "int64")},
           {"x": X3, "w": np.array([0.9, -1.1, 0.6]), "n": np.array([trips])}, backend)


def test_while_grad_needs_training_loop():
    def fn(x):
        y = static.nn.while_loop(lambda y: paddle.sum(y) < 10.0, lambda y: [y * 1.5], [x * 1.0], is_test=True)[0]
        return paddle.sum(y)
    main, loss, grads, _ = _build(fn, {"x": ([3], "float64")})
    with pytest.raises(RuntimeError, match="is_test=False"):
        _exe("interpreter").run(main, feed={"x": X3}, fetch_list=[grads[0]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_cond_inside_while(backend):
    def fn(x):
        i = paddle.full([1], 0, "int64")

        def body(i, y):
            y = static.nn.cond(paddle.sum(y) > 0, lambda: y * 0.5 - 0.3, lambda: paddle.sin(y) + y)
            return i + 1, y
        _, y = static.nn.while_loop(lambda i, y: i < 4, body, [i, x * 1.0])
        return paddle.sum(y * y)
    _check(fn, {"x": ([3], "float64")}, {"x": np.array([0.4, 0.2, 0.1])}, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_while_inside_cond(backend):
    def fn(x, p):
        def loop():
            return static.nn.while_loop(lambda y: paddle.sum(y) < 5.0, lambda y: [y * 1.3 + 0.1], [x * 1.0])[0]
        y = static.nn.cond(p, loop, lambda: x * x)
        return paddle.sum(y * y)
    for pv in (True, False):
        _check(fn, {"x": ([3], "float64"), "p": ([1], "bool")}, {"x": X3 + 1.0, "p": np.array([pv])}, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sgd_training_through_cond_decreases_loss(backend):
    paddle.enable_static()
    paddle.seed(3)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [8, 4], "float32")
        t = static.data("t", [8, 1], "float32")
        flag = static.data("flag", [1], "bool")
        lin = paddle.nn.Linear(4, 1)
        lin2 = paddle.nn.Linear(4, 1)
        out = static.nn.cond(flag, lambda: lin(x), lambda: paddle.tanh(lin2(x)) * 2.0)
        loss = paddle.mean((out - t) ** 2)
        paddle.optimizer.SGD(0.1).minimize(loss)
    main.verify()
    exe = _exe(backend)
    exe.run(startup)
    rng = np.random.default_rng(0)
    xv = rng.normal(size=(8, 4)).astype(np.float32)
    tv = (xv @ np.array([[0.5], [-1.0], [0.3], [0.8]], np.float32)).astype(np.float32)
    losses = {True: [], False: []}
    for step in range(30):
        f = bool(step % 2)
        losses[f].append(float(exe.run(main, feed={"x": xv, "t": tv, "flag": np.array([f])},
                                       fetch_list=[loss])[0]))
    for f in (True, False):
        assert losses[f][-1] < 0.5 * losses[f][0], (f, losses[f])
