"""Random ops: uniform_random, gaussian_random, truncated_gaussian_random, randint, randperm,
bernoulli, multinomial.

Every op draws from `runtime.random.generator(seed)`: the global generator that
``paddle.seed`` resets, or a private one when the op's ``seed`` attribute is nonzero
(then every run of the op gives the same values, as in Paddle).
"""
from __future__ import annotations

import numpy as np

from ..random import generator
from .creation import np_dtype, resolve_shape, shape_meta
from .registry import Meta, register

_SHAPE_INPUTS = ["ShapeTensor?", "ShapeTensorList[]?"]


def _float_dtype(dtype, op):
    npd = np_dtype(dtype)
    if npd.kind != "f":
        raise TypeError(f"{op}: dtype must be a floating-point type, got {npd}")
    return npd


def _work_dtype(npd):
    """numpy samples float32 and float64 directly; float16 goes through float32."""
    return npd if npd in (np.dtype(np.float32), np.dtype(np.float64)) else np.dtype(np.float32)


def _uniform_random(shape_tensor, shape_list, shape=[], dtype=5, min=-1.0, max=1.0, seed=0,
                    diag_num=0, diag_step=0, diag_val=1.0, **_):
    npd = _float_dtype(dtype, "uniform_random")
    dims = resolve_shape(shape_tensor, shape_list, shape, "uniform_random")
    rng = generator(int(seed))
    work = _work_dtype(npd)
    lo, hi = work.type(min), work.type(max)
    out = (rng.random(dims, dtype=work) * (hi - lo) + lo).astype(npd, copy=False)
    if diag_num > 0:
        # Paddle's initializer hook: write diag_val at flat positions i * (diag_step + 1)
        flat = out.reshape(-1)
        pos = np.arange(int(diag_num)) * (int(diag_step) + 1)
        flat[pos[pos < flat.size]] = diag_val
    return out


def _shape_out_meta(shape_tensor, shape_list, shape=[], dtype=5, **_):
    return Meta(shape_meta(shape_tensor, shape_list, shape), np_dtype(dtype))


register("uniform_random", _SHAPE_INPUTS, ["Out"],
         {"shape": ("LONGS", []), "dtype": ("INT", 5), "min": ("FLOAT", -1.0), "max": ("FLOAT", 1.0),
          "seed": ("INT", 0), "diag_num": ("INT", 0), "diag_step": ("INT", 0), "diag_val": ("FLOAT", 1.0)},
         kernel=_uniform_random, infer_meta=_shape_out_meta, random=True, differentiable=())


def _gaussian_random(shape_tensor, shape_list, shape=[], mean=0.0, std=1.0, seed=0, dtype=5, **_):
    npd = _float_dtype(dtype, "gaussian_random")
    dims = resolve_shape(shape_tensor, shape_list, shape, "gaussian_random")
    work = _work_dtype(npd)
    z = generator(int(seed)).standard_normal(dims, dtype=work)
    return (z * work.type(std) + work.type(mean)).astype(npd, copy=False)


register("gaussian_random", _SHAPE_INPUTS, ["Out"],
         {"shape": ("LONGS", []), "mean": ("FLOAT", 0.0), "std": ("FLOAT", 1.0), "seed": ("INT", 0),
          "dtype": ("INT", 5)},
         kernel=_gaussian_random, infer_meta=_shape_out_meta, random=True, differentiable=())


def _truncated_gaussian_random(shape=[], mean=0.0, std=1.0, seed=0, a=-2.0, b=2.0, dtype=5, **_):
    # ``a`` and ``b`` are absolute bounds on the values (Paddle's op semantics).
    npd = _float_dtype(dtype, "truncated_gaussian_random")
    dims = resolve_shape(None, None, shape, "truncated_gaussian_random")
    rng = generator(int(seed))
    lo, hi = float(a), float(b)
    out = rng.normal(float(mean), float(std), dims)
    bad = (out < lo) | (out > hi)
    for _ in range(100):   # rejection sampling; a bounded loop for (nearly) empty windows
        if not bad.any():
            break
        out[bad] = rng.normal(float(mean), float(std), int(bad.sum()))
        bad = (out < lo) | (out > hi)
    return np.clip(out, lo, hi).astype(npd)


register("truncated_gaussian_random", [], ["Out"],
         {"shape": ("INTS", []), "mean": ("FLOAT", 0.0), "std": ("FLOAT", 1.0), "seed": ("INT", 0),
          "a": ("FLOAT", -2.0), "b": ("FLOAT", 2.0), "dtype": ("INT", 5)},
         kernel=_truncated_gaussian_random, random=True, differentiable=(),
         infer_meta=lambda shape=[], dtype=5, **_: Meta(tuple(shape), np_dtype(dtype)))


def _randint(shape_tensor, shape_list, low=0, high=1, shape=[], dtype=3, seed=0, **_):
    npd = np_dtype(dtype)
    if npd.kind not in "iu":
        raise TypeError(f"randint: dtype must be int32 or int64, got {npd}")
    if int(low) >= int(high):
        raise ValueError(f"randint: low must be less than high, got low={low}, high={high}")
    dims = resolve_shape(shape_tensor, shape_list, shape, "randint")
    return generator(int(seed)).integers(int(low), int(high), dims).astype(npd)


register("randint", _SHAPE_INPUTS, ["Out"],
         {"low": ("INT", 0), "high": ("INT", 1), "shape": ("LONGS", []), "dtype": ("INT", 3), "seed": ("INT", 0)},
         kernel=_randint, infer_meta=_shape_out_meta, random=True, differentiable=())


def _randperm(n=1, dtype=3, **_):
    if int(n) < 0:
        raise ValueError(f"randperm: n must be >= 0, got {n}")
    return generator(0).permutation(int(n)).astype(np_dtype(dtype))


register("randperm", [], ["Out"], {"n": ("INT", 1), "dtype": ("INT", 3)}, kernel=_randperm, random=True,
         infer_meta=lambda n=1, dtype=3, **_: Meta((int(n),), np_dtype(dtype)))


def _bernoulli(x, **_):
    if x.dtype.kind != "f":
        raise TypeError(f"bernoulli: probabilities must be a floating-point tensor, got {x.dtype}")
    if x.size and (np.nanmin(x) < 0 or np.nanmax(x) > 1):
        raise ValueError("bernoulli: every probability must be in [0, 1]")
    return (generator(0).random(x.shape) < x).astype(x.dtype)


register("bernoulli", ["X"], ["Out"], {}, kernel=_bernoulli, random=True, differentiable=(),
         infer_meta=lambda x, **_: Meta(tuple(x.shape), x.dtype))


def _multinomial(x, num_samples=1, replacement=False, **_):
    if x.ndim not in (1, 2):
        raise ValueError(f"multinomial: the input must be 1-D or 2-D, got shape {list(x.shape)}")
    k = int(num_samples)
    rows = x.reshape(-1, x.shape[-1]).astype(np.float64)
    if np.any(rows < 0) or not np.all(np.isfinite(rows)):
        raise ValueError("multinomial: probabilities must be finite and non-negative")
    rng = generator(0)
    out = np.empty((rows.shape[0], k), dtype=np.int64)
    for i, p in enumerate(rows):
        total = p.sum()
        if total <= 0:
            raise ValueError("multinomial: every row needs a positive probability sum")
        if not replacement and k > np.count_nonzero(p):
            raise ValueError(f"multinomial: cannot draw {k} samples without replacement from "
                             f"{np.count_nonzero(p)} categories with nonzero probability")
        out[i] = rng.choice(p.size, size=k, replace=bool(replacement), p=p / total)
    return out.reshape(x.shape[:-1] + (k,))


register("multinomial", ["X"], ["Out"], {"num_samples": ("INT", 1), "replacement": ("BOOLEAN", False)},
         kernel=_multinomial, random=True, differentiable=(),
         infer_meta=lambda x, num_samples=1, **_: Meta(tuple(x.shape[:-1]) + (int(num_samples),),
                                                       np.dtype(np.int64)))
