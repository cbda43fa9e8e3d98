"""The op registry: one `OpDef` per Paddle op type, serving eager, static and file formats.

An OpDef carries everything the rest of the system needs to know about an op:

* ``inputs`` / ``outputs``: slot names exactly as Paddle names them (``X``, ``Out``,
  ``XShape`` ...), in the notation of Paddle's op protos: ``X[]`` duplicable (the slot
  takes a list), ``Scale?`` dispensable (may be absent, passed as ``None``),
  ``XShape(intermediate)`` / ``XShape(extra)`` an output that only static programs carry
  (kernels do not produce it; eager mode has no such value);
* ``attrs``: name -> (proto attr type, default), as in Paddle's op protos;
* ``kernel(*input_arrays, **attrs)``: numpy computation; returns one array when the op has
  one visible (non-intermediate) output slot, else a tuple in visible-slot order (a list
  for a duplicable slot, ``None`` for an optional output not produced);
* ``infer_meta(*input_metas, **attrs)``: the same shape, but on `Meta` (shape with -1 for
  unknown dims, numpy dtype);
* ``grad(ctx, *out_grads)``: returns the input gradients in input-slot order (``None``
  where there is none). It is ordinary code over registered ops, so in static mode it
  appends grad ops and in eager mode with ``create_graph`` it is itself differentiable.
  `grad_op` below builds the common form: a dedicated ``<type>_grad`` op with a kernel.

Kernels receive every attribute the caller passed; attributes left out take the
kernel's Python defaults, which a test checks against the schema defaults.
"""
from __future__ import annotations

import inspect
from typing import Callable, NamedTuple

import numpy as np

from ..errors import UnknownOpError


class Meta(NamedTuple):
    """Static metadata of a value: shape (tuple, -1 for unknown) and numpy dtype."""
    shape: tuple
    dtype: np.dtype

    @staticmethod
    def of(array) -> "Meta":
        return Meta(tuple(array.shape), array.dtype)


class Slot(NamedTuple):
    name: str
    duplicable: bool = False
    dispensable: bool = False
    intermediate: bool = False

    @staticmethod
    def parse(spec: str) -> "Slot":
        inter = "(intermediate)" in spec or "(extra)" in spec
        spec = spec.replace("(intermediate)", "").replace("(extra)", "")
        disp = spec.endswith("?")
        spec = spec.rstrip("?")
        dup = spec.endswith("[]")
        if dup:
            spec = spec[:-2]
        if not spec.isidentifier() and "@" not in spec:
            raise ValueError(f"bad slot spec {spec!r}")
        return Slot(spec, dup, disp, inter)

    def spec(self) -> str:
        return self.name + ("[]" if self.duplicable else "") + ("?" if self.dispensable else "") + \
            ("(intermediate)" if self.intermediate else "")


ATTR_TYPES = ("INT", "FLOAT", "STRING", "INTS", "FLOATS", "STRINGS", "BOOLEAN", "BOOLEANS",
              "BLOCK", "LONG", "BLOCKS", "LONGS", "FLOAT64S", "VAR", "VARS", "FLOAT64", "SCALAR", "SCALARS")


class OpDef:
    """Everything about one Paddle op type. See the module docstring."""

    __slots__ = ("type", "inputs", "outputs", "attrs", "kernel", "infer_meta", "grad",
                 "make_kernel", "onnx", "random", "differentiable", "diff_mask",
                 "input_names", "output_names", "visible_outputs", "n_visible",
                 "grad_needs_outputs", "list_output", "inplace", "interpret", "internal", "blas", "__weakref__")

    def __init__(self, type, inputs, outputs, attrs, kernel, infer_meta, grad=None,
                 make_kernel=None, onnx=None, random=False, differentiable=None,
                 grad_needs_outputs=False, inplace=None, interpret=None, internal=False):
        self.type = type
        # made only by graph passes on a compiled clone (fused ops, folded constants): never part of
        # a user's Program, never written to nor read from a model file
        self.internal = internal
        self.blas = False      # a BLAS-heavy kernel: eager calls first run the thread policy's cheap check
        self.inputs = tuple(Slot.parse(s) for s in inputs)
        self.outputs = tuple(Slot.parse(s) for s in outputs)
        for name, spec in attrs.items():
            if not (isinstance(spec, tuple) and len(spec) == 2 and spec[0] in ATTR_TYPES):
                raise ValueError(f"op {type}: attr {name!r} must be (ATTR_TYPE, default), got {spec!r}")
        self.attrs = dict(attrs)
        self.kernel = kernel
        self.infer_meta = infer_meta
        self.grad = grad
        self.make_kernel = make_kernel   # optional: attrs -> f(*arrays); lets executors pre-bind attrs
        self.onnx = onnx
        self.random = random             # random ops are never CSE'd or constant-folded
        # input slots through which gradients flow (default: every slot)
        self.differentiable = (frozenset(differentiable) if differentiable is not None
                               else frozenset(s.name for s in self.inputs))
        self.diff_mask = tuple(s.name in self.differentiable for s in self.inputs)
        self.input_names = tuple(s.name for s in self.inputs)
        self.output_names = tuple(s.name for s in self.outputs)
        # Intermediate outputs (XShape ...) exist only in static programs; kernels return the
        # visible outputs, in order, and run_op returns them (one Tensor when there is one).
        self.visible_outputs = tuple(s.name for s in self.outputs if not s.intermediate)
        self.n_visible = len(self.visible_outputs)
        # the only visible output is a duplicable slot (split, unstack): the kernel returns a
        # list of arrays and run_op a list of Tensors
        vis = [s for s in self.outputs if not s.intermediate]
        self.list_output = len(vis) == 1 and vis[0].duplicable
        # the eager tape keeps output values only for ops whose grad rule reads them
        self.grad_needs_outputs = grad_needs_outputs
        # output slot -> input slot it overwrites in static programs (batch_norm: MeanOut -> Mean)
        self.inplace = dict(inplace or {})
        # ops that run sub-blocks or touch the environment (control flow) are executed by
        # ``interpret(op, env, run_block)`` instead of a kernel
        self.interpret = interpret

    def full_attrs(self, attrs: dict) -> dict:
        """Schema defaults overlaid with ``attrs`` (what a static Operator records)."""
        unknown = set(attrs) - set(self.attrs)
        if unknown:
            raise TypeError(f"op {self.type} has no attribute(s) {sorted(unknown)}; "
                            f"its attributes are {sorted(self.attrs)}")
        full = {k: v for k, (_, v) in self.attrs.items()}
        full.update(attrs)
        return full

    def bind(self, attrs: dict) -> Callable:
        """A function of the input arrays only, with ``attrs`` fixed (for compiled executors)."""
        if self.make_kernel is not None:
            return self.make_kernel(**attrs)
        kernel = self.kernel
        if not attrs:
            return kernel
        return lambda *arrays: kernel(*arrays, **attrs)

    def __repr__(self):
        return f"OpDef({self.type})"


_OPS: dict[str, OpDef] = {}


def register(type: str, inputs, outputs, attrs=None, *, kernel, infer_meta, grad=None, **extra) -> OpDef:
    """Declare an op. Raises if ``type`` is already registered (each op has one definition)."""
    if type in _OPS:
        raise ValueError(f"op {type!r} is registered twice")
    opdef = OpDef(type, inputs, outputs, attrs or {}, kernel, infer_meta, grad, **extra)
    _OPS[type] = opdef
    return opdef


def lookup(type: str) -> OpDef:
    opdef = _OPS.get(type)
    if opdef is None:
        raise UnknownOpError(type, _OPS)
    return opdef


def all_ops() -> dict[str, OpDef]:
    return dict(_OPS)


def grad_op(fwd_type: str, inputs, outputs, kernel, *, infer_meta=None, attrs=None, **extra) -> OpDef:
    """Register ``<fwd_type>_grad`` and make it the forward op's gradient rule.

    ``inputs`` name forward input slots, forward output slots, and output grads written
    ``Out@GRAD``. ``outputs`` are ``X@GRAD`` for the forward inputs that get a gradient.
    Unless ``infer_meta`` is given, ``X@GRAD`` takes the meta of grad-op input ``X``.
    The grad op takes the forward op's attributes (or ``attrs``).
    """
    fwd = lookup(fwd_type)
    grad_type = fwd_type + "_grad"
    in_specs = [Slot.parse(s).name for s in inputs]
    out_specs = [Slot.parse(s).name for s in outputs]

    if infer_meta is None:
        sources = []
        for o in out_specs:
            base = o[:-5]
            if base not in in_specs:
                raise ValueError(f"{grad_type}: cannot infer the meta of {o}; pass infer_meta")
            sources.append(in_specs.index(base))

        def infer_meta(*metas, **_):
            res = tuple(metas[i] for i in sources)
            return res[0] if len(res) == 1 else res

    gdef = register(grad_type, inputs, outputs, fwd.attrs if attrs is None else attrs,
                    kernel=kernel, infer_meta=infer_meta, **extra)

    fwd_in = fwd.input_names
    fwd_out = fwd.visible_outputs
    plan = []  # where each grad-op input comes from
    for s in in_specs:
        if s.endswith("@GRAD"):
            plan.append(("dout", fwd_out.index(s[:-5])))
        elif s in fwd_in:
            plan.append(("in", fwd_in.index(s)))
        elif s in fwd_out:
            plan.append(("out", fwd_out.index(s)))
        else:
            raise ValueError(f"{grad_type}: input {s!r} is not a slot of {fwd_type}")
    targets = [fwd_in.index(o[:-5]) for o in out_specs]
    n_in = len(fwd_in)
    from ..dispatch import run_op  # late import: dispatch imports this module

    def rule(ctx, *douts):
        args = []
        for kind, i in plan:
            if kind == "dout":
                args.append(douts[i])
            elif kind == "in":
                args.append(ctx.inputs[i])
            else:
                args.append(ctx.output(i))
        res = run_op(grad_type, *args, **ctx.attrs)
        if len(targets) == 1:
            res = (res,)
        grads = [None] * n_in
        for t, g in zip(targets, res):
            grads[t] = g
        return grads

    fwd.grad = rule
    fwd.grad_needs_outputs = any(kind == "out" for kind, _ in plan)
    return gdef


def kernel_defaults(kernel) -> dict:
    """The keyword defaults a kernel declares (checked against the schema in tests)."""
    try:
        sig = inspect.signature(kernel)
    except (TypeError, ValueError):
        return {}
    return {n: p.default for n, p in sig.parameters.items()
            if p.kind == p.KEYWORD_ONLY or (p.default is not inspect.Parameter.empty)}
