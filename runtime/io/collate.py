"""Paddle's default collate: turn a list of samples into one batch, field by field.

Arrays and Tensors are stacked on a new first axis; Python and numpy numbers become a 1-D
array (``np.array`` rules: int -> int64, float -> float64, bool -> bool, numpy scalars keep
their dtype); strings stay a list; dicts are collated per key and sequences per position.
The DataLoader then turns every array in the result into a Tensor (`to_tensors`).
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from ..tensor import Tensor

__all__ = ["default_collate_fn", "default_convert_fn"]


def default_collate_fn(batch):
    """Collate a list of samples into numpy arrays (nested like one sample)."""
    sample = batch[0]
    if isinstance(sample, np.ndarray):
        return _stack(batch)
    if isinstance(sample, Tensor):
        return _stack([t.numpy() for t in batch])
    if isinstance(sample, (numbers.Number, np.number, np.bool_)):
        return np.array(batch)
    if isinstance(sample, (str, bytes)):
        return batch
    if isinstance(sample, Mapping):
        return {key: default_collate_fn([s[key] for s in batch]) for key in sample}
    if isinstance(sample, Sequence):
        size = len(sample)
        for i, s in enumerate(batch):
            if len(s) != size:
                raise ValueError(f"default_collate_fn: every sample in a batch must have the same number of "
                                 f"fields; sample 0 has {size} but sample {i} has {len(s)}")
        return [default_collate_fn(list(field)) for field in zip(*batch)]
    raise TypeError(f"default_collate_fn: batch data can only contain numpy arrays, Tensors, numbers, "
                    f"strings, dicts or lists, got {type(sample).__name__}")


def _stack(arrays):
    shapes = {a.shape for a in arrays}
    if len(shapes) > 1:
        raise ValueError(f"default_collate_fn: cannot stack samples of different shapes "
                         f"{sorted(list(s) for s in shapes)} into one batch; make them equal (e.g. pad or "
                         f"resize in the dataset) or pass a collate_fn")
    return np.stack(arrays, axis=0)


def default_convert_fn(sample):
    """What the loader does per sample when ``batch_size=None``: arrays become Tensors, nothing is stacked."""
    return to_tensors(sample)


def to_tensors(data):
    """Turn every ndarray in a nested structure into a Tensor; tuples become lists (Paddle's loader output)."""
    if isinstance(data, np.ndarray):
        return Tensor._wrap(data)
    if isinstance(data, Tensor):
        return data
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, Mapping):
        return {k: to_tensors(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [to_tensors(v) for v in data]
    return data
