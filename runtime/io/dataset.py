"""Datasets (``paddle.io.Dataset`` and friends): map-style, iterable, and their combinations.

Datasets are plain Python containers consumed by `DataLoader`; they run eagerly only.
"""
from __future__ import annotations

import bisect
import math

import numpy as np

from .. import random as _random
from ..tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset",
           "ConcatDataset", "Subset", "random_split"]


class Dataset:
    """A map-style dataset: subclasses implement ``__getitem__(idx)`` and ``__len__()``."""

    def __getitem__(self, idx):
        raise NotImplementedError(f"'__getitem__' not implemented in class {type(self).__name__}; "
                                  "a map-style Dataset must define __getitem__(idx) and __len__()")

    def __len__(self):
        raise NotImplementedError(f"'__len__' not implemented in class {type(self).__name__}; "
                                  "a map-style Dataset must define __getitem__(idx) and __len__()")


class IterableDataset(Dataset):
    """A stream of samples: subclasses implement ``__iter__``. DataLoader batches the stream in order."""

    def __iter__(self):
        raise NotImplementedError(f"'__iter__' not implemented in class {type(self).__name__}; "
                                  "an IterableDataset must define __iter__()")

    def __getitem__(self, idx):
        raise RuntimeError(f"'__getitem__' should not be called for IterableDataset {type(self).__name__}; "
                           "iterate over it instead")

    def __len__(self):
        # TypeError (Paddle raises RuntimeError) so that list(dataset) and other length hints work.
        raise TypeError(f"'__len__' should not be called for IterableDataset {type(self).__name__}: "
                        "a stream has no length")


class TensorDataset(Dataset):
    """Samples are the rows of several tensors (or arrays) sharing their first dimension.

    ``dataset[i]`` is ``(t[i] for t in tensors)`` as a tuple. Items are data: Tensor rows come
    back as new Tensors with ``stop_gradient=True``; ndarray rows stay ndarrays (as in Paddle).
    """

    def __init__(self, tensors):
        if isinstance(tensors, (Tensor, np.ndarray)) or not isinstance(tensors, (list, tuple)):
            raise TypeError(f"TensorDataset: tensors must be a list or tuple of Tensors, "
                            f"got {type(tensors).__name__}")
        if not tensors:
            raise ValueError("TensorDataset: tensors must not be empty")
        arrays = []
        for i, t in enumerate(tensors):
            if isinstance(t, Tensor):
                arrays.append(t.numpy())
            elif isinstance(t, np.ndarray):
                arrays.append(t)
            else:
                raise TypeError(f"TensorDataset: tensors[{i}] must be a Tensor or numpy.ndarray, "
                                f"got {type(t).__name__}")
            if arrays[-1].ndim == 0:
                raise ValueError(f"TensorDataset: tensors[{i}] is 0-D; every tensor needs a first "
                                 "(sample) dimension")
        n = arrays[0].shape[0]
        for i, a in enumerate(arrays):
            if a.shape[0] != n:
                raise ValueError(f"TensorDataset: all tensors must have the same first dimension; "
                                 f"tensors[0] has {n} but tensors[{i}] has {a.shape[0]} "
                                 f"(shapes {[list(x.shape) for x in arrays]})")
        self.tensors = list(tensors)
        self._arrays = arrays
        self._is_tensor = [isinstance(t, Tensor) for t in tensors]

    def __getitem__(self, index):
        return tuple(Tensor._wrap(np.asarray(a[index])) if is_t else a[index]
                     for a, is_t in zip(self._arrays, self._is_tensor))

    def _get_batch(self, indices):
        """All fields of several samples at once, stacked (what the default collate would build)."""
        idx = np.asarray(indices, dtype=np.int64)
        return [a[idx] for a in self._arrays]

    def __len__(self):
        return self._arrays[0].shape[0]


def _fields(sample):
    return list(sample) if isinstance(sample, (list, tuple)) else [sample]


class ComposeDataset(Dataset):
    """Zips map-style datasets of equal length: sample ``i`` is all their fields of sample ``i`` in one tuple."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ComposeDataset: datasets must not be empty")
        for i, d in enumerate(self.datasets):
            if not isinstance(d, Dataset):
                raise TypeError(f"ComposeDataset: datasets[{i}] must be a paddle.io.Dataset, got {type(d).__name__}")
            if isinstance(d, IterableDataset):
                raise TypeError(f"ComposeDataset: datasets[{i}] is an IterableDataset; only map-style "
                                "datasets can be composed")
        lengths = [len(d) for d in self.datasets]
        if len(set(lengths)) != 1:
            raise ValueError(f"ComposeDataset: all datasets must have the same length, got lengths {lengths}")

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, idx):
        out = []
        for d in self.datasets:
            out.extend(_fields(d[idx]))
        return tuple(out)


class ChainDataset(IterableDataset):
    """Iterates several IterableDatasets one after another."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        for i, d in enumerate(self.datasets):
            if not isinstance(d, IterableDataset):
                raise TypeError(f"ChainDataset: datasets[{i}] must be a paddle.io.IterableDataset, "
                                f"got {type(d).__name__}")

    def __iter__(self):
        for d in self.datasets:
            yield from d


class ConcatDataset(Dataset):
    """Map-style datasets laid end to end: index ``len(a) + j`` is ``b[j]``."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: datasets must not be an empty iterable")
        for i, d in enumerate(self.datasets):
            if isinstance(d, IterableDataset):
                raise TypeError(f"ConcatDataset: datasets[{i}] is an IterableDataset; use ChainDataset")
        self.cumulative_sizes = []
        total = 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        n = len(self)
        if idx < 0:
            if -idx > n:
                raise ValueError(f"ConcatDataset: index {idx} is out of range for a dataset of length {n}")
            idx += n
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        if which >= len(self.datasets):
            raise IndexError(f"ConcatDataset: index {idx} is out of range for a dataset of length {n}")
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def _split_lengths(n, lengths):
    lengths = list(lengths)
    if lengths and all(isinstance(v, float) for v in lengths) and math.isclose(sum(lengths), 1.0):
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"random_split: fraction at index {i} is {frac}; fractions must lie in [0, 1]")
        counts = [int(math.floor(n * frac)) for frac in lengths]
        # Hand the samples lost to flooring out one at a time, first split first.
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        return counts
    for i, v in enumerate(lengths):
        if isinstance(v, float) and not v.is_integer() or int(v) < 0:
            raise ValueError(f"random_split: lengths must be non-negative integers or fractions summing "
                             f"to 1, got {lengths}")
    return [int(v) for v in lengths]


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` into non-overlapping random `Subset`s of the given lengths.

    ``lengths`` are sample counts summing to ``len(dataset)``, or fractions summing to 1
    (floored, with the remainder given to the first splits one by one). The permutation is
    drawn from ``generator`` (a ``numpy.random.Generator``) or else from the global generator
    that ``paddle.seed`` seeds.
    """
    n = len(dataset)
    counts = _split_lengths(n, lengths)
    if sum(counts) != n:
        raise ValueError(f"random_split: sum of input lengths ({sum(counts)}, from {list(lengths)}) does not "
                         f"equal the length of the input dataset ({n})")
    gen = generator if generator is not None else _random.generator()
    if not hasattr(gen, "permutation"):
        raise TypeError(f"random_split: generator must be a numpy.random.Generator or None, got {type(gen).__name__}")
    perm = gen.permutation(n).tolist()
    out, start = [], 0
    for c in counts:
        out.append(Subset(dataset, perm[start:start + c]))
        start += c
    return out
