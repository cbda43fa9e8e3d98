"""Executor: run a Program's global block with feeds and return the fetched values.

Two back ends: the compiled fast path (codegen.py: the block as a generated Python
function, pruned to what the fetches need, cached per program version, feeds and fetches)
and the reference interpreter (interpreter.py), chosen with ``Executor(backend=...)`` or
the environment variable ``DY2ST_EXECUTOR=interpreter``. Both check feeds against the
declared data variables the same way.

Threads: one Executor may run programs from several threads. Its caches are filled under a lock
(taken on misses only: a hit is one dict read), so a program is compiled once and no thread
iterates a cache while another changes it. The scope is shared, as in Paddle: runs that write
the same persistable variables from several threads (training) must be serialised by the caller.
"""
from __future__ import annotations

import os
import threading

import numpy as np

from ..ops import blas_threads
from ..tensor import Tensor
from .codegen import UNSET, CompileError, compile_program
from .interpreter import annotate, run_block, run_op
from .program import Variable, default_main_program
from .prune import prune_ops
from .scope import global_scope

BACKENDS = ("compiled", "interpreter")


def _fetch_name(f):
    if isinstance(f, Variable):
        return f.name
    if isinstance(f, str):
        return f
    raise TypeError(f"fetch_list entries must be Variables or variable names, got {type(f).__name__}")


class Executor:
    """``paddle.static.Executor(place)``: ``run(program, feed, fetch_list)``.

    ``backend``: 'compiled' (default) or 'interpreter' (the slow reference); the environment
    variable ``DY2ST_EXECUTOR`` sets the default."""

    def __init__(self, place=None, backend=None):
        self.place = place
        backend = backend or os.environ.get("DY2ST_EXECUTOR") or "compiled"
        if backend not in BACKENDS:
            raise ValueError(f"Executor: backend must be one of {BACKENDS}, got {backend!r}")
        self.backend = backend
        self._cache = {}        # (program id, version, feed names, fetch names, prune) -> CompiledProgram
        self._feed_specs = {}   # (program id, version) -> {name: (np dtype, shape, check)}
        self._lock = threading.Lock()   # held while filling either cache

    # -- public ---------------------------------------------------------------------------------

    def run(self, program=None, feed=None, fetch_list=None, feed_var_name="feed", fetch_var_name="fetch",
            scope=None, return_numpy=True, use_program_cache=False, use_prune=False):
        blas_threads.maybe_recheck()        # the BLAS thread policy (runtime/ops/blas_threads.py)
        program = default_main_program() if program is None else program
        program = getattr(program, "_program", program)   # CompiledProgram wrappers
        scope = global_scope() if scope is None else scope
        if fetch_list is None:
            fetch_names = ()
        elif isinstance(fetch_list, (list, tuple)):
            fetch_names = tuple(_fetch_name(f) for f in fetch_list)
        else:
            fetch_names = (_fetch_name(fetch_list),)
        feed = self._check_feed(program, feed) if feed else {}
        sched = getattr(program, "lr_scheduler", None)
        if sched is not None:
            # as in Paddle: the learning-rate variable takes the scheduler's current value each run
            scope.vars[sched._var_name] = np.asarray(sched(), dtype=np.float32).reshape(
                scope.vars[sched._var_name].shape if sched._var_name in scope.vars else ())
        if self.backend == "interpreter":
            outs = self._run_interpreter(program, feed, fetch_names, scope, use_prune)
        else:
            outs = self._run_compiled(program, feed, fetch_names, scope)
        if return_numpy:
            return list(outs)
        return [Tensor._wrap(o) for o in outs]

    def code(self, program=None, feed_names=None, fetch_names=None):
        """The Python source the compiled back end runs for these feeds and fetches, each op's
        statement annotated with the user's line that built it (`CompiledProgram.listing`).

        ``feed_names`` defaults to the program's ``static.data`` variables (what ``run`` is usually
        fed); without ``fetch_names`` every op is kept (nothing is pruned)."""
        program = default_main_program() if program is None else program
        if feed_names is None:
            feed_names = [v.name for v in program.global_block().vars.values() if v.is_data]
        fetch = tuple(_fetch_name(f) for f in (fetch_names or ()))
        return self._compiled(program, tuple(feed_names), fetch).listing()

    def close(self):
        with self._lock:
            self._cache.clear()

    # -- feeds ------------------------------------------------------------------------------------

    def _check_feed(self, program, feed):
        key = (program.id, program.version)
        specs = self._feed_specs.get(key)
        if specs is None:
            specs = {}
            for blk in program.blocks:
                for name, v in blk.vars.items():
                    specs.setdefault(name, (v.dtype.np, v._shape, v.need_check_feed))
            for name in program._eager_bindings:
                specs.setdefault(name, (None, (), False))
            with self._lock:
                if len(self._feed_specs) > 64:
                    self._feed_specs.clear()
                self._feed_specs[key] = specs
        out = {}
        for name, value in feed.items():
            spec = specs.get(name)
            if spec is None:
                raise ValueError(f"feed: the program has no variable named '{name}' (its data variables are "
                                 f"{sorted(n for n, s in specs.items() if s[2])})")
            dtype, shape, check = spec
            if isinstance(value, Tensor):
                arr = value._data
            elif isinstance(value, np.ndarray):
                arr = value
            elif isinstance(value, (list, tuple, int, float, bool, np.generic)):
                # Python data takes the declared dtype, as in Paddle
                arr = np.asarray(value, dtype=dtype)
            else:
                arr = np.asarray(value)
            if check:
                if arr.dtype != dtype:
                    raise ValueError(f"The data type of fed Variable '{name}' must be '{np.dtype(dtype).name}', "
                                     f"but received '{arr.dtype.name}'")
                if _feed_shape_differs(shape, arr.shape):
                    raise ValueError(f"The fed Variable '{name}' should have dimensions = {len(shape)}, shape = "
                                     f"{tuple(shape)}, but received fed shape {list(arr.shape)} on each device")
            out[name] = arr
        return out

    # -- compiled back end ------------------------------------------------------------------------

    def _compiled(self, program, feed_names, fetch_names):
        key = (program.id, program.version, feed_names, fetch_names)
        c = self._cache.get(key)
        if c is None:
            with self._lock:
                c = self._cache.get(key)    # compiled by another thread while we waited?
                if c is None:
                    # drop code compiled for older versions of this program
                    for k in [k for k in self._cache if k[0] == program.id and k[1] != program.version]:
                        del self._cache[k]
                    try:
                        c = compile_program(program, feed_names, fetch_names)
                    except CompileError as e:
                        raise RuntimeError(str(e)) from None
                    self._cache[key] = c
        return c

    def _run_compiled(self, program, feed, fetch_names, scope):
        c = self._compiled(program, tuple(feed), fetch_names)
        try:
            outs = c.fn(feed, scope.vars, program._eager_bindings)
        except Exception as e:
            site = c.site_of(e.__traceback__)
            if site is not None and site[0] == "load" and isinstance(e, KeyError):
                raise RuntimeError(f"variable '{site[1]}' is persistable but has no value in the scope; run the "
                                   f"startup program first (exe.run(startup_program))") from None
            if site is not None and site[0] == "op":
                annotate(e, site[1])
            raise
        for n, o in zip(fetch_names, outs):
            if o is UNSET:
                raise ValueError(f"fetch: variable '{n}' was not computed by this run of the program")
        return outs

    # -- reference interpreter --------------------------------------------------------------------

    def _run_interpreter(self, program, feed, fetch_names, scope, use_prune):
        env = load_persistables(program, scope)
        env.update(feed)
        block = program.global_block()
        if use_prune and fetch_names:
            for op in prune_ops(block, fetch_names, feed):
                run_op(op, env)
        else:
            run_block(block, env)
        store_persistables(program, scope, env)
        outs = []
        for name in fetch_names:
            if name not in env:
                if program.global_block()._find_var_recursive(name) is None:
                    raise ValueError(f"fetch: variable '{name}' is not in the program")
                raise ValueError(f"fetch: variable '{name}' was not computed by this run of the program")
            outs.append(env[name])
        return outs


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


def _feed_shape_differs(declared, fed):
    """Paddle's ``diff_tensor_shape`` rule (observed on 3.3.1): a feed may have fewer dimensions than
    declared (``[2]`` for ``[-1, 1]``, ``[6]`` for ``[-1, 3]``); its dimensions are compared with the
    leading declared ones (-1 matches any size). More dimensions than declared, or a 0-D feed for a
    declared shape with dimensions, differ."""
    if len(fed) > len(declared) or (len(fed) == 0 and len(declared) > 0):
        return True
    return any(d >= 0 and d != a for d, a in zip(declared, fed))
