"""Calls from converted code: user functions (converted recursively), methods, closures, nested
functions, lambdas, defaults, *args/**kwargs, recursion, super(), Layer containers, to_static in to_static."""
import functools

import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn as nn

from .harness import Arg, check, check_layer, f32, i64

POS, NEG = f32(3, lo=0.1, hi=1.0), f32(3, lo=-1.0, hi=-0.1)


def _branchy(v):
    if v.mean() > 0:
        return v * 2
    return v * -1


def _branchy_deep(v):
    return _branchy(v) + 1


def call_user_fn(x):
    return _branchy(x) + x


def call_nested_chain(x):
    return _branchy_deep(x) * 2


def _with_default(v, k=3.0, shift=None):
    if shift is not None:
        v = v + shift
    return v * k


def call_default_args(x):
    return _with_default(x) + _with_default(x, 2.0) + _with_default(x, shift=1.0)


def _varargs(*vs, **kw):
    s = vs[0]
    for v in vs[1:]:
        s = s + v
    if kw.get("neg"):
        s = -s
    return s


def call_star_args(x):
    return _varargs(x, x * 2, x * 3) + _varargs(x, neg=True)


def call_splat(x):
    args = (x, x + 1)
    kw = {"neg": True}
    return _varargs(*args, **kw)


def call_closure(x):
    scale = 3.0

    def inner(v):
        if v.mean() > 0:
            return v * scale
        return v / scale
    return inner(x)


def call_nested_def_with_loop(x, n):
    def acc(v, m):
        s = v * 0
        for _ in range(m):
            s = s + v
        return s
    return acc(x, n)


def call_lambda(x):
    f = lambda v: v * 2 + 1  # noqa: E731
    return f(x)


def call_map_lambda(x):
    return paddle.add_n(list(map(lambda k: x * k, [1.0, 2.0, 3.0])))


def lambda_tensor_ternary(x):
    pick = lambda v: v * 2 if v.mean() > 0 else v - 1  # noqa: E731
    return pick(x)


def lambda_logical_and_shape(x):
    ok = lambda v: (v.sum() > 0) and (v.max() < 10)  # noqa: E731
    rows = lambda v: v.shape[0] * 2  # noqa: E731
    return paddle.where(ok(x), x * rows(x), -x)


def lambda_calls_user_function_with_control_flow(x):
    g = lambda v: _branchy(v) + 1  # noqa: E731
    return g(x)


def _branchy(v):
    if v.mean() > 0:
        return v * 3
    return v * -1


def _fact(k):
    if k <= 1:
        return 1
    return k * _fact(k - 1)


def call_recursion_python(x, k):
    return x * _fact(k)


def _tree_sum(v, depth):
    if depth == 0:
        return v
    return _tree_sum(v, depth - 1) + _tree_sum(v * 0.5, depth - 1)


def call_recursion_tensor_args(x):
    return _tree_sum(x, 3)


def call_partial(x):
    f = functools.partial(_with_default, k=5.0)
    return f(x)


class _Helper:
    def __init__(self, k):
        self.k = k

    def scaled(self, v):
        if v.sum() > 0:
            return v * self.k
        return v

    @staticmethod
    def stat(v):
        return v + 100

    @classmethod
    def cls(cls, v):
        return v - 100


_HELPER = _Helper(4.0)


def call_method(x):
    return _HELPER.scaled(x)


def call_static_and_class_method(x):
    return _Helper.stat(x) + _Helper.cls(x)


def call_builtin_funcs(x):
    vals = sorted([3, 1, 2])
    return x * max(vals) + min(vals) + abs(-2) + sum([1, 2])


def call_numpy_on_python(x):
    return x * float(np.sqrt(4.0))


def call_functional_api(x):
    return paddle.nn.functional.relu(x) + paddle.tanh(x) + paddle.exp(x).mean()


@paddle.jit.not_to_static
def _not_converted(v):
    return v * 10


def call_not_to_static(x):
    return _not_converted(x) + 1


def _returns_tuple(v):
    if v.mean() > 0:
        return v, v * 2
    return v * 3, v * 4


def call_unpack_tuple(x):
    a, b = _returns_tuple(x)
    return a + b


def call_kwargs_only(x):
    return _kw_only(x, scale=2.0)


def _kw_only(v, *, scale=1.0):
    return v * scale


CASES = [
    (call_user_fn, [[POS], [NEG]]),
    (call_nested_chain, [[POS], [NEG]]),
    (call_default_args, [[POS]]),
    (call_star_args, [[POS]]),
    (call_splat, [[POS]]),
    (call_closure, [[POS], [NEG]]),
    (call_nested_def_with_loop, [[POS, Arg(i64(0))], [POS, Arg(i64(3))]]),
    (call_lambda, [[POS]]),
    (call_map_lambda, [[POS]]),
    (lambda_tensor_ternary, [[POS], [NEG]]),
    (lambda_logical_and_shape, [[POS], [NEG]]),
    (lambda_calls_user_function_with_control_flow, [[POS], [NEG]]),
    (call_recursion_python, [[POS, 1], [POS, 4]]),
    (call_recursion_tensor_args, [[POS]]),
    (call_partial, [[POS]]),
    (call_method, [[POS], [NEG]]),
    (call_static_and_class_method, [[POS]]),
    (call_builtin_funcs, [[POS]]),
    (call_numpy_on_python, [[POS]]),
    (call_functional_api, [[POS]]),
    (call_not_to_static, [[POS]]),
    (call_unpack_tuple, [[POS], [NEG]]),
    (call_kwargs_only, [[POS]]),
]


@pytest.mark.parametrize("fn,argsets", CASES, ids=[c[0].__name__ for c in CASES])
def test_call(fn, argsets, backend):
    check(fn, argsets, backend)


def test_callee_control_flow_is_staged():
    sf = check(call_user_fn, [[POS], [NEG]])
    assert len(sf.program_cache) == 1
    ops = [op.type for op in sf.concrete_program.main_program.global_block().ops]
    assert "conditional_block" in ops


# -- to_static calling to_static ---------------------------------------------------------------------

@paddle.jit.to_static
def _inner_static(v):
    if v.mean() > 0:
        return v * 2
    return v - 2


def call_to_static_fn(x):
    return _inner_static(x) + 1


def test_to_static_calls_to_static(backend):
    check(call_to_static_fn, [[POS], [NEG]], backend)
    n = len(_inner_static.program_cache)           # the eager oracle run traced it
    out = paddle.jit.to_static(call_to_static_fn)(paddle.to_tensor(f32(5)))
    assert len(_inner_static.program_cache) == n   # inlined into the caller's Program, not traced alone
    np.testing.assert_allclose(out.numpy(), call_to_static_fn(paddle.to_tensor(f32(5))).numpy(), rtol=1e-5)


# -- Layers --------------------------------------------------------------------------------------------

class Base(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        return self.fc(x)


class Derived(Base):
    def forward(self, x):
        h = super().forward(x)
        if h.mean() > 0:
            h = h * 2
        return h + 1


class WithHelperMethod(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def branch(self, h):
        if h.sum() > 0:
            return paddle.tanh(h)
        return h * 0.5

    def forward(self, x):
        return self.branch(self.fc(x))


class Inner(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            return nn.functional.relu(h)
        return h


class Outer(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = Inner()
        self.b = Inner()

    def forward(self, x):
        return self.b(self.a(x)) + x


class ListModel(nn.Layer):
    def __init__(self):
        super().__init__()
        self.layers = nn.LayerList([nn.Linear(3, 3) for _ in range(3)])

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < 2:
                x = paddle.tanh(x)
        return x


class ListIndexModel(nn.Layer):
    def __init__(self):
        super().__init__()
        self.layers = nn.LayerList([nn.Linear(3, 3) for _ in range(2)])

    def forward(self, x):
        return self.layers[0](x) + self.layers[-1](x) + len(self.layers)


class SeqModel(nn.Layer):
    def __init__(self):
        super().__init__()
        self.seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 3))

    def forward(self, x):
        return self.seq(x)


class SeqOfUserLayers(nn.Layer):
    def __init__(self):
        super().__init__()
        self.seq = nn.Sequential(Inner(), Inner())

    def forward(self, x):
        return self.seq(x)


class DictModel(nn.Layer):
    def __init__(self):
        super().__init__()
        self.heads = nn.LayerDict({"a": nn.Linear(3, 2), "b": nn.Linear(3, 2)})

    def forward(self, x, which):
        return self.heads[which](x)


class StaticSub(nn.Layer):
    """A sublayer whose forward is itself decorated with to_static."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    @paddle.jit.to_static
    def forward(self, x):
        h = self.fc(x)
        if h.sum() > 0:
            h = h * 3
        return h


class UsesStaticSub(nn.Layer):
    def __init__(self):
        super().__init__()
        self.sub = StaticSub()

    def forward(self, x):
        return self.sub(x) - 1


X2 = f32(2, 3, seed=5)

LAYERS = [Derived, WithHelperMethod, Outer, ListModel, ListIndexModel, SeqModel, SeqOfUserLayers, UsesStaticSub]


@pytest.mark.parametrize("make", LAYERS, ids=[m.__name__ for m in LAYERS])
def test_layer_calls(make, backend):
    check_layer(make, [[X2], [-X2]], backend)


def test_layer_dict(backend):
    check_layer(DictModel, [[X2, "a"], [X2, "b"]], backend)
