"""spectral_norm: a weight divided by its largest singular value, estimated by power iteration.

As Paddle's kernel: the weight is viewed as a matrix [shape[dim], numel / shape[dim]] (``dim`` moved
first), ``power_iters`` rounds of ``v = W^T u / (|W^T u| + eps)``, ``u = W v / (|W v| + eps)`` run on
copies of U and V (the inputs are never updated), then ``sigma = u . (W v)`` and Out = W / sigma.
The grad is Paddle's kernel's formula, which is not the derivative of Out: with the iterated u, v and
``S = sum(W / sigma)`` it is ``dW = dOut * (1 - u v^T * S) / sigma`` (elementwise), where the true
gradient (u, v held constant) would be ``(dOut - u v^T * sum(dOut * W / sigma)) / sigma``. We keep
Paddle's so that training matches it; tests/runtime/nn/test_nn_rest.py checks it against numpy.
"""
from __future__ import annotations

import numpy as np

from .registry import Meta, grad_op, register


def _check(weight_shape, u_shape, v_shape, dim):
    nd = len(weight_shape)
    if nd < 2 or nd > 5:
        raise ValueError(f"spectral_norm: Weight must be 2-D to 5-D, got shape {list(weight_shape)}")
    if dim not in (0, 1):
        raise ValueError(f"spectral_norm: dim must be 0 or 1, got {dim}")
    h = weight_shape[dim]
    w = int(np.prod([s for i, s in enumerate(weight_shape) if i != dim]))
    if u_shape is not None and (len(u_shape) != 1 or u_shape[0] != h):
        raise ValueError(f"spectral_norm: U must have shape [{h}] (Weight.shape[{dim}]), got {list(u_shape)}")
    if v_shape is not None and (len(v_shape) != 1 or v_shape[0] != w):
        raise ValueError(f"spectral_norm: V must have shape [{w}] (Weight's other dims multiplied), "
                         f"got {list(v_shape)}")
    return h, w


def _matrix(weight, dim):
    return np.moveaxis(weight, dim, 0).reshape(weight.shape[dim], -1)


def _from_matrix(mat, shape, dim):
    moved = [shape[dim]] + [s for i, s in enumerate(shape) if i != dim]
    return np.moveaxis(mat.reshape(moved), 0, dim)


def _iterate(mat, u, v, power_iters, eps):
    u = u.astype(mat.dtype).copy()
    v = v.astype(mat.dtype).copy()
    for _ in range(int(power_iters)):
        v = mat.T @ u
        v = v / (np.sqrt(np.sum(v * v)) + eps)
        u = mat @ v
        u = u / (np.sqrt(np.sum(u * u)) + eps)
    sigma = np.sum(u * (mat @ v))
    return u, v, sigma


def _spectral_norm(weight, u, v, dim=0, power_iters=1, eps=9.999999960041972e-13):
    _check(weight.shape, u.shape, v.shape, dim)
    mat = _matrix(weight, dim)
    _, _, sigma = _iterate(mat, u, v, power_iters, mat.dtype.type(eps))
    return _from_matrix(mat / sigma, weight.shape, dim).astype(weight.dtype, copy=False)


def _spectral_norm_grad(weight, u, v, dout, dim=0, power_iters=1, eps=9.999999960041972e-13):
    mat = _matrix(weight, dim)
    uu, vv, sigma = _iterate(mat, u, v, power_iters, mat.dtype.type(eps))
    g = _matrix(dout, dim)
    dmat = g * (1.0 - np.outer(uu, vv) * np.sum(mat / sigma)) / sigma
    return _from_matrix(dmat, weight.shape, dim).astype(weight.dtype, copy=False)


def _meta(weight, u, v, dim=0, **_):
    _check(weight.shape, u.shape, v.shape, dim)
    return Meta(tuple(weight.shape), weight.dtype)


register("spectral_norm", ["Weight", "U", "V"], ["Out"],
         {"dim": ("INT", 0), "power_iters": ("INT", 1), "eps": ("FLOAT", 9.999999960041972e-13)},
         kernel=_spectral_norm, infer_meta=_meta, differentiable=("Weight",))
grad_op("spectral_norm", ["Weight", "U", "V", "Out@GRAD"], ["Weight@GRAD"], _spectral_norm_grad)
