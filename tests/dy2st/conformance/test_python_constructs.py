"""Comprehensions, with, try, generators, globals: plain Python at trace time; yield under a tensor
predicate is refused clearly."""
import contextlib

import numpy as np
import pytest

import dy2st as paddle

from .harness import check, f32

POS = f32(3, lo=0.1, hi=1.0)
SCALE = 1.5
_log = []


def list_comprehension(x):
    parts = [x * k for k in range(3)]
    return paddle.stack(parts)


def dict_comprehension(x):
    d = {k: x + i for i, k in enumerate(("a", "b"))}
    return d["a"] * d["b"]


def generator_expression(x):
    return sum(x * k for k in range(1, 4))


def comprehension_with_if(x):
    return paddle.add_n([x * k for k in range(5) if k % 2 == 0])


def with_no_grad(x):
    with paddle.no_grad():
        c = x * 2
    return x + c


@contextlib.contextmanager
def _tag(name):
    _log.append(name)
    yield name
    _log.append("/" + name)


def with_custom_context(x):
    with _tag("block") as t:
        y = x * len(t)
    return y


def try_except_python(x, d):
    try:
        k = d["k"]
    except KeyError:
        k = 10.0
    return x * k


def try_finally(x):
    try:
        y = x * 2
    finally:
        z = 1.0
    return y + z


def _gen(v, n):
    for k in range(n):
        yield v * k


def calls_generator(x):
    return paddle.add_n(list(_gen(x, 3)))


def reads_global(x):
    return x * SCALE


def string_formatting(x, name):
    key = f"{name}_{x.shape[0]}"
    return x * len(key)


def isinstance_check(x, y):
    if isinstance(y, (int, float)):
        return x + y
    return x * y


def unpacking(x):
    a, *rest = [x, x * 2, x * 3]
    return a + paddle.add_n(rest)


def slicing(x):
    return x[1:] * 2 + x[:-1]


def tensor_setitem(x):
    y = x * 1
    y[0] = 5.0
    return y


def while_python_with_tensor_body(x):
    k = 3
    while k > 0:
        x = x * 1.1
        k -= 1
    return x


CASES = [
    (list_comprehension, [[POS]]),
    (dict_comprehension, [[POS]]),
    (generator_expression, [[POS]]),
    (comprehension_with_if, [[POS]]),
    (with_custom_context, [[POS]]),
    (try_except_python, [[POS, {}], [POS, {"k": 2.0}]]),
    (try_finally, [[POS]]),
    (calls_generator, [[POS]]),
    (reads_global, [[POS]]),
    (string_formatting, [[POS, "ab"]]),
    (isinstance_check, [[POS, 2.0], [POS, POS]]),
    (unpacking, [[POS]]),
    (slicing, [[POS]]),
    (while_python_with_tensor_body, [[POS]]),
]


@pytest.mark.parametrize("fn,argsets", CASES, ids=[c[0].__name__ for c in CASES])
def test_python_construct(fn, argsets, backend):
    check(fn, argsets, backend)


def _yield_under_tensor(x):
    if x.mean() > 0:
        yield x


def calls_tensor_generator(x):
    return list(_yield_under_tensor(x))[0]


def test_yield_under_tensor_predicate_is_refused():
    sf = paddle.jit.to_static(calls_tensor_generator)
    with pytest.raises(TypeError) as info:
        sf(paddle.to_tensor(POS))
    msg = str(info.value)
    assert "yield" in msg and "generator" in msg
    assert "test_python_constructs.py:" in msg


def test_to_static_on_a_generator_with_tensor_if_is_refused():
    sf = paddle.jit.to_static(_yield_under_tensor)
    with pytest.raises(TypeError, match="tensor-dependent if statement at test_python_constructs.py:[0-9]+"):
        list(sf(paddle.to_tensor(POS)))


def _yield_python_loop(x):
    for k in range(3):
        yield x * k
    yield {"sum": x.sum()}


def test_to_static_on_a_generator_yields_every_value():
    """The generator runs to its end at trace time; each call returns an iterator over the values."""
    sf = paddle.jit.to_static(_yield_python_loop)
    for scale in (1.0, 2.0):
        x = paddle.to_tensor(POS * scale)
        got, want = sf(x), _yield_python_loop(x)
        assert iter(got) is got
        got, want = list(got), list(want)
        assert len(got) == len(want) == 4
        for g, w in zip(got[:3], want[:3]):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)
        np.testing.assert_allclose(got[3]["sum"].numpy(), want[3]["sum"].numpy(), rtol=1e-6)
    assert len(sf.program_cache) == 1


def test_with_no_grad_gradient():
    check(with_no_grad, [[POS]])


def test_with_no_grad_forward(backend):
    check(with_no_grad, [[POS]], backend, grad=False)


def test_tensor_setitem(backend):
    check(tensor_setitem, [[POS]], backend)


def test_first_call_under_no_grad_does_not_cut_later_training_calls():
    """The Program is traced with gradients on whatever the caller's mode; a later call that needs
    gradients (same shapes: the cached Program) still gets them."""
    sf = paddle.jit.to_static(with_no_grad)
    with paddle.no_grad():
        first = sf(paddle.to_tensor(POS, stop_gradient=False))
    assert first._node is None      # nothing recorded (its flag is the traced Variable's, as in Paddle)
    x = paddle.to_tensor(POS, stop_gradient=False)
    sf(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones_like(POS), rtol=1e-6)   # c = x * 2 is cut
    assert len(sf.program_cache) == 1
