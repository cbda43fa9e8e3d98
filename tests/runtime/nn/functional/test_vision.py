"""F.interpolate/upsample (nearest, bilinear, area), F.pad (pad3d and pad paths), F.pixel_shuffle:
numbers from independent numpy formulas, argument forms, errors, adjoint checks of the grads."""
import contextlib

import numpy as np
import pytest

import runtime as paddle
import runtime.nn.functional as F
import runtime.ops.interp  # noqa: F401  (registers the ops until runtime.ops imports it)
from runtime.framework import state
from runtime.ops.registry import Meta, lookup

rng = np.random.default_rng(3)


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


def linear_matrix(n_in, n_out, align_corners, align_mode, scale=None):
    """(n_out, n_in) 1-D linear interpolation matrix from Paddle's coordinate rules."""
    A = np.zeros((n_out, n_in))
    for k in range(n_out):
        if n_out == 1:
            ratio = 0.0
        elif align_corners:
            ratio = (n_in - 1) / (n_out - 1)
        else:
            ratio = 1.0 / scale if scale else n_in / n_out
        if align_mode == 0 and not align_corners:
            pos = max(ratio * (k + 0.5) - 0.5, 0.0)
        else:
            pos = ratio * k
        lo = min(int(np.floor(pos)), n_in - 1)
        hi = min(lo + 1, n_in - 1)
        frac = pos - lo
        A[k, lo] += 1 - frac
        A[k, hi] += frac
    return A


def nearest_index(n_in, n_out, scale=None):
    ratio = 1.0 / scale if scale else n_in / n_out
    return [min(int(np.floor(np.float32(ratio) * np.float32(k))), n_in - 1) for k in range(n_out)]


X = rng.standard_normal((2, 3, 4, 5))


def test_bilinear_half_pixel_known_values():
    # 2x upsampling with half-pixel centres: interior weights 0.75 / 0.25, edges clamp
    x = np.array([[0.0, 4.0], [8.0, 12.0]]).reshape(1, 1, 2, 2)
    out = F.interpolate(t(x), scale_factor=2, mode="bilinear").numpy()[0, 0]
    row = np.array([0.0, 1.0, 3.0, 4.0])
    np.testing.assert_allclose(out, np.stack([row, row + 2, row + 6, row + 8]), rtol=1e-6)


@pytest.mark.parametrize("align_corners, align_mode", [(True, 0), (False, 0), (False, 1)])
def test_bilinear_size_matches_matrix_form(align_corners, align_mode):
    out = F.interpolate(t(X), size=[7, 3], mode="bilinear", align_corners=align_corners, align_mode=align_mode)
    Ah = linear_matrix(4, 7, align_corners, align_mode)
    Aw = linear_matrix(5, 3, align_corners, align_mode)
    np.testing.assert_allclose(out.numpy(), Ah @ X @ Aw.T, rtol=1e-5, atol=1e-6)


def test_bilinear_scale_factor_uses_inverse_scale_ratio():
    out = F.interpolate(t(X), scale_factor=[1.5, 0.6], mode="bilinear")
    assert out.shape == [2, 3, 6, 3]
    Ah = linear_matrix(4, 6, False, 0, 1.5)
    Aw = linear_matrix(5, 3, False, 0, 0.6)
    np.testing.assert_allclose(out.numpy(), Ah @ X @ Aw.T, rtol=1e-5, atol=1e-6)


def test_nearest_and_upsample():
    out = F.interpolate(t(X), size=[6, 9])
    np.testing.assert_array_equal(out.numpy(), X[:, :, nearest_index(4, 6)][:, :, :, nearest_index(5, 9)])
    out = F.upsample(t(X), scale_factor=2)
    np.testing.assert_array_equal(out.numpy(), X.repeat(2, axis=2).repeat(2, axis=3))
    x3 = rng.standard_normal((2, 3, 5))
    np.testing.assert_array_equal(F.interpolate(t(x3), size=[8]).numpy(), x3[:, :, nearest_index(5, 8)])
    xn = X.transpose(0, 2, 3, 1)
    out = F.interpolate(t(xn), size=[3, 7], data_format="NHWC")
    np.testing.assert_array_equal(out.numpy(), xn[:, nearest_index(4, 3)][:, :, nearest_index(5, 7)])


def test_interpolate_size_and_scale_as_tensors():
    ref = F.interpolate(t(X), size=[6, 7], mode="bilinear").numpy()
    np.testing.assert_array_equal(F.interpolate(t(X), size=t(np.array([6, 7])), mode="bilinear").numpy(), ref)
    np.testing.assert_array_equal(
        F.interpolate(t(X), size=[t(np.array([6])), 7], mode="bilinear").numpy(), ref)
    ref = F.interpolate(t(X), scale_factor=2.0, mode="bilinear").numpy()
    np.testing.assert_array_equal(
        F.interpolate(t(X), scale_factor=t(np.array(2.0, np.float32)), mode="bilinear").numpy(), ref)


def test_interpolate_attrs_and_recompute_scale():
    with record_ops() as ops:
        F.interpolate(t(X), scale_factor=2, mode="bilinear")
        F.interpolate(t(X), size=[5, 6])
    (op1, a1), (op2, a2) = ops
    assert op1 == "bilinear_interp_v2" and a1["scale"] == [2.0, 2.0] and a1["out_h"] == -1
    assert a1["align_corners"] is False and a1["align_mode"] == 0
    assert op2 == "nearest_interp_v2" and (a2["out_h"], a2["out_w"]) == (5, 6) and a2["scale"] == []
    # with recompute_scale_factor the ratio is in/out, not 1/scale
    out = F.interpolate(t(X), scale_factor=1.3, mode="bilinear", recompute_scale_factor=True)
    assert out.shape == [2, 3, 5, 6]
    Ah, Aw = linear_matrix(4, 5, False, 0), linear_matrix(5, 6, False, 0)
    np.testing.assert_allclose(out.numpy(), Ah @ X @ Aw.T, rtol=1e-5, atol=1e-6)


def test_interpolate_area_is_adaptive_avg_pool():
    out = F.interpolate(t(X), size=[2, 3], mode="area")
    np.testing.assert_allclose(out.numpy(), F.adaptive_avg_pool2d(t(X), [2, 3]).numpy())


def test_interpolate_errors():
    with pytest.raises(ValueError, match="align_corners"):
        F.interpolate(t(X), size=[5, 5], align_corners=True)
    with pytest.raises(ValueError, match="only one"):
        F.interpolate(t(X), size=[5, 5], scale_factor=2)
    with pytest.raises(ValueError, match="one of size"):
        F.interpolate(t(X))
    with pytest.raises(ValueError, match="2 entries"):
        F.interpolate(t(X), size=[5])
    with pytest.raises(ValueError, match="mode"):
        F.interpolate(t(X), size=[5, 5], mode="cubic")
    with pytest.raises(ValueError, match="align_mode"):
        F.interpolate(t(X), size=[5, 5], mode="bilinear", align_mode=2)
    with pytest.raises(ValueError, match="data_format"):
        F.interpolate(t(X), size=[5, 5], data_format="NCW")
    with pytest.raises(ValueError, match="4-D"):
        F.interpolate(t(X[0]), size=[5], mode="bilinear")
    with pytest.raises(ValueError, match="4-D"):
        F.interpolate(t(X[0]), size=[5], mode="bicubic")


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_interpolate_grad_is_adjoint(mode):
    x = t(X, stop_gradient=False)
    out = F.interpolate(x, size=[7, 8], mode=mode)
    g = rng.standard_normal(out.shape)
    (out * t(g)).sum().backward()
    v = rng.standard_normal(X.shape)
    lhs = float((x.grad.numpy() * v).sum())
    rhs = float((F.interpolate(t(v), size=[7, 8], mode=mode).numpy() * g).sum())
    assert lhs == pytest.approx(rhs, rel=1e-6)


def test_interp_infer_meta_unknown_dims():
    f32 = np.dtype(np.float32)
    opdef = lookup("bilinear_interp_v2")
    attrs = opdef.full_attrs({"out_h": -1, "out_w": -1, "scale": [2.0, 2.0]})
    assert opdef.infer_meta(Meta((-1, 3, 8, -1), f32), None, None, None, **attrs) == Meta((-1, 3, 16, -1), f32)
    attrs = opdef.full_attrs({"out_h": 5, "out_w": 6})
    assert opdef.infer_meta(Meta((-1, 3, -1, -1), f32), None, None, None, **attrs).shape == (-1, 3, 5, 6)
    meta = opdef.infer_meta(Meta((-1, 3, 8, 8), f32), Meta((2,), np.dtype(np.int32)), None, None, **attrs)
    assert meta.shape == (-1, 3, -1, -1)
    opdef = lookup("nearest_interp_v2")
    attrs = opdef.full_attrs({"out_h": 5, "out_w": 6, "data_layout": "NHWC"})
    assert opdef.infer_meta(Meta((-1, 8, 8, 3), f32), None, None, None, **attrs).shape == (-1, 5, 6, 3)


# -- pad ------------------------------------------------------------------------------------------

_NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_4d_modes(mode):
    kw = {"constant_values": 1.5} if mode == "constant" else {}
    out = F.pad(t(X), [1, 2, 3, 0], mode=mode, value=1.5)
    np.testing.assert_array_equal(out.numpy(), np.pad(X, ((0, 0), (0, 0), (3, 0), (1, 2)), _NP_MODE[mode], **kw))
    xn = X.transpose(0, 2, 3, 1)
    out = F.pad(t(xn), [1, 2, 3, 0], mode=mode, value=1.5, data_format="NHWC")
    np.testing.assert_array_equal(out.numpy(), np.pad(xn, ((0, 0), (3, 0), (1, 2), (0, 0)), _NP_MODE[mode], **kw))


def test_pad_op_sequence_and_3d_5d():
    with record_ops() as ops:
        F.pad(t(X), [1, 1, 2, 2], mode="reflect")
    assert [o[0] for o in ops] == ["unsqueeze2", "pad3d", "squeeze2"]
    assert ops[1][1]["paddings"] == [1, 1, 2, 2, 0, 0] and ops[1][1]["data_format"] == "NCDHW"
    x3 = rng.standard_normal((2, 3, 5))
    np.testing.assert_array_equal(F.pad(t(x3), [2, 1], mode="replicate").numpy(),
                                  np.pad(x3, ((0, 0), (0, 0), (2, 1)), "edge"))
    np.testing.assert_array_equal(F.pad(t(x3.transpose(0, 2, 1)), [2, 1], mode="circular", data_format="NLC").numpy(),
                                  np.pad(x3.transpose(0, 2, 1), ((0, 0), (2, 1), (0, 0)), "wrap"))
    x5 = rng.standard_normal((1, 2, 3, 3, 4))
    np.testing.assert_array_equal(F.pad(t(x5), [1, 0, 0, 2, 2, 1], mode="reflect").numpy(),
                                  np.pad(x5, ((0, 0), (0, 0), (2, 1), (0, 2), (1, 0)), "reflect"))


def test_pad_constant_full_and_partial_lists():
    x = rng.standard_normal((1, 2, 3, 4))
    # a full 2*ndim list lists the pairs from the first dim ...
    with record_ops() as ops:
        out = F.pad(t(x), [0, 0, 1, 0, 0, 1, 2, 0], value=9.0)
    assert [o[0] for o in ops] == ["pad"]
    np.testing.assert_array_equal(out.numpy(), np.pad(x, ((0, 0), (1, 0), (0, 1), (2, 0)), constant_values=9.0))
    # ... unless pad_from_left_axis=False; shorter lists start at the last dim
    out = F.pad(t(x), [0, 0, 1, 0, 0, 1, 2, 0], value=9.0, pad_from_left_axis=False)
    np.testing.assert_array_equal(out.numpy(), np.pad(x, ((2, 0), (0, 1), (1, 0), (0, 0)), constant_values=9.0))
    x3 = rng.standard_normal((1, 2, 3))
    out = F.pad(t(x3), [1, 2, 0, 1])
    np.testing.assert_array_equal(out.numpy(), np.pad(x3, ((0, 0), (0, 1), (1, 2))))


def test_pad_grad_is_adjoint():
    x = t(X, stop_gradient=False)
    out = F.pad(x, [2, 1, 1, 3], mode="reflect")
    g = rng.standard_normal(out.shape)
    (out * t(g)).sum().backward()
    v = rng.standard_normal(X.shape)
    rhs = float((np.pad(v, ((0, 0), (0, 0), (1, 3), (2, 1)), "reflect") * g).sum())
    assert float((x.grad.numpy() * v).sum()) == pytest.approx(rhs, rel=1e-10)


def test_pad_errors():
    with pytest.raises(ValueError, match="mode"):
        F.pad(t(X), [1, 1, 1, 1], mode="wrap")
    with pytest.raises(ValueError, match="smaller than its size"):
        F.pad(t(X), [5, 0, 0, 0], mode="reflect")
    with pytest.raises(ValueError, match="needs 4 values"):
        F.pad(t(X), [1, 1], mode="reflect")
    with pytest.raises(ValueError, match="data_format"):
        F.pad(t(X), [1, 1, 1, 1], mode="reflect", data_format="NCL")
    with pytest.raises(ValueError, match="non-negative"):
        F.pad(t(X), [-1, 1, 1, 1])


def test_pad3d_infer_meta():
    opdef = lookup("pad3d")
    f32 = np.dtype(np.float32)
    meta = opdef.infer_meta(Meta((-1, 3, 1, 8, -1), f32), None,
                            **opdef.full_attrs({"paddings": [1, 2, 3, 4, 0, 0], "mode": "reflect"}))
    assert meta == Meta((-1, 3, 1, 15, -1), f32)


def test_pixel_shuffle():
    x = rng.standard_normal((2, 8, 3, 2))
    out = F.pixel_shuffle(t(x), 2).numpy()
    assert out.shape == (2, 2, 6, 4)
    for c in range(2):
        for i in range(2):
            for j in range(2):
                np.testing.assert_array_equal(out[:, c, i::2, j::2], x[:, c * 4 + i * 2 + j])
    out = F.pixel_shuffle(t(x.transpose(0, 2, 3, 1)), 2, data_format="NHWC").numpy()
    np.testing.assert_array_equal(out, F.pixel_shuffle(t(x), 2).numpy().transpose(0, 2, 3, 1))
    with pytest.raises(ValueError, match="divisible"):
        F.pixel_shuffle(t(x), 3)
