"""Tensor (an `np.ndarray` plus autograd state), Parameter, and Paddle-style printing.

Operators and the many methods that mirror the functional API (``x.reshape``,
``x.sum`` ...) are attached to `TensorMethods` by the API modules with
`tensor_method`, so that static-mode Variables, which inherit the same mixin, get
them too.
"""
from __future__ import annotations

import itertools

import numpy as np

from . import dtype as _dt
from .framework import state

_tensor_ids = itertools.count()


class TensorMethods:
    """Mixin holding every method shared by eager Tensors and static Variables."""
    __slots__ = ()

    def numel(self):
        """The element count as a 0-D int64 tensor (a ``size`` op, so it also works in programs)."""
        from .dispatch import run_op
        return run_op("size", self)

    @property
    def T(self):
        from .dispatch import run_op
        return run_op("transpose2", self, axis=list(range(self.ndim))[::-1])

    def ndimension(self):
        return self.ndim

    def is_floating_point(self):
        return self.dtype.np.kind == "f"

    def is_integer(self):
        return self.dtype.np.kind in "iu"

    def element_size(self):
        return self.dtype.np.itemsize

    def to(self, *args, **kwargs):
        """``x.to(dtype)``, ``x.to(device[, dtype])``, ``x.to(other_tensor)`` (each with an optional
        ``blocking``; ``copy=True`` always returns a new tensor): a cast to the dtype asked for. The only
        device is the CPU, so a device argument other than the CPU (or None) raises."""
        from .device import CPUPlace
        kwargs.pop("non_blocking", None)
        copy = bool(kwargs.pop("copy", False))
        unknown = set(kwargs) - {"device", "dtype", "blocking", "other"}
        if unknown:
            raise TypeError(f"to() got an unexpected keyword argument '{sorted(unknown)[0]}'")
        if not 0 < len(args) + len(kwargs) <= 3:
            raise TypeError("to() takes (device, dtype, blocking), (dtype, blocking) or (other_tensor, blocking); "
                            f"got {len(args) + len(kwargs)} arguments")
        device = kwargs.get("device")
        dtype = kwargs.get("dtype")
        other = kwargs.get("other")
        if args:
            first = args[0]
            if isinstance(first, TensorMethods):
                other = first
            elif _is_dtype_arg(first):
                dtype = first
            else:
                device = first
                if len(args) > 1 and not isinstance(args[1], bool):
                    dtype = args[1]
        if other is not None:
            dtype = other.dtype
        if device is not None and not isinstance(device, CPUPlace):
            dev = str(device).lower()
            if not (dev == "cpu" or dev.startswith("cpu:") or dev == "place(cpu)"):
                raise RuntimeError(f"to({device!r}): dy2st runs on the CPU only; there is no such device")
        if dtype is not None and _dt.convert_dtype(dtype) is not self.dtype:
            return self.astype(dtype)
        if copy:
            from .dispatch import run_op
            return run_op("assign", self)
        return self


def _is_dtype_arg(x):
    if isinstance(x, (_dt.DType, np.dtype)) or (isinstance(x, type) and issubclass(x, np.generic)):
        return True
    if isinstance(x, str):
        try:
            _dt.convert_dtype(x)
        except (TypeError, ValueError):
            return False
        return True
    return False


def item_offset(shape, args):
    """The flat offset ``Tensor.item(*args)`` reads in a tensor of ``shape``, with Paddle's errors: no
    index needs exactly one element, one index is a flat offset, else one index per dimension."""
    shape = [int(d) for d in shape]
    numel = int(np.prod(shape)) if shape else 1
    for k, a in enumerate(args):
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"argument (position {k + 1}) must be long, but got {type(a).__name__}")
    if not args:
        if numel != 1:
            raise ValueError("only one element tensors can be converted to Python scalars when no input "
                             f"coordinates (item() needs exactly one element, the tensor has shape {shape}; "
                             "index it first, e.g. x[0].item())")
        return 0
    if len(args) == 1:
        offset = int(args[0])
        if not 0 <= offset < numel:      # Paddle reads the offset as unsigned: no negative indices
            raise ValueError(f"index {offset} is out of bounds for size {numel}")
        return offset
    if len(args) != len(shape):
        raise ValueError(f"incorrect number of indices for Tensor: {len(args)} given for shape {shape}")
    for axis, (i, d) in enumerate(zip(args, shape)):
        if not 0 <= int(i) < d:
            raise ValueError(f"index {int(i)} is out of bounds for axis {axis} with size {d}")
    return int(np.ravel_multi_index(tuple(int(i) for i in args), tuple(shape)))


def tensor_method(func=None, *, name=None):
    """Attach ``func`` to `TensorMethods` (as ``name`` or its own name). Usable as a decorator."""
    def attach(f):
        setattr(TensorMethods, name or f.__name__, f)
        return f
    return attach(func) if func is not None else attach


_CLEARED = {}     # (shape, dtype) -> the read-only zeros clear_gradient() leaves


class Size(list):
    """``Tensor.shape``: a list of ints (Paddle 3's ``paddle.Size``) that also equals the tuple of the same
    ints, prints as ``paddle.Size([2, 3])``, slices and concatenates to Sizes and knows its `numel`."""

    __slots__ = ()

    def numel(self):
        n = 1
        for d in self:
            n *= int(d)
        return n

    def __eq__(self, other):
        if isinstance(other, tuple):
            return list.__eq__(self, list(other))
        return list.__eq__(self, other)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None      # a mutable list, as Paddle's

    def __getitem__(self, i):
        out = list.__getitem__(self, i)
        return Size(out) if isinstance(i, slice) else out

    def __add__(self, other):
        return Size(list(self) + list(other))

    def __mul__(self, n):
        return Size(list.__mul__(self, n))

    __rmul__ = __mul__

    def __copy__(self):
        return Size(self)

    def __repr__(self):
        return f"paddle.Size({list(self)})"

    __str__ = __repr__


class Tensor(TensorMethods):
    """An n-dimensional array on the CPU with optional gradient tracking.

    ``stop_gradient`` is True for data and False for parameters (Paddle's convention,
    the inverse of ``requires_grad``). ``grad`` holds the accumulated gradient of a
    leaf after ``backward()``.
    """

    __slots__ = ("_data", "stop_gradient", "_grad", "_node", "_out_idx", "_name",
                 "_hooks", "persistable", "_users", "_version", "__weakref__")

    def __init__(self, data=None, dtype=None, place=None, stop_gradient=True, name=None):
        if data is None:
            arr = np.zeros((0,), dtype=_dt.default_float().np)
        else:
            arr = _to_array(data, dtype)
        self._data = arr
        self.stop_gradient = stop_gradient
        self._grad = None
        self._node = None
        self._out_idx = 0
        self._name = name
        self._hooks = None
        self.persistable = False
        self._users = None      # weakrefs of the GradNodes that read this tensor (see autograd.freeze_inputs)

    # -- construction used by run_op: no checks, no copies --------------------------------
    @classmethod
    def _wrap(cls, arr, stop_gradient=True):
        t = cls.__new__(cls)
        t._data = arr
        t.stop_gradient = stop_gradient
        t._grad = None
        t._node = None
        t._out_idx = 0
        t._name = None
        t._hooks = None
        t.persistable = False
        t._users = None
        return t

    # -- metadata --------------------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._data.shape)

    @property
    def dtype(self):
        return _dt.from_numpy_dtype(self._data.dtype)

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    @property
    def size(self):
        return int(self._data.size)

    @property
    def place(self):
        from .device import CPUPlace
        return CPUPlace()

    @property
    def name(self):
        if self._name is None:
            self._name = f"generated_tensor_{next(_tensor_ids)}"
        return self._name

    @name.setter
    def name(self, value):
        self._name = value

    @property
    def is_leaf(self):
        return self._node is None

    # -- data access -----------------------------------------------------------------------
    def numpy(self):
        """The value as a new ndarray (a copy, as Paddle's ``numpy()``: writing to it leaves the tensor as it
        is). ``np.asarray(tensor)`` gives the data without copying, for reading."""
        return np.array(self._data, copy=True)

    def item(self, *args):
        return self._data.reshape(-1)[item_offset(self._data.shape, args)].item()

    def tolist(self):
        return self._data.tolist()

    def __array__(self, dtype=None, copy=None):
        return self._data if dtype is None else self._data.astype(dtype)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-D tensor")
        return self._data.shape[0]

    def __bool__(self):
        if self._data.size != 1:
            raise ValueError(f"the truth value of a tensor with {self._data.size} elements is ambiguous; "
                             "use paddle.any(x) or paddle.all(x)")
        return bool(self._data.item())

    def __int__(self):
        return int(self.item())

    def __float__(self):
        return float(self.item())

    def __index__(self):
        # Paddle 3.3.1: a one-element tensor of any real dtype converts (more elements: AssertionError). Paddle
        # refuses a one-element tensor that is not 0-D (TypeError); dy2st accepts it, as `range(n)` with an
        # n of shape [1] is how much eager code (and its converted twin) loops: a known, documented superset
        if self._data.size != 1:
            raise AssertionError(f"only one element variable can be converted to python index, got a tensor "
                                 f"of shape {list(self._data.shape)}")
        return int(self._data.item())

    def __hash__(self):
        return id(self)

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-D tensor")
        for i in range(self._data.shape[0]):
            yield self[i]

    # -- autograd --------------------------------------------------------------------------
    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None and not isinstance(value, Tensor):
            value = Tensor(value)
        self._grad = value

    def backward(self, grad_tensor=None, retain_graph=False):
        from .autograd import backward
        if grad_tensor is not None:     # Paddle's checks (AssertionErrors, its messages)
            if not isinstance(grad_tensor, Tensor):
                raise AssertionError("The type of grad_tensor must be paddle.Tensor")
            if list(grad_tensor.shape) != list(self.shape):
                raise AssertionError(f"Tensor shape not match, Tensor of grad_tensor [ {grad_tensor.name} ] with "
                                     f"shape {grad_tensor.shape} mismatch Tensor [ {self.name} ] with shape "
                                     f"{self.shape}")
        backward([self], [grad_tensor] if grad_tensor is not None else None, retain_graph)

    def clear_gradient(self, set_to_zero=True):
        """Reset the gradient: zeros when ``set_to_zero`` (Paddle's default), else None."""
        if self._grad is not None and set_to_zero:
            # a read-only zero-strided view of one zero (shared per shape and dtype): no allocation, no
            # memset; reads as zeros, and a converted step's backward need not add to it
            g = self._grad._data
            key = (g.shape, g.dtype)
            z = _CLEARED.get(key)
            if z is None:
                if len(_CLEARED) > 4096:
                    _CLEARED.clear()
                z = _CLEARED[key] = np.broadcast_to(np.zeros((), g.dtype), g.shape)
            self._grad._data = z
        else:
            self._grad = None

    clear_grad = clear_gradient

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; a returned tensor replaces it."""
        if self.stop_gradient:
            raise RuntimeError("cannot register a hook on a tensor with stop_gradient=True")
        from .autograd import HookHandle
        if self._hooks is None:
            self._hooks = {}
        handle = HookHandle(self._hooks)
        self._hooks[handle.id] = hook
        return handle

    def _register_backward_hook(self, hook):
        """Paddle's ``Tensor._register_backward_hook``: call ``hook()`` (no arguments) each time a backward
        pass has accumulated this leaf tensor's gradient into ``.grad``. Only for leaf tensors that need a
        gradient (ValueError otherwise, as in Paddle)."""
        if self._node is not None:
            raise ValueError("(InvalidArgument) Only can register backward hook for leaf Tensor.")
        if self.stop_gradient:
            raise ValueError("(InvalidArgument) Cannot register backward hook on a Tensor that stop gradient.")
        if not callable(hook):
            raise TypeError(f"_register_backward_hook: hook must be callable, got {type(hook).__name__}")
        from .autograd import add_leaf_backward_hook
        add_leaf_backward_hook(self, hook)

    def _grad_ivar(self):
        """The gradient tensor, or None when no backward has produced one (Paddle's ``_grad_ivar``)."""
        return self._grad

    def detach(self):
        """A new tensor sharing this data, cut off from the graph."""
        out = Tensor._wrap(self._data)
        out._version = self.inplace_version
        return out

    @property
    def inplace_version(self):
        """How many in-place operations (``add_``, ``x[i] = v``, ``zero_`` ...) changed this tensor (Paddle's
        counter: ``set_value`` does not count; a detached tensor starts from its source's count)."""
        try:
            return self._version
        except AttributeError:      # set only by the first in-place update: no cost for other tensors
            return 0

    def detach_(self):
        self._node = None
        self.stop_gradient = True
        return self

    def clone(self):
        from .dispatch import run_op
        return run_op("assign", self)

    def set_value(self, value):
        """Overwrite the data in place (shape must match; dtype is cast to this tensor's)."""
        arr = value._data if isinstance(value, Tensor) else np.asarray(value)
        if tuple(arr.shape) != self._data.shape:
            raise ValueError(f"set_value: shape {list(arr.shape)} does not match the tensor's shape {self.shape}")
        self._data = np.array(arr, dtype=self._data.dtype, copy=True)

    def copy_(self, other, blocking=True):
        self.set_value(other)
        return self

    def _inplace_assign(self, y):
        """``x._inplace_assign(y)``: x takes y's value, shape, dtype and gradient path (Paddle's
        ``paddle.assign(y, output=x)``, which this calls)."""
        from .api.creation import assign
        assign(y, output=self)
        return self

    def _share_data_with(self, other):
        self._data = other._data

    def cpu(self):
        return self

    def cuda(self, *a, **k):
        raise RuntimeError("dy2st runs on the CPU only; there is no CUDA device")

    def pin_memory(self):
        return self

    def is_contiguous(self):
        return True

    def contiguous(self):
        return self

    def data_ptr(self):
        return self._data.ctypes.data

    def __repr__(self):
        return format_tensor(self)

    __str__ = __repr__

    def __format__(self, spec):
        if self._data.ndim == 0 and spec:
            return format(self._data.item(), spec)
        return repr(self)

    def __deepcopy__(self, memo):
        t = type(self)._wrap(self._data.copy(), self.stop_gradient)
        t.persistable = self.persistable
        t._name = self._name
        if isinstance(self, Parameter):
            t.trainable = self.trainable
            t.optimize_attr = dict(self.optimize_attr)
            t.regularizer = self.regularizer
            t.need_clip = self.need_clip
            t.do_model_average = self.do_model_average
            t.is_distributed = False
        memo[id(self)] = t
        return t

    def __reduce_ex__(self, proto):
        # Pickling a tensor stores its numpy value: Paddle's own .pdparams hold arrays.
        return (_rebuild_tensor, (self._data, self.stop_gradient))


def _rebuild_tensor(arr, stop_gradient):
    return Tensor._wrap(np.asarray(arr), stop_gradient)


class Parameter(Tensor):
    """A trainable tensor owned by a Layer (``stop_gradient=False``, persistable)."""

    __slots__ = ("trainable", "optimize_attr", "regularizer", "need_clip", "is_distributed", "initializer",
                 "do_model_average")

    def __init__(self, data, dtype=None, name=None, trainable=True):
        super().__init__(data, dtype=dtype, stop_gradient=not trainable, name=name)
        self.persistable = True
        self.trainable = trainable
        self.optimize_attr = {"learning_rate": 1.0}
        self.regularizer = None
        self.need_clip = True
        self.do_model_average = True      # ParamAttr's default
        self.is_distributed = False
        self.initializer = None

    @classmethod
    def _wrap(cls, arr, stop_gradient=False):
        t = super()._wrap(arr, stop_gradient)
        t.persistable = True
        t.trainable = not stop_gradient
        t.optimize_attr = {"learning_rate": 1.0}
        t.regularizer = None
        t.need_clip = True
        t.do_model_average = True
        t.is_distributed = False
        t.initializer = None
        return t

    def __setattr__(self, key, value):
        # Paddle keeps trainable and stop_gradient in step.
        object.__setattr__(self, key, value)
        if key == "trainable":
            object.__setattr__(self, "stop_gradient", not value)
        elif key == "stop_gradient" and hasattr(self, "optimize_attr"):
            object.__setattr__(self, "trainable", not value)

    def __repr__(self):
        return "Parameter containing:\n" + format_tensor(self)

    __str__ = __repr__


def _to_array(data, dtype=None) -> np.ndarray:
    """Convert user data (scalars, nested lists, ndarrays, Tensors) to an ndarray, Paddle's way:
    Python floats become the default float dtype, Python ints int64, bools bool."""
    if isinstance(data, Tensor):
        arr = data._data
    elif isinstance(data, np.ndarray):
        arr = data
    elif isinstance(data, (np.generic,)):
        arr = np.asarray(data)
    else:
        if isinstance(data, (list, tuple)) and any(isinstance(v, Tensor) for v in _flat(data)):
            data = _unwrap_nested(data)
        try:
            arr = np.asarray(data)
        except ValueError:
            arr = np.asarray(data, dtype=object)
        if arr.dtype == np.float64 and dtype is None:
            arr = arr.astype(_dt.default_float().np)
        elif arr.dtype.kind == "i" and arr.dtype != np.int64 and dtype is None:
            arr = arr.astype(np.int64)
        elif arr.dtype.kind == "c" and dtype is None:
            arr = arr.astype(np.complex64)
        elif arr.dtype.kind in "US":
            raise TypeError(f"cannot make a tensor from strings: {data!r}")
        elif arr.dtype == object:
            raise TypeError(f"cannot make a tensor from {type(data).__name__} data with ragged or mixed "
                            "elements; pass a rectangular nested list of numbers or an ndarray")
    if dtype is not None:
        npd = _dt.to_np(dtype)
        if arr.dtype != npd:
            arr = arr.astype(npd)
    return arr


def _flat(data):
    for v in data:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        else:
            yield v


def _unwrap_nested(data):
    if isinstance(data, (list, tuple)):
        return [_unwrap_nested(v) for v in data]
    return data._data if isinstance(data, Tensor) else data


# -- printing (Paddle's layout: numpy-like body indented under a header) -----------------------

_print_options = {"precision": 8, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None, linewidth=None):
    """``paddle.set_printoptions``: how tensors print."""
    for k, v in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                 ("sci_mode", sci_mode), ("linewidth", linewidth)):
        if v is not None:
            _print_options[k] = v


def _format_item(v, kind, precision, sci):
    if kind == "f":
        if sci:
            return f"{v:.{precision}e}"
        if np.isfinite(v) and np.ceil(v) == v or np.isinf(v):
            return f"{v:.0f}."
        return f"{v:.{precision}f}"
    if kind == "b":
        return "True" if v else "False"
    if kind == "c":
        return f"({v.real:.{precision}f}{v.imag:+.{precision}f}j)"
    return str(v)


def _summarize(arr, edge):
    """Keep ``edge`` items at both ends of every long axis (Paddle prints '...' between)."""
    for ax in range(arr.ndim):
        if arr.shape[ax] > 2 * edge:
            idx = list(range(edge)) + list(range(arr.shape[ax] - edge, arr.shape[ax]))
            arr = np.take(arr, idx, axis=ax)
    return arr


def _format_body(arr: np.ndarray, indent: int) -> str:
    """Paddle's layout: items left-justified to one width, a leading space for
    non-negatives when any value is negative, rows wrapped at ``linewidth``."""
    opts = _print_options
    kind = arr.dtype.kind
    summarize = arr.size > opts["threshold"]
    edge = opts["edgeitems"]
    shown = _summarize(arr, edge) if summarize else arr
    sci = bool(opts["sci_mode"])
    flat = shown.reshape(-1)
    strs = [_format_item(v, kind, opts["precision"], sci) for v in flat.tolist()]
    width = max((len(x) for x in strs), default=0)
    signed = kind in "fi" and flat.size > 0 and bool(np.any(flat < 0))
    out = []
    for v, x in zip(flat.tolist(), strs):
        if width > len(x):
            x = (" " + x.ljust(width - 1)) if signed and not v < 0 else x.ljust(width)
        out.append(x)
    items = np.array(out, dtype=object).reshape(shown.shape) if shown.ndim else out[0]
    if shown.ndim == 0:
        return items
    linewidth = opts["linewidth"]

    def rec(a, level, full_dim_sizes):
        # a: object array of strings; level: depth (0 = outermost)
        pad = " " * (indent + level + 1)
        cut = summarize and full_dim_sizes[0] > 2 * edge
        if a.ndim == 1:
            parts = list(a)
            if not parts:
                return "[]"
            if cut:
                parts = parts[:edge] + ["..."] + parts[edge:]
            lines, line = [], "["
            for i, p in enumerate(parts):
                piece = p + ("," if i < len(parts) - 1 else "]")
                cand = line + ("" if line.endswith("[") else " ") + piece
                if len(cand) + indent + level > linewidth and not line.endswith("["):
                    lines.append(line)
                    line = " " * 0 + piece
                else:
                    line = cand
            lines.append(line)
            return ("\n" + pad).join(lines)
        subs = [rec(a[i], level + 1, full_dim_sizes[1:]) for i in range(a.shape[0])]
        if cut:
            subs = subs[:edge] + ["..."] + subs[edge:]
        sep = ",\n" + "\n" * (a.ndim - 2) + pad
        return "[" + sep.join(subs) + "]"

    return rec(items, 0, arr.shape)


def format_tensor(t: Tensor) -> str:
    arr = t._data
    prefix = "Tensor(shape={}, dtype={}, place=Place(cpu), stop_gradient={},".format(
        list(arr.shape), t.dtype.name, t.stop_gradient)
    return prefix + "\n       " + _format_body(arr, 7) + ")"


def is_tensor(x) -> bool:
    return isinstance(x, Tensor)
