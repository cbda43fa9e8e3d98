"""``paddle.incubate.autograd``'s static-graph differentiation: ``grad``, ``forward_grad`` and the
``enable_prim``/``disable_prim``/``prim_enabled`` switch. All of them work in static mode only, as in Paddle
(dynamic mode: AssertionError with Paddle's message).

Paddle lowers the program to primitive ops and linearises it when prim is enabled; the numbers it computes are
the ordinary gradient and the Jacobian-vector product. Here ``grad`` appends the registered gradient rules
(`runtime.static.backward.gradients`) and ``forward_grad`` builds the Jacobian-vector product by the double-vjp
construction, so both give the same values without a separate primitive op set.
"""
from __future__ import annotations

import typing

from ...framework import state

__all__ = ["grad", "forward_grad", "enable_prim", "disable_prim", "prim_enabled"]

_prim = {"enabled": False}


def _static_only(name):
    if not state.static:
        raise AssertionError(f"In PaddlePaddle 2.x, we turn on dynamic graph mode by default, and '{name}()' is only "
                             "supported in static graph mode. So if you want to use this api, please call "
                             "'paddle.enable_static()' before this api to enter static graph mode.")


def prim_enabled():
    """Whether ``enable_prim()`` is on (static mode only)."""
    _static_only("prim_enabled")
    return _prim["enabled"]


def enable_prim():
    """Turn on automatic differentiation on primitive operators (static mode only)."""
    _static_only("enable_prim")
    _prim["enabled"] = True


def disable_prim():
    """Turn it off again (static mode only)."""
    _static_only("disable_prim")
    _prim["enabled"] = False


def _is_var(x):
    from ...static.program import Variable
    from ...tensor import Tensor
    return isinstance(x, (Variable, Tensor))


def _check(value, what):
    if not (_is_var(value) or isinstance(value, typing.Sequence)):
        raise TypeError(f"Expected {what} is Tensor|Sequence[Tensor], but got {type(value)}.")


def _listed(xs):
    if xs is None:
        return None
    return [xs] if _is_var(xs) else list(xs)


def grad(outputs, inputs, grad_outputs=None):
    """Gradients of ``outputs`` w.r.t. ``inputs`` as new Variables of the current program (static mode only);
    a single Variable for a single input."""
    from ...static.backward import gradients
    _static_only("grad")
    if _prim["enabled"]:
        _check(outputs, "outputs")
        _check(inputs, "inputs")
    gs = gradients(_listed(outputs), _listed(inputs), _listed(grad_outputs))
    if _is_var(inputs) and isinstance(gs, typing.Sequence) and len(gs) > 0:
        return gs[0]
    return gs


def forward_grad(outputs, inputs, grad_inputs=None):
    """The forward-mode derivative (Jacobian-vector product) of ``outputs`` along ``grad_inputs`` (ones when
    None), static mode with ``enable_prim()`` only, as in Paddle."""
    from ...static.backward import gradients
    from ...api.creation import zeros_like, ones_like
    _static_only("forward_grad")
    if not _prim["enabled"]:
        raise RuntimeError("forward_grad must be running on primitiveoperators, use enable_prim to turn it on.")
    _check(outputs, "outputs")
    _check(inputs, "inputs")
    ys, xs = _listed(outputs), _listed(inputs)
    xs_dot = _listed(grad_inputs) or [ones_like(x) for x in xs]
    # J v = d/du <u, J v>... built as d/du (v . (u^T J)) with u a zero cotangent that requires grad
    us = []
    for y in ys:
        u = zeros_like(y)
        u.stop_gradient = False
        us.append(u)
    xs_bar = gradients(ys, xs, us)
    pairs = [(g, v) for g, v in zip(xs_bar, xs_dot) if g is not None]
    ys_dot = gradients([g for g, _ in pairs], us, [v for _, v in pairs])
    ys_dot = [d if d is not None else zeros_like(y) for d, y in zip(ys_dot, ys)]
    return ys_dot[0] if _is_var(outputs) else ys_dot
