"""Second-order gradient rules of the layer ops: convolutions, pools, normalizations, dropout.

* convolutions (conv2d, depthwise_conv2d, conv2d_transpose, conv3d ...) are bilinear in (Input, Filter):
  Paddle's ``conv2d_grad_grad``: ``ddout = conv(ddx, w) + conv(x, ddw)``, ``dx`` from ``ddw``, ``dw`` from
  ``ddx`` (the bilinear rule of double_grad.py);
* pools: the grad op is linear in ``Out@GRAD``. Average pooling: ``ddout = pool(ddx)`` (Paddle's
  ``pool2d_double_grad``); max pooling: ``ddout`` picks ``ddx`` at each window's first maximum, the very
  element the grad op routes ``Out@GRAD`` to (Paddle's CPU build refuses max-pool double grads; this is the
  exact derivative), and nothing flows to X (piecewise linear);
* batch_norm (train and eval), layer_norm, instance_norm, group_norm share one computation over a "view"
  of the input whose normalised groups are some axes (`_norm_double_grad`);
* dropout: ``ddout = dropout_grad(Mask, ddx)`` (the grad op is a diagonal, self-adjoint map);
* prelu and swiglu (products of an activation with a second operand), rms_norm.
"""
from __future__ import annotations

from .double_grad import (_add, _as_float, _bilinear_rule, _compare, _mean_keep, _mul, _run, _scale, _sub,
                          _wanted)
from .errors import GradientError

__all__ = ["RULES"]


# -- convolutions ------------------------------------------------------------------------------------

def _conv(fwd, gdef):
    return _bilinear_rule(fwd.type, gdef, "Input", "Filter", "Output@GRAD")


# -- pools ---------------------------------------------------------------------------------------------

def _reshape(t, shape):
    return _run("reshape2", t, shape=[int(d) for d in shape])


def _gather_at_mask(ddx, mask):
    """``ddx`` (N, C, spatial...) picked at ``mask`` (N, C, out spatial..., flat input indices; -1: no element)."""
    mask_f = _as_float(mask, ddx)
    valid = _compare("greater_equal", mask_f, 0.0)
    idx = _run("cast", _mul(mask_f, valid), in_dtype=ddx.dtype.proto, out_dtype=3)      # 3: INT64
    picked = _run("take_along_axis", _reshape(ddx, [0, 0, -1]), _reshape(idx, [0, 0, -1]), Axis=2)
    return _mul(_reshape(picked, [0, 0] + [int(d) for d in mask.shape[2:]]), valid)


def _max_pool_ddout(x, ddx, attrs, nd):
    layout = attrs.get("data_format", "NCHW")
    algo = (attrs.get("padding_algorithm") or "EXPLICIT").upper()
    if algo == "SAME":
        raise GradientError(f"the second-order gradient of max pool{nd}d with padding='SAME' is not implemented; "
                            "pass explicit paddings (padding=[...]) to differentiate it twice")
    channel_last = layout in ("NHWC", "NDHWC")
    if channel_last:
        perm = [0, nd + 1] + list(range(1, nd + 1))
        x = _run("transpose2", x, axis=perm)
        ddx = _run("transpose2", ddx, axis=perm)
    paddings = [0] * nd if algo == "VALID" else list(attrs.get("paddings", [0] * nd))
    op = "max_pool2d_with_index" if nd == 2 else "max_pool3d_with_index"
    keys = ("ksize", "strides", "global_pooling", "adaptive", "ceil_mode")
    mask = _run(op, x, paddings=paddings, **{k: attrs[k] for k in keys if k in attrs})[1]
    out = _gather_at_mask(ddx, mask)
    if channel_last:
        out = _run("transpose2", out, axis=[0] + list(range(2, nd + 2)) + [1])
    return out


def _pool(nd):
    def factory(fwd, gdef):
        def rule(ctx, ddx):
            if ddx is None:
                return None
            x = ctx.inputs[0]
            attrs = dict(ctx.attrs)
            if attrs.get("pooling_type") == "avg":
                ddout = _run(fwd.type, ddx, **attrs)          # pooling is linear: its own adjoint's adjoint
            else:
                ddout = _max_pool_ddout(x, ddx, attrs, nd)
            return [None, None, ddout]
        rule.differentiable = ("Out@GRAD",)
        return rule
    return factory


def _pool_with_index(fwd, gdef):
    def rule(ctx, ddx):
        if ddx is None:
            return None
        return [None, None, _gather_at_mask(ddx, ctx.inputs[1])]
    rule.differentiable = ("Out@GRAD",)
    return rule


# -- normalizations --------------------------------------------------------------------------------------

def _proj(v, xh, axes):
    """P(v) = v - mean(v) - xh mean(v xh): the input gradient of normalize() for dL/dxh = v, over 1/std."""
    return _sub(_sub(v, _mean_keep(v, axes)), _mul(xh, _mean_keep(_mul(v, xh), axes)))


def _norm_double_grad(x, axes, eps, gamma, dy, ddx, ddg, ddb, running=None):
    """Second-order terms of ``y = gamma * normalize(x over axes) + beta`` (all tensors in one view, gamma,
    ddg and ddb broadcastable into it; ``running = (mean, var)`` for batch_norm's global statistics).

    The first-order gradients are dx = r P(g) (g = gamma dy; r = 1/std; batch statistics) or gamma r dy
    (fixed statistics), dgamma = sum dy xh, dbeta = sum dy. Returns the view-shaped (d x, d gamma before its
    reduction, d dy) of <ddx, dx> + <ddg, dgamma> + <ddb, dbeta>."""
    if running is None:
        xc = _sub(x, _mean_keep(x, axes))
        r = _run("rsqrt", _scale(_mean_keep(_mul(xc, xc), axes), 1.0, eps))
    else:
        xc = _sub(x, running[0])
        r = _run("rsqrt", _scale(running[1], 1.0, eps))
    xh = _mul(xc, r)
    g = dy if gamma is None else _mul(dy, gamma)
    d_x = d_gamma = d_dy = None
    if ddx is not None:
        if running is None:
            px = _proj(ddx, xh, axes)
            m_gx = _mean_keep(_mul(g, xh), axes)
            m_dx = _mean_keep(_mul(ddx, xh), axes)
            cov = _sub(_sub(_mean_keep(_mul(ddx, g), axes), _mul(_mean_keep(ddx, axes), _mean_keep(g, axes))),
                       _mul(m_dx, m_gx))
            r2 = _mul(r, r)
            d_x = _scale(_mul(r2, _add(_mul(xh, cov), _proj(_add(_mul(ddx, m_gx), _mul(g, m_dx)), xh, axes))), -1.0)
        else:
            px = ddx
        rp = _mul(r, px)
        d_dy = rp if gamma is None else _mul(gamma, rp)
        d_gamma = _mul(dy, rp)
    if ddg is not None:
        d_dy = _add(d_dy, _mul(ddg, xh))
        gdy = _mul(ddg, dy)
        d_x = _add(d_x, _mul(r, _proj(gdy, xh, axes) if running is None else gdy))
    if ddb is not None:
        d_dy = _add(d_dy, _add(_scale(dy, 0.0), ddb))      # widened to dy's shape
    return d_x, d_gamma, d_dy


def _shape_of(t):
    return [int(d) for d in t.shape]


def _finish(res, idx, t, like):
    if t is not None:
        res[idx] = _reshape(t, _shape_of(like)) if list(t.shape) != list(like.shape) else t


def _norm_rule(gdef, setup):
    """A rule for a norm grad op with inputs (X, Scale?, Bias?, ..., Y@GRAD, ...). ``setup(ctx, x)`` gives
    (view shape or None, stats axes, gamma view shape, gamma reduction axes, eps, running or None)."""
    names = [s.name for s in gdef.inputs]
    i_dy = names.index("Y@GRAD")

    def rule(ctx, ddx, ddscale=None, ddbias=None):
        x, scale = ctx.inputs[0], ctx.inputs[1]
        dy = ctx.inputs[i_dy]
        extra = [ctx.inputs[i] for i in range(i_dy + 1, len(names))]
        if any(e is not None for e in extra):
            raise GradientError(f"the second-order gradient of '{gdef.type[:-5]}' through the running statistics "
                                "(MeanOut / VarianceOut used in the loss) is not implemented")
        if dy is None:
            return None
        view, axes, gshape, gred, eps, running = setup(ctx, x)

        def v(t):
            return t if t is None or view is None else _reshape(t, view)
        gamma = None if scale is None else _reshape(scale, gshape)
        ddg = None if ddscale is None else _reshape(ddscale, gshape)
        ddb = None if ddbias is None else _reshape(ddbias, gshape)
        d_x, d_gamma, d_dy = _norm_double_grad(v(x), axes, eps, gamma, v(dy), v(ddx), ddg, ddb, running)
        res = [None] * len(names)
        _finish(res, 0, d_x, x)
        _finish(res, i_dy, d_dy, dy)
        if d_gamma is not None and scale is not None and _wanted(scale):
            res[1] = _reshape(_run("reduce_sum", d_gamma, dim=list(gred), keep_dim=False), _shape_of(scale))
        return res
    rule.differentiable = ("X", "Scale", "Y@GRAD")
    return rule


def _batch_norm(fwd, gdef):
    def setup(ctx, x):
        a = ctx.attrs
        nd = len(x.shape)
        c = 1 if a.get("data_layout", "NCHW") == "NCHW" else nd - 1
        axes = [i for i in range(nd) if i != c]
        gshape = [1] * nd
        gshape[c] = int(x.shape[c])
        eps = float(a.get("epsilon", 1e-5))
        global_stats = (a.get("is_test", False) and not a.get("trainable_statistics", False)) or \
            a.get("use_global_stats", False)
        running = None
        if global_stats:
            running = (_reshape(ctx.inputs[3], gshape), _reshape(ctx.inputs[4], gshape))
        return None, axes, gshape, axes, eps, running
    return _norm_rule(gdef, setup)


def _layer_norm(fwd, gdef):
    def setup(ctx, x):
        b = int(ctx.attrs.get("begin_norm_axis", 1))
        shape = _shape_of(x)
        right = 1
        for d in shape[b:]:
            right = -1 if d < 0 or right < 0 else right * d
        if right < 0:
            raise GradientError("the second-order gradient of layer_norm needs the normalised dimensions "
                                f"known; got shape {shape} with begin_norm_axis={b}")
        return [-1, right], [1], [1, right], [0], float(ctx.attrs.get("epsilon", 1e-5)), None
    return _norm_rule(gdef, setup)


def _instance_norm(fwd, gdef):
    def setup(ctx, x):
        nd = len(x.shape)
        gshape = [1, int(x.shape[1])] + [1] * (nd - 2)
        axes = list(range(2, nd))
        return None, axes, gshape, [0] + axes, float(ctx.attrs.get("epsilon", 1e-5)), None
    return _norm_rule(gdef, setup)


def _group_norm(fwd, gdef):
    def setup(ctx, x):
        a = ctx.attrs
        g = int(a.get("groups", -1))
        eps = float(a.get("epsilon", 1e-5))
        if a.get("data_layout", "NCHW") == "NHWC":
            c = int(x.shape[-1])
            return [0, -1, g, c // g], [1, 3], [1, 1, g, c // g], [0, 1], eps, None
        c = int(x.shape[1])
        return [0, g, c // g, -1], [2, 3], [1, g, c // g, 1], [0, 3], eps, None
    return _norm_rule(gdef, setup)


def _rms_norm(fwd, gdef):
    """rms_norm over rows of cols = prod(normalized_shape): xh = x r, r = 1/sqrt(mean(x^2) + eps), G = dy scale,
    dx = r (G - xh mean(G xh)), dscale = sum dy xh. Second order (Q(v) = v - xh mean(v xh)):
    d/d(dy) = scale r Q(ddx) + dds xh, d/dscale = sum dy r Q(ddx),
    d/dx = r^2 (3 xh mean(G xh) mean(ddx xh) - xh mean(ddx G) - G mean(ddx xh) - ddx mean(G xh)) + r Q(dds dy)."""
    def rule(ctx, ddx, dds):
        x, scale, dy, dinv = ctx.inputs
        if dinv is not None:
            raise GradientError("the second-order gradient of rms_norm through its invvar output is not implemented")
        if dy is None:
            return None
        cols = 1
        for d in ctx.attrs.get("normalized_shape", []):
            cols *= int(d)
        xv, dyv = _reshape(x, [-1, cols]), _reshape(dy, [-1, cols])
        r = _run("rsqrt", _scale(_mean_keep(_mul(xv, xv), [1]), 1.0, float(ctx.attrs.get("epsilon", 1e-5))))
        xh = _mul(xv, r)
        sc = None if scale is None else _reshape(scale, [1, cols])
        g = dyv if sc is None else _mul(dyv, sc)

        def q(v):
            return _sub(v, _mul(xh, _mean_keep(_mul(v, xh), [1])))
        d_x = d_dy = d_s = None
        if ddx is not None:
            ddv = _reshape(ddx, [-1, cols])
            qd = _mul(r, q(ddv))
            d_dy = qd if sc is None else _mul(sc, qd)
            d_s = _run("reduce_sum", _mul(dyv, qd), dim=[0], keep_dim=False)
            m_gx, m_dx = _mean_keep(_mul(g, xh), [1]), _mean_keep(_mul(ddv, xh), [1])
            t = _sub(_scale(_mul(xh, _mul(m_gx, m_dx)), 3.0), _mul(xh, _mean_keep(_mul(ddv, g), [1])))
            t = _sub(_sub(t, _mul(g, m_dx)), _mul(ddv, m_gx))
            d_x = _mul(_mul(r, r), t)
        if dds is not None:
            ds = _reshape(dds, [1, cols])
            d_dy = _add(d_dy, _mul(ds, xh))
            d_x = _add(d_x, _mul(r, q(_mul(ds, dyv))))
        res = [None] * 4
        _finish(res, 0, d_x, x)
        _finish(res, 2, d_dy, dy)
        if d_s is not None and scale is not None and _wanted(scale):
            res[1] = _reshape(d_s, _shape_of(scale))
        return res
    rule.differentiable = ("x", "scale", "y@GRAD")
    return rule


# -- dropout ------------------------------------------------------------------------------------------------

def _dropout(fwd, gdef):
    def rule(ctx, ddx):
        if ddx is None:
            return None
        return [None, _run(gdef.type, ctx.inputs[0], ddx, **dict(ctx.attrs))]
    rule.differentiable = ("Out@GRAD",)
    return rule


# -- prelu, swiglu --------------------------------------------------------------------------------------------

def _prelu(fwd, gdef):
    """prelu_grad: X@GRAD = dout (1 where x > 0, else alpha), Alpha@GRAD = R(dout x [x <= 0]) (R: sum to
    alpha's shape). With n = [x <= 0]: d/d(dout) = X@GRAD's map of ddX + ddAlpha x n, d/dAlpha = R(ddX dout n),
    d/dx = ddAlpha dout n. The grad op itself does the broadcasting and the reductions R."""
    def rule(ctx, ddx, dda):
        x, alpha, dout = ctx.inputs
        attrs = dict(ctx.attrs)
        neg = _compare("less_equal", x, 0.0)
        sign = _scale(neg, -2.0, 1.0)               # -1 where x <= 0, else 1: keeps the kernel's mask
        res = [None, None, None]
        ddout = None
        if ddx is not None:
            ddout = _run(gdef.type, x, alpha, ddx, **attrs)[0]
            if _wanted(alpha):
                res[1] = _run(gdef.type, sign, alpha, _scale(_mul(ddx, dout), -1.0), **attrs)[1]
        if dda is not None:
            dda_b = _scale(_run("prelu", _scale(x, 0.0, -1.0), dda, **attrs), -1.0)     # dda broadcast to x
            ddout = _add(ddout, _mul(_mul(dda_b, x), neg))
            if _wanted(x):
                res[0] = _mul(_mul(dda_b, dout), neg)
        res[2] = ddout
        return res
    rule.differentiable = ("X", "Alpha", "Out@GRAD")
    return rule


def _swiglu(fwd, gdef):
    """swiglu: out = silu(a) b with (a, b) = (x, y), or x's two halves when y is absent. With s = sigmoid(a),
    silu' = s (1 + a (1 - s)), silu'' = s (1 - s) (2 + a (1 - 2 s)): d/d(dout) = dda b silu' + ddb silu,
    d/da = dout (dda b silu'' + ddb silu'), d/db = dout dda silu'."""
    def rule(ctx, ddx, ddy):
        x, y, dout = ctx.inputs
        halves = y is None
        if halves:
            a, b = _run("split", x, num=2, axis=-1)
            dda, ddb = (None, None) if ddx is None else _run("split", ddx, num=2, axis=-1)
        else:
            a, b, dda, ddb = x, y, ddx, ddy
        s = _run("sigmoid", a)
        one_minus = _scale(s, -1.0, 1.0)
        d1 = _mul(s, _scale(_mul(a, one_minus), 1.0, 1.0))
        d2 = _mul(_mul(s, one_minus), _scale(_mul(a, _scale(s, -2.0, 1.0)), 1.0, 2.0))
        zero = _scale(a, 0.0)
        dda = zero if dda is None else dda
        ddb = zero if ddb is None else ddb
        ddout = _add(_mul(_mul(dda, b), d1), _mul(ddb, _mul(a, s)))
        d_a = _mul(dout, _add(_mul(_mul(dda, b), d2), _mul(ddb, d1)))
        d_b = _mul(_mul(dout, dda), d1)
        if halves:
            return [_run("concat", [d_a, d_b], axis=-1), None, ddout]
        return [d_a, d_b, ddout]
    rule.differentiable = ("x", "y", "out@GRAD")
    return rule


RULES = {
    "prelu": _prelu, "swiglu": _swiglu, "rms_norm": _rms_norm,
    "conv2d": _conv, "depthwise_conv2d": _conv, "conv2d_transpose": _conv, "depthwise_conv2d_transpose": _conv,
    "conv3d": _conv, "conv3d_transpose": _conv,
    "pool2d": _pool(2), "pool3d": _pool(3),
    "max_pool2d_with_index": _pool_with_index, "max_pool3d_with_index": _pool_with_index,
    "batch_norm": _batch_norm, "layer_norm": _layer_norm, "instance_norm": _instance_norm,
    "group_norm": _group_norm, "dropout": _dropout,
}
