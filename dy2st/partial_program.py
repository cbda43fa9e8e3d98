"""PartialProgram: a traced static Program called from eager code, as Paddle's ``run_program`` op.

Without gradients the forward Program runs through its compiled function (built once, by the first
call that needs it: a training step never does). Every output gets the stop_gradient of its traced
Variable, as Paddle's run_program sets it (also under no_grad), or False where it is differentiable.
With gradients the outputs come from ONE node of the eager tape: the forward runs a compiled
function that also returns every forward value the backward reads ("saved" values: dropout
masks, control-flow step scopes, activations); the node's grad rule feeds them, with the
output gradients, to a second compiled function holding only the backward ops, built once
per set of inputs/parameters needing gradients by appending ``gradients(...)`` to a clone of
the Program. Parameters and buffers stay bound by name to the eager tensors (read at every
call; buffers the Program writes, e.g. batch-norm statistics, are written back into them).

    pp = PartialProgram(program, feed_vars, fetch_vars, training=True)
    outs = pp([x])              # eager Tensors; outs[0].backward() fills Parameter.grad

The training step's fast path (issue 17): ``loss.backward()`` on an output of such a node whose
inputs are all leaves (``loss = net(x, label); loss.backward()``), with no hooks, skips the engine's
graph walk (`_fast_backward`, reached through the tape OpDef's ``fast_backward``): the backward
function runs at once and its gradients are stored as the engine would store them. A gradient that
is still the zeros ``clear_grad()`` left (a shared read-only view, see ``Tensor.clear_gradient``) is
replaced rather than added to, and a gradient array that nothing but this backward's result holds
(reference counts, `_unshared`) is stored without the engine's defensive copy. Every other case takes
the general engine. The compiled functions run a rewritten clone of the training Program
(dy2st/training_fusion.py: cross_entropy's softmax_with_cross_entropy + reduce_mean and their grads
fused; bias-add grads reading the output gradient for the shape, so the forward keeps less and fuses
its matmul/conv with the add); ``backward_program()`` shows the Program as traced and differentiated.

Threads: one PartialProgram may be called from many threads at once. Compiled functions keep no
state between calls, so calls need no lock; compiling and building a gradient plan (the misses)
happen under the instance's lock, after checking again, so each is built once and a reader never
sees a half-updated instance (the version that says "compiled" is stored last).
"""
from __future__ import annotations

import os
import threading
import weakref
from sys import getrefcount as _getrefcount
from time import monotonic as _monotonic

import numpy as np

from runtime import unique_name
from runtime import autograd as _autograd
from runtime.autograd import GradNode, _root_grads
from runtime.framework import state
from runtime.ops import blas_threads as _blas
from runtime.ops.registry import OpDef, all_ops, lookup, register
from runtime.static.backward import _run as _static_backward
from runtime.static.codegen import UNSET, CompileError, compile_program as _compile_program
from runtime.static.interpreter import InterpretedProgram, annotate
from runtime.static.program import Program, Variable, program_guard
from runtime.static.prune import op_reads_writes
from runtime.static.scope import _global_scope
from runtime.tensor import Tensor
from runtime.utils.gc_pause import gc_paused

from .jit.dy2static.error import report_in_place
from .training_fusion import rewrite_training_step

__all__ = ["PartialProgram"]

_wrap = Tensor._wrap
_MISSING = object()
_LIVE = weakref.WeakValueDictionary()    # program_id attr of run_program -> PartialProgram


# -- the run_program op ----------------------------------------------------------------------------------
# Registered so the type exists for lookups (tracing, printing) and ``run_op("run_program", xs, params,
# program_id=id(pp))`` runs a PartialProgram's forward. Its gradient is not a registry rule: the tape
# node is built by PartialProgram itself with `_TAPE_OPDEF` (same slots, with the grad rule), since a
# run_program has no meaning as a single kernel call that the op table could grad-check.

def _run_program_kernel(X, Params, global_block=None, is_test=False, program_id=0, **_):
    pp = _LIVE.get(program_id)
    if pp is None:
        raise RuntimeError(f"run_program: no live PartialProgram with program_id {program_id}")
    return list(pp._run_forward(X))


def _run_program_meta(xs, params, program_id=0, **_):
    pp = _LIVE.get(program_id)
    if pp is None:
        raise RuntimeError(f"run_program: no live PartialProgram with program_id {program_id}")
    return [v.meta for v in pp._fetch_vars]


if "run_program" not in all_ops():
    register("run_program", ["X[]", "Params[]"], ["Out[]"],
             {"global_block": ("BLOCK", None), "is_test": ("BOOLEAN", False), "program_id": ("LONG", 0)},
             kernel=_run_program_kernel, infer_meta=_run_program_meta, differentiable=())


def _run_program_grad(ctx, douts):
    """Grad rule of the tape node: run the backward program over the saved forward values."""
    pp, plan, saved, metas = ctx.attrs["run"]
    feed = dict(saved)
    for i, name in enumerate(plan.dout_feeds):
        if name is None:
            continue
        d = douts[i]
        if d is None:
            feed[name] = np.zeros(metas[i][0], metas[i][1])   # an output the loss does not use
        else:
            feed[name] = d._data
    vals = _call(plan.bwd, feed, pp._bindings)
    x_grads = [None] * pp._n_feed
    p_grads = [None] * len(plan.p_names)
    for (kind, k), v in zip(plan.grad_slots, vals):
        if v is UNSET:
            continue
        g = _wrap(v if type(v) is np.ndarray else np.asarray(v))
        if kind == "x":
            x_grads[k] = g
        else:
            p_grads[k] = g
    return [x_grads, p_grads]


def _count(a):
    return _getrefcount(a)


def _calibrate():
    """The reference counts `_count` sees for an array held by one Tensor only (``_count(t._data)``) and for
    the owner of a view held by that view only (``_count(v.base)``); None when the interpreter's counts do
    not tell a shared array from an unshared one (then every gradient is copied)."""
    t, u = _wrap(np.empty(2)), _wrap(np.empty(2))
    sole = _count(t._data)
    v = np.empty(2).reshape(2)
    sole_base = _count(v.base)
    u2 = _wrap(u._data)     # u's array held twice
    w = v.base.reshape(2)   # v's owner held by two views
    if _count(u._data) != sole + 1 or _count(w.base) != sole_base + 1:
        return None
    del u2, w
    return sole, sole_base


_SOLE = _calibrate()


def _unshared(t):
    """``t._data`` (a gradient array the backward returned, wrapped in Tensor ``t``) may be stored as it is:
    it (or, for a view, it and the array owning its memory, of the same size) is referenced by nothing but
    ``t``: no saved forward value, output gradient, parameter, other gradient or kernel cache holds it.
    Reference counts say so exactly; the engine's defensive copy is then a copy of memory no one else sees."""
    if _SOLE is None or _count(t._data) != _SOLE[0]:
        return False
    a = t._data
    b = a.base
    if b is None:
        return type(a) is np.ndarray
    if type(b) is not np.ndarray or b.base is not None or b.nbytes != a.nbytes or not b.flags.writeable:
        return False
    del b
    return _count(a.base) == _SOLE[1]


def _fast_backward(root, grad_tensors, retain_graph):
    """``root.backward()`` when ``root`` is an output of a run_program node whose inputs are all leaves
    (the usual training step ``loss = net(x, label); loss.backward()``): the node's backward function runs
    directly (as its grad rule `_run_program_grad` would run it) and the gradients accumulate into ``.grad``
    as the engine would (same arithmetic, same order), without the engine's graph walk and without
    wrapping each gradient in a Tensor before it is stored. Returns False, touching nothing, for every
    other case (hooks, a graph around the call, a released node), which the general engine then handles."""
    node = root._node
    if node.released or root._hooks or _autograd._saved_hooks_used:
        return False        # (saved-tensor hooks: the engine runs their unpack side of the node)
    edges = node.edges
    for e in edges:
        if e[3] is not None or e[2]._hooks:
            return False
    if grad_tensors is None:
        d = root._data
        g0 = np.array(1, d.dtype) if d.ndim == 0 else np.ones(d.shape, d.dtype)
    else:
        g0 = _root_grads([root], grad_tensors)[0]._data
    pp, plan, saved, metas = node.attrs["run"]
    feed = dict(saved)
    out_idx = root._out_idx
    for i, name in enumerate(plan.dout_feeds):
        if name is not None:    # (an output the loss does not use gets zeros, as in the grad rule)
            feed[name] = g0 if i == out_idx else np.zeros(metas[i][0], metas[i][1])
    prev = state.grad_enabled
    state.grad_enabled = False
    try:
        vals = _call(plan.bwd, feed, pp._bindings)
    finally:
        state.grad_enabled = prev
    del feed, g0
    # the gradient arrays by edge position: grads[0][k] of input k, grads[1][k] of parameter k
    grads = ([None] * pp._n_feed, [None] * len(plan.p_names))
    v = None
    for (kind, k), v in zip(plan.grad_slots, vals):
        if v is not UNSET:
            grads[kind == "p"][k] = v if type(v) is np.ndarray else np.asarray(v)
    del vals, v
    leaf = {}
    g = None
    for (i, j, t, _, _) in edges:
        g = grads[i][j]
        if g is None or t.stop_gradient:
            continue
        if g.dtype != t._data.dtype:
            g = g.astype(t._data.dtype)
        e = leaf.get(id(t))
        if e is None:
            leaf[id(t)] = [t, g]
        else:
            e[1] = e[1] + g
    del grads, g
    if not retain_graph:
        node.release()      # (drops the saved forward values: they no longer count as holders)
    for e in leaf.values():
        t = e[0]
        old = t._grad
        if old is not None and not _is_cleared(old._data):
            t._grad = _wrap(old._data + e[1])
            continue
        # no gradient yet, or the zeros of clear_grad(): the engine would store a copy (or 0 + g, the
        # same values); an array of this backward that nothing else holds can be stored as it is
        g = _wrap(e[1])
        e[1] = None
        t._grad = g if _unshared(g) else _wrap(np.array(g._data, copy=True))     # a new Tensor either way
    return True


def _is_cleared(a):
    """``a`` is the zero view that ``Tensor.clear_gradient(set_to_zero=True)`` leaves (a read-only
    broadcast of one zero)."""
    b = a.base
    return b is not None and not a.flags.writeable and type(b) is np.ndarray and b.ndim == 0 and not b


class _RunProgramOpDef(OpDef):
    """The tape node's OpDef: run_program's slots with the grad rule and the engine's fast path."""
    __slots__ = ("fast_backward", "release_attrs")


_TAPE_OPDEF = _RunProgramOpDef(
    "run_program", ["X[]", "Params[]"], ["Out[]"],
    {"global_block": ("BLOCK", None), "is_test": ("BOOLEAN", False), "program_id": ("LONG", 0)},
    kernel=_run_program_kernel, infer_meta=_run_program_meta, grad=_run_program_grad)
_TAPE_OPDEF.fast_backward = _fast_backward
# a released node (backward done, graph not retained) drops the saved forward values it held for its
# backward: without this they lived until the loss tensor was dropped, i.e. through the next forward
_TAPE_OPDEF.release_attrs = lambda attrs: {k: v for k, v in attrs.items() if k != "run"}


def compile_program(program, feed_names, fetch_names):
    """The program's compiled function, or the reference interpreter behind the same interface when
    the environment sets ``DY2ST_EXECUTOR=interpreter`` (read per compilation, as the Executor does)."""
    if os.environ.get("DY2ST_EXECUTOR") == "interpreter":
        return InterpretedProgram(program, feed_names, fetch_names)
    # (codegen drops the generated source from linecache when the compiled program goes)
    return _compile_program(program, feed_names, fetch_names)


def _call(compiled, feed, bindings):
    """Call a compiled program function, naming the op and the user's line on errors."""
    try:
        return compiled.fn(feed, _global_scope[0].vars, bindings)
    except Exception as e:
        _explain(compiled, e)
        raise


def _explain(compiled, e):
    site = compiled.site_of(e.__traceback__)
    if site is not None and site[0] == "load" and isinstance(e, KeyError):
        raise RuntimeError(f"variable '{site[1]}' is persistable but has no value in the scope or the eager "
                           f"bindings") from None
    if site is not None and site[0] == "op":
        try:
            annotate(e, site[1])
        except Exception as new:        # a failed unbound-read check, raised as UnboundLocalError
            report_in_place(new, in_runtime=True)
            raise
    # Paddle's "In transformed code:" report, pointing at the user's line that built the failing op
    report_in_place(e, in_runtime=True)


def _copy_var(program, v):
    """``assign(v)`` appended to ``program``'s global block (built in static mode)."""
    from runtime.dispatch import run_op
    prev = state.static
    state.static = True
    try:
        with program_guard(program):
            out = run_op("assign", v)
    finally:
        state.static = prev
    out.stop_gradient = v.stop_gradient
    return out


def _is_float(var):
    return var.dtype.np.kind in "fc"


class _GradPlan:
    """Forward-with-saves and backward compiled functions for one set of gradient sources."""
    __slots__ = ("fwd", "bwd", "n_fetch", "saved", "dout_feeds", "out_diff", "p_names",
                 "grad_slots", "train_program", "params", "out_sg")

    def __init__(self):
        self.params = None      # the bound tensors of p_names (looked up at the first call)
        self.out_sg = None      # (the outputs' stop_gradient flags, the PartialProgram's _out_sg they came from)


class PartialProgram:
    """Run ``program`` (feeds ``feed_vars``, fetches ``fetch_vars``) on eager inputs; see the module doc.

    ``training``: the Program was traced in train mode; then parameters needing gradients make the call
    differentiable. In eval mode only inputs needing gradients do.
    """

    def __init__(self, program, feed_vars, fetch_vars, training=True):
        if not isinstance(program, Program):
            raise TypeError(f"PartialProgram: program must be a static Program, got {type(program).__name__}")
        self._program = program
        self._feed_vars = [self._var(v, "feed_vars") for v in feed_vars]
        self._fetch_vars = [self._var(v, "fetch_vars") for v in fetch_vars]
        self._feed_names = tuple(v.name for v in self._feed_vars)
        self._fetch_names = tuple(v.name for v in self._fetch_vars)
        # Paddle's run_program gives each output the stop_gradient of its Variable as traced (also under
        # no_grad and in eval mode): ``to_tensor(..., stop_gradient=False)`` returned comes back False
        self._out_sg = tuple(bool(v.stop_gradient) for v in self._fetch_vars)
        self._n_feed = len(self._feed_names)
        self.training = bool(training)
        self._bindings = program._eager_bindings
        # eager tensors the Program reads that may need gradients (parameters, float buffers)
        self._grad_candidates = [(n, t) for n, t in self._bindings.items() if t._data.dtype.kind in "fc"]
        self._compiled = self._fn = None
        self._version = -1          # the Program version the gradient plans and flags are for
        self._fn_version = -1       # the version the forward-only function was compiled for (lazily:
        #                             a training call runs the plan's forward and never needs it)
        self._plans = {}
        self._explicit = None
        self._lock = threading.RLock()     # taken on misses only: compiling, building a gradient plan
        _LIVE[id(self)] = self

    def _var(self, v, what):
        if isinstance(v, str):
            v = self._program.global_block()._find_var_recursive(v)
        elif isinstance(v, Tensor) and self._program._eager_bindings.get(v.name) is v:
            v = self._program.global_block().vars.get(v.name)    # an eager tensor bound into the program
        if not isinstance(v, Variable) or v.block.program is not self._program:
            raise TypeError(f"PartialProgram: {what} must be Variables (or names) of the program, got {v!r}")
        return v

    @property
    def program(self):
        return self._program

    @property
    def forward_program(self):
        return self._program

    def backward_program(self, input_needs=None):
        """The Program with the backward appended (inputs needing grad: ``input_needs``, default none)."""
        if self._version != self._program.version:
            self._refresh()
        needs = tuple(bool(b) for b in (input_needs or (False,) * self._n_feed))
        pnames = tuple(n for n, t in self._grad_candidates if not t.stop_gradient)
        key = (needs, pnames)
        plan = self._plans.get(key, _MISSING)
        if plan is _MISSING:
            plan = self._plan_for(key)
        return None if plan is None else plan.train_program

    # -- calls ---------------------------------------------------------------------------------------

    def __call__(self, inputs):
        if _monotonic() >= _blas._next_check:
            _blas.recheck()                 # the BLAS thread policy (runtime/ops/blas_threads.py)
        if len(inputs) != self._n_feed:
            raise ValueError(f"PartialProgram: expected {self._n_feed} inputs ({', '.join(self._feed_names)}), "
                             f"got {len(inputs)}")
        if state.grad_enabled:
            needs = None
            for x in inputs:
                if isinstance(x, Tensor) and not x.stop_gradient:
                    needs = tuple(isinstance(t, Tensor) and not t.stop_gradient for t in inputs)
                    break
            if needs is not None or self.training:
                # once the call is differentiable, parameters get gradients in eval mode too (as eagerly)
                pnames = tuple([n for n, t in self._grad_candidates if not t.stop_gradient])
                if needs is not None or pnames:
                    return self._call_grad(inputs, needs or (False,) * self._n_feed, pnames)
        # the inference hot path: feed dict, compiled function, wrap
        if self._fn_version != self._program.version:
            self._recompile()
        if self._n_feed == 1:       # the common case without a comprehension's frame (~0.3 µs)
            x = inputs[0]
            feed = {self._feed_names[0]: x._data if isinstance(x, Tensor) else x}
        else:
            feed = {n: x._data if isinstance(x, Tensor) else x for n, x in zip(self._feed_names, inputs)}
        try:
            outs = self._fn(feed, _global_scope[0].vars, self._bindings)
        except Exception as e:
            _explain(self._compiled, e)
            raise
        sg = self._out_sg
        if len(outs) == 1 and type(outs[0]) is np.ndarray and state.tracer is None:
            return [_wrap(outs[0], sg[0])]      # the common case: one array, no TracedLayer recording
        res = [_wrap(o if type(o) is np.ndarray else self._out(o, i), sg[i]) for i, o in enumerate(outs)]
        if state.tracer is not None:
            self._trace(inputs, res)
        return res

    def infer_call(self, general, index, guard):
        """StaticFunction's hot path for one signature, as one function of the positional arguments
        (one frame between ``Layer.__call__`` and the compiled function).

        ``guard = (sig, training, settings, function_ref, miss)`` is what StaticFunction checks before reusing its
        last call: ``sig`` one ``(class, shape, dtype, stop_gradient)`` per positional Tensor (one per feed,
        none needing gradients), the mode it was traced in (its Layer's ``training``, or a plain function's
        own), the to_static settings dict, and a weakref to the StaticFunction (held weakly: it holds this
        function). A call that differs in any of these (or runs in static mode, or inside an AMP region)
        returns ``miss`` (StaticFunction then takes its general path). A matching call runs the compiled
        forward directly when ``__call__`` would take its inference path (no gradients to record, no
        TracedLayer, compiled program current) and returns output ``index``; a training call (parameters
        needing gradients) goes straight through ``_call_grad`` as ``__call__`` would; anything else defers
        to ``general(args)`` (the ConcreteProgram's ``run``): the same behaviour as through ``__call__``."""
        pp, st, blas, scope = self, state, _blas, _global_scope
        program, bindings = self._program, self._bindings
        names = self._feed_names
        no_needs = (False,) * len(names)
        sig, training, settings, sf_ref, miss = guard
        ref = sf_ref()._instance_ref    # the bound Layer's weakref, None for a plain function
        if len(sig) == 1 and len(names) == 1:
            (cls0, shape0, dtype0, sg0), = sig
            name0 = names[0]
        else:
            cls0 = name0 = None

        def call(args):
            # -- the guard (StaticFunction.__call__'s checks, in its order of cost)
            if cls0 is not None:
                if len(args) != 1:
                    return miss
                a = args[0]
                if a.__class__ is not cls0:
                    return miss
                d = a._data
                if d.shape != shape0 or a.stop_gradient is not sg0 or (d.dtype is not dtype0 and d.dtype != dtype0):
                    return miss
            else:
                try:
                    if sig != tuple([(a.__class__, a._data.shape, a._data.dtype, a.stop_gradient) for a in args]):
                        return miss
                except AttributeError:
                    return miss
            sd = st.__dict__     # this thread's state (a threading.local): one lookup, then plain dict reads
            if sd["static"] or sd["amp"] is not None or not settings["enabled"]:
                return miss
            if ref is not None:
                inst = ref()        # (a deleted instance takes the slow path, which raises)
                if inst is None or inst.training is not training:
                    return miss
            elif sf_ref()._training is not training:
                return miss
            # -- PartialProgram.__call__'s inference path
            if _monotonic() >= blas._next_check:
                blas.recheck()              # the BLAS thread policy (runtime/ops/blas_threads.py)
            if sd["grad_enabled"] and pp.training:
                pnames = tuple([n for n, t in pp._grad_candidates if not t.stop_gradient])
                if pnames:
                    return pp._call_grad(args, no_needs, pnames)[index]
                return general(args)
            if sd["tracer"] is not None or pp._fn_version != program.version:
                return general(args)
            if name0 is not None:
                feed = {name0: d}
            else:
                feed = {n: a._data for n, a in zip(names, args)}
            try:
                o = pp._fn(feed, scope[0].vars, bindings)[index]
            except Exception as e:
                _explain(pp._compiled, e)
                raise
            return _wrap(o if type(o) is np.ndarray else pp._out(o, index), pp._out_sg[index])
        return call

    def _trace(self, inputs, outs):
        """Show the call to a TracedLayer recording eager ops, as one run_program op."""
        params = [t for _, t in self._grad_candidates]
        state.tracer(lookup("run_program"), (list(inputs), params), {"program_id": id(self)}, (outs,))

    def _out(self, o, i):
        if o is UNSET:
            raise ValueError(f"PartialProgram: output '{self._fetch_names[i]}' was not computed by this run")
        return o if type(o) is np.ndarray else np.asarray(o)

    def _run_forward(self, inputs):
        """The fetched arrays of a forward-only run."""
        if self._fn_version != self._program.version:
            self._recompile()
        feed = {n: x._data if isinstance(x, Tensor) else x for n, x in zip(self._feed_names, inputs)}
        return _call(self._compiled, feed, self._bindings)

    def _recompile(self):
        with self._lock:
            if self._fn_version != self._program.version:     # not done by another thread meanwhile
                self._compile()

    def _refresh(self):
        with self._lock:
            if self._version != self._program.version:
                self._reset_plans(self._program.version)

    def _plan_for(self, key):
        with self._lock:
            plan = self._plans.get(key, _MISSING)
            if plan is _MISSING:
                with gc_paused():
                    plan = self._plans[key] = self._plan(*key)
        return plan

    def _compile(self):
        version = self._program.version
        if self._version != version:
            self._reset_plans(version)
        try:
            with gc_paused():
                compiled = compile_program(self._program, self._feed_names, self._fetch_names)
        except CompileError as e:
            raise RuntimeError(str(e)) from None
        self._compiled = compiled
        self._fn = compiled.fn
        self._fn_version = version      # last: other threads check it without the lock

    def _reset_plans(self, version):
        """What depends on the Program's content, for ``version`` (under the lock)."""
        self._grad_candidates = [(n, t) for n, t in self._bindings.items() if t._data.dtype.kind in "fc"]
        self._plans = {}
        self._explicit = None
        self._out_sg = tuple(bool(v.stop_gradient) for v in self._fetch_vars)
        self._version = version     # last: other threads check it without the lock

    def _call_grad(self, inputs, needs, pnames):
        if self._version != self._program.version:
            self._refresh()
        key = (needs, pnames)
        plan = self._plans.get(key, _MISSING)
        if plan is _MISSING:
            plan = self._plan_for(key)
        sg = self._out_sg
        if plan is None or not any(plan.out_diff):
            outs = [_wrap(self._out(o, i), sg[i]) for i, o in enumerate(self._run_forward(inputs))]
            if state.tracer is not None:
                self._trace(inputs, outs)
            return outs
        feed = {}
        xs = list(inputs)
        for k, n in enumerate(self._feed_names):
            x = xs[k]
            if isinstance(x, Tensor):
                feed[n] = x._data
            else:
                feed[n] = x
                xs[k] = _wrap(np.asarray(x))
        try:    # (_call inlined: one frame less on every training step)
            vals = plan.fwd.fn(feed, _global_scope[0].vars, self._bindings)
        except Exception as e:
            _explain(plan.fwd, e)
            raise
        del feed
        n = plan.n_fetch
        out_sg = plan.out_sg
        if out_sg is None or out_sg[1] is not sg:
            plan.out_sg = out_sg = (tuple(s and not d for s, d in zip(sg, plan.out_diff)), sg)
        out_sg = out_sg[0]
        if n == 1:      # the common case (a loss) without the loop
            o = vals[0]
            if type(o) is not np.ndarray:
                o = self._out(o, 0)
            outs, metas = [_wrap(o, out_sg[0])], [(o.shape, o.dtype)]
        else:
            outs, metas = [], []
            for i in range(n):
                o = vals[i]
                if type(o) is not np.ndarray:
                    o = self._out(o, i)
                outs.append(_wrap(o, out_sg[i]))
                metas.append((o.shape, o.dtype))
        saved = dict(zip(plan.saved, vals[n:]))
        params = plan.params
        if params is None:
            plan.params = params = [self._bindings[p] for p in plan.p_names]
        GradNode(_TAPE_OPDEF, (xs, list(params)), {"run": (self, plan, saved, metas), "program_id": id(self)},
                 (outs,))
        if state.tracer is not None:
            self._trace(inputs, outs)
        return outs

    # -- building the backward -----------------------------------------------------------------------

    def _explicit_stops(self):
        """Float outputs the user cut from the graph (detach, ``stop_gradient = True``): outputs left
        stop_gradient although an op with a gradient had a differentiable input needing one. Every other
        intermediate's flag only reflects what needed gradients while tracing, so it is recomputed."""
        if self._explicit is not None:
            return self._explicit
        res = set()
        for blk in self._program.blocks:
            for op in blk.ops:
                opdef = lookup(op.type)
                if opdef.grad is None:
                    continue
                live = False
                for slot in opdef.inputs:
                    if slot.name in opdef.differentiable:
                        for n in op.inputs.get(slot.name, []):
                            v = blk._find_var_recursive(n)
                            if v is not None and not v.stop_gradient:
                                live = True
                if not live:
                    continue
                for n in op.output_arg_names:
                    v = blk._find_var_recursive(n)
                    if v is not None and v.stop_gradient and not v.persistable and _is_float(v):
                        res.add(n)
        self._explicit = res
        return res

    def _plan(self, needs, pnames):
        explicit = self._explicit_stops()
        prog = self._program.clone()
        gb = prog.global_block()
        n_fwd = len(gb.ops)
        bindings = prog._eager_bindings
        psrc = set(pnames)
        for blk in prog.blocks:
            for name, v in blk.vars.items():
                if v.persistable or name in bindings:
                    v.stop_gradient = name not in psrc
                elif _is_float(v) and name not in explicit:
                    v.stop_gradient = False
        sources = []
        x_src = []
        for i, (name, need) in enumerate(zip(self._feed_names, needs)):
            v = gb.vars[name]
            v.stop_gradient = not (need and _is_float(v))
            if not v.stop_gradient:
                sources.append(name)
                x_src.append(i)
        sources.extend(pnames)
        # static backward names a target's gradient before running any grad rule, so a target that
        # other ops read (or a source, or a repeated output) would lose those contributions: such
        # targets are differentiated through a copy (pruned from the forward run: nothing reads it)
        read = {n for blk in prog.blocks for op in blk.ops for n in op.input_arg_names}
        read.update(sources)
        # an output fetched twice (``return t, t``) goes through a copy at EVERY occurrence, so each
        # occurrence's gradient reaches t through its own assign
        read.update(n for n in self._fetch_names if self._fetch_names.count(n) > 1)
        targets, douts, dout_of = [], [], []
        for name in self._fetch_names:
            v = gb._var_recursive(name)
            if not _is_float(v):
                dout_of.append(None)
                continue
            if name in read or v.persistable or v.block is not gb:
                v = _copy_var(prog, v)
            read.add(name)
            d = gb.create_var(name=unique_name.generate(name + "@DOUT"), shape=v.shape, dtype=v.dtype,
                              is_data=True, stop_gradient=True)
            targets.append(v)
            douts.append(d)
            dout_of.append(d.name)
        if not targets or not sources:
            return None
        n_fwd = len(gb.ops)
        # nothing differentiates this backward again (the tape node's grad rule runs it as it is): its grad
        # ops need no second-order rules, whose first install costs the first training call 2-18 ms
        state.first_order_backward = True
        try:
            bw = _static_backward(targets, douts, None, set(sources))
        finally:
            state.first_order_backward = False
        grads = [bw.final.get(n) for n in sources]
        prog.verify()

        plan = _GradPlan()
        plan.train_program = prog
        # the compiled functions run a clone with the training step's rewrites (dy2st/training_fusion.py);
        # train_program, what Paddle's tests inspect, keeps the ops as traced and differentiated
        run = prog.clone()
        n_fwd = rewrite_training_step(run, n_fwd, self._feed_names,
                                      self._fetch_names + tuple(g.name for g in grads if g is not None))
        gb, bindings = run.global_block(), run._eager_bindings
        plan.n_fetch = len(self._fetch_names)
        plan.out_diff = [d is not None and n in bw.reach for n, d in zip(self._fetch_names, dout_of)]
        plan.p_names = list(pnames)
        fwd_ops, bwd_ops = gb.ops[:n_fwd], gb.ops[n_fwd:]

        def persistable(n):
            v = gb.vars.get(n)
            return n in bindings or (v is not None and v.persistable)

        written = set(self._feed_names)
        for op in fwd_ops:
            written.update(op_reads_writes(op)[1])
        dout_names = {d.name for d in douts}
        saved, saved_set = [], set()     # the list keeps the order, the set answers `in` (linear plans)
        for op in bwd_ops:
            for n in op_reads_writes(op)[0]:
                if n in written and n not in dout_names and not persistable(n) and n not in saved_set:
                    saved.append(n)
                    saved_set.add(n)
        plan.saved = saved

        bwd = run.clone()
        bwd.global_block().ops = bwd.global_block().ops[n_fwd:]
        bwd._bump()
        fwd = run           # (a clone already: the forward keeps its first n_fwd ops)
        gb.ops = gb.ops[:n_fwd]
        fwd._bump()
        grad_slots, grad_names = [], []
        k = 0
        for i in x_src:
            g = grads[k]
            k += 1
            if g is not None:
                grad_slots.append(("x", i))
                grad_names.append(g.name)
        for j in range(len(pnames)):
            g = grads[k]
            k += 1
            if g is not None:
                grad_slots.append(("p", j))
                grad_names.append(g.name)
        plan.grad_slots = grad_slots
        try:
            plan.fwd = compile_program(fwd, self._feed_names, self._fetch_names + tuple(saved))
            plan.bwd = compile_program(bwd, tuple(saved) + tuple(d.name for d in douts), tuple(grad_names))
        except CompileError as e:
            raise RuntimeError(str(e)) from None
        used = set(plan.bwd.feed_names)
        plan.dout_feeds = [d if d is not None and d in used else None for d in dout_of]
        return plan
