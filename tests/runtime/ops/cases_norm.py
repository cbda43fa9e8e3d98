"""Table rows for batch_norm, layer_norm, instance_norm and group_norm."""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(11)


def r(*shape):
    return rng.standard_normal(shape)


def pos(*shape):
    return rng.uniform(0.5, 2.0, shape)


EPS = 9.999999747378752e-06
MOM = 0.8999999761581421


def _move_c_last(x, layout):
    """x as [..., C] with channels last (reference helper)."""
    if layout == "NHWC" or x.ndim == 2:
        return x
    return np.moveaxis(x, 1, -1)


def _back(y, like, layout):
    if layout == "NHWC" or like.ndim == 2:
        return y
    return np.moveaxis(y, -1, 1)


def bn_train_ref(X, Mean, Variance, Scale=None, Bias=None, data_layout="NCHW", momentum=MOM, epsilon=EPS, **_):
    xc = _move_c_last(X, data_layout)
    flat = xc.reshape(-1, xc.shape[-1])
    mu = flat.sum(0) / flat.shape[0]
    var = ((flat - mu) ** 2).sum(0) / flat.shape[0]
    s = np.ones_like(mu) if Scale is None else Scale
    b = np.zeros_like(mu) if Bias is None else Bias
    y = (xc - mu) / np.sqrt(var + epsilon) * s + b
    return _back(y, X, data_layout), momentum * Mean + (1 - momentum) * mu, momentum * Variance + (1 - momentum) * var


def bn_eval_ref(X, Mean, Variance, Scale=None, Bias=None, data_layout="NCHW", epsilon=EPS, **_):
    xc = _move_c_last(X, data_layout)
    s = np.ones_like(Mean) if Scale is None else Scale
    b = np.zeros_like(Mean) if Bias is None else Bias
    y = (xc - Mean) / np.sqrt(Variance + epsilon) * s + b
    return _back(y, X, data_layout), Mean, Variance


def ln_ref(X, Scale=None, Bias=None, begin_norm_axis=1, epsilon=EPS, **_):
    left = int(np.prod(X.shape[:begin_norm_axis]))
    x2 = X.reshape(left, -1)
    out = np.empty_like(x2)
    for i in range(left):
        row = x2[i]
        m = row.mean()
        v = ((row - m) ** 2).mean()
        out[i] = (row - m) / np.sqrt(v + epsilon)
    if Scale is not None:
        out = out * Scale.reshape(-1)
    if Bias is not None:
        out = out + Bias.reshape(-1)
    return out.reshape(X.shape)


def in_ref(X, Scale=None, Bias=None, epsilon=EPS, **_):
    out = np.empty_like(X)
    for n in range(X.shape[0]):
        for c in range(X.shape[1]):
            v = X[n, c]
            out[n, c] = (v - v.mean()) / np.sqrt(v.var() + epsilon)
            if Scale is not None:
                out[n, c] *= Scale[c]
            if Bias is not None:
                out[n, c] += Bias[c]
    return out


def gn_ref(X, groups, Scale=None, Bias=None, data_layout="NCHW", epsilon=EPS, **_):
    xc = X if data_layout == "NCHW" else np.moveaxis(X, -1, 1)
    C = xc.shape[1]
    per = C // groups
    out = np.empty_like(xc)
    for n in range(xc.shape[0]):
        for g in range(groups):
            v = xc[n, g * per:(g + 1) * per]
            out[n, g * per:(g + 1) * per] = (v - v.mean()) / np.sqrt(v.var() + epsilon)
    bshape = (1, C) + (1,) * (xc.ndim - 2)
    if Scale is not None:
        out = out * Scale.reshape(bshape)
    if Bias is not None:
        out = out + Bias.reshape(bshape)
    return out if data_layout == "NCHW" else np.moveaxis(out, 1, -1)


C = 3
CASES = [
    OpCase("batch_norm", {"X": r(4, C, 2, 2), "Scale": pos(C), "Bias": r(C), "Mean": r(C), "Variance": pos(C)},
           bn_train_ref, name="train_nchw", grad_rtol=1e-4, grad_atol=1e-5),
    OpCase("batch_norm", {"X": r(3, 2, 2, C), "Scale": pos(C), "Bias": r(C), "Mean": r(C), "Variance": pos(C)},
           bn_train_ref, attrs={"data_layout": "NHWC", "momentum": 0.7}, name="train_nhwc",
           grad_rtol=1e-4, grad_atol=1e-5),
    OpCase("batch_norm", {"X": r(5, C), "Scale": pos(C), "Bias": r(C), "Mean": r(C), "Variance": pos(C)},
           bn_train_ref, name="train_2d", grad_rtol=1e-4, grad_atol=1e-5),
    OpCase("batch_norm", {"X": r(4, C, 3), "Mean": r(C), "Variance": pos(C)},
           bn_train_ref, name="train_no_affine", grad_rtol=1e-4, grad_atol=1e-5),
    OpCase("batch_norm", {"X": r(4, C, 2, 2), "Scale": pos(C), "Bias": r(C), "Mean": r(C), "Variance": pos(C),
                          "MomentumTensor": np.array([0.5])},
           lambda **kw: bn_train_ref(**kw, momentum=0.5), name="momentum_tensor",
           grad=("X", "Scale", "Bias"), grad_rtol=1e-4, grad_atol=1e-5),
    OpCase("batch_norm", {"X": r(2, C, 2, 2), "Scale": pos(C), "Bias": r(C), "Mean": r(C), "Variance": pos(C)},
           bn_eval_ref, attrs={"is_test": True}, name="eval"),
    OpCase("batch_norm", {"X": r(2, 2, C), "Scale": pos(C), "Bias": r(C), "Mean": r(C), "Variance": pos(C)},
           bn_eval_ref, attrs={"use_global_stats": True, "data_layout": "NHWC"}, name="global_stats_nhwc"),
    OpCase("batch_norm", {"X": r(4, C).astype(np.float32), "Scale": pos(C).astype(np.float32),
                          "Bias": r(C).astype(np.float32), "Mean": r(C).astype(np.float32),
                          "Variance": pos(C).astype(np.float32)},
           bn_train_ref, name="float32", check_grad=False, rtol=1e-4, atol=1e-5),
    OpCase("layer_norm", {"X": r(2, 3, 4), "Scale": pos(12), "Bias": r(12)}, ln_ref, name="axis1"),
    OpCase("layer_norm", {"X": r(2, 3, 4), "Scale": pos(4), "Bias": r(4)}, ln_ref,
           attrs={"begin_norm_axis": 2}, name="axis2"),
    OpCase("layer_norm", {"X": r(3, 5)}, ln_ref, name="no_affine"),
    OpCase("layer_norm", {"X": r(2, 3, 4), "Scale": pos(4)}, ln_ref, attrs={"begin_norm_axis": 2},
           name="scale_only"),
    OpCase("layer_norm", {"X": r(2, 3, 4), "Bias": r(12)}, ln_ref, name="bias_only"),
    OpCase("layer_norm", {"X": r(2, 3, 4).astype(np.float32), "Scale": pos(4).astype(np.float32),
                          "Bias": r(4).astype(np.float32)},
           ln_ref, attrs={"begin_norm_axis": 2}, name="float32", check_grad=False, rtol=1e-4, atol=1e-5),
    OpCase("instance_norm", {"X": r(2, 3, 2, 3), "Scale": pos(3), "Bias": r(3)}, in_ref),
    OpCase("instance_norm", {"X": r(2, 2, 4)}, in_ref, name="ncl_no_affine"),
    OpCase("group_norm", {"X": r(2, 4, 2, 2), "Scale": pos(4), "Bias": r(4)},
           lambda X, Scale, Bias, groups: gn_ref(X, groups, Scale, Bias), attrs={"groups": 2}),
    OpCase("group_norm", {"X": r(2, 2, 3, 6), "Scale": pos(6), "Bias": r(6)},
           lambda X, Scale, Bias, groups, data_layout: gn_ref(X, groups, Scale, Bias, data_layout),
           attrs={"groups": 3, "data_layout": "NHWC"}, name="nhwc"),
    OpCase("group_norm", {"X": r(2, 4, 3)}, lambda X, groups: gn_ref(X, groups), attrs={"groups": 4},
           name="ncl_no_affine"),
]


def bn_eval_act_ref(X, Mean, Variance, Scale=None, Bias=None, activation="relu", **kw):
    y = bn_eval_ref(X, Mean, Variance, Scale, Bias, **kw)[0]
    return np.maximum(y, 0) if activation == "relu" else np.clip(y, 0, 6)


# eval-mode batch_norm in float32 and without affine; fused_bn_eval_act (made by the fuse_conv pass)
CASES += [
    OpCase("batch_norm", {"X": 3 * r(2, C, 3, 2).astype(np.float32), "Scale": pos(C).astype(np.float32),
                          "Bias": r(C).astype(np.float32), "Mean": r(C).astype(np.float32),
                          "Variance": pos(C).astype(np.float32)},
           bn_eval_ref, attrs={"is_test": True}, name="eval_float32", check_grad=False, rtol=1e-5, atol=1e-5),
    OpCase("batch_norm", {"X": r(2, C, 3), "Mean": r(C), "Variance": pos(C)}, bn_eval_ref,
           attrs={"is_test": True}, name="eval_no_affine"),
    OpCase("fused_bn_eval_act", {"X": 3 * r(2, C, 2, 2), "Scale": pos(C), "Bias": r(C), "Mean": r(C),
                                 "Variance": pos(C)}, bn_eval_act_ref, check_grad=False),
    OpCase("fused_bn_eval_act", {"X": 5 * r(2, 2, C), "Scale": pos(C), "Bias": r(C), "Mean": r(C),
                                 "Variance": pos(C)}, bn_eval_act_ref, name="relu6_nhwc",
           attrs={"activation": "relu6", "data_layout": "NHWC"}, check_grad=False),
    OpCase("fused_bn_eval_act", {"X": r(3, C), "Mean": r(C), "Variance": pos(C)}, bn_eval_act_ref,
           name="no_affine_2d", check_grad=False),
]
