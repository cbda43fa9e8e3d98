"""``paddle.Generator``: a random-number generator object with Paddle's methods (``manual_seed``,
``seed``, ``initial_seed``, ``random``, ``get_state`` / ``set_state`` and the multi-state
``register_state_index`` / ``get_state_index`` / ``set_state_index``).

`default_generator()` is the Generator of the global RNG that every random op and initializer draws
from (``runtime.random``): seeding it or restoring one of its states changes what ``paddle.rand`` ...
produce next, exactly as ``paddle.seed`` / ``paddle.set_rng_state`` do. ``Generator()`` makes an
independent generator (seeded from the OS), for code that keeps and restores its own states.

The bits differ from Paddle's (numpy's PCG64 here, Paddle's mt19937_64 there); seeds, states and
reproducibility behave the same: one seed gives one sequence, a saved state replays it.
"""
from __future__ import annotations

import secrets

import numpy as np

from .. import random as _random

__all__ = ["Generator", "GeneratorState", "default_generator", "seed"]

_SEED_MASK = (1 << 64) - 1


class GeneratorState(dict):
    """A saved generator state: numpy's bit-generator state dict (so ``paddle.set_rng_state`` accepts it
    too) plus the seed it started from, ``current_seed()``."""

    def __init__(self, state, seed):
        super().__init__(state)
        self._seed = int(seed)

    def current_seed(self):
        return self._seed

    def __repr__(self):
        return f"GeneratorState(current_seed={self._seed})"


def _check_seed(seed, api):
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"Generator.{api}: seed must be an int, got {type(seed).__name__}")
    seed = int(seed)
    if seed < 0 or seed > _SEED_MASK:
        raise TypeError(f"Generator.{api}: seed must be in [0, 2**64), got {seed}")
    return seed


class Generator:
    """A random-number generator (``paddle.Generator()``: independent, seeded from the OS)."""

    def __init__(self):
        self._slot = [None]           # the live numpy generator (the global one's list for the default)
        self._seed = 0
        self._seen = None             # the numpy generator _seed belongs to
        self._states = [None]         # saved states of the other state indices
        self._index = 0
        self.manual_seed(secrets.randbits(63))

    @classmethod
    def _bound_to(cls, slot):
        g = cls.__new__(cls)
        g._slot, g._seed, g._seen, g._states, g._index = slot, 0, None, [None], 0
        return g

    # -- seeding -------------------------------------------------------------------------------------
    def manual_seed(self, seed):
        """Restart the generator from ``seed``; returns the generator."""
        seed = _check_seed(seed, "manual_seed")
        self._slot[0] = np.random.default_rng(seed)
        self._seed, self._seen = seed, self._slot[0]
        return self

    def seed(self):
        """Reseed from the OS; returns the new seed."""
        s = secrets.randbits(63)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        """The seed the current sequence started from."""
        gen = self._slot[0]
        if gen is not self._seen:     # reseeded through paddle.seed (numpy keeps the seed as its entropy)
            entropy = gen.bit_generator.seed_seq.entropy
            self._seed = int(entropy) & _SEED_MASK if isinstance(entropy, (int, np.integer)) else 0
            self._seen = gen
        return self._seed

    def random(self):
        """The next raw 64-bit random integer."""
        return int(self._slot[0].bit_generator.random_raw())

    # -- states --------------------------------------------------------------------------------------
    def get_state(self):
        return GeneratorState(self._slot[0].bit_generator.state, self.initial_seed())

    def set_state(self, state):
        """Restore a state from ``get_state()`` (or an element of ``paddle.get_rng_state()``)."""
        if not isinstance(state, dict) or "bit_generator" not in state:
            raise TypeError(f"Generator.set_state: expected a GeneratorState from get_state(), got "
                            f"{type(state).__name__}")
        gen = np.random.default_rng()
        gen.bit_generator.state = dict(state)
        self._slot[0] = gen
        self._seed = state.current_seed() if isinstance(state, GeneratorState) else self.initial_seed()
        self._seen = gen
        return self

    def get_state_index(self):
        return self._index

    def register_state_index(self, state):
        """Add ``state`` as a new state index and make it current; returns its index."""
        self._states[self._index] = self.get_state()
        self._states.append(None)
        self._index = len(self._states) - 1
        self.set_state(state)
        return self._index

    def set_state_index(self, index):
        """Switch to the state registered as ``index`` (the current one is kept for switching back)."""
        index = int(index)
        if not 0 <= index < len(self._states):
            raise ValueError(f"Generator.set_state_index: no state index {index}; registered indices are "
                             f"0..{len(self._states) - 1} (register_state_index adds one)")
        if index != self._index:
            self._states[self._index] = self.get_state()
            self._index = index
            self.set_state(self._states[index])
            self._states[index] = None


_default = []


def default_generator():
    """The Generator of the global RNG (``paddle.seed`` / random ops / initializers)."""
    if not _default:
        _default.append(Generator._bound_to(_random._gen))
    return _default[0]


def seed(value):
    """``paddle.seed``: seed the global generator (every random op, initializer and DataLoader shuffle);
    returns its Generator, as Paddle does."""
    _random.seed(value)
    gen = default_generator()
    gen._seed, gen._seen = int(value), _random._gen[0]
    return gen
