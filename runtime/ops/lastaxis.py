"""Fast reductions over a short, contiguous last axis (softmax rows, attention scores, layer_norm rows).

numpy's ``np.maximum.reduce(x, axis=-1)`` pays ~40-50 ns of inner-loop setup per row and does not
vectorise across rows: on [8, 4, 32, 32] float32 it takes ~55 µs where the same data costs ~3 µs
reduced along its first axis. Two ways round it, each a few whole-array calls:

* transpose: a C-contiguous copy of the [classes, rows] transpose, reduced along its first axis (one
  vectorised elementwise maximum per class): best for narrow rows and small arrays;
* fold, then transpose: ``maximum(left half, right half)`` while the rows are wider than 32 (one 2-D
  call whose inner loop is a contiguous half row), then adjacent pairs of the flattened array,
  ``maximum(flat[0::2], flat[1::2])`` (the width being even, a pair never straddles two rows, so each
  step is ONE 1-D call over the whole array), until the rows are at most 24 wide; then the transpose.

``np.maximum``/``np.minimum`` pick one of their operands, so the result is the same set of values as
numpy's reduction, NaN propagating alike; only the choice between equal-valued candidates can
differ (a ``-0.0`` against a ``0.0``, two NaNs of different sign): `row_extreme` takes those rows
from numpy's own reduction, so its results are numpy's bit for bit. Sums use ``np.einsum``, which
vectorises across the row (a different summation order from numpy's pairwise sum: results agree to
rounding, ~1e-7 relative to the sum of magnitudes in float32). For very narrow rows (softmax over 10
classes) even the broadcasts ``x - max`` and ``e / sum`` run one tiny loop per row: `columns_ok`
says when a whole softmax is cheaper on the transpose (`to_columns` / `from_columns`).
"""
from __future__ import annotations

import numpy as np

# Which route beats numpy's own reduction (A/B on a 2-core EPYC, numpy 2.4; µs for reduce / transpose /
# fold-then-transpose): float32 [64, 32] 4.1 / 2.6 / 3.2, [256, 32] 13.7 / 4.4 / 5.4, [2048, 32]
# 108 / 34 / 30, [128, 64] 8.0 / 4.9 / 6.2, [256, 64] 15.4 / 11.9 / 9.1, [256, 128] 18.1 / 28.3 / 14.2,
# [256, 100] 12.7 / 10.9 / 14.7; float64 [256, 64] 14.7 / 15.8 / 11.8, [512, 128] 33.8 / 71.3 / 39.1;
# 32 rows of 32 or more: reduce. [2048, 10]: 82 µs reduce, 7.7 transpose.
_MIN_ROWS = 32
_TRANSPOSE_WIDTH = 24             # transpose rows up to this wide,
_TRANSPOSE_BYTES = 3 << 14        # or wider ones in arrays of at most this many bytes
_TRANSPOSE_MIN_ROWS = 128         # with this many rows;
_FOLD_ROW_BYTES = 512             # else fold rows of at most this many bytes down to _TRANSPOSE_WIDTH
_FOLD_MIN_ROWS = 256              # (halvings only: odd widths on the way cost more than they save)
_HALVES_ABOVE = 32
_KINDS = frozenset("biuf")
_SUM_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _halvings(n):
    """How many times the width ``n`` halves (staying even) before it is at most _TRANSPOSE_WIDTH, or
    None when an odd width above that comes first."""
    k = 0
    while n > _TRANSPOSE_WIDTH:
        if n % 2:
            return None
        n //= 2
        k += 1
    return k


def _method(x):
    """The faster route for reducing ``x``'s last axis: `_transposed`, `_fold` or None (numpy's own
    reduction). Needs C order, a numeric non-complex dtype and at least _MIN_ROWS rows of width >= 2."""
    if x.ndim == 0 or not x.flags.c_contiguous or x.dtype.kind not in _KINDS:
        return None
    n = x.shape[-1]
    if n < 2 or x.size < _MIN_ROWS * n:
        return None
    if n <= _TRANSPOSE_WIDTH or (x.nbytes <= _TRANSPOSE_BYTES and x.size >= _TRANSPOSE_MIN_ROWS * n):
        return _transposed
    if (n * x.itemsize <= _FOLD_ROW_BYTES and x.size >= _FOLD_MIN_ROWS * n
            and _halvings(n) is not None):
        return _fold
    return None


def extreme_ok(x):
    """True when a fast route beats numpy's reduction over ``x``'s last axis (see `_method`)."""
    return _method(x) is not None


def _transposed(ufunc, x):
    """``ufunc`` reduced over the last axis of a C-contiguous ``x``: the transpose's first axis."""
    n = x.shape[-1]
    return ufunc.reduce(np.ascontiguousarray(x.reshape(-1, n).T), axis=0)


def _fold(ufunc, x):
    """``ufunc`` (np.maximum or np.minimum) over the last axis of a C-contiguous ``x`` whose width
    halves down to at most _TRANSPOSE_WIDTH (`_halvings`): halves, then pairs, then `_transposed`."""
    n = x.shape[-1]
    rows = x.size // n
    g = x.reshape(rows, n)
    while n > _TRANSPOSE_WIDTH:
        h = n // 2
        if n <= _HALVES_ABOVE:
            # adjacent pairs of the flattened rows: one 1-D call over the whole array
            flat = g.reshape(-1)
            g = ufunc(flat[0::2], flat[1::2]).reshape(rows, h)
        else:
            g = ufunc(g[:, :h], g[:, h:])
        n = h
    return _transposed(ufunc, g)


def row_extreme(ufunc, x, keepdims):
    """``ufunc.reduce(x, axis=-1, keepdims=keepdims)`` for np.maximum / np.minimum, bit for bit, on
    an ``x`` that `extreme_ok` accepted."""
    out = _method(x)(ufunc, x)
    if x.dtype.kind == "f":
        # rows whose winner may have equal-valued rivals of another bit pattern (+-0, NaNs) take
        # numpy's own pick; two cheap whole-result checks (a NaN anywhere makes the minimum NaN)
        # usually find none
        lo = np.minimum.reduce(out)
        if lo != lo or np.count_nonzero(out) != out.size:
            redo = out == 0
            redo |= out != out
            g = x.reshape(-1, x.shape[-1])
            out[redo] = ufunc.reduce(g[redo], axis=1)
    return out.reshape(x.shape[:-1] + (1,) if keepdims else x.shape[:-1])


def row_max_shift(x):
    """The per-row maximum of ``x``'s last axis with keepdims, as softmax's shift: equal in value to
    ``np.maximum.reduce`` (the sign of a zero maximum may differ, which ``x - max`` cannot show)."""
    method = _method(x)
    if method is not None:
        return method(np.maximum, x).reshape(x.shape[:-1] + (1,))
    return np.maximum.reduce(x, axis=-1, keepdims=True)


def columns_ok(x):
    """True when a whole softmax-like pass over ``x``'s last axis (subtract, exp, sum, divide) is faster
    on the [classes, rows] transpose: float32/float64 rows of 2-10 entries (2-24 in arrays of at most
    4096 elements), at least _MIN_ROWS of them. Narrow rows make every broadcast over them one tiny
    inner loop per row; transposed, each step is a contiguous vectorised pass (A/B, float32 softmax:
    [64, 10] 0.83x, [4096, 10] 0.67x, [2048, 2] 0.55x, [128, 24] 0.84x; [1024, 16] 1.03x,
    [1024, 32] 1.34x)."""
    n = x.shape[-1] if x.ndim else 0
    return (2 <= n <= 24 and x.dtype in _SUM_DTYPES and x.size >= _MIN_ROWS * n
            and (n <= 10 or x.size <= 4096))


def to_columns(x):
    """The [classes, rows] C-contiguous transpose of ``x``'s last axis (see `columns_ok`)."""
    n = x.shape[-1]
    return np.ascontiguousarray((x if x.ndim == 2 else x.reshape(-1, n)).T)


def from_columns(t, shape):
    """Inverse of `to_columns`: a C-contiguous array of ``shape``."""
    return np.ascontiguousarray(t.T).reshape(shape)


# einsum's own Python-level cost (~1 µs) is more than it saves below a few thousand elements
SUM_MIN_SIZE = 4096
# einsum accumulates a row sequentially (a few SIMD accumulators), numpy's add.reduce pairwise: on
# float32 rows of 1e5 / 1e6 uniform values einsum's relative error is 6e-7 / 6e-6 against pairwise's
# 4e-8 / 5e-9; at 2048 entries 2.6e-7 against 1.4e-7 (both a few float32 ulps). Longer rows keep
# numpy's sum
SUM_MAX_WIDTH = 2048


def sum_ok(x):
    """True when `row_sum` pays and is as accurate as numpy's: float32/float64, a last axis of 1 to
    SUM_MAX_WIDTH entries, a few thousand elements in all."""
    return (x.size >= SUM_MIN_SIZE and x.ndim > 0 and x.dtype in _SUM_DTYPES
            and 0 < x.shape[-1] <= SUM_MAX_WIDTH)


def row_sum(x, keepdims=True):
    """Sum over the last axis (einsum's vectorised loop; float32/float64 as `sum_ok` checks)."""
    s = np.einsum("...i->...", x)
    return s[..., None] if keepdims else s
