"""Helpers for the optimizer tests: parameters with set gradients, and a step loop."""
import itertools

import numpy as np

from runtime.tensor import Parameter, Tensor

_ids = itertools.count()

V0 = np.array([[1.0, 2.0, -1.5], [0.5, -0.25, 3.0]])
GRADS = [np.array([[1.0, -3.0, 0.5], [0.2, 0.4, -0.6]]),
         np.array([[2.0, 1.0, -1.0], [-0.3, 0.1, 0.9]]),
         np.array([[-0.5, 0.25, 4.0], [1.5, -2.0, 0.3]])]


def param(value=V0, dtype="float64", name=None, **attrs):
    """A named Parameter (float64 by default so references match to 1e-12)."""
    p = Parameter(np.array(value, dtype=dtype), name=name or f"opt_test_p{next(_ids)}")
    for k, v in attrs.items():
        setattr(p, k, v)
    return p


def set_grad(p, g):
    p.grad = Tensor(np.array(g, dtype=p.numpy().dtype))


def train(opt, params, steps=3, grads=GRADS, after_step=None):
    """Run ``steps`` updates feeding ``grads[i]`` (scaled per parameter index) to every parameter."""
    for s in range(steps):
        for j, p in enumerate(params):
            set_grad(p, grads[s % len(grads)] * (j + 1))
        opt.step()
        opt.clear_grad()
        if after_step is not None:
            after_step(s)
    return [p.numpy().copy() for p in params]


def grads_for(j, steps=3, grads=GRADS):
    return [grads[s % len(grads)] * (j + 1) for s in range(steps)]
