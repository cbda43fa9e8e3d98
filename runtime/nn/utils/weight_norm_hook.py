"""Weight normalisation (``w = g * v / ||v||``): a forward pre-hook recomputes ``layer.<name>`` from the
parameters ``<name>_g`` (magnitude) and ``<name>_v`` (direction) before every forward, as Paddle does."""
from __future__ import annotations

from ...framework import no_grad
from ...api.manipulation import reshape, transpose
from ...api.math import sqrt
from ...api.reduction import sum as _sum
from ..functional.common import normalize

__all__ = ["weight_norm", "remove_weight_norm"]

_EPS = 1e-12


def _swap_first(ndim, dim):
    perm = list(range(ndim))
    perm[0], perm[dim] = dim, 0
    return perm


def _norm_except_dim(w, dim):
    """The L2 norm of ``w`` over every dimension but ``dim`` (``dim == -1``: over all, a 0-D tensor)."""
    shape = list(w.shape)
    if dim == -1:
        return sqrt(_sum(w * w) + _EPS)
    if dim != 0 and dim != len(shape) - 1:
        return _norm_except_dim(transpose(w, _swap_first(len(shape), dim)), 0)
    mat = reshape(w, [shape[0], -1]) if dim == 0 else reshape(w, [-1, shape[-1]])
    axis = 1 if dim == 0 else 0
    return sqrt(_sum(mat * mat, axis=axis) + _EPS)


def _weight_from(v, g, dim):
    """``g * v / ||v||`` with the norm taken as `_norm_except_dim` does and ``g`` broadcast along ``dim``."""
    shape = list(v.shape)
    ndim = len(shape)
    if dim == -1:
        return v / (sqrt(_sum(v * v)) + _EPS) * g
    if dim == 0:
        unit = reshape(normalize(reshape(v, [shape[0], -1]), axis=1), shape)
    elif dim == ndim - 1:
        unit = reshape(normalize(reshape(v, [-1, shape[-1]]), axis=0), shape)
    else:
        perm = _swap_first(ndim, dim)
        vt = transpose(v, perm)
        unit = transpose(reshape(normalize(reshape(vt, [vt.shape[0], -1]), axis=1), vt.shape), perm)
    g_shape = [1] * ndim
    g_shape[dim] = shape[dim]
    return unit * reshape(g, g_shape)


class WeightNorm:
    """The forward pre-hook: sets ``layer.<name>`` to the weight computed from ``<name>_g``/``<name>_v``."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, layer):
        return _weight_from(getattr(layer, self.name + "_v"), getattr(layer, self.name + "_g"), self.dim)

    @staticmethod
    def apply(layer, name, dim):
        for hook in layer._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        if name not in layer._parameters or layer._parameters[name] is None:
            raise ValueError(f"weight_norm: {type(layer).__name__} has no parameter named '{name}'")
        if dim is None:
            dim = -1
        rank = len(layer._parameters[name].shape)
        if not -rank <= dim < rank:
            raise AssertionError("dim must set between [-R, R), R means the dimension of weight.")
        if dim != -1:
            dim = (dim + rank) % rank
        fn = WeightNorm(name, dim)
        w = getattr(layer, name)
        del layer._parameters[name]
        with no_grad():
            g_value = _norm_except_dim(w, dim)
        v = layer.create_parameter(w.shape, dtype=w.dtype)
        layer.add_parameter(name + "_v", v)
        g = layer.create_parameter(g_value.shape, dtype=g_value.dtype)
        layer.add_parameter(name + "_g", g)
        v.set_value(w)
        g.set_value(g_value)
        setattr(layer, name, fn.compute_weight(layer))
        layer.register_forward_pre_hook(fn)
        return fn

    def remove(self, layer):
        with no_grad():
            w_value = self.compute_weight(layer)
        delattr(layer, self.name)
        del layer._parameters[self.name + "_g"]
        del layer._parameters[self.name + "_v"]
        w = layer.create_parameter(w_value.shape, dtype=w_value.dtype)
        layer.add_parameter(self.name, w)
        w.set_value(w_value)

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute_weight(layer))


def weight_norm(layer, name="weight", dim=0):
    """Reparameterise ``layer.<name>`` as ``g * v / ||v||`` (norm over every dimension but ``dim``; ``dim=None``
    normalises over all elements). Adds parameters ``<name>_g`` and ``<name>_v``; returns ``layer``."""
    WeightNorm.apply(layer, name, dim)
    return layer


def remove_weight_norm(layer, name="weight"):
    """Undo `weight_norm`: ``<name>`` becomes a plain parameter holding the current normalised weight."""
    for key, hook in list(layer._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(layer)
            del layer._forward_pre_hooks[key]
            return layer
    raise ValueError(f"weight_norm of '{name}' not found in {layer}")
