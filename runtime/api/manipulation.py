"""Shape manipulation and gathering: cast, reshape, transpose, flatten, (un)squeeze, concat/split,
stack/unstack, slice, tile/expand, flip/roll, shape/numel, gather/scatter, where, masked_select ..."""
from __future__ import annotations

import numbers
import sys
import weakref

import numpy as np

from ..autograd import freeze_inputs
from ..dispatch import run_op
from ..dtype import convert_dtype, default_float
from ..framework import state
from ..ops.meta import broadcast_shapes, normalize_axis
from ..ops.shape import as_list, expand_target, resolve_shape, split_sizes, unsqueeze_shape
from ..tensor import Tensor, tensor_method
from ._helpers import is_var, scalar_like
from .param_alias import param_alias

__all__ = ["cast", "reshape", "reshape_", "transpose", "flatten", "flatten_", "squeeze", "squeeze_", "unsqueeze",
           "unsqueeze_", "concat", "split", "chunk", "stack", "unstack", "unbind", "slice", "strided_slice", "tile",
           "expand", "expand_as", "broadcast_to", "broadcast_shape", "broadcast_tensors", "flip", "roll", "shape",
           "numel", "gather", "gather_nd", "index_select", "where", "masked_select", "moveaxis", "repeat_interleave",
           "scatter", "scatter_", "scatter_nd_add", "scatter_nd", "index_sample", "take_along_axis", "put_along_axis",
           "masked_fill", "masked_fill_", "view", "view_as", "unflatten", "narrow", "swapaxes"]


# -- argument helpers -------------------------------------------------------------------------------

def _is_static_var(v) -> bool:
    return is_var(v) and not isinstance(v, Tensor)


def _is_int(v) -> bool:
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, (bool, np.bool_))


def _const(arr):
    """A constant array as an op input: passed as is eagerly, an assign_value op in static mode."""
    if state.static:
        from .creation import _assign_array
        return _assign_array(np.asarray(arr))
    return arr


def _tensor_int(t, op, what):
    if t.dtype.np.kind not in "iu":
        raise TypeError(f"{op}: {what} given as a tensor must hold integers, got {t.dtype}")
    if t.size != 1:
        raise ValueError(f"{op}: each {what} entry given as a tensor must have one element, got shape {t.shape}")
    return int(t.item())


def int_list_arg(value, op, what):
    """Normalise an int / list of ints and 1-element tensors / 1-D int tensor argument.

    Returns ``(ints, tensor, tensor_list)``: eager tensors are read now (Paddle allows it), so
    eagerly only ``ints`` is used; in static mode a Variable becomes ``tensor`` (a whole 1-D
    list) or enters ``tensor_list``, with -1 in ``ints`` at its place.
    """
    if isinstance(value, Tensor):
        if value.dtype.np.kind not in "iu":
            raise TypeError(f"{op}: {what} given as a tensor must hold integers, got {value.dtype}")
        return [int(v) for v in value.numpy().reshape(-1)], None, None
    if _is_static_var(value):
        n = value.shape[0] if len(value.shape) == 1 else 1
        return ([-1] * n if n > 0 else []), value, None
    if _is_int(value):
        return [int(value)], None, None
    if isinstance(value, np.ndarray) and value.ndim == 1 and value.dtype.kind in "iu":
        if op == "reshape":      # Paddle's reshape refuses arrays (ValueError); expand / tile / unsqueeze take them
            from .arg_checks import ArgumentTypeError
            raise ArgumentTypeError(f"reshape: shape must be a list, a tuple or a Tensor, got numpy.ndarray; "
                                    "pass shape.tolist()")
        return [int(v) for v in value], None, None
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{op}: {what} must be an int, a list/tuple of ints or a Tensor, got "
                        f"{type(value).__name__}")
    ints, dynamic = [], False
    for v in value:
        if isinstance(v, Tensor):
            ints.append(_tensor_int(v, op, what))
        elif _is_static_var(v):
            ints.append(v)
            dynamic = True
        elif _is_int(v):
            ints.append(int(v))
        else:
            raise TypeError(f"{op}: {what} entries must be ints or integer tensors, got {v!r} in {list(value)}")
    if dynamic:
        tensors = [v if _is_static_var(v) else np.asarray([v], dtype=np.int64) for v in ints]
        return [-1 if _is_static_var(v) else v for v in ints], None, [_const(t) if isinstance(t, np.ndarray)
                                                                      else t for t in tensors]
    return ints, None, None


def _axis_arg(axis, op, what="axis"):
    """An int axis, reading an eager 1-element tensor. Returns (int or None, static Variable or None)."""
    if isinstance(axis, Tensor):
        return _tensor_int(axis, op, what), None
    if _is_static_var(axis):
        return 0, axis
    if not _is_int(axis):
        raise TypeError(f"{op}: {what} must be an int or a 1-element integer tensor, got {axis!r}")
    return int(axis), None


def _axes_list(axis, op, what="axis"):
    if axis is None:
        return []
    if isinstance(axis, Tensor):
        return [int(v) for v in axis.numpy().reshape(-1)]
    if _is_int(axis):
        return [int(axis)]
    if isinstance(axis, (list, tuple)):
        out = []
        for a in axis:
            out.append(_tensor_int(a, op, what) if isinstance(a, Tensor) else a)
            if not _is_int(out[-1]):
                raise TypeError(f"{op}: {what} entries must be ints, got {a!r} in {list(axis)}")
        return [int(a) for a in out]
    raise TypeError(f"{op}: {what} must be an int, a list/tuple of ints or a Tensor, got {type(axis).__name__}")


def _ndim(x):
    return len(x.shape)


def _check_tensor(x, op, what="x"):
    if not is_var(x):
        raise TypeError(f"{op}: {what} must be a Tensor, got {type(x).__name__}")


def _rebind(x, out):
    """Make eager tensor ``x`` hold ``out``'s value and autograd history (Paddle's in-place APIs).

    The result is computed out of place, so earlier views of x keep the old values. On a static
    Variable of a Program built in static mode an in-place API is functional, as in Paddle's PIR
    programs: it returns the new value and ``x`` keeps naming the old one (later ops that read ``x``
    read its value from before the call). While paddle.jit.to_static traces a function, where the
    function's eager meaning (x changed) must hold, it is refused.
    """
    if not isinstance(x, Tensor):
        sf = sys.modules.get("dy2st.static_function")
        if sf is not None and sf.in_to_static_mode():
            raise NotImplementedError("in-place updates of static Variables are not supported yet inside "
                                      "paddle.jit.to_static; use the out-of-place function and its return value")
        return out
    freeze_inputs(x)              # grad nodes that read x (the one that computed `out` too) keep its old value
    x._data = out._data
    x._version = x.inplace_version + 1
    node = out._node
    if node is not None:
        x._node = node
        x._out_idx = out._out_idx
        x.stop_gradient = False
        node.out_refs[out._out_idx] = weakref.ref(x)
    return x


def _paddle_version_count(fn, count):
    """In-place ``fn`` (registered as a Tensor method under its name) whose call adds ``count`` to
    ``x.inplace_version`` instead of 1: Paddle builds some in-place APIs (hypot_, lcm_, nan_to_num_ ...) from
    several in-place steps, and its version counter shows each of them."""
    def counted(x, *args, **kwargs):
        out = fn(x, *args, **kwargs)
        if isinstance(x, Tensor):
            x._version = x.inplace_version + count - 1
        return out
    counted.__name__ = counted.__qualname__ = fn.__name__
    counted.__doc__ = fn.__doc__
    return tensor_method(counted)


def check_inplace(x, op):
    if isinstance(x, Tensor) and state.grad_enabled and x._node is None and not x.stop_gradient:
        raise ValueError(f"{op}: leaf Tensor {x.name} that doesn't stop gradient can't use inplace strategy "
                         "(it is a parameter or an input you want gradients for); do the update under "
                         "paddle.no_grad(), or compute a new tensor instead")


# -- cast / reshape / transpose ---------------------------------------------------------------------

@tensor_method
def cast(x, dtype):
    """``x`` converted to ``dtype`` (always a new tensor)."""
    _check_tensor(x, "cast")
    d = convert_dtype(dtype)
    return run_op("cast", x, in_dtype=x.dtype.proto, out_dtype=d.proto)


tensor_method(cast, name="astype")


def _cast_method(dtype):
    def method(self):
        return cast(self, dtype)
    method.__name__ = method.__qualname__ = {"int32": "int", "int64": "long", "float32": "float", "float64": "double",
                                             "float16": "half", "bool": "bool", "int16": "short",
                                             "uint8": "byte"}[dtype]
    method.__doc__ = f"``x`` cast to {dtype} (Paddle's Tensor.{method.__name__}())."
    return method


for _d in ("int32", "int64", "float32", "float64", "float16", "bool", "int16", "uint8"):
    _m = _cast_method(_d)
    tensor_method(_m, name=_m.__name__)


@tensor_method
def type_as(x, other):
    """``x`` cast to ``other``'s dtype."""
    return cast(x, other.dtype)


def _mT(x):
    if x.ndim < 2:
        raise ValueError(f"Tensor.mT: x must have at least 2 dimensions, got shape {list(x.shape)}")
    perm = list(range(x.ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return run_op("transpose2", x, axis=perm)


tensor_method(property(_mT), name="mT")


def _reshape_inputs(x, shape):
    ints, tensor, tensor_list = int_list_arg(shape, "reshape", "shape")
    if tensor is None and tensor_list is None and isinstance(x, Tensor):
        # check eagerly so the error names the API rather than the op
        resolve_shape(ints, x._data.shape)
    return ints, tensor, tensor_list


@tensor_method
def reshape(x, shape, name=None):
    """``x`` with a new shape: 0 copies x's dimension at that position, one -1 is inferred."""
    _check_tensor(x, "reshape")
    ints, tensor, tensor_list = _reshape_inputs(x, shape)
    return run_op("reshape2", x, tensor, tensor_list, shape=ints)


def _inplace(op_name, fn):
    def inplace(x, *args, **kwargs):
        check_inplace(x, op_name)
        return _rebind(x, fn(x, *args, **kwargs))
    inplace.__name__ = op_name
    inplace.__qualname__ = op_name
    inplace.__doc__ = f"In-place `{fn.__name__}`: ``x`` itself takes the result (and is returned)."
    return tensor_method(inplace)


@tensor_method
def reshape_(x, shape, name=None):
    """In-place `reshape`: ``x`` itself takes the new shape."""
    check_inplace(x, "reshape_")
    return _rebind(x, reshape(x, shape))


@tensor_method
def transpose(x, perm, name=None):
    """Permute the dimensions of ``x``: output dimension i is input dimension ``perm[i]``."""
    _check_tensor(x, "transpose")
    perm = _axes_list(perm, "transpose", "perm")
    nd = _ndim(x)
    if len(perm) != nd:
        raise ValueError(f"transpose: perm {perm} must have {nd} entries, one per dimension of x (shape {x.shape})")
    norm = [normalize_axis(a, nd, "transpose: perm entry") for a in perm]
    if len(set(norm)) != nd:
        raise ValueError(f"transpose: perm {perm} must name each axis exactly once")
    return run_op("transpose2", x, axis=perm)


@tensor_method
def swapaxes(x, perm, name=None):
    """`transpose` under the name Paddle also offers."""
    return transpose(x, perm)


@tensor_method
def moveaxis(x, source, destination, name=None):
    """Move axes ``source`` to positions ``destination`` (the others keep their order)."""
    src = _axes_list(source, "moveaxis", "source")
    dst = _axes_list(destination, "moveaxis", "destination")
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source {src} and destination {dst} must have the same number of axes")
    nd = _ndim(x)
    src = [normalize_axis(a, nd, "moveaxis: source") for a in src]
    dst = [normalize_axis(a, nd, "moveaxis: destination") for a in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError(f"moveaxis: source {src} and destination {dst} must not repeat axes")
    rest = [a for a in range(nd) if a not in src]
    perm = [None] * nd
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(rest)
    perm = [p if p is not None else next(it) for p in perm]
    return run_op("transpose2", x, axis=perm)


@tensor_method
def view(x, shape_or_dtype, name=None):
    """`reshape` (viewing the data with another dtype is not supported)."""
    if isinstance(shape_or_dtype, (list, tuple)) or is_var(shape_or_dtype):
        return reshape(x, shape_or_dtype)
    raise NotImplementedError("view: reinterpreting a tensor's bytes as another dtype is not supported; "
                              "pass a shape, or use astype to convert values")


@tensor_method
def view_as(x, other, name=None):
    return reshape(x, list(other.shape))


@tensor_method
def unflatten(x, axis, shape, name=None):
    """Split dimension ``axis`` into the dimensions ``shape`` (one may be -1)."""
    nd = _ndim(x)
    ax = normalize_axis(int(axis), nd, "unflatten: axis")
    ints = _axes_list(shape, "unflatten", "shape")
    if not ints:
        raise ValueError("unflatten: shape must not be empty")
    return reshape(x, [0] * ax + ints + list(x.shape[ax + 1:]))   # 0 copies the leading dims, known or not


@tensor_method
def narrow(input, dim, start, length):
    """``input`` restricted to ``start .. start + length`` along ``dim``."""
    nd = _ndim(input)
    ax = normalize_axis(int(dim), nd, "narrow: dim")
    start = _tensor_int(start, "narrow", "start") if isinstance(start, Tensor) else int(start)
    n = input.shape[ax]
    if n >= 0:
        if start < 0:
            start += n
        if not 0 <= start <= n or length < 0 or start + length > n:
            raise ValueError(f"narrow: start {start} and length {length} must lie within dimension {dim} of size {n}")
    return run_op("slice", input, None, None, None, None, axes=[ax], starts=[start], ends=[start + int(length)],
                  infer_flags=[1])


@tensor_method
def flatten(x, start_axis=0, stop_axis=-1, name=None):
    """Merge dimensions ``start_axis`` .. ``stop_axis`` (inclusive) into one (a 0-D x takes only 0 or -1)."""
    if not is_var(x):
        from .arg_checks import ArgumentTypeError
        raise ArgumentTypeError(f"flatten: x must be a Tensor, got {type(x).__name__}")
    nd = _ndim(x)
    if not nd:
        for what, a in (("start_axis", start_axis), ("stop_axis", stop_axis)):
            if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or a not in (0, -1):
                raise ValueError(f"flatten: {what} must be the int 0 or -1 for a 0-D tensor, got {a!r}")
    else:
        s = normalize_axis(start_axis, nd, "flatten: start_axis")
        e = normalize_axis(stop_axis, nd, "flatten: stop_axis")
        if s > e:
            raise ValueError(f"flatten: stop_axis ({stop_axis}) should be larger than or equal to start_axis "
                             f"({start_axis}) for a tensor of rank {nd}")
    return run_op("flatten_contiguous_range", x, start_axis=int(start_axis), stop_axis=int(stop_axis))


@tensor_method
@param_alias(x="input", axis="dim")
def squeeze(x, axis=None, name=None):
    """Remove size-1 dimensions (all of them, or those in ``axis``; named axes of other sizes stay)."""
    _check_tensor(x, "squeeze")
    return run_op("squeeze2", x, axes=_axes_list(axis, "squeeze"))


@tensor_method
@param_alias(x="input", axis="dim")
def unsqueeze(x, axis, name=None):
    """Insert size-1 dimensions at ``axis`` (an int, a list, or a Tensor), one after another."""
    _check_tensor(x, "unsqueeze")
    ints, tensor, tensor_list = int_list_arg(axis, "unsqueeze", "axis")
    if tensor is None and tensor_list is None:
        unsqueeze_shape(x.shape, ints)
    return run_op("unsqueeze2", x, tensor, tensor_list, axes=ints)


# -- concat / split / stack -------------------------------------------------------------------------

def _tensor_list(x, op):
    if is_var(x):
        raise TypeError(f"{op}: x must be a list or tuple of Tensors, got a single Tensor; wrap it in a list")
    if not isinstance(x, (list, tuple)) or not x:
        raise TypeError(f"{op}: x must be a non-empty list or tuple of Tensors, got {x!r}")
    for i, t in enumerate(x):
        if not is_var(t):
            raise TypeError(f"{op}: x[{i}] must be a Tensor, got {type(t).__name__}")
    return list(x)


def _same_dtypes(xs, op):
    d0 = xs[0].dtype
    for i, t in enumerate(xs[1:], 1):
        if t.dtype != d0:
            raise ValueError(f"{op}: the tensors in x must share one dtype; x[0] is {d0} but x[{i}] is {t.dtype}")


def concat(x, axis=0, name=None):
    """Join tensors along an existing dimension ``axis``."""
    xs = _tensor_list(x, "concat")
    _same_dtypes(xs, "concat")
    ax, ax_t = _axis_arg(axis, "concat")
    if ax_t is not None:
        return run_op("concat", xs, ax_t)
    return run_op("concat", xs, axis=ax)


@tensor_method
def split(x, num_or_sections, axis=0, name=None):
    """Split ``x`` along ``axis`` into ``num`` equal parts or parts of the given sizes (one may be -1)."""
    _check_tensor(x, "split")
    ax, ax_t = _axis_arg(axis, "split")
    nd = _ndim(x)
    if ax_t is None:
        ax = normalize_axis(ax, nd, "split: axis")
    if _is_int(num_or_sections):
        num = int(num_or_sections)
        if num <= 0:
            raise ValueError(f"split: num_or_sections must be positive, got {num}")
        if ax_t is None and x.shape[ax] >= 0 and x.shape[ax] % num:
            raise ValueError(f"split: x's size {x.shape[ax]} along axis {ax} (shape {x.shape}) is not divisible "
                             f"by num_or_sections={num}")
        return as_list(run_op("split", x, ax_t, None, num=num, axis=ax))
    if not isinstance(num_or_sections, (list, tuple)):
        raise TypeError(f"split: num_or_sections must be an int or a list/tuple of ints, got "
                        f"{type(num_or_sections).__name__}")
    ints, _, tensor_list = int_list_arg(list(num_or_sections), "split", "num_or_sections")
    if tensor_list is None and ax_t is None:
        split_sizes(x.shape[ax], 0, ints, ax, x.shape)
    return as_list(run_op("split", x, ax_t, tensor_list, sections=ints, axis=ax))


@tensor_method
def chunk(x, chunks, axis=0, name=None):
    """Split into ``chunks`` equal parts along ``axis``."""
    return split(x, chunks, axis)


def stack(x, axis=0, name=None):
    """Join same-shaped tensors along a new dimension ``axis`` (in a static Program ``x`` may also be a
    tensor array from ``paddle.tensor.create_array``, as in Paddle)."""
    if state.static and not isinstance(x, (list, tuple)) and _is_tensor_array(x):
        return run_op("tensor_array_to_tensor", x, axis=int(axis), use_stack=True)[0]
    xs = _tensor_list(x, "stack")
    _same_dtypes(xs, "stack")
    s0 = list(xs[0].shape)
    for i, t in enumerate(xs[1:], 1):
        if list(t.shape) != s0 and -1 not in s0 and -1 not in t.shape:
            raise ValueError(f"stack: every tensor must have the same shape; x[0] has shape {s0} but x[{i}] has "
                             f"shape {list(t.shape)}")
    normalize_axis(axis, len(s0) + 1, "stack: axis")
    return run_op("stack", xs, axis=int(axis))


def _is_tensor_array(x):
    from ..static.program import VarType
    return getattr(x, "type", None) == VarType.LOD_TENSOR_ARRAY


@tensor_method
def unstack(x, axis=0, num=None):
    """Split along ``axis`` into ``x.shape[axis]`` tensors with that dimension removed."""
    _check_tensor(x, "unstack")
    ax = normalize_axis(axis, _ndim(x), "unstack: axis")
    n = x.shape[ax]
    if num is not None and n >= 0 and num != n:
        raise ValueError(f"unstack: num ({num}) must equal x's size along axis {axis} ({n})")
    return as_list(run_op("unstack", x, axis=ax, num=int(num if num is not None else max(n, 0))))


@tensor_method
@param_alias(axis="dim")
def unbind(input, axis=0):
    """`unstack` under Paddle's other name (``axis`` must be a Python int, as Paddle checks)."""
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"unbind: the type of 'axis' must be int, but received {type(axis)}")
    return unstack(input, axis)


# -- slicing ----------------------------------------------------------------------------------------

def _slice_args(op, input, axes, lists):
    axes = _axes_list(axes, op, "axes")
    nd = _ndim(input)
    for a in axes:
        normalize_axis(a, nd, f"{op}: axes entry")
    out = []
    for what, value in lists:
        ints, tensor, tensor_list = int_list_arg(value, op, what)
        if tensor is None and tensor_list is None and len(ints) != len(axes):
            raise ValueError(f"{op}: {what} {ints} must have one entry per axis in axes {axes}")
        out.append((ints, tensor, tensor_list))
    return axes, out


@tensor_method
def slice(input, axes, starts, ends, name=None):
    """``input[starts:ends]`` along each of ``axes`` (Python slice clamping)."""
    axes, ((st, st_t, st_l), (en, en_t, en_l)) = _slice_args("slice", input, axes, [("starts", starts),
                                                                                     ("ends", ends)])
    return run_op("slice", input, st_t, en_t, st_l, en_l, axes=axes, starts=st, ends=en,
                  infer_flags=[1] * len(axes))


@tensor_method
def strided_slice(x, axes, starts, ends, strides, name=None):
    """``x[starts:ends:strides]`` along each of ``axes``."""
    axes, ((st, st_t, st_l), (en, en_t, en_l), (sd, sd_t, sd_l)) = _slice_args(
        "strided_slice", x, axes, [("starts", starts), ("ends", ends), ("strides", strides)])
    if sd_t is None and sd_l is None and 0 in sd:
        raise ValueError(f"strided_slice: strides {sd} must not contain 0")
    return run_op("strided_slice", x, st_t, st_l, en_t, en_l, sd_t, sd_l, axes=axes, starts=st, ends=en,
                  strides=sd, infer_flags=[1] * len(axes))


# -- tile / expand / broadcast ----------------------------------------------------------------------

@tensor_method
def tile(x, repeat_times, name=None):
    """Repeat ``x`` ``repeat_times[i]`` times along each dimension (leading 1s are implied)."""
    _check_tensor(x, "tile")
    ints, tensor, tensor_list = int_list_arg(repeat_times, "tile", "repeat_times")
    if tensor is None and tensor_list is None and any(r < 0 for r in ints):
        raise ValueError(f"tile: repeat_times {ints} must not hold negative numbers")
    return run_op("tile", x, tensor, tensor_list, repeat_times=ints)


@tensor_method
def expand(x, shape, name=None):
    """Broadcast ``x`` to ``shape`` (-1 keeps x's size; new dimensions go in front)."""
    _check_tensor(x, "expand")
    ints, tensor, tensor_list = int_list_arg(shape, "expand", "shape")
    if tensor is None and tensor_list is None:
        expand_target(tuple(x.shape), ints)
    return run_op("expand_v2", x, tensor, tensor_list, shape=ints)


@tensor_method
def broadcast_to(x, shape, name=None):
    return expand(x, shape)


@tensor_method
def expand_as(x, y, name=None):
    """Broadcast ``x`` to ``y``'s shape (x: bool, float32, float64, int32 or int64, as Paddle's kernel)."""
    _check_tensor(y, "expand_as", "y")
    _check_tensor(x, "expand_as", "x")
    if x.dtype.name not in ("bool", "float32", "float64", "int32", "int64"):
        from ..ops.special import KernelDtypeError
        raise KernelDtypeError(f"expand_as: x must be bool, float32, float64, int32 or int64, got {x.dtype.name}; "
                               "cast it first")
    if x.dtype.name == "bool" and not x.stop_gradient and not isinstance(x, Tensor):
        raise ValueError("expand_as: a bool input x cannot need a gradient in static mode; set "
                         "x.stop_gradient = True")
    expand_target(tuple(x.shape), [None if d == -1 else d for d in y.shape], "expand_as")
    return run_op("expand_as_v2", x, y, target_shape=list(y.shape))


def broadcast_shape(x_shape, y_shape):
    """The shape two shapes broadcast to (a list)."""
    return list(broadcast_shapes(tuple(x_shape), tuple(y_shape)))


def broadcast_tensors(input, name=None):
    """Broadcast every tensor in ``input`` to their common shape."""
    xs = _tensor_list(input, "broadcast_tensors")
    target = ()
    for t in xs:
        target = broadcast_shapes(target, tuple(t.shape))
    if any(d < 0 for d in target) and any(tuple(t.shape) != target for t in xs):
        return _broadcast_dynamic(xs, target)
    return [t if tuple(t.shape) == target else expand(t, list(target)) for t in xs]


def _broadcast_dynamic(xs, target):
    """Broadcast in a program whose common shape has unknown (-1) dims, which expand cannot name for a
    tensor that lacks them: add zeros of the common shape (elementwise ops broadcast at run time)."""
    from .creation import zeros_like
    z = None
    for t in xs:
        zt = zeros_like(t, dtype="float32")
        z = zt if z is None else run_op("elementwise_add", z, zt)
    out = []
    for t in xs:
        if tuple(t.shape) == target:
            out.append(t)
        elif t.dtype.np.kind == "b":
            out.append(cast(run_op("elementwise_add", cast(t, "float32"), z), "bool"))
        else:
            out.append(run_op("elementwise_add", t, z if t.dtype.np == np.float32 else cast(z, t.dtype)))
    return out


# -- flip / roll / repeat ---------------------------------------------------------------------------

@tensor_method
def flip(x, axis, name=None):
    """Reverse the order of elements along ``axis`` (an int or a list)."""
    _check_tensor(x, "flip")
    axes = _axes_list(axis, "flip")
    nd = _ndim(x)
    for a in axes:
        normalize_axis(a, nd, "flip: axis")
    return run_op("flip", x, axis=axes)


@tensor_method
def roll(x, shifts, axis=None, name=None):
    """Shift elements cyclically by ``shifts`` along ``axis`` (over the flattened tensor when None)."""
    _check_tensor(x, "roll")
    axes = _axes_list(axis, "roll")
    if _is_static_var(shifts):
        return run_op("roll", x, shifts, axis=axes)
    ints = _axes_list(shifts, "roll", "shifts")
    if axes and len(ints) != len(axes):
        raise ValueError(f"roll: shifts {ints} and axis {axes} must have the same length")
    if not axes and len(ints) != 1:
        raise ValueError(f"roll: when axis is None, shifts must be a single int, got {ints}")
    nd = _ndim(x)
    for a in axes:
        normalize_axis(a, nd, "roll: axis")
    return run_op("roll", x, None, shifts=ints, axis=axes)


@tensor_method
@param_alias(x="input", axis="dim")
def repeat_interleave(x, repeats, axis=None, name=None):
    """Repeat each element ``repeats`` times along ``axis`` (over the flattened tensor when None)."""
    _check_tensor(x, "repeat_interleave")
    if axis is None:
        x = flatten(x)
        axis = 0
    nd = _ndim(x)
    ax = normalize_axis(axis, nd, "repeat_interleave: axis")
    if _is_int(repeats):
        r = int(repeats)
        if r < 0:
            raise ValueError(f"repeat_interleave: repeats must be >= 0, got {r}")
        y = run_op("unsqueeze2", x, None, None, axes=[ax + 1])
        y = run_op("expand_v2", y, None, None, shape=[-1] * (ax + 1) + [r] + [-1] * (nd - ax - 1))
        dims = [0] * ax + [-1] + [0] * (nd - ax - 1)   # 0 copies the leading dims; trailing dims shift by one
        return run_op("reshape2", y, None, None, shape=dims[:ax + 1] + list(x.shape[ax + 1:]))
    if isinstance(repeats, Tensor):
        reps = repeats.numpy().reshape(-1)
    elif isinstance(repeats, (list, tuple, np.ndarray)):
        reps = np.asarray(repeats).reshape(-1)
    else:
        raise TypeError(f"repeat_interleave: repeats must be an int, a list or a 1-D int Tensor, got "
                        f"{type(repeats).__name__}")
    if len(reps) != x.shape[ax]:
        raise ValueError(f"repeat_interleave: repeats has {len(reps)} entries but x's size along axis {ax} is "
                         f"{x.shape[ax]}")
    index = np.repeat(np.arange(len(reps), dtype=np.int64), reps.astype(np.int64))
    return run_op("index_select", x, _const(index), dim=ax)


# -- shape / numel ----------------------------------------------------------------------------------

def shape(input):
    """The shape of ``input`` as a 1-D int64 tensor (readable at run time in static programs).

    Paddle 3.x gives int64 (eager and to_static); the legacy ``shape`` op writes int32, so a cast follows."""
    _check_tensor(input, "shape", "input")
    out = run_op("shape", input)
    return run_op("cast", out, in_dtype=convert_dtype(out.dtype).proto, out_dtype=convert_dtype("int64").proto)


def numel(x, name=None):
    """The number of elements of ``x`` as a 0-D int64 tensor."""
    _check_tensor(x, "numel")
    return run_op("size", x)


# -- gather / scatter -------------------------------------------------------------------------------

squeeze_ = _inplace("squeeze_", squeeze)
unsqueeze_ = _inplace("unsqueeze_", unsqueeze)
flatten_ = _inplace("flatten_", flatten)


def _index_tensor(index, op, what="index"):
    if is_var(index):
        if index.dtype.np.kind not in "iu":
            raise TypeError(f"{op}: {what} must be an int32 or int64 tensor, got {index.dtype}")
        return index
    arr = np.asarray(index)
    if arr.dtype.kind not in "iu":
        if arr.size == 0:
            arr = arr.astype(np.int64)
        else:
            raise TypeError(f"{op}: {what} must hold integers, got {arr.dtype}")
    return _const(arr.astype(np.int64, copy=False))


@tensor_method
def gather(x, index, axis=None, name=None):
    """Rows of ``x`` at ``index`` (1-D or 0-D) along ``axis`` (default 0)."""
    _check_tensor(x, "gather")
    index = _index_tensor(index, "gather")
    if len(index.shape) == 2 and index.shape[1] != 1:
        raise ValueError(f"gather: index must be 1-D (or [N, 1]), got shape {list(index.shape)}")
    if len(index.shape) > 2:
        raise ValueError(f"gather: index must be 0-D or 1-D, got shape {list(index.shape)}")
    ax, ax_t = _axis_arg(0 if axis is None else axis, "gather")
    if ax_t is not None:
        return run_op("gather", x, index, ax_t)
    normalize_axis(ax, _ndim(x), "gather: axis")
    return run_op("gather", x, index, None, axis=ax)


@tensor_method
def gather_nd(x, index, name=None):
    """``x[index[..., 0], index[..., 1], ...]``: the last dim of ``index`` addresses x's leading dims."""
    _check_tensor(x, "gather_nd")
    index = _index_tensor(index, "gather_nd")
    if len(index.shape) == 0 or index.shape[-1] > _ndim(x):
        raise ValueError(f"gather_nd: Input(Index).shape[-1] should be no greater than Input(X).rank: index's "
                         f"last dimension must be at most x's rank {_ndim(x)}, got index of shape "
                         f"{list(index.shape)}")
    return run_op("gather_nd", x, index)


@tensor_method
def index_select(x, index, axis=0, name=None):
    """Entries of ``x`` at 1-D ``index`` along ``axis``."""
    _check_tensor(x, "index_select")
    index = _index_tensor(index, "index_select")
    if len(index.shape) != 1:
        raise ValueError(f"index_select: index must be 1-D, got shape {list(index.shape)}")
    ax, _ = _axis_arg(axis, "index_select")
    normalize_axis(ax, _ndim(x), "index_select: axis")
    return run_op("index_select", x, index, dim=ax)


def _where_operand(v, other):
    if is_var(v):
        return v
    if other is not None and is_var(other):
        return scalar_like(v, other)
    arr = np.asarray(v)
    if arr.dtype == np.float64:
        arr = arr.astype(default_float().np)
    elif arr.dtype.kind in "iu":
        arr = arr.astype(np.int64)
    return arr


@tensor_method
def where(condition, x=None, y=None, name=None):
    """``x`` where ``condition`` holds, else ``y`` (broadcast); with only ``condition``, its nonzero indices."""
    if x is None and y is None:
        from .search import nonzero
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise ValueError("where: x and y must both be given (or both left out to get the nonzero indices)")
    _check_tensor(condition, "where", "condition")
    if condition.dtype.np.kind != "b":
        raise ValueError(f"where: condition must be a bool tensor, got {condition.dtype}")
    if not is_var(x) and not is_var(y):
        both = np.result_type(np.asarray(x), np.asarray(y))
        x = np.asarray(x, dtype=both)
        y = np.asarray(y, dtype=both)
    xv, yv = _where_operand(x, y), _where_operand(y, x)
    xd = xv.dtype.np if is_var(xv) else xv.dtype
    yd = yv.dtype.np if is_var(yv) else yv.dtype
    if xd != yd:
        if xd.kind in "fc" and yd.kind in "fc":
            wide = convert_dtype(np.promote_types(xd, yd))
            xv = cast(xv, wide) if is_var(xv) else xv.astype(wide.np)
            yv = cast(yv, wide) if is_var(yv) else yv.astype(wide.np)
        else:
            raise TypeError(f"where: x and y must have the same dtype (floating dtypes are promoted), got {xd} "
                            f"and {yd}")
    if state.static:
        # Paddle's where op wants equal shapes; broadcast explicitly in programs
        xv, yv = _const(xv) if not is_var(xv) else xv, _const(yv) if not is_var(yv) else yv
        parts = broadcast_tensors([condition, xv, yv])
        return run_op("where", *parts)
    return run_op("where", condition, xv, yv)


@tensor_method
def masked_fill(x, mask, value, name=None):
    """Copy of ``x`` with ``value`` (a number or a 0-D/1-element tensor) where ``mask`` is True."""
    _check_tensor(x, "masked_fill")
    _check_tensor(mask, "masked_fill", "mask")
    if mask.dtype.np.kind != "b":
        raise TypeError(f"masked_fill: mask must be a bool tensor, got {mask.dtype}")
    if is_var(value):
        v = value if value.dtype == x.dtype else cast(value, x.dtype)
    else:
        v = _const(np.asarray(value, dtype=x.dtype.np))
    return where(mask, v, x)   # where() broadcasts in programs: Paddle's where op wants equal shapes


masked_fill_ = _inplace("masked_fill_", masked_fill)


@tensor_method
@param_alias(x="input")
def masked_select(x, mask, name=None):
    """The entries of ``x`` where ``mask`` (bool, broadcast against x) is True, as a 1-D tensor."""
    _check_tensor(x, "masked_select")
    _check_tensor(mask, "masked_select", "mask")
    if mask.dtype.np.kind != "b":
        raise TypeError(f"masked_select: mask must be a bool tensor, got {mask.dtype}")
    broadcast_shapes(tuple(x.shape), tuple(mask.shape))
    return run_op("masked_select", x, mask)


def _updates(updates, x, op):
    if is_var(updates):
        if updates.dtype != x.dtype:
            return cast(updates, x.dtype)
        return updates
    return _const(np.asarray(updates, dtype=x.dtype.np))


@tensor_method
def scatter(x, index, updates, overwrite=True, name=None):
    """Copy of ``x`` with rows ``index`` replaced by (or, ``overwrite=False``, summed from) ``updates``."""
    _check_tensor(x, "scatter")
    return run_op("scatter", x, _index_tensor(index, "scatter"), _updates(updates, x, "scatter"),
                  overwrite=bool(overwrite))


@tensor_method
def scatter_nd_add(x, index, updates, name=None):
    """Copy of ``x`` with ``updates`` added at the positions addressed by ``index`` (like gather_nd).

    ``updates`` must have shape ``index.shape[:-1] + x.shape[index.shape[-1]:]``. As in Paddle, an empty
    x or index takes an index of any dtype (nothing is addressed), and a static-mode updates Variable
    must have x's dtype.
    """
    _check_tensor(x, "scatter_nd_add")
    if is_var(index) and index.dtype.np.kind not in "iu" and (_is_empty(index) or _is_empty(x)):
        index = cast(index, "int64")
    index = _index_tensor(index, "scatter_nd_add")
    if is_var(updates) and not isinstance(updates, Tensor) and updates.dtype != x.dtype:
        raise TypeError(f"scatter_nd_add: updates must have x's dtype {x.dtype.name} in static mode, got "
                        f"{updates.dtype.name}; cast it first")
    if _is_empty(index):                 # nothing addressed: Paddle's kernel adds updates (broadcast) to x
        return run_op("elementwise_add", x, _updates(updates, x, "scatter_nd_add"), axis=-1)
    _check_scatter_nd_shapes(x, index, updates if is_var(updates) else None)
    if _is_empty(x):                     # an empty x: the result is x; updates get zero gradients
        u = _updates(updates, x, "scatter_nd_add")
        return run_op("elementwise_add", x, run_op("reduce_sum", run_op("scale", u, None, scale=0.0, bias=0.0,
                                                                         bias_after_scale=True),
                                                   dim=[], keep_dim=False, reduce_all=True), axis=-1)
    return run_op("scatter_nd_add", x, index, _updates(updates, x, "scatter_nd_add"))


def _is_empty(t):
    """t has a dimension of size 0 (its static shape says so)."""
    return 0 in tuple(t.shape)


def _check_scatter_nd_shapes(x, index, updates):
    """Paddle's scatter_nd_add shape checks (dimensions of -1 are unknown and pass)."""
    x_shape, index_shape = list(x.shape), list(index.shape)
    updates_shape = None if updates is None else list(updates.shape)
    if not index_shape:
        return
    depth = index_shape[-1]
    if depth != -1 and depth > len(x_shape):
        raise ValueError("scatter_nd_add: The last dimension of Input(Index)'s shape should be no greater "
                         f"than the rank of Input(X) ({len(x_shape)}), but received {depth} (index shape "
                         f"{index_shape}, x shape {x_shape})")
    if updates_shape is None or depth == -1:
        return
    want = index_shape[:-1] + x_shape[depth:]
    got = list(updates_shape)
    if len(got) != len(want) or any(a != b and -1 not in (a, b) for a, b in zip(got, want)):
        raise ValueError(f"scatter_nd_add: Updates has wrong shape: expected index.shape[:-1] + "
                         f"x.shape[index.shape[-1]:] = {want}, got {got}")


scatter_ = _inplace("scatter_", scatter)


def scatter_nd(index, updates, shape, name=None):
    """A zero tensor of ``shape`` with ``updates`` summed in at ``index``."""
    from .creation import zeros
    if not is_var(updates):
        updates = _where_operand(updates, None)   # Python floats -> default float, ints -> int64
    base = zeros(shape, dtype=updates.dtype if is_var(updates) else convert_dtype(updates.dtype))
    return scatter_nd_add(base, index, updates)


@tensor_method
def index_sample(x, index):
    """``out[i, j] = x[i, index[i, j]]`` for 2-D ``x`` and ``index``."""
    _check_tensor(x, "index_sample")
    index = _index_tensor(index, "index_sample")
    if _ndim(x) != 2 or len(index.shape) != 2:
        raise ValueError(f"index_sample: x and index must be 2-D, got shapes {x.shape} and {list(index.shape)}")
    return run_op("index_sample", x, index)


def _along_args(arr, indices, axis, broadcast, op):
    _check_tensor(arr, op, "arr")
    indices = _index_tensor(indices, op, "indices")
    nd = _ndim(arr)
    if len(indices.shape) != nd:
        raise ValueError(f"{op}: indices must have the same rank as arr ({nd}), got shape {list(indices.shape)}")
    ax = normalize_axis(int(axis), nd, f"{op}: axis")
    if broadcast:
        # broadcast every dimension but ``axis``, where arr and indices keep their own sizes
        a_s, i_s = list(arr.shape), list(indices.shape)
        target = list(broadcast_shapes(tuple(a_s[:ax] + [1] + a_s[ax + 1:]), tuple(i_s[:ax] + [1] + i_s[ax + 1:])))
        idx_target = target[:ax] + [i_s[ax]] + target[ax + 1:]
        if i_s != idx_target:
            indices = run_op("expand_v2", indices, None, None, shape=idx_target)
        return arr, indices, ax, target
    for i, (a, n) in enumerate(zip(arr.shape, indices.shape)):
        if i != ax and a != -1 and n != -1 and a < n:
            raise RuntimeError(f"{op}: size does not match at dimension {i}: with broadcast=False, indices "
                               f"{list(indices.shape)} must be no larger than arr {list(arr.shape)} apart from "
                               f"dimension {ax}")
    return arr, indices, ax, None


@tensor_method
def take_along_axis(arr, indices, axis, broadcast=True):
    """Values of ``arr`` at ``indices`` along ``axis`` (numpy's take_along_axis)."""
    arr, indices, ax, target = _along_args(arr, indices, axis, broadcast, "take_along_axis")
    if target is not None:
        target[ax] = arr.shape[ax]
        if list(arr.shape) != target:
            arr = run_op("expand_v2", arr, None, None, shape=target)
    else:
        arr = _cut_to_indices(arr, indices, ax)
    return run_op("take_along_axis", arr, indices, Axis=ax)


def _cut_to_indices(arr, indices, ax):
    """broadcast=False: indices may be smaller than arr off ``axis``; only arr's leading part is read."""
    cut = [i for i, (a, n) in enumerate(zip(arr.shape, indices.shape)) if i != ax and -1 not in (a, n) and n < a]
    if cut:
        arr = slice(arr, cut, [0] * len(cut), [indices.shape[i] for i in cut])
    return arr


@tensor_method
def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True, broadcast=True):
    """Copy of ``arr`` with ``values`` put (or added/multiplied) at ``indices`` along ``axis``."""
    arr, indices, ax, _ = _along_args(arr, indices, axis, broadcast, "put_along_axis")
    if reduce not in ("assign", "add", "mul", "multiply"):
        raise ValueError(f"put_along_axis: reduce must be 'assign', 'add' or 'mul', got {reduce!r}")
    values = _updates(values, arr, "put_along_axis")
    if list(values.shape) != list(indices.shape):
        values = run_op("expand_v2", values, None, None, shape=list(indices.shape))
    return run_op("put_along_axis", arr, indices, values, Axis=ax, Reduce=reduce, Include_self=bool(include_self))

