"""F.conv1d/conv2d/conv1d_transpose/conv2d_transpose: padding forms, op choice, bias, errors,
infer_meta with unknown dims; numbers against direct numpy loops."""
import contextlib

import numpy as np
import pytest

import runtime as paddle
import runtime.nn.functional as F
from runtime.framework import state
from runtime.ops.registry import Meta, lookup

rng = np.random.default_rng(21)


def t(a, stop_gradient=True):
    return paddle.Tensor(np.asarray(a), stop_gradient=stop_gradient)


@contextlib.contextmanager
def record_ops():
    ops = []
    old = state.tracer
    state.tracer = lambda opdef, inputs, attrs, outs: ops.append((opdef.type, dict(attrs)))
    try:
        yield ops
    finally:
        state.tracer = old


def conv_np(x, w, stride=(1, 1), pads=(0, 0, 0, 0), dil=(1, 1), groups=1):
    """Direct loops; pads = (top, bottom, left, right)."""
    N, C, H, W = x.shape
    M, Cg, kh, kw = w.shape
    xp = np.zeros((N, C, H + pads[0] + pads[1], W + pads[2] + pads[3]))
    xp[:, :, pads[0]:pads[0] + H, pads[2]:pads[2] + W] = x
    oh = (xp.shape[2] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (xp.shape[3] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((N, M, oh, ow))
    mg = M // groups
    for m in range(M):
        g = m // mg
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * Cg:(g + 1) * Cg, i * stride[0]:i * stride[0] + dil[0] * (kh - 1) + 1:dil[0],
                           j * stride[1]:j * stride[1] + dil[1] * (kw - 1) + 1:dil[1]]
                out[:, m, i, j] = (patch * w[m]).sum(axis=(1, 2, 3))
    return out


def convt_np(x, w, stride, pads, out_hw, dil=(1, 1)):
    N, C, H, W = x.shape
    _, M, kh, kw = w.shape
    # room past the natural size for output_size / output_padding
    full = np.zeros((N, M, (H - 1) * stride[0] + dil[0] * (kh - 1) + 9, (W - 1) * stride[1] + dil[1] * (kw - 1) + 9))
    for h in range(H):
        for v in range(W):
            for a in range(kh):
                for b in range(kw):
                    full[:, :, h * stride[0] + a * dil[0], v * stride[1] + b * dil[1]] += x[:, :, h, v] @ w[:, :, a, b]
    return full[:, :, pads[0]:pads[0] + out_hw[0], pads[2]:pads[2] + out_hw[1]]


def _same(n, k, s):
    out = -(-n // s)
    total = max((out - 1) * s + k - n, 0)
    return total // 2, total - total // 2


X = rng.standard_normal((2, 3, 7, 6))
WT = rng.standard_normal((4, 3, 3, 2))
B = rng.standard_normal(4)


@pytest.mark.parametrize("padding, pads", [
    (0, (0, 0, 0, 0)),
    (1, (1, 1, 1, 1)),
    ([1, 2], (1, 1, 2, 2)),
    ([1, 0, 2, 1], (1, 0, 2, 1)),
    ([[0, 0], [0, 0], [2, 1], [0, 1]], (2, 1, 0, 1)),
    ("VALID", (0, 0, 0, 0)),
])
def test_conv2d_padding_forms(padding, pads):
    out = F.conv2d(t(X), t(WT), t(B), stride=[2, 1], padding=padding)
    np.testing.assert_allclose(out.numpy(), conv_np(X, WT, (2, 1), pads) + B.reshape(1, -1, 1, 1), rtol=1e-10)


def test_conv2d_same_ignores_dilation_and_keeps_ceil_size():
    out = F.conv2d(t(X), t(WT), stride=2, padding="same", dilation=2)
    pads = _same(7, 3, 2) + _same(6, 2, 2)
    assert out.shape == [2, 4, 4, 3]
    np.testing.assert_allclose(out.numpy(), conv_np(X, WT, (2, 2), pads), rtol=1e-10)


def test_conv2d_nhwc_bias_and_dilation():
    xn = X.transpose(0, 2, 3, 1)
    out = F.conv2d(t(xn), t(WT), t(B), padding=1, dilation=[2, 1], data_format="NHWC")
    ref = conv_np(X, WT, (1, 1), (1, 1, 1, 1), (2, 1)) + B.reshape(1, -1, 1, 1)
    np.testing.assert_allclose(out.numpy(), ref.transpose(0, 2, 3, 1), rtol=1e-10)


def test_conv2d_groups_and_depthwise_op_choice():
    x = rng.standard_normal((1, 4, 5, 5))
    w = rng.standard_normal((4, 2, 3, 3))
    with record_ops() as ops:
        out = F.conv2d(t(x), t(w), groups=2)
    assert [o[0] for o in ops] == ["conv2d"]
    np.testing.assert_allclose(out.numpy(), conv_np(x, w, groups=2), rtol=1e-10)
    wd = rng.standard_normal((8, 1, 3, 3))
    with record_ops() as ops:
        out = F.conv2d(t(x), t(wd), t(np.arange(8.0)), padding=1, groups=4)
    assert [o[0] for o in ops] == ["depthwise_conv2d", "elementwise_add"]
    assert ops[1][1]["axis"] == 1
    np.testing.assert_allclose(out.numpy(), conv_np(x, wd, pads=(1, 1, 1, 1), groups=4)
                               + np.arange(8.0).reshape(1, -1, 1, 1), rtol=1e-10)


def test_conv2d_float32_keeps_dtype_and_grads():
    x = t(X.astype(np.float32), stop_gradient=False)
    w = t(WT.astype(np.float32), stop_gradient=False)
    b = t(B.astype(np.float32), stop_gradient=False)
    out = F.conv2d(x, w, b, padding=1)
    assert out.dtype == paddle.float32
    g = rng.standard_normal(out.shape).astype(np.float32)
    (out * t(g)).sum().backward()
    assert x.grad.dtype == paddle.float32 and w.grad.shape == [4, 3, 3, 2]
    np.testing.assert_allclose(b.grad.numpy(), g.sum(axis=(0, 2, 3)), rtol=1e-5)
    # the conv is linear in x: <grad_x, v> == <conv(v), g>
    v = rng.standard_normal(X.shape).astype(np.float32)
    lhs = float((x.grad.numpy().astype(np.float64) * v).sum())
    rhs = float((conv_np(v, WT.astype(np.float32), pads=(1, 1, 1, 1)) * g).sum())
    assert abs(lhs - rhs) < 1e-3 * max(1.0, abs(rhs))


def test_conv2d_errors():
    with pytest.raises(ValueError, match="data_format"):
        F.conv2d(t(X), t(WT), data_format="NCWH")
    with pytest.raises(ValueError, match="divisible by groups"):
        F.conv2d(t(X), t(WT), groups=2)
    with pytest.raises(ValueError, match="expects 6"):
        F.conv2d(t(X), t(rng.standard_normal((6, 2, 3, 3))), groups=3)
    with pytest.raises(ValueError, match="'SAME', 'VALID'"):
        F.conv2d(t(X), t(WT), padding="FULL")
    with pytest.raises(ValueError, match="non-negative"):
        F.conv2d(t(X), t(WT), padding=-1)
    with pytest.raises(ValueError, match="batch or channel"):
        F.conv2d(t(X), t(WT), padding=[[0, 0], [1, 1], [1, 1], [1, 1]])
    with pytest.raises(ValueError, match="4-D"):
        F.conv2d(t(X[0]), t(WT))
    with pytest.raises(ValueError, match="stride"):
        F.conv2d(t(X), t(WT), stride=[1, 2, 3])


def test_conv2d_transpose_output_padding_and_size():
    x = rng.standard_normal((2, 3, 3, 4))
    w = rng.standard_normal((3, 2, 3, 3))
    b = rng.standard_normal(2)
    out = F.conv2d_transpose(t(x), t(w), t(b), stride=2, padding=1, output_padding=1)
    # (in - 1) * stride - 2 * pad + k + output_padding
    assert out.shape == [2, 2, 6, 8]
    np.testing.assert_allclose(out.numpy(), convt_np(x, w, (2, 2), (1, 1, 1, 1), (6, 8)) + b.reshape(1, -1, 1, 1),
                               rtol=1e-10)
    out = F.conv2d_transpose(t(x), t(w), stride=[2, 3], padding=[0, 1], output_size=[8, 10])
    np.testing.assert_allclose(out.numpy(), convt_np(x, w, (2, 3), (0, 0, 1, 1), (8, 10)), rtol=1e-10)
    with pytest.raises(ValueError, match="mutually exclusive"):
        F.conv2d_transpose(t(x), t(w), stride=2, output_padding=1, output_size=[7, 9])
    with pytest.raises(ValueError, match="out of range"):
        F.conv2d_transpose(t(x), t(w), stride=2, output_size=[10, 9])


def test_conv2d_transpose_same_nhwc_dilation_and_depthwise():
    x = rng.standard_normal((1, 2, 3, 4))
    w = rng.standard_normal((2, 3, 2, 3))
    out = F.conv2d_transpose(t(x.transpose(0, 2, 3, 1)), t(w), stride=2, padding="SAME", dilation=3,
                             data_format="NHWC")
    pads = _same(3, 2, 2) + _same(4, 3, 2)     # SAME pads from the input size; dilation becomes 1
    oh, ow = 2 * 2 + 2 - pads[0] - pads[1], 3 * 2 + 3 - pads[2] - pads[3]
    np.testing.assert_allclose(out.numpy(), convt_np(x, w, (2, 2), pads, (oh, ow)).transpose(0, 2, 3, 1),
                               rtol=1e-10)
    out = F.conv2d_transpose(t(x), t(w), dilation=[2, 1])
    np.testing.assert_allclose(out.numpy(), convt_np(x, w, (1, 1), (0, 0, 0, 0), (5, 6), (2, 1)), rtol=1e-10)
    wd = rng.standard_normal((2, 1, 3, 3))
    with record_ops() as ops:
        F.conv2d_transpose(t(x), t(wd), groups=2)
    assert ops[0][0] == "depthwise_conv2d_transpose"


def test_conv1d_and_transpose():
    x = rng.standard_normal((2, 3, 9))
    w = rng.standard_normal((4, 3, 3))
    b = rng.standard_normal(4)
    out = F.conv1d(t(x), t(w), t(b), stride=2, padding=[1, 2], dilation=2)
    ref = conv_np(x[:, :, None], w[:, :, None], (1, 2), (0, 0, 1, 2), (1, 2))[:, :, 0] + b[None, :, None]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-10)
    out = F.conv1d(t(x.transpose(0, 2, 1)), t(w), padding="SAME", data_format="NLC")
    ref = conv_np(x[:, :, None], w[:, :, None], (1, 1), (0, 0) + _same(9, 3, 1))[:, :, 0]
    np.testing.assert_allclose(out.numpy(), ref.transpose(0, 2, 1), rtol=1e-10)
    wt = rng.standard_normal((3, 2, 3))
    out = F.conv1d_transpose(t(x), t(wt), stride=2, padding=1, output_padding=1)
    ref = convt_np(x[:, :, None], wt[:, :, None], (1, 2), (0, 0, 1, 1), (1, 18))[:, :, 0]
    assert out.shape == [2, 2, 18]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-10)
    with pytest.raises(ValueError, match="3-D"):
        F.conv1d(t(X), t(w))


@pytest.mark.parametrize("op", ["conv2d", "depthwise_conv2d"])
def test_conv_infer_meta_unknown_dims(op):
    opdef = lookup(op)
    f32 = np.dtype(np.float32)
    meta = opdef.infer_meta(Meta((-1, 3, 28, 28), f32), Meta((6, 3, 5, 5), f32),
                            **opdef.full_attrs({"strides": [2, 2], "paddings": [1, 2, 0, 0]}))
    assert meta == Meta((-1, 6, 14, 12), f32)
    meta = opdef.infer_meta(Meta((-1, -1, -1, 3), f32), Meta((6, 3, 5, 5), f32),
                            **opdef.full_attrs({"padding_algorithm": "SAME", "data_format": "NHWC"}))
    assert meta.shape == (-1, -1, -1, 6)
    meta = opdef.infer_meta(Meta((-1, 3, 9, 10), f32), Meta((6, 3, 3, 3), f32),
                            **opdef.full_attrs({"padding_algorithm": "SAME", "strides": [2, 3]}))
    assert meta.shape == (-1, 6, 5, 4)


def test_conv_transpose_infer_meta_unknown_dims():
    opdef = lookup("conv2d_transpose")
    f32 = np.dtype(np.float32)
    meta = opdef.infer_meta(Meta((-1, 3, 4, -1), f32), Meta((3, 2, 3, 3), f32), None,
                            **opdef.full_attrs({"strides": [2, 2], "paddings": [1, 1], "output_padding": [1, 0]}))
    assert meta == Meta((-1, 2, 8, -1), f32)
    meta = opdef.infer_meta(Meta((-1, 4, 4, 3), f32), Meta((3, 2, 3, 3), f32), None,
                            **opdef.full_attrs({"strides": [2, 2], "groups": 3, "data_format": "NHWC",
                                                "output_size": [9, 10]}))
    assert meta.shape == (-1, 9, 10, 6)


def test_lenet_sized_conv_runs_and_matches():
    # the shapes a LeNet benchmark uses; float32 in, float32 out, close to the float64 reference
    x = rng.standard_normal((32, 1, 28, 28)).astype(np.float32)
    w = rng.standard_normal((6, 1, 5, 5)).astype(np.float32)
    out = F.conv2d(t(x), t(w), padding=2)
    assert out.dtype == paddle.float32 and out.shape == [32, 6, 28, 28]
    ref = conv_np(x[:2].astype(np.float64), w.astype(np.float64), pads=(2, 2, 2, 2))
    np.testing.assert_allclose(out.numpy()[:2], ref, rtol=1e-4, atol=1e-4)
