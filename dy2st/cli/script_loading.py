"""Import a user's model script from a path, and find ``SCRIPT.py:ATTR`` in it.

The script is imported as a module named after its file (not ``__main__``, so its
``if __name__ == "__main__":`` block does not run), with its directory first on ``sys.path``
so it can import its neighbours. `loaded_script` registers the module in ``sys.modules`` only
while the caller works with it (inspect, pickle and to_static need it there) and restores
``sys.modules`` and ``sys.path`` afterwards.
"""
from __future__ import annotations

import contextlib
import importlib.util
import inspect
import os
import sys

__all__ = ["ScriptError", "loaded_script", "split_target", "resolve", "build_layer", "candidates"]


class ScriptError(Exception):
    """The script cannot be found, imported, or does not hold what was asked for."""


def split_target(target):
    """``"path/mlp.py:MLP"`` -> ``("path/mlp.py", "MLP")``; ``"mlp.py"`` -> ``("mlp.py", None)``."""
    path, sep, attr = target.rpartition(":")
    if not sep or not attr or os.sep in attr or "/" in attr or not path:
        return target, None       # no ATTR (also keeps Windows drive letters intact)
    return path, attr


def _module_name(path):
    stem = os.path.splitext(os.path.basename(path))[0]
    stem = "".join(c if c.isalnum() or c == "_" else "_" for c in stem) or "script"
    if stem[0].isdigit():
        stem = "_" + stem
    # a name already taken (or the framework's own) would shadow a real module
    if stem in sys.modules or stem.split(".")[0] in ("runtime", "dy2st", "paddle"):
        stem = "_dy2st_script_" + stem
    return stem


@contextlib.contextmanager
def loaded_script(path):
    """Import the script at ``path``; yields the module. ``ScriptError`` when it is missing or fails."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ScriptError(f"script not found: {path}")
    if os.path.isdir(path):
        raise ScriptError(f"{path} is a directory; give a Python script (.py file)")
    path = os.path.abspath(path)
    name = _module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ScriptError(f"cannot import {path}: not a Python source file")
    module = importlib.util.module_from_spec(spec)
    saved_path = list(sys.path)
    had = sys.modules.get(name)
    sys.modules[name] = module
    sys.path.insert(0, os.path.dirname(path))
    try:
        try:
            spec.loader.exec_module(module)
        except SyntaxError as e:
            raise ScriptError(f"cannot import {os.path.basename(path)}: syntax error at line {e.lineno}: "
                              f"{e.msg}") from e
        except SystemExit as e:
            raise ScriptError(f"importing {os.path.basename(path)} called sys.exit({e.code}); guard the script's "
                              "main code with `if __name__ == \"__main__\":`") from e
        except Exception as e:
            line = _line_in(e.__traceback__, path)
            at = f" (at {os.path.basename(path)}:{line})" if line else ""
            raise ScriptError(f"importing {os.path.basename(path)} failed: {_one_line(e)}{at}") from e
        yield module
    finally:
        sys.path[:] = saved_path
        if had is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = had


def _line_in(tb, path):
    """The last line of ``path`` in traceback ``tb`` (where the script raised)."""
    line = None
    while tb is not None:
        if os.path.abspath(tb.tb_frame.f_code.co_filename) == path:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _one_line(e):
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0]}" if text else type(e).__name__


def _defined_here(obj, module):
    return getattr(obj, "__module__", None) == module.__name__


def candidates(module):
    """``(layer classes, factory functions, layer instances, to_static functions)`` defined in ``module``."""
    from runtime.nn.layer.layers import Layer

    from ..static_function import StaticFunction
    classes, functions, instances, statics = [], [], [], []
    for name, obj in vars(module).items():
        if name.startswith("_"):
            continue
        if inspect.isclass(obj) and issubclass(obj, Layer) and _defined_here(obj, module):
            classes.append(name)
        elif isinstance(obj, StaticFunction) and _defined_here(obj.dygraph_function, module):
            statics.append(name)
        elif inspect.isfunction(obj) and _defined_here(obj, module):
            functions.append(name)
        elif isinstance(obj, Layer):
            instances.append(name)
    return classes, functions, instances, statics


def _available(module, script):
    classes, functions, instances, statics = candidates(module)
    parts = []
    if classes:
        parts.append("Layer classes: " + ", ".join(classes))
    if instances:
        parts.append("Layer instances: " + ", ".join(instances))
    if functions or statics:
        parts.append("functions: " + ", ".join(statics + functions))
    return "; ".join(parts) if parts else f"{script} defines no Layer class or function"


def resolve(module, attr, script):
    """The object ``attr`` (dots allowed: ``Outer.Inner``) names in ``module``."""
    obj = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ScriptError(f"{script} has no attribute '{attr}' (available: {_available(module, script)})") \
                from None
    return obj


def _required_params(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return []
    return [p.name for p in sig.parameters.values()
            if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD,
                                                                    p.KEYWORD_ONLY)]


def build_layer(module, attr, script):
    """What ``SCRIPT.py:ATTR`` denotes as a model: ``(model, description)``.

    ATTR may be a Layer class with a no-argument constructor (instantiated), a Layer instance, a
    factory function of no arguments returning a Layer, or a function that takes the inputs (a
    to_static function or a plain one: exported as it is). Without ATTR the script must define
    exactly one Layer class."""
    from runtime.nn.layer.layers import Layer

    from ..static_function import StaticFunction
    if attr is None:
        classes, _, _, _ = candidates(module)
        if len(classes) != 1:
            raise ScriptError(f"{script}: say which model to use as {script}:ATTR "
                              f"({_available(module, script)})")
        attr = classes[0]
    obj = resolve(module, attr, script)
    if inspect.isclass(obj):
        if not issubclass(obj, Layer):
            raise ScriptError(f"{script}:{attr} is a class but not a paddle.nn.Layer")
        need = _required_params(obj.__init__)[1:]
        if need:
            raise ScriptError(f"{script}:{attr}() needs argument(s) {', '.join(need)}; give a factory function "
                              f"instead, e.g. `def build(): return {attr}(...)`, and use {script}:build")
        try:
            return obj(), f"{attr}()"
        except Exception as e:
            raise ScriptError(f"{script}:{attr}() failed: {_one_line(e)}") from e
    if isinstance(obj, Layer):
        return obj, attr
    if isinstance(obj, StaticFunction):
        return obj, attr
    if callable(obj):
        need = _required_params(obj)
        if need:
            return obj, attr          # a model function: its parameters are the inputs
        try:
            built = obj()
        except Exception as e:
            raise ScriptError(f"{script}:{attr}() failed: {_one_line(e)}") from e
        if not isinstance(built, (Layer, StaticFunction)):
            raise ScriptError(f"{script}:{attr}() returned {type(built).__name__}, not a paddle.nn.Layer")
        return built, f"{attr}()"
    kind = type(obj).__name__
    raise ScriptError(f"{script}:{attr} is {'an' if kind[0] in 'aeiou' else 'a'} {kind}, not a Layer class, Layer, "
                      "or function "
                      f"(available: {_available(module, script)})")
