"""paddle.optimizer.Optimizer: the base class (parameter groups, accumulators, step, state_dict).

``step()`` reads each trainable parameter's ``.grad``, clips the gradients of each group,
adds the regulariser's term, and runs the subclass's update op through ``run_op``; the
results are written back into the parameter and its accumulator tensors. Accumulators are
created on the first step and named like Paddle's (``linear_0.w_0_moment1_0``), which is
what ``state_dict()`` keys on.
"""
from __future__ import annotations

import collections
import itertools
import numbers
import re

import numpy as np

from ..framework import no_grad, state
from ..regularizer import L2Decay, WeightDecayRegularizer
from ..tensor import Tensor
from .lr import LRScheduler
from .multi_tensor import fused_update

__all__ = ["Optimizer"]

# Paddle's unique_name.generate: one counter per prefix, so the first optimizer of a process
# names its accumulators ..._0, the next one ..._1 (state_dict keys depend on it)
_name_counters: dict = collections.defaultdict(itertools.count)


def _unique_name(prefix: str) -> str:
    return f"{prefix}_{next(_name_counters[prefix])}"


def _as_float(value, what, cls):
    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{cls}: {what} must be a float, got {type(value).__name__}")
    return float(value)


def _to_regularizer(weight_decay, cls):
    if weight_decay is None or isinstance(weight_decay, WeightDecayRegularizer):
        return weight_decay
    return L2Decay(_as_float(weight_decay, "weight_decay", cls))


class Optimizer:
    """Base class of every optimizer. Subclasses set ``_default_dict`` (per-group hyper-parameters)
    and implement ``_create_accumulators(params, group)`` and ``_append_optimize_op(group, param, grad)``."""

    _default_dict: dict = {}
    # Momentum folds L2Decay into its op (regularization_method="l2_decay")
    _l2_in_op = False
    # AdamW: the optimizer's weight_decay is a decoupled coefficient, not a gradient regulariser
    _decoupled_weight_decay = False

    def __init__(self, learning_rate, parameters=None, weight_decay=None, grad_clip=None, name=None):
        cls = type(self).__name__
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, (numbers.Real, LRScheduler)):
            raise TypeError(f"{cls}: learning_rate must be a float or an LRScheduler, "
                            f"got {type(learning_rate).__name__}")
        if isinstance(learning_rate, numbers.Real):
            learning_rate = float(learning_rate)
        if parameters is None:
            if not state.static:
                raise AttributeError(f"{cls}: the parameters argument must not be None in dynamic graph mode; "
                                     "pass model.parameters()")
        elif isinstance(parameters, (Tensor, dict)):
            raise TypeError(f"{cls}: parameters must be an iterable of Tensors (or of parameter-group dicts), "
                            f"got {type(parameters).__name__}")
        from ..nn.clip import ClipGradBase
        if grad_clip is not None and not isinstance(grad_clip, ClipGradBase):
            raise TypeError(f"{cls}: grad_clip must be a ClipGradByValue, ClipGradByNorm or ClipGradByGlobalNorm "
                            f"instance, got {type(grad_clip).__name__}")
        self._learning_rate = learning_rate
        self._grad_clip = grad_clip
        self._name = name
        if self._decoupled_weight_decay:
            self.regularization = None
        else:
            self.regularization = _to_regularizer(weight_decay, cls)
        self._weight_decay = weight_decay
        self._accumulators: dict = collections.defaultdict(dict)   # acc name -> {param name: Tensor}
        self._accumulators_holder: dict = {}                       # loaded state not yet claimed
        self._param_groups = []
        self._parameter_list = []
        if parameters is not None:
            parameters = list(parameters)
            if parameters and isinstance(parameters[0], dict):
                for group in parameters:
                    self._add_param_group(dict(group), explicit=True)
            else:
                self._add_param_group({"params": parameters}, explicit=False)

    # -- parameter groups -------------------------------------------------------------------
    def _add_param_group(self, group, explicit=True):
        cls = type(self).__name__
        if not isinstance(group, dict) or "params" not in group:
            raise TypeError(f"{cls}: a parameter group must be a dict with a 'params' entry, got {group!r}")
        params = group["params"]
        if isinstance(params, Tensor) or _is_static_var(params):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(f"{cls}: the 'params' of a group must be an ordered list, not a set")
        params = list(params)
        for p in params:
            if not isinstance(p, Tensor) and not _is_static_var(p):
                raise TypeError(f"{cls}: parameters must be Tensors, got {type(p).__name__}")
        seen = {id(p) for p in self._parameter_list}
        if any(id(p) in seen for p in params):
            raise ValueError(f"{cls}: some parameters appear in more than one parameter group")
        full = dict(self._default_dict)
        full.update(group)
        full["params"] = params
        # the group's weight_decay overrides the optimizer's; its learning_rate is a multiplier
        if self._decoupled_weight_decay:
            full.setdefault("weight_decay", self._weight_decay)
        else:
            full["weight_decay"] = (_to_regularizer(group["weight_decay"], cls) if "weight_decay" in group
                                    else self.regularization)
        if explicit:   # Paddle resets the multiplier of every parameter given in a group dict
            mult = _as_float(group.get("learning_rate", 1.0), "the group's learning_rate", cls)
            for p in params:
                if hasattr(p, "optimize_attr"):
                    p.optimize_attr["learning_rate"] = mult
        self._param_groups.append(full)
        self._parameter_list.extend(params)

    # -- learning rate ----------------------------------------------------------------------
    def get_lr(self):
        """The current global learning rate (a float)."""
        if isinstance(self._learning_rate, LRScheduler):
            return float(self._learning_rate())
        return self._learning_rate

    def set_lr(self, value):
        """Set a float learning rate (not allowed when the optimizer uses an LRScheduler)."""
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"{type(self).__name__}.set_lr: value must be a float, got {type(value).__name__}")
        if isinstance(self._learning_rate, LRScheduler):
            raise RuntimeError(f"{type(self).__name__}.set_lr: the learning rate is an LRScheduler; "
                               "step the scheduler or call set_lr_scheduler instead")
        self._learning_rate = float(value)

    def set_lr_scheduler(self, scheduler):
        if not isinstance(scheduler, LRScheduler):
            raise TypeError(f"{type(self).__name__}.set_lr_scheduler: expected an LRScheduler, "
                            f"got {type(scheduler).__name__}")
        self._learning_rate = scheduler

    def _param_lr(self, param):
        """The learning rate for ``param``: global rate times its optimize_attr multiplier, as a [1] array."""
        if _is_static_var(param):
            return self._static_param_lr(param)
        lr = self.get_lr()
        mult = getattr(param, "optimize_attr", {}).get("learning_rate", 1.0)
        if mult != 1.0:
            lr = lr * mult
        dt = np.float64 if param._data.dtype == np.float64 else np.float32
        return np.asarray([lr], dtype=dt)

    # -- accumulators -----------------------------------------------------------------------
    def _add_accumulator(self, name, param, fill_value=0.0, shape=None, dtype=None):
        store = self._accumulators[name]
        if param.name in store:
            return store[param.name]
        prefix = f"{param.name}_{name}"
        var_name = _unique_name(prefix)
        if state.static:
            shape = list(param._data.shape) if shape is None else list(shape)
            dtype = np.dtype(param._data.dtype if dtype is None else dtype)
            acc = self._static_persistable(var_name, shape, dtype, fill_value)
            store[param.name] = acc
            return acc
        shape = tuple(param._data.shape) if shape is None else tuple(shape)
        dtype = np.dtype(param._data.dtype if dtype is None else dtype)
        loaded = None
        if self._accumulators_holder:
            key = var_name if var_name in self._accumulators_holder else self._holder_key(prefix)
            if key is not None:
                var_name, loaded = key, self._accumulators_holder.pop(key)
        if loaded is not None:
            arr = np.asarray(loaded._data if isinstance(loaded, Tensor) else loaded)
            if tuple(arr.shape) != shape:
                raise ValueError(f"{type(self).__name__}: loaded state '{var_name}' has shape {list(arr.shape)} "
                                 f"but parameter {param.name} needs {list(shape)}")
            arr = np.array(arr, dtype=dtype)
        else:
            arr = np.full(shape, fill_value, dtype=dtype)
        acc = Tensor(arr, name=var_name)
        acc.persistable = True
        store[param.name] = acc
        return acc

    def _holder_key(self, prefix):
        """A loaded key for ``prefix`` with any counter (a state saved by another optimizer instance)."""
        pat = re.compile(re.escape(prefix) + r"_\d+$")
        for k in self._accumulators_holder:
            if pat.match(k):
                return k
        return None

    def _get_accumulator(self, name, param):
        return self._accumulators[name][param.name]

    def _create_accumulators(self, params, group):
        """Subclasses: create the accumulators of ``params`` (of parameter group ``group``); called
        before every update, so implementations return early for parameters that have them."""

    # -- the update -------------------------------------------------------------------------
    def _regularizer_for(self, param, group):
        reg = getattr(param, "regularizer", None)
        if reg is not None:
            return reg
        return None if self._decoupled_weight_decay else group.get("weight_decay")

    def _params_grads(self, params):
        out = []
        for p in params:
            if p.stop_gradient:
                continue
            g = p.grad
            if g is not None:
                out.append((p, g))
        return out

    def _apply_group(self, group, params_grads):
        if not params_grads:
            return
        if self._grad_clip is not None:
            params_grads = self._grad_clip(params_grads)
        self._create_accumulators([p for p, _ in params_grads], group)
        fused = fused_update(self)
        if fused is None:
            for p, g in params_grads:
                if g is None:
                    continue
                reg = self._regularizer_for(p, group)
                if reg is not None and not (self._l2_in_op and isinstance(reg, L2Decay)):
                    g = reg._apply(p, g)
                self._append_optimize_op(group, p, g)
            return
        # the same updates, run by the class's fused multi-tensor update (multi_tensor.py) when it can
        pairs = []
        for p, g in params_grads:
            if g is None:
                continue
            reg = self._regularizer_for(p, group)
            if reg is not None and not (self._l2_in_op and isinstance(reg, L2Decay)):
                g = reg._apply(p, g)
            pairs.append((p, g))
        if pairs and not fused(self, group, pairs):
            for p, g in pairs:
                self._append_optimize_op(group, p, g)

    def _append_optimize_op(self, group, param, grad):
        raise NotImplementedError

    def _write(self, target, value):
        """Store an op result into a parameter or accumulator tensor."""
        if state.static:
            return   # static update ops write their inputs in place (see _make_inplace)
        if value is not None:
            target._data = value._data if isinstance(value, Tensor) else value

    def step(self):
        """Update every trainable parameter that has a gradient."""
        st = state
        if st.static:
            raise NotImplementedError(f"{type(self).__name__}.step() works in dynamic graph mode; "
                                      "in static mode use minimize(loss)")
        prev = st.grad_enabled
        st.grad_enabled = False     # as under no_grad() (whose decorator costs a step ~1.5 µs)
        try:
            for group in self._param_groups:
                self._apply_group(group, self._params_grads(group["params"]))
        finally:
            st.grad_enabled = prev

    def backward(self, loss, startup_program=None, parameters=None, no_grad_set=None, callbacks=None):
        """The (param, grad) pairs ready to apply (dynamic mode: grads from an earlier ``loss.backward()``)."""
        if state.static:
            return self._static_backward(loss, parameters, no_grad_set, callbacks)
        params = self._parameter_list if parameters is None else list(parameters)
        skip = _name_set(no_grad_set)
        return [(p, g) for p, g in self._params_grads(params) if p.name not in skip]

    @no_grad()
    def apply_gradients(self, params_grads):
        """Apply given (param, grad) pairs, grouped as the optimizer's parameter groups (static mode:
        append the update ops and return them)."""
        if state.static:
            return self._static_apply(params_grads)
        by_id = {id(p): (p, g) for p, g in params_grads}
        for group in self._param_groups:
            self._apply_group(group, [by_id[id(p)] for p in group["params"] if id(p) in by_id])
        return []

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Apply the gradients of ``loss`` already computed by ``loss.backward()``, like Paddle's dynamic
        mode (which does not run backward itself). Returns ``(optimize_ops, params_grads)``."""
        if state.static:
            params_grads = self._static_backward(loss, parameters, no_grad_set)
            return self._static_apply(params_grads, loss.block.program, startup_program), params_grads
        params_grads = self.backward(loss, startup_program, parameters, no_grad_set)
        self.apply_gradients(params_grads)
        return [], params_grads

    def clear_grad(self, set_to_zero=True):
        """Reset the gradients of all parameters (to zeros by default, else to None)."""
        for p in self._parameter_list:
            if not p.stop_gradient:
                p.clear_gradient(set_to_zero)

    clear_gradients = clear_grad

    # -- state ------------------------------------------------------------------------------
    def state_dict(self):
        """Accumulators by name (and "LR_Scheduler" when the rate is a scheduler)."""
        out = {}
        for store in self._accumulators.values():
            for acc in store.values():
                out[acc.name] = acc
        for k, v in self._accumulators_holder.items():
            out.setdefault(k, v)
        if isinstance(self._learning_rate, LRScheduler):
            out["LR_Scheduler"] = self._learning_rate.state_dict()
        return out

    def set_state_dict(self, state_dict):
        """Load a ``state_dict()`` (values may be Tensors or ndarrays); accumulators not created yet
        take their value when they are."""
        state_dict = dict(state_dict)
        sched = state_dict.pop("LR_Scheduler", None)
        if sched is not None and isinstance(self._learning_rate, LRScheduler):
            self._learning_rate.set_state_dict(sched)
        state_dict.pop("master_weights", None)
        state_dict.pop("StructuredToParameterName@@", None)
        holder = {k: v for k, v in state_dict.items() if isinstance(v, (Tensor, np.ndarray))}
        for name, store in self._accumulators.items():
            for pname, acc in list(store.items()):
                prefix = acc.name.rsplit("_", 1)[0]
                key = acc.name if acc.name in holder else None
                if key is None:
                    pat = re.compile(re.escape(prefix) + r"_\d+$")
                    key = next((k for k in holder if pat.match(k)), None)
                if key is None:
                    continue
                value = holder.pop(key)
                arr = np.asarray(value._data if isinstance(value, Tensor) else value)
                if arr.shape != acc._data.shape:
                    raise ValueError(f"{type(self).__name__}.set_state_dict: '{key}' has shape {list(arr.shape)} "
                                     f"but the optimizer's accumulator has shape {acc.shape}")
                acc._data = np.array(arr, dtype=acc._data.dtype)
        self._accumulators_holder = holder

    set_dict = set_state_dict

    def _group_value(self, group, key):
        return group[key] if key in group else self._default_dict[key]

    # -- static graph mode --------------------------------------------------------------------
    # minimize(loss) appends the backward (static.append_backward), then clip/regularisation ops and
    # the update ops (role ROLE_OPTIMIZE) to the loss's program. Accumulators and the learning rate
    # are persistable variables initialised by the startup program; update ops write their inputs
    # in place (ParamOut is the Param variable), so the main program can run once per batch.

    def _static_backward(self, loss, parameters=None, no_grad_set=None, callbacks=None):
        from ..static.backward import append_backward
        if parameters is None and self._parameter_list:
            parameters = self._parameter_list
        if parameters is not None:
            parameters = [p if isinstance(p, str) else p.name for p in parameters]
        return append_backward(loss, parameter_list=parameters, no_grad_set=no_grad_set, callbacks=callbacks)

    def _static_apply(self, params_grads, program=None, startup_program=None):
        from ..static.program import (default_main_program, default_startup_program, program_guard,
                                      op_role_guard, ROLE_OPTIMIZE)
        params_grads = [(p, g) for p, g in params_grads if g is not None]
        if program is None:
            program = params_grads[0][1].block.program if params_grads else default_main_program()
        startup = default_startup_program() if startup_program is None else startup_program
        block = program.global_block()
        n_before = len(block.ops)
        saved_idx = program.current_block_idx
        program.current_block_idx = 0
        try:
            with program_guard(program, startup), op_role_guard(program, ROLE_OPTIMIZE):
                self._static_program = (program, startup)
                for group, pgs in self._static_groups(params_grads):
                    self._static_apply_group(group, pgs, block)
        finally:
            program.current_block_idx = saved_idx
            self._static_program = None
        return block.ops[n_before:]

    def _static_groups(self, params_grads):
        if not self._param_groups:
            group = dict(self._default_dict)
            group["weight_decay"] = self._weight_decay if self._decoupled_weight_decay else self.regularization
            return [(group, params_grads)]
        by_name = {p.name: (p, g) for p, g in params_grads}
        out, claimed = [], set()
        for group in self._param_groups:
            pgs = [by_name[p.name] for p in group["params"] if p.name in by_name]
            claimed.update(p.name for p, _ in pgs)
            out.append((group, pgs))
        rest = [(p, g) for p, g in params_grads if p.name not in claimed]
        if rest:   # parameters minimize() found that no group lists: the optimizer's defaults
            group = dict(self._default_dict)
            group["weight_decay"] = self._weight_decay if self._decoupled_weight_decay else self.regularization
            out.append((group, rest))
        return out

    def _static_apply_group(self, group, params_grads, block):
        if not params_grads:
            return
        if self._grad_clip is not None:
            params_grads = _static_clip(self._grad_clip, params_grads)
        self._create_accumulators([_StaticParamView(p) for p, _ in params_grads], group)
        for p, g in params_grads:
            reg = self._regularizer_for(p, group)
            if reg is not None and not (self._l2_in_op and isinstance(reg, L2Decay)):
                g = _static_regularize(reg, p, g)
            start = len(block.ops)
            self._append_optimize_op(group, p, g)
            _make_inplace(block, start)

    def _static_persistable(self, name, shape, dtype, value):
        """A persistable variable of the main program, filled with ``value`` by the startup program."""
        from ..dispatch import run_op
        from ..dtype import from_numpy_dtype
        from ..static.program import program_guard
        program, startup = self._static_program
        d = from_numpy_dtype(np.dtype(dtype))
        v = program.global_block().create_var(name=name, shape=list(shape), dtype=d, persistable=True)
        sgb = startup.global_block()
        if name not in sgb.vars:
            sgb.create_var(name=name, shape=list(shape), dtype=d, persistable=True)
            with program_guard(startup, startup):
                out = run_op("fill_constant", shape=list(shape), dtype=d.proto, value=float(value),
                             str_value=str(int(value)) if d.np.kind in "biu" else str(float(value)))
            sgb.ops[-1]._rename_output(out.name, name)
            sgb.vars.pop(out.name, None)
        return v

    def _static_lr_var(self, dtype):
        """The program's learning-rate variable (``learning_rate_N``, shape [1]) for ``dtype``."""
        program, _ = self._static_program
        cache = self.__dict__.setdefault("_static_lr_vars", {})
        key = (program.id, np.dtype(dtype).str)
        v = cache.get(key)
        if v is None:
            v = self._static_persistable(_unique_name("learning_rate"), [1], dtype, self.get_lr())
            cache[key] = v
            if isinstance(self._learning_rate, LRScheduler):
                # Paddle's executor writes the scheduler's value into this variable before each run
                program.lr_scheduler = self._learning_rate
                self._learning_rate._var_name = v.name
        return v

    def _static_param_lr(self, param):
        from ..dispatch import run_op
        dt = np.float64 if param.dtype.np == np.float64 else np.float32
        lr = self._static_lr_var(dt)
        mult = getattr(param, "optimize_attr", {}).get("learning_rate", 1.0)
        if mult != 1.0:
            lr = run_op("scale", lr, None, None, scale=float(mult))
        return lr


class _StaticParamView:
    """What ``_create_accumulators`` reads of a parameter (``name``, ``_data.shape``/``.dtype``), for a
    static Parameter: ``_data`` is a zero-strided placeholder with the right shape and dtype."""

    def __init__(self, var):
        self.name = var.name
        self.shape = var.shape
        self.dtype = var.dtype
        self._data = np.broadcast_to(np.zeros((), dtype=var.dtype.np), tuple(var.shape))
        self.optimize_attr = getattr(var, "optimize_attr", {"learning_rate": 1.0})
        self.regularizer = getattr(var, "regularizer", None)
        self.need_clip = getattr(var, "need_clip", True)


def _is_static_var(x):
    if isinstance(x, (Tensor, dict, list, tuple)):
        return False
    from ..static.program import Variable
    return isinstance(x, Variable)


def _make_inplace(block, start):
    """Make the update ops appended since ``start`` write their state inputs: an output slot
    ``<X>Out`` takes the variable of input slot ``<X>`` (ParamOut -> Param, Moment1Out -> Moment1)."""
    for op in block.ops[start:]:
        for slot, names in op.outputs.items():
            if not slot.endswith("Out") or not names:
                continue
            src = op.inputs.get(slot[:-3])
            if not src or src[0] == names[0]:
                continue
            block.vars.pop(names[0], None)
            op.outputs[slot] = [src[0]]
    block.program._bump()


def _static_regularize(reg, param, grad):
    """``grad`` plus the regulariser's term, as ops (Paddle: scale/sign then sum)."""
    from ..dispatch import run_op
    from ..ops.registry import _OPS
    if isinstance(reg, L2Decay):
        decay = run_op("scale", param, None, None, scale=float(reg.coeff))
    elif "sign" in _OPS:
        decay = run_op("scale", run_op("sign", param), None, None, scale=float(reg.coeff))
    else:
        raise NotImplementedError(f"{type(reg).__name__} in static mode needs the sign op")
    return run_op("sum", [grad, decay])


def _static_clip(clip, params_grads):
    """Gradient clipping as ops (same formulas as the dynamic-mode clip classes)."""
    from ..dispatch import run_op
    from ..nn.clip import ClipGradByValue, ClipGradByNorm, ClipGradByGlobalNorm

    def needs(p, g):
        return g is not None and getattr(p, "need_clip", True)
    if isinstance(clip, ClipGradByValue):
        return [(p, run_op("clip", g, None, None, min=float(clip.min), max=float(clip.max)) if needs(p, g) else g)
                for p, g in params_grads]
    if isinstance(clip, ClipGradByNorm):
        return [(p, run_op("clip_by_norm", g, max_norm=float(clip.clip_norm)) if needs(p, g) else g)
                for p, g in params_grads]
    if isinstance(clip, ClipGradByGlobalNorm):
        from ..dtype import convert_dtype
        grads = [g for p, g in params_grads if needs(p, g)]
        if not grads:
            return params_grads
        acc = np.float64 if all(g.dtype.np == np.float64 for g in grads) else np.float32
        total = None
        for g in grads:
            sq = run_op("squared_l2_norm", g)
            if sq.dtype.np != acc:
                sq = run_op("cast", sq, in_dtype=sq.dtype.proto, out_dtype=convert_dtype(acc).proto)
            total = sq if total is None else run_op("elementwise_add", total, sq)
        norm = run_op("elementwise_pow", total, np.asarray(0.5, dtype=acc))
        max_norm = np.asarray([clip.clip_norm], dtype=acc)
        scale = run_op("elementwise_div", max_norm, run_op("elementwise_max", norm, max_norm))
        out = []
        for p, g in params_grads:
            if not needs(p, g):
                out.append((p, g))
                continue
            s = scale if g.dtype.np == acc else run_op("cast", scale, in_dtype=scale.dtype.proto,
                                                       out_dtype=g.dtype.proto)
            new = run_op("elementwise_mul", g, s)
            if new.shape != g.shape:
                new = run_op("reshape2", new, None, None, shape=list(g.shape))
            out.append((p, new))
        return out
    raise TypeError(f"grad_clip {type(clip).__name__} is not supported in static mode")


def _name_set(no_grad_set):
    if not no_grad_set:
        return set()
    return {v if isinstance(v, str) else v.name for v in no_grad_set}
