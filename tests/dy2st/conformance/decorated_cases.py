"""Decorated functions under to_static, run by dy2st and by real Paddle (test_decorated_functions.py).

The framework is chosen by ``DY2ST_CASES_FRAMEWORK`` (``dy2st``, or ``paddle`` in Paddle's subprocess)
before this module is imported, so the decorators below run with that framework's ``paddle``.
`run()` gives every case's result as plain JSON (values, stop_gradient flags, error types).
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import os
import warnings

import numpy as np

paddle = importlib.import_module(os.environ.get("DY2ST_CASES_FRAMEWORK", "dy2st"))

from tests.dy2st.conformance import decorator_helpers as helpers  # noqa: E402


def add_after(k):
    """A decorator with arguments: adds ``k`` to the function's result."""
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs) + k
        return wrapper
    return deco


def sign_branch(fn):
    """A wraps-style decorator whose wrapper has tensor control flow of its own."""
    @functools.wraps(fn)
    def wrapper(*args):
        out = fn(*args)
        if out.mean() > 0:
            out = out * 2.0
        else:
            out = out - 1.0
        return out
    return wrapper


def plain_wrapper(fn):
    """A decorator without functools.wraps (no __wrapped__): its wrapper is converted like any function."""
    def wrapper(x):
        return fn(x) * 3.0
    return wrapper


@paddle.no_grad()
def no_grad_fn(x):
    return x * 2.0


def calls_no_grad(x):
    return no_grad_fn(x) + x * x


@paddle.no_grad()
def no_grad_shape(x):
    x = paddle.shape(x)
    return x


@sign_branch
def branchy(x):
    if x.sum() > 0:
        return x + 1.0
    return x - 1.0


@add_after(1.0)
@sign_branch
@add_after(0.5)
def stacked(x):
    return x * x


@helpers.times(4.0)
@helpers.minus_one
def imported(x):
    return paddle.tanh(x)


@plain_wrapper
def unwrapped_style(x):
    return paddle.exp(x)


def calls_decorated(x):
    # decorated functions called from converted code are converted under their decorators
    return branchy(x) + stacked(x) + imported(x)


@add_after(2.0)
@paddle.jit.not_to_static
def marked(x):
    return x + 1.0


def calls_marked(x):
    return marked(x) * x


@contextlib.contextmanager
def a_context():
    yield


@a_context()
def in_context(x):
    return x * 5.0


def calls_in_context(x):
    return in_context(x) + 1.0


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = paddle.nn.Linear(3, 3)

    @staticmethod
    @add_after(1.0)
    def shift(x):
        return x * 2.0

    @classmethod
    def scale(cls, x):
        return x * 3.0

    @sign_branch
    def branch(self, x):
        return self.lin(x)

    def forward(self, x):
        return self.shift(self.branch(x)) + self.scale(x)


class NoGradNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = paddle.nn.Linear(3, 3)

    @paddle.no_grad()
    def forward(self, x):
        return self.lin(x)


class TabDocNet(paddle.nn.Layer):
    def forward(self, x):
        """A docstring with a tab-indented line:
	the source of this method does not parse on its own once read and dedented."""
        return x + 1.0


class Plain:
    @classmethod
    def scale(cls, x):
        return x * 3.0


def fixed_weights(layer):
    """``layer`` with the same parameter values in both frameworks."""
    for k, p in enumerate(layer.parameters()):
        n = int(np.prod(p.shape))
        p.set_value(np.linspace(-1.0, 1.0, n).reshape(p.shape).astype("float32") * (k + 1))
    return layer


def _error(thunk):
    try:
        thunk()
    except Exception as e:   # noqa: BLE001 -- the type and message are the result
        return ["raise", type(e).__name__, str(e).splitlines()[0] if str(e) else ""]
    return ["ok"]


def _st(fn):
    return paddle.jit.to_static(fn, full_graph=True)


def _vals(t):
    return [np.asarray(t.numpy()).tolist(), str(t.dtype).replace("paddle.", ""), bool(t.stop_gradient)]


def _caller(fn):
    def call(x):
        return fn(x)
    return call


def run():
    x = paddle.to_tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], stop_gradient=False)
    neg = paddle.to_tensor([[-0.5, -1.0, -2.0], [-1.5, -0.25, -0.75]], stop_gradient=False)
    res = {}
    res["no_grad_fn"] = _vals(_st(no_grad_fn)(x))
    res["no_grad_shape"] = _vals(_st(no_grad_shape)(x))
    out = _st(calls_no_grad)(x)
    (gx,) = paddle.grad(out.sum(), x)
    res["calls_no_grad"] = _vals(out) + [gx.numpy().tolist()]
    # called from a plain function: Paddle's to_static refuses a ``*args`` wrapper given to it directly
    # ("requires 0 arguments"), dy2st converts it (test_decorated_functions.py checks that against eager)
    for name, fn in (("branchy", branchy), ("stacked", stacked), ("imported", imported),
                     ("unwrapped_style", unwrapped_style), ("calls_decorated", calls_decorated),
                     ("calls_marked", calls_marked)):
        sf = _st(_caller(fn))
        res[name] = [_vals(sf(x)), _vals(sf(neg))]
    res["net"] = _vals(_st(fixed_weights(Net()))(x))
    res["no_grad_net"] = _vals(_st(fixed_weights(NoGradNet()))(x))
    res["tab_docstring"] = _error(lambda: _st(TabDocNet())(x))
    res["classmethod_of_plain_class"] = _error(lambda: _st(Plain.scale))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res["in_context"] = _vals(_st(calls_in_context)(x))
    res["context_manager_warning"] = any("A context manager decorator is used" in str(w.message) for w in caught)
    return res
