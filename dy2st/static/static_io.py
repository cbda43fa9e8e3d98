"""``paddle.static`` program and parameter I/O: serialize/deserialize a program (``.pdmodel`` bytes) and its
persistables (``.pdiparams`` bytes), ``save``/``load`` of ``path.pdparams`` / ``.pdopt`` / ``.pdmodel``,
``load_program_state``/``set_program_state``, ``normalize_program`` and the two byte-file helpers.

The files are Paddle's: ``.pdparams`` and ``.pdopt`` are pickled ``{name: ndarray}`` dicts (parameters, and
every other persistable variable: optimizer state, learning rate, global variables), read back through
the restricted unpickler; ``.pdmodel`` is the ProgramDesc protobuf. Values live in the global scope, as
with Paddle's Executor.
"""
from __future__ import annotations

import os
import pickle

import numpy as np

from runtime.formats.errors import ModelFormatError
from runtime.formats.pdiparams import params_to_bytes, read_params
from runtime.formats.pdmodel import parse_program, persistable_specs
from runtime.formats.pdmodel import serialize_program as _program_bytes
from runtime.formats.safe_pickle import safe_loads
from runtime.static import Executor, Parameter, Program, Variable, default_main_program, global_scope
from runtime.static.inference_io import normalize_program as _prune_for_inference

from ._ops import require_static

__all__ = ["serialize_program", "serialize_persistables", "deserialize_program", "deserialize_persistables",
           "save_to_file", "load_from_file", "normalize_program", "save", "load", "load_program_state",
           "set_program_state"]

_SUFFIXES = (".pdparams", ".pdopt", ".pdmodel", ".json")


def _vars(what, vs):
    if isinstance(vs, Variable):
        vs = [vs]
    if not isinstance(vs, (list, tuple)) or not vs or not all(isinstance(v, Variable) for v in vs):
        raise TypeError(f"{what} type must be a Variable or a list of Variable.")
    return list(vs)


def _program(program):
    if program is None:
        return default_main_program()
    program = getattr(program, "_program", program)     # CompiledProgram
    if not isinstance(program, Program):
        raise TypeError(f"program type must be `base.Program`, but received `{type(program)}`")
    return program


def normalize_program(program, feed_vars, fetch_vars, **kwargs):
    """An inference copy of ``program`` pruned to what ``fetch_vars`` need from ``feed_vars`` (Paddle's
    ``normalize_program``). Its feed and fetch names are kept for `serialize_program`."""
    if not isinstance(program, Program):
        raise TypeError(f"program type must be `base.Program`, but received `{type(program)}`")
    feed_vars = _vars("feed_vars", feed_vars)
    fetch_vars = _vars("fetch_vars", fetch_vars)
    if not program.global_block().ops:
        raise ValueError("program must not be empty. at least one operator is required!")
    feeds = [v.name for v in feed_vars]
    pruned, fetches = _prune_for_inference(program, feeds, [v.name for v in fetch_vars])
    pruned._normalized_io = (feeds, fetches)
    return pruned


def _io_names(program):
    return getattr(program, "_normalized_io", ([], []))


def serialize_program(feed_vars, fetch_vars, **kwargs):
    """The ``.pdmodel`` bytes of the (normalized) program that computes ``fetch_vars`` from ``feed_vars``."""
    require_static("serialize_program")
    program = normalize_program(_program(kwargs.get("program")), feed_vars, fetch_vars)
    feeds, fetches = _io_names(program)
    return _program_bytes(program, feeds, fetches)


def _scope_values(program, what):
    scope = global_scope()
    values = {}
    for name, _, _ in persistable_specs(program):
        t = program._eager_bindings.get(name)
        if t is not None:
            values[name] = np.asarray(t._data)
        elif name in scope.vars:
            values[name] = np.asarray(scope.vars[name])
        else:
            raise RuntimeError(f"{what}: persistable variable '{name}' has no value in the global scope; run the "
                               "startup program (exe.run(startup_program)) first")
    return values


def serialize_persistables(feed_vars, fetch_vars, executor, **kwargs):
    """The ``.pdiparams`` bytes (Paddle's ``save_combine`` stream, sorted by name) of the persistable
    variables the normalized program needs; None when it needs none (as Paddle)."""
    require_static("serialize_persistables")
    _executor(executor)
    program = normalize_program(_program(kwargs.get("program")), feed_vars, fetch_vars)
    values = _scope_values(program, "serialize_persistables")
    return params_to_bytes(values) if values else None


def deserialize_program(data):
    """A Program from ``.pdmodel`` bytes (as written by `serialize_program` or real Paddle)."""
    require_static("deserialize_program")
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"deserialize_program: data must be bytes, got {type(data).__name__}")
    program, feeds, fetches = parse_program(bytes(data), "<program bytes>")
    program._normalized_io = (list(feeds), list(fetches))
    return program


def deserialize_persistables(program, data, executor):
    """Put the persistable values in ``data`` (``.pdiparams`` bytes) into the global scope, checked
    against ``program``'s variables (a parameter of another shape is a RuntimeError, as Paddle)."""
    require_static("deserialize_persistables")
    if not isinstance(program, Program):
        raise TypeError(f"program type must be `base.Program`, but received `{type(program)}`")
    _executor(executor)
    specs = persistable_specs(program)
    if data is None:
        if any(isinstance(program.global_block()._find_var_recursive(n), Parameter) for n, _, _ in specs):
            raise ValueError("Required 'data' shall be not None if program contains parameter, but received "
                             "'data' is None.")
        return None
    # the stream has no names: read it with the program's order, then check the shapes it recorded
    values = read_params(bytes(data), [(n, c, [-1] * len(d)) for n, c, d in specs], "<persistables bytes>")
    for name, _, dims in specs:
        shape = tuple(values[name].shape)
        if len(dims) == len(shape) and all(d < 0 or d == s for d, s in zip(dims, shape)):
            continue
        raise RuntimeError(f"Shape mismatch, program needs a parameter with shape ({tuple(dims)}), but the loaded "
                           f"parameter ('{name}') has a shape of ({shape}).")
    scope = global_scope()
    for name, value in values.items():
        scope.vars[name] = value
    return None


def save_to_file(path, content):
    """Write ``content`` (bytes) to ``path``."""
    if not isinstance(content, bytes):
        raise ValueError("'content' type should be bytes.")
    with open(path, "wb") as f:
        f.write(content)


def load_from_file(path):
    """The bytes of the file at ``path``."""
    with open(path, "rb") as f:
        return f.read()


def _executor(executor):
    if executor is not None and not isinstance(executor, Executor):
        raise TypeError(f"executor must be a paddle.static.Executor, got {type(executor).__name__}")


def _prefix(model_path):
    p = os.fspath(model_path)
    for suffix in _SUFFIXES:
        if p.endswith(suffix):
            return p[:-len(suffix)]
    return p


def _split_persistables(program):
    """(parameter names, other persistable names) of ``program``, in order of appearance."""
    params, others = [], []
    for name, _, _ in persistable_specs(program):
        var = program.global_block()._find_var_recursive(name)
        (params if isinstance(var, Parameter) else others).append(name)
    return params, others


def save(program, model_path, protocol=4, **configs):
    """Write ``model_path.pdparams`` (parameters), ``.pdopt`` (every other persistable variable: optimizer
    accumulators, learning rate, global variables) and ``.pdmodel`` (the whole program), as Paddle does."""
    require_static("save")
    program = _program(program)
    if os.path.basename(os.fspath(model_path)) == "":
        raise AssertionError("The input model_path MUST be format of dirname/filename [dirname\\filename in "
                             "Windows system], but received model_path is empty string.")
    protocol = configs.get("pickle_protocol", protocol)
    if isinstance(protocol, bool) or not isinstance(protocol, int):
        raise ValueError(f"The 'protocol' MUST be `int`, but received {type(protocol)}")
    if protocol < 2 or protocol > 4:
        raise ValueError(f"Expected 1<'protocol'<5, but received protocol={protocol}")
    model_path = os.fspath(model_path)
    d = os.path.dirname(model_path)
    if d and not os.path.exists(d):
        os.makedirs(d)
    values = _scope_values(program, "save")
    params, others = _split_persistables(program)
    with open(model_path + ".pdparams", "wb") as f:
        pickle.dump({n: values[n] for n in params}, f, protocol=protocol)
    with open(model_path + ".pdopt", "wb") as f:
        pickle.dump({n: values[n] for n in others}, f, protocol=protocol)
    with open(model_path + ".pdmodel", "wb") as f:
        f.write(_program_bytes(program))


def _read_state(path):
    with open(path, "rb") as f:
        data = f.read()
    state = safe_loads(data, encoding="latin1")
    if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
        raise ModelFormatError("expected a pickled dict of name -> ndarray", path)
    out = {}
    for k, v in state.items():
        if isinstance(v, tuple) and len(v) == 2 and isinstance(v[1], np.ndarray):   # (name, array) entries
            v = v[1]
        if not isinstance(v, np.ndarray):
            raise ModelFormatError(f"entry '{k}' is a {type(v).__name__}, not an array", path)
        out[k] = v
    return out


def load_program_state(model_path, var_list=None):
    """``{name: ndarray}`` from ``model_path.pdparams`` and, when present, ``model_path.pdopt``."""
    prefix = _prefix(model_path)
    params_file = prefix + ".pdparams"
    if not os.path.exists(params_file):
        raise ValueError(f"load_program_state: '{params_file}' not found; only files written by "
                         "paddle.static.save (or paddle.save of a state dict) are supported here")
    state = _read_state(params_file)
    if os.path.exists(prefix + ".pdopt"):
        state.update(_read_state(prefix + ".pdopt"))
    if var_list is not None:
        names = {v.name if isinstance(v, Variable) else str(v) for v in var_list}
        state = {k: v for k, v in state.items() if k in names}
    return state


def set_program_state(program, state_dict):
    """Put the arrays of ``state_dict`` into the global scope for ``program``'s persistable variables (each
    must exist there already: run the startup program first). Shape or dtype mismatches raise
    AssertionError as in Paddle; names the program does not have are ignored with a warning."""
    require_static("set_program_state")
    program = _program(program)
    scope = global_scope()
    used = set()
    for name, _, _ in persistable_specs(program):
        if name not in state_dict:
            continue
        if name not in scope.vars and name not in program._eager_bindings:
            raise AssertionError(f"Variable [ {name} ] Not found, Please make sure run startup program")
        cur = program._eager_bindings[name]._data if name in program._eager_bindings else scope.vars[name]
        cur = np.asarray(cur)
        new = _fit_scalar(np.asarray(state_dict[name]), cur.shape)
        if cur.shape != new.shape:
            raise AssertionError(f"Parameter's shape does not match, the Program requires a parameter with the "
                                 f"shape of ({cur.shape}), while the loaded parameter (namely [ {name} ]) has a "
                                 f"shape of  ({new.shape}).")
        if cur.dtype != new.dtype:
            raise AssertionError(f"Parameter's data type does not match, the Program requires a parameter with a "
                                 f"dtype of ({cur.dtype}), while the loaded parameter (namely [ {name} ]) has a "
                                 f"dtype of  ({new.dtype}).")
        if name in program._eager_bindings:
            program._eager_bindings[name]._data = new.copy()
        else:
            scope.vars[name] = new.copy()
        used.add(name)
    unused = [k for k in state_dict if k not in used]
    if unused:
        import warnings
        warnings.warn(f"These variables are not used in the program: {unused}")


def load(program, model_path, executor=None, var_list=None):
    """Load what `save` wrote for ``program`` (``model_path`` may carry a .pdparams/.pdopt/.pdmodel suffix);
    a missing ``.pdopt`` is fine (a program saved without optimizer state)."""
    require_static("load")
    _executor(executor)
    program = _program(program)
    prefix = _prefix(model_path)
    if not os.path.exists(prefix + ".pdparams"):
        raise ValueError(f"load: '{prefix}.pdparams' not found; only files written by paddle.static.save are "
                         "supported (not the old save_params / save_persistables directories)")
    params, others = _split_persistables(program)
    state = _read_state(prefix + ".pdparams")
    missing = [n for n in params if n not in state]
    if missing:
        raise RuntimeError(f"Parameter(s) {missing} not found in the saved file {prefix}.pdparams")
    if others and os.path.exists(prefix + ".pdopt"):
        opt = _read_state(prefix + ".pdopt")
        state.update({k: v for k, v in opt.items() if k in others})
    _set_all(program, {k: v for k, v in state.items() if k in set(params) | set(others)})


def _fit_scalar(value, shape):
    """A one-element value given as [] for a [1] variable or the reverse (Paddle 3 keeps its learning rate
    0-d, ours is [1]): reshaped; anything else is returned unchanged for the caller's shape check."""
    if value.size == 1 and tuple(value.shape) != tuple(shape) and \
            all(d in (1, -1) for d in shape) and len(shape) <= 1 and value.ndim <= 1:
        return value.reshape([1] * len(shape))
    return value


def _set_all(program, values):
    scope = global_scope()
    for name, value in values.items():
        var = program.global_block()._find_var_recursive(name)
        value = _fit_scalar(np.asarray(value), tuple(var.shape))
        if list(value.shape) != [d if d >= 0 else s for d, s in zip(var.shape, value.shape)] or \
                len(value.shape) != len(var.shape):
            raise RuntimeError(f"Shape mismatch, program needs a parameter with shape ({tuple(var.shape)}), but "
                               f"the loaded parameter ('{name}') has a shape of ({tuple(value.shape)}).")
        value = value.astype(var.dtype.np, copy=False)
        if name in program._eager_bindings:
            program._eager_bindings[name]._data = value.copy()
        else:
            scope.vars[name] = value.copy()
