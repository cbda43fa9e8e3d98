"""Tensor methods and properties of Paddle 3.3 beyond the functional API: new_* constructors, fill_ /
zero_ / fill_diagonal_, torch-style repeat, requires_grad, dtype casts (x.int8(), x.cfloat() ...),
memory-layout queries (strides, offset, itemsize), place queries, set_/resize_, apply/apply_, the
data property, and the functional names Paddle also attaches as methods (concat, stack, scatter_nd ...)."""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..autograd import freeze_inputs
from ..dispatch import run_op
from ..tensor import Tensor, TensorMethods, tensor_method
from ._helpers import is_var
from .creation import empty, full
from .manipulation import (_rebind, broadcast_shape, broadcast_tensors, cast, check_inplace, concat,
                           scatter_nd, stack, tile)
from . import manipulation_extra as _mx
from .manipulation_extra import as_strided
from .attribute_extra import softmax
from ..tensor import is_tensor

__all__: list = []   # methods only


def _size_args(size, op):
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = size[0]
    out = []
    for s in size:
        if isinstance(s, Tensor) and s.size == 1:
            s = s.item()
        if not isinstance(s, (numbers.Integral, np.integer)) or isinstance(s, bool):
            raise TypeError(f"{op}: size entries must be ints, got {s!r}")
        out.append(int(s))
    return out


def _made(t, requires_grad):
    t.stop_gradient = not requires_grad
    return t


# -- new_* ---------------------------------------------------------------------------------------

@tensor_method
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor of ``size`` filled with ``fill_value`` (this tensor's dtype unless given)."""
    return _made(full(_size_args([size], "new_full"), fill_value, dtype if dtype is not None else self.dtype),
                 requires_grad)


def _new_filled(value, name):
    def method(self, *size, dtype=None, device=None, requires_grad=False, pin_memory=False):
        shape = _size_args(size, name)
        return _made(full(shape, value, dtype if dtype is not None else self.dtype), requires_grad)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"A new tensor of ``size`` filled with {value} (this tensor's dtype unless given)."
    return tensor_method(method)


new_zeros = _new_filled(0, "new_zeros")
new_ones = _new_filled(1, "new_ones")


@tensor_method
def new_empty(self, *size, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor of ``size`` (values unspecified; zeros here), this tensor's dtype unless given."""
    return _made(empty(_size_args(size, "new_empty"), dtype if dtype is not None else self.dtype), requires_grad)


# -- in-place fills ------------------------------------------------------------------------------

@tensor_method
def fill_(x, value):
    """Set every element of ``x`` to ``value`` in place (the old values get a zero gradient)."""
    if not isinstance(value, (float, int)):
        raise TypeError(f"The type of 'value'  must be int or float, but received {type(value)}.")
    check_inplace(x, "fill_")
    return _rebind(x, run_op("fill_any", x, value=float(value)))


@tensor_method
def zero_(x):
    """Set every element of ``x`` to 0 in place."""
    return fill_(x, 0.0)


@tensor_method
def fill_diagonal_(x, value, offset=0, wrap=False, name=None):
    """Write ``value`` on the main diagonal (shifted by ``offset``) of ``x`` in place; a tall 2-D matrix
    restarts the diagonal below it when ``wrap`` is True (tensors of more than 2 dims always wrap)."""
    if len(x.shape) < 2:
        raise ValueError(f"fill_diagonal_: x must have at least 2 dims, got shape {list(x.shape)}")
    check_inplace(x, "fill_diagonal_")
    return _rebind(x, run_op("fill_diagonal", x, value=float(value), offset=int(offset),
                             wrap=bool(wrap) or len(x.shape) > 2))


# -- torch-style conveniences --------------------------------------------------------------------

@tensor_method
def repeat(input, *repeats):
    """Tile ``input``: ``repeats[i]`` copies along dim i (more entries than dims add leading dims)."""
    if len(repeats) == 1 and (isinstance(repeats[0], (list, tuple)) or is_var(repeats[0])):
        repeats = repeats[0]
    return tile(input, list(repeats) if isinstance(repeats, tuple) else repeats)


def _requires_grad_get(self):
    return not self.stop_gradient


def _requires_grad_set(self, value):
    if not isinstance(value, bool):
        raise TypeError(f"requires_grad must be bool, but got {type(value)}")
    self.stop_gradient = not value


@tensor_method
def requires_grad_(self, requires_grad=True):
    """Set ``stop_gradient = not requires_grad`` and return the tensor."""
    _requires_grad_set(self, requires_grad)
    return self


@tensor_method
def retain_grads(self):
    """Keep ``.grad`` of this non-leaf tensor after backward (a hook that stores the gradient)."""
    if not isinstance(self, Tensor):
        raise NotImplementedError("retain_grads works on eager tensors only")
    if self.stop_gradient or self._node is None:
        return None

    def keep(g):
        self._grad = g if self._grad is None else self._grad + g
        return g
    self.register_hook(keep)
    return None


@tensor_method
def is_same_shape(self, y):
    """True when ``y`` has this tensor's shape."""
    if not is_var(y):
        raise TypeError(f"is_same_shape: y must be a Tensor, got {type(y).__name__}")
    return list(self.shape) == list(y.shape)


# -- dtype casts ---------------------------------------------------------------------------------

def _caster(method_name, dtype):
    def method(self):
        return cast(self, dtype)
    method.__name__ = method.__qualname__ = method_name
    method.__doc__ = f"``self`` cast to {dtype}."
    return tensor_method(method)


for _m, _d in (("float16", "float16"), ("float32", "float32"), ("float64", "float64"), ("int8", "int8"),
               ("int16", "int16"), ("int32", "int32"), ("int64", "int64"), ("uint8", "uint8"),
               ("bfloat16", "bfloat16"), ("complex64", "complex64"), ("complex128", "complex128"),
               ("char", "int8"), ("cfloat", "complex64"), ("cdouble", "complex128")):
    _caster(_m, _d)


# -- layout / place queries ----------------------------------------------------------------------

def _strides(self):
    shape = [int(d) for d in self.shape]
    return [math.prod(shape[i + 1:]) for i in range(len(shape))]


@tensor_method
def stride(self, dim=None):
    """Element strides of this (always contiguous) tensor, or the stride of ``dim``."""
    s = _strides(self)
    if dim is None:
        return s
    n = len(s)
    if not -n <= int(dim) < n:
        raise IndexError(f"stride: dim {dim} is out of range for a tensor of {n} dims")
    return s[int(dim)]


@tensor_method
def get_strides(self):
    """Element strides (our tensors are contiguous: row-major)."""
    return _strides(self)


@tensor_method
def get_device(self):
    """-1: every tensor lives on the CPU. A static variable (inside to_static or static mode) has no
    device: None with a warning, as Paddle's program values."""
    if _is_static_variable(self):
        import warnings
        warnings.warn("Tensor do not have 'get_device' interface for pir graph mode, try not to use it. "
                      "None will be returned.", stacklevel=2)
        return None
    return -1


def _is_static_variable(x):
    from ..static.program import Variable
    return isinstance(x, Variable)


# Tensor defines cpu/cuda/contiguous/is_contiguous itself; these serve static variables (to_static code and
# static mode), where Paddle's program values have them too.
@tensor_method
def cpu(self):
    """The tensor itself: every tensor lives on the CPU (Paddle copies a program value to the CPU place)."""
    return self


@tensor_method
def cuda(self, device_id=None, blocking=True):
    """There is no CUDA device: RuntimeError, in static code as in eager."""
    raise RuntimeError("dy2st runs on the CPU only; there is no CUDA device")


def _static_place(self):
    """Where a static variable's value will live when its Program runs: the CPU, the only device."""
    from ..device import CPUPlace
    return CPUPlace()


# Tensor has its own ``place``; this one serves static variables (``y.to(device=x.place)`` in to_static code)
TensorMethods.place = property(_static_place)


@tensor_method
def contiguous(self):
    """The tensor itself (storage is always contiguous here); a static variable warns, as in Paddle."""
    if _is_static_variable(self):
        import warnings
        warnings.warn("Tensor do not have 'contiguous' interface for static graph mode, try not to use it. "
                      "self will be returned.", stacklevel=2)
    return self


@tensor_method
def is_contiguous(self):
    """True (storage is always contiguous here); a static variable warns, as in Paddle."""
    if _is_static_variable(self):
        import warnings
        warnings.warn("Tensor do not have 'is_contiguous' interface for static graph mode, try not to use it. "
                      "True will be returned.", stacklevel=2)
    return True


@tensor_method
def is_dense(self):
    return True


@tensor_method
def is_dist(self):
    return False


@tensor_method
def is_sparse(self):
    return False


@tensor_method
def is_sparse_coo(self):
    return False


@tensor_method
def is_sparse_csr(self):
    return False


@tensor_method
def set_(x, source=None, shape=None, stride=None, offset=0, name=None):
    """Make ``x`` hold ``source``'s elements viewed with ``shape``/``stride`` (elements) and ``offset``
    (bytes), as Paddle counts them (a copy here). With no source, ``x`` becomes an empty tensor."""
    if not isinstance(x, Tensor):
        raise NotImplementedError("set_ works on eager tensors only")
    if x.is_leaf and not x.stop_gradient:
        raise ValueError(f"(InvalidArgument) Leaf Tensor {x.name} that doesn't stop gradient can't use "
                         "inplace strategy.")
    if source is None:
        arr = np.zeros((0,), x._data.dtype)
    else:
        if not isinstance(source, Tensor):
            raise ValueError(f"Input (source) should be paddle.Tensor but received {type(source)}")
        shape = list(source.shape) if shape is None else [int(s) for s in shape]
        stride = _strides(Tensor(np.zeros(shape))) if stride is None else [int(s) for s in stride]
        arr = as_strided(source.detach(), shape, stride, int(offset))._data
    freeze_inputs(x)
    x._data = np.ascontiguousarray(arr)
    x._node = None
    return x


@tensor_method
def resize_(x, shape, fill_zero=False, name=None):
    """Give ``x`` ``shape`` in place, keeping its leading elements in order; a larger size needs
    ``fill_zero=True`` (the new elements are 0)."""
    if not isinstance(shape, (list, tuple)):
        raise ValueError(f"Input (shape) should be list or tuple but received {type(shape)}")
    new, old = math.prod(int(s) for s in shape), math.prod(int(s) for s in x.shape)
    flat = x.detach().numpy().reshape(-1)
    if new > old:
        if not fill_zero:
            raise ValueError(f"resize_: the new shape {list(shape)} holds {new} elements, more than x's {old}; "
                             "pass fill_zero=True to pad with zeros")
        flat = np.concatenate([flat, np.zeros(new - old, flat.dtype)])
    src = Tensor(np.ascontiguousarray(flat))
    return set_(x, src, [int(s) for s in shape])


@tensor_method
def apply(self, func):
    """``func(self)`` for a tensor that does not require gradients."""
    if not self.stop_gradient:
        raise RuntimeError("Cannot apply function on a tensor that required gradient.")
    return func(self)


@tensor_method
def apply_(self, func):
    """``self`` takes the value of ``func(self)`` in place (no gradients)."""
    if not self.stop_gradient:
        raise RuntimeError("Cannot apply function on a tensor that required gradient.")
    out = func(self)
    if not isinstance(out, Tensor) or list(out.shape) != list(self.shape):
        raise ValueError("apply_: func must return a tensor of the input's shape")
    self._data = np.array(out._data, dtype=self._data.dtype, copy=True)
    return self


# -- properties (eager Tensor only: static Variables keep their own attributes) -------------------

def _data_get(self):
    out = Tensor._wrap(self._data, True)
    return out


def _dense_tensor_type():
    from ..static.program import VarType   # late: static imports the api package
    return VarType.DENSE_TENSOR


def _data_set(self, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"Tensor.data can only be set to a Tensor, got {type(value).__name__}")
    self._data = np.array(value._data, copy=True)


_PROPERTIES = {
    "requires_grad": property(_requires_grad_get, _requires_grad_set, doc="``not stop_gradient``"),
    "strides": property(_strides, doc="element strides (row-major)"),
    "offset": property(lambda self: 0, doc="element offset into the storage (always 0 here)"),
    "itemsize": property(lambda self: self.element_size(), doc="bytes per element"),
    "layout": property(lambda self: "NCHW", doc="the data layout Paddle reports for dense tensors"),
    "is_cuda": property(lambda self: False, doc="False: tensors live on the CPU"),
    "device": property(lambda self: "cpu", doc="'cpu'"),
    "grad_fn": property(lambda self: self._node, doc="the autograd node that made this tensor (None for leaves)"),
    "data": property(_data_get, _data_set, doc="this tensor's value without its autograd history; settable"),
    "type": property(lambda self: _dense_tensor_type(), doc="the variable type: VarType.DENSE_TENSOR"),
}
for _name, _prop in _PROPERTIES.items():
    setattr(Tensor, _name, _prop)



@tensor_method
def gradient(self):
    """The accumulated gradient as a numpy array (None before backward); Paddle's older spelling of
    ``x.grad.numpy()``."""
    g = self.grad
    return None if g is None else g.numpy()


# functional names Paddle also attaches as Tensor methods
for _f in (concat, stack, broadcast_shape, broadcast_tensors, scatter_nd, softmax, is_tensor, _mx.broadcast_shapes,
           _mx.atleast_1d, _mx.atleast_2d,
           _mx.atleast_3d, _mx.block_diag, _mx.multiplex, _mx.polar, _mx.diagonal_scatter, _mx.select_scatter,
           _mx.slice_scatter):
    tensor_method(_f)
del _m, _d, _name, _prop, _f
