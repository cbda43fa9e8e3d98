"""ONNX lowerings real deployment models need beyond the base tables: adaptive pooling on run-time or
non-tiling sizes (with its index output), pixel_unshuffle on run-time sizes.
"""
from __future__ import annotations

import itertools

import numpy as np

from . import ops_nn, ops_vision_extra
from .lowering import lowers, unsupported

# Paddle's adaptive bin ``i`` of ``o`` over ``n`` input positions is ``[floor(i*n/o), ceil((i+1)*n/o))``
# (runtime/ops/pool.py). Max and mean over a box are separable, so each pooled axis is reduced in turn: one
# Slice + ReduceMean/ReduceMax per output bin, concatenated. On a known size the bounds are constants; on a
# size known only at run time they are computed in the graph from ``Shape`` with integer division, so the
# exported model is exact for every input size (a bin is never empty: ``ceil((i+1)n/o) > floor(i*n/o)``).
#
# These wrap the base lowerings of ``pool2d`` / ``max_pool2d_with_index`` (ops_nn.py) and
# ``pool3d`` / ``max_pool3d_with_index`` / ``pixel_unshuffle`` (ops_vision_extra.py): every case
# the base lowering handles (regular windows, global pooling, bins that tile a known size) still goes
# there; this module is imported after them in ``runtime/onnx/__init__.py`` so its registration wins.
# ``F.adaptive_max_pool2d/3d`` build ``max_pool2d/3d_with_index`` even without ``return_mask``: without a
# used mask they get the same binned max; with a used mask (on known sizes) each bin is an ArgMax over its
# flattened box (first maximum, as Paddle's kernel), moved to the index within the input's H*W (D*H*W)
# plane. A used mask on sizes known only at run time is refused with an error naming the op.
#
# Also here: ``pixel_unshuffle`` on sizes known only at run time (the target shapes computed in the graph).

_BASE_POOL2D = ops_nn._pool2d
_BASE_POOL3D = ops_vision_extra._pool3d


def _needs_bins(op, sizes):
    """True when ``op`` is an adaptive pool the base lowering cannot express as one ONNX pool: some
    spatial size unknown, or (3-D) an output size that does not divide its input size."""
    if not op.attrs.get("adaptive", False) or op.attrs.get("global_pooling", False):
        return False
    ks = [int(k) for k in op.attrs.get("ksize", [])]
    if len(ks) != len(sizes) or all(k == 1 for k in ks):
        return False          # adaptive to 1 x 1 (x 1) is a global pool: the base lowering emits one
    if any(n < 0 for n in sizes):
        return True
    return op.type in ("pool3d", "max_pool3d_with_index") and any(n % k for n, k in zip(sizes, ks))


def _static_bins(n_in, n_out):
    return [((i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)) for i in range(n_out)]


def _dynamic_bins(ctx, x, axis, n_out):
    """``(start, end)`` 1-element int64 tensors of each bin along ``axis`` from the run-time size."""
    n = ctx.shape_of(x, axis, axis + 1)                             # [n]
    bins = []
    for i in range(n_out):
        start = ctx.node("Div", [ctx.node("Mul", [n, ctx.i64([i])]), ctx.i64([n_out])])
        end = ctx.node("Div", [ctx.node("Add", [ctx.node("Mul", [n, ctx.i64([i + 1])]), ctx.i64([n_out - 1])]),
                               ctx.i64([n_out])])
        bins.append((start, end))
    return bins


def _binned_pool(ctx, x, sizes, outs, is_max):
    """Adaptive pooling of channel-first ``x`` (spatial axes 2..) to ``outs``, axis by axis."""
    red = "ReduceMax" if is_max else "ReduceMean"
    y = x
    for d, (n_in, n_out) in enumerate(zip(sizes, outs)):
        axis = 2 + d
        if n_in == n_out:
            continue
        if n_in >= 0:
            bins = [(ctx.i64([s]), ctx.i64([e])) for s, e in _static_bins(n_in, n_out)]
        else:
            bins = _dynamic_bins(ctx, y, axis, n_out)
        parts = [ctx.reduce(red, ctx.node("Slice", [y, s, e, ctx.i64([axis])]), [axis], True) for s, e in bins]
        y = ctx.node("Concat", parts, axis=axis) if len(parts) > 1 else parts[0]
    return y


def _pool_type(op):
    ptype = op.attrs.get("pooling_type", "")
    if ptype not in ("max", "avg"):
        raise unsupported(op, f"'{op.type}' with pooling_type {ptype!r} (expected 'max' or 'avg')")
    return ptype == "max"


@lowers("pool2d")
def _pool2d(ctx, op):
    nhwc = op.attrs.get("data_format", "NCHW") == "NHWC"
    shape = ctx.in_shape(op, "X")
    sizes = [int(n) for n in (shape[1:3] if nhwc else shape[2:4])]
    if not _needs_bins(op, sizes):
        return _BASE_POOL2D(ctx, op)
    is_max = _pool_type(op)
    outs = [int(k) for k in op.attrs["ksize"]]
    x = ops_nn._to_nchw(ctx, ctx.input(op, "X"), nhwc)
    y = _binned_pool(ctx, x, sizes, outs, is_max)
    ctx.node("Identity", [ops_nn._from_nchw(ctx, y, nhwc)], [ctx.output(op)])


@lowers("pool3d")
def _pool3d(ctx, op):
    last = op.attrs.get("data_format", "NCDHW") == "NDHWC"
    shape = ctx.in_shape(op, "X")
    sizes = [int(n) for n in (shape[1:4] if last else shape[2:5])]
    if not _needs_bins(op, sizes):
        return _BASE_POOL3D(ctx, op)
    is_max = _pool_type(op)
    outs = [int(k) for k in op.attrs["ksize"]]
    x = ctx.input(op, "X")
    x = ops_vision_extra._to_first(ctx, x, 5) if last else x
    y = _binned_pool(ctx, x, sizes, outs, is_max)
    ctx.node("Identity", [ops_vision_extra._to_last(ctx, y, 5) if last else y], [ctx.output(op)])


def _adaptive_with_index(ctx, op, x, sizes):
    """(Out, Mask) of adaptive max pooling with indices on known ``sizes``: one ArgMax per bin."""
    outs = [int(k) for k in op.attrs["ksize"]]
    if any(n < 0 for n in sizes):
        raise unsupported(op, f"adaptive '{op.type}' to {outs} with its index output (return_mask=True) needs known "
                              f"spatial sizes (got {sizes}); give the input static spatial sizes in the InputSpec, "
                              "or do not use the mask")
    per_axis = [_static_bins(n, o) for n, o in zip(sizes, outs)]
    nd = len(sizes)
    axes = list(range(2, 2 + nd))
    values, indices = [], []
    for box in itertools.product(*per_axis):
        starts = [b[0] for b in box]
        lens = [b[1] - b[0] for b in box]
        region = ctx.node("Slice", [x, ctx.i64(starts), ctx.i64([b[1] for b in box]), ctx.i64(axes)])
        flat = ctx.reshape(region, [0, 0, -1])                                     # [N, C, prod(lens)]
        values.append(ctx.reduce("ReduceMax", flat, [2], True))
        local = ctx.node("ArgMax", [flat], axis=2, keepdims=1, select_last_index=0)   # first maximum
        # local flat index -> coordinates in the box -> flat index in the whole plane / volume
        glob, rem = None, local
        for d in range(nd):
            inner = int(np.prod(lens[d + 1:])) if d + 1 < nd else 1
            coord = ctx.node("Div", [rem, ctx.i64([inner])]) if inner > 1 else rem
            if inner > 1:
                rem = ctx.node("Mod", [rem, ctx.i64([inner])], fmod=0)
            pos = ctx.node("Add", [coord, ctx.i64([starts[d]])])
            glob = pos if glob is None else ctx.node("Add", [ctx.node("Mul", [glob, ctx.i64([sizes[d]])]), pos])
        indices.append(glob)

    def assemble(parts):
        cat = ctx.node("Concat", parts, axis=2) if len(parts) > 1 else parts[0]
        return ctx.reshape(cat, [0, 0] + outs)
    return assemble(values), assemble(indices)


def _with_index(base, nd):
    def lower(ctx, op):
        sizes = [int(n) for n in ctx.in_shape(op, "X")[2:2 + nd]]
        mask_used = ctx.output_used(op, "Mask")
        if mask_used:
            ks = [int(k) for k in op.attrs.get("ksize", [])]
            if (not op.attrs.get("adaptive", False) or op.attrs.get("global_pooling", False)
                    or all(k == 1 for k in ks)):
                return base(ctx, op)
            y, idx = _adaptive_with_index(ctx, op, ctx.input(op, "X"), sizes)
            ctx.node("Identity", [y], [ctx.output(op, "Out")])
            ctx.node("Identity", [ctx.cast(idx, ctx.out_dtype(op, "Mask"), np.int64)], [ctx.output(op, "Mask")])
            return None
        if not _needs_bins(op, sizes):
            return base(ctx, op)
        y = _binned_pool(ctx, ctx.input(op, "X"), sizes, [int(k) for k in op.attrs["ksize"]], True)
        ctx.node("Identity", [y], [ctx.output(op, "Out")])
        return None
    lower.__name__ = f"_max_pool{nd}d_with_index"
    return lower


lowers("max_pool2d_with_index")(_with_index(ops_nn._max_pool_with_index, 2))
lowers("max_pool3d_with_index")(_with_index(ops_vision_extra._max_pool3d_index, 3))


# -- pixel_unshuffle on run-time sizes ---------------------------------------------------------------------

_BASE_PIXEL_UNSHUFFLE = ops_vision_extra._pixel_unshuffle


@lowers("pixel_unshuffle")
def _pixel_unshuffle(ctx, op):
    """[N, C, H, W] -> [N, C*r*r, H/r, W/r], channel c*r*r + i*r + j; shapes from Shape when unknown."""
    shape = ctx.in_shape(op, "X")
    if min(int(n) for n in shape[1:]) >= 0:
        return _BASE_PIXEL_UNSHUFFLE(ctx, op)
    r = int(op.attrs["downscale_factor"])
    last = op.attrs.get("data_format", "NCHW") == "NHWC"
    x = ctx.input(op, "X")
    x = ops_vision_extra._to_first(ctx, x, 4) if last else x
    s = ctx.shape_of(x)
    n_c = ctx.node("Slice", [s, ctx.i64([0]), ctx.i64([2])])
    h = ctx.node("Div", [ctx.node("Slice", [s, ctx.i64([2]), ctx.i64([3])]), ctx.i64([r])])
    w = ctx.node("Div", [ctx.node("Slice", [s, ctx.i64([3]), ctx.i64([4])]), ctx.i64([r])])
    six = ctx.node("Concat", [n_c, h, ctx.i64([r]), w, ctx.i64([r])], axis=0)
    y = ctx.node("Reshape", [x, six])
    y = ctx.node("Transpose", [y], perm=[0, 1, 3, 5, 2, 4])
    four = ctx.node("Concat", [ctx.node("Slice", [s, ctx.i64([0]), ctx.i64([1])]), ctx.i64([-1]), h, w], axis=0)
    y = ctx.node("Reshape", [y, four])
    ctx.node("Identity", [ops_vision_extra._to_last(ctx, y, 4) if last else y], [ctx.output(op)])
    return None
