"""Decorated functions under to_static (issue 14), and the user's syntax errors kept as they are.

Eager vs converted (gradients included) for every decorator form of decorated_cases.py, and the same
cases against real Paddle 3.3.1 in AST mode: one Paddle subprocess runs them all.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import json
import pathlib
import sys
import textwrap
import warnings

import numpy as np
import pytest

import dy2st as paddle
from dy2st.errors import Dy2StaticError
from tests.dy2st.conformance import decorated_cases as cases
from tests.dy2st.conformance.harness import check, f32, twin_layers  # noqa: F401
from tests.interop.paddle_runner import run_paddle

REPO = pathlib.Path(__file__).resolve().parents[3]

PADDLE_MAIN = f"""
import json, os, sys, warnings
os.environ["DY2ST_CASES_FRAMEWORK"] = "paddle"
sys.path.insert(0, {str(REPO)!r})
from tests.dy2st.conformance import decorated_cases
print("RESULT" + json.dumps(decorated_cases.run()))
"""

X = f32(2, 3, seed=1)
ARGSETS = [[X], [-np.abs(X) - 0.1], [np.abs(X) + 0.1]]


# -- eager vs converted ---------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [cases.no_grad_fn, cases.calls_no_grad, cases.branchy, cases.stacked, cases.imported,
                                cases.unwrapped_style, cases.calls_decorated, cases.calls_marked,
                                cases.calls_in_context], ids=lambda f: f.__name__)
def test_decorated_function_matches_eager(fn, backend):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # the context-manager warning Paddle gives too
        check(fn, ARGSETS, backend)


def test_no_grad_keeps_outputs_out_of_the_graph():
    x = paddle.to_tensor(X, stop_gradient=False)
    assert paddle.jit.to_static(cases.no_grad_fn)(x).stop_gradient
    out = paddle.jit.to_static(cases.calls_no_grad)(x)
    (gx,) = paddle.grad(out.sum(), x)
    np.testing.assert_allclose(gx.numpy(), 2 * X, rtol=1e-6)     # only x * x contributes


def test_wrapper_control_flow_is_staged_in_one_program():
    sf = paddle.jit.to_static(cases.branchy)
    sf(paddle.to_tensor(X))
    ops = [op.type for op in sf.concrete_program.main_program.global_block().ops]
    assert ops.count("conditional_block") + ops.count("if") + ops.count("cond") >= 2, ops
    for data in (np.abs(X) + 0.1, -np.abs(X) - 0.1):
        np.testing.assert_allclose(sf(paddle.to_tensor(data)).numpy(), cases.branchy(paddle.to_tensor(data)).numpy())


@pytest.mark.parametrize("make", [cases.Net, cases.NoGradNet], ids=["decorated_forward", "no_grad_forward"])
def test_decorated_layer_methods_match_eager(make):
    eager, static = twin_layers(make)
    static = paddle.jit.to_static(static)
    x_e, x_s = paddle.to_tensor(X, stop_gradient=False), paddle.to_tensor(X, stop_gradient=False)
    out_e, out_s = eager(x_e), static(x_s)
    np.testing.assert_allclose(out_s.numpy(), out_e.numpy(), rtol=1e-5, atol=1e-6)
    assert out_s.stop_gradient == out_e.stop_gradient
    if not out_e.stop_gradient:
        out_e.sum().backward()
        out_s.sum().backward()
        np.testing.assert_allclose(x_s.grad.numpy(), x_e.grad.numpy(), rtol=1e-5, atol=1e-6)
        for pe, ps in zip(eager.parameters(), static.parameters()):
            np.testing.assert_allclose(ps.grad.numpy(), pe.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_decorators_are_reapplied_once_per_conversion(tmp_path, monkeypatch):
    src = textwrap.dedent("""
        import functools
        import dy2st as paddle
        CALLS = []
        def counting(fn):
            CALLS.append(fn.__name__)
            @functools.wraps(fn)
            def wrapper(x):
                return fn(x) + 1.0
            return wrapper
        @counting
        def f(x):
            return x * 2.0
    """)
    mod = _module(tmp_path, monkeypatch, "deco_count_mod", src)
    assert mod.CALLS == ["f"]
    sf = paddle.jit.to_static(mod.f)
    for _ in range(2):
        np.testing.assert_allclose(sf(paddle.to_tensor([1.0, 2.0])).numpy(), [3.0, 5.0])
    assert mod.CALLS == ["f", "f"]      # re-applied once, to the converted function (not per call)


def test_user_wrapper_of_a_local_decorator_converts_its_own_code(backend):
    def local_deco(fn):
        @functools.wraps(fn)
        def wrapper(x):
            y = fn(x)
            if y.sum() > 0:
                y = y + 1.0
            return y
        return wrapper

    @local_deco
    def f(x):
        return x * 2.0

    # 'local_deco' is not visible from f's globals or closure: it cannot be re-applied, so the wrapper
    # (user code) is converted itself and calls the converted f
    check(f, ARGSETS, backend)


def test_library_wrapper_of_a_local_decorator_is_refused_clearly():
    def gen():
        yield

    local_cm = contextlib.contextmanager(gen)

    @local_cm()
    def f(x):
        return x * 2.0

    with pytest.raises(Dy2StaticError) as e:
        paddle.jit.to_static(f)(paddle.to_tensor([1.0]))
    msg = str(e.value)
    line = f.__wrapped__.__code__.co_firstlineno
    assert "@local_cm()" in msg and "'local_cm'" in msg and f"{__file__}:{line}" in msg, msg


def test_singledispatch_is_not_reapplied(tmp_path, monkeypatch):
    src = textwrap.dedent("""
        import functools
        @functools.singledispatch
        def f(x):
            return x * 2.0
        @f.register(int)
        def _(x):
            return x
    """)
    mod = _module(tmp_path, monkeypatch, "deco_dispatch_mod", src)
    with pytest.raises(Dy2StaticError, match=r"@functools\.singledispatch.*not faithful"):
        paddle.jit.to_static(mod.f)(paddle.to_tensor([1.0]))


def test_indentation_error_of_the_source_is_kept_with_where(tmp_path, monkeypatch):
    with pytest.raises(IndentationError) as e:
        paddle.jit.to_static(cases.TabDocNet())(paddle.to_tensor(X))
    err = e.value
    assert err.msg == "unexpected indent"
    assert err.filename == cases.__file__
    notes = "\n".join(getattr(err, "__notes__", []))
    assert "TabDocNet.forward" in notes and f"{cases.__file__}:" in notes


def test_fallback_runs_a_function_whose_source_does_not_reparse_eagerly():
    net = cases.TabDocNet()
    want = net(paddle.to_tensor(X))
    sf = paddle.jit.to_static(net.forward, fallback=True)
    with pytest.warns(UserWarning, match="eagerly"):
        got = sf(paddle.to_tensor(X))
    np.testing.assert_allclose(got.numpy(), want.numpy())


def _module(tmp_path, monkeypatch, name, src):
    (tmp_path / f"{name}.py").write_text(src)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop(name, None)
    return importlib.import_module(name)


# -- against real Paddle ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def paddle_results(tmp_path_factory):
    # real Paddle 3.3.1 sometimes dies of a signal (SIGSEGV) in its PIR executor on these cases, not
    # deterministically (seen 2 of ~10 runs): run it again before judging
    for _ in range(3):
        proc = run_paddle(PADDLE_MAIN, tmp_path_factory.mktemp("decorated"), default_flags=True)
        if proc.returncode >= 0:
            break
    if proc.returncode < 0:
        pytest.skip(f"real Paddle crashed (signal {-proc.returncode}) three times running the reference cases")
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")]
    assert proc.returncode == 0 and lines, proc.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT"):])


@pytest.fixture(scope="module")
def our_results():
    from dy2st import conversion
    conversion._fn_cache.clear()    # as in Paddle's fresh process: the contextmanager warning comes again
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return json.loads(json.dumps(cases.run()))


def _close(a, b):
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(a - b) <= 1e-5 * (1 + abs(b))
    return a == b


def test_same_cases_as_paddle(paddle_results, our_results):
    assert sorted(our_results) == sorted(paddle_results)
    for k in ("tab_docstring",):      # the error type and the parser's message (ours names the user's file)
        ours, theirs = our_results.pop(k), paddle_results.pop(k)
        assert ours[:2] == theirs[:2] and ours[2].split(" (")[0] == theirs[2].split(" (")[0], (ours, theirs)
    diff = {k: (our_results[k], paddle_results[k]) for k in paddle_results
            if not _close(our_results[k], paddle_results[k])}
    assert not diff, f"(ours, Paddle) differ: {diff}"
