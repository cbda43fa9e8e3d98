"""One tiny Program per lowered op: the op is in the Program, and onnxruntime matches our executor."""
import numpy as np
import pytest

import runtime as paddle
from runtime import static
from runtime.dispatch import run_op
from runtime.onnx.lowering import LOWERINGS

from .helpers import build, needs_ort, parity, static_mode  # noqa: F401

F = paddle.nn.functional
pytestmark = [needs_ort, pytest.mark.usefixtures("static_mode")]


def _gen(spec, rng):
    shape, kind = spec
    if kind == "f":
        return rng.standard_normal(shape).astype(np.float32)
    if kind == "pos":
        return (rng.random(shape) + 0.5).astype(np.float32)
    if kind == "unit":   # inside (-1, 1)
        return (rng.random(shape) * 1.8 - 0.9).astype(np.float32)
    if kind == "prob":
        return (rng.random(shape) * 0.9 + 0.05).astype(np.float32)
    if kind == "gt1":
        return (rng.random(shape) + 1.5).astype(np.float32)
    if kind == "i64":
        return rng.integers(-5, 6, shape).astype(np.int64)
    if kind == "i32":
        return rng.integers(-5, 6, shape).astype(np.int32)
    if kind == "nz64":
        v = rng.integers(1, 6, shape).astype(np.int64)
        return v * np.where(rng.random(shape) < 0.5, -1, 1)
    if kind == "bool":
        return rng.random(shape) < 0.5
    if kind.startswith("idx"):   # idx<N>: int64 indices in [0, N)
        return rng.integers(0, int(kind[3:]), shape).astype(np.int64)
    raise ValueError(kind)


_DT = {"f": "float32", "pos": "float32", "unit": "float32", "prob": "float32", "gt1": "float32", "i64": "int64",
       "i32": "int32", "nz64": "int64", "bool": "bool"}


def case(op, inputs, fn, opset=17, id=None, batch=True):
    """``inputs``: name -> (shape, kind); ``fn(**vars)`` builds the op; ``batch`` makes dim 0 dynamic."""
    return pytest.param(op, inputs, fn, opset, batch, id=id or op)


S = (2, 3)
X = {"x": (S, "f")}
XY = {"x": (S, "f"), "y": (S, "f")}
IMG = {"x": ((2, 3, 6, 6), "f")}


CASES = [
    # elementwise / math
    case("elementwise_add", {"x": ((2, 3, 4), "f"), "y": ((4,), "f")}, lambda x, y: x + y),
    case("elementwise_sub", XY, lambda x, y: x - y),
    case("elementwise_mul", XY, lambda x, y: x * y),
    case("elementwise_div", {"x": (S, "f"), "y": (S, "pos")}, lambda x, y: x / y),
    case("elementwise_div", {"x": (S, "i64"), "y": (S, "nz64")}, lambda x, y: x / y, id="div_int"),
    case("elementwise_pow", {"x": (S, "pos"), "y": (S, "f")}, lambda x, y: x ** y),
    case("elementwise_max", XY, lambda x, y: paddle.maximum(x, y)),
    case("elementwise_min", XY, lambda x, y: paddle.minimum(x, y)),
    case("elementwise_mod", {"x": (S, "i64"), "y": (S, "nz64")}, lambda x, y: paddle.remainder(x, y)),
    case("elementwise_mod", {"x": (S, "f"), "y": (S, "gt1")}, lambda x, y: paddle.remainder(x, y * -1.0),
         id="mod_float"),
    case("elementwise_floordiv", {"x": (S, "i64"), "y": (S, "nz64")}, lambda x, y: paddle.floor_divide(x, y)),
    case("scale", X, lambda x: paddle.scale(x, 2.0, 0.5, bias_after_scale=False)),
    case("sum", XY, lambda x, y: paddle.add_n([x, y, x])),
    case("pow", {"x": (S, "pos")}, lambda x: paddle.pow(x, 2.5)),
    case("clip", X, lambda x: paddle.clip(x, -0.5, 0.7)),
    case("cumsum", X, lambda x: paddle.cumsum(x, axis=1)),
    case("cast", X, lambda x: paddle.cast(x * 3.0, "int32")),
    case("where", {"c": (S, "bool"), "x": (S, "f"), "y": (S, "f")}, lambda c, x, y: paddle.where(c, x, y)),
    case("abs", X, lambda x: paddle.abs(x)),
    case("exp", X, lambda x: paddle.exp(x)),
    case("log", {"x": (S, "pos")}, lambda x: paddle.log(x)),
    case("log1p", {"x": (S, "pos")}, lambda x: paddle.log1p(x)),
    case("log2", {"x": (S, "pos")}, lambda x: paddle.log2(x)),
    case("log10", {"x": (S, "pos")}, lambda x: paddle.log10(x)),
    case("expm1", X, lambda x: paddle.expm1(x)),
    case("sqrt", {"x": (S, "pos")}, lambda x: paddle.sqrt(x)),
    case("rsqrt", {"x": (S, "pos")}, lambda x: paddle.rsqrt(x)),
    case("reciprocal", {"x": (S, "pos")}, lambda x: paddle.reciprocal(x)),
    case("square", X, lambda x: paddle.square(x)),
    case("sin", X, lambda x: paddle.sin(x)),
    case("cos", X, lambda x: paddle.cos(x)),
    case("tan", {"x": (S, "unit")}, lambda x: paddle.tan(x)),
    case("asin", {"x": (S, "unit")}, lambda x: paddle.asin(x)),
    case("acos", {"x": (S, "unit")}, lambda x: paddle.acos(x)),
    case("atan", X, lambda x: paddle.atan(x)),
    case("sinh", X, lambda x: paddle.sinh(x)),
    case("cosh", X, lambda x: paddle.cosh(x)),
    case("asinh", X, lambda x: paddle.asinh(x)),
    case("acosh", {"x": (S, "gt1")}, lambda x: paddle.acosh(x)),
    case("atanh", {"x": (S, "unit")}, lambda x: paddle.atanh(x)),
    case("ceil", X, lambda x: paddle.ceil(x)),
    case("floor", X, lambda x: paddle.floor(x)),
    case("round", X, lambda x: paddle.round(x * 3.0)),
    case("trunc", X, lambda x: paddle.trunc(x * 3.0)),
    case("sign", X, lambda x: paddle.sign(x)),
    case("erf", X, lambda x: paddle.erf(x)),
    case("stanh", X, lambda x: paddle.stanh(x)),
    case("isnan_v2", X, lambda x: paddle.isnan(paddle.log(x))),
    case("isinf_v2", X, lambda x: paddle.isinf(1.0 / (x * 0.0))),
    case("isfinite_v2", X, lambda x: paddle.isfinite(paddle.log(x))),
    # comparison / logic / bitwise
    case("equal", {"x": (S, "i64"), "y": (S, "i64")}, lambda x, y: x == y),
    case("not_equal", {"x": (S, "i64"), "y": (S, "i64")}, lambda x, y: x != y),
    case("less_than", XY, lambda x, y: x < y),
    case("less_equal", XY, lambda x, y: x <= y),
    case("greater_than", XY, lambda x, y: x > y),
    case("greater_equal", XY, lambda x, y: x >= y),
    case("logical_and", {"x": (S, "bool"), "y": (S, "bool")}, lambda x, y: paddle.logical_and(x, y)),
    case("logical_or", {"x": (S, "bool"), "y": (S, "bool")}, lambda x, y: paddle.logical_or(x, y)),
    case("logical_xor", {"x": (S, "bool"), "y": (S, "bool")}, lambda x, y: paddle.logical_xor(x, y)),
    case("logical_not", {"x": (S, "bool")}, lambda x: paddle.logical_not(x)),
    case("bitwise_and", {"x": (S, "i32"), "y": (S, "i32")}, lambda x, y: paddle.bitwise_and(x, y), opset=18),
    case("bitwise_or", {"x": (S, "i32"), "y": (S, "i32")}, lambda x, y: paddle.bitwise_or(x, y), opset=18),
    case("bitwise_xor", {"x": (S, "bool"), "y": (S, "bool")}, lambda x, y: paddle.bitwise_xor(x, y)),
    case("bitwise_not", {"x": (S, "i32")}, lambda x: paddle.bitwise_not(x), opset=18),
    # activations
    case("relu", X, lambda x: F.relu(x)),
    case("relu6", X, lambda x: F.relu6(x * 4.0)),
    case("leaky_relu", X, lambda x: F.leaky_relu(x, 0.1)),
    case("elu", X, lambda x: F.elu(x, 0.7)),
    case("sigmoid", X, lambda x: F.sigmoid(x)),
    case("tanh", X, lambda x: paddle.tanh(x)),
    case("silu", X, lambda x: F.silu(x)),
    case("swish", X, lambda x: F.swish(x)),
    case("gelu", X, lambda x: F.gelu(x)),
    case("gelu", X, lambda x: F.gelu(x, approximate=True), id="gelu_tanh"),
    case("gelu", X, lambda x: F.gelu(x, approximate=True), opset=20, id="gelu_tanh_opset20"),
    case("hard_sigmoid", X, lambda x: F.hardsigmoid(x * 3.0)),
    case("hard_swish", X, lambda x: F.hardswish(x * 3.0)),
    case("softplus", X, lambda x: F.softplus(x * 10.0, beta=2.0, threshold=15.0)),
    case("softsign", X, lambda x: F.softsign(x)),
    case("softmax", X, lambda x: F.softmax(x, axis=0)),
    case("log_softmax", X, lambda x: F.log_softmax(x)),
    case("selu", X, lambda x: F.selu(x)),
    case("celu", X, lambda x: F.celu(x, 0.6)),
    case("hard_shrink", X, lambda x: F.hardshrink(x, 0.4)),
    case("softshrink", X, lambda x: F.softshrink(x, 0.3)),
    case("tanh_shrink", X, lambda x: F.tanhshrink(x)),
    case("mish", X, lambda x: F.mish(x * 12.0)),
    case("logsigmoid", X, lambda x: F.log_sigmoid(x * 5.0)),
    case("thresholded_relu", X, lambda x: F.thresholded_relu(x, 0.2, -1.0)),
    case("brelu", X, lambda x: F.hardtanh(x, -0.5, 0.8)),
    case("prelu", IMG, lambda x: F.prelu(x, paddle.to_tensor(np.array([0.1, 0.2, 0.3], np.float32)))),
    case("prelu", X, lambda x: F.prelu(x, paddle.to_tensor(np.array([0.25], np.float32))), id="prelu_all"),
    case("prelu", {"x": ((2, 4, 3), "f")},
         lambda x: F.prelu(x, paddle.to_tensor(np.array([0.1, 0.2, 0.3], np.float32)), data_format="NLC"),
         id="prelu_channel_last"),
    case("maxout", {"x": ((2, 4, 3, 3), "f")}, lambda x: F.maxout(x, 2)),
    case("maxout", {"x": ((2, 3, 3, 6), "f")}, lambda x: F.maxout(x, 3, axis=-1), id="maxout_nhwc"),
    case("bmm", {"x": ((2, 3, 4), "f"), "y": ((2, 4, 5), "f")}, lambda x, y: paddle.bmm(x, y)),
    # reductions
    case("reduce_sum", {"x": ((2, 3, 4), "f")}, lambda x: paddle.sum(x, axis=[0, 2])),
    case("reduce_sum", {"x": (S, "i32")}, lambda x: paddle.sum(x), id="sum_int32_to_int64"),
    case("reduce_mean", {"x": ((2, 3, 4), "f")}, lambda x: paddle.mean(x, axis=1, keepdim=True)),
    case("reduce_mean", X, lambda x: paddle.mean(x), opset=18, id="mean_all_opset18"),
    case("reduce_max", X, lambda x: paddle.max(x, axis=-1)),
    case("reduce_min", X, lambda x: paddle.min(x, axis=0)),
    case("reduce_prod", X, lambda x: paddle.prod(x, axis=1)),
    case("reduce_all", {"x": (S, "bool")}, lambda x: paddle.all(x, axis=1)),
    case("reduce_any", {"x": (S, "bool")}, lambda x: paddle.any(x)),
    case("logsumexp", X, lambda x: paddle.logsumexp(x, axis=1)),
    case("p_norm", X, lambda x: paddle.norm(x, p=2, axis=1)),
    case("p_norm", X, lambda x: paddle.norm(x, p=3, axis=0), id="p_norm_3"),
    case("frobenius_norm", X, lambda x: paddle.norm(x, p="fro", axis=[0, 1])),
    case("arg_max", X, lambda x: paddle.argmax(x, axis=1)),
    case("arg_min", X, lambda x: paddle.argmin(x, axis=0, keepdim=True)),
    case("top_k_v2", X, lambda x: paddle.topk(x, 2, axis=1)[0]),
    case("top_k_v2", X, lambda x: paddle.topk(x, 2, axis=1, largest=False)[1], id="top_k_indices"),
    case("argsort", X, lambda x: paddle.argsort(x, axis=1, descending=True)),
    # shape / manipulation
    case("reshape2", {"x": ((2, 3, 4), "f")}, lambda x: paddle.reshape(x, [0, -1])),
    case("transpose2", {"x": ((2, 3, 4), "f")}, lambda x: paddle.transpose(x, [2, 0, 1])),
    case("flatten_contiguous_range", {"x": ((2, 3, 4, 5), "f")}, lambda x: paddle.flatten(x, 1, 2)),
    case("squeeze2", {"x": ((2, 1, 3), "f")}, lambda x: paddle.squeeze(x, axis=1)),
    case("unsqueeze2", X, lambda x: paddle.unsqueeze(x, [0, 3])),
    case("concat", XY, lambda x, y: paddle.concat([x, y], axis=-1)),
    case("split", {"x": ((2, 6), "f")}, lambda x: paddle.split(x, [1, -1, 2], axis=1)[1]),
    case("split", {"x": ((2, 6), "f")}, lambda x: paddle.split(x, 3, axis=1)[2], id="split_num"),
    case("stack", XY, lambda x, y: paddle.stack([x, y], axis=1)),
    case("unstack", X, lambda x: paddle.unstack(x, axis=1)[2]),
    case("slice", {"x": ((2, 5, 4), "f")}, lambda x: x[:, 1:4, -1]),
    case("strided_slice", {"x": ((2, 7), "f")}, lambda x: paddle.strided_slice(x, [1], [6], [-7], [-2])),
    case("tile", X, lambda x: paddle.tile(x, [2, 1, 2])),
    case("expand_v2", {"x": ((2, 1), "f")}, lambda x: paddle.expand(x, [3, -1, 4])),
    case("expand_as_v2", {"x": ((1, 3), "f"), "y": ((2, 3), "f")}, lambda x, y: paddle.expand_as(x, y),
         batch=False),
    case("flip", X, lambda x: paddle.flip(x, [0, 1])),
    case("roll", X, lambda x: paddle.roll(x, [1, -4], [0, 1])),
    case("roll", X, lambda x: paddle.roll(x, 2), id="roll_flat"),
    case("shape", X, lambda x: paddle.shape(x)),
    case("size", X, lambda x: paddle.numel(x)),
    case("fill_constant", X, lambda x: x + paddle.full([2, 3], 1.5)),
    case("fill_any_like", X, lambda x: paddle.ones_like(x) + paddle.full_like(x, 3.0)),
    case("assign", X, lambda x: paddle.assign(x) * 2.0),
    case("assign_value", X, lambda x: x + paddle.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3))),
    case("range", X, lambda x: paddle.arange(0, 10, 3, dtype="int64")),
    case("linspace", X, lambda x: paddle.linspace(-1.0, 2.0, 7)),
    case("eye", X, lambda x: paddle.eye(3, 4)),
    case("tril_triu", {"x": ((4, 4), "f")}, lambda x: paddle.tril(x, -1) + paddle.triu(x, 1)),
    case("diag_v2", {"x": ((4,), "f")}, lambda x: paddle.diag(x, offset=1), batch=False),
    case("gather", {"x": ((5, 3), "f"), "i": ((4,), "idx5")}, lambda x, i: paddle.gather(x, i), batch=False),
    case("gather_nd", {"x": ((3, 4), "f"), "i": ((2, 2), "idx3")}, lambda x, i: paddle.gather_nd(x, i),
         batch=False),
    case("index_select", {"x": ((3, 4), "f"), "i": ((3,), "idx4")},
         lambda x, i: paddle.index_select(x, i, axis=1), batch=False),
    case("index_sample", {"x": ((3, 4), "f"), "i": ((3, 2), "idx4")}, lambda x, i: paddle.index_sample(x, i)),
    case("take_along_axis", {"x": ((3, 4), "f"), "i": ((3, 2), "idx4")},
         lambda x, i: paddle.take_along_axis(x, i, 1)),
    case("put_along_axis", {"x": ((3, 4), "f"), "i": ((3, 1), "idx4"), "v": ((3, 1), "f")},
         lambda x, i, v: paddle.put_along_axis(x, i, v, 1)),
    case("put_along_axis", {"x": ((3, 4), "f"), "i": ((3, 2), "idx4"), "v": ((3, 2), "f")},
         lambda x, i, v: paddle.put_along_axis(x, i, v, 1, reduce="add"), id="put_along_axis_add"),
    case("scatter", {"x": ((5, 3), "f"), "u": ((2, 3), "f")},
         lambda x, u: paddle.scatter(x, paddle.to_tensor(np.array([3, 1], np.int64)), u), batch=False),
    case("scatter", {"x": ((5, 3), "f"), "u": ((3, 3), "f")},
         lambda x, u: paddle.scatter(x, paddle.to_tensor(np.array([3, 1, 3], np.int64)), u, overwrite=False),
         batch=False, id="scatter_add"),
    case("scatter_nd_add", {"x": ((4, 3), "f"), "u": ((3, 3), "f")},
         lambda x, u: paddle.scatter_nd_add(x, paddle.to_tensor(np.array([[1], [2], [1]], np.int64)), u),
         batch=False),
    case("one_hot_v2", {"i": ((4,), "idx5")}, lambda i: F.one_hot(i, 5)),
    case("where_index", {"x": (S, "bool")}, lambda x: paddle.nonzero(x), batch=False),
    case("masked_select", {"x": (S, "f"), "m": (S, "bool")}, lambda x, m: paddle.masked_select(x, m),
         batch=False),
    case("lookup_table_v2", {"i": ((2, 3), "idx6")},
         lambda i: F.embedding(i, paddle.to_tensor(np.arange(24, dtype=np.float32).reshape(6, 4)),
                               padding_idx=2)),
    case("pad", X, lambda x: F.pad(x, [1, 0, 2, 1], value=9.0)),
    case("pad3d", {"x": ((2, 2, 3, 4), "f")}, lambda x: F.pad(x, [1, 2, 0, 1], mode="reflect")),
    case("pad3d", {"x": ((2, 2, 3, 4), "f")}, lambda x: F.pad(x, [1, 2, 2, 1], mode="replicate"),
         id="pad3d_replicate"),
    case("pixel_shuffle", {"x": ((2, 8, 3, 3), "f")}, lambda x: F.pixel_shuffle(x, 2)),
    # nn
    case("matmul_v2", {"x": ((2, 3, 4), "f"), "y": ((5, 4), "f")},
         lambda x, y: paddle.matmul(x, y, transpose_y=True)),
    case("matmul_v2", {"x": ((2, 4), "f"), "y": ((4,), "f")}, lambda x, y: paddle.matmul(x, y), id="matvec"),
    case("dot", XY, lambda x, y: paddle.dot(x, y)),
    case("conv2d", IMG, lambda x: paddle.nn.Conv2D(3, 4, 3, stride=2, padding=[1, 0])(x)),
    case("conv2d", IMG, lambda x: paddle.nn.Conv2D(3, 4, 3, padding="SAME", dilation=2)(x), id="conv_same"),
    case("depthwise_conv2d", IMG, lambda x: paddle.nn.Conv2D(3, 6, 3, groups=3)(x)),
    case("conv2d", {"x": ((2, 6, 6, 3), "f")}, lambda x: paddle.nn.Conv2D(3, 4, 3, data_format="NHWC")(x),
         id="conv_nhwc"),
    case("conv2d_transpose", IMG, lambda x: paddle.nn.Conv2DTranspose(3, 2, 3, stride=2, padding=1,
                                                                    output_padding=1)(x)),
    case("pool2d", IMG, lambda x: F.max_pool2d(x, 3, 2, padding=1, ceil_mode=True)),
    case("pool2d", IMG, lambda x: F.avg_pool2d(x, 2, 2, padding=1, exclusive=False), id="avg_pool_inclusive"),
    case("pool2d", IMG, lambda x: F.avg_pool2d(x, 3, 2, padding=1), id="avg_pool_exclusive"),
    case("pool2d", IMG, lambda x: F.adaptive_avg_pool2d(x, [4, 3]), id="adaptive_avg"),
    case("pool2d", IMG, lambda x: F.adaptive_avg_pool2d(x, 1), id="adaptive_global"),
    case("max_pool2d_with_index", IMG, lambda x: F.adaptive_max_pool2d(x, 3)),
    case("batch_norm", IMG, lambda x: F.batch_norm(x, paddle.to_tensor(np.array([0.1, -0.2, 0.3], np.float32)),
                                                   paddle.to_tensor(np.array([1.5, 0.5, 2.0], np.float32)),
                                                   training=False)),
    case("layer_norm", {"x": ((2, 3, 4), "f")}, lambda x: paddle.nn.LayerNorm([3, 4])(x)),
    case("layer_norm", {"x": ((2, 3, 4), "f")}, lambda x: paddle.nn.LayerNorm(4)(x), opset=13,
         id="layer_norm_opset13"),
    case("group_norm", IMG, lambda x: paddle.nn.GroupNorm(1, 3)(x)),
    case("instance_norm", IMG, lambda x: paddle.nn.InstanceNorm2D(3)(x)),
    case("dropout", X, lambda x: F.dropout(x, 0.3, training=False, mode="downscale_in_infer")),
    case("nearest_interp_v2", IMG, lambda x: F.interpolate(x, scale_factor=2, mode="nearest")),
    case("bilinear_interp_v2", IMG, lambda x: F.interpolate(x, size=[9, 5], mode="bilinear")),
    case("bilinear_interp_v2", IMG, lambda x: F.interpolate(x, size=[9, 5], mode="bilinear", align_corners=True),
         id="bilinear_align_corners"),
    case("bilinear_interp_v2", IMG, lambda x: F.interpolate(x, size=[9, 5], mode="bilinear", align_mode=1),
         id="bilinear_align_mode1"),
    case("bce_loss", {"x": (S, "prob"), "y": (S, "prob")}, lambda x, y: F.binary_cross_entropy(x, y, reduction="none")),
    case("sigmoid_cross_entropy_with_logits", XY,
         lambda x, y: F.binary_cross_entropy_with_logits(x, F.sigmoid(y), reduction="none")),
    case("huber_loss", XY, lambda x, y: F.smooth_l1_loss(x, y, reduction="none")),
    case("kldiv_loss", {"x": (S, "f"), "y": (S, "prob")}, lambda x, y: F.kl_div(x, y, reduction="batchmean")),
    case("softmax_with_cross_entropy", {"x": ((4, 5), "f"), "i": ((4, 1), "idx5")},
         lambda x, i: F.softmax_with_cross_entropy(x, i)),
    case("label_smooth", {"x": (S, "prob")}, lambda x: F.label_smooth(x, epsilon=0.1)),
    # ops without a public API of their own, built with run_op
    case("mul", {"x": ((2, 3, 4), "f"), "y": ((4, 5), "f")}, lambda x, y: run_op("mul", x, y, x_num_col_dims=2)),
    case("mul", {"x": ((2, 3, 4), "f"), "y": ((12, 2), "f")}, lambda x, y: run_op("mul", x, y), id="mul_flatten"),
    case("increment", {"x": ((1,), "i64")}, lambda x: run_op("increment", x, step=3.0), batch=False),
    case("mean", X, lambda x: run_op("mean", x)),
    case("squared_l2_norm", X, lambda x: run_op("squared_l2_norm", x)),
    case("print", X, lambda x: static.Print(x, message="hi") * 2.0),
    case("depthwise_conv2d_transpose", IMG, lambda x: paddle.nn.Conv2DTranspose(3, 3, 3, groups=3)(x)),
    # edge forms: 0-D values, unknown dims in the middle, squeeze without axes
    case("softmax", {"x": ((), "f")}, lambda x: F.softmax(x), batch=False, id="softmax_0d"),
    case("reduce_sum", {"x": ((), "f")}, lambda x: paddle.sum(x) + 1.0, batch=False, id="sum_0d"),
    case("flatten_contiguous_range", {"x": ((2, 3, 4), "f")}, lambda x: paddle.flatten(x, 0, 1),
         id="flatten_dynamic_lead"),
    case("squeeze2", {"x": ((1, 3, 1), "f")}, lambda x: paddle.squeeze(x), batch=False, id="squeeze_all"),
    case("reshape2", {"x": ((2, 3, 4), "f")},
         lambda x: paddle.reshape(x, [paddle.shape(x)[0], -1]), id="reshape_tensor_shape"),
    case("slice", {"x": ((2, 5, 4), "f")}, lambda x: paddle.slice(x, [1], [paddle.shape(x)[1] - 3], [5]),
         id="slice_tensor_start"),
]

COVERED_ELSEWHERE = {"conditional_block", "select_input", "while",   # test_models.py
                     "set_value"}                                        # test_set_value.py


@pytest.mark.parametrize("op_type, inputs, fn, opset, batch", CASES)
def test_op(op_type, inputs, fn, opset, batch):
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
    parity(b, [feeds], opset=opset)


def test_every_lowering_is_tested():
    from .test_op_table_extra import TESTED as tested_extra   # the later ops' lowerings
    tested = {c.values[0] for c in CASES} | COVERED_ELSEWHERE | tested_extra
    assert set(LOWERINGS) - tested == set()
