"""Second-order gradient rules of the loss ops: softmax_with_cross_entropy, cross_entropy2,
sigmoid_cross_entropy_with_logits, bce_loss, huber_loss (smooth_l1_loss), nll_loss, kldiv_loss.

Each grad op is linear in its output gradients, so ``d/d(Loss@GRAD)`` applies the same map to the incoming
``ddx`` (the grad op itself, or its adjoint); the derivatives in the other inputs follow the kernels'
formulas exactly (their ignore_index masks, normalisation and clamps included).
"""
from __future__ import annotations

from .double_grad import (_add, _as_float, _compare, _div, _mul, _run, _scale, _sub, _sum_keep, _wanted,
                          _zeros_like)

__all__ = ["RULES"]


def _valid(label, ignore_index, like):
    """1.0 where ``label != ignore_index`` (int or float labels), in ``like``'s dtype."""
    return _as_float(_run("not_equal", label, _run("scale", label, scale=0.0, bias=float(ignore_index))), like)


# -- softmax_with_cross_entropy ------------------------------------------------------------------------

def _swce(fwd, gdef):
    """Logits@GRAD = dloss (sm sum(label) - label) (soft) or dloss valid (sm - onehot) (hard), plus the
    softmax backward sm (dsm - sum(dsm sm)) of Softmax@GRAD; with use_softmax=False (Softmax holds the
    probabilities) -dloss label / sm, resp. -dloss / sm at the label, plus dsm."""
    def rule(ctx, ddz):
        if ddz is None:
            return None
        label, sm, dloss, dsm = ctx.inputs
        a = dict(ctx.attrs)
        axis = int(a.get("axis", -1)) % len(sm.shape)
        res = [None] * 4
        unit = None
        if dloss is not None:
            unit = _run(gdef.type, label, sm, _scale(dloss, 0.0, 1.0), None, **a)     # the map per unit dloss
            res[2] = _sum_keep(_mul(ddz, unit), [axis])
        if dsm is not None:
            res[3] = _run(gdef.type, label, sm, None, ddz, **a)
        if _wanted(sm):
            d_sm = None
            if dloss is not None:
                if not a.get("use_softmax", True):
                    # Softmax holds probabilities: unit = -label / sm (soft) or -1 / sm at the label (hard), and
                    # the derivative of either in sm is -unit / sm
                    d_sm = _scale(_div(_mul(_mul(ddz, dloss), unit), sm), -1.0)
                else:
                    if a.get("soft_label", False):
                        coef = _sum_keep(label, [axis])
                    else:
                        coef = _valid(label, a.get("ignore_index", -100), sm)
                    d_sm = _mul(ddz, _mul(dloss, coef))
            if dsm is not None:
                if a.get("use_softmax", True):
                    s1 = _sum_keep(_mul(dsm, sm), [axis])
                    s2 = _sum_keep(_mul(ddz, sm), [axis])
                    d_sm = _add(d_sm, _sub(_sub(_mul(ddz, dsm), _mul(ddz, s1)), _mul(dsm, s2)))
            res[1] = d_sm
        return res
    rule.differentiable = ("Softmax", "Loss@GRAD", "Softmax@GRAD")
    return rule


# -- cross_entropy2 (X holds probabilities) -------------------------------------------------------------

def _cross_entropy2(fwd, gdef):
    """X@GRAD at the label = -dy / p + dmatch (valid rows): with q = ddx at the label, d/d(dy) = -q / p,
    d/d(dmatch) = q, d/dX = (dy q / p^2) at the label."""
    def rule(ctx, ddx):
        if ddx is None:
            return None
        x, label, dy, dmatch = ctx.inputs
        a = dict(ctx.attrs)
        valid = _valid(label, a.get("ignore_index", -100), x)
        p = _run("cross_entropy2", x, label, **a)[2]
        q = _run("cross_entropy2", ddx, label, **a)[2]
        p_safe = _add(p, _scale(valid, -1.0, 1.0))             # 1 on ignored rows (their q is 0)
        res = [None] * 4
        if dy is not None:
            res[2] = _scale(_mul(_div(q, p_safe), valid), -1.0)
            if _wanted(x):
                res[0] = _run(gdef.type, x, label, None, _div(_mul(dy, q), _mul(p_safe, p_safe)), **a)
        if dmatch is not None:
            res[3] = q
        return res
    rule.differentiable = ("X", "Y@GRAD", "MatchX@GRAD")
    return rule


# -- sigmoid_cross_entropy_with_logits -------------------------------------------------------------------

def _sigmoid_ce(fwd, gdef):
    """X@GRAD = dout (sigmoid(x) - y) (or (1 - y) + w (sigmoid(x) - 1) with w = 1 + (pos_weight - 1) y) on
    valid labels, over the valid count when ``normalize``: d/dx = ddx dout w sigmoid'(x) valid / count."""
    def rule(ctx, ddx):
        if ddx is None:
            return None
        x, label, pw, dout = ctx.inputs
        a = dict(ctx.attrs)
        res = [None] * 4
        res[3] = _run(gdef.type, x, label, pw, ddx, **a)
        if _wanted(x):
            valid = _valid(label, a.get("ignore_index", -100), x)
            coef = valid
            if pw is not None:
                y = _mul(label, valid)
                coef = _mul(coef, _add(_mul(_add(pw, _scale(pw, 0.0, -1.0)), y), _scale(y, 0.0, 1.0)))
            if a.get("normalize", False):
                count = _run("reduce_sum", valid, dim=[], reduce_all=True, keep_dim=False)
                count = _run("elementwise_max", count, _scale(count, 0.0, 1.0))
                coef = _div(coef, count)
            s = _run("sigmoid", x)
            res[0] = _mul(_mul(_mul(ddx, dout), coef), _mul(s, _scale(s, -1.0, 1.0)))
        return res
    rule.differentiable = ("X", "Out@GRAD")
    return rule


# -- bce_loss (X holds probabilities) ---------------------------------------------------------------------

_BCE_EPS = 1e-12      # the kernel's clamp of x (1 - x)


def _bce(fwd, gdef):
    """X@GRAD = dout (x - l) / max(x (1 - x), eps): d/dx = ddx dout (1 - (x - l)(1 - 2x) / D) / D with
    D = max(x (1 - x), eps) (the second term only where the clamp is inactive)."""
    def rule(ctx, ddx):
        if ddx is None:
            return None
        x, label, dout = ctx.inputs
        res = [None] * 3
        res[2] = _run(gdef.type, x, label, ddx)
        if _wanted(x):
            d = _mul(x, _scale(x, -1.0, 1.0))
            free = _compare("greater_than", d, _BCE_EPS)
            dc = _run("elementwise_max", d, _scale(d, 0.0, _BCE_EPS))
            slope = _mul(free, _div(_mul(_sub(x, label), _scale(x, -2.0, 1.0)), dc))
            res[0] = _div(_mul(_mul(ddx, dout), _scale(slope, -1.0, 1.0)), dc)
        return res
    rule.differentiable = ("X", "Out@GRAD")
    return rule


# -- huber_loss (smooth_l1_loss) ----------------------------------------------------------------------------

def _huber(fwd, gdef):
    """X@GRAD = -clip(r) dout, Y@GRAD = clip(r) dout with r = y - x, clip to [-delta, delta]: with
    q = ddY - ddX, d/d(dout) = q clip(r), d/dY = -d/dX = q dout (|r| < delta)."""
    def rule(ctx, ddx, ddy):
        x, y, dout = ctx.inputs
        delta = float(ctx.attrs.get("delta", 1.0))
        if ddx is None and ddy is None:
            return None
        q = _zeros_like(dout)
        if ddy is not None:
            q = _add(q, ddy)
        if ddx is not None:
            q = _sub(q, ddx)
        r = _sub(y, x)
        res = [None] * 3
        res[2] = _mul(q, _run("clip", r, min=-delta, max=delta))
        inside = _compare("less_than", _run("abs", r), delta)
        d_r = _mul(_mul(q, dout), inside)
        if _wanted(y):
            res[1] = d_r
        if _wanted(x):
            res[0] = _scale(d_r, -1.0)
        return res
    rule.differentiable = ("X", "Y", "Out@GRAD")
    return rule


# -- nll_loss, kldiv_loss: gradients that do not depend on X -------------------------------------------

def _sum_to(t, like, axes):
    """``t`` summed over ``axes`` (all when None) into the shape of ``like`` (the loss gradient)."""
    if axes is None:
        out = _run("reduce_sum", t, dim=[], reduce_all=True, keep_dim=False)
    elif not axes:
        out = t
    else:
        out = _run("reduce_sum", t, dim=list(axes), keep_dim=False)
    shape = [int(d) for d in like.shape]
    if list(out.shape) != shape and all(d >= 0 for d in shape):
        out = _run("reshape2", out, shape=shape)
    return out


def _x_free(reduce_axes):
    """A grad op ``X@GRAD = c(inputs) * dout`` (dout broadcast) whose factor does not depend on X: it is
    linear in dout alone, so d/d(dout) sums ``ddx * c`` back to dout's shape and nothing flows to X."""
    def factory(fwd, gdef):
        names = [s.name for s in gdef.inputs]
        i_d = len(names) - 1

        def rule(ctx, ddx):
            if ddx is None:
                return None
            args = list(ctx.inputs)
            dout = args[i_d]
            args[i_d] = _scale(dout, 0.0, 1.0)
            unit = _run(gdef.type, *args, **dict(ctx.attrs))
            res = [None] * len(names)
            res[i_d] = _sum_to(_mul(ddx, unit), dout, reduce_axes(ctx))
            return res
        rule.differentiable = (names[i_d],)
        return rule
    return factory


def _nll_axes(ctx):
    x = ctx.inputs[0]
    if ctx.attrs.get("reduction", "mean") != "none" or len(x.shape) == 1:
        return None
    return [1]


def _kldiv_axes(ctx):
    return [] if ctx.attrs.get("reduction", "mean") == "none" else None


RULES = {
    "nll_loss": _x_free(_nll_axes), "kldiv_loss": _x_free(_kldiv_axes),
    "softmax_with_cross_entropy": _swce, "cross_entropy2": _cross_entropy2,
    "sigmoid_cross_entropy_with_logits": _sigmoid_ce, "bce_loss": _bce, "huber_loss": _huber,
}
