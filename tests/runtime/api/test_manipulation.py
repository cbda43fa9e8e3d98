"""Public shape-manipulation and gathering API (runtime/api/manipulation.py) against numpy,
with behaviour checked against real Paddle 3.3 (0-D results, -1 sections, ignored squeeze axes ...)."""
import numpy as np
import pytest

import runtime as paddle

rng = np.random.default_rng(3)


def T(a, stop_gradient=True):
    return paddle.to_tensor(np.asarray(a), stop_gradient=stop_gradient)


def A(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def grad_of(x, y, w=None):
    """d(sum(w * y)) / dx, with w random when not given; returns (grad, w)."""
    w = rng.standard_normal(y.shape).astype(y.numpy().dtype) if w is None else w
    (y * T(w)).sum().backward()
    return x.grad.numpy(), w


# -- cast / reshape / transpose / flatten / squeeze ---------------------------------------------------

def test_cast_and_astype():
    x = T([1.7, -1.7, 0.0])
    y = paddle.cast(x, "int32")
    assert y.dtype == paddle.int32 and y.numpy().tolist() == [1, -1, 0]
    assert x.astype("bool").numpy().tolist() == [True, True, False]
    assert x.cast(paddle.float64).dtype == paddle.float64


def test_cast_grad_flows_back_in_input_dtype():
    x = T(A(2, 3), stop_gradient=False)
    y = x.astype("float64")
    g, w = grad_of(x, y)
    assert x.grad.dtype == paddle.float32
    np.testing.assert_allclose(g, w.astype(np.float32))


def test_reshape_copy_infer_and_tensor_shapes():
    a = A(2, 3, 4)
    x = T(a)
    np.testing.assert_array_equal(paddle.reshape(x, [0, -1]).numpy(), a.reshape(2, 12))
    np.testing.assert_array_equal(x.reshape((4, 6)).numpy(), a.reshape(4, 6))
    assert paddle.reshape(x, T(np.array([6, 4]))).shape == [6, 4]
    assert paddle.reshape(x, [T(np.array(3)), 8]).shape == [3, 8]
    assert paddle.reshape(x, 24).shape == [24]
    assert paddle.reshape(T(np.array([5.0])), []).shape == []


def test_reshape_errors():
    x = paddle.zeros([2, 3])
    with pytest.raises(ValueError, match=r"shape \[4, 2\] has 8 elements but x has 6"):
        paddle.reshape(x, [4, 2])
    with pytest.raises(ValueError, match="only one -1"):
        paddle.reshape(x, [-1, -1])
    with pytest.raises(ValueError, match="not a multiple of 4"):
        paddle.reshape(x, [4, -1])
    with pytest.raises(TypeError, match="shape entries must be ints"):
        paddle.reshape(x, [2.0, 3])


def test_reshape_grad():
    x = T(A(2, 6), stop_gradient=False)
    g, w = grad_of(x, paddle.reshape(x, [3, 4]))
    np.testing.assert_allclose(g, w.reshape(2, 6))


def test_reshape_inplace():
    x = paddle.zeros([2, 3])
    r = x.reshape_([3, 2])
    assert r is x and x.shape == [3, 2]
    p = paddle.zeros([2, 3])
    p.stop_gradient = False
    with pytest.raises(ValueError, match="inplace"):
        p.reshape_([6])


def test_transpose_moveaxis():
    a = A(2, 3, 4)
    x = T(a)
    np.testing.assert_array_equal(paddle.transpose(x, [2, 0, 1]).numpy(), a.transpose(2, 0, 1))
    np.testing.assert_array_equal(x.transpose([-1, 0, 1]).numpy(), a.transpose(2, 0, 1))
    np.testing.assert_array_equal(paddle.moveaxis(x, 0, -1).numpy(), np.moveaxis(a, 0, -1))
    np.testing.assert_array_equal(paddle.moveaxis(x, [0, 1], [2, 0]).numpy(), np.moveaxis(a, [0, 1], [2, 0]))
    with pytest.raises(ValueError, match="exactly once"):
        paddle.transpose(x, [1, 1, 0])
    with pytest.raises(ValueError, match="must have 3 entries"):
        paddle.transpose(x, [1, 0])
    xg = T(a, stop_gradient=False)
    g, w = grad_of(xg, paddle.transpose(xg, [1, 2, 0]))
    np.testing.assert_allclose(g, w.transpose(2, 0, 1))


def test_flatten():
    a = A(2, 3, 4)
    assert paddle.flatten(T(a)).shape == [24]
    np.testing.assert_array_equal(T(a).flatten(1).numpy(), a.reshape(2, 12))
    np.testing.assert_array_equal(paddle.flatten(T(a), 0, 1).numpy(), a.reshape(6, 4))
    assert paddle.flatten(T(np.float32(3.0))).shape == [1]
    with pytest.raises(ValueError, match="stop_axis"):
        paddle.flatten(T(a), 2, 1)


def test_squeeze_unsqueeze():
    x = paddle.zeros([1, 3, 1])
    assert paddle.squeeze(x).shape == [3]
    assert paddle.squeeze(x, axis=[0, 1]).shape == [3, 1]      # size-3 axis 1 is ignored, as in Paddle
    assert x.squeeze(-1).shape == [1, 3]
    assert paddle.squeeze(T(np.float32(2.0))).shape == []
    with pytest.raises(ValueError, match="out of range"):
        paddle.squeeze(x, 5)
    z = paddle.zeros([2, 3])
    assert paddle.unsqueeze(z, [0, -1]).shape == [1, 2, 3, 1]
    assert paddle.unsqueeze(z, [2, 0]).shape == [1, 2, 3, 1]
    assert paddle.unsqueeze(z, [-1, -1]).shape == [2, 3, 1, 1]
    assert z.unsqueeze(T(np.array([1]))).shape == [2, 1, 3]
    assert paddle.unsqueeze(T(np.float32(1.0)), 0).shape == [1]
    with pytest.raises(ValueError, match="out of range"):
        paddle.unsqueeze(z, 5)


# -- concat / split / stack ---------------------------------------------------------------------------

def test_concat():
    a, b = A(2, 3), A(2, 1)
    np.testing.assert_array_equal(paddle.concat([T(a), T(b)], axis=1).numpy(), np.concatenate([a, b], 1))
    np.testing.assert_array_equal(paddle.concat((T(a), T(a)), axis=T(np.array(-2))).numpy(),
                                  np.concatenate([a, a], 0))
    with pytest.raises(ValueError, match="dimension 0"):
        paddle.concat([T(a), T(A(3, 3))], axis=1)
    with pytest.raises(ValueError, match="share one dtype"):
        paddle.concat([T(a), T(a.astype(np.float64))])
    with pytest.raises(TypeError, match="list or tuple"):
        paddle.concat(T(a))


def test_concat_grad_reaches_each_input():
    x = T(A(2, 3), stop_gradient=False)
    y = T(A(2, 2), stop_gradient=False)
    c = T(A(2, 1))          # a constant in the middle gets no gradient
    out = paddle.concat([x, c, y], axis=1)
    w = A(2, 6)
    (out * T(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), w[:, :3])
    np.testing.assert_allclose(y.grad.numpy(), w[:, 4:])
    assert c.grad is None


def test_split_num_sections_and_infer():
    a = A(2, 6)
    parts = paddle.split(T(a), 3, axis=1)
    assert isinstance(parts, list) and [p.shape for p in parts] == [[2, 2]] * 3
    parts = paddle.split(T(a), [1, -1, 2], axis=-1)
    assert [p.shape for p in parts] == [[2, 1], [2, 3], [2, 2]]
    np.testing.assert_array_equal(parts[1].numpy(), a[:, 1:4])
    parts = T(a).split([T(np.array(4)), 2], axis=T(np.array(1)))
    assert [p.shape for p in parts] == [[2, 4], [2, 2]]
    with pytest.raises(ValueError, match="not divisible"):
        paddle.split(T(a), 4, axis=1)
    with pytest.raises(ValueError, match="add up to 5"):
        paddle.split(T(a), [2, 3], axis=1)
    with pytest.raises(ValueError, match="only one -1"):
        paddle.split(T(a), [-1, -1], axis=1)


def test_split_grad_with_unused_piece():
    x = T(A(4, 3), stop_gradient=False)
    first, _second = paddle.split(x, [1, 3])
    g, w = grad_of(x, first)
    expected = np.zeros((4, 3), np.float32)
    expected[:1] = w
    np.testing.assert_allclose(g, expected)


def test_chunk():
    parts = paddle.chunk(paddle.zeros([2, 6]), 3, axis=1)
    assert [p.shape for p in parts] == [[2, 2]] * 3
    with pytest.raises(ValueError, match="not divisible"):
        paddle.zeros([2, 3]).chunk(2, axis=1)


def test_stack_unstack_unbind():
    a, b = A(2, 3), A(2, 3)
    np.testing.assert_array_equal(paddle.stack([T(a), T(b)], axis=-1).numpy(), np.stack([a, b], -1))
    assert paddle.stack([T(np.float32(1.0)), T(np.float32(2.0))]).shape == [2]
    with pytest.raises(ValueError, match="same shape"):
        paddle.stack([T(a), T(A(3, 2))])
    parts = paddle.unstack(T(a), axis=1)
    assert len(parts) == 3 and parts[2].shape == [2]
    np.testing.assert_array_equal(parts[2].numpy(), a[:, 2])
    assert [p.shape for p in paddle.unbind(T(a))] == [[3], [3]]
    assert len(T(a).unbind(-1)) == 3


def test_stack_unstack_grads():
    x = T(A(2, 3), stop_gradient=False)
    y = T(A(2, 3), stop_gradient=False)
    s = paddle.stack([x, y], axis=1)
    w = A(2, 2, 3)
    (s * T(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), w[:, 0])
    np.testing.assert_allclose(y.grad.numpy(), w[:, 1])
    z = T(A(3, 2), stop_gradient=False)
    parts = paddle.unstack(z)
    (parts[1] * 3.0).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), [[0, 0], [3, 3], [0, 0]])


# -- slice / strided_slice ----------------------------------------------------------------------------

def test_slice_and_strided_slice():
    a = A(3, 4, 5)
    x = T(a)
    np.testing.assert_array_equal(paddle.slice(x, [0, 2], [1, -3], [3, -1]).numpy(), a[1:3, :, -3:-1])
    np.testing.assert_array_equal(paddle.slice(x, [1], [T(np.array(1))], [100]).numpy(), a[:, 1:])
    np.testing.assert_array_equal(paddle.strided_slice(x, [0, 2], [-1, 0], [-100, 5], [-1, 2]).numpy(),
                                  a[::-1, :, 0:5:2])
    with pytest.raises(ValueError, match="one entry per axis"):
        paddle.slice(x, [0, 1], [0], [1, 2])
    with pytest.raises(ValueError, match="must not contain 0"):
        paddle.strided_slice(x, [0], [0], [2], [0])


def test_slice_grad():
    x = T(A(3, 4), stop_gradient=False)
    g, w = grad_of(x, paddle.strided_slice(x, [1], [3], [0], [-2]))
    expected = np.zeros((3, 4), np.float32)
    expected[:, 3:0:-2] = w
    np.testing.assert_allclose(g, expected)


# -- tile / expand / broadcast ------------------------------------------------------------------------

def test_tile_expand_broadcast():
    a = A(2, 3)
    np.testing.assert_array_equal(paddle.tile(T(a), [2, 1, 2]).numpy(), np.tile(a, [2, 1, 2]))
    np.testing.assert_array_equal(T(a).tile([2]).numpy(), np.tile(a, 2))
    b = A(3, 1)
    np.testing.assert_array_equal(paddle.expand(T(b), [2, -1, 4]).numpy(), np.broadcast_to(b, (2, 3, 4)))
    assert paddle.broadcast_to(T(b), [3, 5]).shape == [3, 5]
    assert paddle.expand_as(T(b), paddle.zeros([4, 3, 2])).shape == [4, 3, 2]
    assert paddle.broadcast_shape([2, 1], [3]) == [2, 3]
    u, v = paddle.broadcast_tensors([T(b), T(A(2, 1, 4))])
    assert u.shape == v.shape == [2, 3, 4]
    with pytest.raises(ValueError, match="cannot be expanded to 4"):
        paddle.expand(T(a), [2, 4])
    with pytest.raises(ValueError, match="fewer than x's rank"):
        paddle.expand(T(a), [3])
    with pytest.raises(ValueError, match="negative"):
        paddle.tile(T(a), [-1, 1])


def test_tile_expand_grads():
    x = T(A(2, 1), stop_gradient=False)
    g, w = grad_of(x, paddle.expand(x, [3, 2, 4]))
    np.testing.assert_allclose(g, w.sum(axis=(0, 2)).reshape(2, 1), rtol=1e-5)
    x = T(A(2, 3), stop_gradient=False)
    g, w = grad_of(x, paddle.tile(x, [2, 2]))
    np.testing.assert_allclose(g, w[:2, :3] + w[2:, :3] + w[:2, 3:] + w[2:, 3:], rtol=1e-5)


# -- flip / roll / repeat_interleave ------------------------------------------------------------------

def test_flip_roll():
    a = A(2, 3)
    np.testing.assert_array_equal(paddle.flip(T(a), 0).numpy(), a[::-1])
    np.testing.assert_array_equal(T(a).flip([-1, 0]).numpy(), a[::-1, ::-1])
    np.testing.assert_array_equal(paddle.roll(T(a), 2).numpy(), np.roll(a, 2))
    np.testing.assert_array_equal(paddle.roll(T(a), [1, -1], [0, 1]).numpy(), np.roll(a, [1, -1], [0, 1]))
    with pytest.raises(ValueError, match="same length"):
        paddle.roll(T(a), [1, 2], axis=0)
    x = T(a, stop_gradient=False)
    g, w = grad_of(x, paddle.roll(x, 1, axis=1))
    np.testing.assert_allclose(g, np.roll(w, -1, axis=1))


def test_repeat_interleave():
    a = A(2, 3)
    np.testing.assert_array_equal(paddle.repeat_interleave(T(a), 2, axis=1).numpy(), np.repeat(a, 2, axis=1))
    np.testing.assert_array_equal(paddle.repeat_interleave(T(a), 2).numpy(), np.repeat(a, 2))
    np.testing.assert_array_equal(paddle.repeat_interleave(T(a), T(np.array([1, 2])), axis=0).numpy(),
                                  np.repeat(a, [1, 2], axis=0))


# -- shape / numel ------------------------------------------------------------------------------------

def test_shape_numel():
    x = paddle.zeros([2, 3, 4])
    s = paddle.shape(x)
    assert s.dtype == paddle.int64 and s.numpy().tolist() == [2, 3, 4]   # Paddle 3.x: int64 (legacy op int32 + cast)
    n = paddle.numel(x)
    assert n.shape == [] and n.dtype == paddle.int64 and int(n) == 24


# -- gather / index_select / where / masked_select ----------------------------------------------------

def test_gather_family():
    a = A(3, 4)
    x = T(a)
    np.testing.assert_array_equal(paddle.gather(x, T(np.array([2, 0]))).numpy(), a[[2, 0]])
    np.testing.assert_array_equal(x.gather([1, -1], axis=1).numpy(), a[:, [1, -1]])
    assert paddle.gather(x, T(np.array(1)), axis=1).shape == [3]
    np.testing.assert_array_equal(paddle.index_select(x, T(np.array([3, 3])), axis=-1).numpy(), a[:, [3, 3]])
    np.testing.assert_array_equal(paddle.gather_nd(x, T(np.array([[0, 1], [2, 3]]))).numpy(), a[[0, 2], [1, 3]])
    np.testing.assert_array_equal(paddle.gather_nd(x, T(np.array([[2], [0]]))).numpy(), a[[2, 0]])
    with pytest.raises(TypeError, match="int32 or int64"):
        paddle.gather(x, T(np.array([1.0])))
    with pytest.raises(ValueError, match=r"\[N, 1\]"):
        paddle.gather(x, T(np.array([[1, 0]])))
    with pytest.raises(IndexError, match="out of bounds"):
        paddle.gather(x, T(np.array([5])))


def test_gather_grad_accumulates_repeats():
    x = T(A(3, 2), stop_gradient=False)
    g, w = grad_of(x, paddle.gather(x, T(np.array([1, 1, 0]))))
    np.testing.assert_allclose(g, np.stack([w[2], w[0] + w[1], np.zeros(2)]), rtol=1e-6)


def test_where():
    a, b = A(2, 3), A(2, 3)
    c = a > 0
    np.testing.assert_array_equal(paddle.where(T(c), T(a), T(b)).numpy(), np.where(c, a, b))
    out = paddle.where(T(c), T(a), 1.0)
    assert out.dtype == paddle.float32
    np.testing.assert_array_equal(out.numpy(), np.where(c, a, np.float32(1.0)))
    assert paddle.where(T(c), 1, 2).dtype == paddle.int64
    assert paddle.where(T(c), 1.0, 2.0).dtype == paddle.float32
    assert paddle.where(T(c), T(A(3)), T(A(2, 1))).shape == [2, 3]
    assert paddle.where(T(c), T(a), T(b.astype(np.float64))).dtype == paddle.float64
    idx = paddle.where(T(np.array([[True, False], [False, True]])))
    assert [t.numpy().ravel().tolist() for t in idx] == [[0, 1], [0, 1]]
    with pytest.raises(ValueError, match="bool"):
        paddle.where(T(a), T(a), T(b))
    with pytest.raises(ValueError, match="both"):
        paddle.where(T(c), T(a))


def test_where_grad():
    x = T(A(2, 3), stop_gradient=False)
    y = T(A(3), stop_gradient=False)
    c = np.array([[True, False, True], [False, False, True]])
    out = paddle.where(T(c), x, y)
    w = A(2, 3)
    (out * T(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(c, w, 0))
    np.testing.assert_allclose(y.grad.numpy(), np.where(c, 0, w).sum(0), rtol=1e-6)


def test_masked_select():
    a = A(3, 4)
    x = T(a, stop_gradient=False)
    out = paddle.masked_select(x, x > 0)
    np.testing.assert_array_equal(out.numpy(), a[a > 0])
    g, w = grad_of(x, out)
    expected = np.zeros_like(a)
    expected[a > 0] = w
    np.testing.assert_allclose(g, expected)
    assert x.masked_select(T(np.array([True, False, True, False]))).shape == [6]
    with pytest.raises(TypeError, match="bool"):
        paddle.masked_select(x, T(np.ones((3, 4), np.float32)))


# -- scatter family -----------------------------------------------------------------------------------

def test_scatter_family():
    a = A(3, 2)
    u = A(2, 2)
    out = paddle.scatter(T(a), T(np.array([2, 0])), T(u))
    np.testing.assert_array_equal(out.numpy(), np.stack([u[1], a[1], u[0]]))
    out = paddle.scatter(T(a), T(np.array([1, 1])), T(u), overwrite=False)
    np.testing.assert_allclose(out.numpy(), np.stack([a[0], u[0] + u[1], a[2]]))
    out = paddle.scatter_nd_add(T(a), T(np.array([[0, 1], [0, 1]])), T(np.array([1.0, 2.0], np.float32)))
    expected = a.copy()
    expected[0, 1] += 3
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    out = paddle.scatter_nd(T(np.array([[1], [1]])), T(np.ones((2, 3), np.float32)), [3, 3])
    np.testing.assert_array_equal(out.numpy(), [[0, 0, 0], [2, 2, 2], [0, 0, 0]])


def test_index_sample_take_put_along_axis():
    a = A(3, 4)
    idx = np.array([[0, 3], [1, 1], [2, 0]])
    np.testing.assert_array_equal(paddle.index_sample(T(a), T(idx)).numpy(), np.take_along_axis(a, idx, 1))
    np.testing.assert_array_equal(paddle.take_along_axis(T(a), T(idx), 1).numpy(), np.take_along_axis(a, idx, 1))
    # broadcast: a [1, 4] index row is taken for every row of a
    row = np.array([[2, 0, 1, 1]])
    np.testing.assert_array_equal(paddle.take_along_axis(T(a), T(row), 0).numpy(), np.take_along_axis(a, row, 0))
    out = paddle.put_along_axis(T(a), T(np.array([[1], [0], [3]])), 9.0, 1)
    expected = a.copy()
    np.put_along_axis(expected, np.array([[1], [0], [3]]), 9.0, 1)
    np.testing.assert_array_equal(out.numpy(), expected)
    out = paddle.put_along_axis(T(a), T(np.array([[1], [1], [1]])), 1.0, 1, reduce="add")
    expected = a.copy()
    expected[:, 1] += 1
    np.testing.assert_allclose(out.numpy(), expected)


# -- in-place variants --------------------------------------------------------------------------------

def test_inplace_variants_return_x():
    x = paddle.zeros([2, 1, 3])
    assert x.squeeze_() is x and x.shape == [2, 3]
    assert paddle.unsqueeze_(x, 0) is x and x.shape == [1, 2, 3]
    assert x.flatten_() is x and x.shape == [6]
    y = paddle.zeros([3, 2])
    y.scatter_(T(np.array([1])), paddle.ones([1, 2]))
    np.testing.assert_array_equal(y.numpy(), [[0, 0], [1, 1], [0, 0]])


# -- static shape inference: metas with unknown (-1) dimensions ---------------------------------------

def _meta(op, *metas, **attrs):
    from runtime.ops.registry import lookup
    opdef = lookup(op)
    return opdef.infer_meta(*metas, **opdef.full_attrs(attrs))


def test_infer_meta_with_unknown_dims():
    from runtime.ops.registry import Meta
    f32, i64, b = np.dtype("float32"), np.dtype("int64"), np.dtype("bool")
    x = Meta((-1, 3, 4), f32)
    out, xshape = _meta("reshape2", x, None, None, shape=[0, -1])
    assert out.shape == (-1, -1) and xshape.shape == (0, -1, 3, 4)     # as Paddle: 0 copies the unknown dim
    assert _meta("reshape2", x, None, None, shape=[-1, 12])[0].shape == (-1, 12)
    assert _meta("reshape2", x, Meta((2,), i64), None)[0].shape == (-1, -1)
    assert _meta("transpose2", x, axis=[2, 0, 1])[0].shape == (4, -1, 3)
    assert _meta("flatten_contiguous_range", x, start_axis=1, stop_axis=2)[0].shape == (-1, 12)
    assert _meta("flatten_contiguous_range", x, start_axis=0, stop_axis=1)[0].shape == (-1, 4)
    assert _meta("squeeze2", Meta((-1, 1, 3), f32), axes=[0])[0].shape == (1, 3)   # Paddle squeezes a named -1
    assert _meta("unsqueeze2", x, None, None, axes=[0])[0].shape == (1, -1, 3, 4)
    assert _meta("concat", [x, x], None, axis=0).shape == (-1, 3, 4)
    assert _meta("concat", [x, Meta((2, 3, 4), f32)], None, axis=1).shape == (2, 6, 4)
    assert [m.shape for m in _meta("split", x, None, None, num=3, axis=1)] == [(-1, 1, 4)] * 3
    assert [m.shape for m in _meta("split", x, None, None, sections=[1, -1], axis=0)] == [(1, 3, 4), (-1, 3, 4)]
    assert _meta("stack", [x, x], axis=1).shape == (-1, 2, 3, 4)
    assert len(_meta("unstack", x, axis=1)) == 3
    assert _meta("slice", x, None, None, None, None, axes=[0, 1], starts=[0, 1], ends=[1, 3],
                 decrease_axis=[0]).shape == (2, 4)
    assert _meta("slice", x, None, None, None, None, axes=[0], starts=[1], ends=[3]).shape == (-1, 3, 4)
    assert _meta("strided_slice", x, None, None, None, None, None, None, axes=[1], starts=[-1], ends=[-2 ** 31],
                 strides=[-2]).shape == (-1, 2, 4)
    assert _meta("tile", x, None, None, repeat_times=[2, 1, 1]).shape == (-1, 3, 4)
    assert _meta("expand_v2", Meta((-1, 1), f32), None, None, shape=[-1, 5]).shape == (-1, 5)
    assert _meta("expand_as_v2", Meta((1, 3), f32), Meta((-1, 3), f32)).shape == (-1, 3)
    assert _meta("shape", x) == Meta((3,), np.dtype("int32")) and _meta("size", x) == Meta((), i64)
    assert _meta("gather", x, Meta((5,), i64), None, axis=1).shape == (-1, 5, 4)
    assert _meta("gather_nd", x, Meta((-1, 2), i64)).shape == (-1, 4)
    assert _meta("index_select", x, Meta((-1,), i64), dim=2).shape == (-1, 3, -1)
    assert _meta("where", Meta((-1, 3, 4), b), x, Meta((4,), f32)).shape == (-1, 3, 4)
    assert _meta("masked_select", x, Meta((-1, 3, 4), b)).shape == (-1,)
    assert _meta("set_value", x, None, None, None, None, axes=[0], starts=[0], ends=[1]).shape == (-1, 3, 4)
    assert _meta("cast", x, in_dtype=5, out_dtype=3) == Meta((-1, 3, 4), i64)


def test_small_composites():
    a = np.arange(24, dtype=np.float32).reshape(2, 12)
    x = T(a)
    assert paddle.unflatten(x, 1, [3, -1]).shape == [2, 3, 4]
    np.testing.assert_array_equal(paddle.unflatten(x, -1, (3, 4)).numpy(), a.reshape(2, 3, 4))
    assert x.view([4, 6]).shape == [4, 6] and paddle.view_as(x, paddle.zeros([3, 8])).shape == [3, 8]
    np.testing.assert_array_equal(paddle.narrow(x, 1, 2, 3).numpy(), a[:, 2:5])
    with pytest.raises(ValueError, match="narrow"):
        paddle.narrow(x, 1, 10, 5)
    np.testing.assert_array_equal(paddle.masked_fill(x, x > 5, 1.0).numpy(), np.where(a > 5, 1, a))
    y = T(a)
    y.masked_fill_(y < 3, T(np.float32(-1)))
    np.testing.assert_array_equal(y.numpy(), np.where(a < 3, -1, a))
    assert paddle.swapaxes(x, [1, 0]).shape == [12, 2]


def test_cast_shortcut_methods_type_as_and_mT():
    x = paddle.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5)
    for m, d in [("int", "int32"), ("long", "int64"), ("float", "float32"), ("double", "float64"),
                 ("half", "float16"), ("bool", "bool"), ("short", "int16"), ("byte", "uint8")]:
        y = getattr(x, m)()
        assert str(y.numpy().dtype) == d, m
    np.testing.assert_array_equal(x.int().numpy(), x.numpy().astype(np.int32))
    assert x.type_as(paddle.ones([1], "int64")).dtype == paddle.int64
    assert x.mT.shape == [3, 2] and paddle.ones([4, 2, 3]).mT.shape == [4, 3, 2]
    with pytest.raises(ValueError, match="mT: x must have at least 2 dimensions"):
        paddle.ones([3]).mT
