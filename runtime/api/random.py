"""Random tensors: rand, randn, standard_normal, normal, uniform, randint(_like), randperm,
bernoulli, multinomial, rand_like/randn_like, and the in-place ``Tensor.uniform_``/``normal_``.
``paddle.seed`` makes every one of them reproducible."""
from __future__ import annotations

import numpy as np

from ..dtype import convert_dtype, default_float, int64
from ..dispatch import run_op
from ..tensor import Tensor, tensor_method
from ._helpers import is_var
from .creation import dtype_code, shape_args, _is_static_var

__all__ = ["rand", "randn", "standard_normal", "normal", "uniform", "randint", "randint_like", "randperm",
           "bernoulli", "multinomial", "rand_like", "randn_like"]


def _float_dtype(dtype, op):
    d = convert_dtype(dtype) if dtype is not None else default_float()
    if d.np.kind != "f":
        raise TypeError(f"{op}: dtype must be float16, float32 or float64, got {d.name}")
    return d


def _shape_inputs(shape, op):
    attr, shape_t, shape_list = shape_args(shape, op)
    return attr, shape_t, shape_list


def uniform(shape, dtype=None, min=0.0, max=1.0, seed=0, name=None):
    """Uniform samples in ``[min, max)``. (Paddle 3.3.1 defaults: min=0, max=1.)"""
    d = _float_dtype(dtype, "uniform")
    if float(min) > float(max):
        raise ValueError(f"uniform: min ({min}) must not be greater than max ({max})")
    attr, st, sl = _shape_inputs(shape, "uniform")
    return run_op("uniform_random", st, sl, shape=attr, dtype=d.proto, min=float(min), max=float(max),
                  seed=int(seed))


def rand(shape, dtype=None, name=None):
    """Uniform samples in ``[0, 1)``."""
    return uniform(shape, dtype, 0.0, 1.0)


def _gaussian(shape, mean, std, dtype, op, seed=0):
    d = _float_dtype(dtype, op)
    attr, st, sl = _shape_inputs(shape, op)
    return run_op("gaussian_random", st, sl, shape=attr, mean=float(mean), std=float(std), seed=int(seed),
                  dtype=d.proto)


def randn(shape, dtype=None, name=None):
    """Standard normal samples."""
    return _gaussian(shape, 0.0, 1.0, dtype, "randn")


def standard_normal(shape, dtype=None, name=None):
    return _gaussian(shape, 0.0, 1.0, dtype, "standard_normal")


def normal(mean=0.0, std=1.0, shape=None, name=None):
    """Normal samples; ``mean``/``std`` may be tensors (the output takes their broadcast shape)."""
    if is_var(mean) or is_var(std):
        if is_var(mean) and is_var(std):
            ref = run_op("elementwise_add", mean, std)
        else:
            ref = mean if is_var(mean) else std
        d = convert_dtype(ref.dtype)
        if d.np.kind != "f":
            raise TypeError(f"normal: mean and std tensors must be floating point, got {d.name}")
        z = randn_like(ref)
        m = mean if is_var(mean) else np.asarray(mean, dtype=d.np)
        s = std if is_var(std) else np.asarray(std, dtype=d.np)
        return run_op("elementwise_add", run_op("elementwise_mul", z, s), m)
    if shape is None:
        raise ValueError("normal: shape is required when mean and std are Python numbers")
    if float(std) < 0:
        raise ValueError(f"normal: std must be non-negative, got {std}")
    return _gaussian(shape, mean, std, None, "normal")


def _like_shape(x):
    """x's shape for a new random tensor: a list, or the run-time shape tensor in static mode."""
    shape = list(x.shape)
    if any(d == -1 for d in shape):
        return run_op("shape", x)
    return shape


def rand_like(x, dtype=None, name=None):
    return uniform(_like_shape(x), dtype if dtype is not None else x.dtype, 0.0, 1.0)


def randn_like(x, dtype=None, name=None):
    return _gaussian(_like_shape(x), 0.0, 1.0, dtype if dtype is not None else x.dtype, "randn_like")


def randint(low=0, high=None, shape=[1], dtype=None, name=None):
    """Integers uniformly from ``[low, high)`` (``[0, low)`` when ``high`` is None); int64 by default."""
    if high is None:
        low, high = 0, low
    low, high = int(low), int(high)
    if low >= high:
        raise ValueError(f"randint: low must be less than high, got low={low}, high={high}")
    d = convert_dtype(dtype) if dtype is not None else int64
    if d.np.kind not in "iu":
        raise TypeError(f"randint: dtype must be int32 or int64, got {d.name}")
    attr, st, sl = _shape_inputs(shape, "randint")
    return run_op("randint", st, sl, low=low, high=high, shape=attr, dtype=d.proto, seed=0)


def randint_like(x, low=0, high=None, dtype=None, name=None):
    """Integers from ``[low, high)`` with x's shape, in ``dtype`` (default: x's dtype)."""
    if high is None:
        low, high = 0, low
    d = convert_dtype(dtype if dtype is not None else x.dtype)
    out = randint(low, high, _like_shape(x), int64)
    if d is int64:
        return out
    return run_op("cast", out, in_dtype=int64.proto, out_dtype=d.proto)


def randperm(n, dtype="int64", name=None):
    """A random permutation of ``0 .. n-1``."""
    n = int(n.item() if isinstance(n, Tensor) else n)
    if n < 0:
        raise ValueError(f"randperm: n must be non-negative, got {n}")
    return run_op("randperm", n=n, dtype=dtype_code(dtype))


def bernoulli(x, p=None, name=None):
    """0/1 samples, 1 with probability ``x`` (or ``p`` everywhere when given)."""
    if p is not None:
        if not 0.0 <= float(p) <= 1.0:
            raise ValueError(f"bernoulli: p must be in [0, 1], got {p}")
        x = run_op("fill_any_like", x, value=float(p), dtype=-1)
    return run_op("bernoulli", x)


def multinomial(x, num_samples=1, replacement=False, name=None):
    """Category indices drawn from each row of (unnormalised) probabilities ``x``."""
    if int(num_samples) <= 0:
        raise ValueError(f"multinomial: num_samples must be positive, got {num_samples}")
    return run_op("multinomial", x, num_samples=int(num_samples), replacement=bool(replacement))


@tensor_method(name="uniform_")
def _uniform_(x, min=0.0, max=1.0, seed=0, name=None):
    """In place: refill ``x`` with uniform samples (eager only)."""
    if _is_static_var(x):
        raise NotImplementedError("Tensor.uniform_ is not supported on static Variables; use paddle.uniform")
    x.set_value(uniform(x.shape, x.dtype, min, max, seed))
    return x


@tensor_method(name="normal_")
def _normal_(x, mean=0.0, std=1.0, name=None):
    """In place: refill ``x`` with normal samples (eager only)."""
    if _is_static_var(x):
        raise NotImplementedError("Tensor.normal_ is not supported on static Variables; use paddle.normal")
    x.set_value(_gaussian(x.shape, mean, std, x.dtype, "normal_"))
    return x


tensor_method(multinomial)
