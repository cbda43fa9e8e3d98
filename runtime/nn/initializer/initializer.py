"""The `Initializer` base class, fan computation, `calculate_gain` and the global initializer.

An initializer fills a parameter by running creation/random ops through `run_op`
(``fill_constant``, ``uniform_random`` ...). Eagerly the result is written into the
parameter's data; in static mode `runtime.static` installs a writer (see
`set_static_writer`) that makes the op's output the parameter in the startup program.
"""
from __future__ import annotations

import math

import numpy as np

from ...dtype import convert_dtype
from ...framework import state, no_grad

__all__ = ["Initializer", "calculate_gain", "set_global_initializer"]

# (param, value, block) -> None; installed by the static half of the framework.
_static_writer = [None]


def set_static_writer(fn):
    """Install how a static-mode initializer binds its op output to the parameter."""
    _static_writer[0] = fn


class Initializer:
    """Base class: ``init(param, block=None)`` fills ``param`` with this initializer's values."""

    def __call__(self, param, block=None):
        shape = [int(d) for d in param.shape]
        dtype = convert_dtype(param.dtype)
        if state.static and getattr(self, "_seed", None) == 0:
            # Paddle: an unseeded initializer in a static Program takes (keeps) the startup Program's random_seed
            from ...static.program import default_startup_program
            self._seed = int(getattr(default_startup_program(), "random_seed", 0) or 0)
        with no_grad():
            value = self._build(shape, dtype, param)
        if state.static:
            writer = _static_writer[0]
            if writer is None:
                raise RuntimeError("initializers in static mode need runtime.static to be imported "
                                   "(paddle.enable_static() does that)")
            return writer(param, value, block)
        arr = value._data
        if arr.dtype != dtype.np:
            arr = arr.astype(dtype.np)
        if tuple(arr.shape) != tuple(shape):
            arr = arr.reshape(shape)
        param._data = arr
        return param

    def forward(self, param, block=None):
        return self(param, block)

    def _build(self, shape, dtype, param):
        """Run the ops that compute the value (a Tensor/Variable of ``shape`` and ``dtype``)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement _build")

    def _compute_fans(self, var):
        return compute_fans(var.shape)

    def __repr__(self):
        attrs = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({attrs})"


def compute_fans(shape):
    """(fan_in, fan_out) of a weight of ``shape``, Paddle's rule.

    1-D: both are the length; 2-D ``[in, out]`` (Linear's layout); n-D conv weights
    ``[out, in/groups, *kernel]``: fan_in = shape[1]*prod(kernel), fan_out = shape[0]*prod(kernel).
    """
    shape = [int(d) for d in shape]
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[2:]))
    return shape[1] * receptive, shape[0] * receptive


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for ``nonlinearity`` (Paddle's table: relu sqrt(2), tanh 5/3 ...)."""
    if param is None:
        param = 0.01
    elif isinstance(param, bool) or not isinstance(param, (int, float)):
        raise TypeError(f"calculate_gain: param must be a number, got {type(param).__name__}")
    gains = {
        "sigmoid": 1.0, "linear": 1.0, "conv1d": 1.0, "conv2d": 1.0, "conv3d": 1.0,
        "conv1d_transpose": 1.0, "conv2d_transpose": 1.0, "conv3d_transpose": 1.0,
        "tanh": 5.0 / 3, "relu": math.sqrt(2.0), "leaky_relu": math.sqrt(2.0 / (1 + float(param) ** 2)),
        "selu": 3.0 / 4,
    }
    if nonlinearity not in gains:
        raise ValueError(f"nonlinearity function {nonlinearity} is not supported now; expected one of "
                         f"{sorted(gains)}")
    return gains[nonlinearity]


_global_weight_initializer = [None]
_global_bias_initializer = [None]


def set_global_initializer(weight_init, bias_init=None):
    """Make ``weight_init``/``bias_init`` the default for every parameter created afterwards.

    They take precedence over a layer's own default initializer but not over a
    ``ParamAttr(initializer=...)``. ``set_global_initializer(None)`` undoes it.
    """
    for name, init in (("weight_init", weight_init), ("bias_init", bias_init)):
        if init is not None and not isinstance(init, Initializer):
            raise TypeError(f"set_global_initializer: {name} must be an Initializer or None, got {type(init).__name__}")
    _global_weight_initializer[0] = weight_init
    _global_bias_initializer[0] = bias_init


def global_weight_initializer():
    return _global_weight_initializer[0]


def global_bias_initializer():
    return _global_bias_initializer[0]


def _check_number(cls, name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{cls}: {name} must be a number, got {type(value).__name__}")
    return float(value)
