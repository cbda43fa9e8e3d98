"""``paddle.base.reader`` / ``paddle.base.io``: the legacy generator-fed ``DataLoader``.

``DataLoader.from_generator(feed_list=None, capacity=None, use_double_buffer=True, iterable=True,
return_list=False, use_multiprocess=False, drop_last=True)`` makes a loader whose data source is set by
one of ``set_sample_generator(reader, batch_size, drop_last=True, places=None)`` (a reader of samples),
``set_sample_list_generator(reader, places=None)`` (a reader of lists of samples) or
``set_batch_generator(reader, places=None)`` (a reader of batches, one array per slot).

In dynamic mode (Paddle's ``DygraphGeneratorLoader``) iterating ``loader()`` gives, per batch, a list of
Tensors (``stop_gradient=True``), one per slot: the samples' slot values stacked with ``np.asarray``.
In static mode (``GeneratorLoader``, ``feed_list`` and ``places`` required) it gives, per batch,
``[{name: DenseTensor}]`` (``return_list=False``, to pass as ``Executor.run(feed=...)``) or
``[[DenseTensor, ...]]``, cast to the feed Variables' dtypes. Data is read synchronously, in order
(Paddle's prefetch thread and queue only overlap reading with compute). The non-iterable static mode
(``start()`` / ``reset()`` with a reader op in the Program) does not exist here: NotImplementedError.
"""
from __future__ import annotations

import warnings

import numpy as np

__all__ = ["DataLoader"]


def _check_input_array(item):
    arr = np.asarray(item)
    if arr.dtype == np.object_:
        raise TypeError("\n\tFailed to convert input data to a regular ndarray :\n\t* Usually this means the input "
                        "data contains nested lists with different lengths. \n\t* Check the reader function passed "
                        "to 'decorate_batch_generator' to locate the data causes this issue.")
    return arr


def _slots_of(batch):
    """A list of samples (each a list/tuple of slot values) -> one list per slot."""
    slots = []
    for items in batch:
        for i, item in enumerate(items):
            if len(slots) < len(items):
                slots.append([item])
            else:
                slots[i].append(item)
    return slots


def _batched(reader, batch_size, drop_last):
    def impl():
        buf = []
        for sample in reader():
            buf.append(sample)
            if len(buf) == batch_size:
                yield buf
                buf = []
        if buf and not drop_last:
            yield buf
    return impl


class _GeneratorLoaderBase:
    """The data-source setters shared by both modes; subclasses turn one batch into what __next__ gives."""

    def __init__(self, capacity):
        if not capacity:
            raise ValueError("Please give value to capacity.")
        self._capacity = capacity
        self._batch_reader = None
        self._iter = None

    def set_sample_generator(self, reader, batch_size, drop_last=True, places=None):
        if not isinstance(batch_size, int):     # paddle.batch's check
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if batch_size <= 0:                     # Paddle asserts it
            raise AssertionError("batch_size must be larger than 0")
        return self.set_sample_list_generator(_batched(reader, batch_size, drop_last), places=places)

    def set_sample_list_generator(self, reader, places=None):
        def impl():
            for batch in reader():
                yield _slots_of(batch)
        return self.set_batch_generator(impl, places=places)

    def set_batch_generator(self, reader, places=None):
        if not callable(reader):
            raise TypeError(f"DataLoader.set_batch_generator: reader must be a callable returning an iterator of "
                            f"batches, got {type(reader).__name__}")
        self._batch_reader = reader
        return self

    @property
    def iterable(self):
        return True

    def __call__(self):
        return self

    def __iter__(self):
        if self._batch_reader is None:
            raise RuntimeError("Data source of DataLoader has not set yet: call set_sample_generator, "
                               "set_sample_list_generator or set_batch_generator first")
        self._iter = iter(self._batch_reader())
        return self

    def __next__(self):
        if self._iter is None:
            self.__iter__()
        try:
            batch = next(self._iter)
        except StopIteration:
            self._iter = None
            raise
        return self._convert(batch)


class DygraphGeneratorLoader(_GeneratorLoaderBase):
    """Dynamic mode: each batch is a list of Tensors, one per slot (always a list, always iterable)."""

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True, return_list=True,
                 use_multiprocess=False):
        super().__init__(capacity)
        self._feed_list = feed_list
        if not iterable:
            warnings.warn("Please NOTE: DygraphGeneratorLoader supports iterable mode only. Change to iterable "
                          "mode.")
        if not return_list:
            warnings.warn("Please NOTE: DygraphGeneratorLoader supports returning as list only. Change to return "
                          "as list.")
        self._return_list = True

    def _convert(self, batch):
        from runtime.tensor import Tensor
        from runtime.api.creation import to_tensor
        out = []
        for item in batch:
            if isinstance(item, Tensor):
                t = item
            else:
                t = to_tensor(_check_input_array(item))
            t.stop_gradient = True
            out.append(t)
        return out


class GeneratorLoader(_GeneratorLoaderBase):
    """Static mode, iterable: each batch is ``[{feed name: DenseTensor}]`` or, with ``return_list``,
    ``[[DenseTensor, ...]]``."""

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True, return_list=False,
                 drop_last=True):
        super().__init__(capacity)
        if not feed_list:
            raise Exception("Feed list must be given under static graph mode.")
        if not iterable:
            raise NotImplementedError("DataLoader.from_generator(iterable=False) needs a reader op inside the "
                                      "Program (start()/reset()), which this framework does not have; use "
                                      "iterable=True and pass each batch to Executor.run(feed=...)")
        self._feed_list = list(feed_list)
        self._return_list = return_list

    def set_batch_generator(self, reader, places=None):
        if places is None:      # Paddle's check for an iterable static loader
            raise AssertionError("Places cannot be None when DataLoader is iterable")
        return super().set_batch_generator(reader, places)

    def set_sample_list_generator(self, reader, places=None):
        if places is None:
            raise AssertionError("Places cannot be None when DataLoader is iterable")
        return super().set_sample_list_generator(reader, places)

    def _convert(self, batch):
        if len(batch) != len(self._feed_list):
            raise ValueError(f"DataLoader: a batch has {len(batch)} slots but feed_list has "
                             f"{len(self._feed_list)} Variables ({[v.name for v in self._feed_list]})")
        from runtime.tensor import Tensor
        arrays = []
        for var, item in zip(self._feed_list, batch):
            arr = np.asarray(item._data if hasattr(item, "_data") else _check_input_array(item))
            dt = getattr(getattr(var, "dtype", None), "np", None)
            arrays.append(Tensor._wrap(arr.astype(dt, copy=False) if dt is not None else arr))
        if self._return_list:
            return [arrays]
        return [dict(zip((v.name for v in self._feed_list), arrays))]


class DataLoader:
    """Paddle's legacy ``paddle.base.io.DataLoader`` (use ``paddle.io.DataLoader`` for Datasets)."""

    @staticmethod
    def from_generator(feed_list=None, capacity=None, use_double_buffer=True, iterable=True, return_list=False,
                       use_multiprocess=False, drop_last=True):
        from runtime.framework import in_dynamic_mode
        if in_dynamic_mode():
            return DygraphGeneratorLoader(feed_list, capacity, use_double_buffer, iterable, return_list,
                                          use_multiprocess)
        return GeneratorLoader(feed_list, capacity, use_double_buffer, iterable, return_list, drop_last)
