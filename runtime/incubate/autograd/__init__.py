"""``paddle.incubate.autograd``: functional vjp/jvp, lazy Jacobian/Hessian of a function, and the static-mode
``grad``/``forward_grad`` with the prim switch."""
from .functional import vjp, jvp, Jacobian, Hessian  # noqa: F401
from .primapi import grad, forward_grad, enable_prim, disable_prim, prim_enabled  # noqa: F401

__all__ = ["vjp", "jvp", "Jacobian", "Hessian", "enable_prim", "disable_prim", "forward_grad", "grad"]
