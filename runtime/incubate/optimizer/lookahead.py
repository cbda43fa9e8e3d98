"""``paddle.incubate.LookAhead``: keep a slow copy of the weights; every ``k`` steps of the inner optimizer, move
the slow weights ``alpha`` of the way to the fast ones and reset the fast weights to them (Zhang et al. 2019).

The update follows Paddle's formulas exactly (a ``slow`` accumulator per parameter, a step counter starting at
1 after the first step, the blend ``alpha * fast + (1 - alpha) * slow``), so trajectories match Paddle's.
In static mode ``minimize(loss)`` appends the inner optimizer's update and then Paddle's LookAhead ops (a
persistable int32 step counter, ``slow`` accumulators, the blends written back with assign ops).
"""
from __future__ import annotations

import numpy as np

from ...framework import state, no_grad
from ...optimizer.optimizer import Optimizer

__all__ = ["LookAhead"]


class LookAhead(Optimizer):
    """Wrap ``inner_optimizer``; ``alpha`` in [0, 1] is the slow weights' step, ``k`` (> 0) the sync period."""

    _slow_str = "slow"

    def __init__(self, inner_optimizer, alpha=0.5, k=5, name=None):
        if inner_optimizer is None:
            raise AssertionError("inner optimizer can not be None")
        if not 0.0 <= alpha <= 1.0:
            raise AssertionError("alpha should be larger or equal to 0.0, and less or equal than 1.0")
        if not (isinstance(k, int) and k > 0):
            raise AssertionError("k should be a positive integer")
        self.inner_optimizer = inner_optimizer
        params = list(inner_optimizer._parameter_list)
        if not params and state.static:
            from ...static.program import default_main_program
            params = default_main_program().global_block().all_parameters()
        super().__init__(learning_rate=float(alpha), parameters=params, weight_decay=None, grad_clip=None,
                         name=name)
        self.alpha = alpha
        self.k = k
        self.type = "lookahead"
        self._global_step = 0

    def _create_accumulators(self, params, group):
        for p in params:
            self._add_accumulator(self._slow_str, p)

    @no_grad()
    def step(self):
        """One inner step, then (every k-th step) the slow/fast synchronisation."""
        self.inner_optimizer.step()
        self._global_step += 1
        params_grads = [(p, p.grad) for p in self._parameter_list
                        if not p.stop_gradient and p.grad is not None]
        if not params_grads:
            return
        self._create_accumulators([p for p, _ in params_grads], None)
        for p, _ in params_grads:
            self._sync(p)

    def _sync(self, param):
        slow = self._get_accumulator(self._slow_str, param)
        dt = param._data.dtype
        # Paddle computes with float32 0/1 conditions; the products keep the parameter's dtype
        cond_1 = np.float32(self._global_step == 1)
        cond_2 = np.float32(self._global_step % self.k == 0)
        p = param._data
        s = (cond_1 * p + (1 - cond_1) * slow._data).astype(dt)
        blend = (np.asarray(self.alpha, dtype=dt) * p + np.asarray(1.0 - self.alpha, dtype=dt) * s).astype(dt)
        param._data = (cond_2 * blend + (1 - cond_2) * p).astype(dt)
        slow._data = (cond_2 * blend + (1 - cond_2) * s).astype(dt)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """The inner optimizer's minimize (dynamic mode: gradients from ``loss.backward()``), then the LookAhead
        update; static mode appends both to ``loss``'s program."""
        if state.static:
            return self._static_minimize(loss, startup_program, parameters, no_grad_set)
        out = self.inner_optimizer.minimize(loss, startup_program=startup_program, parameters=parameters,
                                            no_grad_set=no_grad_set)
        self._global_step += 1
        with no_grad():
            params_grads = [(p, p.grad) for p in self._parameter_list
                            if not p.stop_gradient and p.grad is not None]
            self._create_accumulators([p for p, _ in params_grads], None)
            for p, _ in params_grads:
                self._sync(p)
        return out

    def clear_grad(self, set_to_zero=True):
        self.inner_optimizer.clear_grad(set_to_zero)

    clear_gradients = clear_grad

    def _static_minimize(self, loss, startup_program, parameters, no_grad_set):
        from ...api.creation import full
        from ...api.logic import equal
        from ...api.manipulation import cast
        from ...api.math import remainder
        from ...dispatch import run_op
        from ...optimizer.optimizer import _unique_name
        from ...static.program import default_startup_program, program_guard, op_role_guard, ROLE_OPTIMIZE
        optimize_ops, params_grads = self.inner_optimizer.minimize(loss, startup_program=startup_program,
                                                                   parameters=parameters, no_grad_set=no_grad_set)
        program = loss.block.program
        startup = default_startup_program() if startup_program is None else startup_program
        block = program.global_block()

        def write(value, target):
            block.append_op("assign", {"X": [value]}, {"Out": [target]})

        with program_guard(program, startup), op_role_guard(program, ROLE_OPTIMIZE):
            self._static_program = (program, startup)
            try:
                step = self._static_persistable(_unique_name("lookahead_step"), [1], np.int32, 0)
                write(run_op("increment", step, step=1.0), step)
                for param, grad in params_grads:
                    if grad is None:
                        continue
                    k_var = self._static_persistable(_unique_name("lookahead_k"), [1], np.int32, self.k)
                    slow = self._static_persistable(_unique_name(f"{param.name}_{self._slow_str}"),
                                                    list(param.shape), param.dtype.np, 0.0)
                    one = full([1], 1, "int32")
                    zero = full([1], 0, "int32")
                    cond_1 = cast(equal(step, one), "float32")
                    cond_2 = cast(equal(remainder(step, k_var), zero), "float32")
                    if param.dtype.np != np.float32:
                        cond_1, cond_2 = cast(cond_1, param.dtype.np.name), cast(cond_2, param.dtype.np.name)
                    write(cond_1 * param + (1 - cond_1) * slow, slow)
                    blend = self.alpha * param + (1.0 - self.alpha) * slow
                    new_param = cond_2 * blend + (1 - cond_2) * param
                    new_slow = cond_2 * blend + (1 - cond_2) * slow
                    write(new_param, param)
                    write(new_slow, slow)
            finally:
                self._static_program = None
        return optimize_ops, params_grads
