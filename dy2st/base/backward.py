"""``paddle.base.backward``: static-graph autograd (``append_backward``, ``gradients``)."""
from runtime.static import append_backward, gradients  # noqa: F401

__all__ = ["append_backward", "gradients"]
