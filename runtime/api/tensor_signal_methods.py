"""Tensor methods Paddle has whose functions live elsewhere: ``Tensor.stft`` / ``Tensor.istft`` (the
functions of ``paddle.signal``) and ``Tensor.top_p_sampling``.

``top_p_sampling`` has no CPU kernel in Paddle 3.3.1 (it runs on GPU and XPU only): Paddle's CPU build
raises RuntimeError "(NotFound) The kernel `top_p_sampling` is not registered" eagerly and a TypeError
while building a static Program. dy2st is a CPU implementation, so it refuses the same way (the error
is both a RuntimeError and a TypeError) after checking the arguments.
"""
from __future__ import annotations

from ..ops.special import KernelDtypeError
from ..signal import istft, stft
from ..tensor import tensor_method
from ._helpers import is_var

__all__ = ["top_p_sampling"]

tensor_method(stft, name="stft")
tensor_method(istft, name="istft")


@tensor_method
def top_p_sampling(x, ps, threshold=None, topp_seed=None, seed=-1, k=0, mode="truncated", return_top=False,
                   name=None):
    """Top-p (nucleus) sampling of each row of the probabilities ``x`` with the thresholds ``ps``:
    not available on CPU (see the module docstring)."""
    if not is_var(x):
        raise TypeError(f"top_p_sampling: x must be a Tensor, got {type(x).__name__}")
    if not is_var(ps):
        raise TypeError(f"top_p_sampling: ps must be a Tensor, got {type(ps).__name__}")
    if mode not in ("truncated", "non-truncated"):
        raise ValueError(f"top_p_sampling: mode must be 'truncated' or 'non-truncated', got {mode!r}")
    raise KernelDtypeError("top_p_sampling: Paddle has no CPU kernel for top_p_sampling (it runs on GPU and "
                           "XPU only), and dy2st runs on CPU; sample on CPU with paddle.multinomial over "
                           "the renormalised top-p probabilities instead")
