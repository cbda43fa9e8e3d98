"""Shape and layout ops: cast, reshape2, transpose2, flatten, (un)squeeze2, concat/split, stack/unstack,
slice/strided_slice, tile, expand_v2/expand_as_v2, flip, roll, shape, size — with their gradients.

Kernels return numpy views where numpy gives them (reshape, transpose, slicing), like Paddle's
stride kernels; expand materialises its result so tensors never hold read-only broadcast views.
"""
from __future__ import annotations

import math

import numpy as np

from ..dtype import from_proto
from .elementwise import unbroadcast
from .meta import normalize_axis
from .registry import Meta, grad_op, register


def list_out(arrays):
    """What a kernel returns for an op whose only visible output is a duplicable slot (split, unstack)."""
    return list(arrays)


def as_list(result):
    """The Tensors `run_op` gives for a list-output op, as a list."""
    return list(result)


def _prod(dims):
    return math.prod(int(d) for d in dims)


def _ints(tensor, tensor_list, attr):
    """An int list from a 1-D tensor input, a list of 1-element tensors, or the attribute."""
    if tensor is not None:
        return [int(v) for v in np.asarray(tensor).reshape(-1)]
    if tensor_list:
        return [int(np.asarray(t).reshape(-1)[0]) for t in tensor_list]
    return [int(v) for v in attr]


def _meta_ints(tensor, tensor_list, attr):
    """`_ints` at build time: values held in tensors are unknown (None)."""
    if tensor is not None:
        n = tensor.shape[0] if len(tensor.shape) == 1 else 1
        if n == -1:
            return None
        return [None] * n
    if tensor_list:
        attr = list(attr)
        # Paddle keeps the known entries in the attribute alongside the tensor list
        if len(attr) == len(tensor_list):
            return [a if a is not None and a > 0 else None for a in attr]
        return [None] * len(tensor_list)
    return list(attr)


# -- cast -------------------------------------------------------------------------------------------

def _cast(x, out_dtype=None, in_dtype=None, **_):
    d = from_proto(out_dtype).np
    if x.dtype.kind == "c" and d.kind != "c":
        x = x.real   # Paddle keeps the real part (numpy does too, with a ComplexWarning)
    return x.astype(d, copy=False)


def _cast_meta(x, out_dtype=None, **_):
    return Meta(tuple(x.shape), from_proto(out_dtype).np)


def _cast_grad(ctx, dout):
    from ..dispatch import run_op
    # the input's own dtype, not the in_dtype attr, which callers of run_op may leave out
    return [run_op("cast", dout, in_dtype=dout.dtype.proto, out_dtype=ctx.inputs[0].dtype.proto)]


register("cast", ["X"], ["Out"], {"out_dtype": ("INT", None), "in_dtype": ("INT", None)},
         kernel=_cast, infer_meta=_cast_meta, grad=_cast_grad)


# -- reshape2 ---------------------------------------------------------------------------------------

def resolve_shape(shape, in_shape, op="reshape"):
    """Paddle's target shape: 0 copies the input dim at that position, one -1 is inferred.

    ``in_shape`` may hold -1 (unknown) at build time; the result then holds -1 where it cannot
    be known.
    """
    out = []
    unknown = -1
    for i, d in enumerate(shape):
        d = int(d) if d is not None else None
        if d is None:
            out.append(-1)
            continue
        if d == 0:
            if i >= len(in_shape):
                raise ValueError(f"{op}: shape {list(shape)} has 0 at position {i}, which copies a dimension "
                                 f"of x, but x has only {len(in_shape)} dimensions (shape {list(in_shape)})")
            out.append(int(in_shape[i]))
        elif d == -1:
            if unknown >= 0:
                raise ValueError(f"{op}: shape {list(shape)} may hold only one -1 (dimensions {unknown} and {i} "
                                 "are both -1)")
            unknown = i
            out.append(-1)
        elif d < -1:
            raise ValueError(f"{op}: shape {list(shape)} holds {d} at position {i}; dimensions must be "
                             "positive, 0 (copy) or -1 (infer)")
        else:
            out.append(d)
    if any(d is None for d in shape) or any(d < 0 for d in in_shape):
        return tuple(out)   # unknown sizes: nothing to infer or check
    total = _prod(in_shape)
    if unknown >= 0:
        known = _prod(d for j, d in enumerate(out) if j != unknown)
        if known == 0 or total % known:
            raise ValueError(f"{op}: cannot reshape x of shape {list(in_shape)} ({total} elements) to "
                             f"{list(shape)}: {total} is not a multiple of {known}")
        out[unknown] = total // known
    elif _prod(out) != total:
        raise ValueError(f"{op}: shape {list(shape)} has {_prod(out)} elements but x has {total} "
                         f"(shape {list(in_shape)})")
    return tuple(out)


def _reshape2(x, shape_t=None, shape_list=None, shape=(), **_):
    if shape_t is not None or shape_list:
        shape = _ints(shape_t, shape_list, shape)
    return x.reshape(resolve_shape(shape, x.shape))


def _reshape2_meta(x, shape_t=None, shape_list=None, shape=(), **_):
    target = _meta_ints(shape_t, shape_list, shape)
    if target is None:
        out = (-1,)   # rank unknown: the best a static shape can say
    else:
        out = resolve_shape(target, x.shape)
    return Meta(out, x.dtype), Meta((0,) + tuple(x.shape), x.dtype)


register("reshape2", ["X", "Shape?", "ShapeTensor[]?"], ["Out", "XShape(intermediate)"], {"shape": ("INTS", [])},
         kernel=_reshape2, infer_meta=_reshape2_meta, differentiable=("X",))


def _reshape_back(x, dout, *rest, **_):
    """Grad of every pure re-layout op: the output gradient reshaped to the input's shape."""
    return dout.reshape(x.shape)


grad_op("reshape2", ["X", "Out@GRAD"], ["X@GRAD"], _reshape_back)


# -- transpose2 -------------------------------------------------------------------------------------

def _check_perm(axis, ndim):
    axis = [int(a) for a in axis]
    if len(axis) != ndim:
        raise ValueError(f"transpose: perm {axis} must have one entry per dimension of x (rank {ndim})")
    norm = [a + ndim if a < 0 else a for a in axis]
    if sorted(norm) != list(range(ndim)):
        raise ValueError(f"transpose: perm {axis} must be a permutation of the axes 0..{ndim - 1} "
                         "(each axis exactly once)")
    return norm


def _transpose2(x, axis=(), **_):
    return x.transpose(_check_perm(axis, x.ndim))


def _transpose2_meta(x, axis=(), **_):
    perm = _check_perm(axis, len(x.shape))
    return Meta(tuple(x.shape[a] for a in perm), x.dtype), Meta((0,) + tuple(x.shape), x.dtype)


register("transpose2", ["X"], ["Out", "XShape(extra)(intermediate)"], {"axis": ("INTS", [])},
         kernel=_transpose2, infer_meta=_transpose2_meta)


def _transpose2_grad(dout, axis=(), **_):
    return dout.transpose(np.argsort(_check_perm(axis, dout.ndim)))


def _transpose2_grad_meta(dout, axis=(), **_):
    inv = np.argsort(_check_perm(axis, len(dout.shape)))
    return Meta(tuple(dout.shape[a] for a in inv), dout.dtype)


grad_op("transpose2", ["Out@GRAD"], ["X@GRAD"], _transpose2_grad, infer_meta=_transpose2_grad_meta)


# -- flatten_contiguous_range -----------------------------------------------------------------------

def _flatten_shape(shape, start_axis, stop_axis):
    nd = len(shape)
    if nd == 0:
        return (1,)
    s = normalize_axis(start_axis, nd, "flatten: start_axis")
    e = normalize_axis(stop_axis, nd, "flatten: stop_axis")
    if e < s:
        raise ValueError(f"flatten: stop_axis ({stop_axis}) must not come before start_axis ({start_axis}) "
                         f"for a tensor of rank {nd}")
    mid = shape[s:e + 1]
    merged = -1 if any(d < 0 for d in mid) else _prod(mid)
    return tuple(shape[:s]) + (merged,) + tuple(shape[e + 1:])


def _flatten(x, start_axis=0, stop_axis=-1, **_):
    return x.reshape(_flatten_shape(x.shape, start_axis, stop_axis))


def _flatten_meta(x, start_axis=0, stop_axis=-1, **_):
    return (Meta(_flatten_shape(tuple(x.shape), start_axis, stop_axis), x.dtype),
            Meta((0,) + tuple(x.shape), x.dtype))


register("flatten_contiguous_range", ["X"], ["Out", "XShape(extra)"],
         {"start_axis": ("INT", 0), "stop_axis": ("INT", -1)}, kernel=_flatten, infer_meta=_flatten_meta)
grad_op("flatten_contiguous_range", ["X", "Out@GRAD"], ["X@GRAD"], _reshape_back)


# -- squeeze2 / unsqueeze2 --------------------------------------------------------------------------

def _squeeze_shape(shape, axes):
    nd = len(shape)
    if not axes:
        return tuple(d for d in shape if d != 1)
    drop = set()
    for a in axes:
        if not -max(nd, 1) <= a < max(nd, 1):
            raise ValueError(f"squeeze: axis {a} is out of range for a tensor of rank {nd} "
                             f"(expected -{max(nd, 1)} <= axis < {max(nd, 1)})")
        a = a + nd if a < 0 else a
        # Paddle ignores named axes whose size is not 1; an unknown size is taken to be 1
        if nd and shape[a] in (1, -1):
            drop.add(a)
    return tuple(d for i, d in enumerate(shape) if i not in drop)


def _squeeze2(x, axes=(), **_):
    shape = _squeeze_shape(x.shape, axes)
    return x.reshape(shape) if shape != x.shape else x


def _squeeze2_meta(x, axes=(), **_):
    return Meta(_squeeze_shape(tuple(x.shape), axes), x.dtype), Meta((0,) + tuple(x.shape), x.dtype)


register("squeeze2", ["X"], ["Out", "XShape(extra)(intermediate)"], {"axes": ("INTS", [])},
         kernel=_squeeze2, infer_meta=_squeeze2_meta)
grad_op("squeeze2", ["X", "Out@GRAD"], ["X@GRAD"], _reshape_back)


def unsqueeze_shape(shape, axes):
    """Insert size-1 dims one axis at a time (Paddle's order: each axis counts the dims inserted before it)."""
    out = list(shape)
    for a in axes:
        a = int(a)
        n = len(out)
        if not -(n + 1) <= a <= n:
            raise ValueError(f"unsqueeze: axis {a} is out of range for a tensor of rank {n} "
                             f"(expected -{n + 1} <= axis <= {n}); input shape {list(shape)}")
        out.insert(a + n + 1 if a < 0 else a, 1)
    return tuple(out)


def _unsqueeze2(x, axes_t=None, axes_list=None, axes=(), **_):
    if axes_t is not None or axes_list:
        axes = _ints(axes_t, axes_list, axes)
    return x.reshape(unsqueeze_shape(x.shape, axes))


def _unsqueeze2_meta(x, axes_t=None, axes_list=None, axes=(), **_):
    xs = Meta((0,) + tuple(x.shape), x.dtype)
    target = _meta_ints(axes_t, axes_list, axes)
    if target is None or None in target:
        n = len(x.shape) + (len(target) if target is not None else 1)
        return Meta((-1,) * n, x.dtype), xs
    return Meta(unsqueeze_shape(tuple(x.shape), target), x.dtype), xs


register("unsqueeze2", ["X", "AxesTensor?", "AxesTensorList[]?"], ["Out", "XShape(extra)(intermediate)"],
         {"axes": ("INTS", [])}, kernel=_unsqueeze2, infer_meta=_unsqueeze2_meta, differentiable=("X",))
grad_op("unsqueeze2", ["X", "Out@GRAD"], ["X@GRAD"], _reshape_back)


# -- concat / split ---------------------------------------------------------------------------------

def _check_same_dtype(op, xs):
    d0 = xs[0].dtype
    for i, a in enumerate(xs[1:], 1):
        if a.dtype != d0:
            raise TypeError(f"{op}: every input must have the same dtype; x[0] is {d0} but x[{i}] is {a.dtype}")


def _concat_axis(axis_t, axis, nd):
    if axis_t is not None:
        axis = int(np.asarray(axis_t).reshape(-1)[0])
    if nd == 0:
        raise ValueError("concat: cannot concatenate 0-D tensors; reshape them to 1-D first (or use stack)")
    return normalize_axis(axis, nd, "concat: axis")


def _concat_shape(shapes, axis, what="concat"):
    nd = len(shapes[0])
    for i, s in enumerate(shapes):
        if len(s) != nd:
            raise ValueError(f"{what}: every input must have the same rank; x[0] has shape {list(shapes[0])} "
                             f"but x[{i}] has shape {list(s)}")
    out = list(shapes[0])
    for j in range(nd):
        if j == axis:
            out[j] = -1 if any(s[j] < 0 for s in shapes) else sum(s[j] for s in shapes)
            continue
        known = {s[j] for s in shapes if s[j] >= 0}
        if len(known) > 1:
            i = next(i for i, s in enumerate(shapes) if s[j] != shapes[0][j])
            raise ValueError(f"{what}: inputs must match in every dimension except axis {axis}; x[0] has shape "
                             f"{list(shapes[0])} but x[{i}] has shape {list(shapes[i])} (dimension {j})")
        out[j] = known.pop() if known else -1
    return tuple(out)


def _concat(xs, axis_t=None, axis=0, **_):
    if not xs:
        raise ValueError("concat: x must be a non-empty list of tensors")
    _check_same_dtype("concat", xs)
    ax = _concat_axis(axis_t, axis, xs[0].ndim)
    try:
        return np.concatenate(xs, axis=ax)
    except ValueError:
        _concat_shape([a.shape for a in xs], ax)    # raises the message naming the inputs
        raise


def _concat_meta(xs, axis_t=None, axis=0, **_):
    nd = len(xs[0].shape)
    if axis_t is not None:
        return Meta((-1,) * nd, xs[0].dtype)
    ax = _concat_axis(None, axis, nd)
    return Meta(_concat_shape([tuple(m.shape) for m in xs], ax), xs[0].dtype)


def _concat_grad_kernel(xs, axis_t, dout, axis=0, **_):
    ax = _concat_axis(axis_t, axis, dout.ndim)
    cuts = np.cumsum([a.shape[ax] for a in xs])[:-1]
    return list_out(g.astype(a.dtype, copy=False) for g, a in zip(np.split(dout, cuts, axis=ax), xs))


def _concat_grad_meta(xs, axis_t, dout, **_):
    return [Meta(tuple(m.shape), m.dtype) for m in xs]


def _input(ctx, i):
    """Forward input ``i`` of a grad context (callers may leave out trailing optional inputs)."""
    return ctx.inputs[i] if i < len(ctx.inputs) else None


def _concat_grad(ctx, dout):
    from ..dispatch import run_op
    return [as_list(run_op("concat_grad", ctx.inputs[0], _input(ctx, 1), dout, **ctx.attrs)), None]


register("concat", ["X[]", "AxisTensor?"], ["Out"], {"axis": ("INT", 0)}, kernel=_concat,
         infer_meta=_concat_meta, grad=_concat_grad, differentiable=("X",))
register("concat_grad", ["X[]", "AxisTensor?", "Out@GRAD"], ["X@GRAD[]"], {"axis": ("INT", 0)},
                      kernel=_concat_grad_kernel, infer_meta=_concat_grad_meta)


def split_sizes(dim, num, sections, axis, shape):
    """Section sizes along ``axis`` (``dim`` may be -1 at build time: sizes then -1 where unknown)."""
    if num > 0:
        if dim >= 0 and dim % num:
            raise ValueError(f"split: x's size {dim} along axis {axis} (shape {list(shape)}) is not divisible "
                             f"into {num} equal sections")
        return [dim // num if dim >= 0 else -1] * num
    sections = [int(s) for s in sections]
    if not sections:
        raise ValueError("split: num_or_sections must be a positive int or a non-empty list of section sizes")
    unknown = [i for i, s in enumerate(sections) if s == -1]
    if len(unknown) > 1:
        raise ValueError(f"split: num_or_sections {sections} may hold only one -1")
    if any(s < -1 for s in sections):
        raise ValueError(f"split: section sizes must be >= 0 (or one -1), got {sections}")
    if dim < 0:
        return sections
    known = sum(s for s in sections if s != -1)
    if unknown:
        if known > dim:
            raise ValueError(f"split: sections {sections} add up to {known}, more than x's size {dim} along "
                             f"axis {axis} (shape {list(shape)})")
        sections[unknown[0]] = dim - known
    elif known != dim:
        raise ValueError(f"split: sections {sections} add up to {known} but x's size along axis {axis} is {dim} "
                         f"(shape {list(shape)})")
    return sections


def _split(x, axis_t=None, sections_list=None, sections=(), num=0, axis=0, **_):
    if axis_t is not None:
        axis = int(np.asarray(axis_t).reshape(-1)[0])
    if sections_list:
        sections = _ints(None, sections_list, sections)
    ax = normalize_axis(axis, x.ndim, "split: axis")
    sizes = split_sizes(x.shape[ax], num, sections, ax, x.shape)
    # basic slicing: the same views np.split returns, without its per-piece swapaxes
    lead = (slice(None),) * ax
    out, start = [], 0
    for n in sizes:
        out.append(x[lead + (slice(start, start + n),)])
        start += n
    return out


def _split_meta(x, axis_t=None, sections_list=None, sections=(), num=0, axis=0, **_):
    shape = tuple(x.shape)
    n = num if num > 0 else (len(sections_list) if sections_list else len(sections))
    if axis_t is not None:
        return [Meta((-1,) * len(shape), x.dtype) for _ in range(n)]
    ax = normalize_axis(axis, len(shape), "split: axis")
    if sections_list:
        sizes = [-1] * n
    else:
        sizes = split_sizes(shape[ax], num, sections, ax, shape)
    return [Meta(shape[:ax] + (s,) + shape[ax + 1:], x.dtype) for s in sizes]


def _zeros_for(t):
    """A zero gradient shaped like output ``t`` (for outputs that received no gradient)."""
    from ..tensor import Tensor
    if isinstance(t, Tensor):
        return Tensor._wrap(np.zeros_like(t._data))
    from ..dispatch import run_op
    return run_op("fill_any_like", t, value=0.0, dtype=-1)


def _fill_grads(ctx, douts):
    return [d if d is not None else _zeros_for(ctx.output(i)) for i, d in enumerate(douts)]


def _split_grad(ctx, douts):
    from ..dispatch import run_op
    return [run_op("concat", _fill_grads(ctx, douts), _input(ctx, 1), axis=ctx.attr("axis")), None, None]


register("split", ["X", "AxisTensor?", "SectionsTensorList[]?"], ["Out[]"],
                      {"sections": ("INTS", []), "num": ("INT", 0), "axis": ("INT", 0)},
                      kernel=_split, infer_meta=_split_meta, grad=_split_grad, differentiable=("X",),
                      grad_needs_outputs=True)


# -- stack / unstack --------------------------------------------------------------------------------

def _stack(xs, axis=0, **_):
    if not xs:
        raise ValueError("stack: x must be a non-empty list of tensors")
    _check_same_dtype("stack", xs)
    for i, a in enumerate(xs):
        if a.shape != xs[0].shape:
            raise ValueError(f"stack: every input must have the same shape; x[0] has shape {list(xs[0].shape)} "
                             f"but x[{i}] has shape {list(a.shape)}")
    return np.stack(xs, axis=normalize_axis(axis, xs[0].ndim + 1, "stack: axis"))


def _stack_meta(xs, axis=0, **_):
    shape = _concat_shape([tuple(m.shape) for m in xs], -1, "stack")
    ax = normalize_axis(axis, len(shape) + 1, "stack: axis")
    return Meta(shape[:ax] + (len(xs),) + shape[ax:], xs[0].dtype)


def _stack_grad(ctx, dout):
    from ..dispatch import run_op
    return [as_list(run_op("unstack", dout, axis=ctx.attr("axis"), num=len(ctx.inputs[0])))]


register("stack", ["X[]"], ["Y"], {"axis": ("INT", 0)}, kernel=_stack, infer_meta=_stack_meta, grad=_stack_grad)


def _unstack(x, axis=0, num=0, **_):
    ax = normalize_axis(axis, x.ndim, "unstack: axis")
    return list_out(np.moveaxis(x, ax, 0))


def _unstack_meta(x, axis=0, num=0, **_):
    shape = tuple(x.shape)
    ax = normalize_axis(axis, len(shape), "unstack: axis")
    n = shape[ax] if shape[ax] >= 0 else num
    if n < 0:
        raise ValueError(f"unstack: the size of axis {axis} is unknown (shape {list(shape)}); pass num")
    return [Meta(shape[:ax] + shape[ax + 1:], x.dtype) for _ in range(n)]


def _unstack_grad(ctx, douts):
    from ..dispatch import run_op
    return [run_op("stack", _fill_grads(ctx, douts), axis=ctx.attr("axis"))]


register("unstack", ["X"], ["Y[]"], {"axis": ("INT", 0), "num": ("INT", 0)}, kernel=_unstack,
                      infer_meta=_unstack_meta, grad=_unstack_grad, grad_needs_outputs=True)


# -- slice / strided_slice --------------------------------------------------------------------------

def _slice_index(shape, axes, starts, ends, strides, decrease):
    """The numpy index for Paddle's (strided) slice attrs; start/end follow Python slice clamping."""
    nd = len(shape)
    idx = [slice(None)] * nd
    dec = {normalize_axis(a, nd, "slice: decrease_axis") for a in decrease} if decrease else ()
    for k, a in enumerate(axes):
        a = normalize_axis(a, nd, "slice: axes")
        step = strides[k] if strides is not None else 1
        if step == 0:
            raise ValueError(f"strided_slice: stride for axis {a} must not be 0")
        s = slice(starts[k], ends[k], step)
        if a in dec:
            lo, hi, st = s.indices(shape[a])
            if len(range(lo, hi, st)) != 1:
                raise ValueError(f"slice: axis {a} is in decrease_axis but its slice [{starts[k]}:{ends[k]}] of a "
                                 f"dimension of size {shape[a]} does not select exactly one element")
            idx[a] = lo
        else:
            idx[a] = s
    for a in dec:
        if type(idx[a]) is not int:
            if shape[a] != 1:
                raise ValueError(f"slice: decrease_axis {a} has size {shape[a]}, expected 1")
            idx[a] = 0
    idx.append(Ellipsis)   # keeps 0-D results as arrays rather than numpy scalars
    return tuple(idx)


def _slice_attr_lists(starts_t, ends_t, starts_l, ends_l, starts, ends):
    if starts_t is not None or starts_l:
        starts = _ints(starts_t, starts_l, starts)
    if ends_t is not None or ends_l:
        ends = _ints(ends_t, ends_l, ends)
    return starts, ends


def _slice(x, starts_t=None, ends_t=None, starts_l=None, ends_l=None, axes=(), starts=(), ends=(),
           infer_flags=(), decrease_axis=(), **_):
    if starts_t is not None or ends_t is not None or starts_l or ends_l:
        starts, ends = _slice_attr_lists(starts_t, ends_t, starts_l, ends_l, starts, ends)
    return x[_slice_index(x.shape, axes, starts, ends, None, decrease_axis)]


def _make_slice(axes=(), starts=(), ends=(), decrease_axis=(), **attrs):
    """Compiled-program slice: the numpy index is built once per input shape (an LSTM slices the same
    shape every step); tensor starts/ends take the general kernel."""
    cache = {}

    def kernel(x, starts_t=None, ends_t=None, starts_l=None, ends_l=None):
        if starts_t is not None or ends_t is not None or starts_l or ends_l:
            return _slice(x, starts_t, ends_t, starts_l, ends_l, axes=axes, starts=starts, ends=ends,
                          decrease_axis=decrease_axis)
        idx = cache.get(x.shape)
        if idx is None:
            if len(cache) > 16:
                cache.clear()
            idx = cache[x.shape] = _slice_index(x.shape, axes, starts, ends, None, decrease_axis)
        return x[idx]
    return kernel


def _sliced_shape(shape, axes, starts, ends, strides, decrease):
    out = list(shape)
    nd = len(shape)
    for k, a in enumerate(axes):
        a = normalize_axis(a, nd, "slice: axes")
        s, e = starts[k], ends[k]
        st = strides[k] if strides is not None else 1
        if s is None or e is None or st is None or out[a] < 0:
            out[a] = -1
        else:
            out[a] = len(range(*slice(s, e, st).indices(out[a])))
    dec = {normalize_axis(a, nd, "slice: decrease_axis") for a in decrease}
    return tuple(d for i, d in enumerate(out) if i not in dec)


def _slice_meta(x, starts_t=None, ends_t=None, starts_l=None, ends_l=None, axes=(), starts=(), ends=(),
                infer_flags=(), decrease_axis=(), **_):
    n = len(axes)
    st = [None] * n if (starts_t is not None or starts_l) else list(starts)
    en = [None] * n if (ends_t is not None or ends_l) else list(ends)
    return Meta(_sliced_shape(tuple(x.shape), axes, st, en, None, decrease_axis), x.dtype)


_SLICE_INPUTS = ["Input", "StartsTensor?", "EndsTensor?", "StartsTensorList[]?", "EndsTensorList[]?"]
register("slice", _SLICE_INPUTS, ["Out"],
         {"axes": ("INTS", []), "starts": ("INTS", []), "ends": ("INTS", []), "infer_flags": ("INTS", []),
          "decrease_axis": ("INTS", [])},
         kernel=_slice, make_kernel=_make_slice, infer_meta=_slice_meta, differentiable=("Input",))


def _slice_grad(x, starts_t, ends_t, starts_l, ends_l, dout, axes=(), starts=(), ends=(), decrease_axis=(), **_):
    starts, ends = _slice_attr_lists(starts_t, ends_t, starts_l, ends_l, starts, ends)
    g = np.zeros(x.shape, dtype=x.dtype)
    g[_slice_index(x.shape, axes, starts, ends, None, decrease_axis)] = dout
    return g


grad_op("slice", _SLICE_INPUTS + ["Out@GRAD"], ["Input@GRAD"], _slice_grad)

_STRIDED_INPUTS = ["Input", "StartsTensor?", "StartsTensorList[]?", "EndsTensor?", "EndsTensorList[]?",
                   "StridesTensor?", "StridesTensorList[]?"]


def _strided_index(x, st_t, st_l, en_t, en_l, sd_t, sd_l, axes, starts, ends, strides, decrease_axis):
    if st_t is not None or st_l:
        starts = _ints(st_t, st_l, starts)
    if en_t is not None or en_l:
        ends = _ints(en_t, en_l, ends)
    if sd_t is not None or sd_l:
        strides = _ints(sd_t, sd_l, strides)
    return _slice_index(x.shape, axes, starts, ends, strides, decrease_axis)


def _strided_slice(x, st_t=None, st_l=None, en_t=None, en_l=None, sd_t=None, sd_l=None, axes=(), starts=(),
                   ends=(), strides=(), infer_flags=(), decrease_axis=(), **_):
    return x[_strided_index(x, st_t, st_l, en_t, en_l, sd_t, sd_l, axes, starts, ends, strides, decrease_axis)]


def _strided_slice_meta(x, st_t=None, st_l=None, en_t=None, en_l=None, sd_t=None, sd_l=None, axes=(), starts=(),
                        ends=(), strides=(), infer_flags=(), decrease_axis=(), **_):
    n = len(axes)
    st = [None] * n if (st_t is not None or st_l) else list(starts)
    en = [None] * n if (en_t is not None or en_l) else list(ends)
    sd = [None] * n if (sd_t is not None or sd_l) else list(strides)
    return Meta(_sliced_shape(tuple(x.shape), axes, st, en, sd, decrease_axis), x.dtype)


register("strided_slice", _STRIDED_INPUTS, ["Out"],
         {"axes": ("INTS", []), "starts": ("INTS", []), "ends": ("INTS", []), "strides": ("INTS", []),
          "infer_flags": ("INTS", []), "decrease_axis": ("INTS", [])},
         kernel=_strided_slice, infer_meta=_strided_slice_meta, differentiable=("Input",))


def _strided_slice_grad(x, st_t, st_l, en_t, en_l, sd_t, sd_l, dout, axes=(), starts=(), ends=(), strides=(),
                        decrease_axis=(), **_):
    g = np.zeros(x.shape, dtype=x.dtype)
    g[_strided_index(x, st_t, st_l, en_t, en_l, sd_t, sd_l, axes, starts, ends, strides, decrease_axis)] = dout
    return g


grad_op("strided_slice", _STRIDED_INPUTS + ["Out@GRAD"], ["Input@GRAD"], _strided_slice_grad)


# -- tile / expand ----------------------------------------------------------------------------------

def _tile_reps(rt, rt_list, repeat_times):
    reps = _ints(rt, rt_list, repeat_times)
    for r in reps:
        if r < 0:
            raise ValueError(f"tile: repeat_times {reps} must hold non-negative ints")
    return reps


def _tile(x, rt=None, rt_list=None, repeat_times=(), **_):
    return np.tile(x, _tile_reps(rt, rt_list, repeat_times))


def _tile_meta(x, rt=None, rt_list=None, repeat_times=(), **_):
    reps = _meta_ints(rt, rt_list, repeat_times)
    if reps is None:
        return Meta((-1,), x.dtype)
    shape = tuple(x.shape)
    n = max(len(reps), len(shape))
    reps = [1] * (n - len(reps)) + list(reps)
    shape = (1,) * (n - len(shape)) + shape
    return Meta(tuple(-1 if r is None or d < 0 else r * d for r, d in zip(reps, shape)), x.dtype)


register("tile", ["X", "RepeatTimes?", "repeat_times_tensor[]?"], ["Out"], {"repeat_times": ("INTS", [])},
         kernel=_tile, infer_meta=_tile_meta, differentiable=("X",))


def _tile_grad(x, rt, rt_list, dout, repeat_times=(), **_):
    reps = _tile_reps(rt, rt_list, repeat_times)
    n = max(len(reps), x.ndim)
    reps = [1] * (n - len(reps)) + reps
    shape = (1,) * (n - x.ndim) + x.shape
    inter = []
    for r, d in zip(reps, shape):
        inter += [r, d]
    g = dout.reshape(inter).sum(axis=tuple(range(0, 2 * n, 2)))
    return g.reshape(x.shape).astype(x.dtype, copy=False)


grad_op("tile", ["X", "RepeatTimes?", "repeat_times_tensor[]?", "Out@GRAD"], ["X@GRAD"], _tile_grad)


def expand_target(in_shape, shape, op="expand"):
    """Target shape of expand_v2: -1 keeps x's dim; x's dims align with the trailing entries."""
    shape = [None if s is None else int(s) for s in shape]
    nd = len(in_shape)
    if len(shape) < nd:
        raise ValueError(f"{op}: shape {shape} has {len(shape)} entries, fewer than x's rank {nd} "
                         f"(x's shape {list(in_shape)})")
    lead = len(shape) - nd
    out = []
    for i, s in enumerate(shape):
        d = in_shape[i - lead] if i >= lead else None
        if s is None:
            out.append(-1)
        elif s == -1:
            if d is None:
                raise ValueError(f"{op}: shape {shape} holds -1 at position {i}, which has no matching "
                                 f"dimension in x (shape {list(in_shape)})")
            out.append(d)
        elif s < -1:
            raise ValueError(f"{op}: shape {shape} holds {s}; sizes must be positive or -1 (keep x's size)")
        else:
            if d is not None and d not in (1, s, -1):
                raise ValueError(f"{op}: x's dimension {i - lead} has size {d}, which cannot be expanded to {s} "
                                 f"(only size-1 dimensions expand); x's shape {list(in_shape)}, target {shape}")
            out.append(s)
    return tuple(out)


def _expand_v2(x, shape_t=None, shape_list=None, shape=(), **_):
    if shape_t is not None or shape_list:
        shape = _ints(shape_t, shape_list, shape)
    target = expand_target(x.shape, shape)
    if target == x.shape:
        return x
    return np.array(np.broadcast_to(x, target))


def _expand_v2_meta(x, shape_t=None, shape_list=None, shape=(), **_):
    target = _meta_ints(shape_t, shape_list, shape)
    if target is None:
        return Meta((-1,), x.dtype)
    return Meta(expand_target(tuple(x.shape), target), x.dtype)


register("expand_v2", ["X", "Shape?", "expand_shapes_tensor[]?"], ["Out"], {"shape": ("INTS", [])},
         kernel=_expand_v2, infer_meta=_expand_v2_meta, differentiable=("X",))


def _unbroadcast_grad(x, *rest, **_):
    return unbroadcast(rest[-1], x.shape).astype(x.dtype, copy=False)


grad_op("expand_v2", ["X", "Shape?", "expand_shapes_tensor[]?", "Out@GRAD"], ["X@GRAD"], _unbroadcast_grad)


def _expand_as_v2(x, y=None, target_shape=(), **_):
    target = tuple(y.shape) if y is not None else tuple(target_shape)
    target = expand_target(x.shape, target, "expand_as")
    if target == x.shape:
        return x
    return np.array(np.broadcast_to(x, target))


def _expand_as_v2_meta(x, y=None, target_shape=(), **_):
    target = tuple(y.shape) if y is not None else tuple(target_shape)
    return Meta(expand_target(tuple(x.shape), [None if t == -1 else t for t in target], "expand_as"), x.dtype)


register("expand_as_v2", ["X", "Y?"], ["Out"], {"target_shape": ("INTS", [])},
         kernel=_expand_as_v2, infer_meta=_expand_as_v2_meta, differentiable=("X",))
grad_op("expand_as_v2", ["X", "Out@GRAD"], ["X@GRAD"], _unbroadcast_grad)


# -- flip / roll ------------------------------------------------------------------------------------

def _flip_axes(axis, nd):
    return tuple(normalize_axis(a, nd, "flip: axis") for a in axis)


def _flip(x, axis=(), **_):
    if x.ndim == 0:
        return x
    return np.flip(x, _flip_axes(axis, x.ndim))


def _flip_meta(x, axis=(), **_):
    _flip_axes(axis, len(x.shape))
    return Meta(tuple(x.shape), x.dtype)


def _flip_grad(ctx, dout):
    from ..dispatch import run_op
    return [run_op("flip", dout, axis=ctx.attr("axis"))]


register("flip", ["X"], ["Out"], {"axis": ("INTS", [])}, kernel=_flip, infer_meta=_flip_meta, grad=_flip_grad)


def _roll_args(shifts_t, shifts, axis, nd):
    if shifts_t is not None:
        shifts = [int(v) for v in np.asarray(shifts_t).reshape(-1)]
    shifts = [int(s) for s in shifts]
    axis = [int(a) for a in axis]
    if axis and len(axis) != len(shifts):
        raise ValueError(f"roll: shifts {shifts} and axis {axis} must have the same length")
    if not axis and len(shifts) != 1:
        raise ValueError(f"roll: without axis, shifts must hold one value, got {shifts}")
    return shifts, [normalize_axis(a, nd, "roll: axis") for a in axis]


def _roll_by(x, shifts_t, shifts, axis, sign):
    shifts, axis = _roll_args(shifts_t, shifts, axis, x.ndim)
    shifts = [sign * s for s in shifts]
    if not axis:
        return np.roll(x.reshape(-1), shifts[0]).reshape(x.shape)
    return np.roll(x, shifts, axis=axis)


def _roll(x, shifts_t=None, shifts=(), axis=(), **_):
    return _roll_by(x, shifts_t, shifts, axis, 1)


def _roll_meta(x, shifts_t=None, shifts=(), axis=(), **_):
    return Meta(tuple(x.shape), x.dtype)


register("roll", ["X", "ShiftsTensor?"], ["Out"], {"shifts": ("LONGS", []), "axis": ("LONGS", [])},
         kernel=_roll, infer_meta=_roll_meta, differentiable=("X",))


def _roll_grad(shifts_t, dout, shifts=(), axis=(), **_):
    return _roll_by(dout, shifts_t, shifts, axis, -1)


grad_op("roll", ["ShiftsTensor?", "Out@GRAD"], ["X@GRAD"], _roll_grad,
        infer_meta=lambda shifts_t, dout, **_: Meta(tuple(dout.shape), dout.dtype))


# -- shape / size -----------------------------------------------------------------------------------

def _shape(x, **_):
    return np.array(x.shape, dtype=np.int32)


def _size(x, **_):
    return np.array(x.size, dtype=np.int64)


register("shape", ["Input"], ["Out"], {}, kernel=_shape,
         infer_meta=lambda x, **_: Meta((len(x.shape),), np.dtype(np.int32)), differentiable=())
register("size", ["Input"], ["Out"], {}, kernel=_size,
         infer_meta=lambda x, **_: Meta((), np.dtype(np.int64)), differentiable=())


