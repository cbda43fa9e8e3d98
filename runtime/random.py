"""The global random generator (``paddle.seed``) that random ops and initializers draw from."""
from __future__ import annotations

import numpy as np

_gen = [np.random.default_rng()]


def seed(value: int):
    """Seed every random op, initializer and DataLoader shuffle (``paddle.seed``)."""
    value = int(value)
    if value < 0:
        raise ValueError(f"seed must be non-negative, got {value}")
    _gen[0] = np.random.default_rng(value)
    return _gen[0]


def generator(op_seed: int = 0) -> np.random.Generator:
    """The generator an op should draw from: its own when the op has a fixed ``seed`` attr."""
    if op_seed:
        return np.random.default_rng(op_seed)
    return _gen[0]


def get_rng_state():
    return [_gen[0].bit_generator.state]


def set_rng_state(state):
    st = state[0] if isinstance(state, (list, tuple)) else state
    g = np.random.default_rng()
    g.bit_generator.state = st
    _gen[0] = g
