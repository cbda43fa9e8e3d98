"""paddle.optimizer.ASGD (the ``asgd`` op): SGD along the average of the last ``batch_num`` gradients."""
from __future__ import annotations

import numbers

import numpy as np

from ..dispatch import run_op
from ..framework import state
from .optimizer import Optimizer
from ._update import check_master_weights, write_last_output

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """``d = d - y_i + g`` (``y_i`` the gradient stored ``batch_num`` steps ago, replaced by ``g``);
    ``param -= lr / min(t, batch_num) * d``. Accumulators: ``d``, ``y`` (``[batch_num, *param.shape]``)
    and the step counter ``m`` (int64)."""

    _d_acc_str = "d"
    _y_acc_str = "y"
    _m_acc_str = "m"

    def __init__(self, learning_rate=0.001, batch_num=1, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision=False, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate should not be none")
        if batch_num is None:
            raise ValueError("batch_num should not be none")
        if isinstance(batch_num, bool) or not isinstance(batch_num, numbers.Integral):
            raise TypeError(f"ASGD: batch_num must be an int, got {type(batch_num).__name__}")
        if not 0 < batch_num:
            raise ValueError("batch_num should be greater than 0")
        self._n = int(batch_num)
        self._multi_precision = bool(multi_precision)
        self.type = "asgd"
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_accumulators(self, params, group):
        check_master_weights(self, params)
        for p in params:
            self._add_accumulator(self._d_acc_str, p)
            self._add_accumulator(self._y_acc_str, p, shape=[self._n, *p._data.shape])
            self._add_accumulator(self._m_acc_str, p, shape=[1], dtype=np.int64)

    def _append_optimize_op(self, group, param, grad):
        d = self._get_accumulator(self._d_acc_str, param)
        ys = self._get_accumulator(self._y_acc_str, param)
        m = self._get_accumulator(self._m_acc_str, param)
        if state.static:
            return self._append_static(param, grad, d, ys, m)
        index = int(m._data.reshape(-1)[0] % self._n)
        m._data = m._data + np.int64(1)
        n = np.minimum(m._data, np.int64(self._n))
        y = ys._data[index]
        p_out, d_out, y_out, _ = run_op("asgd", param, grad, self._param_lr(param), d, y, n, None)
        self._write(param, p_out)
        self._write(d, d_out)
        new_ys = ys._data.copy()
        new_ys[index] = y_out._data
        ys._data = new_ys

    def _append_static(self, param, grad, d, ys, m):
        # the same algorithm as ops, the slot of y chosen at run time (Paddle's static ASGD picks it once,
        # when the program is built, and so drifts from its own dynamic-mode results: we follow the latter)
        shape = list(param.shape)
        n_const = run_op("fill_constant", shape=[1], dtype=3, value=float(self._n), str_value=str(self._n))
        index = run_op("elementwise_mod", m, n_const)
        write_last_output(run_op("increment", m, step=1.0), m)
        n = run_op("elementwise_min", m, n_const)
        y = run_op("reshape2", run_op("gather", ys, index, None, axis=0), None, None, shape=shape)
        run_op("asgd", param, grad, self._param_lr(param), d, y, n, None)
        update = run_op("reshape2", y, None, None, shape=[1, *shape])
        write_last_output(run_op("scatter", ys, index, update, overwrite=True), ys)
