"""``paddle.framework.random``: ``seed`` and the random generator state."""
from runtime.random import get_rng_state, seed, set_rng_state  # noqa: F401

__all__ = ["seed", "get_rng_state", "set_rng_state"]
