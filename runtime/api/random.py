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
from .param_alias import param_alias

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


def gaussian(shape, mean=0.0, std=1.0, seed=0, dtype=None, name=None, *, out=None, device=None,
             requires_grad=False):
    """``paddle.tensor.random.gaussian``: N(mean, std**2) samples of ``dtype`` (float16/32/64, or complex64 /
    complex128, whose real and imaginary parts are each N(mean, std**2 / 2)). A complex ``mean`` needs a
    complex dtype and equal real and imaginary parts (Paddle's errors)."""
    d = convert_dtype(dtype) if dtype is not None else default_float()
    if isinstance(mean, complex):
        if d.name not in ("complex64", "complex128"):
            raise TypeError("if mean is a complex number, dtype should be complex64 or complex128, but got "
                            f"dtype = {d.name}")
        if mean.real != mean.imag:
            raise ValueError("The mean of complex gaussian distribution should be a complex number with real "
                             f"part equal imaginary part, but got {mean.real} != {mean.imag}")
        mean = mean.real
    if d.name in ("complex64", "complex128"):
        res = _complex_gaussian(shape, float(mean), float(std), d.name)
    else:
        res = _gaussian(shape, mean, std, d, "gaussian", seed=seed)
    if requires_grad:
        res.stop_gradient = False
    if out is not None:
        from .creation import assign
        return assign(res, output=out)
    return res


def randn(shape, dtype=None, name=None):
    """Standard normal samples."""
    return _gaussian(shape, 0.0, 1.0, dtype, "randn")


def standard_normal(shape, dtype=None, name=None):
    return _gaussian(shape, 0.0, 1.0, dtype, "standard_normal")


@param_alias(shape="size")
def normal(mean=0.0, std=1.0, shape=None, name=None, *, out=None):
    """Normal samples; ``mean``/``std`` may be tensors (the output takes their broadcast shape).

    A complex ``mean`` (a Python complex with equal real and imaginary parts, or a complex64/complex128
    tensor) gives complex samples whose real and imaginary parts each have variance ``std**2 / 2``.
    """
    if not (is_var(mean) or isinstance(mean, (int, float, complex, np.number))) or isinstance(mean, bool):
        raise TypeError(f"normal: mean must be a number or a Tensor, got {type(mean).__name__}")
    if not (is_var(std) or isinstance(std, (int, float, np.number))) or isinstance(std, (bool, complex)):
        raise TypeError(f"normal: std must be a real number or a Tensor, got {type(std).__name__}")
    if is_var(mean) and mean.dtype.name not in ("float32", "float64", "complex64", "complex128"):
        raise TypeError(f"normal: a mean Tensor must be float32, float64, complex64 or complex128, "
                        f"got {mean.dtype.name}")
    if is_var(std) and std.dtype.name not in ("float32", "float64"):
        raise TypeError(f"normal: a std Tensor must be float32 or float64, got {std.dtype.name}")
    if isinstance(mean, complex) and mean.real != mean.imag:
        raise ValueError("normal: the mean of a complex normal distribution must have equal real and "
                         f"imaginary parts, got {mean.real} != {mean.imag}")
    if is_var(mean) or is_var(std):
        if is_var(mean):
            ref = mean
            if is_var(std) and mean.dtype.name in ("float32", "float64") and std.dtype != mean.dtype:
                std = run_op("cast", std, in_dtype=std.dtype.proto, out_dtype=mean.dtype.proto)
        else:
            ref = std
        if isinstance(mean, complex) or ref.dtype.name in ("complex64", "complex128"):
            cdt = ref.dtype.name if ref.dtype.name.startswith("complex") else "complex64"
            z = _complex_gaussian(_like_shape(ref), 0.0, 1.0, cdt)
        else:
            z = randn_like(ref)
        if is_var(std) and is_var(mean):
            from .manipulation import reshape
            std = reshape(std, _like_shape(mean))
        res = z * std + mean
    elif shape is None:
        raise ValueError("normal: shape is required when mean and std are Python numbers")
    elif not (isinstance(shape, (list, tuple)) or is_var(shape)):
        raise TypeError(f"normal: shape must be a list, a tuple or a Tensor, got {type(shape).__name__}")
    elif float(std) < 0:
        raise ValueError(f"normal: std must be non-negative, got {std}")
    elif isinstance(mean, complex):
        res = _complex_gaussian(shape, float(mean.real), float(std), "complex64")
    else:
        res = _gaussian(shape, mean, std, None, "normal")
    if out is not None:
        from .creation import assign
        return assign(res, output=out)
    return res


def _complex_gaussian(shape, mean, std, dtype):
    """Complex normal samples: real and imaginary parts each N(mean, std**2 / 2), as Paddle's gaussian."""
    real = "float32" if convert_dtype(dtype).name == "complex64" else "float64"
    part = float(std) / np.sqrt(2.0)
    from .complex import complex as _complex
    return _complex(_gaussian(shape, mean, part, real, "normal"), _gaussian(shape, mean, part, real, "normal"))


def _like_shape(x):
    """x's shape for a new random tensor: a list, or the run-time shape tensor in static mode."""
    shape = list(x.shape)
    if any(d == -1 for d in shape):
        return run_op("shape", x)
    return shape


def rand_like(x, dtype=None, name=None):
    return uniform(_like_shape(x), dtype if dtype is not None else x.dtype, 0.0, 1.0)


@param_alias(x="input")
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


@param_alias(x="input")
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
    x._version = x.inplace_version + 1    # Paddle counts the fill (set_value does not)
    return x


@tensor_method(name="normal_")
def _normal_(x, mean=0.0, std=1.0, name=None):
    """In place: refill ``x`` with normal samples (eager only)."""
    if _is_static_var(x):
        raise NotImplementedError("Tensor.normal_ is not supported on static Variables; use paddle.normal")
    x.set_value(_gaussian(x.shape, mean, std, x.dtype, "normal_"))
    x._version = x.inplace_version + 1    # Paddle counts the fill (set_value does not)
    return x


tensor_method(multinomial)
