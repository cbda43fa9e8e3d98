"""``paddle.static.nn.nce``: noise-contrastive estimation loss, built from registered ops.

For each row, ``num_neg_samples`` negative classes are drawn at run time (``uniform`` over all classes or
``log_uniform``, Zipfian, as Paddle's samplers), and with ``o = sigmoid(x . W[c] + b[c])`` and
``B = num_neg_samples * P(c)`` the cost is ``(sum_true -log(o / (o + B)) + sum_neg -log(B / (o + B))) *
sample_weight / (num_neg_samples + 1)`` -- Paddle's ``nce`` kernel's formula (checked against its outputs in
tests/interop/test_module_surface_interop.py). The draws come from dy2st's generator, so the negatives differ
from Paddle's; ``seed != 0`` makes every run draw the same ones, as in Paddle. The program holds the
composite ops, not Paddle's ``nce`` op. ``custom_dist`` sampling is not supported (a clear error).
"""
from __future__ import annotations

import math

import numpy as np

from runtime.dispatch import run_op
from runtime.api.creation import full
from runtime.api.manipulation import concat, reshape, shape as _shape, slice as _slice, squeeze, unsqueeze
from runtime.api.random import uniform

from .common import _Helper, _check_float, static_only

__all__ = ["nce"]

_SAMPLERS = ("uniform", "log_uniform", "custom_dist")


def _draw(x, n_neg, num_classes, sampler, seed):
    """[N, n_neg] int64 negative classes, N taken from ``x`` at run time."""
    rows = _slice(_shape(x), axes=[0], starts=[0], ends=[1])
    u = uniform(concat([rows, full([1], n_neg, rows.dtype)]), "float64", 0.0, 1.0, seed=seed)
    if sampler == "uniform":
        # Paddle's UniformSampler(num_classes - 1): integers in [0, num_classes - 1]
        k = run_op("floor", u * float(num_classes))
        return run_op("cast", run_op("elementwise_min", k, full([1], float(num_classes - 1), "float64")),
                      in_dtype=6, out_dtype=3)
    # Paddle's LogUniformSampler(num_classes - 1): (int(exp(u * log(num_classes))) - 1) % (num_classes - 1)
    value = run_op("floor", run_op("exp", u * math.log(num_classes))) - 1.0
    k = run_op("cast", value, in_dtype=6, out_dtype=3)
    return run_op("elementwise_mod", k, full([1], max(num_classes - 1, 1), "int64"))


def _noise_mass(labels, n_neg, num_classes, sampler, dtype):
    """``num_neg_samples * P(label)`` (Paddle computes P in float32)."""
    if sampler == "uniform":
        b = np.float32(np.float32(1.0 / num_classes) * n_neg)
        return full([1], float(b), dtype)
    lab = run_op("cast", labels, in_dtype=3, out_dtype=6)
    prob = run_op("log", (lab + 2.0) / (lab + 1.0)) * (1.0 / math.log(num_classes))
    prob = run_op("cast", prob, in_dtype=6, out_dtype=5) * float(n_neg)
    return prob.astype(dtype)


@static_only
def nce(input, label, num_total_classes, sample_weight=None, param_attr=None, bias_attr=None, num_neg_samples=None,
        name=None, sampler="uniform", custom_dist=None, seed=0, is_sparse=False):
    """Noise-contrastive estimation cost ``[N, 1]`` of ``input`` ``[N, D]`` against int64 ``label`` ``[N, T]``,
    with a ``[num_total_classes, D]`` weight and ``[num_total_classes, 1]`` bias (``nce_N.w_0`` / ``.b_0``)."""
    _check_float(input, "input", "nce", ("float32", "float64"))
    if label.dtype.name != "int64":
        raise TypeError(f"The data type of 'label' in nce must be ['int64'], but received {label.dtype.name}.")
    if len(input.shape) != 2:
        raise ValueError(f"The rank of `input` must be 2, but received {len(input.shape)}.")
    if sampler not in _SAMPLERS:
        raise Exception("Unsupported sampler type.")
    if sampler == "custom_dist":
        raise NotImplementedError("nce: sampler='custom_dist' is not supported by dy2st; use 'uniform' or "
                                  "'log_uniform'")
    helper = _Helper("nce", name)
    dim = input.shape[1]
    n_neg = 10 if num_neg_samples is None else int(num_neg_samples)
    w = helper.param([num_total_classes, dim], input.dtype, param_attr)
    b = helper.param([num_total_classes, 1], input.dtype, bias_attr, is_bias=True) if bias_attr is not False else None
    negatives = _draw(input, n_neg, int(num_total_classes), sampler, int(seed))
    x3 = unsqueeze(input, [1])

    def sigmoid_logits(labels):
        logit = run_op("reduce_sum", run_op("lookup_table_v2", labels, w) * x3, dim=[2], keep_dim=False)
        if b is not None:
            logit = logit + squeeze(run_op("lookup_table_v2", labels, b), [2])
        return run_op("sigmoid", logit)

    o_true, o_neg = sigmoid_logits(label), sigmoid_logits(negatives)
    b_true = _noise_mass(label, n_neg, num_total_classes, sampler, input.dtype)
    b_neg = _noise_mass(negatives, n_neg, num_total_classes, sampler, input.dtype)
    cost_true = -run_op("log", o_true / (o_true + b_true))
    cost_neg = -run_op("log", b_neg / (o_neg + b_neg))
    cost = (run_op("reduce_sum", cost_true, dim=[1], keep_dim=True)
            + run_op("reduce_sum", cost_neg, dim=[1], keep_dim=True))
    if sample_weight is not None:
        cost = cost * reshape(sample_weight, [-1, 1])
    return cost * (1.0 / (n_neg + 1))
