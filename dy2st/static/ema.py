"""``paddle.static.ExponentialMovingAverage``: shadow averages of the parameters, kept by the main program.

``update()`` appends to the main program ``step += 1`` and, per parameter with ``do_model_average``,
``ema = decay * ema + (1 - decay) * param``. ``apply(exe)`` runs a separate program that saves each
parameter and replaces it by the bias-corrected average ``ema / (1 - decay^step)`` (``ema`` itself
before the first update); ``restore(exe)`` puts the saved values back. With ``thres_steps`` (a step
Variable) the decay is ``min(decay, (thres_steps + 1) / (thres_steps + 10))``, recomputed every run.
These are Paddle's formulas and variable names (``scheduled_ema_decay_rate``, ``@EMA_STEP_COUNTER@``,
``<param>_ema_N``).
"""
from __future__ import annotations

import contextlib

import numpy as np

from runtime import unique_name
from runtime.dispatch import run_op
from runtime.framework import state
from runtime.static import Program, Variable, create_global_var, default_main_program, program_guard

from ._ops import write_into

__all__ = ["ExponentialMovingAverage"]

_FLOAT32 = 5
_STEP_COUNTER = "@EMA_STEP_COUNTER@"


def _const(value, dtype=_FLOAT32):
    return run_op("fill_constant", shape=[1], dtype=dtype, value=float(value), str_value=str(float(value)))


class ExponentialMovingAverage:
    """Exponential moving average of the parameters of the default main program (static mode only)."""

    def __init__(self, decay=0.999, thres_steps=None, name=None):
        if not state.static:
            raise Exception("In dygraph, don't support ExponentialMovingAverage.")
        if thres_steps is not None and not isinstance(thres_steps, Variable):
            raise TypeError("ExponentialMovingAverage: thres_steps must be a static Variable (a step counter) or "
                            f"None, got {type(thres_steps).__name__}")
        self._decay = float(decay)
        self._thres_steps = thres_steps
        self._name = name if name is not None else ""
        self._main = default_main_program()
        self._decay_var = self._make_decay()
        self._step_counter_name = _STEP_COUNTER
        # created here (the startup program sets it to 0) so apply() works before any update()
        if _find(self._main, _STEP_COUNTER) is None:
            create_global_var([1], 0, "int64", persistable=True, name=_STEP_COUNTER)
        gb = self._main.global_block()
        self._params_tmps = []
        for param in gb.all_parameters():
            if getattr(param, "do_model_average", True):
                tmp_name = unique_name.generate(".".join([self._name + param.name, "ema_tmp"]))
                self._params_tmps.append((param, tmp_name))
        self._ema_vars = {}
        for param, _ in self._params_tmps:
            self._ema_vars[param.name] = create_global_var(
                list(param.shape), 0.0, param.dtype.name, persistable=True,
                name=unique_name.generate(self._name + param.name + "_ema"))
        self.apply_program = self._build_apply()
        self.restore_program = self._build_restore()

    def _make_decay(self):
        if _find(self._main, "scheduled_ema_decay_rate") is not None:
            decay_var = _find(self._main, "scheduled_ema_decay_rate")
        else:
            decay_var = create_global_var([1], self._decay, "float32", persistable=True,
                                          name="scheduled_ema_decay_rate")
        if self._thres_steps is not None:
            t = run_op("cast", self._thres_steps, in_dtype=self._thres_steps.dtype.proto, out_dtype=_FLOAT32)
            t = run_op("reshape2", t, None, None, shape=[1])
            decay_t = run_op("elementwise_div", run_op("scale", t, None, None, scale=1.0, bias=1.0),
                             run_op("scale", t, None, None, scale=1.0, bias=10.0))
            write_into(decay_var, run_op("elementwise_min", decay_t, _const(self._decay)))
        return decay_var

    def _step_var(self, program):
        v = _find(program, self._step_counter_name)
        if v is None:
            v = program.global_block().create_var(name=self._step_counter_name, shape=[1], dtype="int64",
                                                  persistable=True)
        return v

    def _clone_var(self, block, var, name=None):
        name = name or var.name
        if name in block.vars:
            return block.vars[name]
        return block.create_var(name=name, shape=list(var.shape), dtype=var.dtype, persistable=True)

    def _build_apply(self):
        prog = Program()
        with program_guard(prog, Program()):
            block = prog.global_block()
            decay = self._clone_var(block, self._decay_var)
            step = run_op("cast", self._step_var(prog), in_dtype=3, out_dtype=_FLOAT32)
            decay_pow = run_op("elementwise_pow", decay, step)
            started = run_op("greater_than", step, _const(0.0))
            denom = run_op("where", started, run_op("elementwise_sub", _const(1.0), decay_pow), _const(1.0))
            for param, tmp_name in self._params_tmps:
                p = self._clone_var(block, param)
                tmp = self._clone_var(block, param, tmp_name)
                ema = self._clone_var(block, self._ema_vars[param.name])
                write_into(tmp, p)
                corrected = run_op("elementwise_div", ema, denom if param.dtype.np == np.float32 else
                                   run_op("cast", denom, in_dtype=_FLOAT32, out_dtype=param.dtype.proto))
                write_into(p, corrected)
        return prog

    def _build_restore(self):
        prog = Program()
        with program_guard(prog, Program()):
            block = prog.global_block()
            for param, tmp_name in self._params_tmps:
                write_into(self._clone_var(block, param), self._clone_var(block, param, tmp_name))
        return prog

    def update(self):
        """Append the step increment and the average updates to the default main program (call it after
        ``optimizer.minimize`` so the averages follow the updated parameters)."""
        main = default_main_program()
        step = _find(main, self._step_counter_name)
        if step is None:   # update() into another program than the one the average was made for
            step = create_global_var([1], 0, "int64", persistable=True, name=self._step_counter_name)
        write_into(step, run_op("increment", step, step=1.0))
        decay = self._decay_var
        one_minus = run_op("elementwise_sub", _const(1.0), decay)
        for param, _ in self._params_tmps:
            ema = self._ema_vars[param.name]
            d, om = decay, one_minus
            if param.dtype.np != np.float32:
                d = run_op("cast", decay, in_dtype=_FLOAT32, out_dtype=param.dtype.proto)
                om = run_op("cast", one_minus, in_dtype=_FLOAT32, out_dtype=param.dtype.proto)
            new = run_op("elementwise_add", run_op("elementwise_mul", ema, d), run_op("elementwise_mul", param, om))
            write_into(ema, new)

    @contextlib.contextmanager
    def apply(self, executor, need_restore=True):
        """Within the block the parameters hold their bias-corrected averages; restored afterwards unless
        ``need_restore`` is False."""
        executor.run(self.apply_program)
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor):
        """Put back the parameter values saved by the last `apply`."""
        executor.run(self.restore_program)


def _find(program, name):
    return program.global_block().vars.get(name)
