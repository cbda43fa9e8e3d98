"""`StaticFunction`: what ``@to_static`` returns. Traces once per input signature, then runs
the cached Program.

Call path: build the cache key from the arguments (tensor args by shape/dtype — or by the
matching InputSpec, whose ``None`` dims make one Program serve every batch size — other args
by value, plus the Layer's training flag); on a miss, trace the converted function into a new
Program (`ConcreteProgram`); then run it through a `PartialProgram`, which also makes it one
node of the eager autograd tape when gradients are needed. The user's Python runs only while
tracing (as in Paddle's AST mode). The hot path: a call with the last call's positional tensor
signature (class, shape, dtype, stop_gradient) and mode skips the key; when nothing needs gradients
it goes straight to the compiled function (`PartialProgram.infer_call`: the checks and the call are one
function, which returns a miss marker for any other call). A method converted on an
object that is not a Layer fails as in Paddle (TypeError), as does a call after its object is deleted.

Threads: the tracing state (static flag, program being built, name-generator guards) is per thread
(runtime/framework.py, runtime/static/program.py, runtime/unique_name.py). A cache miss takes the
function's lock, checks again and traces, so concurrent first calls with one signature build one
Program; a hit never takes that lock (the program cache has its own short lock, and the last-call
fast paths are plain attribute reads). Calls nested inside a trace are inlined (the thread is in
static mode), so a converted function calling another converted function takes no second lock.

Paddle's API: ``train()`` / ``eval()`` (a plain function's mode; a Layer method follows its Layer),
``concrete_program`` / ``concrete_program_specify_input_spec(input_spec, with_hook)`` /
``get_concrete_program(*specs, with_hook=, is_train=)``, ``rollback()``, ``code``, ``main_program``,
``get_traced_count()``, ``is_property`` (``to_static(property=True)``: the function runs as it is and
jit.save stores its value). Feeds are named by Paddle's rule (``_input_names``): the argument's name,
``xs_0``/``xs_1`` for a list argument, a dict's keys, or the InputSpec's own name. ``with_hook`` traces
the Layer's forward pre/post hooks into the Program (what jit.save writes).

Cache bound: each function keeps at most `MAX_CACHE_SIZE` Programs (least recently used out
first; env ``DY2ST_MAX_CACHE_SIZE``, or ``fn.program_cache.max_size``) and warns once, with the
arguments that varied and the InputSpec that would fix it, when it has traced more than Paddle's
`MAX_TRACED_PROGRAM_COUNT`.
"""
from __future__ import annotations

import collections
import functools
import inspect
import os
import threading
import warnings
import weakref

import numpy as np

from runtime.dtype import convert_dtype
from runtime.framework import state
from runtime.utils.gc_pause import gc_paused
from runtime.static.control_flow import flatten, pack
from runtime.static.input_spec import InputSpec
from runtime.static.program import Program, Variable, program_guard
from runtime.tensor import Tensor

from .errors import Dy2StaticError, add_user_note, bad_argument_error, hint_for
from .undefined import is_undefined

# Paddle's name (paddle/jit/dy2static/program_translator.py): past this many traces of one function
# the cache warns, as Paddle does, but only once per function and with the fix
MAX_TRACED_PROGRAM_COUNT = 10


def _env_cache_size():
    raw = os.environ.get("DY2ST_MAX_CACHE_SIZE", "").strip()
    if not raw:
        return 64
    try:
        n = int(raw)
    except ValueError:
        raise ValueError(f"DY2ST_MAX_CACHE_SIZE must be a positive integer, got {raw!r}") from None
    if n < 1:
        raise ValueError(f"DY2ST_MAX_CACHE_SIZE must be a positive integer, got {raw!r}")
    return n


# how many Programs one function keeps (named as the bound of Paddle's SOT code cache); 64 keeps
# every shape of a model with a few input kinds while capping memory at a few MB per function
MAX_CACHE_SIZE = _env_cache_size()
_settings = {"enabled": True}
_MISS = object()    # what a hot path returns for a call it does not match (StaticFunction.__call__)
_warned = weakref.WeakSet()        # functions already warned about retracing
_warned_lock = threading.Lock()
_runner_lock = threading.Lock()
_bind_lock = threading.Lock()       # not the trace lock: binding must not wait for a trace in progress


_tracing = threading.local()        # .depth: how many to_static traces this thread is inside


def in_to_static_mode():
    """Paddle's ``in_to_static_mode()``: True while a to_static function is being traced (converted to a
    Program) in this thread; False in eager code and in plain static mode (``paddle.enable_static``)."""
    return getattr(_tracing, "depth", 0) > 0


def enable_to_static(enable=True):
    """``paddle.jit.enable_to_static``: False makes every to_static function run eagerly."""
    if not isinstance(enable, bool):
        raise TypeError(f"enable_to_static: enable must be a bool, got {type(enable).__name__}")
    _settings["enabled"] = enable


def _is_tensor_arg(x):
    return isinstance(x, (Tensor, np.ndarray))


class ConcreteProgram:
    """One traced Program: ``main_program``, ``startup_program``, ``inputs`` (feed Variables),
    ``outputs`` (fetch Variables), ``parameters`` (the eager Parameters it reads), and the
    output structure."""

    def __init__(self, main_program, startup_program, inputs, outputs, structure, function, training):
        self.main_program = main_program
        self.startup_program = startup_program
        self.inputs = inputs
        self.outputs = outputs
        self.structure = structure      # output structure; leaves: index into outputs, or a Python value
        self.function = function
        self.training = training
        from runtime.tensor import Parameter
        self.parameters = [t for t in main_program._eager_bindings.values() if isinstance(t, Parameter)]
        self._runner = None
        self._single = structure.index if isinstance(structure, _Out) and (outputs or inputs) else None
        self.with_hook = False      # the Layer's forward hooks are part of the Program (jit.save)
        self.call_specs = None      # the arguments traced, tensors replaced by their InputSpecs

    @property
    def runner(self):
        if self._runner is None:
            with _runner_lock:      # one PartialProgram (and one compilation) however many threads ask
                if self._runner is None:
                    from .partial_program import PartialProgram
                    self._runner = PartialProgram(self.main_program, self.inputs, self.outputs,
                                                  training=self.training)
        return self._runner

    def run(self, tensors):
        single = self._single
        if single is not None:      # the common case: one tensor returned
            return self.runner(tensors)[single]
        outs = self.runner(tensors) if self.outputs or self.inputs else []
        res = pack(self.structure, [outs[leaf.index] if isinstance(leaf, _Out) else leaf
                                    for leaf in flatten(self.structure)])
        return iter(res) if type(res) is _Yielded else res


class _Yielded(tuple):
    """The values a converted generator function yielded while it was traced."""


class _Out:
    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


def _amp_key():
    """The ``paddle.amp.auto_cast`` state ops are traced under (None outside a region): part of the
    program cache key, so a function traced without AMP is traced again inside a region and back."""
    a = state.amp
    if a is None:
        return None
    return (a.level, a.dtype, frozenset(a.white), frozenset(a.black), bool(a.use_promote), a.custom_white,
            a.custom_black)


class _PartialProgramView:
    """The partial program of a ConcreteProgram as Paddle's tests see it: ``program`` is the Program
    the call runs (``train_program``, forward and backward, for a training trace; ``infer_program``,
    the forward in test mode, for an eval trace); everything else is the PartialProgram's."""

    def __init__(self, cp):
        self._cp = cp

    @property
    def train_program(self):
        runner = self._cp.runner
        needs = tuple(not getattr(v, "stop_gradient", True) for v in self._cp.inputs)
        prog = runner.backward_program(needs)
        return prog if prog is not None else runner.forward_program

    @property
    def infer_program(self):
        cp = self._cp
        if getattr(cp, "_infer_program", None) is None:
            cp._infer_program = cp.main_program.clone(for_test=True)
        return cp._infer_program

    @property
    def program(self):
        return self.train_program if self._cp.training else self.infer_program

    def __getattr__(self, name):
        return getattr(self._cp.runner, name)


class ProgramCache:
    """The ConcretePrograms of one StaticFunction, by key, least recently used first out.

    ``max_size``: how many Programs to keep (None: the module's `MAX_CACHE_SIZE`, read at each
    insertion). ``traced`` counts every Program ever put, ``evicted`` those dropped for the bound.
    The short ``_mutex`` guards the ordered dict only; it is never held while tracing.
    """

    def __init__(self, max_size=None):
        self._programs = collections.OrderedDict()
        self._mutex = threading.Lock()
        self.max_size = max_size
        self._last = None           # the ConcreteProgram most recently put or hit
        self.traced = 0
        self.evicted = 0

    def __len__(self):
        return len(self._programs)

    def __contains__(self, key):
        return key in self._programs

    def get(self, key):
        with self._mutex:
            cp = self._programs.get(key)
            if cp is not None:
                self._programs.move_to_end(key)
                self._last = cp
        return cp

    def put(self, key, cp):
        bound = self.max_size if self.max_size is not None else MAX_CACHE_SIZE
        with self._mutex:
            self._programs[key] = cp
            self._programs.move_to_end(key)
            self._last = cp
            self.traced += 1
            while len(self._programs) > max(int(bound), 1):
                self._programs.popitem(last=False)
                self.evicted += 1

    def keys(self):
        with self._mutex:
            return list(self._programs)

    def concrete_programs(self):
        with self._mutex:
            return list(self._programs.values())

    def clear(self):
        with self._mutex:
            self._programs.clear()
            self._last = None

    def last(self):
        """Paddle's ``program_cache.last()``: ``(key, (concrete_program, partial_program))`` of the
        Program most recently traced or used."""
        with self._mutex:
            cp = self._last
            key = next((k for k, v in self._programs.items() if v is cp), None)
        if cp is None or key is None:
            raise AssertionError("No valid cache item found.")
        return key, (cp, _PartialProgramView(cp))


def _hot_path(run, guard):
    """StaticFunction's hot path for calls that are not inference-shaped (an input needing gradients, a
    structured result): ``run(args)`` (a ConcreteProgram's ``run``) when the positional tensors and the mode
    match ``guard`` (see `PartialProgram.infer_call`, whose guard is the same), else the guard's ``miss``."""
    sig, training, settings, sf_ref, miss = guard
    ref = sf_ref()._instance_ref

    def call(args):
        try:
            hit = sig == tuple([(a.__class__, a._data.shape, a._data.dtype, a.stop_gradient) for a in args])
        except AttributeError:
            hit = False
        if hit and not state.static and state.amp is None and settings["enabled"]:
            if ref is None:
                hit = sf_ref()._training is training
            else:
                inst = ref()        # (a deleted instance takes the general path, which raises)
                hit = inst is not None and inst.training is training
            if hit:
                return run(args)
        return miss
    return call


class StaticFunction:
    """A function (or Layer method) converted by ``paddle.jit.to_static``."""

    def __init__(self, function, input_spec=None, build_strategy=None, full_graph=True, fallback=False,
                 instance=None, property=False, **kwargs):
        kwargs.pop("backend", None)     # Paddle's CINN switch: no meaning here
        if kwargs:
            raise TypeError(f"StaticFunction() got unexpected keyword arguments {sorted(kwargs)}")
        if isinstance(function, StaticFunction):
            function = function._dygraph_function
        self._dygraph_function = function
        self._input_spec = list(input_spec) if input_spec is not None else None
        if self._input_spec is not None:
            for s in flatten(self._input_spec):
                if not isinstance(s, (InputSpec, Tensor)) and s is not None:
                    raise TypeError(f"to_static: input_spec entries must be paddle.static.InputSpec (or Tensors), "
                                    f"got {type(s).__name__}")
        self._build_strategy = build_strategy
        self._full_graph = full_graph
        self._fallback = fallback
        self._instance_ref = weakref.ref(instance) if instance is not None else None
        self._bound = weakref.WeakKeyDictionary()
        self._cache = ProgramCache()
        # held while tracing (cache misses only); re-entrant so that a trace which somehow calls this
        # function again in the same thread (recursion outside static mode) cannot deadlock on itself
        self._lock = threading.RLock()
        self._spec_warned = set()  # argument positions already warned about an InputSpec mismatch
        self._positional = None    # positional parameter names, for messages
        self._retrace_warned = False
        self._fast = None          # (signature of the last call, its ConcreteProgram)
        self._fast_args = None     # the last all-tensor call's hot path: a function of the positional args
        self._eager_only = None    # reason, once conversion failed with fallback on
        self._signature = None
        self._property = bool(property)
        self._training = True      # the mode of a plain function (a Layer method follows its Layer)
        functools.update_wrapper(self, function)

    # -- binding ---------------------------------------------------------------------------------------
    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        bound = self._bound.get(instance)
        if bound is None:
            with _bind_lock:    # two threads binding at once must share one bound function (one cache)
                bound = self._bound.get(instance)
                if bound is None:
                    bound = StaticFunction(self._dygraph_function, self._input_spec, self._build_strategy,
                                           self._full_graph, self._fallback, instance=instance,
                                           property=self._property)
                    self._bound[instance] = bound
        return bound

    @property
    def _instance(self):
        """The object a converted method is bound to (None for a plain function); raises, as Paddle's
        ``class_instance`` does, once that object has been deleted (``A().f(x)`` drops it before the call)."""
        ref = self._instance_ref
        if ref is None:
            return None
        inst = ref()
        if inst is None:
            raise RuntimeError("The instance of class has been deleted, please re-create the instance.")
        return inst

    # -- public API ------------------------------------------------------------------------------------
    @property
    def dygraph_function(self):
        """The original function (bound to the instance for a Layer method, as in Paddle)."""
        inst = self._instance
        return self._dygraph_function.__get__(inst) if inst is not None else self._dygraph_function

    @property
    def class_instance(self):
        """The Layer a converted method is bound to (None for a plain function)."""
        if self._instance_ref is None:
            return None
        inst = self._instance_ref()
        if inst is None:
            raise RuntimeError("The instance of class has been deleted, please re-create the instance.")
        return inst

    @property
    def is_property(self):
        """``to_static(property=True)``: the function returns a constant that ``jit.save`` stores."""
        return self._property

    def _raise_when_property(self):
        if self._property:
            raise RuntimeError("Can not call the func when property=True.")

    # -- train / eval --------------------------------------------------------------------------------
    def train(self):
        """Trace (and run) this function in train mode. A Layer method follows its Layer: switch it with
        ``layer.train()`` (this raises, as in Paddle, when the Layer is in eval mode)."""
        inst = self._instance
        from runtime.nn.layer.layers import Layer
        if isinstance(inst, Layer) and inst.training is False:
            raise RuntimeError(f"Failed to switch train mode. {self.dygraph_function} is a Layer's method, "
                               "please use Layer.train() to switch train mode.")
        self._training = True
        self._fast_args = None

    def eval(self):
        """Trace (and run) this function in eval mode: a Program of its own whose call does not make the
        parameters it reads differentiable. As in Paddle, functional calls keep their explicit arguments
        (``F.dropout(x, training=True)`` still drops). A Layer method follows its Layer (``layer.eval()``)."""
        inst = self._instance
        from runtime.nn.layer.layers import Layer
        if isinstance(inst, Layer) and inst.training is True:
            raise RuntimeError(f"Failed to switch eval mode. {self.dygraph_function} is a Layer's method, "
                               "please use Layer.eval() to switch eval mode.")
        self._training = False
        self._fast_args = None

    @property
    def training(self):
        """The mode the next call traces and runs in (a Layer method: its Layer's ``training``)."""
        return self._is_train_mode()

    def _is_train_mode(self):
        inst = self._instance
        if inst is not None:
            if not hasattr(inst, "training"):
                raise TypeError(NOT_A_LAYER_MESSAGE)
            return bool(inst.training)
        return self._training

    # -- programs ------------------------------------------------------------------------------------
    @property
    def code(self):
        """The converted source of the function."""
        from .conversion import converted_code
        fn = self._dygraph_function
        if getattr(fn, "_dy2st_not_to_static", False):
            # marked with paddle.jit.not_to_static: it runs as written, so its code is its own source
            import inspect
            import textwrap
            return textwrap.dedent(inspect.getsource(fn))
        return converted_code(fn).source

    @property
    def program_cache(self):
        return self._cache

    def get_traced_count(self):
        """How many Programs this function has traced (Paddle's name)."""
        return self._cache.traced

    @property
    def concrete_program(self):
        """The ConcreteProgram for the ``input_spec`` given to to_static, else of the last call."""
        return self.concrete_program_specify_input_spec(input_spec=None)

    def concrete_program_specify_input_spec(self, input_spec=None, with_hook=False, is_prim_infer=False):
        """The ConcreteProgram for ``input_spec`` (Paddle's rules: the to_static input_spec wins over
        this one, which must then be compatible; with neither, the last traced Program).
        ``with_hook``: include the Layer's forward pre/post hooks in the Program (as jit.save does)."""
        self._raise_when_property()
        from .jit.dy2static import logging_utils
        desired = input_spec
        if self._input_spec is not None:
            if input_spec is not None and not _specs_compatible(flatten(input_spec), flatten(self._input_spec)):
                raise ValueError(f"The `input_spec`: {input_spec} used to construct concrete_program is conflict "
                                 f"with the `input_spec`: {self._input_spec} in `@paddle.jit.to_static`")
            desired = self._input_spec
            if input_spec is not None:
                logging_utils.warn(f"\n\nYou have specified `input_spec` both in function definition (higher "
                                   f"priority) and `paddle.jit.save` (will be ignored.)\n\n\t Using: {desired}\n\n"
                                   f"\t Ignore: {input_spec}\n")
        if desired is not None:
            return self.get_concrete_program(*desired, with_hook=with_hook)[0]
        last = self._cache._last
        if last is None:
            name = self._dygraph_function.__qualname__
            raise ValueError(f"No valid transformed program for {name}.\n\t    Please specific `input_spec` in "
                             "`@paddle.jit.to_static` or feed input tensor to call the decorated function at once.\n"
                             f"({name} has not been called yet and has no input_spec: call it once, or give "
                             "to_static(input_spec=[InputSpec(...), ...]))")
        logging_utils.warn("No input_spec is found, save cached program instead")
        if len(self._cache) > 1:
            logging_utils.warn(f"Current {self._dygraph_function.__qualname__} has more than one cached programs: "
                               f"{len(self._cache)}, the last traced program will be return by default.")
        if (with_hook and not last.with_hook) or last.training != self._is_train_mode():
            # the same arguments again, in the current mode (jit.save: eval) and with the hooks if asked
            args, kwargs = last.call_specs
            return self.get_concrete_program(*args, with_hook=with_hook or last.with_hook, **kwargs)[0]
        return last

    @property
    def main_program(self):
        self._raise_when_property()
        return self.concrete_program.main_program

    @property
    def inputs(self):
        self._raise_when_property()
        return self.concrete_program.inputs

    @property
    def outputs(self):
        self._raise_when_property()
        return self.concrete_program.outputs

    def get_concrete_program(self, *args, **kwargs):
        """Trace (or look up) the Program for these arguments (InputSpecs or tensors);
        returns ``(concrete_program, partial_program)``. Paddle's keywords ``with_hook`` (trace the
        Layer's forward hooks into the Program), ``is_train`` (the mode; default: the function's) and
        ``is_prim_infer`` (no meaning here) are taken out of ``kwargs``."""
        self._raise_when_property()
        with_hook = bool(kwargs.pop("with_hook", False))
        is_train = kwargs.pop("is_train", None)
        kwargs.pop("is_prim_infer", None)
        cp = self._lookup(args, kwargs, specs_only=True, with_hook=with_hook,
                          training=None if is_train is None else bool(is_train))
        return cp, cp.runner

    def rollback(self):
        """Undo to_static: the original function (for a bound Layer method, the Layer's forward
        goes back to eager)."""
        inst = self._instance
        if inst is not None:
            fn = self._dygraph_function
            name = getattr(fn, "__name__", "forward")
            inst.__dict__[name] = fn.__get__(inst)
            return inst.__dict__[name]
        return self._dygraph_function

    def __deepcopy__(self, memo):
        """A copy of a bound method is bound to the copied Layer (it traces its own Programs, which read
        the copy's parameters); a plain function's copy is its original function, as in Paddle."""
        inst = self._instance
        if inst is None:
            return self._dygraph_function
        copied = StaticFunction(self._dygraph_function, self._input_spec, self._build_strategy, self._full_graph,
                                self._fallback, property=self._property)
        copied._training = self._training
        new_inst = memo.get(id(inst), inst)
        return copied.__get__(new_inst)

    def _converted_callable(self):
        from .conversion import convert_function
        fn = self._dygraph_function
        fn = fn if getattr(fn, "_dy2st_not_to_static", False) else convert_function(fn)
        inst = self._instance
        return fn.__get__(inst) if inst is not None else fn

    def _converted_callable_unbound(self):
        from .conversion import convert_function
        fn = self._dygraph_function
        return fn if getattr(fn, "_dy2st_not_to_static", False) else convert_function(fn)

    # -- calling ---------------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        fast = self._fast_args      # (never set for a property function)
        if fast is not None and not kwargs:
            # the hot path: the last all-tensor call's signature and mode checked and run in one function,
            # which returns _MISS when they differ (then the general path below, at the same stack depth
            # for the warnings that point at the user's call)
            out = fast(args)
            if out is not _MISS:
                return out
        if self._property:
            # a property function runs as it is: jit.save stores the constant it returns
            return self._call_eager(args, kwargs)
        if not _settings["enabled"] or self._eager_only is not None:
            if not _settings["enabled"]:
                from .jit.dy2static import logging_utils
                logging_utils.warn("The decorator '@paddle.jit.to_static' does NOT work when setting "
                                   "'paddle.jit.enable_to_static' to False. We will just return dygraph output. If "
                                   "you would like to get static graph output, please call API "
                                   "paddle.jit.enable_to_static(True)")
            return self._call_eager(args, kwargs)
        if state.static:
            # called while another function is being traced (or in static mode): inline it
            return self._converted_callable()(*args, **kwargs)
        cp = self._lookup(args, kwargs)
        if cp is None:      # fell back to eager
            return self._call_eager(args, kwargs)
        if not kwargs and state.amp is None and all(isinstance(a, Tensor) for a in args):
            inst = self._instance
            guard = (tuple([(a.__class__, a._data.shape, a._data.dtype, a.stop_gradient) for a in args]),
                     bool(inst.training) if inst is not None else self._training, _settings, weakref.ref(self),
                     _MISS)
            if cp._single is not None and len(cp.inputs) == len(args) and all(a.stop_gradient for a in args):
                # inference-shaped calls skip ConcreteProgram.run and PartialProgram.__call__ (same checks)
                self._fast_args = cp.runner.infer_call(cp.run, cp._single, guard)
            else:
                self._fast_args = _hot_path(cp.run, guard)
        return cp.run([a for a in flatten([args, kwargs]) if _is_tensor_arg(a)])

    def _call_eager(self, args, kwargs):
        inst = self._instance
        return self._dygraph_function(inst, *args, **kwargs) if inst is not None else \
            self._dygraph_function(*args, **kwargs)

    def _lookup(self, args, kwargs, specs_only=False, with_hook=False, training=None):
        inst = self._instance
        if inst is not None:
            _check_layer_instance(inst, self._full_graph)
        if training is None:
            training = bool(inst.training) if inst is not None else self._training
        leaves = flatten([list(args), kwargs])
        fast = self._fast
        sig = None
        amp = _amp_key()
        if not specs_only:
            sig = (training, amp) + tuple((a._data.shape, a._data.dtype, a.stop_gradient) if isinstance(a, Tensor) else
                                      (a.shape, a.dtype) if isinstance(a, np.ndarray) else
                                      (type(a), a if _hashable(a) else id(a)) for a in leaves) + \
                (len(args), tuple(sorted(kwargs)))
            if fast is not None and fast[0] == sig:
                return fast[1]
        specs = self._specs_for(args, kwargs, leaves)
        key = (training, _structure_key([list(args), kwargs]), tuple(
            (s.shape, s.dtype.name, bool(s.stop_gradient)) if isinstance(s, InputSpec) else
            (type(s), s if _hashable(s) else id(s)) for s in specs), with_hook, amp)
        cache = self._cache
        cp = cache.get(key)
        if cp is None:
            # a miss: trace under the function's lock, after looking again (another thread may have
            # traced this key while we waited); hits above never wait for a trace in progress
            with self._lock:
                cp = cache.get(key)
                if cp is None:
                    if self._eager_only is not None:     # another thread's trace fell back to eager
                        return None
                    with gc_paused():   # building a large graph: see runtime/utils/gc_pause.py
                        cp = self._trace(args, kwargs, specs, training, with_hook)
                        if cp is None:
                            return None
                        cp.runner   # build the PartialProgram now, once, rather than in racing first calls
                    cache.put(key, cp)
                    if cache.traced > MAX_TRACED_PROGRAM_COUNT:
                        self._warn_retracing(args, kwargs)
        if sig is not None:
            self._fast = (sig, cp)
        return cp

    def _warn_retracing(self, args, kwargs):
        """Once per function: it keeps being traced; say which arguments varied and how to fix it."""
        fn = self._dygraph_function
        with _warned_lock:
            try:
                if fn in _warned:
                    return
                _warned.add(fn)
            except TypeError:       # not weak-referenceable: warn per StaticFunction instead
                if self._retrace_warned:
                    return
                self._retrace_warned = True
        bound = self._cache.max_size if self._cache.max_size is not None else MAX_CACHE_SIZE
        try:
            labels = _leaf_labels(args, kwargs, self._param_names())
            msg = _retracing_message(fn.__qualname__, self._cache.traced, self._cache.keys(), labels, bound)
        except Exception:   # noqa: BLE001 -- an argument with an odd __eq__ must not turn a warning into an error
            msg = (f"{fn.__qualname__} has been traced {self._cache.traced} times (more than "
                   f"MAX_TRACED_PROGRAM_COUNT = {MAX_TRACED_PROGRAM_COUNT}); give to_static an input_spec with None "
                   f"for the dims that vary, or pass changing Python values as tensors")
        warnings.warn(msg, stacklevel=4)     # the user's call (through __call__ and _lookup)

    def _specs_for(self, args, kwargs, leaves):
        """One InputSpec per tensor leaf (from the input_spec when given), other leaves as they are.

        The input_spec lines up with the arguments by position (flattened), as in Paddle: a
        non-tensor where an InputSpec stands is an error; a tensor that does not fit its InputSpec
        is traced as it came (shape and dtype, one more Program) with a warning, as Paddle does.
        """
        given = flatten(self._input_spec) if self._input_spec is not None else None
        out = []
        for i, a in enumerate(leaves):
            if isinstance(a, InputSpec):
                out.append(a)
                continue
            want = given[i] if given is not None and i < len(given) else None
            if not _is_tensor_arg(a):
                if isinstance(want, InputSpec):
                    # name the whole argument: a list of floats where a tensor's InputSpec stands is one mistake
                    name, value = _leaf_owners(args, kwargs, self._param_names())[i]
                    raise TypeError(_spec_non_tensor_message(self._dygraph_function.__qualname__, name, want, value))
                out.append(a)
                continue
            shape = list(a.shape)
            dtype = a.dtype
            is_tensor = isinstance(a, Tensor)
            spec = None
            if isinstance(want, InputSpec):
                if want._matches(shape, dtype if is_tensor else None):
                    spec = want
                else:
                    spec = self._mismatched_spec(i, want, a, shape, dtype, args, kwargs)
            if spec is None:
                spec = InputSpec(shape, dtype if is_tensor else str(np.dtype(dtype)), None)
            sg = a.stop_gradient if isinstance(a, Tensor) else True
            if bool(spec.stop_gradient) != sg:
                spec = InputSpec(list(spec.shape), spec.dtype, spec.name, sg)
            out.append(spec)
        return out

    def _mismatched_spec(self, i, want, a, shape, dtype, args, kwargs):
        """The spec to trace a tensor that does not fit its InputSpec with (Paddle's rule: the
        InputSpec's shape when the ranks and fixed dims agree, else the tensor's own; always the
        tensor's dtype), warning once per argument."""
        got_dtype = convert_dtype(dtype) if isinstance(a, Tensor) else convert_dtype(str(np.dtype(dtype)))
        fits_shape = len(shape) == len(want.shape) and all(w == -1 or w == d for w, d in zip(want.shape, shape))
        spec = InputSpec(list(want.shape) if fits_shape else shape, got_dtype, want.name)
        if i not in self._spec_warned:
            self._spec_warned.add(i)
            label = _leaf_labels(args, kwargs, self._param_names())[i]
            warnings.warn(_spec_mismatch_message(self._dygraph_function.__qualname__, label, want, shape, got_dtype),
                          stacklevel=5)
        return spec

    def _param_names(self):
        """Names of the function's positional parameters, without ``self`` for a bound method (for
        messages; ``*args`` beyond them are called ``argument N``)."""
        names = self._positional
        if names is None:
            try:
                params = inspect.signature(self._dygraph_function).parameters.values()
                names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            except (TypeError, ValueError):
                names = []
            self._positional = names
        return names[1:] if self._instance is not None else names

    def _input_names(self, args, kwargs):
        """The default feed name of each leaf of ``flatten([list(args), kwargs])``, by Paddle's rule
        (``replace_spec_empty_name``): an argument ``x`` gives ``x``; a list argument ``xs`` gives
        ``xs_0``, ``xs_1`` (recursively); a dict argument gives its keys; an InputSpec's own ``name`` wins.
        Positional values caught by ``*args`` are named like a list argument called after it
        (``args_0``, ``args_1``; Paddle refuses such functions), keyword arguments by their key."""
        if self._signature is None:
            try:
                params = list(inspect.signature(self._dygraph_function).parameters.values())
            except (TypeError, ValueError):
                params = []
            self._signature = params
        params = self._signature[1:] if self._instance is not None else self._signature
        positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        varargs = next((p.name for p in params if p.kind == p.VAR_POSITIONAL), "args")
        out = []

        def rec(obj, name):
            if isinstance(obj, (list, tuple)):
                for j, o in enumerate(obj):
                    rec(o, f"{name}_{j}")
            elif isinstance(obj, dict):
                for k in sorted(obj):
                    rec(obj[k], str(k))
            else:
                out.append(name)
        for i, a in enumerate(args):
            rec(a, positional[i] if i < len(positional) else f"{varargs}_{i - len(positional)}")
        for k in sorted(kwargs):
            rec(kwargs[k], k)
        return out

    # -- tracing ---------------------------------------------------------------------------------------
    def _trace(self, args, kwargs, specs, training, with_hook=False):
        from runtime.static import api as static_api
        from .conversion import convert_function
        fn = self._dygraph_function
        try:
            converted = fn if getattr(fn, "_dy2st_not_to_static", False) else convert_function(fn)
        except (Dy2StaticError, SyntaxError) as e:    # SyntaxError: the source did not re-parse (kept as Paddle)
            if self._fallback:
                self._eager_only = str(e)
                warnings.warn(f"to_static: running {fn.__qualname__} eagerly (fallback=True): {e}", stacklevel=4)
                return None
            raise
        main, startup = Program(), Program()
        inst = self._instance
        buffers_before = _layer_buffers(inst)
        was_static = state.static
        # the Program must not depend on the caller's grad mode (a first call under paddle.no_grad()
        # would otherwise cache a Program with every value cut from the graph); a no_grad block
        # INSIDE the function still cuts what it builds
        was_grad = state.grad_enabled
        feeds = []
        names_used = set()
        try:
            _tracing.depth = getattr(_tracing, "depth", 0) + 1
            with program_guard(main, startup):
                state.static = True
                state.grad_enabled = True
                new_leaves = []
                k = 0
                default_names = self._input_names(args, kwargs)
                for i, spec in enumerate(specs):
                    if isinstance(spec, InputSpec):
                        name = spec.name or (default_names[i] if i < len(default_names) else f"input_{k}")
                        while name in names_used:
                            name = f"{name}_{k}"
                        names_used.add(name)
                        v = static_api.data(name, list(spec.shape), spec.dtype)
                        v.stop_gradient = bool(spec.stop_gradient)
                        feeds.append(v)
                        new_leaves.append(v)
                        k += 1
                    else:
                        new_leaves.append(spec)
                new_args, new_kwargs = pack([list(args), kwargs], new_leaves)
                if with_hook and _has_forward_hooks(inst) and getattr(fn, "__name__", "") == "forward":
                    outs = _call_with_hooks(inst, converted, tuple(new_args), new_kwargs)
                elif inst is not None:
                    outs = converted(inst, *new_args, **new_kwargs)
                else:
                    outs = converted(*new_args, **new_kwargs)
                if inspect.isgenerator(outs):
                    # a generator function: its body runs to the end at trace time (tensor
                    # conditions around a yield are refused by the generators pass); every call of
                    # the Program returns an iterator over the values it yielded
                    outs = _Yielded(outs)
                fetches, structure = _collect_outputs(outs, fn)
                _record_buffer_writes(main, inst, buffers_before)
        except Exception as e:
            better = bad_argument_error(e, fn.__qualname__, _top_level_arguments(args, kwargs, self._param_names()))
            if better is not None:
                # a None, list or str argument the function used as a tensor: say which and how to fix,
                # keeping the exception type and the user's line
                better.__traceback__ = e.__traceback__
                # (not a conversion problem: fallback=True would fail the same way eagerly)
                add_user_note(better, f"(raised while converting {fn.__qualname__} with paddle.jit.to_static)")
                raise better from e
            add_user_note(e, f"(raised while converting {fn.__qualname__} with paddle.jit.to_static)",
                          hint=hint_for(e))
            if self._fallback and not isinstance(e, (NameError,)):
                self._eager_only = f"{type(e).__name__}: {e}"
                warnings.warn(f"to_static: running {fn.__qualname__} eagerly (fallback=True) because converting "
                              f"it failed with {type(e).__name__}: {e}", stacklevel=4)
                return None
            if isinstance(e, KeyError):
                # as Paddle: a KeyError in converted code comes out as Dy2StKeyError with the report as its
                # message (a KeyError's str() would quote the whole report)
                from .jit.dy2static.error import ERROR_DATA
                data = getattr(e, ERROR_DATA, None)
                if data is not None:
                    raise data.create_exception() from e
            raise
        finally:
            _tracing.depth = max(getattr(_tracing, "depth", 1) - 1, 0)
            state.static = was_static
            state.grad_enabled = was_grad
            _restore_buffers(inst, buffers_before)
        cp = ConcreteProgram(main, startup, feeds, fetches, structure, fn, training)
        cp.with_hook = bool(with_hook)
        cp.call_specs = pack([list(args), kwargs], list(specs))
        return cp


def _hashable(x):
    try:
        hash(x)
        return True
    except TypeError:
        return False


def _structure_key(obj):
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__,) + tuple(_structure_key(o) for o in obj)
    if isinstance(obj, dict):
        return ("dict",) + tuple((k, _structure_key(obj[k])) for k in sorted(obj))
    return "."


def _leaf_labels(args, kwargs, names):
    """A name per leaf of ``flatten([list(args), kwargs])``: ``x``, ``xs[1]``, ``cfg['k']``."""
    out = []

    def rec(obj, label):
        if isinstance(obj, (list, tuple)):
            for j, o in enumerate(obj):
                rec(o, f"{label}[{j}]")
        elif isinstance(obj, dict):
            for k in sorted(obj):
                rec(obj[k], f"{label}[{k!r}]")
        else:
            out.append(label)
    for i, a in enumerate(args):
        rec(a, names[i] if i < len(names) else f"argument {i}")
    for k in sorted(kwargs):
        rec(kwargs[k], k)
    return out


def _leaf_owners(args, kwargs, names):
    """Per leaf of ``flatten([list(args), kwargs])``: ``(name, value)`` of the argument holding it."""
    pairs = [(names[i] if i < len(names) else f"argument {i}", a) for i, a in enumerate(args)]
    pairs += sorted(kwargs.items())
    return [pair for pair in pairs for _ in flatten(pair[1])]


def _top_level_arguments(args, kwargs, names):
    """``(name, value)`` of the call's arguments that are not tensors."""
    pairs = [(names[i] if i < len(names) else f"argument {i}", a) for i, a in enumerate(args)]
    pairs += sorted(kwargs.items())
    return [(n, a) for n, a in pairs if not _is_tensor_arg(a) and not isinstance(a, (InputSpec, Variable))]


def _shape_text(shape):
    return "[" + ", ".join("None" if d is None or d < 0 else str(d) for d in shape) + "]"


def _spec_text(spec):
    return f"shape {_shape_text(spec.shape)}, dtype {spec.dtype.name}"


def _spec_non_tensor_message(where, label, spec, value):
    from .errors import describe_value
    return (f"{where}: argument '{label}' has an InputSpec ({_spec_text(spec)}) but got {describe_value(value)}, "
            f"which is not a tensor; pass a tensor of that shape and dtype (paddle.to_tensor(...)), or take the "
            f"InputSpec out of input_spec if '{label}' is not a tensor argument")


def _spec_mismatch_message(where, label, spec, shape, dtype):
    return (f"{where}: argument '{label}' came with shape {list(shape)} and dtype {dtype.name}, which does not fit "
            f"its InputSpec ({_spec_text(spec)}; None dims may vary, the others must match), so it was traced "
            f"into a separate Program for what came, as Paddle does. If such inputs are expected, widen the "
            f"InputSpec (None for the dims that vary) or cast the input; this warning is shown once per argument")


def _some(items, n=5):
    items = list(items)
    return ", ".join(items[:n]) + (f" and {len(items) - n} more" if len(items) > n else "")


def _retracing_message(where, traced, keys, labels, bound):
    """The once-per-function warning: which arguments varied over the cached keys, and the fix."""
    latest = keys[-1] if keys else None
    varying = []
    if latest is not None:
        same = [k for k in keys if k[1] == latest[1] and len(k[2]) == len(latest[2])]
        for i in range(len(latest[2])):
            seen = []
            for k in same:
                if k[2][i] not in seen:
                    seen.append(k[2][i])
            if len(seen) > 1:
                varying.append((i, seen))
    parts = []
    specs = []
    for i, seen in varying:
        label = labels[i] if i < len(labels) else f"input {i}"
        if all(isinstance(e[0], tuple) for e in seen):      # a tensor: (shape, dtype, stop_gradient)
            shapes = [list(e[0]) for e in seen]
            ranks = {len(sh) for sh in shapes}
            dtypes = sorted({e[1] for e in seen})
            if len({(tuple(sh), e[1]) for sh, e in zip(shapes, seen)}) == 1:
                parts.append(f"argument '{label}' came with stop_gradient both True and False")
                continue
            shown = _some(str(sh) if len(dtypes) == 1 else f"{sh} {e[1]}" for sh, e in zip(shapes, seen))
            parts.append(f"argument '{label}' came with shapes {shown}")
            if len(ranks) == 1 and len(dtypes) == 1:
                rank = ranks.pop()
                dims = [None if len({sh[d] for sh in shapes}) > 1 else shapes[0][d] for d in range(rank)]
                specs.append(f"InputSpec(shape={dims}, dtype='{dtypes[0]}', name='{label}')")
        else:
            # unhashable values are keyed by id: show their type instead
            vals = [repr(e[1]) if isinstance(e[1], e[0]) else f"<{e[0].__name__} object>" for e in seen]
            shown = _some(vals)
            parts.append(f"argument '{label}' (not a tensor) came with values {shown}: pass it as a tensor "
                         f"(paddle.to_tensor) so that its value is an input of one Program, not a constant of many")
    what = "; ".join(parts) if parts else "the calls differed in input shapes, dtypes or non-tensor values"
    fix = ""
    if specs:
        fix = (" Declare the dims that vary as None with an InputSpec and one Program serves every such call, e.g. "
               "@paddle.jit.to_static(input_spec=[" + ", ".join(specs) + "]) (paddle.static.InputSpec; give every "
               "tensor argument its InputSpec, in order).")
    return (f"{where} has been traced {traced} times (more than MAX_TRACED_PROGRAM_COUNT = "
            f"{MAX_TRACED_PROGRAM_COUNT}): to_static traces one Program per distinct input shape, dtype and value of a non-tensor argument. "
            f"Here {what}.{fix} Only the {bound} most recently used Programs are kept (MAX_CACHE_SIZE, env "
            f"DY2ST_MAX_CACHE_SIZE); this warning is shown once per function.")


def _collect_outputs(outs, fn):
    leaves = flatten(outs)
    fetches, new = [], []
    for leaf in leaves:
        if isinstance(leaf, Variable):
            new.append(_Out(len(fetches)))
            fetches.append(leaf)
        elif is_undefined(leaf):
            leaf._fail()
        elif hasattr(type(leaf), "_dy2st_not_an_output"):
            leaf._dy2st_not_an_output(fn)      # (a list built in a tensor loop) raises, saying how to fix
        else:
            new.append(leaf)
    return fetches, pack(outs, new)


# -- train/eval and forward hooks ------------------------------------------------------------------------

NOT_A_LAYER_MESSAGE = ("When using 'to_static' to convert method of a class, please ensure the class inherits "
                       "from nn.Layer")


def _check_layer_instance(inst, full_graph):
    """Paddle's checks on the object a converted method runs on: TypeError without a ``training`` flag
    (``_is_train_mode``) and, converting the whole graph, for anything but a Layer (``get_parameters``);
    Paddle's bytecode mode (``full_graph=False``) runs an object that has ``training``."""
    from runtime.nn.layer.layers import Layer
    if isinstance(inst, Layer):
        return
    if not hasattr(inst, "training"):
        raise TypeError(NOT_A_LAYER_MESSAGE)
    if full_graph:
        raise TypeError(f"Type of `layer_instance` should be nn.Layer, but received {type(inst).__name__}")


def _has_forward_hooks(inst):
    return bool(getattr(inst, "_forward_pre_hooks", None) or getattr(inst, "_forward_post_hooks", None))


def _call_with_hooks(layer, converted, args, kwargs):
    """The outermost Layer's forward pre/post hooks around its converted forward, traced into the Program
    (Paddle's HookHelper, used by jit.save): a pre-hook's result replaces the inputs (a non-tuple is
    wrapped), a post-hook's result replaces the outputs."""
    with_kwargs = getattr(layer, "_forward_pre_hooks_with_kwargs_flag", {})
    for hook_id, hook in list(layer._forward_pre_hooks.items()):
        if with_kwargs.get(hook_id):
            res = hook(layer, args, kwargs)
            if res is not None:
                args, kwargs = res
                args = args if isinstance(args, tuple) else (args,)
        else:
            res = hook(layer, args)
            if res is not None:
                args = res if isinstance(res, tuple) else (res,)
    outs = converted(layer, *args, **kwargs)
    post_kwargs = getattr(layer, "_forward_post_hooks_with_kwargs_flag", {})
    for hook_id, hook in list(layer._forward_post_hooks.items()):
        res = hook(layer, args, kwargs, outs) if post_kwargs.get(hook_id) else hook(layer, args, outs)
        if res is not None:
            outs = res
    return outs


def _specs_compatible(given, own):
    """Paddle's ``input_specs_compatible``: same number of InputSpecs, each of the same dtype and rank
    with equal dims wherever both are fixed."""
    given = [s for s in given if isinstance(s, InputSpec)]
    own = [s for s in own if isinstance(s, InputSpec)]
    if len(given) != len(own):
        return False
    for a, b in zip(given, own):
        if a.dtype != b.dtype or len(a.shape) != len(b.shape):
            return False
        if any(x not in (-1, None) and y not in (-1, None) and x != y for x, y in zip(a.shape, b.shape)):
            return False
    return True


# -- Layer buffers assigned in forward ---------------------------------------------------------------------

def _layer_buffers(inst):
    from runtime.nn.layer.layers import Layer
    if not isinstance(inst, Layer):
        return []
    out = []
    for layer in inst.sublayers(include_self=True):
        for name, b in list(layer._buffers.items()):
            out.append((layer, name, b))
    return out


def _record_buffer_writes(program, inst, before):
    """``self.buf = expr`` in forward: the Program writes the new value into the eager buffer."""
    from runtime.static.builder import as_variable
    block = program.global_block()
    for layer, name, old in before:
        new = layer._buffers.get(name)
        if new is old or not isinstance(new, Variable) or not isinstance(old, Tensor):
            continue
        target = as_variable(block, old)
        block.append_op("assign", {"X": [new]}, {"Out": [target]})


def _restore_buffers(inst, before):
    for layer, name, old in before:
        if layer._buffers.get(name) is not old:
            layer._buffers[name] = old
