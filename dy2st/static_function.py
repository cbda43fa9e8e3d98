"""`StaticFunction`: what ``@to_static`` returns. Traces once per input signature, then runs
the cached Program.

Call path: build the cache key from the arguments (tensor args by shape/dtype — or by the
matching InputSpec, whose ``None`` dims make one Program serve every batch size — other args
by value, plus the Layer's training flag); on a miss, trace the converted function into a new
Program (`ConcreteProgram`); then run it through a `PartialProgram`, which also makes it one
node of the eager autograd tape when gradients are needed. The user's Python runs only while
tracing (as in Paddle's AST mode).
"""
from __future__ import annotations

import functools
import inspect
import warnings
import weakref

import numpy as np

from runtime.framework import state
from runtime.static.control_flow import flatten, pack
from runtime.static.input_spec import InputSpec
from runtime.static.program import Program, Variable, program_guard
from runtime.tensor import Tensor

from .errors import Dy2StaticError, add_user_note, hint_for
from .undefined import is_undefined

MAX_TRACED_PROGRAMS = 10
_settings = {"enabled": True}


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

    @property
    def runner(self):
        if self._runner is None:
            from .partial_program import PartialProgram
            self._runner = PartialProgram(self.main_program, self.inputs, self.outputs, training=self.training)
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


class ProgramCache:
    """The ConcretePrograms of one StaticFunction, by key."""

    def __init__(self):
        self._programs = {}
        self.last = None

    def __len__(self):
        return len(self._programs)

    def __contains__(self, key):
        return key in self._programs

    def get(self, key):
        return self._programs.get(key)

    def put(self, key, cp):
        self._programs[key] = cp
        self.last = cp

    def concrete_programs(self):
        return list(self._programs.values())

    def clear(self):
        self._programs.clear()
        self.last = None


class StaticFunction:
    """A function (or Layer method) converted by ``paddle.jit.to_static``."""

    def __init__(self, function, input_spec=None, build_strategy=None, full_graph=True, fallback=False,
                 instance=None, **kwargs):
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
        self._fast = None          # (signature of the last call, its ConcreteProgram)
        self._fast_args = None     # (signature, training, ConcreteProgram.run) of the last all-tensor call
        self._eager_only = None    # reason, once conversion failed with fallback on
        self._signature = None
        functools.update_wrapper(self, function)

    # -- binding ---------------------------------------------------------------------------------------
    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        bound = self._bound.get(instance)
        if bound is None:
            bound = StaticFunction(self._dygraph_function, self._input_spec, self._build_strategy, self._full_graph,
                                   self._fallback, instance=instance)
            self._bound[instance] = bound
        return bound

    @property
    def _instance(self):
        return self._instance_ref() if self._instance_ref is not None else None

    # -- public API ------------------------------------------------------------------------------------
    @property
    def dygraph_function(self):
        return self._dygraph_function

    @property
    def code(self):
        """The converted source of the function."""
        from .conversion import converted_code
        return converted_code(self._dygraph_function).source

    @property
    def program_cache(self):
        return self._cache

    @property
    def concrete_program(self):
        """The ConcreteProgram of the last call (traced from the input_spec when there was none)."""
        if self._cache.last is None:
            if self._input_spec is None:
                raise ValueError(f"{self._dygraph_function.__qualname__} has not been called yet and has no "
                                 "input_spec: call it once or give to_static(input_spec=[...])")
            return self.get_concrete_program(*self._input_spec)[0]
        return self._cache.last

    @property
    def main_program(self):
        return self.concrete_program.main_program

    @property
    def inputs(self):
        return self.concrete_program.inputs

    @property
    def outputs(self):
        return self.concrete_program.outputs

    def get_concrete_program(self, *args, **kwargs):
        """Trace (or look up) the Program for these arguments (InputSpecs or tensors);
        returns ``(concrete_program, partial_program)``."""
        cp = self._lookup(args, kwargs, specs_only=True)
        return cp, cp.runner

    def rollback(self):
        """Undo to_static: the original function (for a bound Layer method, the Layer's forward
        goes back to eager)."""
        inst = self._instance
        if inst is not None:
            fn = self._dygraph_function
            inst.__dict__["forward"] = fn.__get__(inst)
            return inst.__dict__["forward"]
        return self._dygraph_function

    def _converted_callable(self):
        from .conversion import convert_function
        fn = convert_function(self._dygraph_function)
        inst = self._instance
        return fn.__get__(inst) if inst is not None else fn

    def _converted_callable_unbound(self):
        from .conversion import convert_function
        return convert_function(self._dygraph_function)

    # -- calling ---------------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        fast = self._fast_args
        if fast is not None and not kwargs and _settings["enabled"] and not state.static:
            # the hot path: positional tensors with the same classes, shapes, dtypes and stop_gradient
            # as the last call, in the same train/eval mode, reuse its program without building a key
            try:
                sig = tuple([(a.__class__, a._data.shape, a._data.dtype, a.stop_gradient) for a in args])
            except AttributeError:
                sig = None
            if sig == fast[0]:
                inst = self._instance
                if (bool(getattr(inst, "training", False)) if inst is not None else False) is fast[1]:
                    return fast[2](args)
        if not _settings["enabled"] or self._eager_only is not None:
            return self._call_eager(args, kwargs)
        if state.static:
            # called while another function is being traced (or in static mode): inline it
            return self._converted_callable()(*args, **kwargs)
        cp = self._lookup(args, kwargs)
        if cp is None:      # fell back to eager
            return self._call_eager(args, kwargs)
        if not kwargs and all(isinstance(a, Tensor) for a in args):
            inst = self._instance
            self._fast_args = (tuple([(a.__class__, a._data.shape, a._data.dtype, a.stop_gradient) for a in args]),
                               bool(getattr(inst, "training", False)) if inst is not None else False, cp.run)
        return cp.run([a for a in flatten([args, kwargs]) if _is_tensor_arg(a)])

    def _call_eager(self, args, kwargs):
        inst = self._instance
        return self._dygraph_function(inst, *args, **kwargs) if inst is not None else \
            self._dygraph_function(*args, **kwargs)

    def _lookup(self, args, kwargs, specs_only=False):
        inst = self._instance
        training = bool(getattr(inst, "training", False)) if inst is not None else False
        leaves = flatten([list(args), kwargs])
        fast = self._fast
        sig = None
        if not specs_only:
            sig = (training,) + tuple((a._data.shape, a._data.dtype, a.stop_gradient) if isinstance(a, Tensor) else
                                      (a.shape, a.dtype) if isinstance(a, np.ndarray) else
                                      (type(a), a if _hashable(a) else id(a)) for a in leaves) + \
                (len(args), tuple(sorted(kwargs)))
            if fast is not None and fast[0] == sig:
                return fast[1]
        specs = self._specs_for(args, kwargs, leaves)
        key = (training, _structure_key([list(args), kwargs]), tuple(
            (s.shape, s.dtype.name, bool(s.stop_gradient)) if isinstance(s, InputSpec) else
            (type(s), s if _hashable(s) else id(s)) for s in specs))
        cp = self._cache.get(key)
        if cp is None:
            cp = self._trace(args, kwargs, specs, training)
            if cp is None:
                return None
            self._cache.put(key, cp)
            if len(self._cache) > MAX_TRACED_PROGRAMS:
                warnings.warn(f"{self._dygraph_function.__qualname__} has been traced {len(self._cache)} times "
                              f"(one Program per distinct input shape, dtype and non-tensor argument value); the "
                              f"latest call had {_describe_key(key)}. Give to_static an input_spec with None for "
                              "dims that vary, or pass changing Python values as tensors", stacklevel=3)
        else:
            self._cache.last = cp
        if sig is not None:
            self._fast = (sig, cp)
        return cp

    def _specs_for(self, args, kwargs, leaves):
        """One InputSpec per tensor leaf (from the input_spec when given), other leaves as they are."""
        given = flatten(self._input_spec) if self._input_spec is not None else None
        out = []
        k = 0
        for a in leaves:
            if isinstance(a, InputSpec):
                out.append(a)
                continue
            if not _is_tensor_arg(a):
                out.append(a)
                continue
            shape = list(a.shape)
            dtype = a.dtype
            spec = None
            if given is not None and k < len(given) and isinstance(given[k], InputSpec):
                spec = given[k]
                if not spec._matches(shape, dtype if isinstance(a, Tensor) else None):
                    raise ValueError(f"{self._dygraph_function.__qualname__}: input {k} "
                                     f"('{spec.name or self._arg_name(k)}') has shape {shape} and dtype "
                                     f"{getattr(dtype, 'name', dtype)}, which does not match its InputSpec "
                                     f"(shape {list(spec.shape)}, dtype {spec.dtype.name}); -1 dims may vary, the "
                                     "others must match")
            if spec is None:
                spec = InputSpec(shape, dtype if isinstance(a, Tensor) else str(np.dtype(dtype)), None)
            sg = a.stop_gradient if isinstance(a, Tensor) else True
            if bool(spec.stop_gradient) != sg:
                spec = InputSpec(list(spec.shape), spec.dtype, spec.name, sg)
            out.append(spec)
            k += 1
        return out

    def _arg_name(self, k):
        if self._signature is None:
            try:
                self._signature = [p for p in inspect.signature(self._dygraph_function).parameters]
            except (TypeError, ValueError):
                self._signature = []
        names = self._signature[1:] if self._instance is not None else self._signature
        return names[k] if k < len(names) else f"input_{k}"

    # -- tracing ---------------------------------------------------------------------------------------
    def _trace(self, args, kwargs, specs, training):
        from runtime.static import api as static_api
        from .conversion import convert_function
        fn = self._dygraph_function
        try:
            converted = fn if getattr(fn, "_dy2st_not_to_static", False) else convert_function(fn)
        except Dy2StaticError as e:
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
            with program_guard(main, startup):
                state.static = True
                state.grad_enabled = True
                new_leaves = []
                k = 0
                for spec in specs:
                    if isinstance(spec, InputSpec):
                        name = spec.name or self._arg_name(k)
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
                if inst is not None:
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
            add_user_note(e, f"(raised while converting {fn.__qualname__} with paddle.jit.to_static)",
                          hint=hint_for(e))
            if self._fallback and not isinstance(e, (NameError,)):
                self._eager_only = f"{type(e).__name__}: {e}"
                warnings.warn(f"to_static: running {fn.__qualname__} eagerly (fallback=True) because converting "
                              f"it failed with {type(e).__name__}: {e}", stacklevel=4)
                return None
            raise
        finally:
            state.static = was_static
            state.grad_enabled = was_grad
            _restore_buffers(inst, buffers_before)
        return ConcreteProgram(main, startup, feeds, fetches, structure, fn, training)


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


def _describe_key(key):
    training, _, specs = key
    parts = [f"shape {list(s[0])} {s[1]}" if isinstance(s[0], tuple) else f"{s[0].__name__} {s[1]!r}"
             for s in specs]
    return "training=" + str(training) + ", inputs: " + ", ".join(parts)


def _collect_outputs(outs, fn):
    leaves = flatten(outs)
    fetches, new = [], []
    for leaf in leaves:
        if isinstance(leaf, Variable):
            new.append(_Out(len(fetches)))
            fetches.append(leaf)
        elif is_undefined(leaf):
            leaf._fail()
        else:
            new.append(leaf)
    return fetches, pack(outs, new)


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
