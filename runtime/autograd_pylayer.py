"""``paddle.autograd.PyLayer``: a user op whose forward and backward are Python functions.

``MyLayer.apply(*args, **kwargs)`` runs ``MyLayer.forward(ctx, ...)`` without recording, then puts one node
on the eager tape (`runtime.autograd.GradNode`, with a per-call op description below) whose grad rule calls
``MyLayer.backward(ctx, *output_grads)``. Inputs are the Tensors among the arguments; a list or tuple of
Tensors counts as one input, whose gradient ``backward`` returns as a list. Errors follow Paddle 3.3.1's
(`ValueError` for a bad number or type of gradients, or a forward that returns no Tensor).

Inside a to_static function (static mode) ``apply`` runs ``forward`` on the Program's variables, so the ops
join the Program and their gradients come from the ops' own rules (`runtime.autograd_pylayer_static`
stages the layer as a Python-callback op when the custom backward must be kept).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .framework import state

__all__ = ["PyLayer", "PyLayerContext", "once_differentiable", "Function"]


class PyLayerContext:
    """The ``ctx`` that ``forward`` and ``backward`` receive (Paddle's ``PyLayerContext``)."""

    container = None
    not_inplace_tensors = ()
    non_differentiable = ()
    materialize_grads = True
    grad_in_dtype_consistent = True

    def save_for_backward(self, *tensors):
        """Keep ``tensors`` for ``backward`` (call at most once, inside ``forward``)."""
        self.container = tensors

    def saved_tensor(self):
        """The tensors given to ``save_for_backward`` (None when it was not called)."""
        return self.container

    def mark_not_inplace(self, *args):
        """Inputs that ``forward`` may return as they are: the output is then a new Tensor."""
        self.not_inplace_tensors = args

    def mark_non_differentiable(self, *args):
        """Outputs that need no gradient: they get ``stop_gradient=True`` and ``backward`` sees zeros for them."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool):
        """False: ``backward`` gets None (not zeros) for outputs no gradient reached."""
        self.materialize_grads = bool(value)

    def set_grad_in_dtype_consistent(self, flag: bool):
        """True (default): each output gradient is cast to its output's dtype before ``backward``."""
        self.grad_in_dtype_consistent = bool(flag)


class _Slot:
    __slots__ = ("duplicable", "intermediate", "name")

    def __init__(self, name):
        self.name = name
        self.duplicable = False
        self.intermediate = False


class _PyLayerOp:
    """What the tape needs of an op (`GradNode` reads type, grad, diff_mask, outputs, attrs), for one call."""

    grad_needs_outputs = False
    attrs: dict = {}

    def __init__(self, layer_cls, ctx, n_inputs, out_metas, input_kinds):
        self.type = f"pylayer[{layer_cls.__name__}]"
        self.layer_cls = layer_cls
        self.ctx = ctx
        self.diff_mask = (True,) * n_inputs
        self.outputs = tuple(_Slot(f"Out{i}") for i in range(len(out_metas)))
        self.out_metas = out_metas          # (shape, numpy dtype, differentiable) per output Tensor
        self.input_kinds = input_kinds      # per input position: ("tensor", t) or ("list", [t or None, ...])

    def grad(self, node, *douts):
        from .tensor import Tensor
        ctx = self.ctx
        grads_in = []
        for d, (shape, dtype, differentiable) in zip(douts, self.out_metas):
            if d is None or not differentiable:
                d = Tensor._wrap(np.zeros(shape, dtype)) if ctx.materialize_grads else None
            elif ctx.grad_in_dtype_consistent and d._data.dtype != dtype:
                d = Tensor._wrap(d._data.astype(dtype))
            grads_in.append(d)
        result = self.layer_cls.backward(ctx, *grads_in)
        return self._check_grads(result)

    def _check_grads(self, result):
        from .tensor import Tensor
        name = f"GradNodePyLayer_{self.layer_cls.__name__}"
        if not isinstance(result, (tuple, list)):
            result = (result,)
        n = len(self.input_kinds)
        if len(result) > n:
            raise ValueError(f"{name} : The number of outputs of `PyLayer.backward` should be {n}, but received "
                             f"{len(result)}. (backward returns one gradient per Tensor input of forward; a list "
                             "input gets a list of gradients)")
        out = []
        for i, (kind, value) in enumerate(self.input_kinds):
            g = result[i] if i < len(result) else _MISSING
            if kind == "tensor":
                out.append(self._one(name, i, g, value))
            else:
                if g is _MISSING or g is None:
                    g = [g] * len(value)
                if not isinstance(g, (list, tuple)) or len(g) != len(value):
                    raise ValueError(f"{name} : the gradient for input {i} (a list of {len(value)} Tensors) must be a "
                                     f"list of {len(value)} Tensors or None, got {type(g).__name__}")
                out.append([self._one(name, i, gj, tj) for gj, tj in zip(g, value)])
        return out

    @staticmethod
    def _one(name, i, g, t):
        from .tensor import Tensor
        needs = t is not None and not t.stop_gradient
        if g is _MISSING:
            if needs:
                raise ValueError(f"{name}'s backward function should not return empty at {i} position: input {i} "
                                 "of forward requires a gradient (return a Tensor, or None for no gradient)")
            return None
        if g is None:
            return None
        if not isinstance(g, Tensor):
            raise ValueError(f"{name} : We can only support Tensor or None for backward output, but got "
                             f"{type(g).__name__}, please check your PyLayer code and make it fits")
        if needs and list(g._data.shape) != list(t._data.shape):
            raise ValueError(f"{name} : the gradient returned for input {i} has shape {list(g._data.shape)}, but "
                             f"the input has shape {list(t._data.shape)}")
        return g


_MISSING = object()


class PyLayerMeta(type):
    """Gives each PyLayer subclass its own context class (``cls._backward_function``), as Paddle does."""

    def __init__(cls, name, bases, attrs):
        cls._backward_function = type(name + "_backward", (PyLayerContext,), {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


class PyLayer(PyLayerContext, metaclass=PyLayerMeta):
    """Subclass with static ``forward(ctx, *args, **kwargs)`` and ``backward(ctx, *grads)``; call ``apply``."""

    @staticmethod
    def forward(ctx: PyLayerContext, *args: Any, **kwargs: Any):
        raise NotImplementedError("You must implement the forward function for PyLayer.")

    @staticmethod
    def backward(ctx: PyLayerContext, *args: Any):
        raise NotImplementedError("You must implement the backward function for PyLayer.")

    @classmethod
    def apply(cls, *args, **kwargs):
        if state.static:
            from .autograd_pylayer_static import apply_static
            return apply_static(cls, args, kwargs)
        return _apply_eager(cls, args, kwargs)


Function = PyLayer


def _tensor_inputs(args, kwargs):
    """Input positions: every Tensor argument, and every list/tuple argument holding Tensors."""
    from .tensor import Tensor
    kinds = []
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Tensor):
            kinds.append(("tensor", a))
        elif isinstance(a, (list, tuple)) and any(isinstance(t, Tensor) for t in a):
            kinds.append(("list", [t if isinstance(t, Tensor) else None for t in a]))
    return kinds


def _apply_eager(cls, args, kwargs):
    from .framework import no_grad
    from .tensor import Tensor
    from .autograd import GradNode
    ctx = cls._backward_function()
    with no_grad():
        outputs = cls.forward(ctx, *args, **kwargs)
    single = not isinstance(outputs, (tuple, list))
    outs = [outputs] if single else list(outputs)
    if not any(isinstance(o, Tensor) for o in outs):
        raise ValueError(f"{cls.__name__} : At least one output of `PyLayer.forward` is a `Tensor`. (forward "
                         f"returned {type(outputs).__name__})")
    kinds = _tensor_inputs(args, kwargs)
    flat_inputs = [v for _, v in kinds]
    needs_grad = state.grad_enabled and any(
        (t is not None and not t.stop_gradient)
        for kind, v in kinds for t in ([v] if kind == "tensor" else v))
    input_ids = {id(t): t for kind, v in kinds for t in ([v] if kind == "tensor" else v) if t is not None}
    not_inplace = {id(t) for t in ctx.not_inplace_tensors}
    non_diff = {id(t) for t in ctx.non_differentiable}
    tensor_outs, metas = [], []
    for k, o in enumerate(outs):
        if not isinstance(o, Tensor):
            continue
        if id(o) in input_ids:
            # forward returned an input: Paddle refuses this for a leaf that needs a gradient unless it was marked
            # not-inplace; the result is always a new Tensor here (its node cannot be the input's)
            if needs_grad and o._node is None and not o.stop_gradient and id(o) not in not_inplace:
                raise ValueError(f"{cls.__name__} : Leaf Var ({o.name}) that doesn't stop gradient can't use inplace "
                                 "strategy. (forward returned its input unchanged: call ctx.mark_not_inplace(x) in "
                                 "forward, or return a new Tensor such as x.clone())")
            o = Tensor._wrap(o._data)
            outs[k] = o
        differentiable = id(outs[k]) not in non_diff and id(o) not in non_diff and o._data.dtype.kind in "fc"
        if needs_grad:
            o.stop_gradient = not differentiable
        else:
            o.stop_gradient = True
        tensor_outs.append(o)
        metas.append((o._data.shape, o._data.dtype, differentiable))
    if needs_grad:
        op = _PyLayerOp(cls, ctx, len(flat_inputs), metas, kinds)
        GradNode(op, flat_inputs, {}, tensor_outs)
    return outs[0] if single else type(outputs)(outs) if isinstance(outputs, tuple) else outs


def once_differentiable(backward):
    """Decorator for ``backward``: run it without recording, so its result cannot be differentiated again."""
    import functools
    from .framework import no_grad

    @functools.wraps(backward)
    def wrapper(ctx, *args):
        with no_grad():
            return backward(ctx, *args)
    return wrapper
