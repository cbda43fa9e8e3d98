"""Fused ("multi-tensor") eager parameter updates, Paddle's ``use_multi_tensor`` idea.

``Optimizer.step()`` applies each parameter's update op through ``run_op``: per parameter a
dispatch, a learning-rate array, an attribute dict, Tensor wrappers. For the optimizers here the
update of one parameter group instead runs as:

- SGD, Momentum: the op's kernel called directly per parameter (one learning-rate array per
  dtype/multiplier for the whole step, no dispatch);
- Adam, AdamW: parameters sharing every scalar of the update (dtype, learning rate, the beta-power
  values, AdamW's per-parameter decay attributes) form a bucket updated by ONE call of the adam
  kernel over flat buffers: the gradients concatenated, the parameters and both moments kept as
  consecutive slices of one flat array from step to step (each parameter's and accumulator's
  ``_data`` is a view of its slice of the kernel's fresh output, so the next step finds them
  already flat and concatenates nothing but the gradients).

The kernels are elementwise, so the numbers are bit-for-bit those of the per-parameter path
(tests/runtime/optimizer/test_multi_tensor.py). Gradient clipping, regularisers, LR schedulers and
parameter groups are handled by ``Optimizer._apply_group`` before the fused update sees the
gradients. Anything unusual falls back to the per-parameter path: a subclass overriding
``_append_optimize_op``, Tensor betas/epsilon, amsgrad (per-parameter kernel calls), multi-precision,
static mode, a TracedLayer recording, mixed dtypes. ``enabled = False`` turns the fusion off.
"""
from __future__ import annotations

import numpy as np

from ..framework import state
from ..ops.registry import lookup
from ..tensor import Tensor

__all__ = ["enabled", "register", "fused_update"]

enabled = True
_FUSED = {}      # the _append_optimize_op function a class uses -> its fused update
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def register(cls, fn):
    """Use ``fn(opt, group, params_grads)`` for optimizers whose ``_append_optimize_op`` is ``cls``'s
    (a subclass that overrides it gets the per-parameter path)."""
    _FUSED[cls._append_optimize_op] = fn


def fused_update(opt):
    """The fused update for optimizer ``opt`` now, or None (use the per-parameter path)."""
    if not enabled or state.static or state.tracer is not None or getattr(opt, "_multi_precision", False):
        return None
    return _FUSED.get(type(opt)._append_optimize_op)


def _plain(params_grads):
    """True when every gradient is a Tensor of its parameter's (float32/float64) dtype."""
    for p, g in params_grads:
        if not isinstance(g, Tensor) or p._data.dtype not in _FLOATS or g._data.dtype != p._data.dtype:
            return False
    return True


def _lr(opt, p, cache):
    """``opt._param_lr(p)``, computed once per (dtype, multiplier) in a step."""
    key = (p._data.dtype, getattr(p, "optimize_attr", {}).get("learning_rate", 1.0))
    lr = cache.get(key)
    if lr is None:
        lr = cache[key] = opt._param_lr(p)
    return lr


# -- SGD, Momentum: direct kernel calls ------------------------------------------------------------

def sgd(opt, group, params_grads):
    if not _plain(params_grads):
        return False
    scalars = {}
    multiply, subtract = np.multiply, np.subtract
    for p, g in params_grads:
        # the sgd kernel's ``p - lr * g`` (same ufuncs, same operands, so the same bits) with the product's
        # array reused for the result: one allocation instead of two
        pa = p._data
        attr = getattr(p, "optimize_attr", None)
        key = (pa.dtype, 1.0 if attr is None else attr.get("learning_rate", 1.0))
        s = scalars.get(key)
        if s is None:       # the learning-rate array of _param_lr, as a scalar of the parameter's dtype
            s = scalars[key] = pa.dtype.type(opt._param_lr(p)[0])
        t = multiply(s, g._data)
        p._data = subtract(pa, t, out=t)
    return True


def momentum(opt, group, params_grads):
    if not _plain(params_grads):
        return False
    from ..regularizer import L2Decay
    kernel = lookup("momentum").kernel
    lrs = {}
    mu, nesterov, rescale = float(group["momentum"]), bool(group["use_nesterov"]), float(group["rescale_grad"])
    store = opt._accumulators[opt._velocity_acc_str]
    for p, g in params_grads:
        reg = opt._regularizer_for(p, group)
        method, coeff = ("l2_decay", reg.coeff) if isinstance(reg, L2Decay) else ("", 0.0)
        velocity = store[p.name]
        p_out, v_out, _ = kernel(p._data, g._data, velocity._data, _lr(opt, p, lrs), None, mu=mu,
                                 use_nesterov=nesterov, regularization_method=method, regularization_coeff=coeff,
                                 rescale_grad=rescale)
        p._data = p_out
        velocity._data = v_out
    return True


# -- Adam, AdamW: one kernel call per bucket over flat buffers --------------------------------------

class _Flat:
    """The flat array whose consecutive slices a list of tensors' ``_data`` were set to."""
    __slots__ = ("flat", "views")

    def __init__(self, flat, views):
        self.flat, self.views = flat, views


def _gather(tensors, cache, key):
    """One flat array holding the tensors' values: the cached one when their ``_data`` are still its
    slices (no copy), else a concatenation."""
    hit = cache.get(key)
    if hit is not None and len(hit.views) == len(tensors) and all(
            t._data is v for t, v in zip(tensors, hit.views)):
        return hit.flat
    return np.concatenate([t._data.reshape(-1) for t in tensors])


def _scatter(tensors, flat, cache, key):
    """Set each tensor's ``_data`` to its slice of ``flat`` (shaped like before); remember them."""
    views = []
    off = 0
    for t in tensors:
        shape = t._data.shape
        n = t._data.size
        v = flat[off:off + n].reshape(shape)
        off += n
        t._data = v
        views.append(v)
    cache[key] = _Flat(flat, views)


def _adam_lean(p, g, lr, m1, m2, b1p, b2p, beta1, beta2, epsilon, decay):
    """The adam/adamw kernel's arithmetic (runtime.ops.optimizer_ops._adam_core without amsgrad, master
    weights, skip_update or beta tensors): the same ufuncs on the same operands in the same order, so the
    same bits, writing into three buffers (the outputs) instead of a dozen temporaries."""
    dt = p.dtype
    b1, b2, eps = dt.type(beta1), dt.type(beta2), dt.type(epsilon)
    one = dt.type(1)
    lr = dt.type(np.asarray(lr).reshape(-1)[0])
    if decay is not None:
        lr_ratio, coeff = decay
        lr = lr * dt.type(lr_ratio)
        f = one - lr * dt.type(coeff)
        if f != one:            # p * 1 is p, bit for bit
            p = np.multiply(p, f)
    b1p_v = dt.type(np.asarray(b1p).reshape(-1)[0])
    b2p_v = dt.type(np.asarray(b2p).reshape(-1)[0])
    m1o = np.multiply(b1, m1)
    u = np.multiply(one - b1, g)
    np.add(m1o, u, out=m1o)                     # b1 * m1 + (1 - b1) * g
    np.multiply(one - b2, g, out=u)
    np.multiply(u, g, out=u)
    m2o = np.multiply(b2, m2)
    np.add(m2o, u, out=m2o)                     # b2 * m2 + (1 - b2) * g * g
    lr_t = lr * np.sqrt(one - b2p_v) / (one - b1p_v)
    np.sqrt(m2o, out=u)
    np.add(u, eps * np.sqrt(one - b2p_v), out=u)
    np.divide(m1o, u, out=u)
    np.multiply(lr_t, u, out=u)
    np.subtract(p, u, out=u)                    # p - lr_t * (m1 / (sqrt(m2) + eps * sqrt(1 - b2^t)))
    b1po = (b1p * b1p.dtype.type(beta1)).astype(b1p.dtype, copy=False)
    b2po = (b2p * b2p.dtype.type(beta2)).astype(b2p.dtype, copy=False)
    return u, m1o, m2o, None, b1po, b2po, None


def adam(opt, group, params_grads):
    beta1, beta2, eps = group["beta1"], group["beta2"], group["epsilon"]
    if isinstance(beta1, Tensor) or isinstance(beta2, Tensor) or isinstance(eps, Tensor) or opt._amsgrad:
        return False
    if not _plain(params_grads):
        return False
    decayed = opt._op_type == "adamw"
    base = dict(beta1=float(beta1), beta2=float(beta2), epsilon=float(eps))
    acc = opt._accumulators
    m1s, m2s = acc[opt._moment1_acc_str], acc[opt._moment2_acc_str]
    b1s, b2s = acc[opt._beta1_pow_acc_str], acc[opt._beta2_pow_acc_str]
    lrs = {}
    buckets = {}
    for p, g in params_grads:
        extra = opt._extra_attrs(group, p)
        lr = _lr(opt, p, lrs)
        b1p, b2p = b1s[p.name], b2s[p.name]
        m1, m2 = m1s[p.name], m2s[p.name]
        dt = p._data.dtype
        if m1._data.dtype != dt or m2._data.dtype != dt or m1._data.shape != p._data.shape \
                or m2._data.shape != p._data.shape:
            return False        # nothing was updated yet: the per-parameter path takes the whole group
        key = (p._data.dtype, id(lr), tuple(sorted(extra.items())), b1p._data.dtype, b2p._data.dtype,
               b1p._data.tobytes(), b2p._data.tobytes())
        b = buckets.get(key)
        if b is None:
            b = buckets[key] = (lr, extra, [])
        b[2].append((p, g, m1, m2, b1p, b2p))
    cache = opt.__dict__.setdefault("_flat_cache", {})
    if len(cache) > 3 * 16:     # parameter sets that changed from step to step: forget the old ones
        cache.clear()
    for lr, extra, items in buckets.values():
        decay = (extra.get("lr_ratio", 1.0), extra.get("coeff", 0.01) if extra.get("with_decay") else 0.0) \
            if decayed else None
        if len(items) == 1:
            p, g, m1, m2, b1p, b2p = items[0]
            outs = _adam_lean(p._data, g._data, lr, m1._data, m2._data, b1p._data, b2p._data, base["beta1"],
                              base["beta2"], base["epsilon"], decay)
            p._data, m1._data, m2._data, _, b1p._data, b2p._data, _ = outs
            continue
        ps = [it[0] for it in items]
        m1l = [it[2] for it in items]
        m2l = [it[3] for it in items]
        ident = tuple(id(p) for p in ps)
        gflat = np.concatenate([it[1]._data.reshape(-1) for it in items])
        pflat = _gather(ps, cache, ("p",) + ident)
        m1flat = _gather(m1l, cache, ("m1",) + ident)
        m2flat = _gather(m2l, cache, ("m2",) + ident)
        first = items[0]
        p_out, m1_out, m2_out, _, b1_out, b2_out, _ = _adam_lean(
            pflat, gflat, lr, m1flat, m2flat, first[4]._data, first[5]._data, base["beta1"], base["beta2"],
            base["epsilon"], decay)
        _scatter(ps, p_out, cache, ("p",) + ident)
        _scatter(m1l, m1_out, cache, ("m1",) + ident)
        _scatter(m2l, m2_out, cache, ("m2",) + ident)
        for it in items:    # each accumulator gets its own array, as the per-parameter ops give
            it[4]._data = b1_out.copy()
            it[5]._data = b2_out.copy()
    return True
