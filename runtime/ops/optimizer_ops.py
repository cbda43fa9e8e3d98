"""Parameter-update ops (sgd, momentum, adam, adamw, rmsprop, adagrad) and gradient-clip helpers.

The update ops compute Paddle's documented formulas and are not differentiable. Every
kernel works in the dtype of the value it updates (``MasterParam`` when multi-precision
training passes one) and casts the ``LearningRate`` tensor and float attributes to that
dtype, so a float32 parameter gets float32 arithmetic like Paddle's kernels.
``clip_by_norm`` and ``squared_l2_norm`` are the ops Paddle's gradient clipping uses.
"""
from __future__ import annotations

import numpy as np

from .registry import Meta, register


def _scalar(arr, dtype):
    """The single value of a [1]-shaped tensor (LearningRate, Beta1Pow...) as a ``dtype`` scalar."""
    return np.dtype(dtype).type(np.asarray(arr).reshape(-1)[0])


def _work(param, master):
    """The array the update runs on: the fp32 master copy when one is given; else a float16 parameter
    is updated in float32 (Paddle's kernels compute in the "MP type" of float16, float32, and store
    the result rounded: in float16 arithmetic Adam's epsilon 1e-8 is 0 and small moments vanish)."""
    if master is not None:
        return master
    return param.astype(np.float32) if param.dtype == np.float16 else param


def _finish(param, new, master):
    """(ParamOut, MasterParamOut) from the updated working array."""
    if master is None:
        return new.astype(param.dtype, copy=False), None
    return new.astype(param.dtype), new


def _meta(m):
    return None if m is None else Meta(tuple(m.shape), m.dtype)


# -- sgd ------------------------------------------------------------------------------------

def _sgd(param, lr, grad, master, multi_precision=False, **_):
    p = _work(param, master)
    dt = p.dtype
    new = p - _scalar(lr, dt) * grad.astype(dt, copy=False)
    return _finish(param, new, master)


def _sgd_meta(param, lr, grad, master, **_):
    return _meta(param), _meta(master)


register("sgd", ["Param", "LearningRate", "Grad", "MasterParam?"], ["ParamOut", "MasterParamOut?"],
         {"multi_precision": ("BOOLEAN", False)},
         kernel=_sgd, infer_meta=_sgd_meta, differentiable=())


# -- momentum -------------------------------------------------------------------------------

def _momentum(param, grad, velocity, lr, master, mu=0.9, use_nesterov=False, regularization_method="",
              regularization_coeff=0.0, multi_precision=False, rescale_grad=1.0, **_):
    p = _work(param, master)
    dt = p.dtype
    g = grad.astype(dt, copy=False) * dt.type(rescale_grad)
    if regularization_method == "l2_decay":
        g = g + dt.type(regularization_coeff) * p
    mu = dt.type(mu)
    v = mu * velocity.astype(dt, copy=False) + g
    lr = _scalar(lr, dt)
    if use_nesterov:
        new = p - (g + mu * v) * lr
    else:
        new = p - lr * v
    pout, mout = _finish(param, new, master)
    return pout, v.astype(velocity.dtype, copy=False), mout


def _momentum_meta(param, grad, velocity, lr, master, **_):
    return _meta(param), _meta(velocity), _meta(master)


register("momentum", ["Param", "Grad", "Velocity", "LearningRate", "MasterParam?"],
         ["ParamOut", "VelocityOut", "MasterParamOut?"],
         {"mu": ("FLOAT", 0.9),   # required in Paddle; 0.9 is paddle.optimizer.Momentum's default
          "use_nesterov": ("BOOLEAN", False),
          "regularization_method": ("STRING", ""),
          "regularization_coeff": ("FLOAT", 0.0),
          "multi_precision": ("BOOLEAN", False),
          "rescale_grad": ("FLOAT", 1.0)},
         kernel=_momentum, infer_meta=_momentum_meta, differentiable=())


# -- adam / adamw ---------------------------------------------------------------------------

def _adam_core(param, grad, lr, m1, m2, m2max, b1p, b2p, master, skip_update, beta1_t, beta2_t, eps_t,
               beta1, beta2, epsilon, use_global_beta_pow, amsgrad, decay=None):
    """Shared by adam and adamw; ``decay`` = (lr_ratio, coeff) applies AdamW's decoupled decay."""
    if skip_update is not None and bool(np.asarray(skip_update).reshape(-1)[0]):
        return (param.copy(), m1.copy(), m2.copy(), None if not amsgrad or m2max is None else m2max.copy(),
                b1p.copy(), b2p.copy(), None if master is None else master.copy())
    p = _work(param, master)
    dt = p.dtype
    if beta1_t is not None:
        beta1 = float(np.asarray(beta1_t).reshape(-1)[0])
    if beta2_t is not None:
        beta2 = float(np.asarray(beta2_t).reshape(-1)[0])
    if eps_t is not None:
        epsilon = float(np.asarray(eps_t).reshape(-1)[0])
    b1, b2, eps = dt.type(beta1), dt.type(beta2), dt.type(epsilon)
    one = dt.type(1)
    g = grad.astype(dt, copy=False)
    lr = _scalar(lr, dt)
    if decay is not None:
        lr_ratio, coeff = decay
        lr = lr * dt.type(lr_ratio)
        p = p * (one - lr * dt.type(coeff))
    b1p_v, b2p_v = _scalar(b1p, dt), _scalar(b2p, dt)
    m1o = b1 * m1.astype(dt, copy=False) + (one - b1) * g
    m2o = b2 * m2.astype(dt, copy=False) + (one - b2) * g * g
    m2maxo = None
    denom_src = m2o
    if amsgrad:
        m2maxo = m2o if m2max is None else np.maximum(m2max.astype(dt, copy=False), m2o)
        denom_src = m2maxo
    lr_t = lr * np.sqrt(one - b2p_v) / (one - b1p_v)
    new = p - lr_t * (m1o / (np.sqrt(denom_src) + eps * np.sqrt(one - b2p_v)))
    if use_global_beta_pow:
        b1po, b2po = b1p.copy(), b2p.copy()
    else:
        b1po = (b1p * b1p.dtype.type(beta1)).astype(b1p.dtype, copy=False)
        b2po = (b2p * b2p.dtype.type(beta2)).astype(b2p.dtype, copy=False)
    pout, mout = _finish(param, new.astype(dt, copy=False), master)
    return (pout, m1o.astype(m1.dtype, copy=False), m2o.astype(m2.dtype, copy=False),
            None if m2maxo is None else m2maxo.astype(m2.dtype, copy=False), b1po, b2po, mout)


def _adam(param, grad, lr, m1, m2, m2max, b1p, b2p, master, skip_update, beta1_t, beta2_t, eps_t,
          beta1=0.9, beta2=0.999, epsilon=1e-8, lazy_mode=False, min_row_size_to_use_multithread=1000,
          multi_precision=False, use_global_beta_pow=False, amsgrad=False, **_):
    # lazy_mode only changes how sparse (SelectedRows) gradients are applied; grads here are dense
    return _adam_core(param, grad, lr, m1, m2, m2max, b1p, b2p, master, skip_update, beta1_t, beta2_t,
                      eps_t, beta1, beta2, epsilon, use_global_beta_pow, amsgrad)


def _adamw(param, grad, lr, m1, m2, m2max, b1p, b2p, master, skip_update, beta1_t, beta2_t, eps_t,
           beta1=0.9, beta2=0.999, epsilon=1e-8, lr_ratio=1.0, coeff=0.01, with_decay=False, lazy_mode=False,
           min_row_size_to_use_multithread=1000, multi_precision=False, use_global_beta_pow=False,
           amsgrad=False, **_):
    return _adam_core(param, grad, lr, m1, m2, m2max, b1p, b2p, master, skip_update, beta1_t, beta2_t,
                      eps_t, beta1, beta2, epsilon, use_global_beta_pow, amsgrad,
                      decay=(lr_ratio, coeff if with_decay else 0.0))


def _adam_meta(param, grad, lr, m1, m2, m2max, b1p, b2p, master, *_, amsgrad=False, **__):
    return (_meta(param), _meta(m1), _meta(m2), _meta(m2) if amsgrad else None,
            _meta(b1p), _meta(b2p), _meta(master))


_ADAM_IN = ["Param", "Grad", "LearningRate", "Moment1", "Moment2", "Moment2Max?", "Beta1Pow", "Beta2Pow",
            "MasterParam?", "SkipUpdate?", "Beta1Tensor?", "Beta2Tensor?", "EpsilonTensor?"]
_ADAM_OUT = ["ParamOut", "Moment1Out", "Moment2Out", "Moment2MaxOut?", "Beta1PowOut", "Beta2PowOut",
             "MasterParamOut?"]
_ADAM_COMMON = {"lazy_mode": ("BOOLEAN", False),
                "min_row_size_to_use_multithread": ("LONG", 1000),
                "multi_precision": ("BOOLEAN", False),
                "use_global_beta_pow": ("BOOLEAN", False),
                "amsgrad": ("BOOLEAN", False)}
_BETAS = {"beta1": ("FLOAT", 0.9), "beta2": ("FLOAT", 0.999), "epsilon": ("FLOAT", 1e-8)}

register("adam", _ADAM_IN, _ADAM_OUT, {**_BETAS, **_ADAM_COMMON},
         kernel=_adam, infer_meta=_adam_meta, differentiable=())
register("adamw", _ADAM_IN, _ADAM_OUT,
         {**_BETAS, "lr_ratio": ("FLOAT", 1.0), "coeff": ("FLOAT", 0.01), "with_decay": ("BOOLEAN", False),
          **_ADAM_COMMON},
         kernel=_adamw, infer_meta=_adam_meta, differentiable=())


# -- rmsprop --------------------------------------------------------------------------------

def _rmsprop(param, mean_square, grad, moment, lr, mean_grad, master, epsilon=1e-10, decay=0.9, momentum=0.0,
             centered=False, multi_precision=False, **_):
    p = _work(param, master)
    dt = p.dtype
    rho, eps, mom, one = dt.type(decay), dt.type(epsilon), dt.type(momentum), dt.type(1)
    g = grad.astype(dt, copy=False)
    lr = _scalar(lr, dt)
    ms = rho * mean_square.astype(dt, copy=False) + (one - rho) * g * g
    if centered:
        mg0 = np.zeros_like(p) if mean_grad is None else mean_grad.astype(dt, copy=False)
        mg = rho * mg0 + (one - rho) * g
        mo = mom * moment.astype(dt, copy=False) + lr * g / np.sqrt(ms - mg * mg + eps)
    else:
        mg = np.zeros_like(p) if mean_grad is None else mean_grad.copy()
        mo = mom * moment.astype(dt, copy=False) + lr * g / np.sqrt(ms + eps)
    pout, mout = _finish(param, p - mo, master)
    return pout, mo.astype(moment.dtype, copy=False), ms.astype(mean_square.dtype, copy=False), mg, mout


def _rmsprop_meta(param, mean_square, grad, moment, lr, mean_grad, master, **_):
    return _meta(param), _meta(moment), _meta(mean_square), _meta(mean_grad or param), _meta(master)


register("rmsprop", ["Param", "MeanSquare", "Grad", "Moment", "LearningRate", "MeanGrad?", "MasterParam?"],
         ["ParamOut", "MomentOut", "MeanSquareOut", "MeanGradOut", "MasterParamOut?"],
         {"epsilon": ("FLOAT", 1e-10), "decay": ("FLOAT", 0.9), "momentum": ("FLOAT", 0.0),
          "centered": ("BOOLEAN", False), "multi_precision": ("BOOLEAN", False)},
         kernel=_rmsprop, infer_meta=_rmsprop_meta, differentiable=())


# -- adagrad --------------------------------------------------------------------------------

def _adagrad(param, grad, moment, lr, master, epsilon=1e-6, multi_precision=False, **_):
    p = _work(param, master)
    dt = p.dtype
    g = grad.astype(dt, copy=False)
    mo = moment.astype(dt, copy=False) + g * g
    new = p - _scalar(lr, dt) * g / (np.sqrt(mo) + dt.type(epsilon))
    pout, mout = _finish(param, new, master)
    return pout, mo.astype(moment.dtype, copy=False), mout


def _adagrad_meta(param, grad, moment, lr, master, **_):
    return _meta(param), _meta(moment), _meta(master)


register("adagrad", ["Param", "Grad", "Moment", "LearningRate", "MasterParam?"],
         ["ParamOut", "MomentOut", "MasterParamOut?"],
         {"epsilon": ("FLOAT", 1e-6), "multi_precision": ("BOOLEAN", False)},
         kernel=_adagrad, infer_meta=_adagrad_meta, differentiable=())


# -- gradient clipping helpers --------------------------------------------------------------

def _squared_l2_norm(x, **_):
    x64 = x.astype(np.float64, copy=False) if x.dtype == np.float16 else x
    return np.asarray([np.sum(x64 * x64)], dtype=x.dtype)


register("squared_l2_norm", ["X"], ["Out"], {},
         kernel=_squared_l2_norm, infer_meta=lambda x, **_: Meta((1,), x.dtype), differentiable=())


def _clip_by_norm(x, max_norm=1.0, **_):
    norm = np.sqrt(np.sum(x.astype(np.float64, copy=False) ** 2)) if x.dtype == np.float16 \
        else np.sqrt(np.sum(x * x))
    if norm > max_norm:
        return (x * x.dtype.type(max_norm / norm)).astype(x.dtype, copy=False)
    return x.copy()


register("clip_by_norm", ["X"], ["Out"], {"max_norm": ("FLOAT", 1.0)},   # max_norm is required in Paddle
         kernel=_clip_by_norm, infer_meta=lambda x, **_: Meta(tuple(x.shape), x.dtype), differentiable=())
