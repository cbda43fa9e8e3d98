"""``minimize_bfgs``: BFGS quasi-Newton minimisation of a function of one 1-D position tensor, with Paddle's
strong-Wolfe line search and stopping rules, step for step as Paddle's dynamic-mode loop (numpy arrays stand for
its tensors)."""
from __future__ import annotations

import numpy as np

from ....tensor import Tensor
from .line_search import strong_wolfe, value_and_gradient
from .utils import check_dtype, check_input_type, check_initial_inverse_hessian_estimate

__all__ = ["minimize_bfgs"]


def minimize_bfgs(objective_func, initial_position, max_iters=50, tolerance_grad=1e-7, tolerance_change=1e-9,
                  initial_inverse_hessian_estimate=None, line_search_fn="strong_wolfe", max_line_search_iters=50,
                  initial_step_length=1.0, dtype="float32", name=None):
    """Minimise ``objective_func`` from ``initial_position``. Returns ``(is_converge, num_func_calls, position,
    objective_value, objective_gradient, inverse_hessian_estimate)`` as Tensors."""
    check_dtype(dtype)
    check_input_type(initial_position, "initial_position", "minimize_bfgs")
    dt = np.dtype(dtype)
    n = initial_position.shape[0]
    eye = np.eye(n, dtype=dt)
    if initial_inverse_hessian_estimate is None:
        h0 = eye
    else:
        check_input_type(initial_inverse_hessian_estimate, "initial_inverse_hessian_estimate", "minimize_bfgs")
        check_initial_inverse_hessian_estimate(initial_inverse_hessian_estimate)
        h0 = initial_inverse_hessian_estimate.numpy()
    hk = np.array(h0)
    xk = np.array(initial_position.numpy())
    value, g1 = value_and_gradient(objective_func, xk)
    num_func_calls = np.array([1], np.int64)
    k = 0
    done = np.array([False])
    is_converge = np.array([False])
    while k < max_iters and not done[0]:
        pk = -np.matmul(hk, g1)
        if line_search_fn != "strong_wolfe":
            raise NotImplementedError("Currently only support line_search_fn = 'strong_wolfe', but the specified "
                                      f"is '{line_search_fn}'")
        alpha, value, g2, ls_calls = strong_wolfe(objective_func, xk, pk, max_iters=max_line_search_iters,
                                                  initial_step_length=initial_step_length, dtype=dtype)
        num_func_calls = num_func_calls + ls_calls
        sk = alpha * pk
        yk = g2 - g1
        xk = xk + sk
        g1 = g2
        sk = sk[None, :]
        yk = yk[None, :]
        rhok_inv = np.sum(yk * sk, axis=-1)                  # paddle.dot of two [1, n] rows: shape [1]
        rhok = np.full([1], 1000.0, dt) if rhok_inv[0] == 0.0 else 1.0 / rhok_inv
        vk_transpose = eye - rhok * sk * yk.T
        vk = eye - rhok * yk * sk.T
        hk = np.matmul(np.matmul(vk_transpose, hk), vk) + rhok * sk * sk.T
        k += 1
        gnorm = np.max(np.abs(g1))
        pk_norm = np.max(np.abs(pk))
        done = done | (gnorm < tolerance_grad) | (pk_norm < tolerance_change)
        is_converge = np.array(done)
        done = done | (alpha == 0.0)
    return (Tensor(is_converge), Tensor(num_func_calls), Tensor(xk), Tensor(np.asarray(value)), Tensor(g1),
            Tensor(hk))
