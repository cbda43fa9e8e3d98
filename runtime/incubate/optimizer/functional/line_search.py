"""The strong-Wolfe line search of ``paddle.incubate.optimizer.functional`` (Nocedal & Wright, Alg. 3.5/3.6).

Written on numpy arrays that stand for Paddle's one-element tensors and updated *in place* where Paddle
``paddle.assign``s into them: the zoom phase writes its bracket back into the caller's ``a1``/``phi_1``/...
arrays, and the search reads its result from them. Keeping that aliasing keeps every step of the trajectory
equal to Paddle's (including the quirk that ``derphi_1`` is not advanced between iterations).
"""
from __future__ import annotations

import numpy as np

__all__ = ["strong_wolfe", "value_and_gradient"]


def value_and_gradient(f, x):
    """``(f(x), df/dx)`` as numpy arrays; ``x`` is a numpy array (a fresh leaf tensor is made for it)."""
    from ....tensor import Tensor
    from ....autograd import grad
    xt = Tensor(np.array(x))
    xt.stop_gradient = False
    value = f(xt)
    if not isinstance(value, Tensor):
        raise TypeError(f"objective_func must return a Tensor, got {type(value).__name__}")
    g = grad([value], [xt], create_graph=False)[0]
    if g is None:
        raise RuntimeError("objective_func's output does not depend on its input; it must be a differentiable "
                           "function of the position tensor")
    return np.array(value.numpy()), np.array(g.numpy())


def _true(x):
    return bool(np.asarray(x).reshape(-1)[0])


def _set(dst, src):
    dst[...] = src


def cubic_interpolation_(x1, f1, g1, x2, f2, g2):
    """Minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clipped to the interval (its midpoint when
    the cubic has no minimiser)."""
    xmin, xmax = (x1, x2) if _true(x1 <= x2) else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if _true(d2_square >= 0.0):
        d2 = np.sqrt(d2_square)
        if _true(x1 <= x2):
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return np.minimum(np.maximum(min_pos, xmin), xmax)
    return (xmin + xmax) / 2.0


def strong_wolfe(f, xk, pk, max_iters=20, tolerance_change=1e-8, initial_step_length=1.0, c1=1e-4, c2=0.9,
                 alpha_max=10, dtype="float32"):
    """Step length along ``pk`` from ``xk`` meeting the strong Wolfe conditions.
    Returns ``(a_star, phi_star, derf_star, ls_func_calls)`` as numpy arrays."""
    dt = np.dtype(dtype)

    def phi_and_derphi(a):
        phi_value, f_grad = value_and_gradient(f, xk + a * pk)
        return phi_value, f_grad, np.asarray(np.dot(f_grad, pk))

    def zoom(a_lo, phi_lo, derphi_lo, derf_lo, a_hi, phi_hi, derphi_hi, phi_0, derphi_0):
        j = np.array([0], np.int64)
        done_zoom = np.array([False])
        while True:
            done_zoom = done_zoom | (np.abs(a_hi - a_lo) < tolerance_change)
            if not (_true(j < max_iters) and not _true(done_zoom)):
                break
            aj = cubic_interpolation_(a_lo, phi_lo, derphi_lo, a_hi, phi_hi, derphi_hi)
            min_change = 0.1 * np.abs(a_hi - a_lo)
            if _true(np.minimum(np.abs(aj - a_lo), np.abs(aj - a_hi)) < min_change):
                aj = 0.5 * (a_lo + a_hi)
            phi_j, derf_j, derphi_j = phi_and_derphi(aj)
            if _true((phi_j > phi_0 + c1 * aj * derphi_0) | (phi_j >= phi_lo)):
                _set(a_hi, aj)
                _set(phi_hi, phi_j)
                _set(derphi_hi, derphi_j)
            else:
                done_zoom = np.asarray(np.abs(derphi_j) <= -c2 * derphi_0).reshape(done_zoom.shape)
                if _true(~done_zoom & (derphi_j * (a_hi - a_lo) >= 0)):
                    _set(a_hi, a_lo)
                    _set(phi_hi, phi_lo)
                    _set(derphi_hi, derphi_lo)
                _set(a_lo, aj)
                _set(phi_lo, phi_j)
                _set(derphi_lo, derphi_j)
                _set(derf_lo, derf_j)
            if not _true(done_zoom):
                j = j + 1
        return j

    alpha_max = np.full([1], alpha_max, dt)
    a1 = np.full([1], 0.0, dt)
    a2 = np.full([1], initial_step_length, dt)
    phi_1, derf_1, derphi_1 = phi_and_derphi(a1)
    phi_0, derphi_0 = np.array(phi_1), np.array(derphi_1)
    ls_func_calls = np.array([1], np.int64)
    a_star = np.full([1], 0, dt)
    phi_star, derf_star = np.array(phi_1), np.array(derf_1)
    i = 0
    done = np.array([False])
    while i < max_iters and not _true(done):
        phi_2, derf_2, derphi_2 = phi_and_derphi(a2)
        ls_func_calls = ls_func_calls + 1
        done = done | np.any(np.isinf(phi_2))
        pred1 = ~done & ((phi_2 > phi_0 + c1 * a2 * derphi_0) | ((phi_2 >= phi_1) & (i > 1)))
        done = done | pred1
        if _true(pred1):
            j = zoom(a1, phi_1, derphi_1, derf_1, a2, phi_2, derphi_2, phi_0, derphi_0)
            _set(a_star, a1)
            _set(phi_star, phi_1)
            _set(derf_star, derf_1)
            ls_func_calls = ls_func_calls + j
        pred2 = ~done & (np.abs(derphi_2) <= -c2 * derphi_0)
        done = done | pred2
        if _true(pred2):
            _set(a_star, a2)
            _set(phi_star, phi_2)
            _set(derf_star, derf_2)
        pred3 = ~done & (derphi_2 >= 0)
        done = done | pred3
        if _true(pred3):
            j = zoom(a2, phi_2, derphi_2, derf_2, a1, phi_1, derphi_1, phi_0, derphi_0)
            _set(a_star, a2)
            _set(phi_star, phi_2)
            _set(derf_star, derf_2)
            ls_func_calls = ls_func_calls + j
        if not _true(done):
            _set(a1, a2)
            _set(phi_1, phi_2)
            _set(derf_1, derf_2)
            _set(a2, np.minimum(2 * a2, alpha_max))
            i += 1
    return a_star, phi_star, derf_star, ls_func_calls
