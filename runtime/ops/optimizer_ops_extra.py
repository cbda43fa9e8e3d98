"""Update ops of the less common optimizers: adadelta, adamax, asgd, lamb, nadam, radam, rprop.

Each kernel follows the arithmetic of Paddle's CPU kernel in the parameter's dtype (a float32
parameter gets float32 arithmetic, in the same order, so results agree with Paddle to float32
rounding). None is differentiable. Slot and attribute names are Paddle's (the newer ops use
lower-case slots: ``param``, ``param_out`` ...); ``inplace`` records which output overwrites
which input so static programs update the state variables in place.
"""
from __future__ import annotations

import numpy as np

from .optimizer_ops import _finish, _meta, _scalar, _work
from .registry import register


def _f(x, dt):
    return x.astype(dt, copy=False)


# -- adadelta -------------------------------------------------------------------------------

def _adadelta(param, grad, avg_sq_grad, avg_sq_update, lr, master, rho=0.95, epsilon=1e-6,
              multi_precision=False, **_):
    p = _work(param, master)
    dt = p.dtype
    rho, eps, one = dt.type(rho), dt.type(epsilon), dt.type(1)
    g = _f(grad, dt)
    asg = rho * _f(avg_sq_grad, dt) + (one - rho) * (g * g)
    asu = _f(avg_sq_update, dt)
    update = -(np.sqrt(asu + eps) / np.sqrt(asg + eps) * g)
    new = p + _scalar(lr, dt) * update
    asu_out = rho * asu + (one - rho) * (update * update)
    pout, mout = _finish(param, new, master)
    return pout, _f(asg, avg_sq_grad.dtype), _f(asu_out, avg_sq_update.dtype), mout


def _adadelta_meta(param, grad, asg, asu, lr, master, **_):
    return _meta(param), _meta(asg), _meta(asu), _meta(master)


register("adadelta", ["Param", "Grad", "AvgSquaredGrad", "AvgSquaredUpdate", "LearningRate", "MasterParam?"],
         ["ParamOut", "AvgSquaredGradOut", "AvgSquaredUpdateOut", "MasterParamOut?"],
         {"rho": ("FLOAT", 0.95), "epsilon": ("FLOAT", 1e-6), "multi_precision": ("BOOLEAN", False)},
         kernel=_adadelta, infer_meta=_adadelta_meta, differentiable=(),
         inplace={"ParamOut": "Param", "AvgSquaredGradOut": "AvgSquaredGrad",
                  "AvgSquaredUpdateOut": "AvgSquaredUpdate", "MasterParamOut": "MasterParam"})


# -- adamax ---------------------------------------------------------------------------------
# Beta1Pow is read, not written: the optimizer scales it by beta1 with a separate ``scale`` op.

def _adamax(param, grad, lr, moment, inf_norm, beta1_pow, master, beta1=0.9, beta2=0.999, epsilon=1e-8,
            multi_precision=False, **_):
    p = _work(param, master)
    dt = p.dtype
    b1, b2, eps, one = dt.type(beta1), dt.type(beta2), dt.type(epsilon), dt.type(1)
    g = _f(grad, dt)
    m = b1 * _f(moment, dt) + (one - b1) * g
    u = np.maximum(np.abs(g), b2 * _f(inf_norm, dt) + eps)
    lr_t = _scalar(lr, dt) / (one - _scalar(beta1_pow, dt))
    new = p - lr_t * (m / u)
    pout, mout = _finish(param, new, master)
    return pout, _f(m, moment.dtype), _f(u, inf_norm.dtype), mout


def _adamax_meta(param, grad, lr, moment, inf_norm, beta1_pow, master, **_):
    return _meta(param), _meta(moment), _meta(inf_norm), _meta(master)


register("adamax", ["Param", "Grad", "LearningRate", "Moment", "InfNorm", "Beta1Pow", "MasterParam?"],
         ["ParamOut", "MomentOut", "InfNormOut", "MasterParamOut?"],
         {"beta1": ("FLOAT", 0.9), "beta2": ("FLOAT", 0.999), "epsilon": ("FLOAT", 1e-8),
          "multi_precision": ("BOOLEAN", False)},
         kernel=_adamax, infer_meta=_adamax_meta, differentiable=(),
         inplace={"ParamOut": "Param", "MomentOut": "Moment", "InfNormOut": "InfNorm",
                  "MasterParamOut": "MasterParam"})


# -- asgd -----------------------------------------------------------------------------------
# d accumulates the sum of the last n gradients (d - y + g, y being the gradient of n steps ago);
# the parameter moves by lr / n * d. ``n`` is min(step, batch_num), given as a [1] tensor.

def _asgd(param, grad, lr, d, y, n, master, multi_precision=False, **_):
    p = _work(param, master)
    dt = p.dtype
    g = _f(grad, dt)
    d_out = _f(d, dt) - _f(y, dt) + g
    new = p - (_scalar(lr, dt) / _scalar(n, dt)) * d_out
    pout, mout = _finish(param, new, master)
    return pout, _f(d_out, d.dtype), g.astype(y.dtype, copy=True), mout


def _asgd_meta(param, grad, lr, d, y, n, master, **_):
    return _meta(param), _meta(d), _meta(y), _meta(master)


register("asgd", ["param", "grad", "learning_rate", "d", "y", "n", "master_param?"],
         ["param_out", "d_out", "y_out", "master_param_out?"],
         {"multi_precision": ("BOOLEAN", False)},
         kernel=_asgd, infer_meta=_asgd_meta, differentiable=(),
         inplace={"param_out": "param", "d_out": "d", "y_out": "y", "master_param_out": "master_param"})


# -- lamb -----------------------------------------------------------------------------------

def _lamb(param, grad, lr, m1, m2, b1p, b2p, master, skip_update, weight_decay=0.01, beta1=0.9, beta2=0.999,
          epsilon=1e-6, always_adapt=False, multi_precision=False, **_):
    if skip_update is not None and bool(np.asarray(skip_update).reshape(-1)[0]):
        return (param.copy(), m1.copy(), m2.copy(), b1p.copy(), b2p.copy(),
                None if master is None else master.copy())
    p = _work(param, master)
    dt = p.dtype
    wd, b1, b2, eps, one = (dt.type(weight_decay), dt.type(beta1), dt.type(beta2), dt.type(epsilon),
                            dt.type(1))
    g = _f(grad, dt)
    m1o = b1 * _f(m1, dt) + (one - b1) * g
    m2o = b2 * _f(m2, dt) + (one - b2) * g * g
    m1_hat = m1o / (one - _scalar(b1p, dt))
    m2_hat = m2o / (one - _scalar(b2p, dt))
    trust_div = m1_hat / (np.sqrt(m2_hat) + eps) + wd * p
    ratio = one
    if weight_decay > 0 or always_adapt:
        pn = np.sqrt(np.sum(p * p, dtype=dt))
        tn = np.sqrt(np.sum(trust_div * trust_div, dtype=dt))
        if pn > 0 and tn > 0:
            ratio = pn / tn
    new = p - (_scalar(lr, dt) * ratio) * trust_div
    b1po = (b1p * b1p.dtype.type(beta1)).astype(b1p.dtype, copy=False)
    b2po = (b2p * b2p.dtype.type(beta2)).astype(b2p.dtype, copy=False)
    pout, mout = _finish(param, new.astype(dt, copy=False), master)
    return pout, _f(m1o, m1.dtype), _f(m2o, m2.dtype), b1po, b2po, mout


def _lamb_meta(param, grad, lr, m1, m2, b1p, b2p, master, skip_update, **_):
    return _meta(param), _meta(m1), _meta(m2), _meta(b1p), _meta(b2p), _meta(master)


register("lamb", ["Param", "Grad", "LearningRate", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow", "MasterParam?",
                  "SkipUpdate?"],
         ["ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut?", "Beta2PowOut?", "MasterParamOut?"],
         {"weight_decay": ("FLOAT", 0.01), "beta1": ("FLOAT", 0.9), "beta2": ("FLOAT", 0.999),
          "epsilon": ("FLOAT", 1e-6), "always_adapt": ("BOOLEAN", False), "multi_precision": ("BOOLEAN", False)},
         kernel=_lamb, infer_meta=_lamb_meta, differentiable=(),
         inplace={"ParamOut": "Param", "Moment1Out": "Moment1", "Moment2Out": "Moment2",
                  "Beta1PowOut": "Beta1Pow", "Beta2PowOut": "Beta2Pow", "MasterParamOut": "MasterParam"})


# -- nadam ----------------------------------------------------------------------------------
# momentum_decay_pow holds 0.96^t, mu_product the product of the mu_i (both element-wise, param-shaped).

def _nadam(param, grad, lr, mdp, b2p, mu_prod, m1, m2, master, beta1=0.9, beta2=0.999, epsilon=1e-8,
           momentum_decay=0.004, multi_precision=False, **_):
    p = _work(param, master)
    dt = p.dtype
    b1, b2, eps, md, one, half = (dt.type(beta1), dt.type(beta2), dt.type(epsilon), dt.type(momentum_decay),
                                  dt.type(1), dt.type(0.5))
    g = _f(grad, dt)
    mdp_out = _f(mdp, dt) * dt.type(0.96)
    b2p_out = _f(b2p, dt) * b2
    decay = mdp_out ** md
    mu_t = b1 * (one - half * decay)
    mu_t1 = b1 * (one - half * decay * dt.type(np.power(dt.type(0.96), md)))
    mu_prod_out = _f(mu_prod, dt) * mu_t
    mu_prod_t1 = mu_prod_out * mu_t1
    m1o = b1 * _f(m1, dt) + (one - b1) * g
    m2o = b2 * _f(m2, dt) + (one - b2) * g * g
    m1_hat = mu_t1 * m1o / (one - mu_prod_t1) + (one - mu_t) * g / (one - mu_prod_out)
    m2_hat = m2o / (one - b2p_out)
    new = p - _scalar(lr, dt) * m1_hat / (np.sqrt(m2_hat) + eps)
    pout, mout = _finish(param, new, master)
    return (pout, _f(mdp_out, mdp.dtype), _f(b2p_out, b2p.dtype), _f(mu_prod_out, mu_prod.dtype),
            _f(m1o, m1.dtype), _f(m2o, m2.dtype), mout)


def _nadam_meta(param, grad, lr, mdp, b2p, mu_prod, m1, m2, master, **_):
    return _meta(param), _meta(mdp), _meta(b2p), _meta(mu_prod), _meta(m1), _meta(m2), _meta(master)


register("nadam", ["param", "grad", "learning_rate", "momentum_decay_pow", "beta2_pow", "mu_product", "moment1",
                   "moment2", "master_param?"],
         ["param_out", "momentum_decay_pow_out", "beta2_pow_out", "mu_product_out", "moment1_out", "moment2_out",
          "master_param_out?"],
         {"beta1": ("FLOAT", 0.9), "beta2": ("FLOAT", 0.999), "epsilon": ("FLOAT", 1e-8),
          "momentum_decay": ("FLOAT", 0.004), "multi_precision": ("BOOLEAN", False)},
         kernel=_nadam, infer_meta=_nadam_meta, differentiable=(),
         inplace={s + "_out": s for s in ("param", "momentum_decay_pow", "beta2_pow", "mu_product", "moment1",
                                          "moment2", "master_param")})


# -- radam ----------------------------------------------------------------------------------
# rho accumulates t * beta2^t / (1 - beta2^t) recursively; rho_t = rho_inf - 2 * rho (first element).

def _radam(param, grad, lr, b1p, b2p, rho, m1, m2, master, beta1=0.9, beta2=0.999, epsilon=1e-8,
           multi_precision=False, **_):
    p = _work(param, master)
    dt = p.dtype
    b1, b2, eps, one, two = dt.type(beta1), dt.type(beta2), dt.type(epsilon), dt.type(1), dt.type(2)
    g = _f(grad, dt)
    rho_inf = two / (one - b2) - one
    b1p_out = _f(b1p, dt) * b1
    b2p_out = _f(b2p, dt) * b2
    rho_out = (_f(rho, dt) * (b2 - b2p_out) + b2p_out) / (one - b2p_out)
    m1o = b1 * _f(m1, dt) + (one - b1) * g
    m2o = b2 * _f(m2, dt) + (one - b2) * g * g
    m1_hat = m1o / (one - b1p_out)
    rho_t = rho_inf - two * rho_out.reshape(-1)[0]
    lr_v = _scalar(lr, dt)
    if rho_t > dt.type(5):
        l_t = np.sqrt(one - b2p_out) / (np.sqrt(m2o) + eps)
        r_t = np.sqrt(((rho_t - dt.type(4)) * (rho_t - two) * rho_inf)
                      / ((rho_inf - dt.type(4)) * (rho_inf - two) * rho_t))
        new = p - lr_v * m1_hat * r_t * l_t
    else:
        new = p - lr_v * m1_hat
    pout, mout = _finish(param, new.astype(dt, copy=False), master)
    return (pout, _f(b1p_out, b1p.dtype), _f(b2p_out, b2p.dtype), _f(rho_out, rho.dtype),
            _f(m1o, m1.dtype), _f(m2o, m2.dtype), mout)


def _radam_meta(param, grad, lr, b1p, b2p, rho, m1, m2, master, **_):
    return _meta(param), _meta(b1p), _meta(b2p), _meta(rho), _meta(m1), _meta(m2), _meta(master)


register("radam", ["param", "grad", "learning_rate", "beta1_pow", "beta2_pow", "rho", "moment1", "moment2",
                   "master_param?"],
         ["param_out", "beta1_pow_out", "beta2_pow_out", "rho_out", "moment1_out", "moment2_out",
          "master_param_out?"],
         {"beta1": ("FLOAT", 0.9), "beta2": ("FLOAT", 0.999), "epsilon": ("FLOAT", 1e-8),
          "multi_precision": ("BOOLEAN", False)},
         kernel=_radam, infer_meta=_radam_meta, differentiable=(),
         inplace={s + "_out": s for s in ("param", "beta1_pow", "beta2_pow", "rho", "moment1", "moment2",
                                          "master_param")})


# -- rprop ----------------------------------------------------------------------------------
# learning_rate is the per-element step size; learning_rate_range = [min, max], etas = [eta-, eta+].

def _rprop(param, grad, prev, lr, master, lr_range, etas, multi_precision=False, **_):
    p = _work(param, master)
    dt = p.dtype
    rng = np.asarray(lr_range).reshape(-1).astype(dt)
    et = np.asarray(etas).reshape(-1).astype(dt)
    g = _f(grad, dt).copy()
    prod = g * _f(prev, dt)
    eta = np.ones_like(g)
    eta[prod > 0] = et[1]
    neg = prod < 0
    eta[neg] = et[0]
    g[neg] = 0
    step = _f(lr, dt) * eta
    step = np.where(step > rng[1], rng[1], np.where(step < rng[0], rng[0], step)).astype(dt, copy=False)
    new = p - np.sign(g) * step
    pout, mout = _finish(param, new, master)
    return pout, _f(g, prev.dtype), _f(step, lr.dtype), mout


def _rprop_meta(param, grad, prev, lr, master, lr_range, etas, **_):
    return _meta(param), _meta(prev), _meta(lr), _meta(master)


register("rprop", ["param", "grad", "prev", "learning_rate", "master_param?", "learning_rate_range", "etas"],
         ["param_out", "prev_out", "learning_rate_out", "master_param_out?"],
         {"multi_precision": ("BOOLEAN", False)},
         kernel=_rprop, infer_meta=_rprop_meta, differentiable=(),
         inplace={"param_out": "param", "prev_out": "prev", "learning_rate_out": "learning_rate",
                  "master_param_out": "master_param"})
