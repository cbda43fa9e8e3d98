"""Table rows for conv2d, depthwise_conv2d, conv2d_transpose and depthwise_conv2d_transpose.

References are direct nested loops over output (or input) positions; SAME paddings come from
Paddle's rule (output ceil(in / stride), extra padding after, dilation reset to 1), which was
checked numerically against real Paddle.
"""
import numpy as np

from .op_harness import OpCase

rng = np.random.default_rng(7)


def r(*shape):
    return rng.uniform(-1.0, 1.0, shape)


def conv_ref(Input, Filter, strides=(1, 1), paddings=(0, 0), dilations=(1, 1), groups=1,
             data_format="NCHW", padding_algorithm="EXPLICIT", **_):
    x = Input.transpose(0, 3, 1, 2) if data_format == "NHWC" else Input
    N, C, H, W = x.shape
    M, Cg, kh, kw = Filter.shape
    p = list(paddings)
    pt, pb, pl, pr = (p[0], p[0], p[1], p[1]) if len(p) == 2 else p
    dh, dw = dilations
    if padding_algorithm == "SAME":
        def same(n, k, s):
            out = -(-n // s)
            tot = max((out - 1) * s + k - n, 0)
            return tot // 2, tot - tot // 2
        (pt, pb), (pl, pr) = same(H, kh, strides[0]), same(W, kw, strides[1])
        dh = dw = 1
    elif padding_algorithm == "VALID":
        pt = pb = pl = pr = 0
    oh = (H + pt + pb - dh * (kh - 1) - 1) // strides[0] + 1
    ow = (W + pl + pr - dw * (kw - 1) - 1) // strides[1] + 1
    out = np.zeros((N, M, oh, ow))
    mg = M // groups
    for n in range(N):
        for m in range(M):
            g = m // mg
            for i in range(oh):
                for j in range(ow):
                    acc = 0.0
                    for c in range(Cg):
                        for a in range(kh):
                            for b in range(kw):
                                h = i * strides[0] - pt + a * dh
                                w = j * strides[1] - pl + b * dw
                                if 0 <= h < H and 0 <= w < W:
                                    acc += x[n, g * Cg + c, h, w] * Filter[m, c, a, b]
                    out[n, m, i, j] = acc
    out = out.astype(Input.dtype)
    return out.transpose(0, 2, 3, 1) if data_format == "NHWC" else out


def convt_ref(Input, Filter, Bias=None, strides=(1, 1), paddings=(0, 0), output_padding=(), output_size=(),
              dilations=(1, 1), groups=1, data_format="NCHW", padding_algorithm="EXPLICIT", **_):
    """Scatter every input pixel through the kernel, then crop [pad_before, pad_before + out)."""
    x = Input.transpose(0, 3, 1, 2) if data_format == "NHWC" else Input
    N, C, H, W = x.shape
    _, mg, kh, kw = Filter.shape
    cg = C // groups
    p = list(paddings)
    pt, pb, pl, pr = (p[0], p[0], p[1], p[1]) if len(p) == 2 else p
    dh, dw = dilations
    if padding_algorithm == "SAME":
        def same(n, k, s):
            out = -(-n // s)
            tot = max((out - 1) * s + k - n, 0)
            return tot // 2, tot - tot // 2
        (pt, pb), (pl, pr) = same(H, kh, strides[0]), same(W, kw, strides[1])
        dh = dw = 1
    full_h = (H - 1) * strides[0] + dh * (kh - 1) + 1
    full_w = (W - 1) * strides[1] + dw * (kw - 1) + 1
    if output_size:
        oh, ow = output_size
    else:
        op = list(output_padding) or [0, 0]
        oh, ow = full_h - pt - pb + op[0], full_w - pl - pr + op[1]
    full = np.zeros((N, mg * groups, max(full_h, pt + oh), max(full_w, pl + ow)))
    for n in range(N):
        for c in range(C):
            g = c // cg
            for h in range(H):
                for w in range(W):
                    for m in range(mg):
                        for a in range(kh):
                            for b in range(kw):
                                full[n, g * mg + m, h * strides[0] + a * dh, w * strides[1] + b * dw] += \
                                    x[n, c, h, w] * Filter[c, m, a, b]
    out = full[:, :, pt:pt + oh, pl:pl + ow]
    if Bias is not None:
        out = out + Bias.reshape(1, -1, 1, 1)
    out = out.astype(Input.dtype)
    return out.transpose(0, 2, 3, 1) if data_format == "NHWC" else out



def _bn_inputs(x, w):
    """Inputs of a fused_conv2d_bn row: running statistics of the filter's M channels."""
    m = w.shape[0]
    return {"Input": x, "Filter": w, "Scale": r(m), "Bias": r(m), "Mean": r(m), "Variance": rng.uniform(0.2, 2.0, m)}


def conv_bn_ref(Input, Filter, Scale, Bias, Mean, Variance, ResidualData=None, epsilon=1e-5, activation="none",
                **attrs):
    """conv_ref, then batch_norm with the running statistics, the residual, then the activation."""
    y = conv_ref(Input, Filter, **attrs)
    c = (1, 1, 1, -1) if attrs.get("data_format") == "NHWC" else (1, -1, 1, 1)
    y = (y - Mean.reshape(c)) / np.sqrt(Variance.reshape(c) + epsilon)
    if Scale is not None:
        y = y * Scale.reshape(c)
    if Bias is not None:
        y = y + Bias.reshape(c)
    if ResidualData is not None:
        y = y + ResidualData
    if activation == "relu":
        y = np.maximum(y, 0)
    elif activation == "relu6":
        y = np.clip(y, 0, 6)
    return y.astype(Input.dtype)

CASES = [
    OpCase("conv2d", {"Input": r(2, 2, 5, 5), "Filter": r(3, 2, 3, 3)}, conv_ref),
    OpCase("conv2d", {"Input": r(1, 2, 7, 6), "Filter": r(2, 2, 3, 2)}, conv_ref, name="stride_pad4_dilation",
           attrs={"strides": [2, 1], "paddings": [1, 0, 2, 1], "dilations": [2, 1]}),
    OpCase("conv2d", {"Input": r(1, 4, 5, 5), "Filter": r(4, 2, 2, 2)}, conv_ref, name="groups",
           attrs={"groups": 2, "paddings": [1, 1]}),
    OpCase("conv2d", {"Input": r(1, 2, 6, 5), "Filter": r(2, 2, 3, 3)}, conv_ref, name="same",
           attrs={"padding_algorithm": "SAME", "strides": [2, 2], "dilations": [2, 2], "paddings": [5, 5]}),
    OpCase("conv2d", {"Input": r(1, 2, 5, 5), "Filter": r(2, 2, 2, 2)}, conv_ref, name="valid",
           attrs={"padding_algorithm": "VALID", "paddings": [3, 3]}),
    OpCase("conv2d", {"Input": r(2, 4, 5, 3), "Filter": r(3, 3, 2, 2)}, conv_ref, name="nhwc",
           attrs={"data_format": "NHWC", "paddings": [1, 0], "strides": [1, 2]}),
    OpCase("conv2d", {"Input": r(2, 3, 6, 6).astype(np.float32), "Filter": r(4, 3, 3, 3).astype(np.float32)},
           conv_ref, name="float32", check_grad=False, attrs={"paddings": [1, 1]}),
    # 1x1 stride 1: the input is the column matrix (no im2col copy) and the columns' gradient is dx
    OpCase("conv2d", {"Input": r(2, 4, 3, 5), "Filter": r(3, 4, 1, 1)}, conv_ref, name="1x1"),
    OpCase("conv2d", {"Input": r(2, 4, 3, 2), "Filter": r(6, 2, 1, 1)}, conv_ref, name="1x1_groups",
           attrs={"groups": 2}),
    OpCase("conv2d", {"Input": r(2, 3, 4, 4), "Filter": r(2, 4, 1, 1)}, conv_ref, name="1x1_nhwc",
           attrs={"data_format": "NHWC"}),
    OpCase("conv2d", {"Input": r(1, 3, 5, 4), "Filter": r(2, 3, 1, 1)}, conv_ref, name="1x1_stride_pad",
           attrs={"strides": [2, 1], "paddings": [1, 0]}),
    OpCase("depthwise_conv2d", {"Input": r(2, 3, 5, 5), "Filter": r(6, 1, 3, 3)}, conv_ref,
           attrs={"groups": 3, "paddings": [1, 1]}),
    OpCase("depthwise_conv2d", {"Input": r(1, 6, 6, 2), "Filter": r(2, 1, 3, 3)}, conv_ref, name="stride_nhwc",
           attrs={"groups": 2, "strides": [2, 2], "data_format": "NHWC"}),
    OpCase("conv2d_transpose", {"Input": r(2, 2, 3, 3), "Filter": r(2, 3, 3, 3)}, convt_ref),
    OpCase("conv2d_transpose", {"Input": r(1, 2, 3, 4), "Filter": r(2, 2, 3, 2)}, convt_ref,
           name="stride_pad_output_padding",
           attrs={"strides": [2, 3], "paddings": [1, 0, 0, 1], "output_padding": [1, 2], "dilations": [1, 2]}),
    OpCase("conv2d_transpose", {"Input": r(1, 2, 3, 3), "Filter": r(2, 1, 3, 3)}, convt_ref, name="output_size",
           attrs={"strides": [2, 2], "paddings": [1, 1], "output_size": [6, 5]}),
    OpCase("conv2d_transpose", {"Input": r(1, 4, 3, 3), "Filter": r(4, 2, 2, 2)}, convt_ref, name="groups",
           attrs={"groups": 2, "strides": [2, 1]}),
    OpCase("conv2d_transpose", {"Input": r(1, 2, 3, 4), "Filter": r(2, 2, 3, 3)}, convt_ref, name="same",
           attrs={"padding_algorithm": "SAME", "strides": [2, 2], "dilations": [2, 2]}),
    OpCase("conv2d_transpose", {"Input": r(1, 3, 4, 2), "Filter": r(2, 2, 2, 3)}, convt_ref, name="nhwc",
           attrs={"data_format": "NHWC", "strides": [1, 2], "paddings": [0, 1]}),
    OpCase("conv2d_transpose", {"Input": r(1, 2, 3, 3), "Filter": r(2, 3, 2, 2), "Bias": r(3)}, convt_ref,
           name="bias", grad=("Input", "Filter")),
    OpCase("conv2d_transpose", {"Input": r(2, 3, 4, 4).astype(np.float32),
                                "Filter": r(3, 2, 3, 3).astype(np.float32)}, convt_ref, name="float32",
           check_grad=False, attrs={"strides": [2, 2], "paddings": [1, 1]}),
    OpCase("depthwise_conv2d_transpose", {"Input": r(1, 3, 3, 3), "Filter": r(3, 1, 3, 3)}, convt_ref,
           attrs={"groups": 3, "strides": [2, 2], "paddings": [1, 1]}),
    # fused_conv2d_bn (made by the fuse_conv pass): filter folding (small filter) and output scaling
    # (filter larger than the output), relu / relu6 / none, groups, NHWC, no Scale / Bias
    OpCase("fused_conv2d_bn", _bn_inputs(r(2, 3, 6, 6), r(4, 3, 3, 3)), conv_bn_ref,
           attrs={"paddings": [1, 1], "activation": "relu"}, check_grad=False),
    OpCase("fused_conv2d_bn", _bn_inputs(r(1, 6, 2, 2), r(4, 6, 3, 3)), conv_bn_ref, name="scale_output",
           attrs={"paddings": [1, 1], "activation": "relu6", "epsilon": 1e-3}, check_grad=False),
    OpCase("fused_conv2d_bn", _bn_inputs(r(2, 4, 5, 5), r(4, 1, 3, 3)), conv_bn_ref, name="depthwise_stride",
           attrs={"groups": 4, "strides": [2, 2], "paddings": [1, 1]}, check_grad=False),
    OpCase("fused_conv2d_bn", _bn_inputs(r(2, 5, 4, 3), r(2, 3, 1, 1)), conv_bn_ref, name="nhwc",
           attrs={"data_format": "NHWC", "activation": "relu"}, check_grad=False),
    OpCase("fused_conv2d_bn", dict(_bn_inputs(r(1, 2, 4, 4), r(3, 2, 2, 2)), Scale=None, Bias=None), conv_bn_ref,
           name="no_scale_bias", check_grad=False),
    OpCase("fused_conv2d_bn", _bn_inputs(r(2, 2, 17, 17), r(3, 2, 3, 3)), conv_bn_ref, name="per_sample_gemm",
           attrs={"paddings": [1, 1], "activation": "relu"}, check_grad=False),
    OpCase("fused_conv2d_bn", _bn_inputs(r(2, 2, 3, 16), r(4, 16, 3, 3)), conv_bn_ref, name="whole_batch_nhwc_scale",
           attrs={"data_format": "NHWC", "paddings": [1, 1]}, check_grad=False),
    OpCase("fused_conv2d_bn", dict(_bn_inputs(r(2, 3, 5, 5), r(4, 3, 3, 3)), ResidualData=r(2, 4, 5, 5)),
           conv_bn_ref, name="residual_relu", attrs={"paddings": [1, 1], "activation": "relu"}, check_grad=False),
    OpCase("fused_conv2d_bn", dict(_bn_inputs(r(1, 3, 9, 9), r(4, 3, 3, 3)), ResidualData=r(1, 4, 1, 1)),
           conv_bn_ref, name="residual_broadcast", attrs={"paddings": [1, 1]}, check_grad=False),
    # fused_conv2d_bias_act (made by the fuse_conv pass): per-sample and whole-batch GEMMs, NHWC
    OpCase("fused_conv2d_bias_act", {"Input": r(1, 3, 6, 6), "Filter": r(4, 3, 3, 3), "Bias": r(4)},
           lambda Bias, activation, **kw: np.maximum(conv_ref(**kw) + Bias.reshape(1, -1, 1, 1), 0),
           attrs={"paddings": [1, 1], "activation": "relu"}, check_grad=False),
    OpCase("fused_conv2d_bias_act", {"Input": 4 * r(2, 3, 5, 5), "Filter": r(4, 3, 3, 3), "Bias": r(4)},
           lambda Bias, activation, **kw: np.clip(conv_ref(**kw) + Bias.reshape(1, -1, 1, 1), 0, 6),
           name="whole_batch_relu6", attrs={"strides": [2, 2], "activation": "relu6"}, check_grad=False),
    OpCase("fused_conv2d_bias_act", {"Input": r(2, 3, 4, 3), "Filter": r(4, 3, 1, 1), "Bias": r(4)},
           lambda Bias, **kw: conv_ref(**kw) + Bias, name="nhwc", attrs={"data_format": "NHWC"}, check_grad=False),
    OpCase("fused_conv2d_bias_act", {"Input": r(2, 3, 4, 4).astype(np.float32), "Filter": r(4, 3, 3, 3).astype(np.float32),
                                     "Bias": r(4)},
           lambda Bias, activation, **kw: np.maximum(conv_ref(**kw) + Bias.reshape(1, -1, 1, 1), 0),
           name="bias_promotes", attrs={"activation": "relu"}, check_grad=False, rtol=1e-5, atol=1e-5),
    # batch > 1 with a small output: one GEMM over the whole batch (with dilation, 4 paddings, stride)
    OpCase("conv2d", {"Input": r(3, 2, 9, 8), "Filter": r(4, 2, 3, 2)}, conv_ref, name="whole_batch_dilation",
           attrs={"strides": [2, 1], "paddings": [1, 0, 2, 1], "dilations": [2, 2]}),
    OpCase("conv2d", {"Input": r(2, 3, 18, 18), "Filter": r(2, 3, 3, 3)}, conv_ref, name="per_sample_large",
           attrs={"paddings": [1, 1]}, check_grad=False),
]
