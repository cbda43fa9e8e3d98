"""Independent: reinterpret rightmost batch axes of a distribution as event axes."""
from __future__ import annotations

from .distribution import Distribution, sum_rightmost


class Independent(Distribution):
    """``base`` with its ``reinterpreted_batch_rank`` rightmost batch axes moved into the event shape."""

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Distribution):
            raise TypeError(f"Expected type of 'base' is Distribution, but got {type(base)}")
        if not 0 < reinterpreted_batch_rank <= len(base.batch_shape):
            raise ValueError(f'Expected 0 < reinterpreted_batch_rank <= {len(base.batch_shape)}, but got '
                             f'{reinterpreted_batch_rank}')
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        shape = tuple(base.batch_shape) + tuple(base.event_shape)
        cut = len(base.batch_shape) - reinterpreted_batch_rank
        super().__init__(batch_shape=shape[:cut], event_shape=shape[cut:])

    @property
    def mean(self):
        return self._base.mean

    @property
    def variance(self):
        return self._base.variance

    def sample(self, shape=()):
        return self._base.sample(shape)

    def log_prob(self, value):
        return sum_rightmost(self._base.log_prob(value), self._reinterpreted_batch_rank)

    def prob(self, value):
        return self.log_prob(value).exp()

    def entropy(self):
        return sum_rightmost(self._base.entropy(), self._reinterpreted_batch_rank)

    def _sum_rightmost(self, value, n):
        return sum_rightmost(value, n)
