"""``paddle.incubate.ModelAverage``: a running average of the parameters over a sliding window of recent
steps, swapped in by ``apply()`` (for evaluation) and swapped back by ``restore()``.

Accumulators and their update are Paddle's ``average_accumulates`` kernel: ``sum_1`` collects parameters,
moves into ``sum_2`` every 16384 updates (precision), and once the window (``num_accumulates`` at least
``min_average_window`` and ``min(max_average_window, num_updates * average_window_rate)``) is full, ``sum_1 +
sum_2`` becomes ``sum_3`` and the counts restart. ``apply`` sets ``param = (sum_1 + sum_2 + sum_3) /
(num_accumulates + old_num_accumulates)`` in float32, as Paddle.

In static mode, as Paddle, the constructor appends the accumulation to the default main program (after the
optimizer's update when built after ``minimize``) and builds ``apply_program``/``restore_program``, which
``apply(executor)``/``restore(executor)`` run. The kernel's branches become 0/1 multipliers of existing ops.
"""
from __future__ import annotations

import contextlib

import numpy as np

from ...framework import state, no_grad
from ...optimizer.optimizer import Optimizer

__all__ = ["ModelAverage"]

_MAX_NUM_ACCUMULATES = 16384


class ModelAverage(Optimizer):
    """Average ``parameters`` over the last ``average_window_rate`` share of updates, clipped to
    [``min_average_window``, ``max_average_window``] steps. Call ``step()`` after the real optimizer's step."""

    def __init__(self, average_window_rate, parameters=None, min_average_window=10000, max_average_window=10000,
                 name=None):
        super().__init__(learning_rate=0.0, parameters=parameters, weight_decay=None, grad_clip=None, name=name)
        self.average_window = average_window_rate
        self.min_average_window = min_average_window
        self.max_average_window = max_average_window
        self.type = "average_accumulates"
        if state.static:
            self._build_static(parameters)

    def _create_accumulators(self, params, group=None):
        for p in params:
            for n in ("sum_1", "sum_2", "sum_3", "restore"):
                self._add_accumulator(n, p)
            for n in ("num_accumulates", "old_num_accumulates", "num_updates"):
                self._add_accumulator(n, p, dtype="int64", shape=[1])

    def _accumulate(self, param):
        acc = {n: self._get_accumulator(n, param) for n in
               ("sum_1", "sum_2", "sum_3", "num_accumulates", "old_num_accumulates", "num_updates")}
        num_updates = int(acc["num_updates"]._data[0]) + 1
        num_acc = int(acc["num_accumulates"]._data[0]) + 1
        old_num = int(acc["old_num_accumulates"]._data[0])
        dt = param._data.dtype
        s1 = (acc["sum_1"]._data + param._data).astype(dt)
        s2 = acc["sum_2"]._data
        s3 = acc["sum_3"]._data
        if num_updates % _MAX_NUM_ACCUMULATES == 0:
            s2 = (s2 + s1).astype(dt)
            s1 = np.zeros_like(s1)
        # the kernel updates its buffers in place, so the window test below sees the new sums
        # the kernel's attribute is a C float: int64 * float is computed in float32, then truncated
        window = min(self.max_average_window, int(np.float32(num_updates) * np.float32(self.average_window)))
        if num_acc >= self.min_average_window and num_acc >= window:
            s3 = (s1 + s2).astype(dt)
            s1 = np.zeros_like(s1)
            s2 = np.zeros_like(s2)
            old_num = num_acc
            num_acc = 0
        acc["sum_1"]._data, acc["sum_2"]._data, acc["sum_3"]._data = s1, s2, s3
        acc["num_updates"]._data = np.array([num_updates], np.int64)
        acc["num_accumulates"]._data = np.array([num_acc], np.int64)
        acc["old_num_accumulates"]._data = np.array([old_num], np.int64)

    @no_grad()
    def step(self):
        """Add the current values of the parameters that have gradients to the running sums."""
        params = [p for p in self._parameter_list if not p.stop_gradient and p.grad is not None]
        self._create_accumulators(self._parameter_list)
        for p in params:
            self._accumulate(p)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Same as ``step()`` in dynamic mode; nothing in static mode (the constructor appended the ops)."""
        if not state.static:
            self.step()

    @contextlib.contextmanager
    def apply(self, executor=None, need_restore=True):
        """Context manager: replace each parameter by its average (saving it), restore on exit if
        ``need_restore``. Static mode runs ``apply_program`` with ``executor``."""
        if state.static:
            if executor is None:
                raise RuntimeError("Executor should not be None in static graph mode.")
            executor.run(self.apply_program)
            try:
                yield
            finally:
                if need_restore:
                    self.restore(executor)
            return
        with no_grad():
            self._create_accumulators(self._parameter_list)
            for p in self._parameter_list:
                g = lambda n: self._get_accumulator(n, p)._data  # noqa: E731
                g("restore")[...] = p._data
                total = (g("sum_1") + g("sum_2") + g("sum_3")).astype(np.float32)
                count = (g("num_accumulates") + g("old_num_accumulates")).astype(np.float32)
                with np.errstate(divide="ignore", invalid="ignore"):
                    avg = total / count
                p._data = avg.astype(p._data.dtype)
        try:
            yield
        finally:
            if need_restore:
                self.restore()

    def restore(self, executor=None):
        """Put back the parameter values saved by ``apply()`` (static mode: run ``restore_program``)."""
        if state.static:
            if executor is None:
                raise RuntimeError("Executor should not be None in static graph mode.")
            executor.run(self.restore_program)
            return
        with no_grad():
            for p in self._parameter_list:
                p._data = np.array(self._get_accumulator("restore", p)._data, dtype=p._data.dtype)

    # -- static mode ---------------------------------------------------------------------------
    def _build_static(self, parameters):
        from ...optimizer.optimizer import _StaticParamView
        from ...static.program import (Program, default_main_program, default_startup_program, program_guard,
                                       op_role_guard, ROLE_OPTIMIZE)
        main, startup = default_main_program(), default_startup_program()
        params = list(parameters) if parameters else main.global_block().all_parameters()
        self._static_params = params
        with program_guard(main, startup), op_role_guard(main, ROLE_OPTIMIZE):
            self._static_program = (main, startup)
            try:
                self._create_accumulators([_StaticParamView(p) for p in params])
                for p in params:
                    self._append_static_accumulate(main.global_block(), p)
            finally:
                self._static_program = None
        self.apply_program, self.restore_program = Program(), Program()
        for p in params:
            self._static_apply_ops(p)
            self._static_restore_ops(p)

    def _append_static_accumulate(self, block, param):
        from ...api.creation import full
        from ...api.logic import equal, greater_equal, logical_and
        from ...api.manipulation import cast
        from ...api.math import remainder, minimum
        g = lambda n: self._get_accumulator(n, param)  # noqa: E731
        dt = param.dtype.np.name

        def write(value, target):
            block.append_op("assign", {"X": [value]}, {"Out": [target]})

        nu = g("num_updates") + full([1], 1, "int64")
        na = g("num_accumulates") + full([1], 1, "int64")
        s1 = g("sum_1") + param
        s2, s3, old = g("sum_2"), g("sum_3"), g("old_num_accumulates")
        move = cast(equal(remainder(nu, full([1], _MAX_NUM_ACCUMULATES, "int64")), full([1], 0, "int64")), dt)
        s2 = s2 + move * s1
        s1 = s1 * (1 - move)
        scaled = cast(cast(nu, "float32") * full([1], self.average_window, "float32"), "int64")
        window = minimum(full([1], self.max_average_window, "int64"), scaled)
        full_window = logical_and(greater_equal(na, full([1], self.min_average_window, "int64")),
                                  greater_equal(na, window))
        cf, ci = cast(full_window, dt), cast(full_window, "int64")
        s3 = s3 * (1 - cf) + cf * (s1 + s2)
        s1 = s1 * (1 - cf)
        s2 = s2 * (1 - cf)
        old = old * (1 - ci) + ci * na
        na = na * (1 - ci)
        for value, name in ((nu, "num_updates"), (na, "num_accumulates"), (old, "old_num_accumulates"),
                            (s1, "sum_1"), (s2, "sum_2"), (s3, "sum_3")):
            write(value, g(name))

    def _clone(self, block, var):
        if var.name not in block.vars:
            block.create_var(name=var.name, shape=list(var.shape), dtype=var.dtype, persistable=True)
        return block.vars[var.name]

    def _static_apply_ops(self, param):
        from ...api.manipulation import cast
        from ...api.math import add_n, divide
        from ...static.program import Program, program_guard
        block = self.apply_program.global_block()
        with program_guard(self.apply_program, Program()):
            p = self._clone(block, param)
            acc = {n: self._clone(block, self._get_accumulator(n, param)) for n in
                   ("restore", "sum_1", "sum_2", "sum_3", "num_accumulates", "old_num_accumulates")}
            block.append_op("assign", {"X": [p]}, {"Out": [acc["restore"]]})
            count = cast(add_n([acc["num_accumulates"], acc["old_num_accumulates"]]), "float32")
            total = cast(add_n([acc["sum_1"], acc["sum_2"], acc["sum_3"]]), "float32")
            avg = divide(total, count)
            if param.dtype.np.name != "float32":
                avg = cast(avg, param.dtype.np.name)
            block.append_op("assign", {"X": [avg]}, {"Out": [p]})

    def _static_restore_ops(self, param):
        block = self.restore_program.global_block()
        p = self._clone(block, param)
        saved = self._clone(block, self._get_accumulator("restore", param))
        block.append_op("assign", {"X": [saved]}, {"Out": [p]})
