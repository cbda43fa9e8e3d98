"""Samplers: which sample indices a DataLoader reads, in which order, grouped into batches.

Random samplers draw from the global generator (`runtime.random`), so ``paddle.seed(n)``
makes shuffling reproducible. The generator is looked up at iteration time, so a seed set
after the sampler is built still applies.
"""
from __future__ import annotations

from collections.abc import Iterable

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
    """``num_samples`` indices drawn with probability proportional to ``weights`` (a 2-D ``weights``
    draws ``num_samples`` per row). As in Paddle, the arguments are checked here (ValueError) and the
    weights when iterating (AssertionError)."""

    def __init__(self, weights, num_samples, replacement=True):
        if not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement

    def _checked_weights(self):
        w = self.weights
        if isinstance(w, Tensor):
            w = w.numpy()
        elif isinstance(w, (list, tuple)):
            w = np.array(w)
        assert isinstance(w, np.ndarray), "weights should be paddle.Tensor, numpy.ndarray, list or tuple"
        assert w.ndim <= 2, "weights should be a 1-D or 2-D array"
        w = w.reshape((-1, w.shape[-1])).astype(np.float64)
        assert np.all(w >= 0.0), "weights should be positive value"
        assert not np.any(w == np.inf), "weights should not be INF"
        non_zeros = np.sum(w > 0.0, axis=1)
        assert np.all(non_zeros > 0), "weights should have positive values"
        if not self.replacement:
            assert np.all(non_zeros >= self.num_samples), \
                "weights positive value number should not less than num_samples when replacement=False"
        return w / w.sum(axis=1, keepdims=True)

    def __iter__(self):
        p = self._checked_weights()
        gen = _random.generator()
        idx = [gen.choice(p.shape[1], size=self.num_samples, replace=self.replacement, p=row) for row in p]
        return iter(np.concatenate(idx).tolist())

    def __len__(self):
        shape = np.shape(self.weights.numpy() if isinstance(self.weights, Tensor) else self.weights)
        return self.num_samples * (int(np.prod(shape)) // shape[-1])


class BatchSampler(Sampler):
    """Groups indices into lists of ``batch_size``.

    Give either ``dataset`` (indices then come from a SequenceSampler, or a RandomSampler
    when ``shuffle``) or ``sampler``, not both. ``drop_last`` drops a final short batch.
    Bad arguments raise AssertionError with Paddle's messages, as Paddle does.
    """

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1, drop_last=False):
        if dataset is None:
            assert sampler is not None, "either dataset or sampler should be set"
            assert isinstance(sampler, (Sampler, Iterable)), \
                f"sampler should be either paddle.io.Sampler or Iterable, but got {type(sampler)}"
            assert not shuffle, "shuffle should be False when sampler is set"
            self.sampler = sampler
        else:
            from .dataset import IterableDataset
            assert not isinstance(dataset, IterableDataset), "dataset should not be a paddle.io.IterableDataset"
            assert sampler is None, "should not set both dataset and sampler"
            assert isinstance(shuffle, bool), f"shuffle should be a boolean value, but got {type(shuffle)}"
            self.sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        assert isinstance(batch_size, int) and batch_size > 0, \
            f"batch_size should be a positive integer, but got {batch_size}"
        self.batch_size = batch_size
        self.shuffle = shuffle
        assert isinstance(drop_last, bool), f"drop_last should be a boolean value, but got {type(drop_last)}"
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
