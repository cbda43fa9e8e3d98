"""to_tensor, zeros/ones/full(_like), empty(_like), arange, linspace, eye, assign, clone, tril/triu,
diag, meshgrid."""
import numpy as np
import pytest

import runtime as paddle


def test_to_tensor_dtype_rules():
    assert paddle.to_tensor(1.5).dtype == paddle.float32 and paddle.to_tensor(1.5).shape == []
    assert paddle.to_tensor(3).dtype == paddle.int64
    assert paddle.to_tensor([1, 2.5]).dtype == paddle.float32
    assert paddle.to_tensor([True]).dtype == paddle.bool
    assert paddle.to_tensor(np.array([1.0])).dtype == paddle.float64          # numpy dtype is kept
    assert paddle.to_tensor(np.array([1], np.int32)).dtype == paddle.int32
    assert paddle.to_tensor(np.float64(2.0)).dtype == paddle.float64
    assert paddle.to_tensor([1 + 2j]).dtype == paddle.complex64
    assert paddle.to_tensor([1, 2], dtype="float64").dtype == paddle.float64
    assert paddle.to_tensor([]).shape == [0] and paddle.to_tensor([]).dtype == paddle.float32


def test_to_tensor_copies_and_stop_gradient():
    arr = np.array([1.0, 2.0])
    t = paddle.to_tensor(arr)
    arr[0] = 9.0
    assert t.tolist() == [1.0, 2.0]
    src = paddle.to_tensor([1.0], stop_gradient=False)
    c = paddle.to_tensor(src)
    assert c.stop_gradient and c.tolist() == [1.0]
    c._data[0] = 5.0
    assert src.tolist() == [1.0]
    assert not paddle.to_tensor([1.0], stop_gradient=False).stop_gradient


def test_to_tensor_nested_tensors_and_errors():
    t = paddle.to_tensor([paddle.to_tensor(1.0), paddle.to_tensor(2.0)])
    assert t.shape == [2] and t.dtype == paddle.float32
    assert paddle.to_tensor([paddle.to_tensor([1.0]), paddle.to_tensor([2.0])]).shape == [2, 1]
    with pytest.raises(TypeError, match="string"):
        paddle.to_tensor("abc")
    with pytest.raises(TypeError, match="None"):
        paddle.to_tensor(None)


@pytest.mark.parametrize("shape", [[2, 3], (2,), 3, [], [np.int64(2), 1]])
def test_zeros_ones_shapes(shape):
    expect = [shape] if isinstance(shape, int) else [int(d) for d in shape]
    z = paddle.zeros(shape)
    assert z.shape == expect and z.dtype == paddle.float32 and not z.numpy().any()
    o = paddle.ones(shape, dtype="int32")
    assert o.dtype == paddle.int32 and (o.numpy() == 1).all()


def test_shape_given_as_tensors():
    assert paddle.zeros(paddle.to_tensor([2, 3])).shape == [2, 3]
    assert paddle.ones([paddle.to_tensor(2), 3]).shape == [2, 3]


def test_shape_errors():
    with pytest.raises(ValueError, match="negative dimension"):
        paddle.zeros([2, -1])
    with pytest.raises(TypeError, match="shape entries must be ints"):
        paddle.zeros([2.0])
    with pytest.raises(TypeError, match="shape must be a list"):
        paddle.ones("3")


def test_full():
    assert paddle.full([2], 3).dtype == paddle.float32          # default float even for an int value
    assert paddle.full([2], True).dtype == paddle.bool
    assert paddle.full([2], 3.7, dtype="int64").tolist() == [3, 3]
    big = 2 ** 40 + 1
    assert paddle.full([1], big, dtype="int64").tolist() == [big]     # str_value keeps precision
    assert paddle.full([2], paddle.to_tensor(2.0)).tolist() == [2.0, 2.0]
    assert paddle.full([], 1.5).shape == []


def test_like_functions():
    xi = paddle.to_tensor([[1, 2, 3]])
    f = paddle.full_like(xi, 2.5)
    assert f.dtype == paddle.int64 and f.tolist() == [[2, 2, 2]]
    assert paddle.full_like(xi, 2.5, dtype="float32").tolist() == [[2.5, 2.5, 2.5]]
    assert paddle.zeros_like(xi, dtype="int32").dtype == paddle.int32
    assert paddle.ones_like(xi).tolist() == [[1, 1, 1]]
    assert paddle.empty([2, 2]).shape == [2, 2] and paddle.empty_like(xi).dtype == paddle.int64


def test_arange():
    a = paddle.arange(5)
    assert a.dtype == paddle.int64 and a.tolist() == list(range(5))
    assert paddle.arange(5, 0, -2).tolist() == [5, 3, 1]
    f = paddle.arange(0, 1, 0.25)
    assert f.dtype == paddle.float32 and f.tolist() == [0.0, 0.25, 0.5, 0.75]
    assert paddle.arange(0, 5, 2.0).dtype == paddle.float32
    assert paddle.arange(5, dtype="float64").dtype == paddle.float64
    assert paddle.arange(paddle.to_tensor(3)).tolist() == [0, 1, 2]
    assert paddle.arange(2, 2).shape == [0]
    # Paddle accumulates the step in float32: these are real Paddle 3.3.1 values
    assert paddle.arange(0, 1, 0.1).numpy().tolist() == np.array(
        [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.70000005, 0.8000001, 0.9000001], np.float32).tolist()
    with pytest.raises(ValueError, match="step must not be 0"):
        paddle.arange(0, 3, 0)


def test_linspace():
    out = paddle.linspace(0, 1, 5)
    assert out.dtype == paddle.float32 and out.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert paddle.linspace(0, 10, 5, dtype="int32").tolist() == [0, 2, 5, 7, 10]
    assert paddle.linspace(3, 9, 1).tolist() == [3.0]
    np.testing.assert_allclose(paddle.linspace(-1, 2, 7, dtype="float64").numpy(), np.linspace(-1, 2, 7))
    with pytest.raises(ValueError, match="num must be a positive integer"):
        paddle.linspace(0, 1, 0)


def test_eye():
    e = paddle.eye(2, 3)
    assert e.dtype == paddle.float32 and e.tolist() == np.eye(2, 3).tolist()
    assert paddle.eye(3, dtype="int32").tolist() == np.eye(3, dtype=np.int32).tolist()
    with pytest.raises(ValueError, match="non-negative"):
        paddle.eye(-1)


def test_assign_and_clone():
    a = paddle.assign(np.array([1.0, 2.0]))
    assert a.dtype == paddle.float64 and a.tolist() == [1.0, 2.0]
    assert paddle.assign([1, 2]).dtype == paddle.int64
    s = paddle.assign(1.5)
    assert s.shape == [1] and s.dtype == paddle.float64
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = paddle.assign(x)
    assert not y.stop_gradient
    (y * paddle.to_tensor([3.0, 4.0])).sum().backward()
    assert x.grad.tolist() == [3.0, 4.0]
    out = paddle.zeros([2])
    r = paddle.assign(paddle.to_tensor([5.0, 6.0]), output=out)
    assert r is out and out.tolist() == [5.0, 6.0]
    # like Paddle, output takes x's shape and dtype, and gradients flow through it
    out = paddle.zeros([2])
    paddle.assign(paddle.to_tensor([[1, 2, 3]]), output=out)
    assert out.shape == [1, 3] and out.dtype == paddle.int64
    src = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    paddle.assign(src, output=out)
    assert not out.stop_gradient
    out.sum().backward()
    assert src.grad.tolist() == [1.0, 1.0, 1.0]
    c = paddle.clone(x)
    c._data[0] = 7.0
    assert x.tolist() == [1.0, 2.0] and not c.stop_gradient


def test_tril_triu_diag():
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = paddle.to_tensor(m)
    for d in (-1, 0, 2):
        np.testing.assert_array_equal(paddle.tril(t, d).numpy(), np.tril(m, d))
        np.testing.assert_array_equal(t.triu(d).numpy(), np.triu(m, d))
    np.testing.assert_array_equal(paddle.diag(t, 1).numpy(), np.diag(m, 1))
    v = paddle.to_tensor([1.0, 2.0])
    np.testing.assert_array_equal(paddle.diag(v, -1).numpy(), np.diag([1.0, 2.0], -1))
    padded = paddle.diag(v, padding_value=7).numpy()
    assert padded.tolist() == [[1.0, 7.0], [7.0, 2.0]]
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        paddle.tril(v)


@pytest.mark.skipif(not {"reshape2", "expand_v2"} <= set(paddle.ops.registry.all_ops()),
                    reason="reshape2/expand_v2 not registered yet")
def test_meshgrid():
    a, b = paddle.meshgrid(paddle.arange(2), paddle.arange(3))
    ea, eb = np.meshgrid(np.arange(2), np.arange(3), indexing="ij")
    assert a.tolist() == ea.tolist() and b.tolist() == eb.tolist()
    assert [o.shape for o in paddle.meshgrid([paddle.arange(2), paddle.arange(3), paddle.arange(4)])] == [[2, 3, 4]] * 3
