"""ONNX lowerings of the vision ops added later: 3-D convolution and pooling, lp_pool2d, max unpooling,
fold (Col2Im), pixel_unshuffle / channel_shuffle, grid_sampler (GridSample), roi_align (RoiAlign) and
affine_grid. The 1-D / 3-D / bicubic interpolations extend ops_nn's Resize lowering.

The geometry follows Paddle's kernels (runtime/ops/conv3d.py, pool3d.py, lp_pool.py, unpool.py, unfold.py,
grid_sample.py, detection_roi.py); what ONNX cannot express (adaptive windows that do not tile, SAME
padding on unknown sizes, 5-D grid sampling ...) raises `UnsupportedOpError` naming the op.
"""
from __future__ import annotations

import numpy as np

from .lowering import lowers, unsupported


def _ints(v):
    return [int(x) for x in v]


def _channel_last(fmt):
    return fmt in ("NDHWC", "NHWC", "NWC")


def _to_first(ctx, x, rank):
    return ctx.node("Transpose", [x], perm=[0, rank - 1] + list(range(1, rank - 1)))


def _to_last(ctx, y, rank):
    return ctx.node("Transpose", [y], perm=[0] + list(range(2, rank)) + [1])


def _same_pads(sizes, ks, ss):
    from ..ops.conv import same_pads
    begin, end = [], []
    for n, k, s in zip(sizes, ks, ss):
        b, e = same_pads(n, k, s)
        begin.append(b)
        end.append(e)
    return begin + end


def _explicit_pads(paddings, nd):
    """Paddle's [p] * nd or [b0, e0, b1, e1, ...] paddings in ONNX order [b0, b1, .., e0, e1, ..]."""
    p = _ints(paddings)
    if len(p) == nd:
        return p + p
    if len(p) == 2 * nd:
        return p[0::2] + p[1::2]
    raise ValueError(f"paddings must have {nd} or {2 * nd} values, got {p}")


def _geometry(ctx, op, sizes, ks, ss, dil=None):
    """(pads, dilations, auto_pad) for Paddle's padding_algorithm on spatial ``sizes``."""
    nd = len(ks)
    algo = (op.attrs.get("padding_algorithm") or "EXPLICIT").upper()
    dil = dil or [1] * nd
    if algo == "SAME":
        if any(n < 0 for n in sizes):
            return None, [1] * nd, "SAME_UPPER"
        return _same_pads(sizes, ks, ss), [1] * nd, None
    if algo == "VALID":
        return [0] * (2 * nd), dil, None
    return _explicit_pads(op.attrs.get("paddings", [0] * nd), nd), dil, None


# -- convolution 3-D ------------------------------------------------------------------------------------------

@lowers("conv3d")
def _conv3d(ctx, op):
    last = _channel_last(op.attrs.get("data_format", "NCDHW"))
    shape = ctx.in_shape(op, "Input")
    sizes = shape[1:4] if last else shape[2:5]
    ks = ctx.in_shape(op, "Filter")[2:5]
    ss = _ints(op.attrs.get("strides", [1, 1, 1]))
    pads, dil, auto = _geometry(ctx, op, sizes, ks, ss, _ints(op.attrs.get("dilations", [1, 1, 1])))
    x = ctx.input(op, "Input")
    x = _to_first(ctx, x, 5) if last else x
    y = ctx.node("Conv", [x, ctx.input(op, "Filter")], strides=ss, dilations=dil, pads=pads, auto_pad=auto,
                 group=int(op.attrs.get("groups", 1)), kernel_shape=ks)
    ctx.node("Identity", [_to_last(ctx, y, 5) if last else y], [ctx.output(op, "Output")])


@lowers("conv3d_transpose")
def _conv3d_transpose(ctx, op):
    last = _channel_last(op.attrs.get("data_format", "NCDHW"))
    shape = ctx.in_shape(op, "Input")
    sizes = shape[1:4] if last else shape[2:5]
    ks = ctx.in_shape(op, "Filter")[2:5]
    ss = _ints(op.attrs.get("strides", [1, 1, 1]))
    if (op.attrs.get("padding_algorithm") or "EXPLICIT").upper() == "SAME":
        raise unsupported(op, "'conv3d_transpose' with SAME padding")
    pads, dil, _ = _geometry(ctx, op, sizes, ks, ss, _ints(op.attrs.get("dilations", [1, 1, 1])))
    out_pad = _ints(op.attrs.get("output_padding") or []) or [0, 0, 0]
    osz = _ints(op.attrs.get("output_size") or [])
    if osz:
        if any(n < 0 for n in sizes):
            raise unsupported(op, "'conv3d_transpose' with output_size on unknown spatial sizes")
        base = [(sizes[i] - 1) * ss[i] - pads[i] - pads[i + 3] + dil[i] * (ks[i] - 1) + 1 for i in range(3)]
        out_pad = [osz[i] - base[i] for i in range(3)]
    x = ctx.input(op, "Input")
    x = _to_first(ctx, x, 5) if last else x
    y = ctx.node("ConvTranspose", [x, ctx.input(op, "Filter")], strides=ss, dilations=dil, pads=pads,
                 group=int(op.attrs.get("groups", 1)), kernel_shape=ks,
                 output_padding=out_pad if any(out_pad) else None)
    ctx.node("Identity", [_to_last(ctx, y, 5) if last else y], [ctx.output(op, "Output")])


# -- pooling 3-D ----------------------------------------------------------------------------------------------

def _pool_nd(ctx, op, x, sizes, is_max, n_out=1):
    nd = len(sizes)
    ks = _ints(op.attrs.get("ksize", []))
    ss = _ints(op.attrs.get("strides", [1] * nd))
    if op.attrs.get("global_pooling", False) or (op.attrs.get("adaptive", False) and ks == [1] * nd):
        if n_out == 1:
            return ctx.node("GlobalMaxPool" if is_max else "GlobalAveragePool", [x])
        if any(n < 0 for n in sizes):
            raise unsupported(op, f"'{op.type}' global pooling with indices on unknown spatial sizes")
        return ctx.node("MaxPool", [x], 2, kernel_shape=sizes, strides=[1] * nd)
    if op.attrs.get("adaptive", False):
        if any(n < 0 for n in sizes) or any(n % k for n, k in zip(sizes, ks)):
            raise unsupported(op, f"adaptive '{op.type}' to {ks} needs known spatial sizes {sizes} that the output "
                                  "divides (ONNX pools have one window size)")
        k = [n // o for n, o in zip(sizes, ks)]
        return ctx.node("MaxPool" if is_max else "AveragePool", [x], n_out, kernel_shape=k, strides=k)
    pads, _, auto = _geometry(ctx, op, sizes, ks, ss)
    ceil = int(bool(op.attrs.get("ceil_mode", False)))
    if is_max:
        return ctx.node("MaxPool", [x], n_out, kernel_shape=ks, strides=ss, pads=pads, auto_pad=auto, ceil_mode=ceil)
    return ctx.node("AveragePool", [x], kernel_shape=ks, strides=ss, pads=pads, auto_pad=auto, ceil_mode=ceil,
                    count_include_pad=0 if op.attrs.get("exclusive", True) else 1)


@lowers("pool3d")
def _pool3d(ctx, op):
    last = _channel_last(op.attrs.get("data_format", "NCDHW"))
    shape = ctx.in_shape(op, "X")
    sizes = shape[1:4] if last else shape[2:5]
    ptype = op.attrs.get("pooling_type", "")
    if ptype not in ("max", "avg"):
        raise unsupported(op, f"'pool3d' with pooling_type {ptype!r}")
    x = ctx.input(op, "X")
    y = _pool_nd(ctx, op, _to_first(ctx, x, 5) if last else x, sizes, ptype == "max")
    ctx.node("Identity", [_to_last(ctx, y, 5) if last else y], [ctx.output(op)])


@lowers("max_pool3d_with_index")
def _max_pool3d_index(ctx, op):
    x = ctx.input(op, "X")
    sizes = ctx.in_shape(op, "X")[2:5]
    if not ctx.output_used(op, "Mask"):
        y = _pool_nd(ctx, op, x, sizes, True)
        ctx.node("Identity", [y[0] if isinstance(y, list) else y], [ctx.output(op, "Out")])
        return
    y, idx = _pool_nd(ctx, op, x, sizes, True, n_out=2)
    # ONNX counts indices over the whole N*C*D*H*W tensor; Paddle within one D*H*W volume
    vol = ctx.reduce("ReduceProd", ctx.shape_of(x, 2, 5), None, False)
    mask = ctx.node("Mod", [idx, vol], fmod=0)
    ctx.node("Identity", [y], [ctx.output(op, "Out")])
    ctx.node("Identity", [ctx.cast(mask, ctx.out_dtype(op, "Mask"), np.int64)], [ctx.output(op, "Mask")])


# -- lp_pool2d ------------------------------------------------------------------------------------------------

@lowers("lp_pool2d")
def _lp_pool2d(ctx, op):
    """(window sum of x**p) ** (1/p) in float32 as Paddle's kernel (the power is signed, so no LpPool, which
    takes |x|): the window sum is a depthwise Conv with a ones kernel; ceil_mode becomes extra end padding,
    which adds nothing. p = inf is MaxPool."""
    if op.inputs.get("KernelSizeTensor") or op.inputs.get("KernelSizeTensorList"):
        raise unsupported(op, "'lp_pool2d' with a tensor kernel size")
    if op.attrs.get("adaptive", False):
        raise unsupported(op, "adaptive 'lp_pool2d'")
    last = _channel_last(op.attrs.get("data_format", "NCHW"))
    shape = ctx.in_shape(op, "x")
    C, sizes = (shape[3], shape[1:3]) if last else (shape[1], shape[2:4])
    x = ctx.input(op, "x")
    x = _to_first(ctx, x, 4) if last else x
    dt = np.dtype(ctx.in_dtype(op, "x"))
    if op.attrs.get("global_pooling", False):
        if any(n < 0 for n in sizes):
            raise unsupported(op, "global 'lp_pool2d' on unknown spatial sizes")
        ks, ss, pads = list(sizes), [1, 1], [0, 0, 0, 0]
    else:
        ks, ss = _ints(op.attrs["kernel_size"]), _ints(op.attrs.get("strides", [1, 1]))
        algo = (op.attrs.get("padding_algorithm") or "EXPLICIT").upper()
        if algo == "SAME" and any(n < 0 for n in sizes):
            raise unsupported(op, "'lp_pool2d' with SAME padding on unknown spatial sizes")
        if algo == "SAME":
            pads = _same_pads(sizes, ks, ss)
        elif algo == "VALID":
            pads = [0, 0, 0, 0]
        else:
            from ..ops.conv import pads4
            t, b, l, r = pads4(op.attrs.get("paddings", [0, 0]))
            pads = [t, l, b, r]
    p = float(op.attrs["norm_type"])
    ceil = bool(op.attrs.get("ceil_mode", False))
    if np.isinf(p):
        y = ctx.node("MaxPool", [x], kernel_shape=ks, strides=ss, pads=pads, ceil_mode=int(ceil))
    else:
        if C < 0:
            raise unsupported(op, "'lp_pool2d' on an unknown channel count")
        if ceil:
            if any(n < 0 for n in sizes):
                raise unsupported(op, "'lp_pool2d' with ceil_mode on unknown spatial sizes")
            for i in range(2):
                span = sizes[i] + pads[i] + pads[i + 2] - ks[i]
                pads[i + 2] += (-span) % ss[i]
        xf = ctx.cast(x, np.float32, dt)
        powed = ctx.node("Pow", [xf, ctx.scalar(p, np.float32)])
        ones = ctx.const(np.ones([C, 1] + ks, np.float32))
        total = ctx.node("Conv", [powed, ones], group=C, kernel_shape=ks, strides=ss, pads=pads)
        y = ctx.cast(ctx.node("Pow", [total, ctx.scalar(1.0 / p, np.float32)]), dt, np.float32)
    ctx.node("Identity", [_to_last(ctx, y, 4) if last else y], [ctx.output(op, "out")])


# -- max unpooling --------------------------------------------------------------------------------------------

@lowers("unpool", "unpool3d")
def _unpool(ctx, op):
    """MaxUnpool: Paddle's indices count within one output plane / volume, ONNX's over the whole output
    tensor, so each (n, c) adds (n * C + c) * plane."""
    nd = 2 if op.type == "unpool" else 3
    fmt = op.attrs.get("data_format", "NCHW")
    if _channel_last(fmt):
        raise unsupported(op, f"'{op.type}' with data_format {fmt!r}")
    if op.type == "unpool" and op.attrs.get("unpooling_type", "max") != "max":
        raise unsupported(op, f"'unpool' with unpooling_type {op.attrs.get('unpooling_type')!r}")
    out_sp = ctx.out_shape(op)[2:]
    if any(n < 0 for n in out_sp):
        raise unsupported(op, f"'{op.type}' to unknown output sizes {out_sp}")
    plane = int(np.prod(out_sp))
    x = ctx.input(op, "X")
    idx = ctx.cast(ctx.input(op, "Indices"), np.int64, ctx.in_dtype(op, "Indices"))
    nc = ctx.shape_of(x, 0, 2)
    count = ctx.to_scalar(ctx.reduce("ReduceProd", nc, None, True))
    base = ctx.node("Range", [ctx.scalar(0, np.int64), count, ctx.scalar(1, np.int64)])
    base = ctx.node("Mul", [base, ctx.scalar(plane, np.int64)])
    base = ctx.node("Reshape", [base, ctx.node("Concat", [nc, ctx.i64([1] * nd)], axis=0)])
    out_shape = ctx.node("Concat", [nc, ctx.i64(out_sp)], axis=0)
    ks = _ints(op.attrs["ksize"])
    y = ctx.node("MaxUnpool", [x, ctx.node("Add", [idx, base]), out_shape], kernel_shape=ks,
                 strides=_ints(op.attrs.get("strides", [1] * nd)))
    ctx.node("Identity", [y], [ctx.output(op)])


# -- fold / shuffles ------------------------------------------------------------------------------------------

@lowers("fold")
def _fold(ctx, op):
    if ctx.opset < 18:
        raise unsupported(op, "'fold' needs opset >= 18 (Col2Im)")
    a = op.attrs
    pads = _ints(a["paddings"])
    if len(pads) == 2:
        pads = [pads[0], pads[1], pads[0], pads[1]]
    y = ctx.node("Col2Im", [ctx.input(op, "X"), ctx.i64(_ints(a["output_sizes"])), ctx.i64(_ints(a["kernel_sizes"]))],
                 dilations=_ints(a["dilations"]), pads=pads, strides=_ints(a["strides"]))
    ctx.node("Identity", [y], [ctx.output(op, "Y")])


@lowers("pixel_unshuffle")
def _pixel_unshuffle(ctx, op):
    """[N, C, H, W] -> [N, C*r*r, H/r, W/r] with channel c*r*r + i*r + j (not SpaceToDepth's order)."""
    r = int(op.attrs["downscale_factor"])
    last = _channel_last(op.attrs.get("data_format", "NCHW"))
    shape = ctx.in_shape(op, "X")
    C, H, W = (shape[3], shape[1], shape[2]) if last else shape[1:4]
    if min(C, H, W) < 0:
        raise unsupported(op, f"'pixel_unshuffle' on unknown sizes {shape}")
    x = ctx.input(op, "X")
    x = _to_first(ctx, x, 4) if last else x
    y = ctx.reshape(x, [-1, C, H // r, r, W // r, r])
    y = ctx.node("Transpose", [y], perm=[0, 1, 3, 5, 2, 4])
    y = ctx.reshape(y, [-1, C * r * r, H // r, W // r])
    ctx.node("Identity", [_to_last(ctx, y, 4) if last else y], [ctx.output(op)])


@lowers("channel_shuffle")
def _channel_shuffle(ctx, op):
    g = int(op.attrs["groups"])
    last = _channel_last(op.attrs.get("data_format", "NCHW"))
    shape = ctx.in_shape(op, "X")
    C = shape[3] if last else shape[1]
    if C < 0:
        raise unsupported(op, "'channel_shuffle' on an unknown channel count")
    x = ctx.input(op, "X")
    x = _to_first(ctx, x, 4) if last else x
    full = ctx.node("Shape", [x])
    y = ctx.node("Transpose", [ctx.reshape(x, [0, g, C // g, -1])], perm=[0, 2, 1, 3])
    y = ctx.node("Reshape", [y, full])
    ctx.node("Identity", [_to_last(ctx, y, 4) if last else y], [ctx.output(op)])


# -- sampling -------------------------------------------------------------------------------------------------

@lowers("grid_sampler")
def _grid_sampler(ctx, op):
    if ctx.opset < 16:
        raise unsupported(op, "'grid_sampler' needs opset >= 16 (GridSample)")
    if len(ctx.in_shape(op, "X")) != 4:
        raise unsupported(op, "5-D 'grid_sampler' (ONNX GridSample is 4-D before opset 20)")
    mode = op.attrs.get("mode", "bilinear")
    if ctx.opset >= 20:
        mode = {"bilinear": "linear", "bicubic": "cubic"}.get(mode, mode)
    y = ctx.node("GridSample", [ctx.input(op, "X"), ctx.input(op, "Grid")], mode=mode,
                 padding_mode=op.attrs.get("padding_mode", "zeros"),
                 align_corners=int(bool(op.attrs.get("align_corners", True))))
    ctx.node("Identity", [y], [ctx.output(op, "Output")])


@lowers("affine_grid")
def _affine_grid(ctx, op):
    """Theta [N, 2, 3] applied to the constant base grid of the (attribute) output shape."""
    from ..ops.grid_sample import _base_grid
    if op.inputs.get("OutputShape"):
        raise unsupported(op, "'affine_grid' with a tensor output shape")
    shape = _ints(op.attrs["output_shape"])
    dt = np.dtype(ctx.out_dtype(op, "Output"))
    nd = len(shape) - 2
    base = _base_grid(shape, bool(op.attrs.get("align_corners", True)), dt).reshape(1, -1, nd + 1)
    theta = ctx.node("Transpose", [ctx.input(op, "Theta")], perm=[0, 2, 1])           # [N, nd+1, nd]
    grid = ctx.node("MatMul", [ctx.const(base), theta])                                # [N, P, nd]
    ctx.node("Identity", [ctx.reshape(grid, [-1] + shape[2:] + [nd])], [ctx.output(op, "Output")])


@lowers("roi_align")
def _roi_align(ctx, op):
    """RoiAlign (opset 16): aligned -> half_pixel, else output_half_pixel (a roi of at least one pixel);
    sampling_ratio <= 0 is adaptive in both. Each roi's image comes from RoisNum (rois are grouped by image)."""
    if ctx.opset < 16:
        raise unsupported(op, "'roi_align' needs opset >= 16 (RoiAlign with coordinate_transformation_mode)")
    rois = ctx.input(op, "ROIs")
    n_rois = ctx.shape_of(rois, 0, 1)
    if op.inputs.get("RoisNum"):
        ends = ctx.node("CumSum", [ctx.cast(ctx.input(op, "RoisNum"), np.int64, ctx.in_dtype(op, "RoisNum")),
                                   ctx.i64([0])])
        r = ctx.node("Range", [ctx.scalar(0, np.int64), ctx.to_scalar(n_rois), ctx.scalar(1, np.int64)])
        past = ctx.node("GreaterOrEqual", [ctx.unsqueeze(r, [1]), ctx.unsqueeze(ends, [0])])
        batch = ctx.reduce("ReduceSum", ctx.cast(past, np.int64, np.bool_), [1], False)
    else:
        if ctx.in_shape(op, "X")[0] != 1:
            raise unsupported(op, "'roi_align' without RoisNum on a batch that is not known to be 1")
        batch = ctx.node("ConstantOfShape", [n_rois], value=_tensor_i64(0))
    ratio = int(op.attrs.get("sampling_ratio", -1))
    y = ctx.node("RoiAlign", [ctx.input(op, "X"), rois, batch], mode="avg",
                 output_height=int(op.attrs["pooled_height"]), output_width=int(op.attrs["pooled_width"]),
                 sampling_ratio=max(ratio, 0), spatial_scale=float(op.attrs.get("spatial_scale", 1.0)),
                 coordinate_transformation_mode="half_pixel" if op.attrs.get("aligned", False)
                 else "output_half_pixel")
    ctx.node("Identity", [y], [ctx.output(op)])


def _tensor_i64(v):
    import onnx
    return onnx.numpy_helper.from_array(np.array([v], np.int64))


# -- detection ------------------------------------------------------------------------------------------------

@lowers("prior_box")
def _prior_box(ctx, op):
    """The boxes depend only on the feature map's and the image's sizes: with those known, they are the
    constants our kernel computes."""
    from ..ops.registry import lookup
    shapes = [ctx.in_shape(op, s) for s in ("Input", "Image")]
    if any(d < 0 for sh in shapes for d in sh[2:]):
        raise unsupported(op, f"'prior_box' on unknown spatial sizes {shapes}")
    dt = ctx.in_dtype(op, "Input")
    probe = [np.zeros([1, 1] + sh[2:], dt) for sh in shapes]
    kernel = lookup("prior_box").kernel
    attrs = {k: v for k, v in op.attrs.items() if k in lookup("prior_box").attrs}
    boxes, variances = kernel(*probe, **attrs)
    _emit_const = [("Boxes", boxes), ("Variances", variances)]
    for slot, value in _emit_const:
        if ctx.has_output(op, slot):
            ctx.node("Identity", [ctx.const(np.asarray(value))], [ctx.output(op, slot)])


@lowers("roi_pool")
def _roi_pool(ctx, op):
    """MaxRoiPool (Caffe's rounding, empty bins 0, as Paddle's kernel) on [batch index, x1, y1, x2, y2] rois."""
    if ctx.output_used(op, "Argmax"):
        raise unsupported(op, "the 'Argmax' output of 'roi_pool'")
    rois = ctx.input(op, "ROIs")
    n_rois = ctx.shape_of(rois, 0, 1)
    if op.inputs.get("RoisNum"):
        ends = ctx.node("CumSum", [ctx.cast(ctx.input(op, "RoisNum"), np.int64, ctx.in_dtype(op, "RoisNum")),
                                   ctx.i64([0])])
        r = ctx.node("Range", [ctx.scalar(0, np.int64), ctx.to_scalar(n_rois), ctx.scalar(1, np.int64)])
        past = ctx.node("GreaterOrEqual", [ctx.unsqueeze(r, [1]), ctx.unsqueeze(ends, [0])])
        batch = ctx.reduce("ReduceSum", ctx.cast(past, np.int64, np.bool_), [1], True)
    else:
        if ctx.in_shape(op, "X")[0] != 1:
            raise unsupported(op, "'roi_pool' without RoisNum on a batch that is not known to be 1")
        batch = ctx.node("ConstantOfShape", [ctx.node("Concat", [n_rois, ctx.i64([1])], axis=0)],
                         value=_tensor_i64(0))
    dt = ctx.in_dtype(op, "ROIs")
    full = ctx.node("Concat", [ctx.cast(batch, dt, np.int64), rois], axis=1)
    y = ctx.node("MaxRoiPool", [ctx.input(op, "X"), full],
                 pooled_shape=[int(op.attrs["pooled_height"]), int(op.attrs["pooled_width"])],
                 spatial_scale=float(op.attrs.get("spatial_scale", 1.0)))
    ctx.node("Identity", [y], [ctx.output(op)])


@lowers("deformable_conv", "deformable_conv_v1")
def _deformable_conv(ctx, op):
    """DeformConv (opset 19): the same offset layout ((dy, dx) per kernel tap and offset group), mask
    layout and zero sampling outside the image as Paddle's kernel."""
    if ctx.opset < 19:
        raise unsupported(op, f"'{op.type}' needs opset >= 19 (DeformConv)")
    ks = ctx.in_shape(op, "Filter")[2:4]
    p = _ints(op.attrs.get("paddings", [0, 0]))
    ins = [ctx.input(op, "Input"), ctx.input(op, "Filter"), ctx.input(op, "Offset"), ""]
    if op.type == "deformable_conv" and op.inputs.get("Mask"):
        ins.append(ctx.input(op, "Mask"))
    y = ctx.node("DeformConv", ins, kernel_shape=ks, strides=_ints(op.attrs.get("strides", [1, 1])),
                 dilations=_ints(op.attrs.get("dilations", [1, 1])), pads=[p[0], p[1], p[0], p[1]],
                 group=int(op.attrs.get("groups", 1)), offset_group=int(op.attrs.get("deformable_groups", 1)))
    ctx.node("Identity", [y], [ctx.output(op, "Output")])


@lowers("box_coder")
def _box_coder(ctx, op):
    """Center-size encoding / decoding, term by term as runtime/ops/detection_box.py computes it."""
    dt = np.dtype(ctx.in_dtype(op, "PriorBox"))
    code = op.attrs.get("code_type", "encode_center_size")
    one = ctx.scalar(0 if op.attrs.get("box_normalized", True) else 1, dt)
    two = ctx.scalar(2, dt)
    prior = ctx.input(op, "PriorBox")
    variance = [float(v) for v in op.attrs.get("variance") or []]
    if op.inputs.get("PriorBoxVar"):
        var = ctx.cast(ctx.input(op, "PriorBoxVar"), dt, ctx.in_dtype(op, "PriorBoxVar"))
        var = ctx.node("Expand", [var, ctx.node("Shape", [prior])])
    elif variance:
        var = ctx.node("Expand", [ctx.const(np.asarray(variance, np.float32).astype(dt)), ctx.node("Shape", [prior])])
    else:
        var = None

    def col(t, i):   # t[..., i]
        return ctx.node("Gather", [t, ctx.scalar(i, np.int64)], axis=-1)
    pw = ctx.node("Add", [ctx.node("Sub", [col(prior, 2), col(prior, 0)]), one])
    ph = ctx.node("Add", [ctx.node("Sub", [col(prior, 3), col(prior, 1)]), one])
    pcx = ctx.node("Add", [col(prior, 0), ctx.node("Div", [pw, two])])
    pcy = ctx.node("Add", [col(prior, 1), ctx.node("Div", [ph, two])])
    target = ctx.input(op, "TargetBox")
    if code == "encode_center_size":
        t = ctx.unsqueeze(target, [1])                                     # [N, 1, 4] against the M priors
        tcx = ctx.node("Div", [ctx.node("Add", [col(t, 2), col(t, 0)]), two])
        tcy = ctx.node("Div", [ctx.node("Add", [col(t, 3), col(t, 1)]), two])
        tw = ctx.node("Add", [ctx.node("Sub", [col(t, 2), col(t, 0)]), one])
        th = ctx.node("Add", [ctx.node("Sub", [col(t, 3), col(t, 1)]), one])
        parts = [ctx.node("Div", [ctx.node("Sub", [tcx, pcx]), pw]), ctx.node("Div", [ctx.node("Sub", [tcy, pcy]), ph]),
                 ctx.node("Log", [ctx.node("Abs", [ctx.node("Div", [tw, pw])])]),
                 ctx.node("Log", [ctx.node("Abs", [ctx.node("Div", [th, ph])])])]
        out = ctx.node("Concat", [ctx.unsqueeze(p, [-1]) for p in parts], axis=-1)
        if var is not None:
            out = ctx.node("Div", [out, ctx.unsqueeze(var, [0])])
    elif code == "decode_center_size":
        axis = int(op.attrs.get("axis", 0))
        pw, ph, pcx, pcy = (ctx.unsqueeze(a, [0 if axis == 0 else 1]) for a in (pw, ph, pcx, pcy))
        v = ctx.unsqueeze(var, [0 if axis == 0 else 1]) if var is not None else ctx.const(np.ones((1, 1, 4), dt))
        cx = ctx.node("Add", [ctx.node("Mul", [ctx.node("Mul", [col(v, 0), col(target, 0)]), pw]), pcx])
        cy = ctx.node("Add", [ctx.node("Mul", [ctx.node("Mul", [col(v, 1), col(target, 1)]), ph]), pcy])
        w = ctx.node("Mul", [ctx.node("Exp", [ctx.node("Mul", [col(v, 2), col(target, 2)])]), pw])
        h = ctx.node("Mul", [ctx.node("Exp", [ctx.node("Mul", [col(v, 3), col(target, 3)])]), ph])
        hw, hh = ctx.node("Div", [w, two]), ctx.node("Div", [h, two])
        parts = [ctx.node("Sub", [cx, hw]), ctx.node("Sub", [cy, hh]),
                 ctx.node("Sub", [ctx.node("Add", [cx, hw]), one]), ctx.node("Sub", [ctx.node("Add", [cy, hh]), one])]
        out = ctx.node("Concat", [ctx.unsqueeze(p, [-1]) for p in parts], axis=-1)
    else:
        raise unsupported(op, f"'box_coder' with code_type {code!r}")
    ctx.node("Identity", [out], [ctx.output(op, "OutputBox")])


@lowers("fractional_max_pool2d", "fractional_max_pool3d")
def _fractional_max_pool(ctx, op):
    """With an explicit random_u the windows are fixed: each output gathers its window's in-plane positions
    (padded to the largest window by repeating its first position), then ReduceMax; the mask is the
    position ArgMax picks (the first maximum, as the kernel). Empty windows give -FLT_MAX and mask -1."""
    from ..ops.fractional_pool import _bounds
    nd = 2 if op.type.endswith("2d") else 3
    u = float(op.attrs.get("random_u", 0.0))
    if u == 0.0:
        raise unsupported(op, f"'{op.type}' without random_u draws its windows at run time; pass random_u "
                              "to export it")
    shape = ctx.in_shape(op, "x")
    spatial = shape[2:]
    if any(n < 0 for n in spatial):
        raise unsupported(op, f"'{op.type}' on unknown spatial sizes {spatial}")
    outs = [int(o) for o in op.attrs["output_size"]]
    ks = [int(k) for k in op.attrs.get("kernel_size") or []] or [0] * nd
    per_dim = [_bounds(spatial[d], outs[d], ks[d], u) for d in range(nd)]
    strides = [int(np.prod(spatial[d + 1:])) for d in range(nd)]
    windows = []
    for pos in np.ndindex(*outs):
        ranges = [np.arange(*per_dim[d][pos[d]]) for d in range(nd)]
        grid = np.meshgrid(*ranges, indexing="ij")
        windows.append(sum(g.ravel() * s for g, s in zip(grid, strides)) if all(r.size for r in ranges)
                       else np.zeros(0, np.int64))
    width = max(1, max(w.size for w in windows))
    table = np.stack([np.concatenate([w, np.full(width - w.size, w[0] if w.size else 0)]) for w in windows])
    empty = np.array([w.size == 0 for w in windows]).reshape(outs)
    x = ctx.input(op, "x")
    flat = ctx.node("Reshape", [x, ctx.node("Concat", [ctx.shape_of(x, 0, 2), ctx.i64([-1])], axis=0)])
    vals = ctx.node("Gather", [flat, ctx.const(table.reshape(outs + [width]).astype(np.int64))], axis=2)
    out = ctx.reduce("ReduceMax", vals, [-1], False)
    dt = ctx.in_dtype(op, "x")
    if empty.any():
        out = ctx.node("Where", [ctx.const(empty), ctx.scalar(-np.finfo(np.float32).max, dt), out])
    ctx.node("Identity", [out], [ctx.output(op, "out")])
    if ctx.has_output(op, "mask"):
        best = ctx.node("ArgMax", [vals], axis=-1, keepdims=0)                          # [N, C, *outs]
        ids = ctx.node("Expand", [ctx.const(table.reshape(outs + [width]).astype(np.int64)),
                                  ctx.node("Concat", [ctx.shape_of(x, 0, 2), ctx.i64(outs + [width])], axis=0)])
        mask = ctx.squeeze(ctx.node("GatherElements", [ids, ctx.unsqueeze(best, [-1])], axis=-1), [-1])
        if empty.any():
            mask = ctx.node("Where", [ctx.const(empty), ctx.scalar(-1, np.int64), mask])
        ctx.node("Identity", [ctx.cast(mask, ctx.out_dtype(op, "mask"), np.int64)], [ctx.output(op, "mask")])
