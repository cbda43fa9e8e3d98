"""LookAhead, ModelAverage and the functional BFGS / L-BFGS against numpy references."""
import numpy as np
import pytest

import dy2st as paddle

inc = paddle.incubate
OF = paddle.incubate.optimizer.functional


def _quadratic_param(seed=0):
    rng = np.random.default_rng(seed)
    w0, target = rng.standard_normal(4), rng.standard_normal(4)
    p = paddle.create_parameter([4], "float64")
    p.set_value(w0)
    return p, w0, target


def test_lookahead_matches_numpy_reference():
    p, w, target = _quadratic_param()
    opt = inc.LookAhead(paddle.optimizer.SGD(0.1, parameters=[p]), alpha=0.4, k=3)
    slow = None
    for step in range(1, 11):
        loss = ((p - paddle.to_tensor(target)) ** 2).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
        w = w - 0.1 * 2 * (w - target)          # the inner SGD step
        if step == 1:
            slow = w.copy()
        if step % 3 == 0:
            slow = 0.4 * w + 0.6 * slow
            w = slow.copy()
        np.testing.assert_allclose(p.numpy(), w, rtol=1e-12)


def test_lookahead_argument_checks():
    p, _, _ = _quadratic_param()
    sgd = paddle.optimizer.SGD(0.1, parameters=[p])
    with pytest.raises(AssertionError, match="alpha"):
        inc.LookAhead(sgd, alpha=-0.1)
    with pytest.raises(AssertionError, match="positive integer"):
        inc.LookAhead(sgd, k=2.0)
    with pytest.raises(AssertionError, match="inner optimizer"):
        inc.LookAhead(None)


def test_model_average_window_and_apply_restore():
    p, w, target = _quadratic_param(1)
    sgd = paddle.optimizer.SGD(0.2, parameters=[p])
    ma = inc.ModelAverage(0.5, parameters=[p], min_average_window=2, max_average_window=3)
    history = []
    s1 = s3 = np.zeros(4)
    n_acc = old = 0
    for step in range(1, 9):
        ((p - paddle.to_tensor(target)) ** 2).sum().backward()
        sgd.step()
        ma.step()
        sgd.clear_grad()
        history.append(p.numpy().copy())
        # reference: restart the window when it holds min(max_window, int(step * rate)) (>= min_window) values
        s1, n_acc = s1 + history[-1], n_acc + 1
        if n_acc >= 2 and n_acc >= min(3, int(step * 0.5)):
            s3, s1, old, n_acc = s1, np.zeros(4), n_acc, 0
    current = p.numpy().copy()
    with ma.apply():
        np.testing.assert_allclose(p.numpy(), ((s1 + s3) / (n_acc + old)).astype(np.float32), rtol=1e-6)
    np.testing.assert_allclose(p.numpy(), current)
    with ma.apply(need_restore=False):
        pass
    assert not np.allclose(p.numpy(), current)
    ma.restore()
    np.testing.assert_allclose(p.numpy(), current)


def test_minimizers_solve_a_quadratic():
    Q = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 2.0]])
    c = np.array([1.0, -1.0, 2.0])
    solution = np.linalg.solve(Q, c)

    def quad(x):
        return 0.5 * (x * paddle.matmul(paddle.to_tensor(Q), x)).sum() - (paddle.to_tensor(c) * x).sum()
    x0 = paddle.to_tensor(np.zeros(3))
    ok, calls, x, value, grad, hinv = OF.minimize_bfgs(quad, x0, dtype="float64")
    assert bool(ok.numpy()[0]) and calls.dtype == paddle.int64
    np.testing.assert_allclose(x.numpy(), solution, atol=1e-8)
    h = hinv.numpy()
    np.testing.assert_allclose(h, h.T, atol=1e-12)           # BFGS keeps the estimate symmetric positive definite
    assert np.all(np.linalg.eigvalsh(h) > 0)
    ok, calls, x, value, grad = OF.minimize_lbfgs(quad, x0, dtype="float64")
    assert bool(ok.numpy()[0])
    np.testing.assert_allclose(x.numpy(), solution, atol=1e-8)
    np.testing.assert_allclose(value.numpy(), -0.5 * c @ solution, rtol=1e-10)


def test_minimizer_errors():
    f = lambda x: (x * x).sum()         # noqa: E731
    x0 = paddle.to_tensor(np.ones(2))
    with pytest.raises(ValueError, match="dtype"):
        OF.minimize_bfgs(f, x0, dtype="float16")
    with pytest.raises(ValueError, match="must be tensor"):
        OF.minimize_lbfgs(f, np.ones(2), dtype="float64")
    with pytest.raises(ValueError, match="symmetric and positive definite"):
        OF.minimize_bfgs(f, x0, initial_inverse_hessian_estimate=paddle.to_tensor([[1.0, 1.0], [0.0, 1.0]]),
                         dtype="float64")
    with pytest.raises(NotImplementedError, match="strong_wolfe"):
        OF.minimize_bfgs(f, x0, line_search_fn="hz", dtype="float64")
    # Paddle's ring indexing never closes when history_size is smaller than the iterations (Paddle hangs)
    rosen = lambda x: ((1.0 - x[:-1]) ** 2).sum() + (100.0 * (x[1:] - x[:-1] ** 2) ** 2).sum()  # noqa: E731
    with pytest.raises(RuntimeError, match="history ring"):
        OF.minimize_lbfgs(rosen, paddle.to_tensor([-1.2, 1.0]), history_size=2, dtype="float64")


def _train_with_average(static, data, w0):
    """Weights after each step with the average applied and after restore: eager or as a static program."""
    out = []
    if not static:
        lin = paddle.nn.Linear(4, 3)
        lin.weight.set_value(w0)
        sgd = paddle.optimizer.SGD(0.1, parameters=lin.parameters())
        ma = inc.ModelAverage(0.3, parameters=lin.parameters(), min_average_window=2, max_average_window=5)
        for x in data:
            (lin(paddle.to_tensor(x)) ** 2).mean().backward()
            sgd.step()
            ma.step()
            sgd.clear_grad()
            with ma.apply():
                out.append(lin.weight.numpy().copy())
            out.append(lin.weight.numpy().copy())
        return out
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data("x", [5, 4], "float32")
            fc = paddle.nn.Linear(4, 3)
            loss = (fc(x) ** 2).mean()
            paddle.optimizer.SGD(0.1).minimize(loss)
            ma = inc.ModelAverage(0.3, min_average_window=2, max_average_window=5)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(start)
        scope = paddle.static.global_scope()
        scope.find_var(fc.weight.name).get_tensor().set(w0, paddle.CPUPlace())
        scope.find_var(fc.bias.name).get_tensor().set(np.zeros(3, np.float32), paddle.CPUPlace())
        for xv in data:
            exe.run(main, feed={"x": xv}, fetch_list=[loss])
            with ma.apply(exe):
                out.append(np.array(scope.find_var(fc.weight.name).get_tensor()))
            out.append(np.array(scope.find_var(fc.weight.name).get_tensor()))
        with pytest.raises(RuntimeError, match="Executor should not be None"):
            ma.restore()
    finally:
        paddle.disable_static()
    return out


def test_model_average_static_programs_match_eager():
    rng = np.random.default_rng(7)
    data = rng.standard_normal((8, 5, 4)).astype(np.float32)
    w0 = rng.standard_normal((4, 3)).astype(np.float32)
    for a, b in zip(_train_with_average(False, data, w0), _train_with_average(True, data, w0)):
        np.testing.assert_array_equal(a, b)


def test_lookahead_static_program_matches_eager():
    rng = np.random.default_rng(7)
    xs = rng.standard_normal((6, 5, 4)).astype(np.float32)
    w0 = rng.standard_normal((4, 2)).astype(np.float32)

    paddle.seed(0)
    lin = paddle.nn.Linear(4, 2)
    lin.weight.set_value(w0)
    opt = inc.LookAhead(paddle.optimizer.SGD(0.1, parameters=lin.parameters()), alpha=0.3, k=2)
    eager = []
    for x in xs:
        (lin(paddle.to_tensor(x)) ** 2).mean().backward()
        opt.step()
        opt.clear_grad()
        eager.append(lin.weight.numpy().copy())

    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data("x", [5, 4], "float32")
            fc = paddle.nn.Linear(4, 2)
            loss = (fc(x) ** 2).mean()
            inc.LookAhead(paddle.optimizer.SGD(0.1), alpha=0.3, k=2).minimize(loss)
        exe = paddle.static.Executor()
        exe.run(start)
        scope = paddle.static.global_scope()
        scope.find_var(fc.weight.name).get_tensor().set(w0, paddle.CPUPlace())
        scope.find_var(fc.bias.name).get_tensor().set(np.zeros(2, np.float32), paddle.CPUPlace())
        for x_np, want in zip(xs, eager):
            exe.run(main, feed={"x": x_np}, fetch_list=[loss])
            got = np.array(scope.find_var(fc.weight.name).get_tensor())
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    finally:
        paddle.disable_static()
