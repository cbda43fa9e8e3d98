"""Second-order gradients: the gradient rules of ``*_grad`` ops (Paddle's ``*_double_grad``).

A first-order backward made of grad ops is differentiated again by ``paddle.grad(...,
create_graph=True)`` followed by ``backward()`` (eager), and by ``paddle.grad`` inside a to_static
function whose result feeds the loss (static: the traced Program holds grad ops, and the backward
of the call differentiates them). Each rule here is ordinary code over registered ops, so it works
in both modes, as every grad rule does (`runtime.ops.registry`).

Three families cover the common ops:

* **unary** ops ``X@GRAD = dout * f'(u)`` (``u`` is X or Out): the grad op is linear in ``dout``, so
  ``d/d(dout) = grad_op(u, ddx)``; ``d/du = ddx * dout * f''(u)`` from a table (None when ``f'`` is
  piecewise constant);
* **linear** ops (reshape, transpose, sums, slices, concat ...): their grad op is the adjoint of a
  linear map that does not depend on the input values, so ``d/d(dout)`` is the forward op applied to
  ``ddx`` and nothing flows to the forward inputs;
* **bilinear** ops (elementwise mul, matmul): ``d/dX = grad_op(X, ddY, dout)[0]``, ``d/dY =
  grad_op(ddX, Y, dout)[1]`` and ``d/d(dout) = op(ddX, Y) + op(X, ddY)``.

plus self-adjoint diagonal grad ops (label_smooth, rrelu ...: d/d(dout) is the grad op applied to ddx)
and elementwise div / pow. The layer, loss, activation and selection ops have their rules in
``double_grad_nn`` (conv, pool, norms, dropout, prelu), ``double_grad_losses``, ``double_grad_act`` and
``double_grad_select`` (max/min, where, scatter, top_k, p_norm ...).

Every other grad op gets a rule that raises a `GradientError` naming the op when a second-order
gradient actually has to flow through it (never a silently wrong or missing derivative);
`missing_double_grads()` (``python -m runtime.double_grad``) lists them.
"""
from __future__ import annotations

import threading

from .errors import GradientError

__all__ = ["ensure_double_grads", "missing_double_grads"]

_installed = []
_lock = threading.Lock()


def _run(*args, **kwargs):
    from .dispatch import run_op
    return run_op(*args, **kwargs)


def _mul(a, b):
    return _run("elementwise_mul", a, b)


def _needs(t):
    return t is not None and not getattr(t, "stop_gradient", True)


def _wanted(t):
    """Whether a gradient for ``t`` is worth computing: it needs one eagerly, or it is a static Variable
    (static backward drops the gradients nobody reads)."""
    return t is not None and (_needs(t) or not hasattr(t, "_data"))


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return _run("elementwise_add", a, b)


def _sub(a, b):
    return _run("elementwise_sub", a, b)


def _div(a, b):
    return _run("elementwise_div", a, b)


def _scale(t, scale=1.0, bias=0.0):
    return _run("scale", t, scale=float(scale), bias=float(bias))


def _const_like(t, value):
    """A tensor shaped like ``t`` holding ``value`` everywhere."""
    return _run("scale", t, scale=0.0, bias=float(value))


def _as_float(mask, like):
    """A boolean tensor as 1.0 / 0.0 in ``like``'s dtype."""
    return _run("cast", mask, in_dtype=mask.dtype.proto, out_dtype=like.dtype.proto)


def _compare(op, a, value):
    """``op`` (greater_than, less_equal ...) of ``a`` against a number, as 1.0 / 0.0 in a's dtype."""
    return _as_float(_run(op, a, _const_like(a, value)), a)


def _sum_keep(t, axes):
    return _run("reduce_sum", t, dim=list(axes), keep_dim=True)


def _mean_keep(t, axes):
    return _run("reduce_mean", t, dim=list(axes), keep_dim=True)


def _dout_slot(gdef):
    """The grad op's one output-gradient input (``Out@GRAD``, ``Y@GRAD``, ``out@GRAD`` ...), else None."""
    names = [s.name for s in gdef.inputs if s.name.endswith("@GRAD")]
    return names[0] if len(names) == 1 else None


# -- unary ops ---------------------------------------------------------------------------------------
# f''(u) * dout * ddx as a function (u, dout, ddx, attrs) -> tensor; None: f' is piecewise constant

def _neg(t):
    return _run("scale", t, scale=-1.0)


def _second_tanh(out, dout, ddx, a):          # f' = 1 - out^2
    return _run("scale", _mul(_mul(ddx, dout), out), scale=-2.0)


def _second_sigmoid(out, dout, ddx, a):       # f' = out (1 - out)
    return _mul(_mul(ddx, dout), _run("scale", out, scale=-2.0, bias=1.0))


def _second_exp(out, dout, ddx, a):           # f' = out (exp), out + 1 (expm1)
    return _mul(ddx, dout)


def _second_sqrt(out, dout, ddx, a):          # f' = 0.5 / out
    return _run("scale", _run("elementwise_div", _mul(ddx, dout), _mul(out, out)), scale=-0.5)


def _second_rsqrt(out, dout, ddx, a):         # f' = -0.5 out^3
    return _run("scale", _mul(_mul(ddx, dout), _mul(out, out)), scale=-1.5)


def _second_reciprocal(out, dout, ddx, a):    # f' = -out^2
    return _run("scale", _mul(_mul(ddx, dout), out), scale=-2.0)


def _second_log(x, dout, ddx, a):             # f' = 1 / x
    return _neg(_run("elementwise_div", _mul(ddx, dout), _mul(x, x)))


def _second_log1p(x, dout, ddx, a):           # f' = 1 / (1 + x)
    xp = _run("scale", x, scale=1.0, bias=1.0)
    return _neg(_run("elementwise_div", _mul(ddx, dout), _mul(xp, xp)))


def _second_square(x, dout, ddx, a):          # f' = 2 x
    return _run("scale", _mul(ddx, dout), scale=2.0)


def _second_sin(x, dout, ddx, a):             # f' = cos x
    return _neg(_mul(_mul(ddx, dout), _run("sin", x)))


def _second_cos(x, dout, ddx, a):             # f' = -sin x
    return _neg(_mul(_mul(ddx, dout), _run("cos", x)))


def _second_pow(x, dout, ddx, a):             # f' = p x^(p-1)
    p = float(a.get("factor", 1.0))
    if p in (0.0, 1.0):
        return None
    return _run("scale", _mul(_mul(ddx, dout), _run("pow", x, factor=p - 2.0)), scale=p * (p - 1.0))


def _second_softmax(out, dout, ddx, a):
    # X@GRAD = out * (dout - sum(dout * out)); its derivative in out, against ddx:
    # ddx*dout - ddx*sum(dout*out) - dout*sum(ddx*out)
    axis = a.get("axis", -1)
    s1 = _run("reduce_sum", _mul(dout, out), dim=[axis], keep_dim=True)
    s2 = _run("reduce_sum", _mul(ddx, out), dim=[axis], keep_dim=True)
    return _run("elementwise_sub", _run("elementwise_sub", _mul(ddx, dout), _mul(ddx, s1)), _mul(dout, s2))


def _second_log_softmax(out, dout, ddx, a):
    # X@GRAD = dout - exp(out) * sum(dout): derivative in out against ddx: -ddx * exp(out) * sum(dout)
    axis = a.get("axis", -1)
    s = _run("reduce_sum", dout, dim=[axis], keep_dim=True)
    return _neg(_mul(_mul(ddx, _run("exp", out)), s))


_PIECEWISE = None
# op -> f''-term (None: f' piecewise constant, nothing flows to u)
_UNARY = {
    "tanh": _second_tanh, "sigmoid": _second_sigmoid, "exp": _second_exp, "expm1": _second_exp,
    "sqrt": _second_sqrt, "rsqrt": _second_rsqrt, "reciprocal": _second_reciprocal, "log": _second_log,
    "log1p": _second_log1p, "square": _second_square, "sin": _second_sin, "cos": _second_cos, "pow": _second_pow,
    "softmax": _second_softmax, "log_softmax": _second_log_softmax,
    "relu": _PIECEWISE, "relu6": _PIECEWISE, "leaky_relu": _PIECEWISE, "abs": _PIECEWISE,
    "floor": _PIECEWISE, "ceil": _PIECEWISE, "round": _PIECEWISE, "sign": _PIECEWISE, "trunc": _PIECEWISE,
}


def _unary_rule(fwd_type, gdef, second):
    u_index = 0                                  # the grad op's inputs: (X or Out, [FactorTensor?], Out@GRAD)
    d_index = [s.name for s in gdef.inputs].index(_dout_slot(gdef))
    n_in = len(gdef.inputs)

    def rule(ctx, ddx):
        if d_index == 0:                         # floor, round, sign ...: the grad op reads dout only
            return [_run(gdef.type, ddx, **ctx.attrs)] + [None] * (n_in - 1)
        u, dout = ctx.inputs[u_index], ctx.inputs[d_index]
        extra = [ctx.inputs[i] for i in range(1, d_index)]
        if second is not None and any(e is not None for e in extra) and _needs(u):
            raise GradientError(f"second-order gradient of op '{fwd_type}' with a tensor factor is not supported; "
                                "pass the exponent as a Python number")
        res = [None] * n_in
        res[d_index] = _run(gdef.type, u, *extra, ddx, **ctx.attrs)
        if second is not None and (_needs(u) or not hasattr(u, "_data")):
            res[u_index] = second(u, dout, ddx, dict(ctx.attrs))
        return res
    rule.differentiable = (gdef.inputs[u_index].name, _dout_slot(gdef))
    return rule


# -- linear ops -------------------------------------------------------------------------------------
# op -> the forward input slot its grad op's X@GRAD belongs to
_LINEAR = {
    "reshape2": "X", "transpose2": "X", "squeeze2": "X", "unsqueeze2": "X", "flatten_contiguous_range": "X",
    "reduce_sum": "X", "reduce_mean": "X", "mean": "X", "expand_v2": "X", "expand_as_v2": "X", "tile": "X",
    "slice": "Input", "strided_slice": "Input", "concat": "X", "gather": "X", "gather_nd": "X",
    "index_select": "X", "roll": "X", "cumsum": "X", "tril_triu": "X", "pad": "X", "pad3d": "X",
    "diagonal": "Input", "diag_v2": "X", "index_sample": "X", "take_along_axis": "Input",
    # resampling: the grad op is the adjoint of the same interpolation of X
    "bilinear_interp_v2": "X", "nearest_interp_v2": "X", "linear_interp_v2": "X", "trilinear_interp_v2": "X",
    "bicubic_interp_v2": "X",
    # rearrangements, windows, crops and region averages of X
    "channel_shuffle": "X", "pixel_shuffle": "X", "pixel_unshuffle": "X", "reverse": "X", "temporal_shift": "X",
    "crop_tensor": "X", "frame": "X", "overlap_add": "X", "unfold": "X", "fold": "X", "masked_select": "X",
    "trace": "Input", "affine_grid": "Theta", "unpool": "X", "unpool3d": "X", "roi_align": "X", "psroi_pool": "X",
    "multiplex": "X", "reduce_as": "x",
}

# op -> its two operands' slots: grad ops of ops bilinear in them (`_bilinear_rule`)
_BILINEAR = {
    "elementwise_mul": ("X", "Y"), "matmul_v2": ("X", "Y"), "bmm": ("X", "Y"), "dot": ("X", "Y"),
    "mv": ("X", "Vec"), "mul": ("X", "Y"), "kron": ("X", "Y"), "cross": ("X", "Y"),
}

# grad ops that multiply the output gradient elementwise by a factor of the (non-differentiated) inputs:
# the map is diagonal, hence its own adjoint, so d/d(dout) is the grad op applied to ddx
_SELF_ADJOINT = ("label_smooth", "fill_diagonal", "fill_diagonal_tensor", "rrelu", "fill_any", "poisson")


def _linear_rule(fwd, gdef, slot):
    g_names = [s.name for s in gdef.inputs]
    d_index = g_names.index(_dout_slot(gdef))
    fwd_slot = next(s for s in fwd.inputs if s.name == slot)
    fwd_attr_names = set(fwd.attrs)

    def rule(ctx, ddx):
        if fwd_slot.duplicable:
            xs = ctx.inputs[g_names.index(slot)]
            if ddx is None or all(d is None for d in ddx):
                return None
            ddx = [d if d is not None else _run("scale", x, scale=0.0) for d, x in zip(ddx, xs)]
        elif ddx is None:
            return None
        args = []
        for s in fwd.inputs:
            if s.name == slot:
                args.append(ddx)
            elif s.name in g_names:
                args.append(ctx.inputs[g_names.index(s.name)])
            else:
                args.append(None)
        out = _run(fwd.type, *args, **{k: v for k, v in ctx.attrs.items() if k in fwd_attr_names})
        if isinstance(out, (list, tuple)):
            out = out[0]
        res = [None] * len(g_names)
        res[d_index] = out
        return res
    rule.differentiable = (_dout_slot(gdef),)
    return rule


def _self_adjoint_rule(gdef):
    g_names = [s.name for s in gdef.inputs]
    d_index = g_names.index(_dout_slot(gdef))

    def rule(ctx, ddx, *more):
        if ddx is None:
            return None
        args = list(ctx.inputs)
        args[d_index] = ddx
        out = _run(gdef.type, *args, **dict(ctx.attrs))
        res = [None] * len(g_names)
        res[d_index] = out[0] if isinstance(out, (list, tuple)) else out
        return res
    rule.differentiable = (g_names[d_index],)
    return rule


# -- bilinear ops -------------------------------------------------------------------------------------

def _zeros_like(t):
    return _run("scale", t, scale=0.0)


def _bilinear_rule(fwd_type, gdef, x_slot="X", y_slot="Y", d_slot="Out@GRAD"):
    """A grad op of an op bilinear in (x_slot, y_slot): elementwise_mul, matmul_v2, and the convolutions
    (``conv2d_grad(Input, Filter, Output@GRAD)``: Paddle's conv2d_grad_grad, ddout = conv(ddx, w) +
    conv(x, ddw), dx from ddw, dw from ddx)."""
    g_names = [s.name for s in gdef.inputs]
    ix, iy, id_ = g_names.index(x_slot), g_names.index(y_slot), g_names.index(d_slot)
    from .ops.registry import lookup
    fwd_names = [s.name for s in lookup(fwd_type).inputs]

    def fwd(a, b, attrs):
        args = [a if n == x_slot else b if n == y_slot else None for n in fwd_names]
        return _run(fwd_type, *args, **attrs)

    def rule(ctx, ddx, ddy):
        x, y, dout = ctx.inputs[ix], ctx.inputs[iy], ctx.inputs[id_]
        attrs = dict(ctx.attrs)
        res = [None] * len(g_names)
        parts = []
        if ddx is not None:
            parts.append(fwd(ddx, y, attrs))
            if _wanted(y):
                res[iy] = _run(gdef.type, ddx, y, dout, **attrs)[1]
        if ddy is not None:
            parts.append(fwd(x, ddy, attrs))
            if _wanted(x):
                res[ix] = _run(gdef.type, x, ddy, dout, **attrs)[0]
        if parts:
            g = parts[0] if len(parts) == 1 else _run("elementwise_add", parts[0], parts[1])
            if fwd_type.startswith("elementwise"):
                # an operand smaller than Out (broadcast) gives a smaller product: widen it to Out's shape
                g = _run("elementwise_add", _zeros_like(dout), g)
            res[id_] = g
        return res
    rule.differentiable = (x_slot, y_slot, d_slot)
    return rule


def _linear_binary_rule(fwd_type, gdef, sign_y):
    """elementwise_add_grad / elementwise_sub_grad: X@GRAD and Y@GRAD are dout (negated for sub's Y) summed to
    the operands' shapes, so the gradient goes to dout only: ddX + sign * ddY, widened to Out's shape."""
    g_names = [s.name for s in gdef.inputs]
    id_ = g_names.index("Out@GRAD")

    def rule(ctx, ddx, ddy):
        dout = ctx.inputs[id_]
        acc = _zeros_like(dout)
        axis = ctx.attrs.get("axis", -1)
        if ddx is not None:
            acc = _run("elementwise_add", acc, ddx, axis=axis)
        if ddy is not None:
            acc = _run("elementwise_add", acc, ddy if sign_y > 0 else _neg(ddy), axis=axis)
        res = [None] * len(g_names)
        res[id_] = acc
        return res
    rule.differentiable = ("Out@GRAD",)
    return rule


def _div_rule(gdef):
    """elementwise_div_grad(X, Y, Out, dout): X@GRAD = dout / Y, Y@GRAD = -dout * Out / Y (summed to shapes)."""
    g_names = [s.name for s in gdef.inputs]
    iy, io, id_ = g_names.index("Y"), g_names.index("Out"), g_names.index("Out@GRAD")

    def rule(ctx, ddx, ddy):
        x, y, out, dout = ctx.inputs[0], ctx.inputs[iy], ctx.inputs[io], ctx.inputs[id_]
        axis = ctx.attrs.get("axis", -1)
        res = [None] * len(g_names)
        g_dout = _zeros_like(dout)
        g_y_full = None
        if ddx is not None:
            g_dout = _run("elementwise_add", g_dout, _run("elementwise_div", ddx, y, axis=axis))
            g_y_full = _neg(_run("elementwise_div", _mul(ddx, dout), _mul(y, y), axis=axis))
        if ddy is not None:
            t = _run("elementwise_div", _mul(ddy, out), y)
            g_dout = _run("elementwise_sub", g_dout, t)
            res[io] = _neg(_run("elementwise_div", _mul(ddy, dout), y))
            term = _run("elementwise_div", _mul(_mul(ddy, dout), out), _mul(y, y))
            g_y_full = term if g_y_full is None else _run("elementwise_add", g_y_full, term)
        res[id_] = g_dout
        if g_y_full is not None:
            # sum the Out-shaped gradient down to Y's shape
            res[iy] = _run("elementwise_add_grad", x, y, g_y_full, axis=axis)[1]
        return res
    rule.differentiable = ("Y", "Out", "Out@GRAD")
    return rule


def _pow_rule(gdef):
    """elementwise_pow_grad(X, Y, dout): X@GRAD = dout y x^(y-1), Y@GRAD = dout x^y log(x) (log taken as 0
    where x <= 0, as the kernel does), summed to the operands' shapes. With a, b = ddX, ddY (Out-shaped)
    and L = log x: d/d(dout) = a y x^(y-1) + b x^y L; d/dx = dout (a y (y-1) x^(y-2) + b (y L + 1) x^(y-1) [x > 0]);
    d/dy = dout (a x^(y-1) (1 + y L) + b x^y L^2)."""
    g_names = [s.name for s in gdef.inputs]

    def rule(ctx, ddx, ddy):
        x, y, dout = ctx.inputs
        axis = ctx.attrs.get("axis", -1)
        zero = _zeros_like(dout)
        xb = _run("elementwise_add", zero, x, axis=axis)
        yb = _run("elementwise_add", zero, y, axis=axis)
        pos = _compare("greater_than", xb, 0.0)
        log_x = _mul(_run("log", _add(_mul(xb, pos), _scale(pos, -1.0, 1.0))), pos)     # log x, 0 where x <= 0
        x_y = _run("elementwise_pow", xb, yb)
        x_y1 = _run("elementwise_pow", xb, _scale(yb, 1.0, -1.0))
        g_d, g_x, g_y = zero, zero, zero
        if ddx is not None:
            a = _run("elementwise_add", zero, ddx, axis=axis)
            g_d = _add(g_d, _mul(_mul(a, yb), x_y1))
            x_y2 = _run("elementwise_pow", xb, _scale(yb, 1.0, -2.0))
            g_x = _add(g_x, _mul(_mul(a, _mul(yb, _scale(yb, 1.0, -1.0))), x_y2))
            g_y = _add(g_y, _mul(_mul(a, x_y1), _scale(_mul(yb, log_x), 1.0, 1.0)))
        if ddy is not None:
            b = _run("elementwise_add", zero, ddy, axis=axis)
            g_d = _add(g_d, _mul(_mul(b, x_y), log_x))
            g_x = _add(g_x, _mul(_mul(_mul(b, pos), x_y1), _scale(_mul(yb, log_x), 1.0, 1.0)))
            g_y = _add(g_y, _mul(_mul(b, x_y), _mul(log_x, log_x)))
        res = [None] * len(g_names)
        res[2] = g_d
        if _wanted(x) or _wanted(y):
            gx_full, gy_full = _mul(g_x, dout), _mul(g_y, dout)
            res[0] = _run("elementwise_add_grad", x, y, gx_full, axis=axis)[0]
            res[1] = _run("elementwise_add_grad", x, y, gy_full, axis=axis)[1]
        return res
    rule.differentiable = ("X", "Y", "Out@GRAD")
    return rule


# -- the rest: a clear error -----------------------------------------------------------------------------

def _missing_rule(fwd_type, grad_type):
    def rule(ctx, *douts):
        raise GradientError(
            f"the second-order gradient of op '{fwd_type}' is not implemented: its gradient op '{grad_type}' has "
            "no gradient rule, so a gradient computed with paddle.grad(..., create_graph=True) (or with paddle.grad "
            f"inside a to_static function) cannot be differentiated again through '{fwd_type}'. Express that part "
            "with ops that have second-order gradients (elementwise arithmetic, matmul, convolutions, pools, norms, "
            "the activations, the common losses, reshape/transpose/slice/concat/sum/mean/max ...; "
            "python -m runtime.double_grad lists the ops without one)")
    rule.missing = True     # a placeholder that only raises: callers asking "is there a rule?" check this
    return rule


def _set_rule(gdef, rule, differentiable=None):
    gdef.grad = rule
    names = differentiable if differentiable is not None else getattr(rule, "differentiable", None)
    if names is not None:
        gdef.differentiable = frozenset(names)
        gdef.diff_mask = tuple(s.name in gdef.differentiable for s in gdef.inputs)


def ensure_double_grads():
    """Give every ``*_grad`` op a gradient rule (once per process): the rules above, else the error."""
    if _installed:
        return
    with _lock:
        if _installed:
            return
        from .ops.registry import all_ops
        from . import double_grad_act, double_grad_losses, double_grad_nn, double_grad_select
        unary = dict(_UNARY, **double_grad_act.UNARY)
        family = {}
        for mod in (double_grad_nn, double_grad_losses, double_grad_select):
            family.update(mod.RULES)
        ops = all_ops()
        for grad_type, gdef in ops.items():
            if not grad_type.endswith("_grad") or gdef.grad is not None:
                continue
            fwd_type = grad_type[:-5]
            fwd = ops.get(fwd_type)
            if fwd is None:
                continue
            names = [s.name for s in gdef.inputs]
            if fwd_type in family:
                _set_rule(gdef, family[fwd_type](fwd, gdef))
            elif fwd_type in unary and _dout_slot(gdef) is not None:
                _set_rule(gdef, _unary_rule(fwd_type, gdef, unary[fwd_type]))
            elif fwd_type in _LINEAR and _dout_slot(gdef) is not None:
                _set_rule(gdef, _linear_rule(fwd, gdef, _LINEAR[fwd_type]))
            elif fwd_type in _BILINEAR:
                _set_rule(gdef, _bilinear_rule(fwd_type, gdef, *_BILINEAR[fwd_type]))
            elif fwd_type in _SELF_ADJOINT and _dout_slot(gdef) is not None:
                _set_rule(gdef, _self_adjoint_rule(gdef))
            elif fwd_type == "elementwise_sub":
                _set_rule(gdef, _linear_binary_rule(fwd_type, gdef, -1))
            elif fwd_type == "elementwise_div":
                _set_rule(gdef, _div_rule(gdef))
            elif fwd_type == "elementwise_pow":
                _set_rule(gdef, _pow_rule(gdef))
            elif gdef.interpret is None:
                # (control-flow grad ops run sub-blocks: their grads are the static rules' business)
                _set_rule(gdef, _missing_rule(fwd_type, grad_type),
                          differentiable=[s.name for s in gdef.inputs] if not gdef.differentiable else None)
        _installed.append(True)


def missing_double_grads():
    """The registered grad ops whose second-order rule is the error placeholder, sorted (a report of what
    ``paddle.grad(..., create_graph=True)`` cannot differentiate again; ``python -m runtime.double_grad``)."""
    ensure_double_grads()
    from .ops.registry import all_ops
    return sorted(t for t, d in all_ops().items() if getattr(d.grad, "missing", False))


if __name__ == "__main__":
    import runtime  # noqa: F401  (registers every op)
    names = missing_double_grads()
    print(f"{len(names)} grad ops without a second-order rule:")
    for n in names:
        print(" ", n)
