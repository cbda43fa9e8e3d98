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

Every other grad op gets a rule that raises a `GradientError` naming the op when a second-order
gradient actually has to flow through it (never a silently wrong or missing derivative).
"""
from __future__ import annotations

import threading

from .errors import GradientError

__all__ = ["ensure_double_grads"]

_installed = []
_lock = threading.Lock()


def _run(*args, **kwargs):
    from .dispatch import run_op
    return run_op(*args, **kwargs)


def _mul(a, b):
    return _run("elementwise_mul", a, b)


def _needs(t):
    return t is not None and not getattr(t, "stop_gradient", True)


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
    d_index = [s.name for s in gdef.inputs].index("Out@GRAD")
    n_in = len(gdef.inputs)

    def rule(ctx, ddx):
        u, dout = ctx.inputs[u_index], ctx.inputs[d_index]
        extra = [ctx.inputs[i] for i in range(1, d_index)]
        if any(e is not None for e in extra) and _needs(u):
            raise GradientError(f"second-order gradient of op '{fwd_type}' with a tensor factor is not supported; "
                                "pass the exponent as a Python number")
        res = [None] * n_in
        res[d_index] = _run(gdef.type, u, *extra, ddx, **ctx.attrs)
        if second is not None and (_needs(u) or not hasattr(u, "_data")):
            res[u_index] = second(u, dout, ddx, dict(ctx.attrs))
        return res
    rule.differentiable = (gdef.inputs[u_index].name, "Out@GRAD")
    return rule


# -- linear ops -------------------------------------------------------------------------------------
# op -> the forward input slot its grad op's X@GRAD belongs to
_LINEAR = {
    "reshape2": "X", "transpose2": "X", "squeeze2": "X", "unsqueeze2": "X", "flatten_contiguous_range": "X",
    "reduce_sum": "X", "reduce_mean": "X", "mean": "X", "expand_v2": "X", "expand_as_v2": "X", "tile": "X",
    "slice": "Input", "strided_slice": "Input", "concat": "X", "gather": "X", "gather_nd": "X",
    "index_select": "X", "roll": "X", "cumsum": "X", "tril_triu": "X", "pad": "X", "pad3d": "X",
    "diagonal": "Input", "diag_v2": "X", "index_sample": "X", "take_along_axis": "Input",
}


def _linear_rule(fwd, gdef, slot):
    g_names = [s.name for s in gdef.inputs]
    d_index = g_names.index("Out@GRAD")
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
    rule.differentiable = ("Out@GRAD",)
    return rule


# -- bilinear ops -------------------------------------------------------------------------------------

def _zeros_like(t):
    return _run("scale", t, scale=0.0)


def _bilinear_rule(fwd_type, gdef):
    g_names = [s.name for s in gdef.inputs]
    ix, iy, id_ = g_names.index("X"), g_names.index("Y"), g_names.index("Out@GRAD")

    def rule(ctx, ddx, ddy):
        x, y, dout = ctx.inputs[ix], ctx.inputs[iy], ctx.inputs[id_]
        attrs = dict(ctx.attrs)
        res = [None] * len(g_names)
        parts = []
        if ddx is not None:
            parts.append(_run(fwd_type, ddx, y, **attrs))
            if _needs(y) or not hasattr(y, "_data"):
                res[iy] = _run(gdef.type, ddx, y, dout, **attrs)[1]
        if ddy is not None:
            parts.append(_run(fwd_type, x, ddy, **attrs))
            if _needs(x) or not hasattr(x, "_data"):
                res[ix] = _run(gdef.type, x, ddy, dout, **attrs)[0]
        if parts:
            g = parts[0] if len(parts) == 1 else _run("elementwise_add", parts[0], parts[1])
            if fwd_type.startswith("elementwise"):
                # an operand smaller than Out (broadcast) gives a smaller product: widen it to Out's shape
                g = _run("elementwise_add", _zeros_like(dout), g)
            res[id_] = g
        return res
    rule.differentiable = ("X", "Y", "Out@GRAD")
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


# -- the rest: a clear error -----------------------------------------------------------------------------

def _missing_rule(fwd_type, grad_type):
    def rule(ctx, *douts):
        raise GradientError(
            f"the second-order gradient of op '{fwd_type}' is not implemented: its gradient op '{grad_type}' has "
            "no gradient rule, so a gradient computed with paddle.grad(..., create_graph=True) (or with paddle.grad "
            f"inside a to_static function) cannot be differentiated again through '{fwd_type}'. Express that part "
            "with ops that have second-order gradients (elementwise arithmetic, matmul, tanh, sigmoid, exp, log, "
            "sqrt, square, sin, cos, pow, softmax, relu, reshape/transpose/slice/concat/sum/mean ...)")
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
        ops = all_ops()
        for grad_type, gdef in ops.items():
            if not grad_type.endswith("_grad") or gdef.grad is not None:
                continue
            fwd_type = grad_type[:-5]
            fwd = ops.get(fwd_type)
            if fwd is None:
                continue
            names = [s.name for s in gdef.inputs]
            if fwd_type in _UNARY and "Out@GRAD" in names:
                _set_rule(gdef, _unary_rule(fwd_type, gdef, _UNARY[fwd_type]))
            elif fwd_type in _LINEAR and "Out@GRAD" in names:
                _set_rule(gdef, _linear_rule(fwd, gdef, _LINEAR[fwd_type]))
            elif fwd_type in ("elementwise_mul", "matmul_v2"):
                _set_rule(gdef, _bilinear_rule(fwd_type, gdef))
            elif fwd_type == "elementwise_sub":
                _set_rule(gdef, _linear_binary_rule(fwd_type, gdef, -1))
            elif fwd_type == "elementwise_div":
                _set_rule(gdef, _div_rule(gdef))
            elif gdef.interpret is None:
                # (control-flow grad ops run sub-blocks: their grads are the static rules' business)
                _set_rule(gdef, _missing_rule(fwd_type, grad_type),
                          differentiable=[s.name for s in gdef.inputs] if not gdef.differentiable else None)
        _installed.append(True)
