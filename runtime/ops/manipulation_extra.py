"""Manipulation ops with a Paddle op type of their own: as_strided, multiplex, shard_index, reduce_as,
crop_tensor, fill_any, fill_diagonal, fill_diagonal_tensor, and the random fills exponential, poisson,
standard_gamma and binomial (slots and attributes as Paddle's op protos declare them)."""
from __future__ import annotations

import numpy as np

from ..random import generator
from .meta import normalize_axis
from .registry import Meta, register, grad_op


def _same(x, *_, **__):
    return Meta(tuple(x.shape), x.dtype)


# -- as_strided ----------------------------------------------------------------------------------

def _strided_index(size, dims, stride, offset):
    """Flat positions of ``as_strided(dims, stride, offset)`` in a contiguous buffer of ``size``."""
    dims, stride = [int(d) for d in dims], [int(s) for s in stride]
    if len(dims) != len(stride):
        raise ValueError(f"as_strided: shape {dims} and stride {stride} must have the same length")
    if any(d < 0 for d in dims) or any(s < 0 for s in stride) or int(offset) < 0:
        raise ValueError(f"as_strided: shape, stride and offset must be non-negative, got shape {dims}, "
                         f"stride {stride}, offset {offset}")
    idx = np.full(dims, int(offset), dtype=np.int64)
    for axis, (d, s) in enumerate(zip(dims, stride)):
        idx += (np.arange(d, dtype=np.int64) * s).reshape((d,) + (1,) * (len(dims) - axis - 1))
    if idx.size and idx.max() >= size:
        raise ValueError(f"as_strided: shape {dims}, stride {stride} and offset {offset} reach element "
                         f"{int(idx.max())}, past the end of the input's {size} elements")
    return idx


def _elements(x, offset):
    """Paddle's as_strided offset counts bytes: the element it starts at."""
    offset = int(offset)
    if offset % x.itemsize:
        raise ValueError(f"as_strided: offset is in bytes and must be a multiple of the element size "
                         f"({x.itemsize} for {x.dtype}), got {offset}")
    return offset // x.itemsize


def _as_strided(x, dims=(), stride=(), offset=0, **_):
    return x.reshape(-1)[_strided_index(x.size, dims, stride, _elements(x, offset))]


def _as_strided_grad(x, dout, dims=(), stride=(), offset=0, **_):
    g = np.zeros(x.size, dout.dtype)
    np.add.at(g, _strided_index(x.size, dims, stride, _elements(x, offset)), dout)
    return g.reshape(x.shape)


register("as_strided", ["input"], ["out"], {"dims": ("LONGS", []), "stride": ("LONGS", []), "offset": ("LONG", 0)},
         kernel=_as_strided, infer_meta=lambda x, dims=(), **_: Meta(tuple(int(d) for d in dims), x.dtype))
grad_op("as_strided", ["input", "out@GRAD"], ["input@GRAD"], _as_strided_grad)


# -- multiplex -----------------------------------------------------------------------------------

def _mux_ids(xs, ids):
    if not xs:
        raise ValueError("multiplex: inputs must hold at least one tensor")
    if ids.dtype.kind not in "iu":
        raise TypeError(f"multiplex: index must be int32 or int64, got {ids.dtype}")
    rows = xs[0].shape[0] if xs[0].ndim else 0
    if ids.shape not in ((rows, 1), (rows,)):
        raise ValueError(f"multiplex: index must have shape [{rows}, 1] (one row per input row), "
                         f"got {list(ids.shape)}")
    flat = ids.reshape(-1).astype(np.int64)
    if flat.size and (flat.min() < 0 or flat.max() >= len(xs)):
        raise IndexError(f"multiplex: index values must be in [0, {len(xs)}), got {flat.tolist()}")
    return flat


def _multiplex(xs, ids, **_):
    for x in xs[1:]:
        if x.shape != xs[0].shape:
            raise ValueError(f"multiplex: all inputs must have one shape, got {[list(a.shape) for a in xs]}")
    flat = _mux_ids(xs, ids)
    stacked = np.stack(xs)
    return stacked[flat, np.arange(flat.size)]


def _multiplex_grad_kernel(xs, ids, dout, **_):
    # one zero-filled gradient per input: the rows it supplied get dout
    flat = _mux_ids(xs, ids)
    grads = []
    for k in range(len(xs)):
        g = np.zeros_like(dout)
        rows = flat == k
        g[rows] = dout[rows]
        grads.append(g)
    return grads


def _multiplex_grad_rule(ctx, dout):
    from ..dispatch import run_op   # late import: dispatch imports the registry
    return [list(run_op("multiplex_grad", ctx.inputs[0], ctx.inputs[1], dout)), None]


register("multiplex", ["X[]", "Ids"], ["Out"], {}, kernel=_multiplex, differentiable=("X",),
         grad=_multiplex_grad_rule, infer_meta=lambda xs, ids, **_: Meta(tuple(xs[0].shape), xs[0].dtype))
register("multiplex_grad", ["X[]", "Ids", "Out@GRAD"], ["X@GRAD[]"], {}, kernel=_multiplex_grad_kernel,
         infer_meta=lambda xs, ids, dout, **_: [Meta(tuple(x.shape), dout.dtype) for x in xs])


# -- shard_index ---------------------------------------------------------------------------------

def _shard_index(x, index_num=0, nshards=0, shard_id=0, ignore_value=-1, **_):
    if x.dtype.kind not in "iu":
        raise TypeError(f"shard_index: input must be int32 or int64, got {x.dtype}")
    index_num, nshards, shard_id = int(index_num), int(nshards), int(shard_id)
    if nshards <= 0 or index_num <= 0:
        raise ValueError(f"shard_index: index_num and nshards must be positive, got {index_num} and {nshards}")
    if not 0 <= shard_id < nshards:
        raise ValueError(f"shard_index: shard_id must be in [0, {nshards}), got {shard_id}")
    if x.size and (x.min() < 0 or x.max() >= index_num):
        raise ValueError(f"shard_index: every input value must be in [0, {index_num}), got values in "
                         f"[{int(x.min())}, {int(x.max())}]")
    size = (index_num + nshards - 1) // nshards
    return np.where(x // size == shard_id, x % size, ignore_value).astype(x.dtype)


register("shard_index", ["X"], ["Out"], {"index_num": ("INT", 0), "nshards": ("INT", 0), "shard_id": ("INT", 0),
                                         "ignore_value": ("INT", -1)},
         kernel=_shard_index, infer_meta=_same, differentiable=())


# -- reduce_as -----------------------------------------------------------------------------------

def _reduce_axes(xshape, tshape):
    lead = len(xshape) - len(tshape)
    if lead < 0:
        raise ValueError(f"reduce_as: target shape {list(tshape)} has more dims than x's {list(xshape)}")
    axes = list(range(lead))
    for i, t in enumerate(tshape):
        d = xshape[lead + i]
        if t == d:
            continue
        if t != 1:
            raise ValueError(f"reduce_as: x of shape {list(xshape)} cannot be summed to target shape "
                             f"{list(tshape)} (dim {lead + i}: {d} vs {t}; each target dim must equal x's or be 1)")
        axes.append(lead + i)
    return lead, tuple(axes)


def _reduce_as(x, target, **_):
    lead, axes = _reduce_axes(x.shape, target.shape)
    out = x.sum(axis=axes, keepdims=True) if axes else x.copy()
    return out.reshape(target.shape).astype(x.dtype, copy=False)


def _reduce_as_grad(x, target, dout, **_):
    lead = x.ndim - target.ndim
    return np.ascontiguousarray(np.broadcast_to(dout.reshape((1,) * lead + dout.shape), x.shape))


register("reduce_as", ["x", "target"], ["out"], {}, kernel=_reduce_as, differentiable=("x",),
         infer_meta=lambda x, t, **_: Meta(tuple(t.shape), x.dtype))
grad_op("reduce_as", ["x", "target", "out@GRAD"], ["x@GRAD"], _reduce_as_grad,
        infer_meta=lambda x, t, d, **_: Meta(tuple(x.shape), x.dtype))


# -- crop_tensor ---------------------------------------------------------------------------------

def _crop_box(xshape, shape, offsets):
    nd = len(xshape)
    shape = [int(s) for s in shape]
    offsets = [int(o) for o in offsets] if len(offsets) else [0] * nd
    if len(shape) != nd or len(offsets) != nd:
        raise ValueError(f"crop: shape {shape} and offsets {offsets} need one entry per dim of x "
                         f"(shape {list(xshape)})")
    out = []
    for i, (d, s, o) in enumerate(zip(xshape, shape, offsets)):
        s = d - o if s == -1 else s
        if o < 0 or s <= 0 or o + s > d:
            raise ValueError(f"crop: dim {i} of x has size {d}; offset {o} with size {shape[i]} does not fit "
                             "(offsets must be >= 0, sizes > 0 or -1, offset + size <= size of x)")
        out.append(s)
    return out, offsets


def _crop_args(shape_t, shape_list, off_t, off_list, shape, offsets):
    if shape_t is not None:
        shape = shape_t.reshape(-1).tolist()
    elif shape_list:
        shape = [int(np.asarray(s).reshape(-1)[0]) for s in shape_list]
    if off_t is not None:
        offsets = off_t.reshape(-1).tolist()
    elif off_list:
        offsets = [int(np.asarray(o).reshape(-1)[0]) for o in off_list]
    return shape, offsets


def _crop_tensor(x, shape_t=None, shape_list=None, off_t=None, off_list=None, shape=(), offsets=(), **_):
    shape, offsets = _crop_args(shape_t, shape_list, off_t, off_list, shape, offsets)
    sizes, offs = _crop_box(x.shape, shape, offsets)
    return x[tuple(slice(o, o + s) for o, s in zip(offs, sizes))].copy()


def _crop_tensor_meta(x, shape_t=None, shape_list=None, off_t=None, off_list=None, shape=(), offsets=(), **_):
    if shape_t is not None:
        return Meta((-1,) * len(x.shape), x.dtype)
    if shape_list:
        return Meta((-1,) * len(shape_list), x.dtype)
    out = []
    for i, s in enumerate(shape):
        s = int(s)
        if s == -1:
            o = None if off_t is not None or off_list else (int(offsets[i]) if len(offsets) else 0)
            s = -1 if o is None or x.shape[i] < 0 else x.shape[i] - o
        out.append(s)
    return Meta(tuple(out), x.dtype)


def _crop_tensor_grad(x, shape_t, shape_list, off_t, off_list, dout, shape=(), offsets=(), **_):
    shape, offsets = _crop_args(shape_t, shape_list, off_t, off_list, shape, offsets)
    sizes, offs = _crop_box(x.shape, shape, offsets)
    g = np.zeros(x.shape, dout.dtype)
    g[tuple(slice(o, o + s) for o, s in zip(offs, sizes))] = dout
    return g


register("crop_tensor", ["X", "Shape?", "ShapeTensor[]?", "Offsets?", "OffsetsTensor[]?"], ["Out"],
         {"shape": ("INTS", []), "offsets": ("INTS", [])}, kernel=_crop_tensor, infer_meta=_crop_tensor_meta,
         differentiable=("X",))
grad_op("crop_tensor", ["X", "Shape?", "ShapeTensor[]?", "Offsets?", "OffsetsTensor[]?", "Out@GRAD"], ["X@GRAD"],
        _crop_tensor_grad)


# -- fill_any / fill_diagonal / fill_diagonal_tensor ------------------------------------------------

def _fill_any(x, value=0.0, **_):
    return np.full(x.shape, value, dtype=x.dtype)


register("fill_any", ["X"], ["Out"], {"value": ("FLOAT", 0.0)}, kernel=_fill_any, infer_meta=_same)
# Paddle's fill_grad: the filled tensor's old values no longer matter
grad_op("fill_any", ["Out@GRAD"], ["X@GRAD"], lambda dout, **_: np.zeros_like(dout),
        infer_meta=lambda d, **_: Meta(tuple(d.shape), d.dtype))


def _diag_positions(shape, offset, wrap):
    """Flat positions Paddle's fill_diagonal kernel writes (its stride walk, offsets kept in their row)."""
    if len(shape) < 2:
        raise ValueError(f"fill_diagonal_: x must have at least 2 dims, got shape {list(shape)}")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise ValueError(f"fill_diagonal_: a tensor of more than 2 dims must have equal dims, got {list(shape)}")
    step, prod = 0, 1
    for d in reversed(shape):
        step += prod
        prod *= d
    size = prod if wrap else min(prod, shape[1] * shape[1])
    cols = shape[1]
    pos = [i + offset for i in range(0, size, step) if 0 <= i % cols + offset < cols]
    return np.array(pos, dtype=np.int64)


def _fill_diagonal(x, value=0.0, offset=0, wrap=False, **_):
    out = x.copy()
    wrap = bool(wrap) or x.ndim > 2   # Paddle always wraps beyond 2-D
    out.reshape(-1)[_diag_positions(x.shape, int(offset), wrap)] = value
    return out


def _fill_diagonal_grad(dout, value=0.0, offset=0, wrap=False, **_):
    g = dout.copy()
    g.reshape(-1)[_diag_positions(dout.shape, int(offset), bool(wrap) or dout.ndim > 2)] = 0
    return g


register("fill_diagonal", ["X"], ["Out"], {"value": ("FLOAT", 0.0), "offset": ("INT", 0), "wrap": ("BOOLEAN", False)},
         kernel=_fill_diagonal, infer_meta=_same)
grad_op("fill_diagonal", ["Out@GRAD"], ["X@GRAD"], _fill_diagonal_grad,
        infer_meta=lambda d, **_: Meta(tuple(d.shape), d.dtype))


def _diag_view(a, offset, dim1, dim2):
    """(moved array, row idx, col idx) addressing the diagonal of dims dim1/dim2 with ``offset``."""
    d1, d2 = normalize_axis(int(dim1), a.ndim, "dim1"), normalize_axis(int(dim2), a.ndim, "dim2")
    if d1 == d2:
        raise ValueError(f"fill_diagonal_tensor: dim1 and dim2 must differ, got {dim1} and {dim2}")
    moved = np.moveaxis(a, (d1, d2), (-2, -1))
    n1, n2 = moved.shape[-2:]
    offset = int(offset)
    length = max(min(n1, n1 + offset, n2, n2 - offset), 0)
    k = np.arange(length)
    rows, cols = (k, k + offset) if offset >= 0 else (k - offset, k)
    return moved, rows, cols


def _fill_diagonal_tensor(x, y, offset=0, dim1=0, dim2=1, **_):
    out = x.copy()
    moved, r, c = _diag_view(out, offset, dim1, dim2)   # a view into out
    want = moved.shape[:-2] + (r.size,)
    if int(np.prod(y.shape)) != int(np.prod(want)):
        raise ValueError(f"fill_diagonal_tensor: y must have shape {list(want)}, got {list(y.shape)}")
    moved[..., r, c] = y.reshape(want)
    return out


def _fill_diagonal_tensor_grad(dout, offset=0, dim1=0, dim2=1, **_):
    g = dout.copy()
    moved, r, c = _diag_view(g, offset, dim1, dim2)
    moved[..., r, c] = 0
    return g


# as in Paddle, only X gets a gradient (Y's stays None)
register("fill_diagonal_tensor", ["X", "Y"], ["Out"], {"offset": ("LONG", 0), "dim1": ("INT", 0), "dim2": ("INT", 1)},
         kernel=_fill_diagonal_tensor, infer_meta=_same, differentiable=("X",))
grad_op("fill_diagonal_tensor", ["Out@GRAD"], ["X@GRAD"], _fill_diagonal_tensor_grad,
        infer_meta=lambda d, **_: Meta(tuple(d.shape), d.dtype))


# -- random fills --------------------------------------------------------------------------------

def _float_input(x, op):
    if x.dtype.kind != "f":
        raise TypeError(f"{op}: x must be a floating-point tensor (float16/32/64), got {x.dtype}")


def _exponential(x, **attrs):
    _float_input(x, "exponential_")
    lam = float(attrs.get("lambda", 1.0))
    if lam <= 0:
        raise ValueError(f"exponential_: lam must be positive, got {lam}")
    return generator(0).exponential(1.0 / lam, x.shape).astype(x.dtype)


register("exponential", ["X"], ["Out"], {"lambda": ("FLOAT", 1.0)}, kernel=_exponential, infer_meta=_same,
         random=True, differentiable=())


def _poisson(x, **_):
    _float_input(x, "poisson")
    if x.size and (np.nanmin(x) < 0 or not np.all(np.isfinite(x))):
        raise ValueError("poisson: every rate must be finite and non-negative")
    return generator(0).poisson(x.astype(np.float64)).astype(x.dtype)


register("poisson", ["X"], ["Out"], {}, kernel=_poisson, infer_meta=_same, random=True)
# Paddle's poisson_grad: zeros (the samples do not depend differentiably on the rates)
grad_op("poisson", ["Out@GRAD"], ["X@GRAD"], lambda dout, **_: np.zeros_like(dout),
        infer_meta=lambda d, **_: Meta(tuple(d.shape), d.dtype))


def _standard_gamma(x, **_):
    _float_input(x, "standard_gamma")
    if x.size and (np.nanmin(x) <= 0 or not np.all(np.isfinite(x))):
        raise ValueError("standard_gamma: every concentration must be finite and positive")
    return generator(0).standard_gamma(x.astype(np.float64)).astype(x.dtype)


register("standard_gamma", ["x"], ["out"], {}, kernel=_standard_gamma, infer_meta=_same, random=True,
         differentiable=())


def _binomial(count, prob, **_):
    if count.dtype.kind not in "iu" and count.dtype.kind != "f":
        raise TypeError(f"binomial: count must be a numeric tensor, got {count.dtype}")
    if prob.dtype.kind != "f":
        raise TypeError(f"binomial: prob must be a floating-point tensor, got {prob.dtype}")
    if prob.size and (np.nanmin(prob) < 0 or np.nanmax(prob) > 1):
        raise ValueError("binomial: every probability must be in [0, 1]")
    if count.size and count.min() < 0:
        raise ValueError("binomial: every count must be non-negative")
    n, p = np.broadcast_arrays(count.astype(np.int64), prob.astype(np.float64))
    return generator(0).binomial(n, p).astype(np.int64)


register("binomial", ["count", "prob"], ["out"], {}, kernel=_binomial, random=True, differentiable=(),
         infer_meta=lambda c, p, **_: Meta(tuple(c.shape), np.dtype(np.int64)))
