"""Tensor creation: to_tensor, zeros/ones/full(_like), empty(_like), arange, linspace, eye,
assign, clone, tril/triu, diag and meshgrid."""
from __future__ import annotations

import numbers

import numpy as np

from ..dtype import bool_, convert_dtype, default_float, int64, to_np
from ..dispatch import run_op
from ..framework import state
from ..tensor import Parameter, Tensor, tensor_method, _to_array
from ._helpers import is_var
from .arg_checks import ArgumentTypeError, static_check_dtype, static_check_type, to_dtype
from .out_names import name_output
from .param_alias import param_alias

__all__ = ["to_tensor", "zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "empty",
           "empty_like", "arange", "linspace", "eye", "assign", "clone", "tril", "triu", "diag",
           "meshgrid"]


def dtype_code(dtype) -> int:
    """The VarType number of a user dtype (``'float32'``, ``paddle.int64``, ``np.int32`` ...)."""
    return convert_dtype(dtype).proto


def _is_static_var(x) -> bool:
    return is_var(x) and not isinstance(x, Tensor)


def _shape_entry(d):
    """A ShapeTensorList entry as real Paddle's kernels read it: int32 of shape [1] (they concatenate
    the entries, and one int32 entry beside int64 ones fails; x.shape[0] in to_static is a 0-d int32)."""
    if convert_dtype(d.dtype).np != np.int32:
        d = run_op("cast", d, in_dtype=dtype_code(d.dtype), out_dtype=dtype_code("int32"))
    if len(d.shape) != 1:
        d = run_op("reshape2", d, None, None, shape=[1])
    return d


def shape_args(shape, op):
    """Split a user shape into (attr list, ShapeTensor, ShapeTensorList) for shape-taking ops.

    Accepts an int, a list/tuple of ints and 1-element tensors, or a 1-D integer tensor.
    Eager tensors are read now; static Variables become the op's shape tensors.
    """
    if isinstance(shape, Tensor):
        if shape.dtype.np.kind not in "iu":
            raise TypeError(f"{op}: shape tensor must hold integers, got {shape.dtype}")
        shape = [int(v) for v in shape.numpy().reshape(-1)]
    elif _is_static_var(shape):
        static_check_dtype(shape.dtype, "shape", ("int32", "int64"), op)
        n = shape.shape[0] if len(shape.shape) == 1 else -1
        return ([-1] * n if n > 0 else []), shape, None
    if isinstance(shape, (numbers.Integral, np.integer)) and not isinstance(shape, bool):
        shape = [int(shape)]
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"{op}: shape must be a list or tuple of ints or a Tensor, got {type(shape).__name__}")
    dims, dynamic = [], False
    for d in shape:
        if isinstance(d, Tensor):
            if d.size != 1:
                raise ValueError(f"{op}: a shape entry given as a tensor must have one element, got shape {d.shape}")
            dims.append(int(d.item()))
        elif _is_static_var(d):
            static_check_dtype(d.dtype, "element of shape", ("int32", "int64"), op)
            dims.append(d)
            dynamic = True
        elif isinstance(d, (numbers.Integral, np.integer)) and not isinstance(d, bool):
            dims.append(int(d))
        else:
            raise TypeError(f"{op}: shape entries must be ints or integer tensors, got {d!r} in {list(shape)}")
    if dynamic:
        tensors = [_shape_entry(d) if _is_static_var(d) else np.asarray([d], dtype=np.int32) for d in dims]
        return [-1 if _is_static_var(d) else d for d in dims], None, tensors
    bad = [d for d in dims if d < 0]
    if bad and not state.static:
        raise ValueError(f"{op}: shape {dims} has a negative dimension; each dimension of the shape is expected "
                         "to be no less than 0")
    return dims, None, None


def _value_and_str(value, npd):
    """Paddle writes the fill value twice: as a FLOAT attr and as text that keeps int64 precision."""
    if npd.kind in "iu":
        text = str(int(value))
    elif npd.kind == "b":
        text = str(float(bool(value)))
    elif npd.kind == "c":
        return float(complex(value).real), str(complex(value))
    else:
        text = str(float(value))
    return float(value), text


def _scalar_value(v, op, what="fill_value"):
    if isinstance(v, Tensor):
        if v.size != 1:
            raise ValueError(f"{op}: {what} given as a tensor must have one element, got shape {v.shape}")
        return v.item()
    if isinstance(v, np.ndarray):
        return v.item()
    if not isinstance(v, (numbers.Number, np.generic, bool, str)):
        raise TypeError(f"{op}: {what} must be a number or a 1-element tensor, got {type(v).__name__}")
    if isinstance(v, str):
        return float(v)
    return v


_FILL_DTYPES = ("bool", "float16", "float32", "float64", "int8", "uint8", "int16", "int32", "int64", "complex64",
                "complex128")


def _full(shape, value, dtype, op):
    d = to_dtype(dtype, op)
    static_check_dtype(d, "dtype", _FILL_DTYPES, "fill_constant")
    attr, shape_t, shape_list = shape_args(shape, op)
    if _is_static_var(value):
        return run_op("fill_constant", value, shape_t, shape_list, dtype=d.proto, shape=attr)
    v, text = _value_and_str(_scalar_value(value, op), d.np)
    return run_op("fill_constant", None, shape_t, shape_list, dtype=d.proto, shape=attr, value=v,
                  str_value=text)


def full(shape=None, fill_value=None, dtype=None, name=None, *, size=None):
    """A tensor of ``shape`` (alias ``size``) filled with ``fill_value``: bool for a bool value,
    complex128 for a complex one, else the default float dtype unless ``dtype`` says otherwise."""
    if size is not None:
        if shape is not None:
            raise TypeError("full: give the shape once, as shape= or as its alias size=, not both")
        shape = size
    if shape is None or fill_value is None:
        raise TypeError("full() missing required argument: " + ("'shape'" if shape is None else "'fill_value'"))
    if dtype is None:
        if isinstance(fill_value, (bool, np.bool_)):
            dtype = bool_
        elif isinstance(fill_value, (complex, np.complexfloating)):
            dtype = "complex128"
        else:
            dtype = default_float()
    return _full(shape, fill_value, dtype, "full")


def zeros(shape, dtype=None, name=None):
    return _full(shape, 0, dtype if dtype is not None else default_float(), "zeros")


def ones(shape, dtype=None, name=None):
    return _full(shape, 1, dtype if dtype is not None else default_float(), "ones")


def empty(shape, dtype=None, name=None):
    """Like Paddle's ``empty`` the values are unspecified; here they are zeros."""
    return _full(shape, 0, dtype if dtype is not None else default_float(), "empty")


_LIKE_DTYPES = ("bool", "float16", "float32", "float64", "int16", "int32", "int64")


def _like_code(x, dtype):
    """The fill_any_like dtype attr; while building a static Program, Paddle's dtype checks
    (TypeError for e.g. int8) on ``x`` and ``dtype``."""
    if state.static:
        static_check_dtype(x.dtype, "x", _LIKE_DTYPES, "full_like")
        if dtype is not None:
            static_check_dtype(to_dtype(dtype, "full_like"), "dtype", _LIKE_DTYPES, "full_like/zeros_like/ones_like")
    return -1 if dtype is None else to_dtype(dtype, "full_like").proto


@param_alias(x="input")
def full_like(x, fill_value, dtype=None, name=None):
    return run_op("fill_any_like", x, value=float(_scalar_value(fill_value, "full_like")), dtype=_like_code(x, dtype))


def zeros_like(x, dtype=None, name=None):
    return run_op("fill_any_like", x, value=0.0, dtype=_like_code(x, dtype))


def ones_like(x, dtype=None, name=None):
    return run_op("fill_any_like", x, value=1.0, dtype=_like_code(x, dtype))


def empty_like(x, dtype=None, name=None):
    return zeros_like(x, dtype)


# -- to_tensor / assign / clone ------------------------------------------------------------------

def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """Copy ``data`` (number, nested list, ndarray, Tensor) into a new Tensor.

    Python floats become the default float dtype, Python ints int64; ndarrays keep their
    dtype (float64 stays float64).
    """
    if data is None:
        raise TypeError("to_tensor: data must be a number, a (nested) list, an ndarray or a Tensor, got None")
    if isinstance(data, str):
        raise TypeError(f"to_tensor: cannot make a tensor from the string {data!r}")
    if isinstance(data, (dict, set, frozenset)):
        if state.static:    # Paddle's static to_tensor (and so to_static code) says this
            raise RuntimeError(f"Do not support transform type `{type(data)}` to tensor")
        raise TypeError(f"Can't constructs a 'paddle.Tensor' with data type {type(data)}, data type must be "
                        "scalar|list|tuple|np.ndarray|paddle.Tensor")
    if _is_static_var(data):
        out = assign(data)
        if dtype is not None and convert_dtype(dtype).np != np.dtype(data.dtype.np if hasattr(data.dtype, "np")
                                                                             else data.dtype):
            out = run_op("cast", out, in_dtype=dtype_code(data.dtype), out_dtype=dtype_code(dtype))
        out.stop_gradient = stop_gradient
        return out
    if state.static and isinstance(data, (list, tuple)) and _holds_static_var(data):
        # Paddle's static to_tensor: a list that holds program values becomes the stack of its elements,
        # each converted the same way ([x, y, 3, 4] with 0-D x, y -> shape [4])
        from .manipulation import stack
        out = stack([to_tensor(d, dtype, place, stop_gradient) for d in data])
        out.stop_gradient = stop_gradient
        return out
    if isinstance(data, Tensor):
        arr = np.array(data._data, copy=True)
        if dtype is not None:
            arr = arr.astype(to_np(dtype), copy=False)
    elif isinstance(data, np.ndarray):
        if data.dtype.kind in "USO":
            raise TypeError(f"to_tensor: cannot make a tensor from a numpy array of dtype {data.dtype}")
        arr = np.array(data, dtype=None if dtype is None else to_np(dtype), copy=True)
    else:
        arr = _to_array(data, dtype)
        if arr is data:
            arr = arr.copy()
    if state.static:
        out = _assign_array(arr)
        out.stop_gradient = stop_gradient
        return out
    return Tensor._wrap(arr, stop_gradient)


def _holds_static_var(data):
    return any(_is_static_var(d) or (isinstance(d, (list, tuple)) and _holds_static_var(d)) for d in data)


def _assign_array(arr):
    d = convert_dtype(arr.dtype)
    if not state.static:
        return run_op("assign", arr)
    if d.np.kind == "b":
        values = [bool(v) for v in arr.reshape(-1)]
    elif d.np.kind in "iu":
        values = [int(v) for v in arr.reshape(-1)]
    else:
        values = [float(v) for v in arr.reshape(-1)]
    return run_op("assign_value", None, shape=list(arr.shape), dtype=d.proto, values=values)


def assign(x, output=None):
    """Copy ``x`` (Tensor, ndarray, list or number) into a new tensor, or into ``output``."""
    if is_var(x):
        result = run_op("assign", x)
    else:
        if isinstance(x, (list, tuple)) and any(is_var(v) for v in x):
            raise TypeError("assign: a list that holds tensors is not supported; use paddle.stack")
        if isinstance(x, (bool, numbers.Number, np.generic)) and not isinstance(x, np.ndarray):
            arr = np.array([x])
        else:
            arr = np.array(x)
        if arr.dtype.kind in "USO":
            raise TypeError(f"assign: cannot assign data of type {type(x).__name__} ({arr.dtype})")
        result = _assign_array(arr)
    if output is None:
        return result
    if isinstance(output, Tensor) and isinstance(result, Tensor):
        _become(output, result)
        return output
    raise NotImplementedError("assign(x, output=...) into a static Variable is not supported; "
                              "use the returned value")


def _become(output, result):
    """Make ``output`` hold ``result`` (Paddle's ``assign(x, output)``): its data, shape and dtype
    are replaced, and, unless it is a Parameter (which stays a leaf), its place in the graph."""
    output._data = result._data
    output._version = output.inplace_version + 1     # Paddle: assign into output is an in-place update
    if isinstance(output, Parameter) or result.stop_gradient:
        return
    output.stop_gradient = False
    output._node = result._node
    output._out_idx = result._out_idx


def clone(x, name=None):
    return run_op("assign", x)


# -- ranges --------------------------------------------------------------------------------------

def _range_value(v, what):
    if isinstance(v, Tensor):
        if v.size != 1:
            raise ValueError(f"arange: {what} must have one element, got shape {v.shape}")
        return v.item()
    return v


def _is_float_arg(v):
    if is_var(v):
        return v.dtype.np.kind == "f" if hasattr(v.dtype, "np") else np.dtype(v.dtype).kind == "f"
    return isinstance(v, (float, np.floating))


def arange(start=0, end=None, step=1, dtype=None, name=None):
    """Values from ``start`` (inclusive) to ``end`` (exclusive) by ``step``: int64 for integer
    arguments, the default float dtype when any argument is a float."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        dtype = default_float() if any(_is_float_arg(v) for v in (start, end, step)) else int64
    d = to_dtype(dtype, "arange")
    static_check_dtype(d, "dtype", ("float32", "float64", "int32", "int64", "float16"), "range/arange")
    ins = []
    for v, what in ((start, "start"), (end, "end"), (step, "step")):
        if _is_static_var(v):
            if (v.dtype.np if hasattr(v.dtype, "np") else np.dtype(v.dtype)) != d.np:
                v = run_op("cast", v, in_dtype=dtype_code(v.dtype), out_dtype=d.proto)
            ins.append(v)
        else:
            ins.append(np.asarray(_range_value(v, what), dtype=d.np))
    if not _is_static_var(step) and np.asarray(ins[2]) == 0:
        raise ValueError("arange: step must not be 0")
    out = run_op("range", *ins)
    if state.static and not any(_is_static_var(v) for v in (start, end, step)):
        # constant arguments: the length is known while building, as Paddle records it
        out._set_meta([_range_length(start, end, step)], d.np)
    return out


def _range_length(start, end, step):
    """ceil((end - start) / step), exact for integers (Python ints do not round)."""
    vals = [_range_value(v, w) for v, w in ((start, "start"), (end, "end"), (step, "step"))]
    if all(isinstance(v, (numbers.Integral, np.integer)) for v in vals):
        s, e, st = (int(v) for v in vals)
        return max(0, -((s - e) // st))
    return max(0, int(np.ceil((float(vals[1]) - float(vals[0])) / float(vals[2]))))


@param_alias(stop="end", num="steps")
def linspace(start, stop, num, dtype=None, name=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` (both included)."""
    d = to_dtype(dtype, "linspace") if dtype is not None else default_float()
    if state.static:
        if not _is_static_var(num):
            static_check_type(num, "num", int, "linspace")
        for v, what in ((start, "start"), (stop, "stop")):
            if _is_static_var(v):
                static_check_dtype(v.dtype, what, ("float16", "float32", "float64", "int32", "int64"), "linspace")
            else:
                static_check_type(v, what, (int, float), "linspace")
        if _is_static_var(num):
            static_check_dtype(num.dtype, "num", ("int32",), "linspace")
        static_check_dtype(d, "dtype", ("float16", "float32", "float64", "int32", "int64"), "linspace")
        ends = {to_dtype(v.dtype, "linspace").name for v in (start, stop) if _is_static_var(v)}
        if ("float64" in ends and d.name in ("float32", "int32")) or ("int64" in ends and d.name == "int32"):
            raise ValueError(f"The dtype of start/stop is {'/'.join(sorted(ends))} but the attr(dtype) of linspace is "
                             f"{d.name}, which may cause data type overflows. Please reset attr(dtype) of linspace.")

    def arg(v, what, npd):
        if _is_static_var(v):
            return v
        v = _range_value(v, what)
        return np.asarray(v, dtype=npd)
    n = arg(num, "num", np.int32)
    if not _is_static_var(num) and int(n) <= 0:
        raise ValueError(f"linspace: num must be a positive integer, got {int(n)}")
    out = run_op("linspace", arg(start, "start", np.float64), arg(stop, "stop", np.float64), n, dtype=d.proto)
    return name_output(out, name)


@param_alias(num_rows="n", num_columns="m")
def eye(num_rows, num_columns=None, dtype=None, name=None):
    """A 2-D tensor with ones on the diagonal."""
    rows = _eye_size(num_rows, "num_rows")
    cols = rows if num_columns is None else _eye_size(num_columns, "num_columns")
    d = to_dtype(dtype, "eye") if dtype is not None else default_float()
    static_check_dtype(d, "dtype", ("float16", "float32", "float64", "int32", "int64", "complex64", "complex128"),
                       "eye")
    return run_op("eye", num_rows=rows, num_columns=cols, dtype=d.proto)


def _eye_size(v, what):
    """A non-negative int (or a one-element tensor holding one); anything else is Paddle's TypeError."""
    if isinstance(v, Tensor):
        v = _range_value(v, what)
    if isinstance(v, bool) or not isinstance(v, (numbers.Integral, np.integer)) or v < 0:
        raise ArgumentTypeError(f"eye: {what} should be a non-negative int, got {v!r}")
    return int(v)


# -- triangular parts, diagonals, grids ----------------------------------------------------------

@tensor_method
def tril(x, diagonal=0, name=None):
    """The lower triangle of the last two dimensions (entries above ``diagonal`` zeroed)."""
    if len(x.shape) < 2:
        raise ValueError(f"tril: x must have at least 2 dimensions, got shape {list(x.shape)}")
    return run_op("tril_triu", x, diagonal=int(diagonal), lower=True)


@tensor_method
def triu(x, diagonal=0, name=None):
    if len(x.shape) < 2:
        raise ValueError(f"triu: x must have at least 2 dimensions, got shape {list(x.shape)}")
    return run_op("tril_triu", x, diagonal=int(diagonal), lower=False)


@tensor_method
def diag(x, offset=0, padding_value=0, name=None):
    """1-D x: a square matrix with x on diagonal ``offset``; 2-D x: that diagonal."""
    if state.static:    # Paddle's checks while building a static Program
        if not _is_static_var(x):
            raise ArgumentTypeError(f"The type of 'x' in diag_v2 must be a Variable, but received {type(x)}.")
        static_check_dtype(x.dtype, "x", ("float16", "float32", "float64", "int32", "int64", "complex64",
                                          "complex128"), "diag_v2")
        static_check_type(offset, "offset", int, "diag_v2")
        static_check_type(padding_value, "padding_value", (int, float), "diag_v2")
    if len(x.shape) > 2:
        raise ValueError(f"diag: x must be 0-D, 1-D or 2-D, got shape {list(x.shape)}")
    return run_op("diag_v2", x, offset=int(offset), padding_value=float(padding_value))


def meshgrid(*args, **kwargs):
    """Grids from 1-D tensors (``indexing='ij'``): output ``i`` varies along dimension ``i``."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    if not args:
        raise ValueError("meshgrid: expected at least one tensor")
    for i, a in enumerate(args):
        if len(a.shape) > 1:
            raise ValueError(f"meshgrid: every input must be 0-D or 1-D, input {i} has shape {list(a.shape)}")
    sizes = [a.shape[0] if len(a.shape) == 1 else 1 for a in args]
    outs = []
    for i, a in enumerate(args):
        view = [1] * len(args)
        view[i] = sizes[i]
        r = run_op("reshape2", a, None, None, shape=view)
        outs.append(run_op("expand_v2", r, None, None, shape=list(sizes)))
    return outs
