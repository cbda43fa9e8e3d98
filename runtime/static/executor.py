"""Executor: run a Program's global block with feeds, return fetched values.

(First version: runs through the interpreter. The compiled fast path, pruning and feed
checks are layered on top of this interface.)
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .interpreter import run_block
from .program import Variable, default_main_program
from .scope import global_scope


def _fetch_name(f):
    if isinstance(f, Variable):
        return f.name
    if isinstance(f, str):
        return f
    raise TypeError(f"fetch_list entries must be Variables or variable names, got {type(f).__name__}")


class Executor:
    """``paddle.static.Executor(place)``: ``run(program, feed, fetch_list)``."""

    def __init__(self, place=None):
        self.place = place

    def run(self, program=None, feed=None, fetch_list=None, feed_var_name="feed", fetch_var_name="fetch",
            scope=None, return_numpy=True, use_program_cache=False, use_prune=False):
        program = default_main_program() if program is None else program
        scope = global_scope() if scope is None else scope
        fetch_list = [] if fetch_list is None else (fetch_list if isinstance(fetch_list, (list, tuple))
                                                    else [fetch_list])
        env = load_persistables(program, scope)
        for name, value in (feed or {}).items():
            env[name] = value._data if isinstance(value, Tensor) else np.asarray(value)
        run_block(program.global_block(), env)
        store_persistables(program, scope, env)
        outs = []
        for f in fetch_list:
            name = _fetch_name(f)
            if name not in env:
                raise ValueError(f"fetch: variable '{name}' was not computed by this run of the program")
            outs.append(env[name] if return_numpy else Tensor._wrap(env[name]))
        return outs

    def close(self):
        pass


def load_persistables(program, scope):
    env = {}
    for name, v in program.global_block().vars.items():
        if v.persistable and name in scope.vars:
            env[name] = scope.vars[name]
    for name, t in program._eager_bindings.items():
        env[name] = t._data
    return env


def store_persistables(program, scope, env):
    bindings = program._eager_bindings
    for name, v in program.global_block().vars.items():
        if v.persistable and name in env:
            t = bindings.get(name)
            if t is not None:
                t._data = env[name]
            else:
                scope.vars[name] = env[name]
