"""ONNX lowerings of the ops added later (runtime/onnx/ops_math_extra.py, ops_vision_extra.py): one tiny
Program per op, exported and run in onnxruntime against our executor (the harness of test_op_table)."""
import numpy as np
import pytest

import runtime as paddle
from runtime import static
from runtime.api import linalg, linalg_solve
from runtime.dispatch import run_op
from runtime.onnx import UnsupportedOpError
from runtime.vision import ops as vision_ops

from .helpers import build, needs_ort, parity, static_mode  # noqa: F401
from .test_op_table import _DT, _gen

F = paddle.nn.functional
pytestmark = [needs_ort, pytest.mark.usefixtures("static_mode")]


def case(op, inputs, fn, opset=17, id=None, batch=True, rtol=1e-5):
    return pytest.param(op, inputs, fn, opset, batch, rtol, id=id or op)


def _nan_free(outs):
    """NaN values as -7 (the parity check compares finite values): the indices still show where NaN won."""
    value, idx = outs
    return paddle.where(paddle.isnan(value), paddle.full_like(value, -7.0), value), idx


S = (2, 3)
X = {"x": (S, "f")}
XY = {"x": (S, "f"), "y": (S, "f")}
M = {"x": ((3, 4, 4), "f")}

CASES = [
    # elementwise (ops_math_extra)
    case("atan2", XY, lambda x, y: paddle.atan2(x, y)),
    case("atan2", {"x": ((6,), "f")}, lambda x: paddle.atan2(
        paddle.to_tensor(np.array([0.0, -0.0, 0.0, -0.0, 1.0, -1.0], np.float32)) + x * 0,
        paddle.to_tensor(np.array([0.0, 0.0, -0.0, -0.0, 0.0, -0.0], np.float32))), id="atan2_zeros", batch=False),
    case("copysign", XY, lambda x, y: paddle.copysign(x, y)),
    case("copysign", {"x": ((4,), "f")}, lambda x: paddle.copysign(
        x, paddle.to_tensor(np.array([0.0, -0.0, 2.0, -3.0], np.float32))), id="copysign_zeros", batch=False),
    case("copysign", {"x": (S, "i64"), "y": (S, "i64")}, lambda x, y: paddle.copysign(x, y), id="copysign_int"),
    case("elementwise_fmax", XY, lambda x, y: paddle.fmax(x, paddle.where(y > 0.5, y * np.nan, y))),
    case("elementwise_fmin", XY, lambda x, y: paddle.fmin(paddle.where(x > 0.5, x * np.nan, x), y)),
    case("elementwise_heaviside", XY, lambda x, y: paddle.heaviside(paddle.where(x > 0.3, x * 0, x), y)),
    case("bitwise_left_shift", {"x": ((4, 6), "i64"), "y": ((4, 6), "idx70")},
         lambda x, y: paddle.bitwise_left_shift(x * 1000003, y - 3)),
    case("bitwise_right_shift", {"x": ((4, 6), "i64"), "y": ((4, 6), "idx70")},
         lambda x, y: paddle.bitwise_right_shift(x * 1000003, y - 3), id="right_arithmetic"),
    case("bitwise_right_shift", {"x": ((4, 6), "i64"), "y": ((4, 6), "idx70")},
         lambda x, y: paddle.bitwise_right_shift(x * 1000003, y - 3, is_arithmetic=False), id="right_logical"),
    case("bitwise_left_shift", {"x": ((4, 6), "i32"), "y": ((4, 6), "i32")},
         lambda x, y: paddle.bitwise_left_shift(x, paddle.abs(y) * 7), id="left_int32"),
    case("logit", {"x": (S, "prob")}, lambda x: paddle.logit(x * 1.1 - 0.05, eps=1e-3)),
    case("logit", {"x": (S, "prob")}, lambda x: paddle.logit(x), id="logit_no_eps"),
    case("lerp", {"x": (S, "f"), "y": (S, "f"), "w": (S, "prob")}, lambda x, y, w: paddle.lerp(x, y, w)),
    case("rrelu", X, lambda x: F.rrelu(x, 0.1, 0.3, training=False)),
    # linalg
    case("addmm", {"i": ((2, 4), "f"), "x": ((2, 3), "f"), "y": ((3, 4), "f")},
         lambda i, x, y: paddle.addmm(i, x, y, beta=0.5, alpha=2.0), batch=False),
    case("addmm", {"i": ((4,), "f"), "x": ((2, 3), "f"), "y": ((3, 4), "f")},
         lambda i, x, y: paddle.addmm(i, x, y), id="addmm_bcast", batch=False),
    case("baddbmm", {"i": ((2, 3, 4), "f"), "x": ((2, 3, 5), "f"), "y": ((2, 5, 4), "f")},
         lambda i, x, y: paddle.baddbmm(i, x, y, beta=1.5, alpha=0.5)),
    case("mv", {"x": ((3, 4), "f"), "v": ((4,), "f")}, lambda x, v: paddle.mv(x, v), batch=False),
    case("determinant", M, lambda x: linalg_solve.det(x)),
    case("trace", {"x": ((3, 4, 5), "f")}, lambda x: paddle.trace(x, offset=1, axis1=2, axis2=1)),
    case("trace", {"x": ((4, 3), "i64")}, lambda x: paddle.trace(x, offset=-1), id="trace_int", batch=False),
    # order statistics / cumulative / unique
    case("kthvalue", {"x": ((3, 5, 4), "f")}, lambda x: paddle.kthvalue(x, 2, axis=1)),
    case("kthvalue", {"x": ((3, 5), "f")}, lambda x: paddle.kthvalue(x, 4, axis=-1, keepdim=True), id="kth_keep"),
    case("logcumsumexp", {"x": ((3, 5), "f")}, lambda x: paddle.logcumsumexp(x * 10, axis=1)),
    case("logcumsumexp", {"x": ((3, 5), "f")}, lambda x: paddle.logcumsumexp(x, axis=None), id="logcumsumexp_flat"),
    case("cumprod", {"x": ((3, 5), "f")}, lambda x: paddle.cumprod(x, dim=1)),
    case("cumprod", {"x": ((3, 5, 2), "f")}, lambda x: run_op("cumprod", x, dim=1, exclusive=True, reverse=True),
         id="cumprod_exclusive_reverse"),
    case("cummax", {"x": ((3, 6), "f")}, lambda x: _nan_free(paddle.cummax(paddle.round(x * 2) + paddle.where(
        x > 0.8, x * np.nan, x * 0), axis=1))),
    case("cummin", {"x": ((4, 3), "i64")}, lambda x: paddle.cummin(x, axis=0, dtype="int32"), batch=False),
    case("cummax", {"x": ((2, 5, 3), "f")}, lambda x: paddle.cummax(x, axis=-2), id="cummax_mid_axis"),
    case("searchsorted", {"s": ((7,), "f"), "v": ((3, 4), "f")}, lambda s, v: paddle.searchsorted(
        paddle.sort(s), paddle.where(v > 1.0, v * np.nan, paddle.round(v))), batch=False),
    case("searchsorted", {"s": ((3, 5), "f"), "v": ((3, 4), "f")}, lambda s, v: paddle.searchsorted(
        paddle.round(paddle.sort(s, axis=-1)), paddle.round(v), right=True, out_int32=True), id="searchsorted_right"),
    case("bincount", {"x": ((9,), "idx6")}, lambda x: paddle.bincount(x, minlength=8), batch=False),
    case("bincount", {"x": ((9,), "idx6"), "w": ((9,), "f")}, lambda x, w: paddle.bincount(x, weights=w),
         batch=False, id="bincount_weights"),
    case("histogram", {"x": ((4, 6), "f")}, lambda x: paddle.histogram(x, bins=5, min=-1, max=1)),
    case("histogram", {"x": ((4, 6), "f")}, lambda x: paddle.histogram(x, bins=4), id="histogram_data_range"),
    case("histogram", {"x": ((4, 6), "f"), "w": ((4, 6), "prob")},
         lambda x, w: paddle.histogram(x, bins=3, min=-0.5, max=1.5, weight=w, density=True), id="histogram_density"),
    case("unique", {"x": ((4, 6), "idx5")}, lambda x: paddle.unique(x, return_index=True, return_inverse=True,
                                                                     return_counts=True), batch=False),
    # manipulation
    case("index_add", {"x": ((5, 3), "f"), "v": ((3, 3), "f")},
         lambda x, v: paddle.index_add(x, paddle.to_tensor(np.array([0, 2, 0])), 0, v), batch=False),
    case("shard_index", {"x": ((4, 1), "idx20")}, lambda x: paddle.shard_index(x, 20, 3, 1, -1)),
    case("reduce_as", {"x": ((2, 3, 4), "f"), "t": ((3, 1), "f")}, lambda x, t: paddle.reduce_as(x, t)),
    case("crop_tensor", {"x": ((4, 6), "f")}, lambda x: paddle.crop(x, shape=[2, -1], offsets=[1, 2]), batch=False),
    case("tril_indices", X, lambda x: paddle.tril_indices(4, 5, -1).astype("float32").sum() + x),
    case("triu_indices", X, lambda x: paddle.triu_indices(3, 6, 2).astype("float32").sum() + x),
    case("swiglu", XY, lambda x, y: F.swiglu(x, y)),
    case("swiglu", {"x": ((2, 6), "f")}, lambda x: F.swiglu(x), id="swiglu_split"),
    case("rms_norm", {"x": ((2, 3, 4), "f")}, lambda x: F.rms_norm(x, [3, 4], paddle.full([3, 4], 1.5), 1e-5)),
    # losses
    case("nll_loss", {"x": ((4, 5), "f"), "t": ((4,), "idx5")},
         lambda x, t: F.nll_loss(F.log_softmax(x), t, weight=paddle.to_tensor(np.arange(1, 6, dtype="float32")),
                                 ignore_index=2)),
    case("nll_loss", {"x": ((4, 5, 3), "f"), "t": ((4, 3), "idx5")},
         lambda x, t: F.nll_loss(F.log_softmax(x, axis=1), t, reduction="none"), id="nll_loss_2d"),
]

V3 = {"x": ((2, 2, 5, 6, 6), "f")}
IMG = {"x": ((2, 4, 6, 6), "f")}


def _rois(x):
    boxes = paddle.to_tensor(np.array([[0.5, 0.5, 4.0, 4.5], [1.0, 0.0, 5.0, 3.0], [0.2, 1.2, 2.0, 5.5]], "float32"))
    return boxes + x[0, 0, 0, :1] * 0


VISION = [
    # 3-D convolution and pooling (ops_vision_extra)
    case("conv3d", {"x": ((2, 2, 5, 6, 6), "f"), "w": ((4, 2, 3, 3, 3), "f")},
         lambda x, w: F.conv3d(x, w, stride=2, padding=1)),
    case("conv3d", {"x": ((2, 2, 5, 6, 6), "f"), "w": ((4, 1, 3, 2, 3), "f")},
         lambda x, w: F.conv3d(x, w, padding="SAME", groups=2, stride=[1, 2, 2]), id="conv3d_same_groups"),
    case("conv3d", {"x": ((2, 5, 6, 6, 2), "f"), "w": ((3, 2, 2, 2, 2), "f")},
         lambda x, w: F.conv3d(x, w, padding=[0, 1, 1, 0, 1, 1], dilation=2, data_format="NDHWC"),
         id="conv3d_ndhwc_pads6"),
    case("conv3d_transpose", {"x": ((2, 2, 3, 4, 4), "f"), "w": ((2, 3, 3, 3, 3), "f")},
         lambda x, w: F.conv3d_transpose(x, w, stride=2, padding=1, output_padding=1)),
    case("conv3d_transpose", {"x": ((2, 2, 3, 4, 4), "f"), "w": ((2, 3, 2, 3, 3), "f")},
         lambda x, w: F.conv3d_transpose(x, w, stride=2, output_size=[7, 10, 10]), id="conv3d_t_size"),
    case("pool3d", V3, lambda x: F.max_pool3d(x, 2, 2)),
    case("pool3d", V3, lambda x: F.avg_pool3d(x, 3, 2, padding=1, exclusive=False, ceil_mode=True), id="avg3d"),
    case("pool3d", V3, lambda x: F.adaptive_avg_pool3d(x, [5, 3, 2]), id="adaptive3d"),
    case("pool3d", V3, lambda x: F.adaptive_avg_pool3d(x, 1), id="global3d"),
    case("max_pool3d_with_index", V3, lambda x: F.max_pool3d(x, 2, return_mask=True)),
    case("lp_pool2d", IMG, lambda x: F.lp_pool2d(x, 2.0, 2, 2)),
    case("lp_pool2d", {"x": ((2, 4, 7, 6), "pos")}, lambda x: F.lp_pool2d(x, 3.0, 3, 2, padding=1, ceil_mode=True),
         id="lp_pool_ceil"),
    case("lp_pool2d", IMG, lambda x: F.lp_pool2d(x, float("inf"), [2, 3], [2, 1]), id="lp_pool_inf"),
    case("unpool", IMG, lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_mask=True), 2)),
    case("unpool3d", {"x": ((2, 2, 4, 4, 6), "f")}, lambda x: F.max_unpool3d(*F.max_pool3d(x, 2, return_mask=True), 2)),
    case("fractional_max_pool2d", {"x": ((2, 3, 7, 9), "f")},
         lambda x: F.fractional_max_pool2d(x, [3, 4], random_u=0.37, return_mask=True)),
    case("fractional_max_pool2d", {"x": ((2, 3, 7, 9), "f")},
         lambda x: F.fractional_max_pool2d(x, [3, 4], kernel_size=[3, 2], random_u=0.6), id="fractional_kernel"),
    case("fractional_max_pool3d", {"x": ((1, 2, 5, 6, 7), "f")},
         lambda x: F.fractional_max_pool3d(x, [2, 3, 3], random_u=0.81, return_mask=True)),
    # fold / shuffles / sampling
    case("fold", {"x": ((2, 12, 28), "f")}, lambda x: F.fold(x, [5, 6], [2, 2], strides=1, paddings=[0, 1]), opset=18),
    case("pixel_unshuffle", IMG, lambda x: F.pixel_unshuffle(x, 2)),
    case("pixel_unshuffle", {"x": ((2, 6, 4, 3), "f")}, lambda x: F.pixel_unshuffle(x, 2, data_format="NHWC"),
         id="pixel_unshuffle_nhwc"),
    case("channel_shuffle", IMG, lambda x: F.channel_shuffle(x, 2)),
    case("grid_sampler", {"x": ((2, 3, 5, 6), "f"), "g": ((2, 4, 3, 2), "f")},
         lambda x, g: F.grid_sample(x, g * 1.2, align_corners=False), opset=16),
    case("grid_sampler", {"x": ((2, 3, 5, 6), "f"), "g": ((2, 4, 3, 2), "f")},
         lambda x, g: F.grid_sample(x, g * 1.2, mode="nearest", padding_mode="border"), opset=16, id="grid_nearest"),
    case("grid_sampler", {"x": ((2, 3, 5, 6), "f"), "g": ((2, 4, 3, 2), "f")},
         lambda x, g: F.grid_sample(x, g * 1.5, padding_mode="reflection", align_corners=False), opset=16,
         id="grid_reflection"),
    case("affine_grid", {"t": ((2, 2, 3), "f")}, lambda t: F.affine_grid(t, [2, 1, 4, 5], align_corners=False),
         batch=False),
    case("affine_grid", {"t": ((2, 2, 3), "f")}, lambda t: F.affine_grid(t, [2, 1, 3, 3]), batch=False,
         id="affine_grid_corners"),
    case("linear_interp_v2", {"x": ((2, 3, 5), "f")},
         lambda x: F.interpolate(x, size=[8], mode="linear", align_corners=False, data_format="NCW")),
    case("trilinear_interp_v2", {"x": ((1, 2, 3, 4, 4), "f")},
         lambda x: F.interpolate(x, scale_factor=2, mode="trilinear", align_corners=True)),
    case("bicubic_interp_v2", IMG, lambda x: F.interpolate(x, size=[9, 11], mode="bicubic", align_corners=False)),
    case("bicubic_interp_v2", IMG, lambda x: F.interpolate(x, size=[4, 9], mode="bicubic", align_corners=True),
         id="bicubic_corners"),
    case("roi_align", {"x": ((2, 3, 8, 8), "f")}, lambda x: vision_ops.roi_align(
        x, _rois(x), paddle.to_tensor(np.array([2, 1], "int32")), 2, 1.0, 2, True), opset=16, batch=False),
    case("roi_align", {"x": ((2, 3, 8, 8), "f")}, lambda x: vision_ops.roi_align(
        x, _rois(x), paddle.to_tensor(np.array([1, 2], "int32")), [3, 2], 0.5, -1, False), opset=16, batch=False,
         id="roi_align_unaligned"),
]
CASES += VISION


def _spectral(x):
    paddle.seed(3)
    layer = paddle.nn.SpectralNorm([4, 6], dim=1, power_iters=2)
    return layer(x)


MORE = [
    # linalg / norms (ops_linalg_extra)
    case("einsum", {"x": ((2, 3, 4), "f"), "y": ((4, 5), "f")}, lambda x, y: paddle.einsum("bij,jk->bik", x, y)),
    case("einsum", {"x": ((3, 4), "f"), "y": ((4, 3), "f")}, lambda x, y: paddle.einsum("Ij,jI", x, y),
         id="einsum_implicit_upper"),
    case("einsum", {"x": ((2, 3, 4), "f")}, lambda x: paddle.einsum("...ij->...ji", x), id="einsum_ellipsis"),
    case("bilinear_tensor_product", {"x": ((2, 3), "f"), "y": ((2, 4), "f"), "w": ((5, 3, 4), "f"), "b": ((1, 5), "f")},
         lambda x, y, w, b: F.bilinear(x, y, w, b)),
    case("cross", {"x": ((2, 3, 4), "f"), "y": ((2, 3, 4), "f")}, lambda x, y: paddle.cross(x, y)),
    case("cross", {"x": ((2, 4, 3), "f"), "y": ((2, 4, 3), "f")}, lambda x, y: paddle.cross(x, y, axis=-1),
         id="cross_last"),
    case("dist", XY, lambda x, y: paddle.dist(x, y)),
    case("dist", XY, lambda x, y: paddle.dist(x, y, 3.0), id="dist_p3"),
    case("dist", XY, lambda x, y: paddle.dist(x, y, float("inf")), id="dist_inf"),
    case("dist", XY, lambda x, y: paddle.dist(x, paddle.where(x > 0, x, y), 0.0), id="dist_p0"),
    case("kron", {"x": ((2, 3), "f"), "y": ((3, 2, 2), "f")}, lambda x, y: paddle.kron(x, y), batch=False),
    case("renorm", {"x": ((3, 4, 2), "f")}, lambda x: paddle.renorm(x, 2.0, 1, 1.2)),
    case("matrix_power", M, lambda x: linalg.matrix_power(x * 0.5, 5)),
    case("matrix_power", M, lambda x: linalg.matrix_power(x, 0), id="matrix_power_0"),
    case("multi_dot", {"a": ((4,), "f"), "b": ((4, 3), "f"), "c": ((3, 5), "f"), "d": ((5,), "f")},
         lambda a, b, c, d: linalg.multi_dot([a, b, c, d]), batch=False),
    case("spectral_norm", {"x": ((4, 6), "f")}, _spectral, batch=False),
    case("spectral_norm", {"x": ((3, 2, 2, 2), "f")}, lambda x: paddle.nn.SpectralNorm([3, 2, 2, 2], dim=0)(x),
         batch=False, id="spectral_norm_4d"),
    # manipulation (ops_math_extra)
    case("reverse", {"x": ((2, 3, 4), "f")}, lambda x: run_op("reverse", x, axis=[0, 2])),   # legacy models
    case("diag_embed", {"x": ((2, 3), "f")}, lambda x: paddle.diag_embed(x)),
    case("diag_embed", {"x": ((2, 3), "f")}, lambda x: paddle.diag_embed(x, offset=-1, dim1=0, dim2=2),
         id="diag_embed_dims"),
    case("diag_embed", {"x": ((2, 3), "f")}, lambda x: paddle.diag_embed(x, offset=2, dim1=1, dim2=0),
         id="diag_embed_swapped"),
    case("multiplex", {"a": ((4, 3), "f"), "b": ((4, 3), "f")},
         lambda a, b: paddle.multiplex([a, b], paddle.to_tensor(np.array([[1], [0], [1], [1]], "int32"))),
         batch=False),
    case("temporal_shift", {"x": ((4, 8, 2, 3), "f")}, lambda x: F.temporal_shift(x, 2, 0.25)),
    case("temporal_shift", {"x": ((6, 2, 3, 5), "f")}, lambda x: F.temporal_shift(x, 3, 0.2, data_format="NHWC"),
         id="temporal_shift_nhwc"),
    # detection (ops_vision_extra)
    case("prior_box", {"x": ((1, 2, 3, 4), "f"), "img": ((1, 3, 12, 16), "f")},
         lambda x, img: vision_ops.prior_box(x, img, [2.0, 4.0], [5.0, 6.0], [1.0, 2.0], flip=True, clip=True)),
    case("box_coder", {"p": ((3, 4), "pos"), "t": ((2, 4), "pos")}, lambda p, t: vision_ops.box_coder(
        paddle.concat([p[:, :2], p[:, :2] + p[:, 2:] + 0.5], 1), [0.1, 0.1, 0.2, 0.2],
        paddle.concat([t[:, :2], t[:, :2] + t[:, 2:]], 1), "encode_center_size"), batch=False),
    case("box_coder", {"p": ((3, 4), "pos"), "v": ((3, 4), "prob"), "t": ((2, 3, 4), "f")}, lambda p, v, t:
         vision_ops.box_coder(paddle.concat([p[:, :2], p[:, :2] + p[:, 2:] + 0.5], 1), v, t, "decode_center_size",
                              box_normalized=False), batch=False, id="box_decode"),
    case("box_coder", {"p": ((2, 4), "pos"), "t": ((2, 3, 4), "f")}, lambda p, t: vision_ops.box_coder(
        paddle.concat([p[:, :2], p[:, :2] + p[:, 2:]], 1), [0.1, 0.1, 0.2, 0.2], t, "decode_center_size", axis=1),
         batch=False, id="box_decode_axis1"),
    case("roi_pool", {"x": ((2, 3, 8, 8), "f")}, lambda x: vision_ops.roi_pool(
        x, _rois(x) * 1.3, paddle.to_tensor(np.array([2, 1], "int32")), [3, 2], 0.7), batch=False),
    case("deformable_conv", {"x": ((1, 2, 5, 5), "f"), "o": ((1, 18, 5, 5), "f"), "w": ((4, 2, 3, 3), "f"),
                             "m": ((1, 9, 5, 5), "prob")},
         lambda x, o, w, m: vision_ops.deform_conv2d(x, o * 1.5, w, padding=1, mask=m), opset=19, batch=False),
    case("deformable_conv_v1", {"x": ((1, 4, 6, 6), "f"), "o": ((1, 36, 2, 2), "f"), "w": ((2, 2, 3, 3), "f")},
         lambda x, o, w: vision_ops.deform_conv2d(x, o, w, stride=2, dilation=1, deformable_groups=2, groups=2),
         opset=19, batch=False),
]
CASES += MORE

def _y_and_match(outs):
    return outs[0], outs[2]   # Y and MatchX (XShape is an intermediate)


GATHER = [
    # data movement through the op's own kernel on index tensors (ops_gather_extra)
    case("diagonal", {"x": ((3, 4, 5), "f")}, lambda x: paddle.diagonal(x, 1, 2, 0), batch=False),
    case("unfold", {"x": ((2, 3, 5, 6), "f")}, lambda x: F.unfold(x, [2, 3], strides=[1, 2], paddings=1, dilations=1),
         batch=False),
    case("frame", {"x": ((2, 9), "f")}, lambda x: paddle.signal.frame(x, 4, 2), batch=False),
    case("as_strided", {"x": ((4, 6), "f")}, lambda x: run_op("as_strided", x, dims=[3, 2], stride=[2, 5], offset=4),
         batch=False),
    case("fill_any", X, lambda x: run_op("fill_any", x, value=2.5)),
    case("fill_diagonal", {"x": ((5, 3), "f")}, lambda x: run_op("fill_diagonal", x, value=-1.5, offset=1, wrap=True),
         batch=False),
    case("fill_diagonal_tensor", {"x": ((2, 4, 3), "f"), "y": ((2, 3), "f")},
         lambda x, y: run_op("fill_diagonal_tensor", x, y, offset=-1, dim1=1, dim2=2), batch=False),
    case("index_put", {"x": ((4, 3, 2), "f"), "v": ((2,), "f")}, lambda x, v: paddle.index_put(
        x, (paddle.to_tensor(np.array([0, 3, -1])), paddle.to_tensor(np.array([[1], [2]]))), v), batch=False),
    case("index_put", {"x": ((4, 3), "f"), "v": ((1,), "f")}, lambda x, v: paddle.index_put(
        x, (paddle.to_tensor(np.array([0, 2, 0])),), v, accumulate=True), batch=False, id="index_put_accumulate"),
    case("index_put", {"x": ((4, 3), "f")}, lambda x: paddle.index_put(x, (x > 0.3,), paddle.to_tensor(
        np.array([7.0], "float32"))), id="index_put_mask"),
    # losses
    case("cross_entropy2", {"x": ((4, 5), "prob"), "t": ((4, 1), "idx5")},
         lambda x, t: _y_and_match(run_op("cross_entropy2", x, paddle.where(t == 3, paddle.full_like(t, -100), t)))),
]
CASES += GATHER

# the lowerings this file tests (test_op_table.test_every_lowering_is_tested counts them as covered)
TESTED = {c.values[0] for c in CASES}


@pytest.mark.parametrize("op_type, inputs, fn, opset, batch, rtol", CASES)
def test_op(op_type, inputs, fn, opset, batch, rtol):
    rng = np.random.default_rng(abs(hash(op_type)) % 2 ** 32)
    feeds = {n: _gen(spec, rng) for n, spec in inputs.items()}

    def program():
        vs = {n: static.data(n, [None if (batch and i == 0) else d for i, d in enumerate(spec[0])],
                             _DT.get(spec[1], "int64"))
              for n, spec in inputs.items()}
        return fn(**vs)
    b = build(program)
    types = {op.type for blk in b.main.blocks for op in blk.ops}
    assert op_type in types, f"{op_type} not in the program (ops: {sorted(types)})"
    parity(b, [feeds], opset=opset, rtol=rtol)


def test_trace_over_an_unknown_size_is_a_clear_error():
    b = build(lambda: paddle.trace(static.data("x", [None, 3]), offset=-1))   # the traced axes: [None, 3]
    with pytest.raises(UnsupportedOpError, match=r"'trace' over axes of unknown size.*test_op_table_extra.py:\d+"):
        b.export()


# ops with no ONNX counterpart: export names the op and the user's line
NO_ONNX = [
    ("digamma", lambda x: paddle.digamma(x)),
    ("lgamma", lambda x: paddle.lgamma(x)),
    ("erfinv", lambda x: paddle.erfinv(x * 0.5)),
    ("i0", lambda x: paddle.i0(x)),
    ("nextafter", lambda x: paddle.nextafter(x, x * 2)),
    ("nanmedian", lambda x: paddle.nanmedian(x, axis=1)),
    ("inverse", lambda x: linalg_solve.inv(x[:, :2] @ x[:, :2].T)),
]


@pytest.mark.parametrize("op_type, fn", NO_ONNX, ids=[n for n, _ in NO_ONNX])
def test_op_without_onnx_equivalent_is_named(op_type, fn):
    b = build(lambda: fn(static.data("x", [3, 3])))
    with pytest.raises(UnsupportedOpError, match=f"'{op_type}' has no ONNX lowering.*test_op_table_extra.py"):
        b.export()


def test_fractional_pool_without_random_u_is_a_clear_error():
    b = build(lambda: F.fractional_max_pool2d(static.data("x", [1, 2, 6, 6]), 3))
    with pytest.raises(UnsupportedOpError, match="without random_u draws its windows at run time"):
        b.export()
