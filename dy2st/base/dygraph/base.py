"""``paddle.base.dygraph.base``: dygraph (eager) mode switches and ``to_variable``."""
from __future__ import annotations

import contextlib

import numpy as np

from runtime.autograd import grad  # noqa: F401
from runtime.framework import disable_static, enable_static, in_dynamic_mode, no_grad, state  # noqa: F401
from runtime.static.program import Variable
from runtime.tensor import Tensor

from ...static_function import in_to_static_mode  # noqa: F401  (paddle.base.dygraph.base.in_to_static_mode)

__all__ = ["to_variable", "guard", "enabled", "enable_dygraph", "disable_dygraph", "no_grad", "no_grad_", "grad"]

no_grad_ = no_grad


def enabled():
    """Whether eager (dygraph) mode is on."""
    return in_dynamic_mode()


def enable_dygraph(place=None):
    """Switch to eager mode (``paddle.disable_static``)."""
    disable_static(place)


def disable_dygraph():
    """Switch to static mode (``paddle.enable_static``)."""
    enable_static()


@contextlib.contextmanager
def guard(place=None):
    """Run the block in eager mode, then go back to the mode before it."""
    was_static = state.static
    disable_static(place)
    try:
        yield
    finally:
        if was_static:
            enable_static()


def to_variable(value, name=None, zero_copy=None, dtype=None):
    """An eager Tensor from a numpy array or a list/tuple (read as ``np.array(value)``, so it keeps
    numpy's dtype: float64 for Python floats), as Paddle 2.x's ``to_variable`` (Paddle 3 dropped it;
    ``paddle.to_tensor`` is its successor). A Tensor or static Variable is returned as it is, cast
    when ``dtype`` differs; ``stop_gradient`` is True."""
    if isinstance(value, (Tensor, Variable)):
        return value if dtype is None or value.dtype == dtype else value.astype(dtype)
    if not isinstance(value, (np.ndarray, np.generic, list, tuple)):
        raise TypeError("The type of 'value' in base.dygraph.to_variable must be (numpy.ndarray, Tensor, "
                        f"list, tuple), but received {type(value)}.")
    from runtime.api.creation import to_tensor
    t = to_tensor(np.asarray(value), dtype=dtype)
    if name is not None:
        t.name = name
    return t


def switch_to_static_graph(func):
    """Decorator: run ``func`` while building a static Program (static mode), then return to the mode
    the caller was in (Paddle's ``base.dygraph.base.switch_to_static_graph``)."""
    import functools

    from ..framework import _dygraph_guard

    @functools.wraps(func)
    def __impl__(*args, **kwargs):
        with _dygraph_guard(None):
            return func(*args, **kwargs)
    return __impl__


__all__ += ["switch_to_static_graph"]
