"""``paddle.base.backward``: static-graph autograd (``append_backward``, ``gradients``)."""
from runtime.static import append_backward, gradients  # noqa: F401

__all__ = ["append_backward", "gradients", "calc_gradient"]


def calc_gradient(targets, inputs, target_gradients=None, no_grad_set=None):
    """Paddle's ``base.backward.calc_gradient``: `gradients` of ``targets`` w.r.t. ``inputs`` in the Program
    being built, the one gradient itself when there is one input, else the list (None where an input does not
    affect the targets)."""
    grads = gradients(targets, inputs, target_gradients, no_grad_set)
    return grads[0] if len(grads) == 1 else grads
