"""`ParamAttr` (how a parameter is named, initialised and trained) and `create_parameter`.

`create_parameter` is the one place parameters are made, for layers and for
``paddle.create_parameter``. In static mode it hands the request to the creator that
`runtime.static` installs with `set_static_parameter_creator`, so the parameter lands in
the startup/main programs instead.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..dtype import convert_dtype, default_float
from .. import unique_name
from ..framework import state
from ..tensor import Parameter
from .initializer import Initializer, Constant, XavierUniform
from .initializer.initializer import global_weight_initializer, global_bias_initializer
from .initializer import lazy_init

__all__ = ["ParamAttr", "create_parameter"]


class ParamAttr:
    """Attributes of a parameter: ``name``, ``initializer``, per-parameter ``learning_rate``
    multiplier, ``regularizer``, ``trainable``, ``do_model_average`` and ``need_clip``
    (whether gradient clipping applies). Pass ``False`` instead of a ParamAttr to mean
    "no such parameter" (e.g. ``bias_attr=False``)."""

    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None, trainable=True,
                 do_model_average=True, need_clip=True):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"ParamAttr: name must be a str or None, got {type(name).__name__}")
        if initializer is not None and not isinstance(initializer, Initializer):
            raise TypeError(f"ParamAttr: initializer must be an Initializer or None, got {type(initializer).__name__}")
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, numbers.Real):
            raise TypeError(f"ParamAttr: learning_rate must be a number, got {type(learning_rate).__name__}")
        if not isinstance(trainable, (bool, np.bool_)):
            raise TypeError(f"ParamAttr: trainable must be a bool, got {type(trainable).__name__}")
        if not isinstance(need_clip, (bool, np.bool_)):
            raise TypeError(f"ParamAttr: need_clip must be a bool, got {type(need_clip).__name__}")
        self.name = name
        self.initializer = initializer
        self.learning_rate = learning_rate
        self.regularizer = regularizer
        self.trainable = bool(trainable)
        self.do_model_average = do_model_average
        self.need_clip = bool(need_clip)

    def _set_default_initializer(self, initializer):
        if self.initializer is None:
            self.initializer = initializer

    def _set_default_param_initializer(self):
        self._set_default_initializer(XavierUniform())

    def _set_default_bias_initializer(self):
        self._set_default_initializer(Constant(0.0))

    @staticmethod
    def _to_attr(arg):
        """Normalise what users pass as ``weight_attr``/``bias_attr``: None, a name, an
        Initializer, a ParamAttr, True/False, or a list of these."""
        if arg is None:
            return ParamAttr()
        if isinstance(arg, (list, tuple)):
            return [ParamAttr._to_attr(a) for a in arg]
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if isinstance(arg, Initializer):
            return ParamAttr(initializer=arg)
        if isinstance(arg, (bool, np.bool_)):
            return ParamAttr() if arg else False
        raise TypeError(f"a parameter attribute must be None, a str, an Initializer, a ParamAttr or a bool, "
                        f"got {type(arg).__name__}")

    def _to_kwargs(self, with_initializer=False):
        kwargs = {"name": self.name, "optimize_attr": {"learning_rate": self.learning_rate},
                  "regularizer": self.regularizer, "trainable": self.trainable,
                  "do_model_average": self.do_model_average, "need_clip": self.need_clip}
        if with_initializer:
            kwargs["initializer"] = self.initializer
        return kwargs

    def __repr__(self):
        return (f"ParamAttr(name={self.name!r}, initializer={self.initializer!r}, learning_rate={self.learning_rate}, "
                f"regularizer={self.regularizer!r}, trainable={self.trainable}, need_clip={self.need_clip})")


# (shape, dtype, attr, is_bias, initializer, name) -> Parameter-like; installed by runtime.static
_static_creator = [None]


def set_static_parameter_creator(fn):
    """Install how parameters are created while static mode is on (used by runtime.static)."""
    _static_creator[0] = fn


def _check_shape(shape, where):
    if hasattr(shape, "numpy") and not isinstance(shape, (list, tuple)):
        shape = np.atleast_1d(shape.numpy()).tolist()
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"{where}: shape must be a list or tuple of ints, got {type(shape).__name__}")
    out = []
    for d in shape:
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (numbers.Integral, np.integer)):
            raise TypeError(f"{where}: shape must hold ints, got {list(shape)}")
        if d < 0:
            raise ValueError(f"{where}: every dimension of shape must be non-negative, got {list(shape)}")
        out.append(int(d))
    return out


def _make_parameter(shape, dtype, attr, is_bias=False, default_initializer=None, name_prefix=None,
                    where="create_parameter"):
    """Create and initialise a Parameter; ``attr`` is anything `ParamAttr._to_attr` accepts.

    Returns None when ``attr`` is False. The initializer is, in order of precedence:
    ``attr.initializer``, the global initializer, ``default_initializer``, then Constant(0)
    for biases and XavierUniform for weights.
    """
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        return None
    if isinstance(attr, list):
        raise TypeError(f"{where}: attr must be a single ParamAttr, got a list")
    shape = _check_shape(shape, where)
    dtype = default_float() if dtype is None else convert_dtype(dtype)

    init = attr.initializer
    if init is None:
        init = global_bias_initializer() if is_bias else global_weight_initializer()
    if init is None:
        init = default_initializer
    if init is None:
        if is_bias or dtype.np.kind not in "fc":
            init = Constant(0.0)
        else:
            init = XavierUniform()

    name = attr.name
    if name is None:
        prefix = name_prefix or "create_parameter"
        name = unique_name.generate(prefix + (".b" if is_bias else ".w"))
        # Paddle counts layer-owned names per layer ("linear_0.w_0", "linear_0.w_1");
        # the generator is keyed on "<layer>.w", giving exactly those.

    if state.static and _static_creator[0] is not None:
        return _static_creator[0](shape, dtype, attr, is_bias, init, name)

    p = Parameter._wrap(np.zeros(shape, dtype=dtype.np), stop_gradient=not attr.trainable)
    p._name = name
    p.trainable = attr.trainable
    p.optimize_attr = {"learning_rate": attr.learning_rate}
    p.regularizer = attr.regularizer
    p.need_clip = attr.need_clip
    p.do_model_average = attr.do_model_average
    p.initializer = init
    if lazy_init.lazy_enabled():
        lazy_init.defer(p, init)      # paddle.LazyGuard: param.initialize() runs it
    else:
        init(p)
    return p


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False, default_initializer=None):
    """``paddle.create_parameter``: a standalone trainable Parameter (names ``create_parameter_N.w_0``)."""
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        attr = ParamAttr()
    if name is not None:
        if attr.name is None:
            attr = _copy_attr(attr, name)
    prefix = unique_name.generate("create_parameter")
    return _make_parameter(shape, dtype, attr, is_bias, default_initializer, name_prefix=prefix,
                           where="create_parameter")


def _copy_attr(attr, name):
    new = ParamAttr.__new__(ParamAttr)
    new.__dict__.update(attr.__dict__)
    new.name = name
    return new
