"""Tensor methods and top-level names of issue 16 beyond the Paddle differential test: in-place rules
and gradients, unsupported dtypes refused clearly, Size, check_shape, static Variables untouched."""
import numpy as np
import pytest

import dy2st as paddle
import runtime
from runtime import static


def test_fill_gradients_and_leaf_rule():
    a = paddle.to_tensor(np.arange(4.0).reshape(2, 2), stop_gradient=False)
    with pytest.raises(ValueError, match="inplace"):
        a.fill_(1.0)
    with pytest.raises(ValueError, match="inplace"):
        a.fill_diagonal_(1.0)
    b = a * 3.0
    b.fill_diagonal_(0.5)
    (b * b).sum().backward()
    # d/da of sum(b^2) with b = 3a off the diagonal, 0.5 on it
    want = 18.0 * np.arange(4.0).reshape(2, 2)
    np.fill_diagonal(want, 0.0)
    np.testing.assert_allclose(a.grad.numpy(), want)
    c = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    d = c * 2.0
    d.zero_()
    (d + c).sum().backward()
    np.testing.assert_array_equal(c.grad.numpy(), [1.0, 1.0])


def test_retain_grads_and_requires_grad():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    h = x * x
    h.retain_grads()
    (h * 3.0).sum().backward()
    np.testing.assert_array_equal(h.grad.numpy(), [3.0, 3.0])
    t = paddle.zeros([2])
    assert t.requires_grad is False
    t.requires_grad = True
    assert t.stop_gradient is False
    with pytest.raises(TypeError, match="bool"):
        t.requires_grad = 1


def test_unsupported_dtypes_are_refused_clearly():
    x = paddle.ones([2])
    for name in ("bfloat16", "uint16", "float8_e4m3fn"):
        with pytest.raises(TypeError, match=f"{name} is not supported"):
            x.astype(name)
    with pytest.raises(TypeError, match="bfloat16 is not supported"):
        x.bfloat16()
    with pytest.raises(TypeError, match="not supported"):
        paddle.zeros([2], paddle.uint32)
    assert paddle.bfloat16 == paddle.bfloat16 and paddle.bfloat16 != paddle.float32
    assert paddle.bfloat16 != "bfloat16"       # as in Paddle
    assert paddle.double is paddle.float64 and paddle.cfloat is paddle.complex64
    assert paddle.finfo(paddle.bfloat16).eps == 2.0 ** -7
    assert paddle.finfo(paddle.complex64).bits == 32
    with pytest.raises(ValueError, match="floating-point"):
        paddle.finfo(paddle.int32)
    with pytest.raises(ValueError, match="integer"):
        paddle.iinfo(paddle.float32)


def test_size():
    s = paddle.Size([2, 3, 4])
    assert s == [2, 3, 4] and s.numel() == 24 and isinstance(s[1:], paddle.Size)
    assert repr(s + [5]) == "paddle.Size([2, 3, 4, 5])" and s[0] == 2
    assert paddle.Size().numel() == 1


def test_check_shape_in_static_mode_only():
    paddle.check_shape("anything", "fill_constant")   # dynamic mode: no check, as in Paddle
    runtime.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            paddle.check_shape([2, 3], "fill_constant")
            with pytest.raises(TypeError, match="element of shape"):
                paddle.check_shape([2, 1.5], "fill_constant")
            with pytest.raises(TypeError, match="'shape' in fill_constant"):
                paddle.check_shape("ab", "fill_constant")
            v = static.data("s", [2], "float32")
            with pytest.raises(TypeError, match="data type of 'shape'"):
                paddle.check_shape(v, "fill_constant")
    finally:
        runtime.disable_static()


def test_static_variables_keep_their_attributes():
    runtime.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            v = static.data("x", [2, 3], "float32")
            assert v.type == static.program.VarType.LOD_TENSOR   # Tensor-only properties do not shadow it
            assert isinstance(v.new_zeros([2]), static.Variable)
            assert [len(p.shape) for p in paddle.tensor_split(v, 3, axis=1)] == [2, 2, 2]
    finally:
        runtime.disable_static()


def test_set_resize_and_layout():
    x = paddle.to_tensor(np.arange(6.0))
    x.resize_([2, 2])
    np.testing.assert_array_equal(x.numpy(), [[0, 1], [2, 3]])
    with pytest.raises(ValueError, match="fill_zero"):
        x.resize_([3, 3])
    x.resize_([2, 3], fill_zero=True)
    np.testing.assert_array_equal(x.numpy(), [[0, 1, 2], [3, 0, 0]])
    y = paddle.zeros([1])
    y.set_(paddle.to_tensor(np.arange(10, dtype="float32")), [2, 2], [3, 1], 4)
    np.testing.assert_array_equal(y.numpy(), [[1, 2], [4, 5]])
    z = paddle.zeros([2, 3, 4], "float32")
    assert z.type == paddle.base.core.VarDesc.VarType.DENSE_TENSOR
    assert z.strides == [12, 4, 1] and z.stride(-1) == 1 and z.itemsize == 4 and z.offset == 0
    with pytest.raises(IndexError):
        z.stride(3)
    d = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    assert d.data.stop_gradient is True
    d.data = paddle.to_tensor([5.0, 6.0])
    np.testing.assert_array_equal(d.numpy(), [5.0, 6.0])
    with pytest.raises(TypeError, match="Tensor.data"):
        d.data = [1.0, 2.0]


def test_legacy_constructors_and_range():
    assert paddle.LongTensor([1.7]).dtype == paddle.int64
    assert paddle.ShortTensor(2, 2).shape == [2, 2]
    with pytest.raises(TypeError, match="bfloat16"):
        paddle.BFloat16Tensor([1.0])
    np.testing.assert_array_equal(paddle.range(1, 2, 0.25).numpy(), [1, 1.25, 1.5, 1.75, 2])
    assert paddle.range(3, 1).shape == [0]
    with pytest.raises(ValueError, match="nonzero"):
        paddle.range(0, 3, 0)
