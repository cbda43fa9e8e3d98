"""``_jst.Call(f)``: what a call in converted code really calls.

- user functions and methods: their converted versions (recursively, cached per code
  object), so control flow inside callees is staged too;
- Layers whose ``forward`` is user code (and containers of them): called through the Layer
  machinery (hooks included) with the converted forward;
- builtins with tensor meaning (``print``, ``len``, ``int``, ``float``, ``bool``, ``range``,
  ``enumerate``, ``zip``): their converters;
- ``paddle.stack`` / ``paddle.concat`` on lists built in tensor loops: tensor-array reads;
- ``Variable.numpy()``: the Variable itself (so ``if x.numpy() > 0`` still stages a cond);
- everything else (framework and numpy functions, classes, builtins, functions marked
  ``not_to_static``, modules given to ``ignore_module``) unchanged.
"""
from __future__ import annotations

import builtins
import functools
import inspect
import types

import numpy as np

from runtime.static.program import Variable

from . import mutation_log

_BUILTIN_MODULE_PREFIXES = ("runtime", "dy2st", "numpy", "builtins", "gast", "astor", "functools", "itertools",
                            "collections", "typing", "abc", "math", "copy", "re", "os", "sys", "inspect", "warnings",
                            "contextlib", "logging", "enum", "dataclasses", "random", "_", "paddle", "torch", "scipy")
_ignored_modules = set()


def ignore_module(modules):
    """``paddle.jit.ignore_module``: functions from these modules are never converted."""
    for m in modules:
        _ignored_modules.add(m.__name__ if isinstance(m, types.ModuleType) else str(m))


def _is_library(fn):
    mod = getattr(fn, "__module__", None) or ""
    root = mod.split(".")[0]
    if mod in _ignored_modules or root in _ignored_modules or any(mod.startswith(m + ".") for m in _ignored_modules):
        return True
    if root in ("runtime", "dy2st") and not mod.startswith("dy2st.examples"):
        return True
    return root in _BUILTIN_MODULE_PREFIXES and root not in ("__main__",)


def _builtin_converters():
    from . import convert_ops as c
    return {builtins.print: c.convert_print, builtins.len: c.convert_len, builtins.int: c.convert_int,
            builtins.float: c.convert_float, builtins.bool: c.convert_bool, builtins.complex: c.convert_complex,
            builtins.range: c.convert_range,
            builtins.enumerate: c.convert_enumerate, builtins.zip: c.convert_zip}


_BUILTINS = None


def _array_aware(fn, use_stack):
    @functools.wraps(fn)
    def wrapper(x, axis=0, name=None):
        from .loop_lowering import TensorArrayList
        from .undefined import is_undefined
        if isinstance(x, TensorArrayList):
            return x.to_tensor(axis=axis, use_stack=use_stack)
        if is_undefined(x):
            x._fail()       # says why the list is undefined here (e.g. branches left it a list and an array)
        return fn(x, axis=axis, name=name)
    return wrapper


def Call(f):
    global _BUILTINS
    if _BUILTINS is None:
        _BUILTINS = _builtin_converters()
    try:
        conv = _BUILTINS.get(f)
    except TypeError:   # unhashable callables
        conv = None
    if conv is not None:
        return conv
    if type(f) is types.BuiltinMethodType and type(f.__self__) in (list, dict) and f.__name__ in _MUTATORS:
        return _recorded(f)
    from .static_function import StaticFunction
    if isinstance(f, StaticFunction):
        # a to_static function called from converted code: inline its converted body
        return f._converted_callable()
    if getattr(f, "_dy2st_not_to_static", False):
        return f
    from .conversion import is_converted
    if is_converted(f):
        return f
    if isinstance(f, types.MethodType):
        self_, func = f.__self__, f.__func__
        if isinstance(self_, Variable) and func.__name__ == "numpy":
            return lambda: self_
        if isinstance(self_, Variable) and func.__name__ == "item":
            return lambda *index: _variable_item(self_, index)
        if getattr(func, "_dy2st_not_to_static", False) or not _convertible(func):
            return f
        if _is_library(func) and not _wraps_user_code(func):
            return f
        from .conversion import convert_function
        if _is_library(func):
            from .errors import Dy2StaticError
            try:
                return types.MethodType(convert_function(func), self_)
            except Dy2StaticError:
                return f        # a library's wrapper whose decorators cannot be re-applied: as it is
        return types.MethodType(convert_function(func), self_)
    if isinstance(f, functools.partial):
        return functools.partial(Call(f.func), *f.args, **f.keywords)
    from runtime.nn.layer.layers import Layer
    if isinstance(f, Layer):
        return _layer_call(f)
    if isinstance(f, types.FunctionType):
        if _is_library(f) and not _wraps_user_code(f):
            return _library_function(f)
        if not _convertible(f):
            return f
        from .conversion import convert_function
        from .errors import Dy2StaticError
        try:
            return convert_function(f)
        except Dy2StaticError:
            # no usable source (a decorator's wrapper from a library, a dynamically made
            # function): call it as it is, as Paddle does
            return f
    return f


# list / dict methods that change the container in place (see mutation_log)
_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update",
                       "setdefault", "popitem", "__setitem__", "__delitem__", "__iadd__", "__imul__"})


def _recorded(method):
    def call(*args, **kwargs):
        mutation_log.record(method.__self__)
        return method(*args, **kwargs)
    return call


def _wraps_user_code(f):
    """Whether library function ``f`` is a decorator's wrapper (``@paddle.no_grad()``, a
    ``contextlib.contextmanager`` used as a decorator, ...) around a user function: converted as
    Paddle converts a decorated function, the user function under its re-applied decorators."""
    if getattr(f, "__wrapped__", None) is None:
        return False
    from .conversion import unwrap_decorated
    inner = unwrap_decorated(f)
    return (inner is not f and not _is_library(inner) and _convertible(inner)
            and not getattr(inner, "_dy2st_not_to_static", False))


def _library_function(f):
    mod = getattr(f, "__module__", "") or ""
    if mod.startswith("runtime") and f.__name__ in ("stack", "concat"):
        return _array_aware(f, f.__name__ == "stack")
    return f


def _convertible(fn):
    if fn.__name__ == "<lambda>":
        return False
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    # generators are converted too: their conversion only guards if/while tests so a tensor
    # condition fails naming the yield (dy2st/transformers/generators.py)
    if code.co_flags & (inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        return False
    return True


def _layer_call(layer):
    """Call ``layer`` with hooks, running a converted forward when its forward is user code."""
    forward = type(layer).forward
    from runtime.nn.layer.layers import Layer
    from .static_function import StaticFunction
    if isinstance(forward, StaticFunction):
        fwd_fn = forward._converted_callable_unbound()
    elif _is_library(forward) and not _is_container(layer):
        return layer
    elif getattr(forward, "_dy2st_not_to_static", False) or not _convertible(forward):
        return layer
    else:
        from .conversion import convert_function
        fwd_fn = convert_function(forward)

    if type(layer).__call__ is Layer.__call__:
        # the Layer machinery with the converted forward passed in: the instance is not changed, so
        # another thread calling or tracing this layer meanwhile sees its own forward
        def call(*args, **kwargs):
            return layer._call_with_forward(types.MethodType(fwd_fn, layer), args, kwargs)
        return call

    def call_custom(*args, **kwargs):
        # a Layer subclass with its own __call__ reads self.forward: swap it in for the call (not
        # thread-safe for this layer, the price of honouring the override)
        saved = layer.__dict__.get("forward")
        layer.__dict__["forward"] = types.MethodType(fwd_fn, layer)
        try:
            return layer(*args, **kwargs)
        finally:
            if saved is None:
                del layer.__dict__["forward"]
            else:
                layer.__dict__["forward"] = saved
    return call_custom


def _is_container(layer):
    from runtime.nn.layer.container import LayerDict, LayerList, Sequential
    return isinstance(layer, (Sequential, LayerList, LayerDict))


def _variable_item(var, index):
    """``Variable.item(*index)`` in converted code, as Paddle's: the Variable itself (it must hold one
    element), or the element at a flat offset / at one index per dimension, as a 0-D Variable."""
    from runtime.dispatch import run_op
    from runtime.tensor import item_offset
    shape = list(var.shape)
    if any(d < 0 for d in shape):
        if not index:
            return var
        if len(index) != 1:
            raise ValueError(f"Tensor.item{tuple(index)}: a tensor of shape {shape} (unknown dims) takes one flat "
                             "offset")
        offset = int(index[0])
    else:
        offset = item_offset(shape, index)
        if not index:
            return var
    flat = run_op("reshape2", var, shape=[-1])
    return run_op("slice", flat, axes=[0], starts=[offset], ends=[offset + 1], infer_flags=[1], decrease_axis=[0])
