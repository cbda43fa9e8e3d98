"""The rest of paddle.nn's layers: FractionalMaxPool2D/3D, SpectralNorm, ParameterDict, and the torch-style
names Paddle 3.3 exposes (all plain aliases of Paddle's own classes, as in paddle/nn/__init__.py)."""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping

import numpy as np

from ...dispatch import run_op
from ...tensor import Parameter
from ..initializer import Normal
from .. import functional as F
from .layers import Layer
from .container import LayerDict, LayerList
from .conv import Conv1D, Conv2D, Conv3D
from .pooling import (AdaptiveAvgPool1D, AdaptiveAvgPool2D, AdaptiveAvgPool3D, AdaptiveMaxPool1D,
                      AdaptiveMaxPool2D, AdaptiveMaxPool3D)
from .activation import Silu
from .loss import SmoothL1Loss

__all__ = ["FractionalMaxPool2D", "FractionalMaxPool3D", "SpectralNorm", "ParameterDict", "Module", "ModuleDict",
           "ModuleList", "SiLU", "Conv1d", "Conv2d", "Conv3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
           "AdaptiveMaxPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "HuberLoss"]

# torch-style names: the very same classes (paddle/nn/__init__.py and paddle/nn/modules/)
Module = Layer
ModuleDict = LayerDict
ModuleList = LayerList
SiLU = Silu
Conv1d, Conv2d, Conv3d = Conv1D, Conv2D, Conv3D
AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d = AdaptiveMaxPool1D, AdaptiveMaxPool2D, AdaptiveMaxPool3D
AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d = AdaptiveAvgPool1D, AdaptiveAvgPool2D, AdaptiveAvgPool3D
HuberLoss = SmoothL1Loss


class _FractionalMaxPool(Layer):
    _fn = None

    def __init__(self, output_size, kernel_size=None, random_u=None, return_mask=False, name=None):
        super().__init__()
        self._output_size = output_size
        self._kernel_size = kernel_size
        self._random_u = random_u
        self._return_mask = return_mask
        self._name = name

    def forward(self, x):
        return type(self)._fn(x, output_size=self._output_size, kernel_size=self._kernel_size,
                              random_u=self._random_u, return_mask=self._return_mask, name=self._name)

    def extra_repr(self):
        return f"output_size={self._output_size}, return_mask={self._return_mask}"


class FractionalMaxPool2D(_FractionalMaxPool):
    """2-D fractional max pooling layer (see `F.fractional_max_pool2d`)."""
    _fn = staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3D(_FractionalMaxPool):
    """3-D fractional max pooling layer (see `F.fractional_max_pool3d`)."""
    _fn = staticmethod(F.fractional_max_pool3d)


class SpectralNorm(Layer):
    """Divides the input weight by its spectral norm (op ``spectral_norm``).

    ``weight_u`` [shape[dim]] and ``weight_v`` [numel / shape[dim]] are non-trainable parameters drawn
    from N(0, 1); as in Paddle, the power iteration runs on copies, so they keep their initial values.
    """

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype="float32"):
        super().__init__()
        self._power_iters = power_iters
        self._eps = eps
        self._dim = dim
        self._dtype = dtype
        self._weight_shape = list(weight_shape)
        assert np.prod(self._weight_shape) > 0, "Any dimension of `weight_shape` cannot be equal to 0."
        assert dim < len(self._weight_shape), ("The input `dim` should be less than the length of `weight_shape`, "
                                               f"but received dim={dim}")
        h = self._weight_shape[dim]
        w = int(np.prod(self._weight_shape)) // h
        self.weight_u = self.create_parameter(shape=[h], dtype=dtype, default_initializer=Normal(0.0, 1.0))
        self.weight_u.stop_gradient = True
        self.weight_v = self.create_parameter(shape=[w], dtype=dtype, default_initializer=Normal(0.0, 1.0))
        self.weight_v.stop_gradient = True

    def forward(self, x):
        return run_op("spectral_norm", x, self.weight_u, self.weight_v, dim=int(self._dim),
                      power_iters=int(self._power_iters), eps=float(self._eps))


class ParameterDict(Layer):
    """Parameters held by name, like a dict, and registered on the layer (``parameters()``, state_dict)."""

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, param):
        if not isinstance(param, Parameter):
            raise TypeError(f"ParameterDict: only Parameters can be stored, got {type(param).__name__} for {key!r}; "
                            "make one with paddle.create_parameter")
        setattr(self, key, param)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def __contains__(self, key):
        return key in self._parameters

    def keys(self):
        return self._parameters.keys()

    def values(self):
        return self._parameters.values()

    def items(self):
        return self._parameters.items()

    def update(self, parameters):
        """Add (or replace) parameters from a mapping or an iterable of (name, parameter) pairs."""
        if not isinstance(parameters, Iterable):
            raise TypeError("The type of parameters is not iterable of key/value pairs, the type of sublayers is "
                            + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict, Mapping)):
            for key, param in parameters.items():
                self.add_parameter(key, param)
            return
        for i, kv in enumerate(parameters):
            if len(kv) != 2:
                raise ValueError(f"The length of the {i}'s element in parameters is {len(kv)}, which must be 2.")
            self.add_parameter(kv[0], kv[1])
