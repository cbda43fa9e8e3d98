"""Whole inference models: write and read the .pdmodel / .pdiparams / .pdiparams.info trio.

`save_model` writes the three files as one crash-safe set (`runtime.utils.file_set`):
temporaries beside them, then a hidden commit journal ``.BASENAME.dy2st-commit`` whose atomic
rename decides old or new, then the renames. `load_model` first rolls an interrupted,
committed save forward (or, in a directory it cannot write, reads the set the journal names
without writing), so after a crash at any moment it reads either the complete old model or
the complete new one, never a mix, and it removes the temporaries a killed save left; a
journal that cannot be read is a `ModelFormatError` naming it. `load_model` then reads and
checks everything (protobuf, program consistency, every tensor against its VarDesc, the info pickle)
before returning; it touches no global state, so a failed load changes nothing. Every
problem is a `ModelFormatError` naming the file.
"""
from __future__ import annotations

import contextlib
import os
from typing import NamedTuple

import numpy as np

from ..utils.file_set import FileSet, FileSetError
from ..static.program import Parameter
from .errors import ModelFormatError, UnsafeInfoError
from .pdiparams import code_of_dtype, info_to_bytes, params_to_bytes, read_info, read_params
from .pdmodel import parse_program, persistable_specs, serialize_program

__all__ = ["save_model", "load_model", "load_model_from_bytes", "LoadedModel", "ModelFormatError",
           "UnsafeInfoError", "model_paths", "model_file_set", "pir_model_path", "program_path"]

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
    """``(prefix.pdmodel, prefix.pdiparams, prefix.pdiparams.info)``."""
    prefix = os.fspath(prefix)
    return prefix + ".pdmodel", prefix + ".pdiparams", prefix + ".pdiparams.info"


def model_file_set(prefix):
    """The files of ``prefix`` as a `FileSet`; its journal is ``.BASENAME.dy2st-commit`` beside it.

    Rename order: .pdiparams.info, .pdiparams, then the program (.json or .pdmodel), so a first save's
    program file (the file tools look for) appears only after the files it needs."""
    mp, pp, ip = model_paths(prefix)
    # the PIR program (prefix.json) is a member too: a save in either format removes the other's
    # program file in the same commit, so a prefix never holds two programs for one .pdiparams
    return FileSet([ip, pp, pir_model_path(prefix), mp], os.path.basename(os.fspath(prefix)))


def pir_model_path(prefix):
    """``prefix.json``: where Paddle 3's default (PIR) format keeps the program."""
    return os.fspath(prefix) + ".json"


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
               training_info=True, format="pdmodel"):
    """Write ``prefix``.pdmodel / .pdiparams / .pdiparams.info for ``program``.

    ``feed_names``: the input variables, in argument order; ``fetch_vars``: output Variables
    or names, in order; ``params``: name -> ndarray for every persistable variable (a
    parameter-less program writes a 0-byte .pdiparams, which every Paddle loader accepts).
    ``info``: the .pdiparams.info dict (default: built from the program); ``write_info=False``
    writes no info file and removes a stale one (as ``paddle.static.save_inference_model``).
    ``format="pir"`` writes Paddle 3's default format instead: ``prefix.json`` (the PIR program,
    `runtime.formats.pir_write`) and ``prefix.pdiparams`` (none for a parameter-less program), and no
    .pdiparams.info (as Paddle 3)."""
    if format not in ("pdmodel", "pir"):
        raise ValueError(f"save_model: format must be 'pdmodel' or 'pir', got {format!r}")
    from ..autograd_pylayer_static import refuse_save
    refuse_save(program, "save_model (jit.save / save_inference_model)")    # a PyLayer is a Python callback
    feed_names = [_fetch_name(n) for n in feed_names]
    fetch_names = [_fetch_name(v) for v in fetch_vars]
    specs = persistable_specs(program)
    missing = [n for n, _, _ in specs if n not in params]
    if missing:
        raise ValueError(f"save_model: no value for the persistable variable(s) {missing}: a parameter gets its "
                         "value from the startup program (run it first) or from its Layer; one created while the "
                         "program was being built, e.g. a Layer constructed inside a to_static function, has none "
                         "(real Paddle cannot save or run such a program either): create layers in __init__")
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
    mp, pp, ip = model_paths(prefix)
    jp = pir_model_path(prefix)
    if format == "pir":
        from .pir_write import serialize_pir_program
        contents = {jp: serialize_pir_program(program, feed_names, fetch_names)}
        # Paddle 3 writes no .pdiparams for a parameter-less program, and its PIR loader rejects an empty
        # one ("Expected out->size() > 0"): write none, and remove a stale one in the same commit
        if arrays:
            contents[pp] = params_to_bytes(arrays)
        try:
            model_file_set(prefix).write(contents, remove=(mp, ip) if arrays else (mp, ip, pp))
        except FileSetError as e:
            raise ModelFormatError(e.message, e.path) from None
        return
    model_bytes = serialize_program(program, feed_names, fetch_names, training_info=training_info)
    contents = {mp: model_bytes, pp: params_to_bytes(arrays)}
    if write_info:
        contents[ip] = info_to_bytes(default_info(program) if info is None else info)
    file_set = model_file_set(prefix)
    try:
        # one commit for the set: a stale .info is removed in the same step as the new files appear
        file_set.write(contents, remove=(jp,) if write_info else (ip, jp))
    except FileSetError as e:
        raise ModelFormatError(e.message, e.path) from None


def _read(path, what, required=True, view=None):
    """The bytes of ``path`` (read from ``view[path]`` when a `FileSet` view maps it elsewhere)."""
    source = path if view is None else view.get(path, path)
    try:
        if source is None:
            raise FileNotFoundError(path)       # the committed save removed this file
        with open(source, "rb") as f:
            return f.read()
    except FileNotFoundError:
        if not required:
            return None
        raise ModelFormatError(f"{what} file not found", path) from None
    except IsADirectoryError:
        raise ModelFormatError(f"{what} path is a directory", path) from None
    except PermissionError:
        raise ModelFormatError(f"{what} file is not readable (permission denied): check the "
                               f"file's owner and mode", path) from None
    except OSError as e:                        # EIO, ENAMETOOLONG, ELOOP, ...: still the loader's one error
        raise ModelFormatError(f"{what} file could not be read ({e.strerror or e})", path) from None


def load_model(prefix, *, model_path=None, params_path=None, info_path=None) -> LoadedModel:
    """Read and check ``prefix``.pdmodel / .pdiparams / (.pdiparams.info, optional), or Paddle 3's default
    ``prefix``.json (PIR program, `runtime.formats.pir_json`) / .pdiparams when there is no .pdmodel.

    A missing .pdiparams is accepted for a program with no persistable variables. When the files
    are one prefix's trio, an interrupted save is recovered first (see the module docstring), and the
    files are read under the directory's shared lock, so a concurrent save cannot mix the set."""
    mp, pp, ip = model_paths(prefix) if prefix is not None else (None, None, None)
    mp, pp, ip = (os.fspath(p) if isinstance(p, os.PathLike) else p
                  for p in (model_path or mp, params_path or pp, info_path or ip))
    file_set = _file_set_of(mp, pp, ip)
    try:
        with (file_set.reading() if file_set is not None else contextlib.nullcontext(None)) as view:
            if prefix is not None and model_path is None:
                mp, ip = _program_of_prefix(os.fspath(prefix), mp, ip, view)
            model = _read(mp, "model (.pdmodel, or Paddle 3's PIR .json)" if mp.endswith(".pdmodel")
                          else "model (PIR .json)", view=view)
            params = _read(pp, "parameters (.pdiparams)", required=False, view=view)
            info = _read(ip, "parameter info (.pdiparams.info)", required=False, view=view) if ip else None
    except FileSetError as e:
        raise ModelFormatError(e.message, e.path) from None
    return load_model_from_bytes(model, params, info, model_path=mp, params_path=pp, info_path=ip)


def _program_of_prefix(prefix, mp, ip, view):
    """``(program path, info path)`` for a prefix: its .pdmodel, or its PIR .json (Paddle 3's default
    format, read without a .pdiparams.info, as Paddle does) when only that exists. Both exist only when
    another program wrote them (our saves remove the other format's file): the newer one is the model."""
    jp = pir_model_path(prefix)
    where = (lambda p: p) if view is None else (lambda p: view.get(p, p))
    legacy, pir = where(mp), where(jp)
    has_legacy = legacy is not None and os.path.isfile(legacy)
    has_pir = pir is not None and os.path.isfile(pir)
    if has_pir and (not has_legacy or os.stat(pir).st_mtime_ns > os.stat(legacy).st_mtime_ns):
        return jp, None
    return mp, ip


def program_path(prefix):
    """The program file `load_model` reads for ``prefix``: ``prefix.pdmodel`` or ``prefix.json``."""
    mp, _, ip = model_paths(prefix)
    return _program_of_prefix(os.fspath(prefix), mp, ip, None)[0]


def _file_set_of(mp, pp, ip):
    """The `FileSet` of the prefix whose trio these paths are, or None for other names (e.g. an old
    ``__model__`` / ``__params__`` pair, which no save of ours writes)."""
    if isinstance(mp, str) and mp.endswith(".json") and pp == mp[:-len(".json")] + ".pdiparams":
        return model_file_set(mp[:-len(".json")])
    if not isinstance(mp, str) or not mp.endswith(".pdmodel"):
        return None
    prefix = mp[:-len(".pdmodel")]
    trio = model_paths(prefix)
    if pp != trio[1] or ip not in (None, trio[2]):
        return None
    return model_file_set(prefix)


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


def _parse_any(model, model_path):
    """``(program, feeds, fetches)`` from .pdmodel protobuf bytes or a PIR .json program (told apart by
    the name, or for in-memory bytes by the content: a ProgramDesc never starts with ``{``)."""
    from .pir_json import is_pir_json, parse_pir_program
    if (isinstance(model_path, str) and model_path.endswith(".json")) or is_pir_json(model):
        return parse_pir_program(model, model_path)
    return parse_program(model, model_path)


def _load(model, params, info, model_path, params_path, info_path):
    program, feed_names, fetch_names = _parse_any(model, model_path)
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
