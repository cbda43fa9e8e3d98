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
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(f"{cls}: the 'params' of a group must be an ordered list, not a set")
        params = list(params)
        for p in params:
            if not isinstance(p, Tensor):
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
            if p.stop_gradient or p.grad is None:
                continue
            out.append((p, p.grad))
        return out

    def _apply_group(self, group, params_grads):
        if not params_grads:
            return
        if self._grad_clip is not None:
            params_grads = self._grad_clip(params_grads)
        self._create_accumulators([p for p, _ in params_grads], group)
        for p, g in params_grads:
            if g is None:
                continue
            reg = self._regularizer_for(p, group)
            if reg is not None and not (self._l2_in_op and isinstance(reg, L2Decay)):
                g = reg._apply(p, g)
            self._append_optimize_op(group, p, g)

    def _append_optimize_op(self, group, param, grad):
        raise NotImplementedError

    def _write(self, target, value):
        """Store an op result into a parameter or accumulator tensor."""
        if value is not None:
            target._data = value._data if isinstance(value, Tensor) else value

    @no_grad()
    def step(self):
        """Update every trainable parameter that has a gradient."""
        if state.static:
            raise NotImplementedError(f"{type(self).__name__}.step() works in dynamic graph mode; "
                                      "in static mode use minimize(loss)")
        for group in self._param_groups:
            self._apply_group(group, self._params_grads(group["params"]))

    def backward(self, loss, startup_program=None, parameters=None, no_grad_set=None, callbacks=None):
        """The (param, grad) pairs ready to apply (dynamic mode: grads from an earlier ``loss.backward()``)."""
        params = self._parameter_list if parameters is None else list(parameters)
        skip = _name_set(no_grad_set)
        return [(p, g) for p, g in self._params_grads(params) if p.name not in skip]

    @no_grad()
    def apply_gradients(self, params_grads):
        """Apply given (param, grad) pairs, grouped as the optimizer's parameter groups."""
        by_id = {id(p): (p, g) for p, g in params_grads}
        for group in self._param_groups:
            self._apply_group(group, [by_id[id(p)] for p in group["params"] if id(p) in by_id])
        return []

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Apply the gradients of ``loss`` already computed by ``loss.backward()``, like Paddle's dynamic
        mode (which does not run backward itself). Returns ``(optimize_ops, params_grads)``."""
        if state.static:
            raise NotImplementedError(f"{type(self).__name__}.minimize in static graph mode is not "
                                      "implemented yet")
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


def _name_set(no_grad_set):
    if not no_grad_set:
        return set()
    return {v if isinstance(v, str) else v.name for v in no_grad_set}
