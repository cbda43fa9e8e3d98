"""``paddle.framework.random``: ``seed`` and the random generator state."""
from runtime.random import get_rng_state, seed, set_rng_state  # noqa: F401

__all__ = ["seed", "get_rng_state", "set_rng_state"]


def _manual_program_seed(seed):
    """Seed the default main and startup Programs (their ``random_seed``), as Paddle's unit tests do."""
    from runtime.static import default_main_program, default_startup_program
    default_main_program().random_seed = seed
    default_startup_program().random_seed = seed
