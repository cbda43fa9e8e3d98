"""Tie order of Paddle's CPU sort kernels: libstdc++'s std::sort, nth_element and partial_sort.

Paddle's CPU ``top_k_v2`` and ``argsort`` kernels sort (value, index) pairs with a comparator
on the value only, using the C++ standard library; which of several equal values comes first is
whatever those algorithms leave behind. To return the same indices as Paddle, rows that contain
ties are ordered by a faithful replay of the libstdc++ algorithms (introsort with a final
insertion sort, introselect, heap select). Rows without ties have one answer and take numpy's
fast path in the callers.

Each function works on a Python list ``seq`` of (key, index) pairs in place and orders by
``key`` ascending (callers encode "largest first" and NaN placement in the key).
"""
from __future__ import annotations

import numpy as np

_THRESHOLD = 16  # libstdc++ _S_threshold


def _lg(n: int) -> int:
    return n.bit_length() - 1


def _less(a, b) -> bool:
    return a[0] < b[0]


def _move_median_to_first(s, result, a, b, c):
    if _less(s[a], s[b]):
        if _less(s[b], s[c]):
            s[result], s[b] = s[b], s[result]
        elif _less(s[a], s[c]):
            s[result], s[c] = s[c], s[result]
        else:
            s[result], s[a] = s[a], s[result]
    elif _less(s[a], s[c]):
        s[result], s[a] = s[a], s[result]
    elif _less(s[b], s[c]):
        s[result], s[c] = s[c], s[result]
    else:
        s[result], s[b] = s[b], s[result]


def _unguarded_partition(s, first, last, pivot):
    while True:
        while _less(s[first], s[pivot]):
            first += 1
        last -= 1
        while _less(s[pivot], s[last]):
            last -= 1
        if not first < last:
            return first
        s[first], s[last] = s[last], s[first]
        first += 1


def _partition_pivot(s, first, last):
    mid = first + (last - first) // 2
    _move_median_to_first(s, first, first + 1, mid, last - 1)
    return _unguarded_partition(s, first + 1, last, first)


def _linear_insert(s, last):
    val = s[last]
    nxt = last - 1
    while _less(val, s[nxt]):
        s[last] = s[nxt]
        last = nxt
        nxt -= 1
    s[last] = val


def _insertion_sort(s, first, last):
    if first == last:
        return
    for i in range(first + 1, last):
        if _less(s[i], s[first]):
            val = s[i]
            s[first + 1:i + 1] = s[first:i]
            s[first] = val
        else:
            _linear_insert(s, i)


def _push_heap(s, base, hole, top, value):
    parent = (hole - 1) // 2
    while hole > top and _less(s[base + parent], value):
        s[base + hole] = s[base + parent]
        hole = parent
        parent = (hole - 1) // 2
    s[base + hole] = value


def _adjust_heap(s, base, hole, length, value):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if _less(s[base + child], s[base + child - 1]):
            child -= 1
        s[base + hole] = s[base + child]
        hole = child
    if length & 1 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        s[base + hole] = s[base + child - 1]
        hole = child - 1
    _push_heap(s, base, hole, top, value)


def _make_heap(s, first, last):
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(s, first, parent, length, s[first + parent])
        if parent == 0:
            return
        parent -= 1


def _pop_heap(s, first, last, result):
    value = s[result]
    s[result] = s[first]
    _adjust_heap(s, first, 0, last - first, value)


def _heap_select(s, first, middle, last):
    _make_heap(s, first, middle)
    for i in range(middle, last):
        if _less(s[i], s[first]):
            _pop_heap(s, first, middle, i)


def _sort_heap(s, first, last):
    while last - first > 1:
        last -= 1
        _pop_heap(s, first, last, last)


def partial_sort(s, first, middle, last):
    """std::partial_sort: the smallest ``middle - first`` elements, sorted, at the front."""
    _heap_select(s, first, middle, last)
    _sort_heap(s, first, middle)


def _introsort_loop(s, first, last, depth):
    while last - first > _THRESHOLD:
        if depth == 0:
            partial_sort(s, first, last, last)
            return
        depth -= 1
        cut = _partition_pivot(s, first, last)
        _introsort_loop(s, cut, last, depth)
        last = cut


def std_sort(s, first=0, last=None):
    """std::sort on ``s[first:last]`` (not stable)."""
    last = len(s) if last is None else last
    if last - first < 2:
        return
    _introsort_loop(s, first, last, 2 * _lg(last - first))
    if last - first > _THRESHOLD:
        _insertion_sort(s, first, first + _THRESHOLD)
        for i in range(first + _THRESHOLD, last):
            _linear_insert(s, i)
    else:
        _insertion_sort(s, first, last)


def nth_element(s, nth, first=0, last=None):
    """std::nth_element: ``s[nth]`` is what a full sort would put there, smaller ones before it."""
    last = len(s) if last is None else last
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(s, first, nth + 1, last)
            s[first], s[nth] = s[nth], s[first]
            return
        depth -= 1
        cut = _partition_pivot(s, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(s, first, last)


def order_keys(row: np.ndarray, descending: bool) -> list:
    """Integer sort keys for one row: equal values share a key, NaN sorts as the largest value
    (Paddle's comparators), and "descending" is encoded by negating, so callers sort ascending."""
    nan = np.isnan(row) if row.dtype.kind in "fc" else np.zeros(row.shape, bool)
    ranks = np.empty(row.shape, np.int64)
    if (~nan).any():
        _, inv = np.unique(row[~nan], return_inverse=True)
        ranks[~nan] = inv.reshape(-1)
    ranks[nan] = (ranks[~nan].max() + 1) if (~nan).any() else 0
    keys = -ranks if descending else ranks
    return list(zip(keys.tolist(), range(row.shape[0])))


def has_ties(rows: np.ndarray) -> np.ndarray:
    """Per row of a 2-D array: True when two entries compare equal (NaNs count as equal)."""
    if rows.shape[1] < 2:
        return np.zeros(rows.shape[0], bool)
    srt = np.sort(rows, axis=1)
    eq = srt[:, 1:] == srt[:, :-1]
    if rows.dtype.kind in "fc":
        nan = np.isnan(srt)
        eq |= nan[:, 1:] & nan[:, :-1]
    return eq.any(axis=1)


def topk_row(row: np.ndarray, k: int, largest: bool, sorted_: bool) -> list:
    """Indices Paddle's CPU top_k_v2 kernel returns for one row (FullTopK)."""
    s = order_keys(row, largest)
    n = len(s)
    if k * 64 < n:                      # small k: std::partial_sort
        partial_sort(s, 0, k, n)
    else:                               # std::nth_element, then sort the first k-1
        nth_element(s, k - 1, 0, n)
        if sorted_:
            std_sort(s, 0, k - 1)
    return [i for _, i in s[:k]]


def argsort_row(row: np.ndarray, descending: bool) -> list:
    """Indices Paddle's CPU argsort kernel (std::sort, not stable) returns for one row."""
    s = order_keys(row, descending)
    std_sort(s)
    return [i for _, i in s]
