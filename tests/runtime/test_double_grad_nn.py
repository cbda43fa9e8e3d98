"""Second-order gradients through the ops real models differentiate twice (runtime/double_grad*.py).

Each row is ``f(*leaves)``; ``loss = sum_i sum(w_i * d/dleaf_i sum(v * f))`` is built with
``paddle.grad(create_graph=True)`` and differentiated again, eagerly and under to_static (``paddle.grad``
inside the converted function). Every leaf's gradient (a Hessian-vector product) must equal central finite
differences of the first-order gradients (float64; first-order gradients come from the ordinary tape,
which the op table checks against finite differences).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F


def _u(seed, shape, lo=-1.0, hi=1.0):
    return np.random.RandomState(seed).uniform(lo, hi, shape)


def _t(a):
    return paddle.to_tensor(a)


LABEL = np.array([[2], [0], [3]], dtype=np.int64)
SOFT = _u(9, (3, 4), 0.1, 1.0)
SOFT = SOFT / SOFT.sum(1, keepdims=True)
BIN = (_u(10, (3, 4)) > 0).astype(np.float64)
IDS = np.array([[1, 3], [0, 1]], dtype=np.int64)


def _bn(training):
    def f(x, w, b):
        rm, rv = _t(np.zeros(2)), _t(np.ones(2) * 1.5)
        y = F.batch_norm(x, rm, rv, weight=w, bias=b, training=training, epsilon=1e-3)
        return y * y
    return f


def _dropout(x):
    paddle.seed(7)
    return F.dropout(x, 0.5, training=True) * x


def _set_rows(x, v):
    y = x * x
    y[0:2] = paddle.sin(v)      # set_value (in place eagerly, a set_value op under to_static)
    return y * x


def _set_rows_scalar(x):
    y = x * x
    y[0:2] = 0.5
    return y * x


# name -> (f, leaf arrays)
X34, X1233, POS34 = _u(0, (3, 4)), _u(1, (1, 2, 3, 3)), _u(49, (3, 4), 0.5, 2.0)
ROWS = {
    # convolutions: bilinear in (input, filter)
    "conv2d": (lambda x, w: F.conv2d(x, w, padding=1) ** 2, [X1233, _u(2, (2, 2, 2, 2))]),
    "conv2d_stride_groups": (lambda x, w: F.conv2d(x, w, stride=2, padding=1, groups=2) ** 2,
                             [_u(3, (1, 2, 4, 4)), _u(4, (2, 1, 2, 2))]),
    "depthwise_conv2d": (lambda x, w: F.conv2d(x, w, groups=2) ** 2, [X1233, _u(5, (4, 1, 2, 2))]),
    "conv2d_transpose": (lambda x, w: F.conv2d_transpose(x, w, stride=2) ** 2,
                         [_u(6, (1, 2, 2, 2)), _u(7, (2, 2, 2, 2))]),
    "conv3d": (lambda x, w: F.conv3d(x, w) ** 2, [_u(8, (1, 1, 3, 3, 3)), _u(9, (2, 1, 2, 2, 2))]),
    "conv1d": (lambda x, w: F.conv1d(x, w, padding=1) ** 2, [_u(8, (1, 2, 5)), _u(9, (2, 2, 3))]),
    # pools
    "avg_pool2d": (lambda x: F.avg_pool2d(x, 2, stride=1) ** 2, [X1233]),
    "avg_pool2d_pad": (lambda x: F.avg_pool2d(x, 2, stride=2, padding=1, exclusive=False) ** 2, [X1233]),
    "adaptive_avg_pool2d": (lambda x: F.adaptive_avg_pool2d(x, 2) ** 2, [X1233]),
    "max_pool2d": (lambda x: F.max_pool2d(x, 2, stride=1) ** 2, [X1233]),
    "max_pool2d_pad": (lambda x: F.max_pool2d(x, 2, stride=2, padding=1) ** 2, [X1233]),
    "adaptive_max_pool2d": (lambda x: F.adaptive_max_pool2d(x, 2) ** 2, [X1233]),
    # normalizations
    "batch_norm_train": (_bn(True), [_u(11, (3, 2, 2, 2)), _u(12, (2,), 0.5, 1.5), _u(13, (2,))]),
    "batch_norm_eval": (_bn(False), [_u(11, (3, 2, 2, 2)), _u(12, (2,), 0.5, 1.5), _u(13, (2,))]),
    "batch_norm_1d": (lambda x, w, b: F.batch_norm(x, _t(np.zeros(4)), _t(np.ones(4)), w, b, training=True) ** 2,
                      [_u(14, (5, 4)), _u(15, (4,), 0.5, 1.5), _u(16, (4,))]),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, [4], w, b) ** 2, [X34, _u(17, (4,), 0.5, 1.5), _u(18, (4,))]),
    "layer_norm_2d": (lambda x, w, b: F.layer_norm(x, [2, 3], w, b) ** 2,
                      [_u(19, (2, 2, 3)), _u(20, (2, 3), 0.5, 1.5), _u(21, (2, 3))]),
    "group_norm": (lambda x, w, b: F.group_norm(x, 2, weight=w, bias=b) ** 2,
                   [_u(22, (2, 4, 2, 1)), _u(23, (4,), 0.5, 1.5), _u(24, (4,))]),
    "instance_norm": (lambda x, w, b: F.instance_norm(x, weight=w, bias=b) ** 2,
                      [_u(25, (2, 2, 2, 2)), _u(26, (2,), 0.5, 1.5), _u(27, (2,))]),
    # activations
    "gelu": (F.gelu, [X34 * 2]), "gelu_tanh": (lambda x: F.gelu(x, approximate=True), [X34 * 2]),
    "silu": (F.silu, [X34 * 3]), "swish": (F.swish, [X34 * 3]),
    "softplus": (lambda x: F.softplus(x, beta=2.0, threshold=1.5), [X34 * 2]),
    "elu": (lambda x: F.elu(x, alpha=0.7), [X34 * 2]), "selu": (F.selu, [X34 * 2]),
    "celu": (lambda x: F.celu(x, alpha=1.5), [X34 * 2]),
    "hardswish": (F.hardswish, [X34 * 5]), "hardsigmoid": (lambda x: F.hardsigmoid(x) * x, [X34 * 4]),
    "mish": (F.mish, [X34 * 3]), "log_sigmoid": (F.log_sigmoid, [X34 * 3]),
    "relu6": (lambda x: F.relu6(x) * x, [X34 * 8]), "hardtanh": (lambda x: F.hardtanh(x) * x, [X34 * 2]),
    "softsign": (F.softsign, [X34 * 2]), "tanhshrink": (F.tanhshrink, [X34 * 2]),
    "hardshrink": (lambda x: F.hardshrink(x) * x, [X34]), "softshrink": (lambda x: F.softshrink(x, 0.3) * x, [X34]),
    "thresholded_relu": (lambda x: F.thresholded_relu(x, 0.2) * x, [X34]),
    "softmax_axis0": (lambda x: F.softmax(x, 0), [X34]),
    # losses
    "cross_entropy": (lambda x: F.cross_entropy(x, _t(LABEL)), [X34 * 2]),
    "cross_entropy_ignore": (lambda x: F.cross_entropy(x, _t(np.array([[2], [-100], [1]])), reduction="sum"), [X34]),
    "cross_entropy_soft": (lambda x: F.cross_entropy(x, _t(SOFT), soft_label=True), [X34 * 2]),
    "softmax_with_cross_entropy": (lambda x: F.softmax_with_cross_entropy(x, _t(LABEL)), [X34]),
    "mse_loss": (lambda x, y: F.mse_loss(x * x, y), [X34, _u(28, (3, 4))]),
    "l1_loss": (lambda x, y: F.l1_loss(x * x, y), [X34, _u(28, (3, 4))]),
    "smooth_l1_loss": (lambda x, y: F.smooth_l1_loss(x * x, y, delta=0.5), [X34, _u(28, (3, 4))]),
    "binary_cross_entropy": (lambda x: F.binary_cross_entropy(F.sigmoid(x), _t(BIN)), [X34]),
    "bce_direct": (lambda x: F.binary_cross_entropy(x, _t(_u(30, (3, 4), 0.0, 1.0)), reduction="none"),
                   [_u(29, (3, 4), 0.1, 0.9)]),
    "bce_with_logits": (lambda x: F.binary_cross_entropy_with_logits(x, _t(BIN)), [X34 * 2]),
    "bce_with_logits_pos_weight": (lambda x: F.binary_cross_entropy_with_logits(
        x, _t(BIN), pos_weight=_t(np.array([1.0, 2.0, 0.5, 3.0]))), [X34 * 2]),
    # others
    "p_norm2": (lambda x: paddle.linalg.norm(x, p=2, axis=1), [X34]),
    "p_norm3": (lambda x: paddle.linalg.norm(x, p=3, axis=0, keepdim=True), [X34]),
    "normalize": (lambda x: F.normalize(x, axis=1), [X34]),
    "dropout": (_dropout, [X34]),
    "embedding": (lambda w: F.embedding(_t(IDS), w) ** 2, [_u(31, (4, 3))]),
    "interp_bilinear": (lambda x: F.interpolate(x, scale_factor=2, mode="bilinear") ** 2, [_u(32, (1, 1, 2, 3))]),
    "interp_bilinear_ac": (lambda x: F.interpolate(x, size=[3, 4], mode="bilinear", align_corners=True) ** 2,
                           [_u(32, (1, 1, 2, 3))]),
    "interp_nearest": (lambda x: F.interpolate(x, scale_factor=2, mode="nearest") ** 2, [_u(32, (1, 1, 2, 3))]),
    "pad": (lambda x: F.pad(x, [1, 0, 0, 1]) ** 2, [_u(33, (1, 1, 2, 3))]),
    "split": (lambda x: paddle.split(x * x, 2, axis=1)[0] * paddle.split(x, 2, axis=1)[1], [X34]),
    "stack_unstack": (lambda x: paddle.unstack(x * x, 0)[1] * paddle.stack([x[0], x[2]]), [X34]),
    "scatter": (lambda x, u: paddle.scatter(x * x, _t(np.array([2, 0])), u * u) * x, [X34, _u(34, (2, 4))]),
    "scatter_add_dup": (lambda x, u: paddle.scatter(x * x, _t(np.array([1, 1])), u * u, overwrite=False) * x,
                        [X34, _u(34, (2, 4))]),
    "max": (lambda x: paddle.max(x * x, axis=1, keepdim=True) * x, [X34]),
    "min": (lambda x: paddle.min(x * x, axis=0) * x, [X34]),
    "amax": (lambda x: paddle.amax(x * x, axis=1) * x[:, 0], [X34]),
    "where": (lambda x: paddle.where(x > 0, x * x, paddle.sin(x)), [X34]),
    "where_broadcast": (lambda x, y: paddle.where(x > 0, x * x, y * y), [X34, _u(35, (1, 4))]),
    "clip": (lambda x: paddle.clip(x * x, 0.1, 0.5) * x, [X34]),
    "maximum": (lambda x: paddle.maximum(x * x, paddle.sin(x)), [X34]),
    "minimum_broadcast": (lambda x, y: paddle.minimum(x * x, y * y) * x, [X34, _u(36, (4,))]),
    "elementwise_pow": (lambda x, y: paddle.pow(x, y), [_u(37, (3, 4), 0.5, 1.5), _u(38, (3, 4))]),
    "elementwise_pow_broadcast": (lambda x, y: paddle.pow(x, y), [_u(37, (3, 4), 0.5, 1.5), _u(38, (4,))]),
    # layouts, optional affine parameters, other dimensions
    "conv2d_nhwc": (lambda x, w: F.conv2d(x, w, padding=1, data_format="NHWC") ** 2,
                    [np.transpose(X1233, (0, 2, 3, 1)), _u(2, (2, 2, 2, 2))]),
    "conv2d_transpose_groups": (lambda x, w: F.conv2d_transpose(x, w, groups=2) ** 2,
                                [_u(6, (1, 2, 2, 2)), _u(7, (2, 1, 2, 2))]),
    "conv3d_transpose": (lambda x, w: F.conv3d_transpose(x, w) ** 2, [_u(8, (1, 1, 2, 2, 2)), _u(9, (1, 2, 2, 2, 2))]),
    "max_pool2d_nhwc": (lambda x: F.max_pool2d(x, 2, stride=1, data_format="NHWC") ** 2,
                        [np.transpose(X1233, (0, 2, 3, 1))]),
    "avg_pool3d": (lambda x: F.avg_pool3d(x, 2, stride=1) ** 2, [_u(40, (1, 1, 3, 3, 2))]),
    "max_pool3d": (lambda x: F.max_pool3d(x, 2, stride=1) ** 2, [_u(40, (1, 1, 3, 3, 2))]),
    "batch_norm_nhwc": (lambda x, w, b: F.batch_norm(x, _t(np.zeros(2)), _t(np.ones(2)), w, b, training=True,
                                                     data_format="NHWC") ** 2,
                        [_u(41, (2, 2, 2, 2)), _u(42, (2,), 0.5, 1.5), _u(43, (2,))]),
    "batch_norm_no_affine": (lambda x: F.batch_norm(x, _t(np.zeros(2)), _t(np.ones(2)), training=True) ** 2,
                             [_u(41, (3, 2, 2))]),
    "layer_norm_no_affine": (lambda x: F.layer_norm(x, [4]) ** 2, [X34]),
    "group_norm_nhwc": (lambda x, w, b: F.group_norm(x, 2, weight=w, bias=b, data_format="NHWC") ** 2,
                        [_u(44, (2, 2, 1, 4)), _u(45, (4,), 0.5, 1.5), _u(46, (4,))]),
    "interp_bicubic": (lambda x: F.interpolate(x, size=[3, 4], mode="bicubic") ** 2, [_u(32, (1, 1, 2, 3))]),
    "interp_linear": (lambda x: F.interpolate(x, scale_factor=2, mode="linear") ** 2, [_u(32, (1, 2, 3))]),
    "atan": (paddle.atan, [X34 * 2]), "stanh": (paddle.stanh, [X34 * 2]),
    "p_norm_inf": (lambda x: paddle.linalg.norm(x * x, p=float("inf"), axis=1) * x[:, 0], [X34]),
    "p_norm1": (lambda x: paddle.linalg.norm(x * x, p=1, axis=1) * x[:, 1], [X34]),
    "p_norm_vector": (lambda x: paddle.linalg.norm(x, p=1.5), [X34]),
    "cross_entropy_probs": (lambda x: F.cross_entropy(F.softmax(x), _t(LABEL), use_softmax=False), [X34]),
    "softmax_with_ce_both_outputs": (lambda x: paddle.concat(
        [t.reshape([-1]) for t in F.softmax_with_cross_entropy(x, _t(SOFT), soft_label=True, return_softmax=True)]),
        [X34]),
    "cross_entropy_probs_soft": (lambda x: F.cross_entropy(F.softmax(x), _t(SOFT), soft_label=True,
                                                           use_softmax=False), [X34]),
    # elementwise math
    "sinh": (paddle.sinh, [X34]), "cosh": (paddle.cosh, [X34]), "tan": (paddle.tan, [X34]),
    "asin": (paddle.asin, [X34 * 0.9]), "acos": (paddle.acos, [X34 * 0.9]), "asinh": (paddle.asinh, [X34 * 2]),
    "acosh": (paddle.acosh, [_u(50, (3, 4), 1.2, 3.0)]), "atanh": (paddle.atanh, [X34 * 0.9]),
    "erf": (paddle.erf, [X34 * 2]), "erfinv": (paddle.erfinv, [X34 * 0.9]), "log2": (paddle.log2, [POS34]),
    "log10": (paddle.log10, [POS34]), "lgamma": (paddle.lgamma, [POS34]),
    # linear maps, gathers, products
    "channel_shuffle": (lambda x: F.channel_shuffle(x * x, 2) * x, [_u(51, (1, 4, 1, 2))]),
    "pixel_shuffle": (lambda x: F.pixel_shuffle(x * x, 2) ** 2, [_u(52, (1, 4, 1, 2))]),
    "pixel_unshuffle": (lambda x: F.pixel_unshuffle(x * x, 2) ** 2, [_u(52, (1, 1, 2, 4))]),
    "flip": (lambda x: paddle.flip(x * x, [0]) * x, [X34]),
    "temporal_shift": (lambda x: F.temporal_shift(x * x, seg_num=2, shift_ratio=0.25) * x, [_u(53, (2, 4, 1, 2))]),
    "unfold": (lambda x: F.unfold(x * x, 2) ** 2, [_u(54, (1, 1, 3, 3))]),
    "fold": (lambda x: F.fold(x * x, [3, 3], 2) ** 2, [_u(55, (1, 4, 4))]),
    "masked_select": (lambda x: paddle.masked_select(x * x, _t(BIN > 0)) ** 2, [X34]),
    "trace": (lambda x: paddle.trace(x * x) * x, [X34]),
    "take_along_axis": (lambda x: paddle.take_along_axis(x * x, _t(np.array([[0], [3], [1]])), 1) * x, [X34]),
    "affine_grid": (lambda t: F.affine_grid(t * t, [1, 1, 2, 3]) ** 2, [_u(56, (1, 2, 3))]),
    "roi_align": (lambda x: paddle.vision.ops.roi_align(x * x, _t(np.array([[0.5, 0.5, 2.5, 2.0]])),
                                                        _t(np.array([1], dtype=np.int32)), 2) ** 2,
                  [_u(57, (1, 1, 3, 4))]),
    "bmm": (lambda x, y: paddle.bmm(x * x, y) ** 2, [_u(58, (2, 2, 3)), _u(59, (2, 3, 2))]),
    "dot": (lambda x, y: paddle.dot(x * x, y) ** 2, [_u(60, (4,)), _u(61, (4,))]),
    "mv": (lambda x, v: paddle.mv(x * x, v) ** 2, [X34, _u(62, (4,))]),
    "kron": (lambda x, y: paddle.kron(x * x, y) ** 2, [_u(63, (2, 2)), _u(64, (2, 1))]),
    "cross": (lambda x, y: paddle.cross(x * x, y, axis=1) ** 2, [_u(65, (2, 3)), _u(66, (2, 3))]),
    "label_smooth": (lambda x: F.label_smooth(x * x, epsilon=0.2) * x, [X34]),
    "topk": (lambda x: paddle.topk(x * x, 2, axis=1)[0] ** 2, [X34]),
    "sort": (lambda x: paddle.sort(x * x, axis=0) * x, [X34]),
    "kthvalue": (lambda x: paddle.kthvalue(x * x, 2, axis=1)[0] * x[:, 0], [X34]),
    "mode": (lambda x: paddle.mode(paddle.round(x * 2) * x, axis=1, keepdim=True)[0] * x, [X34]),
    "cummax": (lambda x: paddle.cummax(x * x, axis=1)[0] * x, [X34]),
    "index_add": (lambda x, v: paddle.index_add(x * x, _t(np.array([0, 2, 0])), 1, v * v) * x,
                  [X34, _u(67, (3, 3))]),
    "scatter_nd_add": (lambda x, u: paddle.scatter_nd_add(x * x, _t(np.array([[1], [1]])), u * u) * x,
                       [X34, _u(68, (2, 4))]),
    "lerp": (lambda x, y: paddle.lerp(x * x, y * y, _t(_u(69, (3, 4), 0, 1))) * x, [X34, _u(70, (3, 4))]),
    "logsumexp": (lambda x: paddle.logsumexp(x, axis=1) * x[:, 0], [X34]),
    "frobenius_norm": (lambda x: paddle.linalg.norm(x, p="fro", axis=[0, 1]) * x, [X34]),
    "nll_loss": (lambda x: F.nll_loss(x * x, _t(LABEL.reshape(-1))) * x, [X34]),
    "nll_loss_none": (lambda x: F.nll_loss(x * x, _t(LABEL.reshape(-1)), reduction="none") * x[:, 0], [X34]),
    "kl_div": (lambda x: F.kl_div(x * x, _t(SOFT), reduction="batchmean") * x, [X34]),
    "kl_div_none": (lambda x: F.kl_div(x * x, _t(SOFT), reduction="none") * x, [X34]),
    "prelu": (lambda x, a: F.prelu(x, a) * x, [X1233, _u(71, (2,), 0.1, 0.5)]),
    "prelu_all": (lambda x, a: F.prelu(x, a) ** 2, [X1233, _u(72, (1,), 0.1, 0.5)]),
    "swiglu": (lambda x, y: F.swiglu(x, y), [X34 * 2, _u(73, (3, 4))]),
    "swiglu_halves": (lambda x: F.swiglu(x), [X34 * 2]),
    "floor_round_sign": (lambda x: (paddle.floor(x * 3) + paddle.round(x * x) + paddle.sign(x)) * x, [X34]),
    "set_value": (_set_rows, [X34, _u(74, (1, 4))]), "set_value_scalar": (_set_rows_scalar, [X34]),
    "addmm": (lambda i, x, y: paddle.addmm(i * i, x * x, y, beta=0.5, alpha=2.0) ** 2,
              [_u(75, (1, 2)), _u(76, (3, 4)), _u(77, (4, 2))]),
    "baddbmm": (lambda i, x, y: paddle.baddbmm(i * i, x * x, y, beta=0.5, alpha=2.0) ** 2,
                [_u(78, (2, 2, 2)), _u(79, (2, 2, 3)), _u(80, (2, 3, 2))]),
    "einsum": (lambda a, b: paddle.einsum("ij,jk->ik", a * a, b) ** 2, [X34, _u(81, (4, 2))]),
    "einsum_three": (lambda a, b: paddle.einsum("ij,jk,k->i", a, b * b, b[:, 0]), [X34, _u(81, (4, 4))]),
    "multi_dot": (lambda a, b: paddle.linalg.multi_dot([a * a, b, b]) ** 2, [X34, _u(82, (4, 4))]),
    "rms_norm": (lambda x, w: F.rms_norm(x, [4], weight=w)[0] ** 2, [X34, _u(83, (4,), 0.5, 1.5)]),
    "rms_norm_2d": (lambda x: F.rms_norm(x, [2, 3])[0] ** 2, [_u(84, (2, 2, 3))]),
    "fmax_fmin": (lambda x, y: paddle.fmax(x * x, y) * paddle.fmin(x, y * y), [X34, _u(85, (4,))]),
    "copysign": (lambda x, y: paddle.copysign(x * x, y) * x, [X34, _u(86, (3, 4))]),
    "heaviside": (lambda x, y: paddle.heaviside(paddle.round(x), y * y) * y, [X34 * 2, _u(87, (3, 4))]),
    "atan2": (lambda x, y: paddle.atan2(x, y), [X34, _u(88, (3, 4))]),
    "atan2_broadcast": (lambda x, y: paddle.atan2(x, y), [X34, _u(88, (4,))]),
    "logit": (lambda x: paddle.logit(x, eps=0.2), [_u(89, (3, 4), 0.05, 0.95)]),
    "gammaln": (paddle.gammaln, [POS34]), "polygamma": (lambda x: paddle.polygamma(x, 1), [POS34]),
    "reduce_as": (lambda x: paddle.reduce_as(x * x, _t(np.zeros((1, 4)))) * x[0], [X34]),
    "bilinear_tensor_product": (lambda x, y, w: F.bilinear(x * x, y, w, None) ** 2,
                                [_u(90, (2, 3)), _u(91, (2, 2)), _u(92, (2, 3, 2))]),
    "maxout": (lambda x: F.maxout(x * x, 2) * x[:, 0:2], [_u(93, (1, 4, 2, 2))]),
    "max_unpool2d": (lambda x: F.max_unpool2d(*F.max_pool2d(x * x, 2, return_mask=True), 2) * x,
                     [_u(94, (1, 1, 2, 4))]),
    "multiplex": (lambda a, b: paddle.multiplex([a * a, b], _t(np.array([[1], [0], [1]], dtype=np.int32))) * a,
                  [X34, _u(95, (3, 4))]),
    "crop": (lambda x: paddle.crop(x * x, shape=[2, 2], offsets=[1, 1]) ** 2, [X34]),
    "frame_overlap_add": (lambda x: paddle.signal.overlap_add(paddle.signal.frame(x * x, 2, 1), 1) * x, [_u(96, (5,))]),
    "clip_tensor_bounds": (lambda x: paddle.clip(x * x, _t(np.array(0.1)), _t(np.array(0.5))) * x, [X34]),
}


def _first(f, arrays, v):
    xs = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
    gs = paddle.grad((f(*xs) * _t(v)).sum(), xs)
    return [g.numpy() for g in gs]


def _second(f, n):
    def loss(*args):
        xs, v, ws = args[:n], args[n], args[n + 1:]
        gs = paddle.grad((f(*xs) * v).sum(), list(xs), create_graph=True)
        total = (gs[0] * ws[0]).sum()
        for g, w in zip(gs[1:], ws[1:]):
            total = total + (g * w).sum()
        return total
    return loss


def finite_difference_hvp(f, arrays, v, ws, eps=1e-6):
    """d/dleaf of sum_i <w_i, g_i(leaves)> by central differences of the first-order gradients g."""
    def s(arrs):
        return sum((g * w).sum() for g, w in zip(_first(f, arrs, v), ws))
    out = []
    for j, a in enumerate(arrays):
        d = np.zeros_like(a)
        for i in np.ndindex(*a.shape):
            hi = [b.copy() for b in arrays]
            lo = [b.copy() for b in arrays]
            hi[j][i] += eps
            lo[j][i] -= eps
            d[i] = (s(hi) - s(lo)) / (2 * eps)
        out.append(d)
    return out


def check_row(f, arrays, static=True):
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    v = _u(100, paddle.to_tensor(np.asarray(f(*[_t(a) for a in arrays]).numpy())).shape)
    ws = [_u(200 + k, a.shape) for k, a in enumerate(arrays)]
    want = finite_difference_hvp(f, arrays, v, ws)
    fns = [_second(f, len(arrays))]
    if static:
        fns.append(paddle.jit.to_static(_second(f, len(arrays))))
    for fn in fns:
        xs = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # to_static: "create_graph ... jit will discard it"
            fn(*xs, _t(v), *[_t(w) for w in ws]).backward()
        for x, w_ in zip(xs, want):
            got = np.zeros_like(w_) if x.grad is None else x.grad.numpy()
            np.testing.assert_allclose(got, w_, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_second_order_matches_finite_differences(name):
    f, arrays = ROWS[name]
    check_row(f, arrays)


# rules that reshape or reduce (views of the input, keep-dims) must work with an unknown batch dimension
DYNAMIC = {
    "layer_norm": (lambda x: F.layer_norm(x, [4]), (3, 4)),
    "batch_norm": (lambda x: F.batch_norm(x, _t(np.zeros(2)), _t(np.ones(2)), training=True), (3, 2, 2, 2)),
    "group_norm": (lambda x: F.group_norm(x, 2), (2, 4, 2, 2)),
    "instance_norm": (lambda x: F.instance_norm(x), (2, 2, 2, 2)),
    "max_pool2d": (lambda x: F.max_pool2d(x, 2), (2, 1, 4, 4)),
    "p_norm": (lambda x: paddle.linalg.norm(x, p=3, axis=1), (3, 4)),
    "max": (lambda x: paddle.max(x, axis=1), (3, 4)),
    "cross_entropy": (lambda x: F.cross_entropy(x, _t(LABEL)), (3, 4)),
    "nll_loss": (lambda x: F.nll_loss(x * x, _t(LABEL.reshape(-1)), reduction="none"), (3, 4)),
}


def _penalty(f):
    def loss(x):
        (g,) = paddle.grad((f(x) ** 2).sum(), x, create_graph=True)
        return (g * g).sum()
    return loss


@pytest.mark.parametrize("name", sorted(DYNAMIC))
def test_unknown_batch_dimension_under_to_static(name):
    from dy2st.static import InputSpec
    f, shape = DYNAMIC[name]
    x0 = _u(300, shape)
    spec = [InputSpec([None] + list(shape[1:]), "float64")]
    grads = []
    for fn in (_penalty(f), paddle.jit.to_static(_penalty(f), input_spec=spec)):
        x = paddle.to_tensor(x0, stop_gradient=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(x).backward()
        grads.append(x.grad.numpy())
    assert np.abs(grads[0]).max() > 0
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-9, atol=1e-12)


def test_missing_double_grads_lists_only_placeholders():
    from runtime.double_grad import missing_double_grads
    from runtime.ops.registry import all_ops
    names = missing_double_grads()
    assert names == sorted(names)
    ops = all_ops()
    assert all(getattr(ops[n].grad, "missing", False) for n in names)
    covered = ["conv2d_grad", "depthwise_conv2d_grad", "conv2d_transpose_grad", "conv3d_grad", "pool2d_grad",
               "batch_norm_grad", "layer_norm_grad", "group_norm_grad", "instance_norm_grad", "gelu_grad",
               "silu_grad", "swish_grad", "softplus_grad", "elu_grad", "selu_grad", "celu_grad", "hard_swish_grad",
               "hard_sigmoid_grad", "mish_grad", "logsigmoid_grad", "softmax_with_cross_entropy_grad",
               "bce_loss_grad", "sigmoid_cross_entropy_with_logits_grad", "huber_loss_grad", "p_norm_grad",
               "dropout_grad", "lookup_table_v2_grad", "bilinear_interp_v2_grad", "nearest_interp_v2_grad",
               "scatter_grad", "reduce_max_grad", "reduce_min_grad", "where_grad", "clip_grad",
               "elementwise_max_grad", "elementwise_min_grad", "elementwise_pow_grad"]
    assert not set(covered) & set(names)


def test_placeholder_raises_a_gradient_error_naming_the_op():
    from runtime.errors import GradientError
    x = paddle.to_tensor(_u(301, (3,), 0.5, 1.5), stop_gradient=False)
    (g,) = paddle.grad(paddle.cumprod(x, 0).sum(), x, create_graph=True)
    with pytest.raises(GradientError, match="'cumprod'"):
        g.sum().backward()


if __name__ == "__main__":
    # a status table: python tests/runtime/test_double_grad_nn.py [--eager-only] [row ...]
    import sys
    from runtime.errors import GradientError
    names = [a for a in sys.argv[1:] if not a.startswith("--")] or sorted(ROWS)
    for row in names:
        try:
            check_row(*ROWS[row], static="--eager-only" not in sys.argv)
            status = "ok"
        except AssertionError as e:
            status = "WRONG: " + " ".join(str(e).split())[:100]
        except GradientError as e:
            status = "no rule: " + str(e)[:100]
        print(f"{row:32s} {status}")
