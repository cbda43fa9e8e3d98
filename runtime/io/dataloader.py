"""`DataLoader`: iterate a dataset in batches of Tensors (``paddle.io.DataLoader``).

dy2st loads data in the calling process. ``num_workers > 0`` is accepted and gives exactly
the batches the single-process loader gives (same order, same contents); no worker processes
are started, so ``worker_init_fn`` is not called and `get_worker_info` returns None.
``use_buffer_reader``, ``prefetch_factor``, ``use_shared_memory``, ``timeout`` and
``persistent_workers`` are accepted for compatibility and have no effect.
"""
from __future__ import annotations

import numpy as np

from .collate import default_collate_fn, default_convert_fn, to_tensors
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler

__all__ = ["DataLoader", "get_worker_info"]


def get_worker_info():
    """Information about the current worker process; always None (data loads in the main process)."""
    return None


class DataLoader:
    """Iterates ``dataset`` in batches.

    Each step yields the collated batch with arrays turned into Tensors: a list with one
    Tensor per sample field (a single Tensor when samples are single arrays, a dict when
    samples are dicts). Batches come from ``batch_sampler`` if given, else from
    ``batch_size``/``shuffle``/``drop_last``; ``batch_size=None`` yields samples unbatched.
    Shuffling draws from the generator that ``paddle.seed`` seeds. ``len(loader)`` is the
    number of batches (map-style datasets only).
    """

    def __init__(self, dataset, feed_list=None, places=None, return_list=True, batch_sampler=None,
                 batch_size=1, shuffle=False, drop_last=False, collate_fn=None, num_workers=0,
                 use_buffer_reader=True, reader_buffer_size=2, prefetch_factor=2, use_shared_memory=True,
                 timeout=0, worker_init_fn=None, persistent_workers=False):
        self.dataset = dataset
        self.feed_list = feed_list
        self.places = places
        self.return_list = return_list
        self.collate_fn = collate_fn
        self.use_buffer_reader = use_buffer_reader
        self.reader_buffer_size = reader_buffer_size
        self.prefetch_factor = prefetch_factor
        self.use_shared_memory = use_shared_memory
        self.worker_init_fn = worker_init_fn
        self.persistent_workers = persistent_workers
        if isinstance(num_workers, bool) or not isinstance(num_workers, (int, np.integer)) or num_workers < 0:
            raise ValueError(f"DataLoader: num_workers should be a non-negative integer, got {num_workers!r}")
        self.num_workers = int(num_workers)
        if not isinstance(timeout, (int, float)) or timeout < 0:
            raise ValueError(f"DataLoader: timeout should be a non-negative number, got {timeout!r}")
        self.timeout = timeout
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError(f"DataLoader: collate_fn should be callable, got {type(collate_fn).__name__}")

        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle:
                raise ValueError(f"DataLoader: IterableDataset does not support shuffle, but got shuffle={shuffle}")
            if batch_sampler is not None:
                raise ValueError("DataLoader: IterableDataset expects batch_sampler to be unspecified")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or drop_last:
                raise ValueError("DataLoader: batch_size/shuffle/drop_last should not be set when "
                                 "batch_sampler is given")
            self.batch_sampler = batch_sampler
            self.batch_size = None
            self.drop_last = False
        elif batch_size is None:
            self.batch_sampler = None
            self.batch_size = None
            self.drop_last = drop_last
        else:
            if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size <= 0:
                raise ValueError(f"DataLoader: batch_size should be None or a positive integer when "
                                 f"batch_sampler is not given, got {batch_size!r}")
            self.batch_size = int(batch_size)
            self.drop_last = drop_last
            self.batch_sampler = None if self._iterable else BatchSampler(
                dataset=dataset, batch_size=self.batch_size, shuffle=shuffle, drop_last=drop_last)
        self.shuffle = shuffle
        self.auto_collate_batch = self.batch_sampler is not None or (self._iterable and self.batch_size is not None)

    def __len__(self):
        if self._iterable:
            # TypeError (Paddle: ValueError) so that list(loader) and other length hints still work.
            raise TypeError("DataLoader: length of an IterableDataset is not supported")
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.dataset)

    def __iter__(self):
        if self._iterable:
            return self._iter_iterable()
        return self._iter_map()

    def __call__(self):
        return self.__iter__()

    # -- map-style -------------------------------------------------------------------------
    def _iter_map(self):
        ds = self.dataset
        if self.batch_sampler is None:
            convert = self.collate_fn or default_convert_fn
            for i in range(len(ds)):
                yield self._finish(convert(ds[i]))
            return
        collate = self.collate_fn or default_collate_fn
        # A TensorDataset batch is a fancy-index of each array: the same result as stacking rows.
        fast = self.collate_fn is None and type(ds) is TensorDataset
        for indices in self.batch_sampler:
            if fast:
                yield self._finish(ds._get_batch(indices))
            else:
                yield self._finish(collate([ds[i] for i in indices]))

    # -- iterable --------------------------------------------------------------------------
    def _iter_iterable(self):
        if self.batch_size is None:
            convert = self.collate_fn or default_convert_fn
            for sample in self.dataset:
                yield self._finish(convert(sample))
            return
        collate = self.collate_fn or default_collate_fn
        bs = self.batch_size
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == bs:
                yield self._finish(collate(batch))
                batch = []
        if batch and not self.drop_last:
            yield self._finish(collate(batch))

    @staticmethod
    def _finish(data):
        return to_tensors(data)
