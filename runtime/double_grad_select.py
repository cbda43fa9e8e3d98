"""Second-order gradient rules of the selecting and reducing ops: max/min reductions, maximum/minimum, where,
scatter, index_add, top_k / kthvalue / mode / cummax / argsort, embedding, lerp; p_norm, logsumexp and
frobenius_norm (true second derivatives).

The grad ops of max/min reductions, maximum/minimum, where and scatter route ``Out@GRAD`` to selected
elements: they are linear in it with a selection that is piecewise constant in the inputs, so the rule
gives ``ddout`` (the same selection applied to ``ddx``, the adjoint of the grad op) and nothing to the
forward inputs, as Paddle's ``*_double_grad`` do. ``p_norm`` has a true second derivative (below).
"""
from __future__ import annotations

from .double_grad import _add, _as_float, _compare, _div, _mul, _run, _scale, _sub, _sum_keep, _wanted, _zeros_like

__all__ = ["RULES"]


def _reduce_axes(ndim, dim, reduce_all):
    if reduce_all or not dim:
        return list(range(ndim))
    return sorted(d % ndim for d in dim) if ndim else []


def _keep(t, axes, keep_dim):
    """A reduction's result with the reduced axes restored as size 1 (for broadcasting against X)."""
    if keep_dim or not axes:
        return t
    return _run("unsqueeze2", t, axes=list(axes))


# -- max / min reductions -------------------------------------------------------------------------------

def _extreme(fwd, gdef):
    """X@GRAD = dout * (x == out) / count (ties share): ddout = sum(ddx * (x == out) / count)."""
    def rule(ctx, ddx):
        if ddx is None:
            return None
        x, out = ctx.inputs[0], ctx.inputs[1]
        a = ctx.attrs
        keep_dim = bool(a.get("keep_dim", False))
        axes = _reduce_axes(len(x.shape), a.get("dim", [0]), a.get("reduce_all", False))
        hit = _as_float(_run("equal", x, _keep(out, axes, keep_dim)), x)
        share = _div(hit, _sum_keep(hit, axes))
        ddout = _run("reduce_sum", _mul(ddx, share), dim=axes, keep_dim=keep_dim)
        return [None, None, ddout]
    rule.differentiable = ("Out@GRAD",)
    return rule


# -- maximum / minimum, where -------------------------------------------------------------------------------

def _maxmin(compare):
    """elementwise_max_grad: X@GRAD = dout * (x >= y), Y@GRAD = dout * (x < y) (ties go to X; min: <=)."""
    def factory(fwd, gdef):
        def rule(ctx, ddx, ddy):
            x, y, dout = ctx.inputs
            axis = ctx.attrs.get("axis", -1)
            to_x = _as_float(_run(compare, x, y, axis=axis), dout)
            ddout = _zeros_like(dout)
            if ddx is not None:
                ddout = _add(ddout, _mul(to_x, ddx))
            if ddy is not None:
                ddout = _add(ddout, _run("elementwise_mul", _scale(to_x, -1.0, 1.0), ddy, axis=axis))
            return [None, None, ddout]
        rule.differentiable = ("Out@GRAD",)
        return rule
    return factory


def _piecewise_binary(fwd, gdef):
    """fmax / fmin / copysign / heaviside: X@GRAD = dout mX, Y@GRAD = dout mY with masks or signs mX, mY that are
    piecewise constant in (x, y). On operands widened to Out's shape the grad op is diagonal, so its adjoint
    is ddout = grad_op(x, y, ddX)[0] + grad_op(x, y, ddY)[1]; nothing flows to x or y."""
    names = [s.name for s in gdef.inputs]

    def rule(ctx, ddx, ddy):
        x, y, dout = ctx.inputs
        zero = _zeros_like(dout)
        xb, yb = _add(zero, x), _add(zero, y)
        ddout = zero
        if ddx is not None:
            ddout = _add(ddout, _run(gdef.type, xb, yb, _add(zero, ddx))[0])
        if ddy is not None:
            ddout = _add(ddout, _run(gdef.type, xb, yb, _add(zero, ddy))[1])
        return [None, None, ddout]
    rule.differentiable = (names[2],)
    return rule


def _atan2(fwd, gdef):
    """atan2_grad: X1@GRAD = dout b / (a^2 + b^2), X2@GRAD = -dout a / (a^2 + b^2) (a = x1, b = x2). With A, B
    the incoming ddX1, ddX2 (widened): d/d(dout) = (A b - B a) / den, d/da = dout (B (a^2 - b^2) - 2 A a b) / den^2,
    d/db = dout (A (a^2 - b^2) + 2 B a b) / den^2."""
    def rule(ctx, dda, ddb):
        x1, x2, dout = ctx.inputs
        zero = _zeros_like(dout)
        a, b = _add(zero, x1), _add(zero, x2)
        big_a = zero if dda is None else _add(zero, dda)
        big_b = zero if ddb is None else _add(zero, ddb)
        den = _add(_mul(a, a), _mul(b, b))
        diff = _sub(_mul(a, a), _mul(b, b))
        ab2 = _scale(_mul(a, b), 2.0)
        den2 = _mul(den, den)
        ddout = _div(_sub(_mul(big_a, b), _mul(big_b, a)), den)
        g_a = _div(_mul(dout, _sub(_mul(big_b, diff), _mul(big_a, ab2))), den2)
        g_b = _div(_mul(dout, _add(_mul(big_a, diff), _mul(big_b, ab2))), den2)
        return [_run("elementwise_add_grad", x1, x2, g_a)[0], _run("elementwise_add_grad", x1, x2, g_b)[1], ddout]
    rule.differentiable = ("X1", "X2", "Out@GRAD")
    return rule


def _where(fwd, gdef):
    """where_grad: X@GRAD = where(c, dout, 0), Y@GRAD = where(c, 0, dout): ddout = where(c, ddX, ddY)."""
    def rule(ctx, ddx, ddy):
        cond, dout = ctx.inputs[0], ctx.inputs[3]
        zero = _zeros_like(dout)
        a = zero if ddx is None else _add(zero, ddx)
        b = zero if ddy is None else _add(zero, ddy)
        return [None, None, None, _run("where", cond, a, b)]
    rule.differentiable = ("Out@GRAD",)
    return rule


# -- scatter, embedding ----------------------------------------------------------------------------------

def _scatter(fwd, gdef):
    """scatter_grad (rows at Ids zeroed for X, dout[Ids] for the surviving Updates): its adjoint is the
    forward scatter of (ddX, ddUpdates) with the same ``overwrite``."""
    def rule(ctx, ddx, ddu):
        ids, updates, dout = ctx.inputs
        base = _zeros_like(dout) if ddx is None else ddx
        upd = _zeros_like(updates) if ddu is None else ddu
        return [None, None, _run("scatter", base, ids, upd, **dict(ctx.attrs))]
    rule.differentiable = ("Out@GRAD",)
    return rule


def _embedding(fwd, gdef):
    """lookup_table_v2_grad scatters dout rows into W's shape: its adjoint looks rows of ddW up again."""
    def rule(ctx, ddw):
        if ddw is None:
            return None
        return [None, None, _run("lookup_table_v2", ctx.inputs[0], ddw, **dict(ctx.attrs))]
    rule.differentiable = ("Out@GRAD",)
    return rule


# -- p_norm ---------------------------------------------------------------------------------------------

def _p_norm(fwd, gdef):
    """p_norm_grad: X@GRAD = dout * sign(x) |x|^(p-1) / max(out, eps)^(p-1) (0 where x = 0; p = 2: dout x /
    max(out, eps); p = 1: dout sign(x); p = +-inf: dout sign(x) at the extreme |x|; p = 0: 0).
    With A = sign(x)|x|^(p-1), O = max(out, eps) and S = sum(ddx A) over the axis:
    d/d(dout) = S / O^(p-1), d/dx = dout ddx (p-1) |x|^(p-2) / O^(p-1), d/d(out) = -(p-1) dout S / O^p
    (where out > eps; the forward p_norm op carries that on to x)."""
    def rule(ctx, ddx):
        if ddx is None:
            return None
        x, out, dout = ctx.inputs
        a = ctx.attrs
        p = float(a.get("porder", 2.0))
        eps = float(a.get("epsilon", 1e-12))
        keep_dim = bool(a.get("keepdim", False))
        nd = len(x.shape)
        axes = list(range(nd)) if a.get("asvector", False) or nd == 0 else [int(a.get("axis", -1)) % nd]
        res = [None, None, None]
        if p == 0:
            return res
        out_k, dout_k = _keep(out, axes, keep_dim), _keep(dout, axes, keep_dim)

        def reduce(t):
            return _run("reduce_sum", t, dim=axes, keep_dim=keep_dim)
        sign = _run("sign", x)
        if p in (float("inf"), float("-inf")):
            hit = _as_float(_run("equal", _run("abs", x), out_k), x)
            res[2] = reduce(_mul(ddx, _mul(sign, hit)))
            return res
        if p == 1:
            res[2] = reduce(_mul(ddx, sign))
            return res
        o = _run("elementwise_max", out_k, _scale(out_k, 0.0, eps))
        above = _compare("greater_than", out_k, eps)
        absx = _run("abs", x)
        nonzero = _scale(_compare("equal", x, 0.0), -1.0, 1.0)
        if p == 2:
            a_ = x
            curv = _div(_mul(dout_k, ddx), o)                             # (p-1) |x|^0 = 1
        else:
            # |x|^(p-1) and |x|^(p-2) at x = 0 are replaced by 0 (the kernel's g is 0 there)
            safe = _add(absx, _scale(nonzero, -1.0, 1.0))                   # 1 where x = 0
            a_ = _mul(_mul(sign, _run("pow", safe, factor=p - 1.0)), nonzero)
            curv = _mul(_div(_mul(dout_k, ddx), _run("pow", o, factor=p - 1.0)),
                        _scale(_mul(_run("pow", safe, factor=p - 2.0), nonzero), p - 1.0))
        o_p1 = o if p == 2 else _run("pow", o, factor=p - 1.0)
        da = _mul(ddx, a_)
        res[2] = reduce(_div(da, o_p1))
        if _wanted(x):
            res[0] = curv
        if _wanted(out):
            res[1] = reduce(_scale(_div(_mul(_mul(da, dout_k), above), _mul(o_p1, o)), -(p - 1.0)))
        return res
    rule.differentiable = ("X", "Out", "Out@GRAD")
    return rule


# -- gathers: top_k, kthvalue, mode, cummax / cummin, argsort --------------------------------------------

def _gather_rule(keepdim_attr=None):
    """The grad op puts dout at ``Indices`` along ``axis`` (a scatter, adding repeated indices): its adjoint
    takes ddx at the same indices."""
    def factory(fwd, gdef):
        names = [s.name for s in gdef.inputs]

        def rule(ctx, ddx):
            if ddx is None:
                return None
            x, idx = ctx.inputs[0], ctx.inputs[1]
            nd = len(x.shape)
            if nd == 0:
                picked = ddx
            else:
                axis = int(ctx.attrs.get("axis", -1)) % nd
                squeeze = keepdim_attr is not None and not ctx.attrs.get(keepdim_attr, False)
                if squeeze:
                    idx = _run("unsqueeze2", idx, axes=[axis])
                picked = _run("take_along_axis", ddx, idx, Axis=axis)
                if squeeze:
                    picked = _run("squeeze2", picked, axes=[axis])
            res = [None] * len(names)
            res[-1] = picked
            return res
        rule.differentiable = (names[-1],)
        return rule
    return factory


def _index_add(fwd, gdef):
    """index_add_grad: X@GRAD = dout, AddValue@GRAD = dout at Index: ddout = index_add(ddX, Index, ddValue)."""
    def rule(ctx, ddx, ddv):
        index, dout = ctx.inputs
        base = _zeros_like(dout) if ddx is None else ddx
        out = base if ddv is None else _run("index_add", base, index, ddv, **dict(ctx.attrs))
        return [None, out]
    rule.differentiable = ("Out@GRAD",)
    return rule


def _scatter_nd_add(fwd, gdef):
    def rule(ctx, ddx, ddu):
        index, updates, dout = ctx.inputs
        base = _zeros_like(dout) if ddx is None else ddx
        upd = _zeros_like(updates) if ddu is None else ddu
        return [None, None, _run("scatter_nd_add", base, index, upd)]
    rule.differentiable = ("Out@GRAD",)
    return rule


def _lerp(fwd, gdef):
    """lerp_grad: X@GRAD = dout (1 - w), Y@GRAD = dout w (Weight gets none, as in Paddle): ddout = lerp(ddX, ddY, w)."""
    def rule(ctx, ddx, ddy):
        w, dout = ctx.inputs[2], ctx.inputs[3]
        zero = _zeros_like(dout)
        a = zero if ddx is None else _add(zero, ddx)
        b = zero if ddy is None else _add(zero, ddy)
        return [None, None, None, _run("lerp", a, b, w)]
    rule.differentiable = ("Out@GRAD",)
    return rule


# -- smooth reductions: logsumexp, frobenius_norm ------------------------------------------------------------

def _logsumexp(fwd, gdef):
    """X@GRAD = dout exp(x - out): d/d(dout) = sum(ddx e), d/dx = ddx dout e, d/d(out) = -sum(ddx dout e)
    (e = exp(x - out); out's share flows on through the forward op)."""
    def rule(ctx, ddx):
        if ddx is None:
            return None
        x, out, dout = ctx.inputs
        a = ctx.attrs
        keep_dim = bool(a.get("keepdim", False))
        axes = _reduce_axes(len(x.shape), a.get("axis", []), a.get("reduce_all", False))
        e = _run("exp", _run("elementwise_sub", x, _keep(out, axes, keep_dim)))
        de = _mul(ddx, e)
        res = [None, None, _run("reduce_sum", de, dim=axes, keep_dim=keep_dim)]
        curv = _mul(de, _keep(dout, axes, keep_dim))
        if _wanted(x):
            res[0] = curv
        if _wanted(out):
            res[1] = _scale(_run("reduce_sum", curv, dim=axes, keep_dim=keep_dim), -1.0)
        return res
    rule.differentiable = ("X", "Out", "Out@GRAD")
    return rule


def _frobenius(fwd, gdef):
    """X@GRAD = dout x / out (0 where out = 0): d/d(dout) = sum(ddx x) / out, d/dx = dout ddx / out,
    d/d(out) = -dout sum(ddx x) / out^2."""
    def rule(ctx, ddx):
        if ddx is None:
            return None
        x, out, dout = ctx.inputs
        a = ctx.attrs
        keep_dim = bool(a.get("keep_dim", False))
        axes = _reduce_axes(len(x.shape), a.get("dim", [0]), a.get("reduce_all", False))
        out_k, dout_k = _keep(out, axes, keep_dim), _keep(dout, axes, keep_dim)
        zero = _compare("equal", out_k, 0.0)
        safe = _add(out_k, zero)
        nonzero = _scale(zero, -1.0, 1.0)
        dx = _div(_mul(ddx, x), safe)
        res = [None, None, _run("reduce_sum", _mul(dx, nonzero), dim=axes, keep_dim=keep_dim)]
        if _wanted(x):
            res[0] = _mul(_div(_mul(ddx, dout_k), safe), nonzero)
        if _wanted(out):
            res[1] = _scale(_run("reduce_sum", _div(_mul(_mul(dx, dout_k), nonzero), safe), dim=axes,
                                 keep_dim=keep_dim), -1.0)
        return res
    rule.differentiable = ("X", "Out", "Out@GRAD")
    return rule


def _set_value(fwd, gdef):
    """set_value_grad (Input@GRAD = dout with the region zeroed, ValueTensor@GRAD = dout's region summed to
    the value's shape): its adjoint writes (ddInput, ddValue) by the same slicing, i.e. set_value again, with
    zero values when the values were attributes."""
    def rule(ctx, ddx, ddv):
        value_t, starts, ends, steps, dout = ctx.inputs
        attrs = dict(ctx.attrs)
        base = _zeros_like(dout) if ddx is None else ddx
        if value_t is None:
            attrs["values"] = [v * 0 for v in attrs.get("values", [])]
            value = None
        else:
            value = _zeros_like(value_t) if ddv is None else ddv
        return [None, None, None, None, _run("set_value", base, value, starts, ends, steps, **attrs)]
    rule.differentiable = ("Out@GRAD",)
    return rule


def _addmm(fwd, gdef):
    """addmm / baddbmm: out = Beta Input + Alpha X @ Y. ddout = Beta ddInput + Alpha (ddX @ Y + X @ ddY);
    X gets the grad op's X@GRAD for (X, ddY), Y its Y@GRAD for (ddX, Y)."""
    def rule(ctx, ddi, ddx, ddy):
        inp, x, y, dout = ctx.inputs
        attrs = dict(ctx.attrs)
        alpha, beta = float(attrs.get("Alpha", 1.0)), float(attrs.get("Beta", 1.0))
        res = [None] * 4
        ddout = _zeros_like(dout)
        if ddi is not None:
            ddout = _add(ddout, _scale(ddi, beta))
        if ddx is not None:
            ddout = _add(ddout, _scale(_run("matmul_v2", ddx, y), alpha))
            if _wanted(y):
                res[2] = _run(gdef.type, inp, ddx, y, dout, **attrs)[2]
        if ddy is not None:
            ddout = _add(ddout, _scale(_run("matmul_v2", x, ddy), alpha))
            if _wanted(x):
                res[1] = _run(gdef.type, inp, x, ddy, dout, **attrs)[1]
        res[3] = ddout
        return res
    rule.differentiable = ("X", "Y", "Out@GRAD")
    return rule


def _multilinear(fwd, gdef):
    """einsum / multi_dot: linear in each operand of the list. With the list where operand k is replaced by
    its ddx_k: ddout = sum_k op(list_k), and operand j gets sum_{k != j} grad_op(list_k, dout)[j]."""
    def rule(ctx, dds):
        xs, dout = ctx.inputs
        attrs = dict(ctx.attrs)
        if dds is None or all(d is None for d in dds):
            return None
        ddout, grads = None, [None] * len(xs)
        for k, dd in enumerate(dds):
            if dd is None:
                continue
            ops_k = list(xs)
            ops_k[k] = dd
            ddout = _add(ddout, _run(fwd.type, ops_k, **attrs))
            if any(_wanted(x) for j, x in enumerate(xs) if j != k):
                g = _run(gdef.type, ops_k, dout, **attrs)
                for j in range(len(xs)):
                    if j != k and g[j] is not None:
                        grads[j] = _add(grads[j], g[j])
        return [grads, ddout]
    rule.differentiable = (gdef.inputs[0].name, gdef.inputs[1].name)
    return rule


def _trilinear(fwd, gdef):
    """bilinear_tensor_product: out = x W y (+ bias), linear in each of X, Y, Weight: as `_multilinear`, with the
    operands in three slots (the bias's gradient does not depend on anything)."""
    def rule(ctx, ddx, ddy, ddw, ddb=None):
        x, y, w, bias, dout = ctx.inputs
        ops = [x, y, w]
        ddout, grads = None, [None] * 5
        for k, dd in enumerate((ddx, ddy, ddw)):
            if dd is None:
                continue
            ops_k = list(ops)
            ops_k[k] = dd
            ddout = _add(ddout, _run(fwd.type, *ops_k, None))
            g = _run(gdef.type, *ops_k, None, dout)
            for j in range(3):
                if j != k and _wanted(ops[j]):
                    grads[j] = _add(grads[j], g[j])
        if ddout is not None:
            grads[4] = ddout
        return grads
    rule.differentiable = ("X", "Y", "Weight", "Out@GRAD")
    return rule


def _maxout(fwd, gdef):
    """maxout_grad puts dout at each group's first maximum: ddout sums ddx times that selection (the grad op
    applied to ones) over each group."""
    def rule(ctx, ddx):
        if ddx is None:
            return None
        x, dout = ctx.inputs
        groups = int(ctx.attrs.get("groups", 2))
        shape = [int(d) for d in x.shape]
        ax = int(ctx.attrs.get("axis", 1)) % len(shape)
        picked = _mul(ddx, _run(gdef.type, x, _scale(dout, 0.0, 1.0), **dict(ctx.attrs)))
        grouped = shape[:ax] + [shape[ax] // groups, groups] + shape[ax + 1:]
        grouped[0] = -1
        ddout = _run("reduce_sum", _run("reshape2", picked, shape=grouped), dim=[ax + 1], keep_dim=False)
        return [None, ddout]
    rule.differentiable = ("Out@GRAD",)
    return rule


RULES = {
    "bilinear_tensor_product": _trilinear, "maxout": _maxout,
    "elementwise_fmax": _piecewise_binary, "elementwise_fmin": _piecewise_binary, "copysign": _piecewise_binary,
    "elementwise_heaviside": _piecewise_binary, "atan2": _atan2,
    "set_value": _set_value, "addmm": _addmm, "baddbmm": _addmm, "einsum": _multilinear, "multi_dot": _multilinear,
    "top_k_v2": _gather_rule(), "argsort": _gather_rule(), "cummax": _gather_rule(), "cummin": _gather_rule(),
    "kthvalue": _gather_rule("keepdim"), "mode": _gather_rule("keepdim"),
    "index_add": _index_add, "scatter_nd_add": _scatter_nd_add, "lerp": _lerp,
    "logsumexp": _logsumexp, "frobenius_norm": _frobenius,
    "reduce_max": _extreme, "reduce_min": _extreme,
    "elementwise_max": _maxmin("greater_equal"), "elementwise_min": _maxmin("less_equal"),
    "where": _where, "scatter": _scatter, "lookup_table_v2": _embedding, "p_norm": _p_norm,
}
