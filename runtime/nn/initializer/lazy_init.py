"""``paddle.LazyGuard``: Layers (and ``paddle.create_parameter``) built inside the guard get parameters
whose initializer has not run yet; ``param.initialize()`` runs it later, once.

    with paddle.LazyGuard():
        net = paddle.nn.Linear(10, 10)       # weight and bias not initialised yet
    for p in net.parameters():
        p.initialize()                       # draws from the global generator now

``Parameter.initialize()`` of a parameter with no pending initializer (created outside the guard, or
already initialised) raises AssertionError, as Paddle does; ``Parameter._is_initialized()`` tells which.
Difference from Paddle: until ``initialize()`` runs, the parameter holds zeros of its shape (Paddle
allocates no memory, so its ``numpy()`` is empty and a forward pass fails); only eager mode defers.
"""
import weakref

from ...tensor import Parameter

__all__ = ["LazyGuard"]

_depth = [0]
_pending = {}        # id(parameter) -> the initializer still to run


class LazyGuard:
    """Context manager: parameters created inside it are initialised by ``param.initialize()``."""

    def __enter__(self):
        _depth[0] += 1

    def __exit__(self, exc_type, exc_val, exc_tb):
        _depth[0] -= 1


def lazy_enabled():
    return _depth[0] > 0


def defer(param, init):
    """Record ``init`` as ``param``'s pending initializer (dropped when the parameter is freed)."""
    key = id(param)
    _pending[key] = init
    weakref.finalize(param, _pending.pop, key, None)


def _initialize(self):
    init = _pending.pop(id(self), None)
    if init is None:
        raise AssertionError(f"Required self._init_func is not None, but received None: parameter {self.name} "
                             "has no pending initializer (it was created outside paddle.LazyGuard, or "
                             "initialize() already ran)")
    init(self)


def _is_initialized(self):
    return id(self) not in _pending


Parameter.initialize = _initialize
Parameter._is_initialized = _is_initialized
