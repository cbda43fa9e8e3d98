"""paddle.optimizer.LBFGS: limited-memory BFGS with an optional strong-Wolfe line search (eager only).

``step(closure)`` re-evaluates the model through ``closure`` (which clears the gradients, computes the
loss, calls ``backward()`` and returns the loss). The arithmetic runs in the parameters' dtype on numpy
arrays, following Paddle's order of operations, so parameters agree with Paddle to rounding.
"""
from __future__ import annotations

import collections
import functools

import numpy as np

from ..framework import enable_grad, no_grad, state as _mode
from ..tensor import Tensor
from .optimizer import Optimizer

__all__ = ["LBFGS"]


def _dot(x, y):
    return (x * y).sum(axis=-1)


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clipped to ``bounds``."""
    if bounds is not None:
        lo, hi = bounds
    else:
        lo, hi = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = np.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, lo), hi)
    return (lo + hi) / 2.0


def _strong_wolfe(obj_func, xk, alpha, d, loss, grad, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    d_norm = np.abs(d).max()
    grad = grad.copy()
    loss_new, grad_new = obj_func(xk, alpha, d)
    ls_func_evals = 1
    gtd_new = _dot(grad_new, d)
    t_prev, f_prev, g_prev, gtd_prev = 0, loss, grad, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if loss_new > loss + c1 * alpha * gtd or (ls_iter > 1 and loss_new >= f_prev):
            bracket, bracket_f = [t_prev, alpha], [f_prev, loss_new]
            bracket_g, bracket_gtd = [g_prev, grad_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [alpha], [loss_new], [grad_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, alpha], [f_prev, loss_new]
            bracket_g, bracket_gtd = [g_prev, grad_new.copy()], [gtd_prev, gtd_new]
            break
        min_step = alpha + 0.01 * (alpha - t_prev)
        max_step = alpha * 10
        tmp = alpha
        alpha = _cubic_interpolate(t_prev, f_prev, gtd_prev, alpha, loss_new, gtd_new, bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, loss_new, grad_new.copy(), gtd_new
        loss_new, grad_new = obj_func(xk, alpha, d)
        ls_func_evals += 1
        gtd_new = _dot(grad_new, d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, alpha], [loss, loss_new], [grad, grad_new]
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        alpha = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1],
                                   bracket_gtd[1])
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - alpha, alpha - min(bracket)) < eps:
            if insuf_progress or alpha >= max(bracket) or alpha <= min(bracket):
                if abs(alpha - max(bracket)) < abs(alpha - min(bracket)):
                    alpha = max(bracket) - eps
                else:
                    alpha = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        loss_new, grad_new = obj_func(xk, alpha, d)
        ls_func_evals += 1
        gtd_new = _dot(grad_new, d)
        ls_iter += 1
        if loss_new > loss + c1 * alpha * gtd or loss_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = alpha, loss_new
            bracket_g[high_pos], bracket_gtd[high_pos] = grad_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos], bracket_gtd[high_pos] = bracket_g[low_pos], bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = alpha, loss_new
            bracket_g[low_pos], bracket_gtd[low_pos] = grad_new.copy(), gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


class LBFGS(Optimizer):
    """L-BFGS (Paddle's arguments and defaults). ``line_search_fn`` is None or ``"strong_wolfe"``.
    ``weight_decay`` and ``grad_clip`` are accepted and, as in Paddle, not applied by ``step``."""

    def __init__(self, learning_rate=1.0, max_iter=20, max_eval=None, tolerance_grad=1e-07, tolerance_change=1e-09,
                 history_size=100, line_search_fn=None, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_eval = max_eval
        self.tolerance_grad = tolerance_grad
        self.tolerance_change = tolerance_change
        self.history_size = history_size
        self.line_search_fn = line_search_fn
        if isinstance(parameters, Tensor):
            raise TypeError("parameters argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {type(parameters).__name__}")
        self.state = collections.defaultdict(dict)
        super().__init__(1.0, parameters, weight_decay, grad_clip, name)
        if not self._param_groups:
            raise ValueError("LBFGS: parameters must not be empty")
        # Paddle optimises the parameters of the last group only
        self._params = self._param_groups[-1]["params"]
        self._numel_cache = None

    def state_dict(self):
        return {"state": {k: v for k, v in self.state.items()}}

    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = functools.reduce(lambda t, p: t + int(p._data.size), self._params, 0)
        return self._numel_cache

    def _gather_flat_grad(self):
        views = []
        for p in self._params:
            g = p.grad
            views.append(np.zeros(p._data.size, p._data.dtype) if g is None else np.asarray(g._data).reshape(-1))
        return np.concatenate(views, axis=0)

    def _add_grad(self, alpha, direction):
        offset = 0
        for p in self._params:
            n = int(p._data.size)
            step = direction[offset:offset + n].reshape(p._data.shape) * alpha
            p._data = (p._data + step).astype(p._data.dtype, copy=False)
            offset += n
        assert offset == self._numel()

    def _clone_param(self):
        return [p._data.copy() for p in self._params]

    def _set_param(self, params_data):
        for p, data in zip(self._params, params_data):
            p._data = data.copy()

    def _directional_evaluate(self, closure, x, alpha, d):
        self._add_grad(alpha, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure):
        """One L-BFGS step (up to ``max_iter`` iterations); returns the loss ``closure`` gave first."""
        if _mode.static:   # Paddle's non_static_only check
            raise AssertionError("'step()' is only supported in dynamic graph mode; LBFGS does not build "
                                 "static programs (call paddle.disable_static())")
        if not callable(closure):
            raise TypeError(f"LBFGS.step: closure must be a function returning the loss, got "
                            f"{type(closure).__name__}")
        with no_grad():
            return self._step(closure)

    def _step(self, closure):
        def evaluate():
            with enable_grad():
                return closure()

        lr, max_iter, max_eval = self.learning_rate, self.max_iter, self.max_eval
        tolerance_grad, tolerance_change = self.tolerance_grad, self.tolerance_change
        history_size, st = self.history_size, self.state
        st.setdefault("func_evals", 0)
        st.setdefault("n_iter", 0)
        orig_loss = evaluate()
        loss = float(orig_loss)
        current_evals = 1
        st["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        dt = flat_grad.dtype.type
        if np.abs(flat_grad).max() <= tolerance_grad:
            return orig_loss
        d, alpha = _np(st.get("d")), _np(st.get("alpha"))
        old_yk = [_np(v) for v in st.get("old_yk", None) or []]
        old_sk = [_np(v) for v in st.get("old_sk", None) or []]
        ro = [_np(v) for v in st.get("ro", None) or []]
        h_diag, prev_flat_grad = _np(st.get("H_diag")), _np(st.get("prev_flat_grad"))
        prev_loss = st.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            st["n_iter"] += 1
            if st["n_iter"] == 1:
                d = -flat_grad
                old_yk, old_sk, ro = [], [], []
                h_diag = dt(1.0)
            else:
                y = flat_grad - prev_flat_grad
                s = d * dt(alpha)
                ys = _dot(y, s)
                if ys > 1e-10:
                    if len(old_yk) == history_size:
                        old_yk.pop(0)
                        old_sk.pop(0)
                        ro.pop(0)
                    old_yk.append(y)
                    old_sk.append(s)
                    ro.append(dt(1.0) / ys)
                    h_diag = ys / _dot(y, y)
                num_old = len(old_yk)
                al = [None] * history_size
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = _dot(old_sk[i], q) * ro[i]
                    q = q + old_yk[i] * -al[i]
                d = r = q * h_diag
                for i in range(num_old):
                    be_i = _dot(old_yk[i], r) * ro[i]
                    r = r + old_sk[i] * (al[i] - be_i)
                d = r
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            if st["n_iter"] == 1:
                alpha = min(dt(1.0), dt(1.0) / np.abs(flat_grad).sum()) * lr
            else:
                alpha = lr
            gtd = _dot(flat_grad, d)
            if gtd > -tolerance_change:
                break
            ls_func_evals = 0
            if self.line_search_fn is not None:
                if self.line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x, a, direction):
                    return self._directional_evaluate(evaluate, x, a, direction)
                loss, flat_grad, alpha, ls_func_evals = _strong_wolfe(obj_func, x_init, alpha, d, loss, flat_grad,
                                                                      gtd)
                self._add_grad(alpha, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(alpha, d)
                opt_cond = False
                if n_iter != max_iter:
                    loss = float(evaluate())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            st["func_evals"] += ls_func_evals
            if opt_cond:
                break
            if np.abs(d * alpha).max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break
            if current_evals >= max_eval or n_iter == max_iter:
                break
        st["d"], st["alpha"] = _t(d), alpha
        st["old_yk"], st["old_sk"], st["ro"] = [_t(v) for v in old_yk], [_t(v) for v in old_sk], [_t(v) for v in ro]
        st["H_diag"], st["prev_flat_grad"], st["prev_loss"] = _t(h_diag), _t(prev_flat_grad), prev_loss
        return orig_loss

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        raise NotImplementedError("LBFGS optimizer does not use this way to minimize loss. Please refer 'Examples' "
                                  "of LBFGS() for usage.")


def _np(v):
    if v is None:
        return None
    if isinstance(v, Tensor):
        return v._data
    return v


def _t(v):
    if v is None or not isinstance(v, (np.ndarray, np.generic)):
        return v
    return Tensor(np.asarray(v))
