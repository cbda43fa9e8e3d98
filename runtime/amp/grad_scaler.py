"""``paddle.amp.GradScaler`` / ``AmpScaler``: loss scaling with Paddle's dynamic update rule.

``scale(loss)`` multiplies by the scale; ``step``/``minimize`` unscale the gradients (once per step), skip the
optimizer step when any gradient is inf/nan, and ``update`` (or ``minimize``) adjusts the scale: times
``decr_ratio`` after ``decr_every_n_nan_or_inf`` bad steps, times ``incr_ratio`` after ``incr_every_n_steps``
consecutive good ones. As in Paddle, ``scale`` disables a dynamic scaler when the last ``auto_cast`` was not
float16 (loss scaling is not used for bfloat16/float32), with a warning.
"""
from __future__ import annotations

import warnings
from collections import defaultdict
from enum import Enum

import numpy as np

from .auto_cast import amp_global_state


class OptimizerState(Enum):
    INIT = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state():
    return {"state": OptimizerState.INIT}


class AmpScaler:
    """Loss scaling (Paddle's ``AmpScaler``; `GradScaler` has Paddle's newer defaults and ``step``/``update``)."""

    def __init__(self, enable=True, init_loss_scaling=2.0 ** 15, incr_ratio=2.0, decr_ratio=0.5,
                 incr_every_n_steps=1000, decr_every_n_nan_or_inf=1, use_dynamic_loss_scaling=True):
        from ..tensor import Tensor
        self._enable = enable
        self._use_dynamic_loss_scaling = False
        self._init_loss_scaling = 1.0
        self._scale = None
        if enable:
            assert incr_ratio > 1.0, "The incr_ratio must be > 1.0."
            assert decr_ratio < 1.0, "The decr_ratio must be < 1.0."
            self._init_loss_scaling = init_loss_scaling
            self._incr_ratio = incr_ratio
            self._decr_ratio = decr_ratio
            self._incr_every_n_steps = incr_every_n_steps
            self._decr_every_n_nan_or_inf = decr_every_n_nan_or_inf
            self._incr_count = 0
            self._decr_count = 0
            self._use_dynamic_loss_scaling = use_dynamic_loss_scaling
            self._found_inf = False
            self._cache_found_inf = None
            self._scale = Tensor._wrap(np.array([init_loss_scaling], dtype=np.float32))
            self._optimizer_states = defaultdict(_fresh_state)

    def scale(self, var):
        """``var * scale`` (``var`` unchanged when the scaler is disabled)."""
        from ..tensor import Tensor
        if not isinstance(var, Tensor):
            raise TypeError(f"The type of 'var' in AmpScaler.scale() must be Tensor, but received {type(var)}.")
        if self._enable and amp_global_state().amp_dtype != "float16" and self._use_dynamic_loss_scaling:
            self._enable = False
            self._use_dynamic_loss_scaling = False
            self._init_loss_scaling = 1.0
            warnings.warn(f"It is not recommended to use dynamic loss scaling for {amp_global_state().amp_dtype}, "
                          "so GradScaler is disable by default.")
        if not self._enable:
            return var
        return var * self._scale

    def minimize(self, optimizer, *args, **kwargs):
        """Unscale (unless done), ``optimizer.minimize`` unless a gradient is inf/nan, then update the scale."""
        if not self._enable:
            return optimizer.minimize(*args, **kwargs)
        st = self._optimizer_states[id(optimizer)]
        if st["state"] is OptimizerState.INIT:
            self._unscale(optimizer)
        result = (None, None)
        if self._found_inf:
            self._cache_found_inf = True
        else:
            result = optimizer.minimize(*args, **kwargs)
            self._cache_found_inf = False
        if self._use_dynamic_loss_scaling:
            self._update()
        self._optimizer_states = defaultdict(_fresh_state)
        return result

    def _unscale(self, optimizer):
        """Multiply every parameter gradient by 1/scale in place and record whether any is inf/nan."""
        if not self._enable:
            return
        st = self._optimizer_states[id(optimizer)]
        if st["state"] is OptimizerState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if st["state"] is OptimizerState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv = 1.0 / float(self._scale._data[0])
        found = False
        for p in _parameters(optimizer):
            g = p._grad
            if g is None:
                continue
            data = g._data
            if not np.all(np.isfinite(data)):
                found = True
            g._data = (data * np.asarray(inv, dtype=np.float32)).astype(data.dtype, copy=False)
        self._found_inf = found
        st["state"] = OptimizerState.UNSCALED

    def _update(self):
        if not self._enable:
            return
        if self._cache_found_inf:
            self._incr_count = 0
            self._decr_count += 1
            if self._decr_count == self._decr_every_n_nan_or_inf:
                print(f"Found inf or nan, current scale is: {float(self._scale)}, decrease to: "
                      f"{float(self._scale)}*{float(self._decr_ratio)}")
                self._scale = self._scale * self._decr_ratio
                self._decr_count = 0
        else:
            self._decr_count = 0
            self._incr_count += 1
            if self._incr_count == self._incr_every_n_steps:
                self._scale = self._scale * self._incr_ratio
                self._incr_count = 0

    # -- getters and setters -------------------------------------------------------------------------
    def is_enable(self):
        return self._enable

    def is_use_dynamic_loss_scaling(self):
        return self._use_dynamic_loss_scaling

    def get_init_loss_scaling(self):
        return self._init_loss_scaling

    def set_init_loss_scaling(self, new_init_loss_scaling):
        from ..tensor import Tensor
        self._init_loss_scaling = new_init_loss_scaling
        self._scale = Tensor._wrap(np.array([new_init_loss_scaling], dtype=np.float32))

    def get_incr_ratio(self):
        return self._incr_ratio

    def set_incr_ratio(self, new_incr_ratio):
        assert new_incr_ratio > 1.0, "The new_incr_ratio must be > 1.0."
        self._incr_ratio = new_incr_ratio

    def get_decr_ratio(self):
        return self._decr_ratio

    def set_decr_ratio(self, new_decr_ratio):
        assert new_decr_ratio < 1.0, "The new_decr_ratio must be < 1.0."
        self._decr_ratio = new_decr_ratio

    def get_incr_every_n_steps(self):
        return self._incr_every_n_steps

    def set_incr_every_n_steps(self, new_incr_every_n_steps):
        self._incr_every_n_steps = new_incr_every_n_steps

    def get_decr_every_n_nan_or_inf(self):
        return self._decr_every_n_nan_or_inf

    def set_decr_every_n_nan_or_inf(self, new_decr_every_n_nan_or_inf):
        self._decr_every_n_nan_or_inf = new_decr_every_n_nan_or_inf

    def state_dict(self):
        """The scaler's state (empty when disabled); ``scale`` is a numpy array of shape [1]."""
        if not self._enable:
            return {}
        return {"scale": self._scale.numpy(), "incr_ratio": self._incr_ratio, "decr_ratio": self._decr_ratio,
                "incr_every_n_steps": self._incr_every_n_steps,
                "decr_every_n_nan_or_inf": self._decr_every_n_nan_or_inf, "incr_count": self._incr_count,
                "decr_count": self._decr_count, "use_dynamic_loss_scaling": self._use_dynamic_loss_scaling}

    def load_state_dict(self, state_dict):
        from ..tensor import Tensor
        if not self._enable:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The input state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_loss_scaling = np.asarray(state_dict["scale"]).reshape(-1)[0]
        self._scale = Tensor._wrap(np.array([self._init_loss_scaling], dtype=np.float32))
        for key in ("incr_ratio", "decr_ratio", "incr_every_n_steps", "decr_every_n_nan_or_inf", "incr_count",
                    "decr_count", "use_dynamic_loss_scaling"):
            setattr(self, "_" + key, state_dict[key])


class GradScaler(AmpScaler):
    """``paddle.amp.GradScaler``: `AmpScaler` with ``step`` / ``update`` / ``unscale_`` and Paddle 3's defaults."""

    def __init__(self, enable=True, init_loss_scaling=2.0 ** 16, incr_ratio=2.0, decr_ratio=0.5,
                 incr_every_n_steps=2000, decr_every_n_nan_or_inf=1, use_dynamic_loss_scaling=True):
        super().__init__(enable, init_loss_scaling, incr_ratio, decr_ratio, incr_every_n_steps,
                         decr_every_n_nan_or_inf, use_dynamic_loss_scaling)

    def step(self, optimizer):
        """``optimizer.step()`` on the unscaled gradients, skipped when one is inf/nan."""
        if not self._enable:
            return optimizer.step()
        st = self._optimizer_states[id(optimizer)]
        if st["state"] is OptimizerState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if st["state"] is OptimizerState.INIT:
            self._unscale(optimizer)
        if self._found_inf:
            self._cache_found_inf = True
        else:
            optimizer.step()
            self._cache_found_inf = False
        st["state"] = OptimizerState.STEPPED
        if not self._use_dynamic_loss_scaling:
            self._optimizer_states = defaultdict(_fresh_state)

    def update(self):
        """Adjust the scale after ``step`` (dynamic loss scaling only)."""
        if not self._enable:
            return
        if self._use_dynamic_loss_scaling:
            self._update()
            self._optimizer_states = defaultdict(_fresh_state)

    def unscale_(self, optimizer):
        """Unscale the gradients now (e.g. before clipping them); ``step`` then does not unscale again."""
        return self._unscale(optimizer)


def _parameters(optimizer):
    groups = getattr(optimizer, "_param_groups", None)
    if groups and isinstance(groups[0], dict):
        return [p for g in groups for p in g["params"]]
    return list(getattr(optimizer, "_parameter_list", []) or [])
