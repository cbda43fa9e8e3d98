"""``paddle.jit.to_static`` and its companions: not_to_static, enable_to_static, ignore_module."""
from __future__ import annotations

import types

from .call_conversion import ignore_module  # noqa: F401
from .static_function import NOT_A_LAYER_MESSAGE, StaticFunction, enable_to_static  # noqa: F401

__all__ = ["to_static", "not_to_static", "enable_to_static", "ignore_module"]


def to_static(function=None, input_spec=None, build_strategy=None, full_graph=True, **kwargs):
    """Convert a function, a Layer method or a whole Layer into a static Program.

    Usable as ``@to_static``, ``@to_static(input_spec=[...])``, ``to_static(fn)`` and
    ``to_static(layer)`` (which converts ``layer.forward`` in place and returns the layer).
    ``fallback=True`` runs the function eagerly, with a warning, if it cannot be converted.
    ``property=True`` marks a method returning a constant (float, int, str or a list of them) that
    ``jit.save(..., combine_params=True)`` stores in ``path.meta``; calling it runs it as it is.
    ``build_strategy`` and ``full_graph`` are accepted for compatibility: we always convert the whole
    function from its source (Paddle's AST mode, ``full_graph=True``). ``full_graph=False`` asks Paddle
    for its bytecode translator (SOT), which falls back to eager Python around what it cannot stage;
    here it converts in AST mode as well (so ``concrete_program`` etc. work, where Paddle's SOT
    functions refuse them); ask for eager fallback on conversion errors with ``fallback=True``.
    """
    fallback = bool(kwargs.pop("fallback", False))
    is_property = bool(kwargs.pop("property", False))
    kwargs.pop("backend", None)
    if kwargs:
        raise TypeError(f"to_static() got unexpected keyword arguments {sorted(kwargs)}")
    if build_strategy:
        from .base.compiler import BuildStrategy
        if not isinstance(build_strategy, BuildStrategy):
            raise TypeError("Required type(build_strategy) shall be `paddle.static.BuildStrategy`, but received "
                            f"{type(build_strategy).__name__}")

    def decorate(fn):
        from runtime.nn.layer.layers import Layer
        if isinstance(fn, Layer):
            layer = fn
            if isinstance(layer.__dict__.get("forward", type(layer).forward), StaticFunction):
                from .jit.dy2static import logging_utils
                logging_utils.warn(f"`{type(layer).__name__}.forward` has already been decorated somewhere. It will "
                                   "be redecorated to replace previous one.")
            forward = type(layer).forward
            if isinstance(forward, StaticFunction):
                forward = forward.dygraph_function
            sf = StaticFunction(forward, input_spec, build_strategy, full_graph, fallback)
            layer.__dict__["forward"] = sf.__get__(layer)
            return layer
        if isinstance(fn, StaticFunction):
            return fn
        if isinstance(fn, types.MethodType):
            if not isinstance(fn.__self__, Layer):
                # Paddle's StaticFunction refuses a method bound to anything but a Layer, at decoration
                raise TypeError(NOT_A_LAYER_MESSAGE)
            sf = StaticFunction(fn.__func__, input_spec, build_strategy, full_graph, fallback, property=is_property)
            return sf.__get__(fn.__self__)
        if not callable(fn):
            raise TypeError(f"to_static: expected a function, a method or a Layer, got {type(fn).__name__}")
        return StaticFunction(fn, input_spec, build_strategy, full_graph, fallback, property=is_property)

    if function is not None:
        return decorate(function)
    return decorate


def not_to_static(func=None):
    """Mark ``func`` so converted code calls it as it is (no conversion of its body)."""
    if func is None:
        return not_to_static
    if isinstance(func, StaticFunction):
        func = func.dygraph_function
    # a bound method (``not_to_static(net.sum)``) marks its function: every call of the method is not converted
    target = func.__func__ if isinstance(func, types.MethodType) else func
    try:
        target._dy2st_not_to_static = True
    except AttributeError:
        pass
    return func
