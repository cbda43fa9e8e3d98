"""Argument checks shared by ``minimize_bfgs`` and ``minimize_lbfgs`` (Paddle's messages and error types)."""
from __future__ import annotations

import numpy as np

from ....tensor import Tensor
from ....framework import state


def check_dtype(dtype):
    if dtype not in ("float32", "float64"):
        raise ValueError(f"The dtype must be 'float32' or 'float64', but the specified is {dtype}.")


def check_input_type(value, name, op_name):
    if state.static:
        raise NotImplementedError(f"{op_name}: this package runs it in dynamic mode only (Paddle's static version "
                                  "builds while_loop programs); call it eagerly")
    if not isinstance(value, Tensor):
        raise ValueError(f"The input: {value} must be tensor.")


def check_initial_inverse_hessian_estimate(h0):
    """Symmetric and positive definite (a Cholesky factorisation exists), else ValueError."""
    h = np.asarray(h0.numpy())
    bad = ValueError("The initial_inverse_hessian_estimate should be symmetric and positive definite, but the "
                     "specified is not.")
    if h.ndim != 2 or h.shape[0] != h.shape[1] or not np.all(h == h.T):
        raise bad
    try:
        np.linalg.cholesky(h)
    except np.linalg.LinAlgError:
        raise bad from None
