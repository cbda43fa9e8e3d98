"""paddle.static.save_inference_model / load_inference_model over the Paddle file formats.

Saving clones the program for inference, prunes it to what the fetches need (dropping
the sub-blocks and variables nothing uses any more) and writes ``prefix.pdmodel`` and
``prefix.pdiparams`` with parameter values from the eager bindings or the global scope.
Loading reads and checks both files before it puts the parameters in the global scope; the program
may be a .pdmodel or Paddle 3's PIR .json (``legacy_format=False`` or ``FLAGS_enable_pir_api`` saves one).
"""
from __future__ import annotations

import os

import numpy as np

from ..formats.model_io import load_model, load_model_from_bytes, save_model
from ..formats.pdmodel import persistable_specs
from .program import Program, Variable, default_main_program
from .prune import op_reads_writes
from .scope import global_scope

__all__ = ["save_inference_model", "load_inference_model", "normalize_program"]

_SAVE_KWARGS = ("program", "clip_extra", "legacy_format")
_LOAD_KWARGS = ("model_filename", "params_filename")


def _check_vars(what, vs):
    if isinstance(vs, Variable):
        return [vs]
    if isinstance(vs, (list, tuple)) and vs and all(isinstance(v, Variable) for v in vs):
        return list(vs)
    raise ValueError(f"'{what}' should be a Variable or a list of Variable, got "
                     f"{type(vs).__name__ if not isinstance(vs, (list, tuple)) else [type(v).__name__ for v in vs]}")


def _check_kwargs(api, kwargs, supported):
    unknown = sorted(set(kwargs) - set(supported))
    if unknown:
        raise ValueError(f"{api}: unsupported keyword argument(s) {unknown}; supported: {list(supported)}")


def _normalize_prefix(path_prefix):
    if not isinstance(path_prefix, (str, os.PathLike)):
        raise ValueError(f"path_prefix should be a string, got {type(path_prefix).__name__}")
    p = os.fspath(path_prefix)
    if p == "" or p.endswith(("/", os.sep)) or os.path.isdir(p):
        raise ValueError(f"'{p}' is a directory; path_prefix should be a directory path plus a file name "
                         "prefix, e.g. './infer_model/model'")
    return os.path.normpath(p)


def normalize_program(program, feed_names, fetch_names):
    """``(program, fetch_names)``: an inference copy of ``program`` (test mode, only the ops the fetches
    need, no unused blocks/vars) and the names to fetch from it (a fetched input is fetched from a copy)."""
    p = program.clone(for_test=True)
    fetch_names = _copy_overwritten_feeds(p, feed_names, fetch_names)
    gb = p.global_block()
    feeds = set(feed_names)
    needed = set(fetch_names) - feeds
    kept = []
    for op in reversed(gb.ops):
        reads, writes = op_reads_writes(op)
        if any(w in needed for w in writes):
            kept.append(op)
            needed.update(r for r in reads if r not in feeds)
    gb.ops = kept[::-1]
    # keep the blocks reachable from the kept ops, renumbered in their old order
    reach, todo = set(), [0]
    while todo:
        b = todo.pop()
        if b in reach:
            continue
        reach.add(b)
        for op in p.blocks[b].ops:
            todo.extend(op.sub_block_ids())
    new_idx = {old: new for new, old in enumerate(sorted(reach))}
    blocks = [p.blocks[i] for i in sorted(reach)]
    for blk in blocks:
        blk.idx = new_idx[blk.idx]
        blk.parent_idx = new_idx.get(blk.parent_idx, -1)
        for op in blk.ops:
            for name, (typ, _) in op.opdef.attrs.items():
                if typ == "BLOCK" and op.attrs.get(name) is not None:
                    op.attrs[name] = new_idx[op.attrs[name]]
                elif typ == "BLOCKS" and op.attrs.get(name):
                    op.attrs[name] = [new_idx[i] for i in op.attrs[name]]
    p.blocks = blocks
    p.current_block_idx = 0
    used = set(feed_names) | set(fetch_names)
    for blk in blocks:
        for op in blk.ops:
            used.update(op.input_arg_names)
            used.update(op.output_arg_names)
    for blk in blocks:
        for name in [n for n in blk.vars if n not in used]:
            del blk.vars[name]
    p._eager_bindings = {n: t for n, t in p._eager_bindings.items() if n in used}
    p._bump()
    return p, fetch_names


def _copy_overwritten_feeds(p, feed_names, fetch_names):
    """Give every input that an op overwrites (a while_loop over a fed variable) or that is fetched
    itself a working copy: ``assign(x) -> x.tmp_in`` first, and every op uses the copy.
    paddle.jit.load returns such a fetch unchanged otherwise."""
    from .. import unique_name
    gb = p.global_block()
    written = {n for blk in p.blocks for op in blk.ops for n in op.output_arg_names}
    new_fetch = list(fetch_names)
    for name in feed_names:
        if name not in written and name not in fetch_names:
            continue
        v = gb.vars[name]
        copy = unique_name.generate(name + ".tmp_in")
        gb.create_var(name=copy, shape=v.shape, dtype=v.dtype, stop_gradient=v.stop_gradient)
        for blk in p.blocks:
            for op in blk.ops:
                op._rename_input(name, copy)
                op._rename_output(name, copy)
        gb.append_op("assign", {"X": [name]}, {"Out": [copy]}, callstack=[])
        gb.ops.insert(0, gb.ops.pop())
        new_fetch = [copy if n == name else n for n in new_fetch]
    return new_fetch


def _param_values(program, scope):
    values = {}
    for name, _, _ in persistable_specs(program):
        t = program._eager_bindings.get(name)
        if t is not None:
            values[name] = np.asarray(t._data)
        elif name in scope.vars:
            values[name] = np.asarray(scope.vars[name])
        else:
            raise RuntimeError(f"save_inference_model: persistable variable '{name}' has no value in the scope; "
                               "run the startup program (exe.run(startup_program)) before saving")
    return values


def save_inference_model(path_prefix, feed_vars, fetch_vars, executor, **kwargs):
    """Write ``path_prefix``.pdmodel and ``path_prefix``.pdiparams, pruned to ``fetch_vars``.

    ``program`` (kwarg): the Program to save (default: the default main program)."""
    _check_kwargs("save_inference_model", kwargs, _SAVE_KWARGS)
    prefix = _normalize_prefix(path_prefix)
    feed_vars = _check_vars("feed_vars", feed_vars)
    fetch_vars = _check_vars("fetch_vars", fetch_vars)
    program = kwargs.get("program")
    program = default_main_program() if program is None else getattr(program, "_program", program)
    if not isinstance(program, Program):
        raise TypeError(f"save_inference_model: program must be a paddle.static.Program, got "
                        f"{type(program).__name__}")
    gb = program.global_block()
    for v in feed_vars + fetch_vars:
        if gb._find_var_recursive(v.name) is None:
            raise ValueError(f"save_inference_model: variable '{v.name}' is not in the program being saved")
    feed_names = [v.name for v in feed_vars]
    fetch_names = [v.name for v in fetch_vars]
    pruned, fetch_names = normalize_program(program, feed_names, fetch_names)
    # legacy_format=False (Paddle's option) or FLAGS_enable_pir_api: Paddle 3's prefix.json + .pdiparams
    legacy = kwargs.get("legacy_format")
    if legacy is None:
        from ..flags import pir_format_enabled
        legacy = not pir_format_enabled()
    save_model(prefix, pruned, feed_names, fetch_names, _param_values(pruned, global_scope()), write_info=False,
               format="pdmodel" if legacy else "pir")


def load_inference_model(path_prefix, executor, **kwargs):
    """``[program, feed_target_names, fetch_targets]`` of a saved inference model; the parameters go
    into the global scope (only after both files have been read and checked)."""
    _check_kwargs("load_inference_model", kwargs, _LOAD_KWARGS)
    model_filename, params_filename = kwargs.get("model_filename"), kwargs.get("params_filename")
    if path_prefix is None:
        # the deprecated in-memory form: the two arguments hold the files' bytes
        if params_filename is None:
            raise ValueError("params_filename cannot be None when path_prefix is None.")
        loaded = load_model_from_bytes(model_filename, params_filename)
    else:
        prefix = os.path.normpath(os.fspath(path_prefix))
        if not kwargs:
            d = os.path.dirname(prefix)
            if d and not os.path.isdir(d):
                raise ValueError(f"There is no directory named {d}")
            loaded = load_model(prefix)
        else:
            # the old form: path_prefix is a directory, the files are named by the kwargs
            def pick(name, ext, default):
                if name is None:
                    return os.path.join(prefix, default)
                p = os.path.join(prefix, name + ext)
                if not os.path.exists(p) and ext == ".pdmodel" and os.path.exists(p[:-len(ext)] + ".json"):
                    p = p[:-len(ext)] + ".json"      # Paddle 3's PIR program
                return p if os.path.exists(p) else os.path.join(prefix, name)
            loaded = load_model(None, model_path=pick(model_filename, ".pdmodel", "__model__"),
                                params_path=pick(params_filename, ".pdiparams", "__params__"))
    scope = global_scope()
    for name, value in loaded.params.items():
        scope.vars[name] = value
    gb = loaded.program.global_block()
    return [loaded.program, list(loaded.feed_names), [gb.var(n) for n in loaded.fetch_names]]
