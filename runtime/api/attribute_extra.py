"""Paddle's top-level attribute and creation names: dtype aliases (double, half, cfloat ...), finfo and
iinfo, constants (pi, e, inf, nan, newaxis), Size, the legacy ``*Tensor`` constructors, range,
as_tensor/asarray, tolist, is_floating_point/is_integer, check_shape and the functional aliases Paddle
re-exports at top level (conv1d, layer_norm, softmax ...)."""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import dtype as _dt
from ..framework import state
# Paddle re-exports these nn.functional names at top level (runtime imports this module after nn)
from ..nn.functional import (conv1d, conv2d, conv3d, layer_norm, group_norm,  # noqa: F401
                             adaptive_avg_pool1d, softmax as _nn_softmax)
from ..tensor import Tensor
from ._helpers import is_var
from .creation import empty, to_tensor
from .param_alias import param_alias

__all__ = ["double", "float", "half", "cfloat", "cdouble", "bfloat16", "uint16", "uint32", "uint64",
           "float8_e4m3fn", "float8_e5m2", "finfo", "iinfo", "pi", "e", "inf", "nan", "newaxis", "Size",
           "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor",
           "ShortTensor", "IntTensor", "LongTensor", "BoolTensor", "range", "as_tensor", "asarray", "tolist",
           "is_floating_point", "is_integer", "check_shape", "conv1d", "conv2d", "conv3d", "layer_norm",
           "group_norm", "adaptive_avg_pool1d", "softmax"]

# -- names -----------------------------------------------------------------------------------------

builtins_float = float   # the builtin; this module's `float` is Paddle's dtype name below
double, float, half = _dt.float64, _dt.float32, _dt.float16   # noqa: A001  (Paddle's spellings)
cfloat, cdouble = _dt.complex64, _dt.complex128
bfloat16, float8_e4m3fn, float8_e5m2 = _dt.bfloat16, _dt.float8_e4m3fn, _dt.float8_e5m2
uint16, uint32, uint64 = _dt.uint16, _dt.uint32, _dt.uint64

newaxis = None
inf, nan, pi, e = math.inf, math.nan, math.pi, math.e


def _g(v):
    return f"{v:g}"


class finfo:
    """Machine limits of a floating-point dtype: bits, eps, min, max, tiny (= smallest_normal), resolution."""

    # bfloat16 has no numpy type: its limits by hand (8 exponent bits, 7 mantissa bits)
    _BF16 = dict(bits=16, eps=2.0 ** -7, max=3.3895313892515355e38, tiny=2.0 ** -126, resolution=0.01)

    def __init__(self, dtype):
        name = getattr(dtype, "name", None) if isinstance(dtype, _dt.DType) else None
        if name is None and isinstance(dtype, str):
            name = dtype[7:] if dtype.startswith("paddle.") else dtype
        if name == "bfloat16":
            v = self._BF16
            self.bits, self.eps, self.max, self.tiny, self.resolution = (v["bits"], v["eps"], v["max"], v["tiny"],
                                                                         v["resolution"])
            self.dtype = "bfloat16"
        else:
            d = _dt.convert_dtype(dtype)
            if d.np.kind not in "fc":
                raise ValueError(f"finfo: dtype must be a floating-point or complex dtype, got {d.name}")
            info = np.finfo(d.np)
            self.bits, self.eps, self.max = int(info.bits), builtins_float(info.eps), builtins_float(info.max)
            self.tiny, self.resolution = builtins_float(info.tiny), builtins_float(info.resolution)
            self.dtype = np.dtype(info.dtype).name
        self.min = -self.max
        self.smallest_normal = self.tiny

    def __repr__(self):
        return (f"paddle.finfo(min={_g(self.min)}, max={_g(self.max)}, eps={_g(self.eps)}, resolution="
                f"{_g(self.resolution)}, smallest_normal={_g(self.smallest_normal)}, tiny={_g(self.tiny)}, "
                f"bits={self.bits}, dtype={self.dtype})")

    __str__ = __repr__


class iinfo:
    """Limits of an integer dtype: bits, min, max."""

    def __init__(self, dtype):
        d = _dt.convert_dtype(dtype)
        if d.np.kind not in "iu":
            raise ValueError(f"iinfo: dtype must be an integer dtype, got {d.name}")
        info = np.iinfo(d.np)
        self.bits, self.min, self.max, self.dtype = int(info.bits), int(info.min), int(info.max), d.name

    def __repr__(self):
        return f"paddle.iinfo(min={self.min}, max={self.max}, bits={self.bits}, dtype={self.dtype})"

    __str__ = __repr__




from ..tensor import Size  # noqa: E402,F401  (the type of Tensor.shape; defined with Tensor)



# -- constructors ----------------------------------------------------------------------------------

def _factory(dtype_name):
    def __new__(cls, *args, **kwargs):
        if not args:
            return empty([0], dtype=dtype_name)
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            return to_tensor(args[0], dtype=dtype_name)
        if all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args):
            return empty(list(args), dtype=dtype_name)
        kwargs.setdefault("dtype", dtype_name)
        return Tensor(*args, **kwargs)
    doc = f"Legacy constructor of {dtype_name} tensors: (), (list), (*sizes) or Tensor's arguments."
    return type(f"{dtype_name.capitalize()}TensorFactory", (), {"__new__": __new__, "__doc__": doc})


FloatTensor, DoubleTensor, HalfTensor = _factory("float32"), _factory("float64"), _factory("float16")
BFloat16Tensor, ByteTensor, CharTensor = _factory("bfloat16"), _factory("uint8"), _factory("int8")
ShortTensor, IntTensor, LongTensor, BoolTensor = (_factory("int16"), _factory("int32"), _factory("int64"),
                                                  _factory("bool"))


def range(start=0, end=None, step=1, dtype=None, *, out=None, device=None, requires_grad=False, name=None):
    """Values from ``start`` to ``end`` INCLUSIVE every ``step`` (Paddle's deprecated torch-style range;
    `arange` excludes the end). The dtype defaults to the default float dtype."""
    if end is None:
        start, end = 0, start
    d = _dt.convert_dtype(dtype if dtype is not None else _dt.get_default_dtype())
    vals = []
    for v, what in ((start, "start"), (end, "end"), (step, "step")):
        if is_var(v):
            if not isinstance(v, Tensor):
                raise NotImplementedError("range: static Variable bounds are not supported; use paddle.arange")
            v = v.item()
        vals.append(np.asarray(v).astype(d.np).item())
    s, t, p = vals
    if p == 0:
        raise ValueError("range: step must be nonzero")
    n = int(math.floor((t - s) / p)) + 1 if (t - s) * p >= 0 else 0
    res = to_tensor((s + np.arange(max(n, 0)) * p).astype(d.np), dtype=d)
    res.stop_gradient = not requires_grad
    if out is not None:
        from .creation import assign
        assign(res, out)
    return res


def as_tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor from ``data`` (always a copy), with ``stop_gradient = not requires_grad``."""
    t = to_tensor(data, dtype=dtype)
    t.stop_gradient = not requires_grad
    return t


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """`as_tensor` with numpy's argument names."""
    return as_tensor(obj, dtype=dtype, device=device, requires_grad=requires_grad)


def tolist(x):
    """``x``'s values as nested Python lists."""
    if not isinstance(x, Tensor):
        raise TypeError(f"tolist: x must be a Tensor, got {type(x).__name__}")
    return x.tolist()


def _check_tensor(x, op):
    if not is_var(x):
        raise TypeError(f"Expected Tensor, but received type of x: {type(x)}")


@param_alias(x="input")
def is_floating_point(x):
    """True when ``x`` has a floating-point dtype (float16/32/64)."""
    _check_tensor(x, "is_floating_point")
    return x.dtype.np.kind == "f"


def is_integer(x):
    """True when ``x`` has an integer dtype (u)int8/16/32/64."""
    _check_tensor(x, "is_integer")
    return x.dtype.np.kind in "iu"


def check_shape(shape, op_name, expected_shape_type=(list, tuple), expected_element_type=(int,),
                expected_tensor_dtype=("int32", "int64")):
    """Check a ``shape`` argument of ``op_name`` (static mode only, as in Paddle): a list/tuple of ints or
    integer tensors, or an integer tensor. Raises TypeError naming the offender."""
    if not state.static:
        return
    if is_var(shape):
        if shape.dtype.name not in expected_tensor_dtype:
            raise TypeError(f"The data type of 'shape' in {op_name} must be {list(expected_tensor_dtype)}, "
                            f"but received {shape.dtype.name}.")
        return
    if not isinstance(shape, tuple(expected_shape_type)):
        raise TypeError(f"The type of 'shape' in {op_name} must be {expected_shape_type}, but received "
                        f"{type(shape)}.")
    for item in shape:
        if is_var(item):
            if expected_tensor_dtype is not None and item.dtype.name not in expected_tensor_dtype:
                raise TypeError(f"The data type of 'element of shape' in {op_name} must be "
                                f"{list(expected_tensor_dtype)}, but received {item.dtype.name}.")
        elif expected_element_type is not None and not isinstance(item, tuple(expected_element_type)):
            raise TypeError(f"The type of 'element of shape' in {op_name} must be {expected_element_type}, "
                            f"but received {type(item)}.")


# -- functional aliases Paddle exposes at top level --------------------------------------------------

def softmax(input, dim=None, dtype=None, *, out=None):
    """Torch-style softmax over ``dim`` (default: 0 for 0-, 1- and 3-D inputs, else 1)."""
    if dim is None:
        dim = 0 if len(input.shape) in (0, 1, 3) else 1
    return _nn_softmax(input, axis=dim, dtype=dtype, out=out)
