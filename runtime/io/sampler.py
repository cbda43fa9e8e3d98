"""Samplers: which sample indices a DataLoader reads, in which order, grouped into batches.

Random samplers draw from the global generator (`runtime.random`), so ``paddle.seed(n)``
makes shuffling reproducible. The generator is looked up at iteration time, so a seed set
after the sampler is built still applies.
"""
from __future__ import annotations

import numpy as np

from .. import random as _random
from ..tensor import Tensor

__all__ = ["Sampler", "SequenceSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler", "DistributedBatchSampler"]


def _check_positive_int(name, value, who):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{who}: {name} should be a positive integer, but got {value!r}")
    return int(value)


class Sampler:
    """Base class: an iterable of sample indices (subclasses define ``__iter__`` and usually ``__len__``)."""

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__()")


class SequenceSampler(Sampler):
    """Indices ``0 .. len(data_source) - 1`` in order."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """Indices in random order (a permutation), or ``num_samples`` draws with replacement.

    ``generator`` may be a ``numpy.random.Generator`` to draw from, or (as in Paddle) a
    Python iterator that yields the indices itself; by default the global generator is used.
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"RandomSampler: replacement should be a bool, got {replacement!r}")
        if num_samples is not None:
            _check_positive_int("num_samples", num_samples, "RandomSampler")
            if not replacement and num_samples > len(data_source):
                raise ValueError(f"RandomSampler: num_samples ({num_samples}) must not exceed the length of "
                                 f"data_source ({len(data_source)}) when replacement is False")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        gen = self.generator
        if gen is not None and not isinstance(gen, np.random.Generator):
            for _ in range(self.num_samples):
                try:
                    yield int(next(gen))
                except StopIteration:
                    return
            return
        if gen is None:
            gen = _random.generator()
        if self.replacement:
            yield from gen.integers(0, n, size=self.num_samples).tolist()
        else:
            yield from gen.permutation(n)[:self.num_samples].tolist()

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in random order."""

    def __init__(self, indices):
        if len(indices) == 0:
            raise ValueError("SubsetRandomSampler: indices must not be empty")
        self.indices = indices

    def __iter__(self):
        perm = _random.generator().permutation(len(self.indices))
        for i in perm.tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probability proportional to ``weights``."""

    def __init__(self, weights, num_samples, replacement=True):
        w = weights.numpy() if isinstance(weights, Tensor) else np.asarray(weights)
        if w.ndim != 1:
            raise ValueError(f"WeightedRandomSampler: weights should be 1-D, got shape {list(w.shape)}")
        w = w.astype(np.float64)
        if (w < 0).any():
            raise ValueError("WeightedRandomSampler: weights should be non-negative")
        if not w.sum() > 0:
            raise ValueError("WeightedRandomSampler: weights should not all be zero")
        num_samples = _check_positive_int("num_samples", num_samples, "WeightedRandomSampler")
        if not isinstance(replacement, bool):
            raise TypeError(f"WeightedRandomSampler: replacement should be a bool, got {replacement!r}")
        if not replacement and num_samples > int((w > 0).sum()):
            raise ValueError(f"WeightedRandomSampler: num_samples ({num_samples}) exceeds the number of "
                             f"non-zero weights ({int((w > 0).sum())}) and replacement is False")
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement

    def __iter__(self):
        p = self.weights / self.weights.sum()
        idx = _random.generator().choice(len(p), size=self.num_samples, replace=self.replacement, p=p)
        return iter(idx.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups indices into lists of ``batch_size``.

    Give either ``dataset`` (indices then come from a SequenceSampler, or a RandomSampler
    when ``shuffle``) or ``sampler``, not both. ``drop_last`` drops a final short batch.
    """

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1, drop_last=False):
        if dataset is None and sampler is None:
            raise ValueError("BatchSampler: either dataset or sampler should be set")
        if dataset is not None and sampler is not None:
            raise ValueError("BatchSampler: should not set both dataset and sampler")
        if not isinstance(shuffle, bool):
            raise TypeError(f"BatchSampler: shuffle should be a bool, got {shuffle!r}")
        if not isinstance(drop_last, bool):
            raise TypeError(f"BatchSampler: drop_last should be a bool, got {drop_last!r}")
        self.batch_size = _check_positive_int("batch_size", batch_size, "BatchSampler")
        if sampler is not None:
            if shuffle:
                raise ValueError("BatchSampler: shuffle should be False when a sampler is given; "
                                 "pass a RandomSampler instead")
            self.sampler = sampler
        else:
            from .dataset import IterableDataset
            if isinstance(dataset, IterableDataset):
                raise TypeError("BatchSampler: dataset should be a map-style Dataset, got an IterableDataset")
            self.sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        self.shuffle = shuffle
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        bs = self.batch_size
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == bs:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


class DistributedBatchSampler(BatchSampler):
    """A BatchSampler that gives replica ``rank`` of ``num_replicas`` its share of every epoch.

    dy2st trains in one process, so both default to a single replica (rank 0). Indices are
    padded (by repeating the first ones) to a multiple of ``num_replicas``; with ``shuffle``
    the order is a permutation seeded by the epoch (`set_epoch`), identical on every replica.
    """

    def __init__(self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False, drop_last=False):
        self.dataset = dataset
        self.batch_size = _check_positive_int("batch_size", batch_size, "DistributedBatchSampler")
        if not isinstance(shuffle, bool):
            raise TypeError(f"DistributedBatchSampler: shuffle should be a bool, got {shuffle!r}")
        if not isinstance(drop_last, bool):
            raise TypeError(f"DistributedBatchSampler: drop_last should be a bool, got {drop_last!r}")
        self.nranks = 1 if num_replicas is None else _check_positive_int(
            "num_replicas", num_replicas, "DistributedBatchSampler")
        self.local_rank = 0 if rank is None else int(rank)
        if not 0 <= self.local_rank < self.nranks:
            raise ValueError(f"DistributedBatchSampler: rank should be in [0, {self.nranks}), got {rank}")
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.epoch = 0
        self.num_samples = -(-len(dataset) // self.nranks)
        self.total_size = self.num_samples * self.nranks

    def __iter__(self):
        n = len(self.dataset)
        indices = list(range(n))
        pad = self.total_size - n          # repeat samples so every rank gets the same count
        indices += (indices * -(-pad // max(n, 1)))[:pad] if pad > 0 else []
        if self.shuffle:
            # Paddle's order exactly: RandomState(epoch) shuffling the padded list
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        mine = self._by_batches(indices) if self.nranks > 1 else indices
        batch = []
        for idx in mine:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def _by_batches(self, indices):
        """This rank's share, as Paddle deals it: whole batches round-robin, then an even split of the
        last incomplete round."""
        per_round = self.batch_size * self.nranks
        last = self.total_size % per_round
        out = []
        for i in range(self.local_rank * self.batch_size, len(indices) - last, per_round):
            out.extend(indices[i:i + self.batch_size])
        tail, share = indices[len(indices) - last:], last // self.nranks
        out.extend(tail[self.local_rank * share:(self.local_rank + 1) * share])
        return out

    def __len__(self):
        n = self.num_samples
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def set_epoch(self, epoch):
        """Choose the shuffle for the next epoch (call it with the epoch number before iterating)."""
        self.epoch = int(epoch)
