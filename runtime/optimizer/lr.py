"""paddle.optimizer.lr: learning-rate schedulers.

A scheduler holds ``last_epoch`` (the number of ``step()`` calls, starting at 0 after
construction) and ``last_lr``; calling it returns ``last_lr``. Optimizers read the current
rate from it at every update, and save it under "LR_Scheduler" in their state_dict.
"""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

__all__ = ["LRScheduler", "NoamDecay", "PiecewiseDecay", "NaturalExpDecay", "InverseTimeDecay",
           "PolynomialDecay", "LinearWarmup", "ExponentialDecay", "MultiStepDecay", "StepDecay",
           "LambdaDecay", "ReduceOnPlateau", "CosineAnnealingDecay", "MultiplicativeDecay",
           "LinearLR", "CosineAnnealingWarmRestarts", "OneCycleLR", "CyclicLR"]


def _is_number(x):
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _plain(value):
    """Tensors and numpy scalars in a scheduler's state become plain Python numbers."""
    from ..tensor import Tensor
    if isinstance(value, Tensor):
        value = value.numpy()
    if isinstance(value, np.ndarray):
        return value.item() if value.size == 1 else value
    if isinstance(value, np.generic):
        return value.item()
    return value


class LRScheduler:
    """Base class: subclasses implement ``get_lr()`` from ``base_lr`` and ``last_epoch``."""

    def __init__(self, learning_rate=0.1, last_epoch=-1, verbose=False):
        if not _is_number(learning_rate):
            raise TypeError(f"{type(self).__name__}: learning_rate must be a float, "
                            f"got {type(learning_rate).__name__}")
        if learning_rate < 0:
            raise ValueError(f"{type(self).__name__}: learning_rate must be >= 0, got {learning_rate}")
        self.base_lr = float(learning_rate)
        self.last_lr = float(learning_rate)
        self.last_epoch = last_epoch
        self.verbose = verbose
        self._var_name = None
        self.step()

    def __call__(self):
        """The current learning rate."""
        return self.last_lr

    def step(self, epoch=None):
        """Advance one epoch (or jump to ``epoch``) and recompute ``last_lr``."""
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = _plain(epoch)
            closed = getattr(self, "_get_closed_form_lr", None)
            self.last_lr = closed() if closed is not None else self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to {self.last_lr}.")

    def get_lr(self):
        raise NotImplementedError(f"{type(self).__name__} must implement get_lr()")

    def state_keys(self):
        self.keys = ["last_epoch", "last_lr"]

    def state_dict(self):
        self.state_keys()
        return {key: _plain(self.__dict__[key]) for key in self.keys}

    def set_state_dict(self, state_dict):
        self.state_keys()
        for key in self.keys:
            if key not in state_dict:
                raise RuntimeError(f"{type(self).__name__}.set_state_dict: the state_dict has no '{key}' entry "
                                   f"(its keys are {sorted(state_dict)}); was it saved by a different scheduler?")
            self.__dict__[key] = _plain(state_dict[key])
        if len(state_dict) > len(self.keys):
            warnings.warn("There are some unused values in state_dict. Maybe the optimizer have different "
                          "'LearningRateDecay' when invoking state_dict and set_dict")

    set_dict = set_state_dict


def _check_int(value, what, cls, minimum=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{cls}: {what} must be an int, got {type(value).__name__}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{cls}: {what} must be >= {minimum}, got {value}")
    return int(value)


def _check_num(value, what, cls):
    if not _is_number(value):
        raise TypeError(f"{cls}: {what} must be a float, got {type(value).__name__}")
    return value


class NoamDecay(LRScheduler):
    """``lr * d_model**-0.5 * min(epoch**-0.5, warmup_steps**-1.5 * epoch)`` (epoch 0 uses 1 for the first term)."""

    def __init__(self, d_model, warmup_steps, learning_rate=1.0, last_epoch=-1, verbose=False):
        if d_model <= 0:
            raise ValueError(f"NoamDecay: d_model must be > 0, got {d_model}")
        self.d_model = d_model
        self.warmup_steps = warmup_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        a = 1 if self.last_epoch == 0 else self.last_epoch ** -0.5
        b = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * self.d_model ** -0.5 * min(a, b)


class PiecewiseDecay(LRScheduler):
    """``values[i]`` while ``epoch < boundaries[i]``; ``values[-1]`` after the last boundary."""

    def __init__(self, boundaries, values, last_epoch=-1, verbose=False):
        if len(boundaries) == 0:
            raise ValueError("PiecewiseDecay: boundaries must not be empty")
        if len(values) != len(boundaries) + 1:
            raise ValueError(f"PiecewiseDecay: values must have len(boundaries) + 1 = {len(boundaries) + 1} "
                             f"entries, got {len(values)}")
        self.boundaries = list(boundaries)
        self.values = list(values)
        super().__init__(last_epoch=last_epoch, verbose=verbose)

    def get_lr(self):
        for b, v in zip(self.boundaries, self.values):
            if self.last_epoch < b:
                return v
        return self.values[-1]


class NaturalExpDecay(LRScheduler):
    """``lr * exp(-gamma * epoch)``."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _check_num(gamma, "gamma", "NaturalExpDecay")
        if gamma <= 0:
            raise ValueError(f"NaturalExpDecay: gamma must be > 0, got {gamma}")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * math.exp(-1 * self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """``lr / (1 + gamma * epoch)``."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _check_num(gamma, "gamma", "InverseTimeDecay")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """``(lr - end_lr) * (1 - epoch / decay_steps) ** power + end_lr``; with ``cycle`` the decay
    period grows to the next multiple of ``decay_steps`` instead of stopping at ``end_lr``."""

    def __init__(self, learning_rate, decay_steps, end_lr=0.0001, power=1.0, cycle=False, last_epoch=-1,
                 verbose=False):
        self.decay_steps = _check_int(decay_steps, "decay_steps", "PolynomialDecay", minimum=1)
        self.end_lr = float(_check_num(end_lr, "end_lr", "PolynomialDecay"))
        if power <= 0:
            raise ValueError(f"PolynomialDecay: power must be > 0, got {power}")
        self.power = power
        self.cycle = cycle
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        epoch = self.last_epoch
        steps = self.decay_steps
        if self.cycle:
            n = math.ceil(epoch / steps)
            steps = steps * (1 if epoch == 0 else n)
        else:
            epoch = min(epoch, steps)
        return (self.base_lr - self.end_lr) * (1 - float(epoch) / float(steps)) ** self.power + self.end_lr


class LinearWarmup(LRScheduler):
    """Ramp linearly from ``start_lr`` to ``end_lr`` over ``warmup_steps`` steps, then follow
    ``learning_rate`` (a float, or a scheduler stepped to ``epoch - warmup_steps``)."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1, verbose=False):
        if not (isinstance(learning_rate, LRScheduler) or _is_number(learning_rate)):
            raise TypeError(f"LinearWarmup: learning_rate must be a float or an LRScheduler, "
                            f"got {type(learning_rate).__name__}")
        self.learning_rate = learning_rate
        self.warmup_steps = _check_int(warmup_steps, "warmup_steps", "LinearWarmup", minimum=1)
        self.start_lr = _check_num(start_lr, "start_lr", "LinearWarmup")
        self.end_lr = _check_num(end_lr, "end_lr", "LinearWarmup")
        if end_lr <= start_lr:
            raise ValueError(f"LinearWarmup: end_lr ({end_lr}) must be greater than start_lr ({start_lr})")
        super().__init__(start_lr, last_epoch, verbose)

    def state_dict(self):
        state = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            state["LinearWarmup_LR"] = self.learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        inner = state_dict.pop("LinearWarmup_LR", None)
        super().set_state_dict(state_dict)
        if inner is not None and isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.set_state_dict(inner)

    set_dict = set_state_dict

    def get_lr(self):
        if self.last_epoch < self.warmup_steps:
            return (self.end_lr - self.start_lr) * float(self.last_epoch) / float(self.warmup_steps) + self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return self.learning_rate


class ExponentialDecay(LRScheduler):
    """``lr * gamma ** epoch``."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = _check_num(gamma, "gamma", "ExponentialDecay")
        if not 0.0 < gamma < 1.0:
            raise ValueError(f"ExponentialDecay: gamma must be in (0, 1), got {gamma}")
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** self.last_epoch


class MultiStepDecay(LRScheduler):
    """``lr * gamma ** (number of milestones <= epoch)``."""

    def __init__(self, learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        if not isinstance(milestones, (list, tuple)):
            raise TypeError(f"MultiStepDecay: milestones must be a list or tuple, got {type(milestones).__name__}")
        if not all(milestones[i] < milestones[i + 1] for i in range(len(milestones) - 1)):
            raise ValueError(f"MultiStepDecay: milestones must be increasing, got {list(milestones)}")
        if gamma >= 1.0:
            raise ValueError(f"MultiStepDecay: gamma must be < 1.0, got {gamma}")
        self.milestones = list(milestones)
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        for i, m in enumerate(self.milestones):
            if self.last_epoch < m:
                return self.base_lr * self.gamma ** i
        return self.base_lr * self.gamma ** len(self.milestones)


class StepDecay(LRScheduler):
    """``lr * gamma ** (epoch // step_size)``."""

    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self.step_size = _check_int(step_size, "step_size", "StepDecay", minimum=1)
        if gamma >= 1.0:
            raise ValueError(f"StepDecay: gamma must be < 1.0, got {gamma}")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class LambdaDecay(LRScheduler):
    """``lr * lr_lambda(epoch)``."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError(f"LambdaDecay: lr_lambda must be a function, got {type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)


class MultiplicativeDecay(LRScheduler):
    """``last_lr * lr_lambda(epoch)`` for every epoch after the first."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError(f"MultiplicativeDecay: lr_lambda must be a function, got {type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch > 0:
            return self.last_lr * self.lr_lambda(self.last_epoch)
        return self.base_lr


class CosineAnnealingDecay(LRScheduler):
    """Cosine annealing from ``lr`` to ``eta_min`` over ``T_max`` epochs (the recursive SGDR form;
    ``step(epoch)`` uses the closed form ``eta_min + (lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2``)."""

    def __init__(self, learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False):
        self.T_max = _check_int(T_max, "T_max", "CosineAnnealingDecay", minimum=1)
        self.eta_min = float(_check_num(eta_min, "eta_min", "CosineAnnealingDecay"))
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        e, t = self.last_epoch, self.T_max
        if e == 0:
            return self.base_lr
        if (e - 1 - t) % (2 * t) == 0:
            return self.last_lr + (self.base_lr - self.eta_min) * (1 - math.cos(math.pi / t)) / 2
        return ((1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t))
                * (self.last_lr - self.eta_min) + self.eta_min)

    def _get_closed_form_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class LinearLR(LRScheduler):
    """Scale ``lr`` by a factor moving linearly from ``start_factor`` to ``end_factor`` over ``total_steps``."""

    def __init__(self, learning_rate, total_steps, start_factor=1.0 / 3, end_factor=1.0, last_epoch=-1,
                 verbose=False):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(f"LinearLR: start_factor must be in (0, 1], got {start_factor}")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError(f"LinearLR: end_factor must be in [0, 1], got {end_factor}")
        self.total_steps = _check_int(total_steps, "total_steps", "LinearLR", minimum=1)
        self.start_factor = start_factor
        self.end_factor = end_factor
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch == 0:
            return self.base_lr * self.start_factor
        if self.last_epoch > self.total_steps:
            return self.last_lr
        base = self.total_steps * self.start_factor
        cur = self.end_factor - self.start_factor
        factor = 1.0 + cur / (base + (self.last_epoch - 1) * cur)
        return self.last_lr * factor


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every ``T_0 * T_mult**k`` epochs (SGDR)."""

    def __init__(self, learning_rate, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        self.T_0 = _check_int(T_0, "T_0", "CosineAnnealingWarmRestarts", minimum=1)
        self.T_mult = _check_int(T_mult, "T_mult", "CosineAnnealingWarmRestarts", minimum=1)
        self.eta_min = eta_min
        self.T_i = self.T_0
        self.T_cur = last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    def step(self, epoch=None):
        if epoch is None:
            if self.last_epoch < 0:
                epoch = 0
            else:
                epoch = self.last_epoch + 1
                self.T_cur = self.T_cur + 1
                if self.T_cur >= self.T_i:
                    self.T_cur = self.T_cur - self.T_i
                    self.T_i = self.T_i * self.T_mult
            if self.last_epoch < 0:
                self.T_cur = 0
        else:
            if epoch < 0:
                raise ValueError(f"CosineAnnealingWarmRestarts: epoch must be >= 0, got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self.last_lr = self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to {self.last_lr}.")


class OneCycleLR(LRScheduler):
    """One-cycle policy: warm up from ``max_learning_rate / divide_factor`` to ``max_learning_rate``,
    then anneal to ``initial_lr / end_learning_rate``-scaled minimum (cosine or linear)."""

    def __init__(self, max_learning_rate, total_steps, divide_factor=25.0, end_learning_rate=0.0001,
                 phase_pct=0.3, anneal_strategy="cos", three_phase=False, last_epoch=-1, verbose=False):
        if not _is_number(max_learning_rate) or max_learning_rate < 0:
            raise ValueError(f"OneCycleLR: max_learning_rate must be a float >= 0, got {max_learning_rate!r}")
        self.total_steps = _check_int(total_steps, "total_steps", "OneCycleLR", minimum=1)
        if not 0 <= phase_pct <= 1:
            raise ValueError(f"OneCycleLR: phase_pct must be in [0, 1], got {phase_pct}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"OneCycleLR: anneal_strategy must be 'cos' or 'linear', got {anneal_strategy!r}")
        initial_lr = max_learning_rate / float(divide_factor)
        min_lr = float(end_learning_rate)
        if three_phase:
            if phase_pct >= 0.5:
                raise ValueError(f"OneCycleLR: phase_pct must be < 0.5 with three_phase=True, got {phase_pct}")
            self._step_config = [0, phase_pct * total_steps - 1, 2 * phase_pct * total_steps - 2, total_steps - 1]
            self._lr_config = [initial_lr, max_learning_rate, initial_lr, min_lr]
        else:
            self._step_config = [0, phase_pct * total_steps - 1, total_steps - 1]
            self._lr_config = [initial_lr, max_learning_rate, min_lr]
        self._step_size = [self._step_config[i] - self._step_config[i - 1] for i in range(1, len(self._step_config))]
        self.anneal_func = self._cos_annealing if anneal_strategy == "cos" else self._linear_annealing
        super().__init__(initial_lr, last_epoch, verbose)

    @staticmethod
    def _cos_annealing(start_lr, end_lr, pct):
        return end_lr + (start_lr - end_lr) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _linear_annealing(start_lr, end_lr, pct):
        return (end_lr - start_lr) * pct + start_lr

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"OneCycleLR: stepped {step} times but total_steps is {self.total_steps}")
        for i, (end_step, size) in enumerate(zip(self._step_config[1:], self._step_size)):
            if step <= end_step or i == len(self._step_size) - 1:
                pct = (step - self._step_config[i]) / size
                return self.anneal_func(self._lr_config[i], self._lr_config[i + 1], pct)
        return self._lr_config[-1]


class CyclicLR(LRScheduler):
    """Cycle between ``base_learning_rate`` and ``max_learning_rate`` ('triangular', 'triangular2',
    'exp_range' or a custom ``scale_fn``)."""

    def __init__(self, base_learning_rate, max_learning_rate, step_size_up, step_size_down=None,
                 mode="triangular", exp_gamma=1.0, scale_fn=None, scale_mode="cycle", last_epoch=-1, verbose=False):
        self.step_size_up = _check_int(step_size_up, "step_size_up", "CyclicLR", minimum=1)
        down = step_size_up if step_size_down is None else _check_int(step_size_down, "step_size_down",
                                                                    "CyclicLR", minimum=1)
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError(f"CyclicLR: mode must be 'triangular', 'triangular2' or 'exp_range', got {mode!r}")
        if scale_mode not in ("cycle", "iterations"):
            raise ValueError(f"CyclicLR: scale_mode must be 'cycle' or 'iterations', got {scale_mode!r}")
        self.max_lr = max_learning_rate
        self.amplitude = max_learning_rate - base_learning_rate
        self.cycle_size = self.step_size_up + down
        self.step_up_ratio = self.step_size_up / self.cycle_size
        self.mode = mode
        self.gamma = exp_gamma
        if scale_fn is None:
            if mode == "triangular":
                self.scale_fn, self.scale_mode = (lambda x: 1.0), "cycle"
            elif mode == "triangular2":
                self.scale_fn, self.scale_mode = (lambda x: 1 / (2.0 ** (x - 1))), "cycle"
            else:
                self.scale_fn, self.scale_mode = (lambda x: self.gamma ** x), "iterations"
        else:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        super().__init__(base_learning_rate, last_epoch, verbose)

    def get_lr(self):
        iterations = self.last_epoch
        cycle = 1 + iterations // self.cycle_size
        pct = 1.0 + iterations / self.cycle_size - cycle
        if pct <= self.step_up_ratio:
            factor = pct / self.step_up_ratio
        else:
            factor = (1 - pct) / (1 - self.step_up_ratio)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else iterations)
        return self.base_lr + self.amplitude * factor * scale


class ReduceOnPlateau(LRScheduler):
    """Multiply the rate by ``factor`` when ``metrics`` passed to ``step`` stop improving for
    ``patience`` epochs (then wait ``cooldown`` epochs); never below ``min_lr``."""

    def __init__(self, learning_rate, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, epsilon=1e-8, verbose=False):
        mode = mode.lower()
        if mode not in ("min", "max"):
            raise ValueError(f"ReduceOnPlateau: mode must be 'min' or 'max', got {mode!r}")
        if factor >= 1.0:
            raise ValueError(f"ReduceOnPlateau: factor must be < 1.0, got {factor}")
        threshold_mode = threshold_mode.lower()
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"ReduceOnPlateau: threshold_mode must be 'rel' or 'abs', got {threshold_mode!r}")
        if not _is_number(learning_rate):
            raise TypeError(f"ReduceOnPlateau: learning_rate must be a float, got {type(learning_rate).__name__}")
        self.mode = mode
        self.factor = factor
        self.patience = patience
        self.threshold = threshold
        self.threshold_mode = threshold_mode
        self.cooldown = cooldown
        self.min_lr = min_lr
        self.epsilon = epsilon
        self.cooldown_counter = 0
        self.best = None
        self.num_bad_epochs = 0
        self.last_epoch = 0
        self.base_lr = float(learning_rate)
        self.last_lr = float(learning_rate)
        self.verbose = verbose
        self._var_name = None

    def state_keys(self):
        self.keys = ["cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"]

    def step(self, metrics, epoch=None):
        """Record this epoch's ``metrics`` (a number or a 1-element tensor/array)."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        value = _plain(metrics)
        if isinstance(value, np.ndarray) or not _is_number(value):
            raise TypeError(f"ReduceOnPlateau.step: metrics must be a number or a tensor with one element, "
                            f"got {type(metrics).__name__}")
        current = float(value)
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
        else:
            if self.best is None or self._is_better(current, self.best):
                self.best = current
                self.num_bad_epochs = 0
            else:
                self.num_bad_epochs += 1
            if self.num_bad_epochs > self.patience:
                self.cooldown_counter = self.cooldown
                self.num_bad_epochs = 0
                new_lr = max(self.last_lr * self.factor, self.min_lr)
                if self.last_lr - new_lr > self.epsilon:
                    self.last_lr = new_lr
                    if self.verbose:
                        print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to {self.last_lr}.")

    def _is_better(self, current, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return current < best - best * self.threshold
        if self.mode == "min":
            return current < best - self.threshold
        if self.threshold_mode == "rel":
            return current > best + best * self.threshold
        return current > best + self.threshold
