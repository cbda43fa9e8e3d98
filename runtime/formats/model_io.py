"""Whole inference models: write and read the .pdmodel / .pdiparams / .pdiparams.info trio.

`save_model` writes all three files to temporary names in the target directory and only
then renames them into place (``os.replace``), so an interrupted save never leaves a
half-written file where a good model was. `load_model` reads and checks everything
(protobuf, program consistency, every tensor against its VarDesc, the info pickle)
before returning; it touches no global state, so a failed load changes nothing. Every
problem is a `ModelFormatError` naming the file.
"""
from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

from ..utils.atomic_write import write_files_atomically
from ..static.program import Parameter
from .errors import ModelFormatError, UnsafeInfoError
from .pdiparams import code_of_dtype, info_to_bytes, params_to_bytes, read_info, read_params
from .pdmodel import parse_program, persistable_specs, serialize_program

__all__ = ["save_model", "load_model", "load_model_from_bytes", "LoadedModel", "ModelFormatError",
           "UnsafeInfoError", "model_paths"]

# load_model turns unexpected exceptions from malformed input into ModelFormatError; tests switch
# this off to find the places that should raise it themselves
_CATCH_ALL = True


class LoadedModel(NamedTuple):
    program: object          # runtime.static.Program (feed/fetch ops removed)
    feed_names: list
    fetch_names: list
    params: dict             # name -> ndarray, every persistable variable of the program
    info: dict               # the .pdiparams.info content ({} when there is none)


def model_paths(prefix):
    prefix = os.fspath(prefix)
    return prefix + ".pdmodel", prefix + ".pdiparams", prefix + ".pdiparams.info"


def _fetch_name(v):
    return v if isinstance(v, str) else v.name


def default_info(program, structured_names=None):
    """The .pdiparams.info Paddle's jit.save writes: one entry per persistable variable."""
    structured_names = structured_names or {}
    info = {}
    for name, _, _ in persistable_specs(program):
        v = program.global_block()._find_var_recursive(name)
        for blk in program.blocks:
            v = blk.vars.get(name, v)
        entry = {"stop_gradient": bool(v.stop_gradient), "structured_name": structured_names.get(name, name)}
        if isinstance(v, Parameter):
            entry["trainable"] = bool(v.trainable)
        info[name] = entry
    return info


def save_model(prefix, program, feed_names, fetch_vars, params, *, info=None, write_info=True,
               training_info=True):
    """Write ``prefix``.pdmodel / .pdiparams / .pdiparams.info for ``program``.

    ``feed_names``: the input variables, in argument order; ``fetch_vars``: output Variables
    or names, in order; ``params``: name -> ndarray for every persistable variable (a
    parameter-less program writes a 0-byte .pdiparams, which every Paddle loader accepts).
    ``info``: the .pdiparams.info dict (default: built from the program); ``write_info=False``
    writes no info file and removes a stale one (as ``paddle.static.save_inference_model``)."""
    feed_names = [_fetch_name(n) for n in feed_names]
    fetch_names = [_fetch_name(v) for v in fetch_vars]
    specs = persistable_specs(program)
    missing = [n for n, _, _ in specs if n not in params]
    if missing:
        raise ValueError(f"save_model: no value for the persistable variable(s) {missing}")
    arrays = {}
    for name, code, dims in specs:
        arr = np.asarray(params[name])
        if code_of_dtype(arr.dtype) != code:
            raise ValueError(f"save_model: parameter '{name}' has dtype {arr.dtype}, but the program declares "
                             f"{program.global_block()._find_var_recursive(name).dtype.name}")
        if len(arr.shape) != len(dims) or any(d >= 0 and d != s for d, s in zip(dims, arr.shape)):
            raise ValueError(f"save_model: parameter '{name}' has shape {list(arr.shape)}, but the program declares "
                             f"{list(dims)}")
        arrays[name] = arr
    model_bytes = serialize_program(program, feed_names, fetch_names, training_info=training_info)
    contents = [(model_paths(prefix)[0], model_bytes), (model_paths(prefix)[1], params_to_bytes(arrays))]
    if write_info:
        contents.append((model_paths(prefix)[2], info_to_bytes(default_info(program) if info is None else info)))
    write_files_atomically(contents)
    if not write_info:
        try:
            os.remove(model_paths(prefix)[2])
        except FileNotFoundError:
            pass


def _read(path, what, required=True):
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        if not required:
            return None
        raise ModelFormatError(f"{what} file not found", path) from None
    except IsADirectoryError:
        raise ModelFormatError(f"{what} path is a directory", path) from None


def load_model(prefix, *, model_path=None, params_path=None, info_path=None) -> LoadedModel:
    """Read and check ``prefix``.pdmodel / .pdiparams / (.pdiparams.info, optional).

    A missing .pdiparams is accepted for a program with no persistable variables."""
    mp, pp, ip = model_paths(prefix) if prefix is not None else (None, None, None)
    mp, pp, ip = model_path or mp, params_path or pp, info_path or ip
    model = _read(mp, "model (.pdmodel)")
    params = _read(pp, "parameters (.pdiparams)", required=False)
    info = _read(ip, "parameter info (.pdiparams.info)", required=False) if ip else None
    return load_model_from_bytes(model, params, info, model_path=mp, params_path=pp, info_path=ip)


def load_model_from_bytes(model, params=None, info=None, *, model_path="<model bytes>",
                          params_path="<params bytes>", info_path="<info bytes>") -> LoadedModel:
    """`load_model` on in-memory file contents (``params``/``info`` None when absent)."""
    try:
        return _load(model, params, info, model_path, params_path, info_path)
    except ModelFormatError:
        raise
    except Exception as e:
        if not _CATCH_ALL:
            raise
        raise ModelFormatError(f"cannot read the model ({type(e).__name__}: {e})", model_path) from e


def _load(model, params, info, model_path, params_path, info_path):
    program, feed_names, fetch_names = parse_program(model, model_path)
    specs = persistable_specs(program)
    if params is None:
        if specs:
            raise ModelFormatError(f"parameters (.pdiparams) file not found; the program needs {len(specs)} "
                                   "persistable variables", params_path)
        params = b""
    values = read_params(params, specs, params_path)
    info_dict = read_info(info, info_path) if info is not None else {}
    if info is not None:
        for name, _, _ in specs:
            entry = info_dict.get(name)
            if entry is None or "stop_gradient" not in entry:
                raise ModelFormatError(f"no entry (with 'stop_gradient') for the persistable variable '{name}'; "
                                       "the model is not complete", info_path)
        _apply_info(program, info_dict)
    return LoadedModel(program, feed_names, fetch_names, values, info_dict)


def _apply_info(program, info):
    """As paddle.jit.load: an info entry with ``trainable`` makes the variable a parameter."""
    for blk in program.blocks:
        for name, v in list(blk.vars.items()):
            entry = info.get(name)
            if not v.persistable or entry is None or isinstance(v, Parameter) or "trainable" not in entry:
                continue
            p = Parameter(blk, name, v.shape, v.dtype, trainable=bool(entry["trainable"]))
            p.stop_gradient = bool(entry.get("stop_gradient", not p.trainable))
            blk.vars[name] = p
    program._bump()
