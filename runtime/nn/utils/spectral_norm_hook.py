"""Spectral normalisation (``w / sigma(w)``, sigma by power iteration): a forward pre-hook recomputes
``layer.<name>`` from ``<name>_orig`` and the buffers ``<name>_u``/``<name>_v``, as Paddle does."""
from __future__ import annotations

from ...framework import no_grad
from ...api.linalg import matmul, dot
from ...api.random import normal
from ...api.reduction_extra import mv
from ..functional.common import normalize

__all__ = ["spectral_norm"]


class SpectralNorm:
    """The forward pre-hook; in training mode each call runs ``n_power_iterations`` steps on ``u``/``v``."""

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.name = name
        self.dim = dim
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        mat = weight
        if self.dim != 0:
            mat = mat.transpose([self.dim] + [d for d in range(mat.dim()) if d != self.dim])
        return mat.reshape([mat.shape[0], -1])

    def compute_weight(self, layer, do_power_iteration):
        weight = getattr(layer, self.name + "_orig")
        u = getattr(layer, self.name + "_u")
        v = getattr(layer, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.set_value(normalize(matmul(mat, u, transpose_x=True), axis=0, epsilon=self.eps))
                    u.set_value(normalize(matmul(mat, v), axis=0, epsilon=self.eps))
                u, v = u.clone(), v.clone()
        sigma = dot(u, mv(mat, v))
        return weight / sigma

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute_weight(layer, do_power_iteration=layer.training))

    @staticmethod
    def apply(layer, name, n_power_iterations, dim, eps):
        for hook in layer._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        if layer._parameters.get(name) is None:
            raise ValueError(f"spectral_norm: {type(layer).__name__} has no parameter named '{name}'")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = layer._parameters[name]
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = normalize(normal(0.0, 1.0, shape=[h]).astype(weight.dtype), axis=0, epsilon=fn.eps)
            v = normalize(normal(0.0, 1.0, shape=[w]).astype(weight.dtype), axis=0, epsilon=fn.eps)
        del layer._parameters[name]
        layer.add_parameter(name + "_orig", weight)
        setattr(layer, name, weight * 1.0)
        layer.register_buffer(name + "_u", u)
        layer.register_buffer(name + "_v", v)
        layer.register_forward_pre_hook(fn)
        return fn


def spectral_norm(layer, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``layer.<name>`` by its largest singular value, estimated by power iteration before each
    forward. ``dim=None`` picks 1 for Linear and transposed convolutions (their output axis), else 0."""
    if dim is None:
        from ..layer.common import Linear
        from ..layer import conv
        transposed = tuple(getattr(conv, n) for n in ("Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose")
                           if hasattr(conv, n))
        dim = 1 if isinstance(layer, (Linear, *transposed)) else 0
    SpectralNorm.apply(layer, name, n_power_iterations, dim, eps)
    return layer
