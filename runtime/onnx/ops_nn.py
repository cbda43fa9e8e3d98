"""ONNX lowerings of neural-network ops: matmul, conv, pooling, normalization, dropout, resize, losses."""
from __future__ import annotations

import numpy as np

from .lowering import lowers, unsupported


def _tensor(arr):
    import onnx
    return onnx.numpy_helper.from_array(np.asarray(arr))


def _swap_last2(ctx, x, rank):
    perm = list(range(rank))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return ctx.node("Transpose", [x], perm=perm)


# -- matmul ---------------------------------------------------------------------------------------------

@lowers("matmul_v2")
def _matmul(ctx, op):
    dt = ctx.out_dtype(op)
    x = ctx.cast(ctx.input(op, "X"), dt, ctx.in_dtype(op, "X"))
    y = ctx.cast(ctx.input(op, "Y"), dt, ctx.in_dtype(op, "Y"))
    rx, ry = len(ctx.in_shape(op, "X")), len(ctx.in_shape(op, "Y"))
    if op.attrs.get("trans_x") and rx >= 2:
        x = _swap_last2(ctx, x, rx)
    if op.attrs.get("trans_y") and ry >= 2:
        y = _swap_last2(ctx, y, ry)
    ctx.node("MatMul", [x, y], [ctx.output(op)])


@lowers("mul")
def _mul(ctx, op):
    x, y = ctx.input(op, "X"), ctx.input(op, "Y")
    xs, ys = ctx.in_shape(op, "X"), ctx.in_shape(op, "Y")
    xn, yn = int(op.attrs.get("x_num_col_dims", 1)), int(op.attrs.get("y_num_col_dims", 1))
    x2 = ctx.node("Flatten", [x], axis=xn) if len(xs) != 2 or xn != 1 else x
    y2 = ctx.node("Flatten", [y], axis=yn) if len(ys) != 2 or yn != 1 else y
    out = ctx.node("MatMul", [x2, y2])
    if len(xs) == 2 and xn == 1 and len(ys) == 2 and yn == 1:
        ctx.node("Identity", [out], [ctx.output(op)])
        return
    lead, tail = xs[:xn], ys[yn:]
    if all(d >= 0 for d in tail) and sum(d < 0 for d in lead) <= 1:
        target = ctx.i64([d if d >= 0 else -1 for d in lead] + list(tail))
    else:
        target = ctx.node("Concat", [ctx.shape_of(x, 0, xn), ctx.shape_of(y, yn, len(ys))], axis=0)
    ctx.node("Reshape", [out, target], [ctx.output(op)])


@lowers("dot")
def _dot(ctx, op):
    dt = ctx.out_dtype(op)
    if np.dtype(dt) == np.bool_:
        raise unsupported(op, "'dot' of bool tensors")
    x = ctx.cast(ctx.input(op, "X"), dt, ctx.in_dtype(op, "X"))
    y = ctx.cast(ctx.input(op, "Y"), dt, ctx.in_dtype(op, "Y"))
    ctx.node("Identity", [ctx.reduce("ReduceSum", ctx.node("Mul", [x, y]), [-1], False)], [ctx.output(op)])


# -- convolution ----------------------------------------------------------------------------------------

def _conv_geometry(op, in_hw, k_hw):
    """(pads in ONNX order [t, l, b, r], dilations, auto_pad) for Paddle's padding attrs."""
    from ..ops.conv import pads4, same_pads
    algo = (op.attrs.get("padding_algorithm") or "EXPLICIT").upper()
    strides = [int(s) for s in op.attrs.get("strides", [1, 1])]
    dil = [int(d) for d in op.attrs.get("dilations", [1, 1])]
    if algo == "SAME":
        if any(d < 0 for d in in_hw):
            return None, [1, 1], "SAME_UPPER"
        pt, pb = same_pads(in_hw[0], k_hw[0], strides[0])
        pl, pr = same_pads(in_hw[1], k_hw[1], strides[1])
        return [pt, pl, pb, pr], [1, 1], None
    if algo == "VALID":
        return [0, 0, 0, 0], dil, None
    t, b, l, r = pads4(op.attrs.get("paddings", [0, 0]))
    return [t, l, b, r], dil, None


def _to_nchw(ctx, x, nhwc):
    return ctx.node("Transpose", [x], perm=[0, 3, 1, 2]) if nhwc else x


def _from_nchw(ctx, y, nhwc):
    return ctx.node("Transpose", [y], perm=[0, 2, 3, 1]) if nhwc else y


@lowers("conv2d", "depthwise_conv2d")
def _conv2d(ctx, op):
    nhwc = op.attrs.get("data_format", "NCHW") == "NHWC"
    shape = ctx.in_shape(op, "Input")
    in_hw = shape[1:3] if nhwc else shape[2:4]
    w_shape = ctx.in_shape(op, "Filter")
    pads, dil, auto = _conv_geometry(op, in_hw, w_shape[2:4])
    x = _to_nchw(ctx, ctx.input(op, "Input"), nhwc)
    y = ctx.node("Conv", [x, ctx.input(op, "Filter")], strides=[int(s) for s in op.attrs.get("strides", [1, 1])],
                 dilations=dil, group=int(op.attrs.get("groups", 1)), pads=pads, auto_pad=auto,
                 kernel_shape=[int(k) for k in w_shape[2:4]] if all(k > 0 for k in w_shape[2:4]) else None)
    ctx.node("Identity", [_from_nchw(ctx, y, nhwc)], [ctx.output(op, "Output")])


@lowers("conv2d_transpose", "depthwise_conv2d_transpose")
def _conv2d_transpose(ctx, op):
    nhwc = op.attrs.get("data_format", "NCHW") == "NHWC"
    shape = ctx.in_shape(op, "Input")
    in_hw = shape[1:3] if nhwc else shape[2:4]
    w_shape = ctx.in_shape(op, "Filter")
    k_hw = w_shape[2:4]
    pads, dil, auto = _conv_geometry(op, in_hw, k_hw)
    if auto is not None:
        raise unsupported(op, f"'{op.type}' with SAME padding on unknown spatial sizes")
    strides = [int(s) for s in op.attrs.get("strides", [1, 1])]
    out_pad = [int(v) for v in op.attrs.get("output_padding", [])] or None
    osz = [int(v) for v in op.attrs.get("output_size", [])]
    if osz:
        if any(d < 0 for d in in_hw):
            raise unsupported(op, f"'{op.type}' with output_size on unknown spatial sizes")
        t, l, b, r = pads
        base = [(in_hw[i] - 1) * strides[i] - (t, l)[i] - (b, r)[i] + dil[i] * (k_hw[i] - 1) + 1 for i in range(2)]
        out_pad = [osz[i] - base[i] for i in range(2)]
    x = _to_nchw(ctx, ctx.input(op, "Input"), nhwc)
    ins = [x, ctx.input(op, "Filter")]
    if op.inputs.get("Bias"):
        ins.append(ctx.input(op, "Bias"))
    y = ctx.node("ConvTranspose", ins, strides=strides, dilations=dil, group=int(op.attrs.get("groups", 1)),
                 pads=pads, output_padding=out_pad if out_pad and any(out_pad) else None)
    ctx.node("Identity", [_from_nchw(ctx, y, nhwc)], [ctx.output(op, "Output")])


# -- pooling --------------------------------------------------------------------------------------------

def _adaptive_bins(n_in, n_out):
    i = np.arange(n_out)
    return (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)


def _adaptive_pool(ctx, op, x, hw, out_hw, is_max):
    """Adaptive pooling on known sizes: uniform bins become one pool; else per-axis bins (max and
    mean over a rectangle are separable)."""
    H, W = hw
    oh, ow = out_hw
    if H % oh == 0 and W % ow == 0:
        k = [H // oh, W // ow]
        return ctx.node("MaxPool" if is_max else "AveragePool", [x], kernel_shape=k, strides=k)
    red = "ReduceMax" if is_max else "ReduceMean"
    y = x
    for axis, n_in, n_out in ((2, H, oh), (3, W, ow)):
        if n_in == n_out:
            continue
        starts, ends = _adaptive_bins(n_in, n_out)
        parts = [ctx.reduce(red, ctx.node("Slice", [y, ctx.i64([int(s)]), ctx.i64([int(e)]), ctx.i64([axis])]),
                            [axis], True) for s, e in zip(starts, ends)]
        y = ctx.node("Concat", parts, axis=axis) if len(parts) > 1 else parts[0]
    return y


def _pool_core(ctx, op, x, shape_nchw, is_max, with_index=False):
    from ..ops.conv import pads4
    from ..ops.pool import same_pads
    H, W = shape_nchw[2], shape_nchw[3]
    k = [int(v) for v in op.attrs.get("ksize", [])]
    s = [int(v) for v in op.attrs.get("strides", [1, 1])]
    if op.attrs.get("global_pooling", False) or (op.attrs.get("adaptive", False) and k == [1, 1]):
        if with_index:
            if H < 0 or W < 0:
                raise unsupported(op, f"'{op.type}' global pooling on unknown spatial sizes")
            return ctx.node("MaxPool", [x], 2, kernel_shape=[H, W], strides=[1, 1])
        return ctx.node("GlobalMaxPool" if is_max else "GlobalAveragePool", [x])
    if op.attrs.get("adaptive", False):
        if H < 0 or W < 0 or with_index:
            raise unsupported(op, f"adaptive '{op.type}' to {k} needs known spatial sizes (got {[H, W]})")
        return _adaptive_pool(ctx, op, x, (H, W), k, is_max)
    algo = (op.attrs.get("padding_algorithm") or "EXPLICIT").upper()
    auto = None
    if algo == "SAME":
        if H < 0 or W < 0:
            pads, auto = None, "SAME_UPPER"
        else:
            pt, pb = same_pads(H, k[0], s[0])
            pl, pr = same_pads(W, k[1], s[1])
            pads = [pt, pl, pb, pr]
    elif algo == "VALID":
        pads = [0, 0, 0, 0]
    else:
        t, b, l, r = pads4(op.attrs.get("paddings", [0, 0]))
        pads = [t, l, b, r]
    ceil = int(bool(op.attrs.get("ceil_mode", False)))
    if is_max:
        return ctx.node("MaxPool", [x], 2 if with_index else 1, kernel_shape=k, strides=s, pads=pads,
                        auto_pad=auto, ceil_mode=ceil)
    return ctx.node("AveragePool", [x], kernel_shape=k, strides=s, pads=pads, auto_pad=auto, ceil_mode=ceil,
                    count_include_pad=0 if op.attrs.get("exclusive", True) else 1)


@lowers("pool2d")
def _pool2d(ctx, op):
    nhwc = op.attrs.get("data_format", "NCHW") == "NHWC"
    shape = ctx.in_shape(op, "X")
    if nhwc:
        shape = [shape[0], shape[3], shape[1], shape[2]]
    ptype = op.attrs.get("pooling_type", "")
    if ptype not in ("max", "avg"):
        raise unsupported(op, f"'pool2d' with pooling_type {ptype!r}")
    x = _to_nchw(ctx, ctx.input(op, "X"), nhwc)
    y = _pool_core(ctx, op, x, shape, ptype == "max")
    ctx.node("Identity", [_from_nchw(ctx, y, nhwc)], [ctx.output(op)])


@lowers("max_pool2d_with_index")
def _max_pool_with_index(ctx, op):
    x = ctx.input(op, "X")
    shape = ctx.in_shape(op, "X")
    if ctx.output_used(op, "Mask"):
        y, idx = _pool_core(ctx, op, x, shape, True, with_index=True)
        # ONNX indices count over the whole N*C*H*W tensor; Paddle's count within one H*W plane
        hw = ctx.reduce("ReduceProd", ctx.shape_of(x, 2, 4), None, False)
        mask = ctx.node("Mod", [idx, hw], fmod=0)
        ctx.node("Identity", [ctx.cast(mask, ctx.out_dtype(op, "Mask"), np.int64)], [ctx.output(op, "Mask")])
    else:
        y = _pool_core(ctx, op, x, shape, True)
        if isinstance(y, list):
            y = y[0]
    ctx.node("Identity", [y], [ctx.output(op, "Out")])


# -- normalization --------------------------------------------------------------------------------------

def _ones_or(ctx, op, slot, like, value, dt):
    """Input ``slot``, or a tensor of ``value`` shaped like the 1-D int64 shape ``like``."""
    if op.inputs.get(slot):
        return ctx.cast(ctx.input(op, slot), dt, ctx.in_dtype(op, slot))
    return ctx.node("ConstantOfShape", [like], value=_tensor(np.array([value], dtype=dt)))


@lowers("batch_norm")
def _batch_norm(ctx, op):
    dt = ctx.out_dtype(op, "Y")
    nhwc = op.attrs.get("data_layout", "NCHW") == "NHWC"
    rank = len(ctx.in_shape(op, "X"))
    x = ctx.input(op, "X")
    if nhwc and rank > 2:
        x = ctx.node("Transpose", [x], perm=[0, rank - 1] + list(range(1, rank - 1)))
    mean, var = ctx.input(op, "Mean"), ctx.input(op, "Variance")
    c = ctx.shape_of(mean)
    scale = _ones_or(ctx, op, "Scale", c, 1.0, dt)
    bias = _ones_or(ctx, op, "Bias", c, 0.0, dt)
    eps = float(op.attrs.get("epsilon", 1e-5))
    test = op.attrs.get("is_test", False) or op.attrs.get("use_global_stats", False) or ctx.program._is_test
    if rank == 1:
        raise unsupported(op, "'batch_norm' of a 1-D input")
    if test:
        y = ctx.node("BatchNormalization", [x, scale, bias, mean, var], epsilon=eps)
    else:
        # training mode normalizes with the batch's statistics (the running ones are not updated here)
        axes = [0] + list(range(2, rank))
        m = ctx.reduce("ReduceMean", x, axes, True)
        d = ctx.node("Sub", [x, m])
        v = ctx.reduce("ReduceMean", ctx.node("Mul", [d, d]), axes, True)
        inv = ctx.node("Reciprocal", [ctx.node("Sqrt", [ctx.node("Add", [v, ctx.scalar(eps, dt)])])])
        tail = list(range(1, rank - 1))
        sc = ctx.unsqueeze(scale, tail) if tail else scale
        bi = ctx.unsqueeze(bias, tail) if tail else bias
        y = ctx.node("Add", [ctx.node("Mul", [ctx.node("Mul", [d, inv]), sc]), bi])
    if nhwc and rank > 2:
        y = ctx.node("Transpose", [y], perm=[0] + list(range(2, rank)) + [1])
    ctx.node("Identity", [y], [ctx.output(op, "Y")])
    # running statistics are unchanged by an inference-mode batch_norm (MeanOut is the Mean var)
    for out_slot, in_slot in (("MeanOut", "Mean"), ("VarianceOut", "Variance")):
        ctx.set_output(op, ctx.input(op, in_slot), out_slot)


def _norm_shape(ctx, x, shape, begin):
    """The normalized part x.shape[begin:] as a 1-D int64 value."""
    tail = shape[begin:]
    if all(d >= 0 for d in tail):
        return ctx.i64(tail)
    return ctx.shape_of(x, begin, len(shape))


@lowers("layer_norm")
def _layer_norm(ctx, op):
    for slot in ("Mean", "Variance"):
        if ctx.output_used(op, slot):
            raise unsupported(op, f"'layer_norm' whose {slot} output is read")
    dt = ctx.out_dtype(op, "Y")
    x = ctx.input(op, "X")
    shape = ctx.in_shape(op, "X")
    rank = len(shape)
    b = int(op.attrs.get("begin_norm_axis", 1))
    b = b + rank if b < 0 else b
    eps = float(op.attrs.get("epsilon", 1e-5))
    nshape = _norm_shape(ctx, x, shape, b)
    scale = bias = None
    if op.inputs.get("Scale"):
        scale = ctx.input(op, "Scale")
        if rank - b != 1:
            scale = ctx.node("Reshape", [scale, nshape])
    if op.inputs.get("Bias"):
        bias = ctx.input(op, "Bias")
        if rank - b != 1:
            bias = ctx.node("Reshape", [bias, nshape])
    if ctx.opset >= 17:
        if scale is None:
            scale = ctx.node("ConstantOfShape", [nshape], value=_tensor(np.array([1.0], dtype=dt)))
        ins = [x, scale] + ([bias] if bias is not None else [])
        ctx.node("LayerNormalization", ins, [ctx.output(op, "Y")], axis=b, epsilon=eps)
        return
    axes = list(range(b, rank))
    m = ctx.reduce("ReduceMean", x, axes, True)
    d = ctx.node("Sub", [x, m])
    v = ctx.reduce("ReduceMean", ctx.node("Mul", [d, d]), axes, True)
    y = ctx.node("Div", [d, ctx.node("Sqrt", [ctx.node("Add", [v, ctx.scalar(eps, dt)])])])
    if scale is not None:
        y = ctx.node("Mul", [y, scale])
    if bias is not None:
        y = ctx.node("Add", [y, bias])
    ctx.node("Identity", [y], [ctx.output(op, "Y")])


@lowers("group_norm")
def _group_norm(ctx, op):
    """Group norm over [N, C, ...]; a channel-last input (data_layout NHWC, any rank: the kernel's test in
    runtime/ops/norm.py) runs the same computation between two Transposes."""
    layout = op.attrs.get("data_layout", "NCHW")
    if layout not in ("NCHW", "NHWC"):
        raise unsupported(op, f"'group_norm' in {layout} layout")
    last = layout == "NHWC"
    dt = ctx.out_dtype(op, "Y")
    x = ctx.input(op, "X")
    rank = len(ctx.in_shape(op, "X"))
    if last:
        x = ctx.node("Transpose", [x], perm=[0, rank - 1] + list(range(1, rank - 1)))
    g = int(op.attrs.get("groups", 1))
    eps = float(op.attrs.get("epsilon", 1e-5))
    xg = ctx.reshape(x, [0, g, -1])
    m = ctx.reduce("ReduceMean", xg, [2], True)
    d = ctx.node("Sub", [xg, m])
    v = ctx.reduce("ReduceMean", ctx.node("Mul", [d, d]), [2], True)
    y = ctx.node("Div", [d, ctx.node("Sqrt", [ctx.node("Add", [v, ctx.scalar(eps, dt)])])])
    y = ctx.node("Reshape", [y, ctx.shape_of(x)])
    if last:
        y = ctx.node("Transpose", [y], perm=[0] + list(range(2, rank)) + [1])     # back to channel-last
    # Scale / Bias [C] broadcast on the channel axis: the last one, or axis 1 (unsqueezed over the rest)
    tail = [] if last else list(range(1, rank - 1))
    if op.inputs.get("Scale"):
        y = ctx.node("Mul", [y, ctx.unsqueeze(ctx.input(op, "Scale"), tail) if tail else ctx.input(op, "Scale")])
    if op.inputs.get("Bias"):
        y = ctx.node("Add", [y, ctx.unsqueeze(ctx.input(op, "Bias"), tail) if tail else ctx.input(op, "Bias")])
    ctx.node("Identity", [y], [ctx.output(op, "Y")])


@lowers("instance_norm")
def _instance_norm(ctx, op):
    dt = ctx.out_dtype(op, "Y")
    x = ctx.input(op, "X")
    c = ctx.shape_of(x, 1, 2)
    scale = _ones_or(ctx, op, "Scale", c, 1.0, dt)
    bias = _ones_or(ctx, op, "Bias", c, 0.0, dt)
    ctx.node("InstanceNormalization", [x, scale, bias], [ctx.output(op, "Y")],
             epsilon=float(op.attrs.get("epsilon", 1e-5)))


# -- dropout --------------------------------------------------------------------------------------------

@lowers("dropout")
def _dropout(ctx, op):
    x = ctx.input(op, "X")
    p = float(op.attrs.get("dropout_prob", 0.5))
    impl = op.attrs.get("dropout_implementation", "downgrade_in_infer")
    test = op.attrs.get("is_test", False) or ctx.program._is_test
    if not test and p != 0.0:
        raise unsupported(op, "'dropout' in training mode (is_test=False) is random; export an eval-mode "
                              "Program (layer.eval(), or program.clone(for_test=True))")
    if impl == "upscale_in_train" or p == 0.0:
        ctx.set_output(op, x)
    else:
        dt = ctx.out_dtype(op)
        ctx.node("Mul", [x, ctx.scalar(1.0 - p, dt)], [ctx.output(op)])
    if ctx.output_used(op, "Mask"):
        ctx.node("ConstantOfShape", [ctx.shape_of(x)], [ctx.output(op, "Mask")],
                 value=_tensor(np.array([1], dtype=ctx.out_dtype(op, "Mask"))))


# -- resize ---------------------------------------------------------------------------------------------

@lowers("nearest_interp_v2", "bilinear_interp_v2", "linear_interp_v2", "trilinear_interp_v2", "bicubic_interp_v2")
def _interp(ctx, op):
    method = op.attrs.get("interp_method", "bilinear")
    linear = op.type in ("bilinear_interp_v2", "linear_interp_v2", "trilinear_interp_v2") or method in (
        "bilinear", "linear", "trilinear")
    cubic = op.type == "bicubic_interp_v2"
    if op.type == "nearest_interp_v2" or cubic:
        linear = False
    layout = op.attrs.get("data_layout", "NCHW")
    nhwc = layout in ("NHWC", "NDHWC", "NWC")
    x = ctx.input(op, "X")
    shape = ctx.in_shape(op, "X")
    rank = len(shape)
    if nhwc:
        x = ctx.node("Transpose", [x], perm=[0, rank - 1] + list(range(1, rank - 1)))
        shape = [shape[0], shape[-1]] + shape[1:-1]
    nd = rank - 2
    align = bool(op.attrs.get("align_corners", True))
    align_mode = int(op.attrs.get("align_mode", 1))
    if linear:
        mode = "linear"
        ctm = "align_corners" if align else ("half_pixel" if align_mode == 0 else "asymmetric")
        nearest_mode = None
    elif cubic:   # Keys' kernel with A = -0.75 at ratio*(k+0.5)-0.5 whatever align_mode says (ops/interpolate.py)
        mode, ctm, nearest_mode = "cubic", "align_corners" if align else "half_pixel", None
    else:
        mode = "nearest"
        ctm = "align_corners" if align else "asymmetric"
        nearest_mode = "round_prefer_ceil" if align else "floor"
    scales = sizes = None
    size_list = op.inputs.get("SizeTensor", [])
    if size_list or op.inputs.get("OutSize"):
        if size_list:
            parts = [ctx.reshape(ctx.cast(v, np.int64, ctx.in_dtype(op, "SizeTensor", i)), [1])
                     for i, v in enumerate(ctx.inputs(op, "SizeTensor"))]
            sp = ctx.node("Concat", parts, axis=0) if len(parts) > 1 else parts[0]
        else:
            sp = ctx.reshape(ctx.cast(ctx.input(op, "OutSize"), np.int64, ctx.in_dtype(op, "OutSize")), [-1])
        sizes = ctx.node("Concat", [ctx.shape_of(x, 0, 2), sp], axis=0)
    elif op.inputs.get("Scale"):
        raise unsupported(op, f"'{op.type}' with a Scale tensor")
    elif op.attrs.get("scale") and float(op.attrs["scale"][0]) > 0:
        sc = [float(s) for s in op.attrs["scale"]]
        sc = (sc * nd)[:nd] if len(sc) == 1 else sc[:nd]
        if not align and any(d < 0 for d in shape[2:]):
            scales = ctx.const(np.array([1.0, 1.0] + sc, dtype=np.float32))
        else:
            outs = [int(np.float32(n) * np.float32(s)) for n, s in zip(shape[2:], sc)]
            if any(d < 0 for d in shape[2:]):
                raise unsupported(op, f"'{op.type}' with align_corners and a scale on unknown spatial sizes")
            sizes = ctx.node("Concat", [ctx.shape_of(x, 0, 2), ctx.i64(outs)], axis=0)
            if not align:
                # Paddle maps coordinates by 1/scale (not in/out) when a scale is given
                scales, sizes = ctx.const(np.array([1.0, 1.0] + sc, dtype=np.float32)), None
    else:
        outs = [int(v) for v in (op.attrs.get("out_d", 0), op.attrs.get("out_h", 0), op.attrs.get("out_w", 0))[3 - nd:]]
        sizes = ctx.node("Concat", [ctx.shape_of(x, 0, 2), ctx.i64(outs)], axis=0)
    ins = [x, "", scales if scales is not None else ""]
    if sizes is not None:
        ins.append(sizes)
    y = ctx.node("Resize", ins, mode=mode, coordinate_transformation_mode=ctm, nearest_mode=nearest_mode,
                 cubic_coeff_a=-0.75 if cubic else None)
    if nhwc:
        y = ctx.node("Transpose", [y], perm=[0] + list(range(2, rank)) + [1])
    ctx.node("Identity", [y], [ctx.output(op)])


# -- losses and friends ---------------------------------------------------------------------------------

@lowers("bce_loss")
def _bce(ctx, op):
    dt = ctx.out_dtype(op)
    x, lab = ctx.input(op, "X"), ctx.cast(ctx.input(op, "Label"), dt, ctx.in_dtype(op, "Label"))
    one = ctx.scalar(1.0, dt)
    lo = ctx.scalar(-100.0, dt)
    # Paddle clamps the logs at -100, like PyTorch
    lx = ctx.node("Max", [ctx.node("Log", [x]), lo])
    l1x = ctx.node("Max", [ctx.node("Log", [ctx.node("Sub", [one, x])]), lo])
    s = ctx.node("Add", [ctx.node("Mul", [lab, lx]), ctx.node("Mul", [ctx.node("Sub", [one, lab]), l1x])])
    ctx.node("Neg", [s], [ctx.output(op)])


@lowers("sigmoid_cross_entropy_with_logits")
def _sigmoid_ce(ctx, op):
    if op.inputs.get("pos_weight") or op.attrs.get("normalize", False):
        raise unsupported(op, "'sigmoid_cross_entropy_with_logits' with pos_weight or normalize")
    dt = ctx.out_dtype(op)
    x, lab = ctx.input(op, "X"), ctx.cast(ctx.input(op, "Label"), dt, ctx.in_dtype(op, "Label"))
    zero = ctx.scalar(0.0, dt)
    # max(x, 0) - x*z + log(1 + exp(-|x|)), zero where label == ignore_index
    loss = ctx.node("Add", [ctx.node("Sub", [ctx.node("Max", [x, zero]), ctx.node("Mul", [x, lab])]),
                            ctx.node("Softplus", [ctx.node("Neg", [ctx.node("Abs", [x])])])])
    ign = ctx.node("Equal", [lab, ctx.scalar(float(op.attrs.get("ignore_index", -100)), dt)])
    ctx.node("Where", [ign, zero, loss], [ctx.output(op)])


@lowers("huber_loss")
def _huber(ctx, op):
    dt = ctx.out_dtype(op)
    x, y = ctx.input(op, "X"), ctx.input(op, "Y")
    delta = ctx.scalar(float(op.attrs.get("delta", 1.0)), dt)
    r = ctx.node("Sub", [y, x])
    a = ctx.node("Abs", [r])
    quad = ctx.node("Mul", [ctx.scalar(0.5, dt), ctx.node("Mul", [r, r])])
    lin = ctx.node("Mul", [delta, ctx.node("Sub", [a, ctx.node("Mul", [ctx.scalar(0.5, dt), delta])])])
    ctx.node("Where", [ctx.node("LessOrEqual", [a, delta]), quad, lin], [ctx.output(op)])
    if ctx.output_used(op, "Residual"):
        ctx.node("Identity", [r], [ctx.output(op, "Residual")])


@lowers("kldiv_loss")
def _kldiv(ctx, op):
    dt = ctx.out_dtype(op, "Loss")
    x, t = ctx.input(op, "X"), ctx.input(op, "Target")
    if op.attrs.get("log_target", False):
        loss = ctx.node("Mul", [ctx.node("Exp", [t]), ctx.node("Sub", [t, x])])
    else:
        # target * (log(target) - x), 0 where target <= 0
        pos = ctx.node("Greater", [t, ctx.scalar(0.0, dt)])
        safe = ctx.node("Where", [pos, t, ctx.scalar(1.0, dt)])
        loss = ctx.node("Where", [pos, ctx.node("Mul", [t, ctx.node("Sub", [ctx.node("Log", [safe]), x])]),
                                  ctx.scalar(0.0, dt)])
    red = op.attrs.get("reduction", "mean")
    if red == "mean":
        loss = ctx.reduce("ReduceMean", loss, None, False)
    elif red == "sum":
        loss = ctx.reduce("ReduceSum", loss, None, False)
    elif red == "batchmean":
        n = ctx.cast(ctx.shape_of(x, 0, 1), dt)
        loss = ctx.node("Div", [ctx.reduce("ReduceSum", loss, None, False), ctx.to_scalar(n)])
    ctx.node("Identity", [loss], [ctx.output(op, "Loss")])


@lowers("softmax_with_cross_entropy")
def _softmax_ce(ctx, op):
    dt = ctx.out_dtype(op, "Softmax")
    logits = ctx.input(op, "Logits")
    rank = len(ctx.in_shape(op, "Logits"))
    axis = int(op.attrs.get("axis", -1))
    axis = axis + rank if axis < 0 else axis
    if op.attrs.get("use_softmax", True):
        logp = ctx.node("LogSoftmax", [logits], axis=axis)
        sm = ctx.node("Exp", [logp])
    else:
        sm = logits
        logp = ctx.node("Log", [logits])
    ctx.node("Identity", [sm], [ctx.output(op, "Softmax")])
    label = ctx.input(op, "Label")
    if op.attrs.get("soft_label", False):
        lab = ctx.cast(label, dt, ctx.in_dtype(op, "Label"))
        loss = ctx.node("Neg", [ctx.reduce("ReduceSum", ctx.node("Mul", [lab, logp]), [axis], True)])
    else:
        lab = ctx.cast(label, np.int64, ctx.in_dtype(op, "Label"))
        ign = ctx.node("Equal", [lab, ctx.i64(int(op.attrs.get("ignore_index", -100)))])
        safe = ctx.node("Where", [ign, ctx.i64(0), lab])
        picked = ctx.node("GatherElements", [logp, safe], axis=axis)
        loss = ctx.node("Where", [ign, ctx.scalar(0.0, dt), ctx.node("Neg", [picked])])
    ctx.node("Identity", [loss], [ctx.output(op, "Loss")])


@lowers("label_smooth")
def _label_smooth(ctx, op):
    dt = ctx.out_dtype(op)
    x = ctx.input(op, "X")
    eps = float(op.attrs.get("epsilon", 0.0))
    scaled = ctx.node("Mul", [x, ctx.scalar(1.0 - eps, dt)])
    if op.inputs.get("PriorDist"):
        prior = ctx.node("Mul", [ctx.input(op, "PriorDist"), ctx.scalar(eps, dt)])
    else:
        k = ctx.cast(ctx.shape_of(x, len(ctx.in_shape(op, "X")) - 1, len(ctx.in_shape(op, "X"))), dt)
        prior = ctx.node("Div", [ctx.scalar(eps, dt), ctx.to_scalar(k)])
    ctx.node("Add", [scaled, prior], [ctx.output(op)])
