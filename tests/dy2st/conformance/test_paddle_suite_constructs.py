"""Constructs from Paddle's own dy2st test suite that failed here (issue 14): eager vs converted.

Each case is our own function exercising one construct the measurement found: in-place
``paddle.increment`` on a traced Variable, a Python number that a tensor loop turns into a tensor
of another rank, a multi-element condition on a branch that does not run, lists appended in both
branches with items of different ranks, tensor-array slices, ``Tensor.item()`` and ``complex()``,
``paddle.grad`` inside a saved function, and the error types Paddle's tests expect.
"""
import os

import numpy as np
import pytest

import dy2st as paddle
from dy2st.errors import Dy2StaticError, ReturnStructureError

from .harness import Arg, check, f32


# -- in-place increment of a traced Variable ---------------------------------------------------------

def increment_in_python_loop(x):
    for _ in range(3):
        ret = paddle.zeros([1])
        paddle.increment(ret, value=2.0)
    return x * ret


def increment_counter(x):
    c = paddle.zeros([1])
    y = x * 1
    for _ in range(3):
        paddle.increment(c, value=1.5)
        y = y + c
    return y, c


# -- a Python number a tensor loop turns into a tensor of another rank -------------------------------

def number_becomes_rank1_tensor(x):
    class Box:
        pass
    box = Box()
    box.a, box.c = 3, 5
    i = paddle.zeros([1], "int64")
    while i < 10:
        b = x[:1] * 0
        box.c = b + box.a
        i += 1
        if box.c.sum() > 6:
            break
    return box.c


def number_accumulates_2d(x):
    s = 0
    i = paddle.zeros([1], "int64")
    while i < 4:
        s = s + x * i.astype("float32")
        i += 1
    return s


# -- a condition with many elements on a branch that does not run ------------------------------------

def many_element_pred_untaken(x):
    if x.mean() < -10:
        if x[0] > 0:        # x[0] has several elements: an error only if this branch runs
            x = x + 1
    return x * 2


def many_element_pred_taken(x):
    if x[0] > 0:
        x = x + 1
    return x * 2


# -- lists appended in both branches with items of different ranks -----------------------------------

def list_items_of_different_rank(x):
    a = []
    if x.sum() > 0:
        a.append(x * 2)
    else:
        a.append(paddle.full([1, 2], 9.0))
    return a[0]


# -- slices of a list built in a tensor loop (a tensor array) ----------------------------------------

def tensor_array_slices(x):
    a = []
    for i in range(paddle.to_tensor(4)):
        a.append(x * (i + 1))
    mid = a[1:3]
    tail = a[-2:]
    return mid[0] + tail[1], a[2]


# -- Tensor.item(), complex() ------------------------------------------------------------------------

def range_of_item(x, n):
    z = paddle.zeros([1], "int32")
    for i in range(n.numpy().item()):
        z = z + i
    return z, x * 2


def item_at_offset(x):
    return x.item(1) * 3


def complex_of_tensor(x):
    return complex(x)


def increment_in_tensor_while(x, n):
    i = paddle.zeros([1])
    s = x * 0
    while i < n:
        paddle.increment(i)
        s = s + x * i
    return i, s


def increment_in_tensor_if(x):
    c = paddle.zeros([1])
    if x.mean() > 0:
        paddle.increment(c, value=3.0)
    return c * x


CASES = [
    (increment_in_python_loop, [[f32(3)]]),
    (increment_in_tensor_while, [[f32(2), Arg(np.array([4.0], "float32"), grad=False)],
                                 [f32(2), Arg(np.array([0.0], "float32"), grad=False)]]),
    (increment_in_tensor_if, [[f32(3, lo=0.1, hi=1.0)], [f32(3, lo=-1.0, hi=-0.1)]]),
    (increment_counter, [[f32(2)]]),
    (number_becomes_rank1_tensor, [[f32(3)]]),
    (number_accumulates_2d, [[f32(2, 3)]]),
    (many_element_pred_untaken, [[f32(2, 3)]]),
    (list_items_of_different_rank, [[f32(3, lo=0.1, hi=1.0)], [f32(3, lo=-1.0, hi=-0.1)]]),
    (tensor_array_slices, [[f32(2)]]),
    (range_of_item, [[f32(2), Arg(np.array([5], "int32"))]]),
    (item_at_offset, [[f32(3)]]),
]


@pytest.mark.parametrize("fn,argsets", CASES, ids=[c[0].__name__ for c in CASES])
def test_construct(fn, argsets, backend):
    check(fn, argsets, backend)


def test_complex_cast_gives_complex64():
    x = f32(2, 3)
    out = paddle.jit.to_static(complex_of_tensor)(paddle.to_tensor(x))
    assert out.dtype == paddle.complex64
    np.testing.assert_array_equal(out.numpy(), x.astype("complex64"))


def test_many_element_pred_fails_when_it_runs():
    x = paddle.to_tensor(f32(2, 3))
    with pytest.raises(ValueError, match="ambiguous"):
        many_element_pred_taken(x)
    with pytest.raises(ValueError, match=r"condition of the if at .* shape \[3\].*exactly one element"):
        paddle.jit.to_static(many_element_pred_taken)(x)


def test_item_of_many_elements_is_refused():
    def f(x):
        return x.item()
    with pytest.raises(ValueError, match="only one element tensors"):
        paddle.jit.to_static(f)(paddle.to_tensor(f32(3)))


# -- errors of the types Paddle's tests expect --------------------------------------------------------

def returns_two_or_one(x):
    if x.mean() > 0:
        return x, x + 1
    return x


def returns_tensor_or_str(x):
    if x.mean() > 0:
        return "unsupported"
    return x


def uses_branch_local(x):
    if x.mean() > 0:
        y = x + 1
    else:
        tmp = x + 2
        y = tmp * 2
    return tmp + y


def test_return_structure_mismatch_error():
    with pytest.raises(ReturnStructureError, match="Your if/else have different number of return value") as e:
        paddle.jit.to_static(returns_two_or_one)(paddle.to_tensor(f32(3)))
    assert isinstance(e.value, Dy2StaticError) and isinstance(e.value, ValueError)
    with pytest.raises(Dy2StaticError, match="can only return tensors"):
        paddle.jit.to_static(returns_tensor_or_str)(paddle.to_tensor(f32(3)))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_undefined_after_if_is_type_and_name_error(sign):
    x = paddle.to_tensor(np.full([2], sign, "float32"))
    sf = paddle.jit.to_static(uses_branch_local)
    with pytest.raises(TypeError, match="'tmp'") as e:
        sf(x)
    assert isinstance(e.value, UnboundLocalError)


# -- not_to_static on a bound method --------------------------------------------------------------------

class _Helper(paddle.nn.Layer):
    def total(self, x):
        if x.shape[0] > 1:
            x = x + 1
        return paddle.sum(x)


def test_not_to_static_bound_method_keeps_source():
    net = _Helper()
    paddle.jit.not_to_static(net.total)
    sf = paddle.jit.to_static(net.total)
    assert "if x.shape[0] > 1" in sf.code
    x = paddle.to_tensor(f32(3))
    np.testing.assert_allclose(sf(x).numpy(), net.total(x).numpy(), rtol=1e-6)


# -- paddle.grad inside a function that is saved ------------------------------------------------------

class _GradNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear = paddle.nn.Linear(4, 4, bias_attr=False)

    def forward(self, x):
        x.stop_gradient = False
        y = self.linear(self.linear(x * 2))
        return paddle.grad([y], [x], create_graph=True)[0]


def test_grad_in_saved_function(tmp_path):
    paddle.seed(3)
    net = _GradNet()
    x = paddle.to_tensor(f32(2, 4))
    eager = net(x).numpy()
    sf = paddle.jit.to_static(net)
    np.testing.assert_allclose(sf(x).numpy(), eager, rtol=1e-5)
    path = os.path.join(str(tmp_path), "grad_net")
    paddle.jit.save(sf, path, input_spec=[paddle.static.InputSpec([2, 4], "float32", "x")])
    loaded = paddle.jit.load(path)
    np.testing.assert_allclose(loaded(x).numpy(), eager, rtol=1e-5)


# -- a function that defines its own ``super`` --------------------------------------------------------

class _Base(paddle.nn.Layer):
    def add_one(self, x):
        return x + 1


class _LocalSuper(_Base):
    def forward(self, x):
        def super():
            class A:
                def add_one(self, x):
                    return x + 10
            return A()
        return super().add_one(x)


class _BuiltinSuper(_Base):
    def forward(self, x):
        if x.mean() > 0:
            return super().add_one(x)
        return x


@pytest.mark.parametrize("cls", [_LocalSuper, _BuiltinSuper])
def test_super_calls(cls):
    net = cls()
    for v in (1.0, -1.0):
        x = paddle.to_tensor(np.full([2], v, "float32"))
        np.testing.assert_allclose(paddle.jit.to_static(net)(x).numpy(), net(x).numpy())


def pad_by_tensor(x, p):
    # F.pad whose pad is a tensor input: pad3d with its Paddings tensor inside the Program (Paddle's form)
    a = paddle.nn.functional.pad(x, p, mode="reflect")
    b = paddle.nn.functional.pad(x, p, mode="constant", value=1.5)
    return a * 2.0 + b


def test_pad_with_a_tensor_pad(backend):
    x4 = np.arange(2 * 3 * 4 * 5, dtype="float32").reshape(2, 3, 4, 5) / 10.0
    check(pad_by_tensor, [[x4, np.array([1, 2, 0, 1], "int64")], [x4, np.array([0, 3, 2, 2], "int32")]], backend)


def pad_all_dims_by_tensor(x, p):
    return paddle.nn.functional.pad(x, p)


def test_pad_all_dims_with_a_tensor_pad(backend):
    # constant padding of any dims by a tensor: concat / fill_constant ops inside the Program
    x2 = np.arange(6, dtype="float32").reshape(2, 3)
    check(pad_all_dims_by_tensor, [[x2, np.array([1, 1, 0, 2], "int64")], [x2, np.array([0, 2, 3, 0], "int32")]],
          backend)
