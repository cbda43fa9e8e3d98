"""Errors of converted code: their types and Paddle's "In transformed code:" report (issue 14).

Against real Paddle 3.3.1 (one subprocess for the module): an op failing while the converted Program
runs (Paddle's test_error.py ``reshape(x, shape=[1, two])`` on a [3, 2] input) and an IndentationError
met while converting (a method whose docstring mixes tabs and spaces) keep their type, carry an
``ErrorData`` and a report naming the user's line (``<--- HERE``), the IndentationError's in its ``msg``.
Both executors (``DY2ST_EXECUTOR``) are checked. A read of a name bound on some paths through tensor
loops only, where the run did not bind it, raises eager Python's UnboundLocalError on both executors.
"""
import importlib.util
import json
import sys

import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit.dy2static import error
from tests.interop.paddle_runner import run_paddle

BACKENDS = ("compiled", "interpreter")

CASES = '''
import os
import numpy as np
{imp}
from {pkg}.jit.dy2static import error


@paddle.jit.to_static(full_graph=True)
def reshape_error(x):
    x = paddle.to_tensor(x)
    two = paddle.tensor.fill_constant(shape=[1], value=2, dtype="int32")
    x = paddle.reshape(x, shape=[1, two])
    return x


class MixedIndent(paddle.nn.Layer):
    @paddle.jit.to_static(full_graph=True)
    def forward(self):
        self.test_func()

    def test_func(self):
        """
        The next line starts with a tab.
\tA tab here.
        """
        return


def outcome(fn, disable_new_error=0):
    os.environ[error.DISABLE_ERROR_ENV_NAME] = str(disable_new_error)
    try:
        fn()
    except Exception as e:
        return {{"type": type(e).__name__, "msg": str(e),
                 "data": isinstance(getattr(e, error.ERROR_DATA, None), error.ErrorData)}}
    finally:
        os.environ[error.DISABLE_ERROR_ENV_NAME] = str(error.DEFAULT_DISABLE_NEW_ERROR)
    return {{"type": None, "msg": "", "data": False}}


def outcomes():
    x = np.ones([3, 2])
    return {{"runtime": outcome(lambda: reshape_error(x)),
             "runtime_plain": outcome(lambda: reshape_error(x), 1),
             "indentation": outcome(lambda: MixedIndent()())}}
'''

RUNTIME_LINES = ['two = paddle.tensor.fill_constant(shape=[1], value=2, dtype="int32")',
                 'x = paddle.reshape(x, shape=[1, two])', '<--- HERE', 'return x']
INDENT_LINES = ['@paddle.jit.to_static', 'def forward(self):', 'self.test_func()', '<--- HERE']


def _load_ours(tmp_path):
    path = tmp_path / "runtime_error_cases.py"
    path.write_text(CASES.format(imp="import dy2st as paddle", pkg="dy2st"))
    spec = importlib.util.spec_from_file_location("runtime_error_cases", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def paddle_outcomes(tmp_path_factory):
    work = tmp_path_factory.mktemp("paddle_runtime_errors")
    (work / "runtime_error_cases.py").write_text(CASES.format(imp="import paddle", pkg="paddle"))
    code = ("import json, sys\nsys.path.insert(0, '.')\nimport runtime_error_cases as c\n"
            "print('RESULT' + json.dumps(c.outcomes()))\n")
    proc = run_paddle(code, work, default_flags=True)     # PIR, as Paddle runs its test_error.py
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")]
    assert proc.returncode == 0 and lines, proc.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT"):])


@pytest.mark.parametrize("backend", BACKENDS)
def test_errors_match_real_paddle(backend, tmp_path, monkeypatch, paddle_outcomes):
    monkeypatch.setenv("DY2ST_EXECUTOR", backend)
    ours = _load_ours(tmp_path).outcomes()
    for case, lines in (("runtime", RUNTIME_LINES), ("indentation", INDENT_LINES)):
        theirs, got = paddle_outcomes[case], ours[case]
        assert got["type"] == theirs["type"] and got["data"] and theirs["data"], (case, got, theirs)
        for text in [error.HEADER] + lines:
            assert text in theirs["msg"], (case, text)      # what Paddle's test_error.py checks
            assert text in got["msg"], (case, text, got["msg"])
    theirs, got = paddle_outcomes["runtime_plain"], ours["runtime_plain"]
    assert got["type"] == theirs["type"] == "ValueError" and got["data"] and theirs["data"]
    assert error.HEADER not in got["msg"] and error.HEADER not in theirs["msg"]


def unbound_after_loop(x):
    i = paddle.zeros([1])
    while i < x.sum():
        if x.mean() > i:
            y = x * (i + 1)
        i += 1
    return y


@pytest.mark.parametrize("backend", BACKENDS)
def test_unbound_read_raises_unbound_local_error(backend, monkeypatch):
    monkeypatch.setenv("DY2ST_EXECUTOR", backend)
    neg = paddle.to_tensor(-np.ones(3, "float32"))
    with pytest.raises(UnboundLocalError):          # eager Python
        unbound_after_loop(neg)
    sf = paddle.jit.to_static(unbound_after_loop)
    pos = paddle.to_tensor(np.full(3, 0.5, "float32"))
    np.testing.assert_allclose(sf(pos).numpy(), unbound_after_loop(pos).numpy(), rtol=1e-6)
    with pytest.raises(UnboundLocalError) as e:
        sf(neg)
    msg = str(e.value)
    assert msg.startswith("UnboundLocalError at test_runtime_errors.py:") and "local variable 'y'" in msg, msg
    assert any("while running op 'assert'" in n for n in getattr(e.value, "__notes__", ())), e.value.__notes__
    assert isinstance(getattr(e.value, error.ERROR_DATA, None), error.ErrorData)


def _missing_key(x):
    d = {"a": x}
    return d["b"]


def test_a_key_error_in_converted_code_is_dy2st_key_error():
    # Paddle's test_legacy_error TestKeyError: Dy2StKeyError (not a KeyError subclass) carrying the report
    with pytest.raises(error.Dy2StKeyError) as ei:
        paddle.jit.to_static(_missing_key)(paddle.to_tensor([1.0]))
    assert isinstance(getattr(ei.value, error.ERROR_DATA), error.ErrorData)
    assert "In transformed code:" in str(ei.value) and "KeyError: 'b'" in str(ei.value)
    assert isinstance(ei.value.__cause__, KeyError)
