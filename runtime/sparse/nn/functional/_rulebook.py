"""The rulebook of sparse convolution and pooling: which active input site feeds which output site
through which kernel offset, computed in numpy from the COO indices ([1 + dims, nnz]: batch, then
the spatial coordinates)."""
from __future__ import annotations

import itertools

import numpy as np

from ... import _prims as P


def as_list(v, n, what):
    if isinstance(v, (int, np.integer)):
        return [int(v)] * n
    v = [int(a) for a in v]
    if len(v) != n:
        raise ValueError(f"The {what}'s length must be {n}, got {v}")
    return v


def conv_padding(padding, dims):
    """Paddle's padding forms for sparse conv/pool: int, [p] * dims, symmetric [before, after] * dims,
    or 'SAME'/'VALID' (Paddle's sparse kernels pad neither: both mean zero padding)."""
    if isinstance(padding, str):
        if padding.upper() not in ("SAME", "VALID"):
            raise ValueError(f"Unknown padding: '{padding}'. It can only be 'SAME' or 'VALID'.")
        return [0] * dims
    if isinstance(padding, (list, tuple)):
        if len(padding) == dims + 2 and isinstance(padding[0], (list, tuple)):
            if any(int(a) or int(b) for a, b in (padding[0], padding[-1])):
                raise ValueError(f"Non-zero padding({padding}) in the batch or channel dimensions is not supported.")
            padding = [int(a) for pair in padding[1:-1] for a in pair]
        if len(padding) == 2 * dims:
            pairs = [(int(padding[2 * i]), int(padding[2 * i + 1])) for i in range(dims)]
            if any(a != b for a, b in pairs):
                raise NotImplementedError(f"asymmetric padding {list(padding)} is not supported by sparse conv/pool "
                                          "(Paddle's kernel takes one padding per dimension)")
            padding = [a for a, _ in pairs]
        elif len(padding) != dims:
            raise ValueError(f"In valid padding: {padding}")
        padding = [int(p) for p in padding]
    else:
        padding = [int(padding)] * dims
    if any(p < 0 for p in padding):
        raise ValueError(f"Invalid padding, all value should be larger than or equal to 0, but received: {padding}")
    return padding


def out_dims(in_dims, kernel, stride, padding, dilation, ceil_mode=False):
    out = []
    for i, k, s, p, d in zip(in_dims, kernel, stride, padding, dilation):
        span = i + 2 * p - d * (k - 1) - 1
        o = (-(-span // s) if ceil_mode else span // s) + 1
        if o <= 0:
            raise ValueError(f"the output size of sparse conv/pool is not positive: input {list(in_dims)}, kernel "
                             f"{list(kernel)}, stride {list(stride)}, padding {list(padding)}")
        out.append(o)
    return out


def regular(indices, in_dims, kernel, stride, padding, dilation, batch, ceil_mode=False):
    """Pairs for a regular sparse conv: (in_rows, kernel_ids, out_rows, out_indices, out_dims).
    Output sites are every position some active input reaches, sorted row-major (Paddle's order)."""
    odims = out_dims(in_dims, kernel, stride, padding, dilation, ceil_mode)
    pos = indices[1:].astype(np.int64)
    in_rows, kids, keys = [], [], []
    for kid, off in enumerate(itertools.product(*[range(k) for k in kernel])):
        num = pos + (np.array(padding) - np.array(off) * np.array(dilation))[:, None]
        st = np.array(stride)[:, None]
        o = num // st
        ok = np.all((num % st == 0) & (o >= 0) & (o < np.array(odims)[:, None]), axis=0)
        rows = np.nonzero(ok)[0]
        if rows.size:
            in_rows.append(rows)
            kids.append(np.full(rows.size, kid, np.int64))
            keys.append(P.linear_keys(np.concatenate([indices[:1, rows].astype(np.int64), o[:, rows]]),
                                      [batch] + odims))
    if not in_rows:
        empty = np.zeros((0,), np.int64)
        return empty, empty, empty, np.zeros((1 + len(kernel), 0), np.int64), odims
    in_rows, kids, keys = np.concatenate(in_rows), np.concatenate(kids), np.concatenate(keys)
    uniq, out_rows = np.unique(keys, return_inverse=True)
    return in_rows, kids, out_rows.reshape(-1), P.unravel(uniq, [batch] + odims), odims


def submanifold(indices, in_dims, kernel, dilation, batch):
    """Pairs for a submanifold conv: the output sites are the input sites (same order), and the
    kernel is centred on each of them."""
    keys = P.linear_keys(indices.astype(np.int64), [batch] + list(in_dims))
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    pos = indices[1:].astype(np.int64)
    in_rows, kids, out_rows = [], [], []
    for kid, off in enumerate(itertools.product(*[range(k) for k in kernel])):
        shift = (np.array(off) - np.array(kernel) // 2) * np.array(dilation)
        nb = pos + shift[:, None]
        ok = np.all((nb >= 0) & (nb < np.array(in_dims)[:, None]), axis=0)
        outs = np.nonzero(ok)[0]
        if not outs.size:
            continue
        nkeys = P.linear_keys(np.concatenate([indices[:1, outs].astype(np.int64), nb[:, outs]]),
                              [batch] + list(in_dims))
        at = np.searchsorted(sorted_keys, nkeys)
        at = np.minimum(at, sorted_keys.size - 1)
        hit = sorted_keys[at] == nkeys
        in_rows.append(order[at[hit]])
        out_rows.append(outs[hit])
        kids.append(np.full(int(hit.sum()), kid, np.int64))
    if not in_rows:
        empty = np.zeros((0,), np.int64)
        return empty, empty, empty
    return np.concatenate(in_rows), np.concatenate(kids), np.concatenate(out_rows)
