"""viterbi_decode: the highest-scoring tag path of a linear-chain CRF, per sequence of a batch.

Input [batch, seq_len, num_tags] emission scores, Transition [num_tags, num_tags] (``[i, j]`` scores
tag i followed by tag j), Length [batch] int64. With ``include_bos_eos_tag`` the last row of
Transition scores the start (start -> j) and its second-to-last row the stop (j -> stop), as
Paddle's kernel splits them off.
Outputs: Scores [batch] (Input's dtype) and Path [batch, max(Length)] int64, zero past each length.
No gradient (as in Paddle).
"""
from __future__ import annotations

import numpy as np

from .registry import Meta, register


def _same(a, b):
    """Two dims agree, -1 (unknown until the program runs) agreeing with anything."""
    return a < 0 or b < 0 or a == b


def _check(in_shape, tr_shape, len_shape, len_dtype=None):
    if len(in_shape) != 3:
        raise ValueError(f"viterbi_decode: Input must be 3-D [batch, seq_len, num_tags], got {list(in_shape)}")
    n = in_shape[2]
    if len(tr_shape) != 2 or not (_same(tr_shape[0], n) and _same(tr_shape[1], n)
                                  and _same(tr_shape[0], tr_shape[1])):
        raise ValueError(f"viterbi_decode: Transition must have shape [{n}, {n}] (num_tags of Input), "
                         f"got {list(tr_shape)}")
    if len(len_shape) != 1 or not _same(len_shape[0], in_shape[0]):
        raise ValueError(f"viterbi_decode: Length must have shape [{in_shape[0]}] (the batch size of Input), "
                         f"got {list(len_shape)}")
    if len_dtype is not None and np.dtype(len_dtype) != np.int64:
        raise TypeError(f"viterbi_decode: Length must be int64, got {np.dtype(len_dtype)}")


def _viterbi_decode(potentials, transition, length, include_bos_eos_tag=True):
    _check(potentials.shape, transition.shape, length.shape, length.dtype)
    B, T, n = potentials.shape
    lengths = length.astype(np.int64)
    if lengths.size and (lengths.min() < 0 or lengths.max() > T):
        raise ValueError(f"viterbi_decode: Length values must lie in [0, {T}] (seq_len of Input), got "
                         f"{lengths.tolist()}")
    max_len = int(lengths.max()) if lengths.size else 0
    scores = np.zeros(B, dtype=potentials.dtype)
    path = np.zeros((B, max_len), dtype=np.int64)
    start = transition[n - 1] if include_bos_eos_tag else None
    stop = transition[n - 2] if include_bos_eos_tag else None
    for b in range(B):
        L = int(lengths[b])
        if L == 0:
            continue
        alpha = potentials[b, 0].copy()
        if include_bos_eos_tag:
            alpha = alpha + start
        history = []
        for t in range(1, L):
            cand = alpha[:, None] + transition       # [from, to]
            best = np.argmax(cand, axis=0)
            history.append(best)
            alpha = cand[best, np.arange(n)] + potentials[b, t]
        if include_bos_eos_tag:
            alpha = alpha + stop
        last = int(np.argmax(alpha))
        scores[b] = alpha[last]
        path[b, L - 1] = last
        for t in range(L - 2, -1, -1):
            last = int(history[t][last])
            path[b, t] = last
    return scores, path


def _meta(potentials, transition, length, **_):
    _check(potentials.shape, transition.shape, length.shape, length.dtype)
    batch = potentials.shape[0] if potentials.shape[0] >= 0 else length.shape[0]   # either may be -1
    return Meta((batch,), potentials.dtype), Meta((batch, -1), np.dtype(np.int64))


register("viterbi_decode", ["Input", "Transition", "Length"], ["Scores", "Path"],
         {"include_bos_eos_tag": ("BOOLEAN", True)}, kernel=_viterbi_decode, infer_meta=_meta,
         differentiable=())
