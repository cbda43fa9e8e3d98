"""ONNX lowerings of the math / linalg / order-statistics / manipulation ops added later (runtime/ops:
math_extra, linalg_extra, order_stats, cumulative, tensor_extra, manipulation_extra, nn_rest, unique,
loss, random_activation).

Each lowering is exact (the same formula as the kernel, in the same dtype) or a composite of ONNX
ops that is equal up to float rounding; where a case cannot be expressed (unknown sizes that a mask
needs, an input form ONNX lacks) the lowering raises `UnsupportedOpError` naming the op and the
user's line. Ops with no ONNX counterpart at all (digamma, lgamma, erfinv, Bessel functions,
nextafter, cummax/cummin, histogram, viterbi ...) have no lowering here, so the exporter's own
"op has no ONNX lowering" error names them.
"""
from __future__ import annotations

import numpy as np

from .lowering import lowers, unsupported


def _in(ctx, op, slot, dt=None):
    """Input ``slot`` cast to ``dt`` (default: the output dtype)."""
    dt = np.dtype(dt if dt is not None else ctx.out_dtype(op, _first_out(op)))
    return ctx.cast(ctx.input(op, slot), dt, ctx.in_dtype(op, slot))


def _first_out(op):
    return next(iter(op.outputs))


def _emit(ctx, op, value, slot=None):
    ctx.node("Identity", [value], [ctx.output(op, slot or _first_out(op))])


def _signbit(ctx, v, dt):
    """``v < 0``, and true for -0.0 too (1 / -0.0 is -inf); false for NaN."""
    zero = ctx.scalar(0, dt)
    neg = ctx.node("Less", [v, zero])
    if np.dtype(dt).kind != "f":
        return neg
    neg_zero = ctx.node("Less", [ctx.node("Div", [ctx.scalar(1, dt), v]), zero])
    return ctx.node("Or", [neg, ctx.node("And", [ctx.node("Equal", [v, zero]), neg_zero])])


# -- elementwise ----------------------------------------------------------------------------------------

@lowers("atan2")
def _atan2(ctx, op):
    """atan2(X1, X2) from Atan(X1 / X2) and the quadrant, with numpy's values on the axes and at ±0."""
    dt = np.dtype(ctx.out_dtype(op))
    y, x = _in(ctx, op, "X1", dt), _in(ctx, op, "X2", dt)
    zero, pi, half = ctx.scalar(0, dt), ctx.scalar(np.pi, dt), ctx.scalar(np.pi / 2, dt)
    base = ctx.node("Atan", [ctx.node("Div", [y, x])])
    y_neg = _signbit(ctx, y, dt)
    shift = ctx.node("Where", [y_neg, ctx.node("Neg", [pi]), pi])
    left = ctx.node("Add", [base, shift])                              # x < 0: base ± pi
    res = ctx.node("Where", [ctx.node("Less", [x, zero]), left, base])
    # x == ±0: ±pi/2 off the axis; on it (y == ±0) atan2 is ±0 for x = +0 and ±pi for x = -0
    on_y_axis = ctx.node("Where", [y_neg, ctx.node("Neg", [half]), half])
    at_origin = ctx.node("Where", [_signbit(ctx, x, dt), ctx.node("Where", [y_neg, ctx.node("Neg", [pi]), pi]), y])
    x_zero = ctx.node("Where", [ctx.node("Equal", [y, zero]), at_origin, on_y_axis])
    res = ctx.node("Where", [ctx.node("Equal", [x, zero]), x_zero, res])
    _emit(ctx, op, res)


@lowers("copysign")
def _copysign(ctx, op):
    """|x| with y's sign (-0.0 counts as negative, as np.copysign; a NaN y counts as positive: ONNX
    cannot read a NaN's sign bit)."""
    dt = np.dtype(ctx.out_dtype(op, "out"))
    x, y = _in(ctx, op, "x", dt), _in(ctx, op, "y", dt)
    if dt.kind == "b":
        _emit(ctx, op, ctx.node("Expand", [x, ctx.node("Shape", [ctx.node("Add", [
            ctx.cast(x, np.int32, dt), ctx.cast(y, np.int32, dt)])])]), "out")
        return
    mag = ctx.node("Abs", [x])
    _emit(ctx, op, ctx.node("Where", [_signbit(ctx, y, dt), ctx.node("Neg", [mag]), mag]), "out")


def _fminmax(onnx_type):
    def fn(ctx, op):
        dt = np.dtype(ctx.out_dtype(op))
        x, y = _in(ctx, op, "X", dt), _in(ctx, op, "Y", dt)
        res = ctx.node(onnx_type, [x, y])
        if dt.kind == "f":   # NaN-ignoring: the other operand where one is NaN
            res = ctx.node("Where", [ctx.node("IsNaN", [x]), y, ctx.node("Where", [ctx.node("IsNaN", [y]), x, res])])
        _emit(ctx, op, res)
    return fn


lowers("elementwise_fmax")(_fminmax("Max"))
lowers("elementwise_fmin")(_fminmax("Min"))


@lowers("elementwise_heaviside")
def _heaviside(ctx, op):
    dt = np.dtype(ctx.out_dtype(op))
    x, y = _in(ctx, op, "X", dt), _in(ctx, op, "Y", dt)
    zero = ctx.scalar(0, dt)
    step = ctx.node("Where", [ctx.node("Greater", [x, zero]), ctx.scalar(1, dt), zero])   # NaN x gives 0
    _emit(ctx, op, ctx.node("Where", [ctx.node("Equal", [x, zero]), y, step]))


def _shift(left):
    def fn(ctx, op):
        """BitShift works on unsigned ints: the operands go through the unsigned type of the same width (a
        two's-complement reinterpretation); an arithmetic right shift of x < 0 is ~(~x >> s); shifts outside
        [0, bits) give 0 (-1 for an arithmetic right shift of x < 0), as the kernel in runtime/ops/math_extra.py."""
        dt = np.dtype(ctx.out_dtype(op, "out"))
        if dt.kind not in "iu":
            raise unsupported(op, f"'{op.type}' on {dt.name}")
        ut = np.dtype(f"u{dt.itemsize}")
        x, y = ctx.input(op, "x"), ctx.input(op, "y")
        zero = ctx.scalar(0, dt)
        ok = ctx.node("And", [ctx.node("GreaterOrEqual", [y, zero]),
                              ctx.node("Less", [y, ctx.scalar(dt.itemsize * 8, dt)])])
        s = ctx.cast(ctx.node("Where", [ok, y, zero]), ut, dt)
        u = ctx.cast(x, ut, dt)      # numpy's / C++'s modular conversion: the same bits
        arithmetic = dt.kind == "i" and op.attrs.get("is_arithmetic", True) and not left
        if arithmetic:   # ~v is -1 - v, which never overflows; the selections stay signed (no Where on uints)
            neg = ctx.node("Less", [x, zero])
            minus_one = ctx.scalar(-1, dt)
            t = ctx.cast(ctx.node("Where", [neg, ctx.node("Sub", [minus_one, x]), x]), ut, dt)
            r = ctx.cast(ctx.node("BitShift", [t, s], direction="RIGHT"), dt, ut)
            res = ctx.node("Where", [neg, ctx.node("Sub", [minus_one, r]), r])
        else:
            res = ctx.cast(ctx.node("BitShift", [u, s], direction="LEFT" if left else "RIGHT"), dt, ut)
        fill = ctx.node("Where", [ctx.node("Less", [x, zero]), ctx.scalar(-1, dt), zero]) if arithmetic else zero
        _emit(ctx, op, ctx.node("Where", [ok, res, fill]), "out")
    return fn


lowers("bitwise_left_shift")(_shift(True))
lowers("bitwise_right_shift")(_shift(False))


@lowers("logit")
def _logit(ctx, op):
    dt = np.dtype(ctx.out_dtype(op))
    v = _in(ctx, op, "X", dt)
    eps = float(op.attrs.get("eps", 0.0) or 0.0)
    if eps:
        v = ctx.node("Clip", [v, ctx.scalar(eps, dt), ctx.scalar(1.0 - eps, dt)])
    _emit(ctx, op, ctx.node("Log", [ctx.node("Div", [v, ctx.node("Sub", [ctx.scalar(1, dt), v])])]))


@lowers("lerp")
def _lerp(ctx, op):
    dt = np.dtype(ctx.out_dtype(op))
    x, y, w = _in(ctx, op, "X", dt), _in(ctx, op, "Y", dt), _in(ctx, op, "Weight", dt)
    _emit(ctx, op, ctx.node("Add", [x, ctx.node("Mul", [w, ctx.node("Sub", [y, x])])]))


@lowers("rrelu")
def _rrelu(ctx, op):
    if not op.attrs.get("is_test", False):
        raise unsupported(op, "'rrelu' in training mode draws random slopes; export the model in eval mode")
    dt = np.dtype(ctx.out_dtype(op))
    slope = float(dt.type((np.float32(op.attrs["lower"]) + np.float32(op.attrs["upper"])) / np.float32(2)))
    _emit(ctx, op, ctx.node("LeakyRelu", [_in(ctx, op, "X", dt)], alpha=slope), "Out")
    if ctx.output_used(op, "Noise"):
        raise unsupported(op, "the 'Noise' output of 'rrelu'")


# -- linalg ---------------------------------------------------------------------------------------------

@lowers("addmm")
def _addmm(ctx, op):
    """Beta * Input + Alpha * (X @ Y): one Gemm (C broadcasts to [M, N] as Input does in Paddle)."""
    dt = np.dtype(ctx.out_dtype(op))
    ins = [_in(ctx, op, s, dt) for s in ("X", "Y", "Input")]
    _emit(ctx, op, ctx.node("Gemm", ins, alpha=float(op.attrs.get("Alpha", 1.0)),
                            beta=float(op.attrs.get("Beta", 1.0))))


@lowers("baddbmm")
def _baddbmm(ctx, op):
    dt = np.dtype(ctx.out_dtype(op))
    inp, x, y = (_in(ctx, op, s, dt) for s in ("Input", "X", "Y"))
    prod = ctx.node("Mul", [ctx.node("MatMul", [x, y]), ctx.scalar(op.attrs.get("Alpha", 1.0), dt)])
    _emit(ctx, op, ctx.node("Add", [ctx.node("Mul", [inp, ctx.scalar(op.attrs.get("Beta", 1.0), dt)]), prod]))


@lowers("mv")
def _mv(ctx, op):
    dt = np.dtype(ctx.out_dtype(op))
    _emit(ctx, op, ctx.node("MatMul", [_in(ctx, op, "X", dt), _in(ctx, op, "Vec", dt)]))


@lowers("determinant")
def _det(ctx, op):
    _emit(ctx, op, ctx.node("Det", [ctx.input(op, "Input")]))


@lowers("trace")
def _trace(ctx, op):
    """ReduceSum over (axis1, axis2) of the input times a constant diagonal mask."""
    shape = ctx.in_shape(op, "Input")
    nd = len(shape)
    a1, a2 = int(op.attrs.get("axis1", 0)) % nd, int(op.attrs.get("axis2", 1)) % nd
    d1, d2 = shape[a1], shape[a2]
    if d1 < 0 or d2 < 0:
        raise unsupported(op, f"'trace' over axes of unknown size (input shape {shape})")
    dt = np.dtype(ctx.out_dtype(op))
    mask_shape = [1] * nd
    mask_shape[a1], mask_shape[a2] = d1, d2
    eye = np.eye(d1, d2, k=int(op.attrs.get("offset", 0)), dtype=dt)
    if a1 > a2:
        eye = eye.T.copy()
    mask = ctx.const(eye.reshape(mask_shape))
    x = _in(ctx, op, "Input", dt)
    _emit(ctx, op, ctx.reduce("ReduceSum", ctx.node("Mul", [x, mask]), [a1, a2], False))


# -- order statistics / cumulative ---------------------------------------------------------------------------

@lowers("kthvalue")
def _kthvalue(ctx, op):
    """The k-th smallest along ``axis``: TopK(largest=0) then the last of the k. Among equal values ONNX
    picks the lowest index, Paddle whichever its partial sort leaves there: indices can differ on ties."""
    shape = ctx.in_shape(op, "X")
    if not shape:
        raise unsupported(op, "'kthvalue' of a 0-d tensor")
    axis = int(op.attrs.get("axis", -1)) % len(shape)
    k = int(op.attrs.get("k", 1))
    vals, idx = ctx.node("TopK", [ctx.input(op, "X"), ctx.i64([k])], 2, axis=axis, largest=0, sorted=1)
    keep = bool(op.attrs.get("keepdim", False))
    for v, slot in ((vals, "Out"), (idx, "Indices")):
        picked = ctx.node("Slice", [v, ctx.i64([k - 1]), ctx.i64([k]), ctx.i64([axis])])
        if not keep:
            picked = ctx.squeeze(picked, [axis])
        if slot == "Indices":
            picked = ctx.cast(picked, ctx.out_dtype(op, "Indices"), np.int64)
        ctx.node("Identity", [picked], [ctx.output(op, slot)])


@lowers("logcumsumexp")
def _logcumsumexp(ctx, op):
    """log(cumsum(exp(x - m))) + m with m the max along the axis (the shift keeps exp finite)."""
    dt = np.dtype(ctx.out_dtype(op))
    x = _in(ctx, op, "X", dt)
    axis = int(op.attrs.get("axis", -1))
    if op.attrs.get("flatten", False):
        x, axis = ctx.reshape(x, [-1]), 0
    m = ctx.reduce("ReduceMax", x, [axis], True)
    m = ctx.node("Where", [ctx.node("IsInf", [m]), ctx.scalar(0, dt), m])   # rows of infinities: no shift
    cs = ctx.node("CumSum", [ctx.node("Exp", [ctx.node("Sub", [x, m])]), ctx.i64([axis])],
                  exclusive=int(bool(op.attrs.get("exclusive", False))),
                  reverse=int(bool(op.attrs.get("reverse", False))))
    _emit(ctx, op, ctx.node("Add", [ctx.node("Log", [cs]), m]))


def _scan_setup(ctx, op, slot, axis):
    """(x moved so the scan axis is last, its length n, the permutation back) for the [n, n] prefix masks."""
    shape = ctx.in_shape(op, slot)
    axis %= len(shape)
    n = shape[axis]
    if n < 0:
        raise unsupported(op, f"'{op.type}' along an axis of unknown length (shape {shape})")
    perm = [i for i in range(len(shape)) if i != axis] + [axis]
    x = ctx.input(op, slot)
    moved = ctx.node("Transpose", [x], perm=perm) if axis != len(shape) - 1 else x
    back = [perm.index(i) for i in range(len(shape))]
    return moved, n, (back if axis != len(shape) - 1 else None)


def _move_back(ctx, y, back):
    return ctx.node("Transpose", [y], perm=back) if back else y


@lowers("cumprod")
def _cumprod(ctx, op):
    """Row i of an [n, n] mask keeps x_j for j <= i (j < i exclusive; j >= i / j > i reversed), the rest
    become 1, and ReduceProd multiplies each row."""
    shape = ctx.in_shape(op, "X")
    if not shape:
        ctx.node("Identity", [ctx.input(op, "X")], [ctx.output(op)])
        return
    x, n, back = _scan_setup(ctx, op, "X", int(op.attrs.get("dim", -1)))
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    rev, exc = bool(op.attrs.get("reverse", False)), bool(op.attrs.get("exclusive", False))
    keep = (j > i if exc else j >= i) if rev else (j < i if exc else j <= i)
    dt = ctx.in_dtype(op, "X")
    rows = ctx.node("Where", [ctx.const(keep), ctx.unsqueeze(x, [-2]), ctx.scalar(1, dt)])    # [..., n, n]
    _emit(ctx, op, _move_back(ctx, ctx.reduce("ReduceProd", rows, [-1], False), back))


def _cum_extreme(is_max):
    def fn(ctx, op):
        """The running extreme over the prefix mask; its index is the last j <= i holding it (ties go to the
        later index) and a NaN wins and stays (the last NaN's index), as the kernel in ops/cumulative.py."""
        shape = ctx.in_shape(op, "x")
        if not shape:
            raise unsupported(op, f"'{op.type}' of a 0-d tensor")
        x, n, back = _scan_setup(ctx, op, "x", int(op.attrs.get("axis", -1)))
        dt = np.dtype(ctx.in_dtype(op, "x"))
        worst = (-np.inf if is_max else np.inf) if dt.kind == "f" else (
            np.iinfo(dt).min if is_max else np.iinfo(dt).max)
        prefix = ctx.const(np.arange(n)[None, :] <= np.arange(n)[:, None])             # [n, n]: j <= i
        cols = ctx.const(np.arange(n, dtype=np.int64))
        row = ctx.unsqueeze(x, [-2])                                                   # [..., 1, n]
        is_nan = ctx.node("IsNaN", [row]) if dt.kind == "f" else None
        vals = row if is_nan is None else ctx.node("Where", [is_nan, ctx.scalar(worst, dt), row])
        best = ctx.reduce("ReduceMax" if is_max else "ReduceMin",
                          ctx.node("Where", [prefix, vals, ctx.scalar(worst, dt)]), [-1], False)
        hit = ctx.node("And", [prefix, ctx.node("Equal", [vals, ctx.unsqueeze(best, [-1])])])
        none = ctx.scalar(-1, np.int64)
        idx = ctx.reduce("ReduceMax", ctx.node("Where", [hit, cols, none]), [-1], False)
        if is_nan is not None:
            nan_hit = ctx.node("And", [prefix, is_nan])
            last_nan = ctx.reduce("ReduceMax", ctx.node("Where", [nan_hit, cols, none]), [-1], False)
            seen = ctx.node("GreaterOrEqual", [last_nan, ctx.scalar(0, np.int64)])
            best = ctx.node("Where", [seen, ctx.scalar(np.nan, dt), best])
            idx = ctx.node("Where", [seen, last_nan, idx])
        _emit(ctx, op, _move_back(ctx, best, back), "out")
        ctx.node("Identity", [_move_back(ctx, ctx.cast(idx, ctx.out_dtype(op, "indices"), np.int64), back)],
                 [ctx.output(op, "indices")])
    return fn


lowers("cummax")(_cum_extreme(True))
lowers("cummin")(_cum_extreme(False))


def _numpy_less(ctx, a, b, floating):
    """a < b in numpy's sort order, where NaN is the largest value."""
    lt = ctx.node("Less", [a, b])
    if not floating:
        return lt
    return ctx.node("Or", [lt, ctx.node("And", [ctx.node("IsNaN", [b]), ctx.node("Not", [ctx.node("IsNaN", [a])])])])


@lowers("searchsorted")
def _searchsorted(ctx, op):
    """How many sorted elements come before each value (left: s < v, right: not v < s), in numpy's order."""
    seq, vals = ctx.input(op, "SortedSequence"), ctx.input(op, "Values")
    dt = np.dtype(ctx.in_dtype(op, "SortedSequence"))
    if np.dtype(ctx.in_dtype(op, "Values")) != dt:
        vals = ctx.cast(vals, dt, ctx.in_dtype(op, "Values"))
    s = ctx.unsqueeze(seq, [-2])                       # [..., 1, m]
    v = ctx.unsqueeze(vals, [-1])                      # [..., k, 1]
    floating = dt.kind == "f"
    before = (ctx.node("Not", [_numpy_less(ctx, v, s, floating)]) if op.attrs.get("right", False)
              else _numpy_less(ctx, s, v, floating))
    count = ctx.reduce("ReduceSum", ctx.cast(before, np.int64, np.bool_), [-1], False)
    _emit(ctx, op, ctx.cast(count, ctx.out_dtype(op), np.int64))


@lowers("bincount")
def _bincount(ctx, op):
    """Counts (or float64 sums of weights) of each value in [0, max(max(x) + 1, minlength))."""
    x = ctx.cast(ctx.input(op, "X"), np.int64, ctx.in_dtype(op, "X"))
    top = ctx.node("Add", [ctx.reduce("ReduceMax", x, [0], False), ctx.scalar(1, np.int64)])
    n = ctx.node("Max", [top, ctx.scalar(int(op.attrs.get("minlength", 0)), np.int64)])
    hit = ctx.node("Equal", [ctx.unsqueeze(x, [1]), ctx.unsqueeze(ctx.node("Range", [
        ctx.scalar(0, np.int64), n, ctx.scalar(1, np.int64)]), [0])])                          # [len, n]
    od = ctx.out_dtype(op)
    if op.inputs.get("Weights"):
        w = ctx.unsqueeze(ctx.cast(ctx.input(op, "Weights"), np.float64, ctx.in_dtype(op, "Weights")), [1])
        total = ctx.reduce("ReduceSum", ctx.node("Where", [hit, w, ctx.scalar(0, np.float64)]), [0], False)
        _emit(ctx, op, ctx.cast(total, od, np.float64))
    else:
        _emit(ctx, op, ctx.cast(ctx.reduce("ReduceSum", ctx.cast(hit, np.int64, np.bool_), [0], False), od, np.int64))


@lowers("histogram")
def _histogram(ctx, op):
    """In float64 as the kernel: bin = int((x - lo) * bins / (hi - lo)), the top edge in the last bin, values
    outside [lo, hi] dropped; lo == hi takes the data's range (then widened by 1 if still equal)."""
    bins = int(op.attrs.get("bins", 100))
    x = ctx.reshape(ctx.cast(ctx.input(op, "X"), np.float64, ctx.in_dtype(op, "X")), [-1])
    lo, hi = float(op.attrs.get("min", 0.0)), float(op.attrs.get("max", 0.0))
    f64 = np.float64
    if lo == hi:
        dlo, dhi = ctx.reduce("ReduceMin", x, [0], False), ctx.reduce("ReduceMax", x, [0], False)
        same = ctx.node("Equal", [dlo, dhi])
        lo_v = ctx.node("Where", [same, ctx.node("Sub", [dlo, ctx.scalar(1, f64)]), dlo])
        hi_v = ctx.node("Where", [same, ctx.node("Add", [dhi, ctx.scalar(1, f64)]), dhi])
    else:
        lo_v, hi_v = ctx.scalar(lo, f64), ctx.scalar(hi, f64)
    keep = ctx.node("And", [ctx.node("GreaterOrEqual", [x, lo_v]), ctx.node("LessOrEqual", [x, hi_v])])
    pos = ctx.node("Div", [ctx.node("Mul", [ctx.node("Sub", [x, lo_v]), ctx.scalar(bins, f64)]),
                           ctx.node("Sub", [hi_v, lo_v])])
    pos = ctx.node("Min", [ctx.cast(ctx.node("Where", [keep, pos, ctx.scalar(0, f64)]), np.int64, f64),
                           ctx.scalar(bins - 1, np.int64)])
    hit = ctx.node("And", [ctx.node("Equal", [ctx.unsqueeze(pos, [1]), ctx.const(np.arange(bins)[None, :])]),
                           ctx.unsqueeze(keep, [1])])                                           # [len, bins]
    if op.inputs.get("Weight"):
        w = ctx.unsqueeze(ctx.reshape(ctx.cast(ctx.input(op, "Weight"), f64, ctx.in_dtype(op, "Weight")), [-1]), [1])
        counts = ctx.reduce("ReduceSum", ctx.node("Where", [hit, w, ctx.scalar(0, f64)]), [0], False)
    else:
        counts = ctx.reduce("ReduceSum", ctx.cast(hit, f64, np.bool_), [0], False)
    if op.attrs.get("density", False):
        total = ctx.reduce("ReduceSum", counts, [0], False)
        scale = ctx.node("Div", [ctx.node("Mul", [total, ctx.node("Sub", [hi_v, lo_v])]), ctx.scalar(bins, f64)])
        counts = ctx.node("Where", [ctx.node("Equal", [total, ctx.scalar(0, f64)]),
                                    ctx.node("Mul", [counts, ctx.scalar(0, f64)]), ctx.node("Div", [counts, scale])])
    _emit(ctx, op, ctx.cast(counts, ctx.out_dtype(op), f64))


@lowers("unique")
def _unique(ctx, op):
    if op.attrs.get("axis"):
        raise unsupported(op, "'unique' along an axis (ONNX Unique with an axis orders the slices differently)")
    if not op.attrs.get("is_sorted", True):
        raise unsupported(op, "'unique' with is_sorted=False (the legacy first-occurrence order)")
    y, first, inverse, counts = ctx.node("Unique", [ctx.reshape(ctx.input(op, "X"), [-1])], 4, sorted=1)
    ctx.node("Identity", [y], [ctx.output(op, "Out")])
    for slot, v in (("Indices", first), ("Index", inverse), ("Counts", counts)):
        if ctx.has_output(op, slot):
            ctx.node("Identity", [ctx.cast(v, ctx.out_dtype(op, slot), np.int64)], [ctx.output(op, slot)])


# -- manipulation -------------------------------------------------------------------------------------------

@lowers("index_add")
def _index_add(ctx, op):
    """ScatterElements(reduction="add") with Index broadcast along ``axis`` to AddValue's shape."""
    if ctx.opset < 16:
        raise unsupported(op, "'index_add' needs opset >= 16 (ScatterElements with reduction)")
    shape = ctx.in_shape(op, "X")
    axis = int(op.attrs.get("axis", 0)) % len(shape)
    view = [1] * len(shape)
    view[axis] = -1
    upd = ctx.input(op, "AddValue")
    idx = ctx.cast(ctx.input(op, "Index"), np.int64, ctx.in_dtype(op, "Index"))
    idx = ctx.node("Expand", [ctx.reshape(idx, view), ctx.node("Shape", [upd])])
    _emit(ctx, op, ctx.node("ScatterElements", [ctx.input(op, "X"), idx, upd], axis=axis, reduction="add"))


@lowers("shard_index")
def _shard_index(ctx, op):
    dt = np.dtype(ctx.in_dtype(op, "X"))
    size = (int(op.attrs["index_num"]) + int(op.attrs["nshards"]) - 1) // int(op.attrs["nshards"])
    x = ctx.input(op, "X")
    mine = ctx.node("Equal", [ctx.node("Div", [x, ctx.scalar(size, dt)]), ctx.scalar(op.attrs["shard_id"], dt)])
    _emit(ctx, op, ctx.node("Where", [mine, ctx.node("Mod", [x, ctx.scalar(size, dt)]),
                                      ctx.scalar(op.attrs.get("ignore_value", -1), dt)]))


@lowers("reduce_as")
def _reduce_as(ctx, op):
    xs, ts = ctx.in_shape(op, "x"), ctx.in_shape(op, "target")
    lead = len(xs) - len(ts)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(ts) if d == 1 and xs[lead + i] != 1]
    if any(xs[a] < 0 for a in axes[lead:]) or any(d < 0 for i, d in enumerate(ts) if xs[lead + i] < 0 and d == 1):
        raise unsupported(op, f"'reduce_as' with unknown sizes (x {xs}, target {ts})")
    x = ctx.input(op, "x")
    y = ctx.reduce("ReduceSum", x, axes, True) if axes else x
    if lead:
        y = ctx.squeeze(y, list(range(lead)))
    _emit(ctx, op, y, "out")


@lowers("crop_tensor")
def _crop(ctx, op):
    if any(op.inputs.get(s) for s in ("Shape", "ShapeTensor", "Offsets", "OffsetsTensor")):
        raise unsupported(op, "'crop_tensor' with a tensor shape or offsets")
    shape, offsets = [int(v) for v in op.attrs["shape"]], [int(v) for v in op.attrs.get("offsets") or []]
    offsets = offsets or [0] * len(shape)
    ends = [o + s if s != -1 else 2 ** 62 for o, s in zip(offsets, shape)]
    _emit(ctx, op, ctx.node("Slice", [ctx.input(op, "X"), ctx.i64(offsets), ctx.i64(ends),
                                      ctx.i64(list(range(len(shape))))]))


@lowers("tril_indices", "triu_indices")
def _tri_indices(ctx, op):
    """No inputs: the indices are a constant."""
    a = op.attrs
    dt = ctx.out_dtype(op, "out")
    if op.type == "tril_indices":
        r, c = np.tril_indices(int(a["rows"]), int(a["offset"]), int(a["cols"]))
    else:
        r, c = np.triu_indices(int(a["row"]), int(a["offset"]), int(a["col"]))
    _emit(ctx, op, ctx.const(np.stack([r, c]).astype(dt)), "out")


@lowers("reverse")
def _reverse(ctx, op):
    """The legacy reverse op is flip."""
    from .lowering import LOWERINGS
    LOWERINGS["flip"](ctx, op)


@lowers("diag_embed")
def _diag_embed(ctx, op):
    """out[..., a, b] = x[..., a - max(-offset, 0)] on the diagonal ``b - a = offset`` (a Gather of x's last
    axis and a Where with the constant diagonal mask), then the two new axes moved to dim1 / dim2."""
    shape = ctx.in_shape(op, "Input")
    n = shape[-1]
    if n < 0:
        raise unsupported(op, "'diag_embed' of an unknown last dimension")
    k = int(op.attrs.get("offset", 0))
    m = n + abs(k)
    rows = np.arange(m)[:, None] - max(-k, 0)
    mask = (np.arange(m)[None, :] - np.arange(m)[:, None]) == k
    idx = np.where(mask, np.clip(rows, 0, n - 1), 0).astype(np.int64) * np.ones((1, m), np.int64)
    x = ctx.input(op, "Input")
    picked = ctx.node("Gather", [x, ctx.const(idx)], axis=len(shape) - 1)          # [..., m, m]
    out = ctx.node("Where", [ctx.const(mask), picked, ctx.scalar(0, ctx.in_dtype(op, "Input"))])
    rank = len(shape) + 1
    d1, d2 = int(op.attrs.get("dim1", -2)) % rank, int(op.attrs.get("dim2", -1)) % rank
    if (d1, d2) != (rank - 2, rank - 1):
        rest = iter(range(rank - 2))
        perm = [rank - 2 if i == d1 else rank - 1 if i == d2 else next(rest) for i in range(rank)]
        out = ctx.node("Transpose", [out], perm=perm)
    _emit(ctx, op, out)


@lowers("multiplex")
def _multiplex(ctx, op):
    """Row i of the Ids[i]-th input: GatherND on the stacked inputs with (Ids[i], i)."""
    xs = ctx.inputs(op, "X")
    stacked = ctx.node("Concat", [ctx.unsqueeze(x, [0]) for x in xs], axis=0)
    ids = ctx.reshape(ctx.cast(ctx.input(op, "Ids"), np.int64, ctx.in_dtype(op, "Ids")), [-1, 1])
    rows = ctx.node("Range", [ctx.scalar(0, np.int64), ctx.to_scalar(ctx.shape_of(ids, 0, 1)),
                              ctx.scalar(1, np.int64)])
    _emit(ctx, op, ctx.node("GatherND", [stacked, ctx.node("Concat", [ids, ctx.unsqueeze(rows, [1])], axis=1)]))


@lowers("temporal_shift")
def _temporal_shift(ctx, op):
    """Channels [0, c1) take time t-1, [c1, c2) time t+1 (zeros at the ends), the rest stay."""
    nhwc = op.attrs.get("data_format", "NCHW") == "NHWC"
    shape = ctx.in_shape(op, "X")
    x = ctx.input(op, "X")
    if nhwc:
        x, shape = ctx.node("Transpose", [x], perm=[0, 3, 1, 2]), [shape[0], shape[3], shape[1], shape[2]]
    c = shape[1]
    if c < 0:
        raise unsupported(op, "'temporal_shift' on an unknown channel count")
    t = int(op.attrs["seg_num"])
    ratio = np.float32(op.attrs.get("shift_ratio", 0.25))
    c1, c2 = int(np.float32(c) * ratio), int(np.float32(c) * np.float32(2) * ratio)
    a = ctx.node("Reshape", [x, ctx.node("Concat", [ctx.i64([-1, t]), ctx.shape_of(x, 1, 4)], axis=0)])

    def part(lo, hi, t_lo, t_hi):
        return ctx.node("Slice", [a, ctx.i64([t_lo, lo]), ctx.i64([t_hi, hi]), ctx.i64([1, 2])])
    zeros = [0] * 5
    back = ctx.node("Pad", [part(0, c1, 0, t - 1), ctx.i64([0, 1] + zeros[:3] + [0] * 5)])
    fwd = ctx.node("Pad", [part(c1, c2, 1, t), ctx.i64([0] * 6 + [1, 0, 0, 0])])
    keep = part(c2, c, 0, t)
    out = ctx.node("Concat", [back, fwd, keep], axis=2)
    out = ctx.node("Reshape", [out, ctx.node("Shape", [x])])
    _emit(ctx, op, ctx.node("Transpose", [out], perm=[0, 2, 3, 1]) if nhwc else out)


# -- nn_rest ---------------------------------------------------------------------------------------------------

@lowers("swiglu")
def _swiglu(ctx, op):
    dt = np.dtype(ctx.out_dtype(op, "out"))
    x = ctx.input(op, "x")
    if op.inputs.get("y"):
        a, b = x, ctx.input(op, "y")
    else:
        last = ctx.in_shape(op, "x")[-1]
        if last < 0:
            raise unsupported(op, "'swiglu' without y on an unknown last dimension")
        a, b = ctx.split(x, [last // 2, last // 2], -1)
    _emit(ctx, op, ctx.cast(ctx.node("Mul", [ctx.node("Mul", [a, ctx.node("Sigmoid", [a])]), b]), dt), "out")


@lowers("rms_norm")
def _rms_norm(ctx, op):
    dt = np.dtype(ctx.out_dtype(op, "y"))
    ns = [int(v) for v in op.attrs["normalized_shape"]]
    rank = len(ctx.in_shape(op, "x"))
    axes = list(range(rank - len(ns), rank))
    x = ctx.input(op, "x")
    ms = ctx.reduce("ReduceMean", ctx.node("Mul", [x, x]), axes, True)
    inv = ctx.node("Reciprocal", [ctx.node("Sqrt", [ctx.node("Add", [ms, ctx.scalar(op.attrs["epsilon"], dt)])])])
    y = ctx.node("Mul", [x, inv])
    if op.inputs.get("scale"):
        y = ctx.node("Mul", [y, ctx.reshape(ctx.input(op, "scale"), ns)])
    _emit(ctx, op, y, "y")
    if ctx.has_output(op, "invvar"):
        _emit(ctx, op, ctx.reshape(inv, [-1]), "invvar")


# -- losses -------------------------------------------------------------------------------------------------

@lowers("nll_loss")
def _nll_loss(ctx, op):
    """NegativeLogLikelihoodLoss: the same weighting, ignore_index and mean (sum of the kept weights)."""
    if ctx.output_used(op, "Total_weight"):
        raise unsupported(op, "the 'Total_weight' output of 'nll_loss'")
    ins = [ctx.input(op, "X"), ctx.cast(ctx.input(op, "Label"), np.int64, ctx.in_dtype(op, "Label"))]
    if op.inputs.get("Weight"):
        ins.append(ctx.input(op, "Weight"))
    _emit(ctx, op, ctx.node("NegativeLogLikelihoodLoss", ins, reduction=op.attrs.get("reduction", "mean"),
                            ignore_index=int(op.attrs.get("ignore_index", -100))), "Out")


@lowers("cross_entropy2")
def _cross_entropy2(ctx, op):
    """-log(X[label]) along the last axis (0 where label == ignore_index); MatchX is X[label]."""
    dt = np.dtype(ctx.in_dtype(op, "X"))
    xs, ls = ctx.in_shape(op, "X"), ctx.in_shape(op, "Label")
    label = ctx.cast(ctx.input(op, "Label"), np.int64, ctx.in_dtype(op, "Label"))
    if len(ls) == len(xs) - 1:
        label = ctx.unsqueeze(label, [len(xs) - 1])
    valid = ctx.node("Not", [ctx.node("Equal", [label, ctx.scalar(op.attrs.get("ignore_index", -100), np.int64)])])
    safe = ctx.node("Where", [valid, label, ctx.scalar(0, np.int64)])
    zero = ctx.scalar(0, dt)
    match = ctx.node("Where", [valid, ctx.node("GatherElements", [ctx.input(op, "X"), safe], axis=len(xs) - 1), zero])
    y = ctx.node("Neg", [ctx.node("Log", [ctx.node("Where", [valid, match, ctx.scalar(1, dt)])])])
    _emit(ctx, op, ctx.node("Where", [valid, y, zero]), "Y")
    if ctx.has_output(op, "MatchX"):
        _emit(ctx, op, match, "MatchX")
    if ctx.output_used(op, "XShape"):
        raise unsupported(op, "the 'XShape' output of 'cross_entropy2'")
