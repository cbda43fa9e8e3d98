"""``minimize_lbfgs``: limited-memory BFGS (two-loop recursion over a ring buffer of ``history_size`` pairs),
step for step as Paddle's dynamic-mode loop, including its ring indexing (head/tail modulo ``history_size``)."""
from __future__ import annotations

import numpy as np

from ....tensor import Tensor
from .line_search import strong_wolfe, value_and_gradient
from .utils import check_dtype, check_input_type, check_initial_inverse_hessian_estimate

__all__ = ["minimize_lbfgs"]


def minimize_lbfgs(objective_func, initial_position, history_size=100, max_iters=50, tolerance_grad=1e-8,
                   tolerance_change=1e-8, initial_inverse_hessian_estimate=None, line_search_fn="strong_wolfe",
                   max_line_search_iters=50, initial_step_length=1.0, dtype="float32", name=None):
    """Minimise ``objective_func`` from ``initial_position``. Returns ``(is_converge, num_func_calls, position,
    objective_value, objective_gradient)`` as Tensors."""
    check_dtype(dtype)
    check_input_type(initial_position, "initial_position", "minimize_lbfgs")
    dt = np.dtype(dtype)
    n = initial_position.shape[0]
    if initial_inverse_hessian_estimate is None:
        h0 = np.eye(n, dtype=dt)
    else:
        check_input_type(initial_inverse_hessian_estimate, "initial_inverse_hessian_estimate", "minimize_lbfgs")
        check_initial_inverse_hessian_estimate(initial_inverse_hessian_estimate)
        h0 = np.array(initial_inverse_hessian_estimate.numpy())
    xk = np.array(initial_position.numpy())
    value, g1 = value_and_gradient(objective_func, xk)
    k = 0
    done = np.array([False])
    is_converge = np.array([False])
    num_func_calls = np.array([1], np.int64)
    hs = int(history_size)
    head, tail = 1, 0
    sk_vec = np.zeros((hs + 1, n), dt)
    yk_vec = np.zeros((hs + 1, n), dt)
    rhok_vec = np.zeros((hs + 1, 1), dt)
    ai_vec = np.zeros((hs + 1, 1), dt)
    guard = hs + 2       # a ring walk visits each slot at most once
    while k < max_iters and not done[0]:
        q = np.array(g1)
        i = (head - 1) % hs
        steps = 0
        while i != tail:
            ai_vec[i] = rhok_vec[i] * np.dot(sk_vec[i], q)
            q = q - ai_vec[i] * yk_vec[i]
            i = (i - 1) % hs
            steps += 1
            if steps > guard:
                raise RuntimeError("minimize_lbfgs: the history ring did not close (history_size too small)")
        r = np.matmul(h0, q)
        i = tail + 1
        steps = 0
        while i != head:
            beta = rhok_vec[i] * np.dot(yk_vec[i], r)
            r = r + sk_vec[i] * (ai_vec[i] - beta)
            i = (i + 1) % hs
            steps += 1
            if steps > guard:
                raise RuntimeError("minimize_lbfgs: the history ring did not close (history_size too small)")
        pk = -r
        if line_search_fn != "strong_wolfe":
            raise NotImplementedError("Currently only support line_search_fn = 'strong_wolfe', but the specified "
                                      f"is '{line_search_fn}'")
        alpha, value, g2, ls_calls = strong_wolfe(objective_func, xk, pk, max_iters=max_line_search_iters,
                                                  initial_step_length=initial_step_length, dtype=dtype)
        num_func_calls = num_func_calls + ls_calls
        sk = alpha * pk
        yk = g2 - g1
        rhok_inv = np.dot(yk, sk)
        rhok = np.full([1], 1000.0, dt) if rhok_inv == 0.0 else 1.0 / rhok_inv
        sk_vec[head] = sk
        yk_vec[head] = yk
        rhok_vec[head] = rhok
        head = (head + 1) % hs
        if head == tail:
            tail += 1
        xk = xk + sk
        g1 = g2
        k += 1
        gnorm = np.max(np.abs(g1))
        pk_norm = np.max(np.abs(pk))
        done = done | (gnorm < tolerance_grad) | (pk_norm < tolerance_change)
        is_converge = np.array(done)
        done = done | (alpha == 0.0)
    return Tensor(is_converge), Tensor(num_func_calls), Tensor(xk), Tensor(np.asarray(value)), Tensor(g1)
