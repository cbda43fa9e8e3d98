"""Eager reverse-mode autograd: the tape (`GradNode`), `backward`, `grad`, hooks.

A node is recorded by `run_op` for each op that has an input needing a gradient. It
keeps the op's inputs (the edges of the graph), its attributes, weak references to its
outputs (for tensor hooks and higher-order grads) and, only when the op's grad rule
reads them, the output values. `backward` walks the nodes reachable from the roots in
dependency order, calling each op's grad rule (which itself runs registered ops, so
``create_graph=True`` records a differentiable backward).
"""
from __future__ import annotations

import itertools
import weakref

import numpy as np

from .errors import GradientError
from .framework import state


# the innermost active paddle.autograd.saved_tensors_hooks, and whether one was ever used (autograd_hooks.py)
_saved_hooks = None
_saved_hooks_used = False


_Tensor = None      # runtime.tensor.Tensor once `_tensor_class` has run (tensor.py imports this module)


def _tensor_class():
    global _Tensor
    from .tensor import Tensor
    _Tensor = Tensor
    return Tensor


def _add_user(t, ref):
    """Record grad node ``ref`` as a reader of ``t``. A tensor read every step (a parameter) would collect
    dead references for ever: the list drops them whenever its length reaches a power of two >= 64
    (amortised O(1) per append)."""
    u = t._users
    if u is None:
        t._users = [ref]
        return
    u.append(ref)
    n = len(u)
    if n >= 64 and not n & (n - 1):
        u[:] = [r for r in u if r() is not None]


class GradNode:
    __slots__ = ("opdef", "inputs", "attrs", "out_refs", "out_data", "edges", "released", "n_out", "__weakref__")

    def __init__(self, opdef, inputs, attrs, outputs):
        Tensor = _Tensor or _tensor_class()     # (a function-level import costs every recorded op ~0.3 µs)
        self.opdef = opdef
        self.inputs = inputs
        self.attrs = attrs
        self.released = False
        refs = []
        datas = [] if opdef.grad_needs_outputs else None
        idx = 0
        for o in outputs:
            for t in (o if isinstance(o, list) else (o,)):
                if t is not None and not t.stop_gradient:
                    t._node = self
                    t._out_idx = idx
                    refs.append(weakref.ref(t))
                else:
                    refs.append(None)
                if datas is not None:
                    datas.append(None if t is None else t._data)
                idx += 1
        self.out_refs = refs
        self.out_data = datas
        self.n_out = idx
        # edges: (input position, element index or -1, tensor, producer node, producer output index)
        edges = []
        diff = opdef.diff_mask
        me = weakref.ref(self)
        for i, x in enumerate(inputs):
            if isinstance(x, Tensor):
                # every tensor input is registered as read by this node, so an in-place update of it later
                # can hand this node the value it saw (freeze_inputs) instead of the new one
                _add_user(x, me)
                if diff[i] and not x.stop_gradient:
                    edges.append((i, -1, x, x._node, x._out_idx))
            elif isinstance(x, (list, tuple)):
                for j, t in enumerate(x):
                    if isinstance(t, Tensor):
                        _add_user(t, me)
                        if diff[i] and not t.stop_gradient:
                            edges.append((i, j, t, t._node, t._out_idx))
        self.edges = edges
        if _saved_hooks is not None:   # inside paddle.autograd.saved_tensors_hooks (runtime/autograd_hooks.py)
            _saved_hooks.pack_node(self)

    # -- the context a grad rule sees -------------------------------------------------------
    def output(self, i):
        """Visible output ``i`` (flattened): the live tensor if it still exists, else its saved value."""
        from .tensor import Tensor
        ref = self.out_refs[i]
        t = ref() if ref is not None else None
        if t is not None and t._node is self:
            return t
        if self.out_data is None:
            raise GradientError(f"grad rule of {self.opdef.type} reads an output but the op does not "
                                "declare grad_needs_outputs=True")
        t = Tensor._wrap(self.out_data[i])
        if ref is not None:
            # the output tensor is gone but was differentiable: keep its link to this node, so a grad rule
            # run with create_graph (a second-order gradient through e.g. the Softmax output) reaches it
            t.stop_gradient, t._node, t._out_idx = False, self, i
        return t

    def attr(self, name):
        if name in self.attrs:
            return self.attrs[name]
        return self.opdef.attrs[name][1]

    def release(self):
        self.inputs = None
        self.out_data = None
        self.edges = None
        self.released = True
        # an OpDef whose attrs hold saved values (a converted program's tape node keeps its saved
        # activations there) says which to drop: the node lives as long as its outputs (the loss tensor,
        # until the next step rebinds it), the saved values should not
        drop = getattr(self.opdef, "release_attrs", None)
        if drop is not None:
            self.attrs = drop(self.attrs)

    def __repr__(self):
        return f"<GradNode {self.opdef.type}>"


def freeze_inputs(x):
    """Before tensor ``x`` takes a new value in place (Paddle's ``x.add_(y)`` family), give every live grad
    node that read ``x`` a frozen copy of it: the old array and the old autograd link. Their grad rules
    then see the value they were recorded with (the in-place op's own node included), as Paddle's
    saved tensors do, instead of the new one."""
    users = x._users
    if not users:
        return
    from .tensor import Tensor
    frozen = Tensor._wrap(x._data, x.stop_gradient)
    frozen._node, frozen._out_idx, frozen._name = x._node, x._out_idx, x._name
    for ref in users:
        node = ref()
        if node is None or node.released or node.inputs is None:
            continue
        node.inputs = [frozen if v is x else ([frozen if t is x else t for t in v] if isinstance(v, list) else v)
                       for v in node.inputs]
        node.edges = [(i, j, frozen if t is x else t, prod, idx) for (i, j, t, prod, idx) in node.edges]
    frozen._users = users
    x._users = None


class UnusedInputError(GradientError, ValueError):
    """``paddle.grad`` without ``allow_unused`` on an input the outputs do not depend on (a ValueError, as in
    Paddle, and a GradientError)."""


class HookHandle:
    """Returned by ``register_hook``/forward hooks; ``remove()`` unregisters."""
    _ids = itertools.count()

    def __init__(self, hooks: dict):
        self.id = next(HookHandle._ids)
        self._hooks = weakref.ref(hooks) if hasattr(hooks, "__weakref__") else (lambda: hooks)

    def remove(self):
        """Unregister the hook: True the first time, False once it is gone (as Paddle's tensor hooks)."""
        hooks = self._hooks()
        return hooks is not None and hooks.pop(self.id, None) is not None


# Tensor._register_backward_hook: leaf tensor -> void hooks run after its .grad is accumulated
_leaf_void_hooks = weakref.WeakKeyDictionary()
# core.eager._add_backward_final_hook: void hooks run once at the end of the next backward pass
_final_hooks: list = []


def add_leaf_backward_hook(tensor, hook):
    _leaf_void_hooks.setdefault(tensor, []).append(hook)


def add_backward_final_hook(hook):
    """Paddle's ``core.eager._add_backward_final_hook``: ``hook()`` runs once when the next backward pass
    (``Tensor.backward`` / ``paddle.grad``) finishes, then is dropped."""
    if not callable(hook):
        raise TypeError(f"_add_backward_final_hook: hook must be callable, got {type(hook).__name__}")
    _final_hooks.append(hook)


def _run_final_hooks():
    while _final_hooks:
        hooks = list(_final_hooks)
        _final_hooks.clear()
        for hook in hooks:
            hook()


def _apply_hooks(tensor, g):
    if tensor is not None and tensor._hooks:
        for hook in list(tensor._hooks.values()):
            r = hook(g)
            if r is not None:
                g = r
    return g


def _add(a, b, create_graph):
    from .tensor import Tensor
    if a is None:
        return b
    if b is None:
        return a
    if create_graph:
        from .dispatch import run_op
        return run_op("elementwise_add", a, b)
    return Tensor._wrap(a._data + b._data)


def _run_engine(roots, root_grads, retain_graph, create_graph, capture=None, accumulate=True):
    """Propagate ``root_grads`` from ``roots`` back through the tape.

    ``capture`` maps id(tensor) -> tensor for tensors whose total gradient should be
    returned (paddle.grad); ``accumulate`` writes leaf gradients into ``.grad``.
    """
    from .tensor import Tensor
    if create_graph:
        from .double_grad import ensure_double_grads
        ensure_double_grads()
    # 1. dependencies: how many consumer edges point at each node
    deps = {}
    stack = []
    pending = {}   # node -> list of grads per output
    leaf_grads = {}   # id(tensor) -> [tensor, grad]
    captured = {}

    def seed(t, g):
        if t._node is None:
            if capture is not None and id(t) in capture:
                captured[id(t)] = _add(captured.get(id(t)), g, create_graph)
            elif accumulate and not t.stop_gradient:
                e = leaf_grads.get(id(t))
                if e is None:
                    leaf_grads[id(t)] = [t, g]
                else:
                    e[1] = _add(e[1], g, create_graph)
            return
        buf = pending.setdefault(t._node, [None] * t._node.n_out)
        buf[t._out_idx] = _add(buf[t._out_idx], g, create_graph)

    root_nodes = []
    for t, g in zip(roots, root_grads):
        if t._node is not None:
            root_nodes.append(t._node)
    seen = set()
    walk = list(root_nodes)
    while walk:
        n = walk.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if n.released:
            raise GradientError(
                f"trying to run backward through the graph a second time (op {n.opdef.type}): its saved "
                "values were freed by the first backward; pass retain_graph=True to the first backward")
        for (_, _, _, prod, _) in n.edges:
            if prod is not None:
                deps[prod] = deps.get(prod, 0) + 1
                if id(prod) not in seen:
                    walk.append(prod)

    for t, g in zip(roots, root_grads):
        seed(t, g)

    ready = [n for n in {id(n): n for n in root_nodes}.values() if deps.get(n, 0) == 0]
    prev_grad = state.grad_enabled
    state.grad_enabled = create_graph
    try:
        while ready:
            node = ready.pop()
            douts = pending.pop(node, None) or [None] * node.n_out
            runs = node.n_out > 1 and any(d is not None for d in douts)
            # hooks and captures on the node's output tensors (non-leaf tensors)
            for i, ref in enumerate(node.out_refs):
                if ref is None:
                    continue
                if douts[i] is None:
                    # Paddle: a multi-output node that runs gives its unreached outputs a zero gradient,
                    # which their hooks (retain_grads ...) see
                    t = ref() if runs else None
                    if t is None or not t._hooks:
                        continue
                    douts[i] = Tensor._wrap(np.zeros(t._data.shape, t._data.dtype))
                t = ref()
                if t is None:
                    continue
                douts[i] = _apply_hooks(t, douts[i])
                if capture is not None and id(t) in capture:
                    captured[id(t)] = _add(captured.get(id(t)), douts[i], create_graph)
            if any(d is not None for d in douts):
                if _saved_hooks_used:
                    from .autograd_hooks import unpack_node
                    unpack_node(node)
                grads = node.opdef.grad(node, *_regroup(node, douts))
            else:
                grads = None
            for (i, j, t, prod, idx) in node.edges:
                g = None
                if grads is not None:
                    g = grads[i]
                    if j >= 0 and g is not None:
                        g = g[j]
                if g is not None and not t.stop_gradient:
                    if not isinstance(g, Tensor):
                        g = Tensor._wrap(np.asarray(g))
                    if g._data.dtype != t._data.dtype:
                        g = Tensor._wrap(g._data.astype(t._data.dtype))
                    if prod is None:
                        seed_leaf(t, g, capture, captured, leaf_grads, accumulate, create_graph)
                    else:
                        buf = pending.setdefault(prod, [None] * prod.n_out)
                        buf[idx] = _add(buf[idx], g, create_graph)
                if prod is not None:
                    deps[prod] -= 1
                    if deps[prod] == 0:
                        ready.append(prod)
            if not retain_graph:
                node.release()
    finally:
        state.grad_enabled = prev_grad

    for t, g in leaf_grads.values():
        g = _apply_hooks(t, g)
        if t._grad is None:
            t._grad = g if create_graph else Tensor._wrap(np.array(g._data, copy=True))
        else:
            t._grad = _add(t._grad, g, create_graph)
        if _leaf_void_hooks:
            for hook in list(_leaf_void_hooks.get(t, ())):
                hook()
    if _final_hooks:
        _run_final_hooks()
    return captured


def seed_leaf(t, g, capture, captured, leaf_grads, accumulate, create_graph):
    if capture is not None and id(t) in capture:
        captured[id(t)] = _add(captured.get(id(t)), g, create_graph)
    if accumulate and not t.stop_gradient:
        e = leaf_grads.get(id(t))
        if e is None:
            leaf_grads[id(t)] = [t, g]
        else:
            e[1] = _add(e[1], g, create_graph)


def _regroup(node, douts):
    """Flattened per-output grads back into the op's visible-slot structure (lists for duplicable slots)."""
    opdef = node.opdef
    if all(not s.duplicable for s in opdef.outputs):
        return douts
    res = []
    k = 0
    sizes = _output_sizes(node)
    for s, n in zip((s for s in opdef.outputs if not s.intermediate), sizes):
        if s.duplicable:
            res.append(douts[k:k + n])
            k += n
        else:
            res.append(douts[k])
            k += 1
    return res


def _output_sizes(node):
    """The number of tensors in each visible output slot (only one slot may be duplicable)."""
    opdef = node.opdef
    vis = [s for s in opdef.outputs if not s.intermediate]
    n_dup = sum(s.duplicable for s in vis)
    fixed = len(vis) - n_dup
    if n_dup != 1:
        raise GradientError(f"op {opdef.type}: cannot regroup gradients of several duplicable outputs")
    return [node.n_out - fixed if s.duplicable else 1 for s in vis]


def _root_grads(tensors, grad_tensors, one_element=False):
    """The initial gradients. ``one_element`` (paddle.grad): a one-element ``grad_outputs`` entry for a
    one-element output of another shape ([1] for a 0-D loss, the pre-0-D Paddle idiom) is taken reshaped, as
    Paddle's engine does; any other shape mismatch is an error."""
    from .tensor import Tensor
    res = []
    for i, t in enumerate(tensors):
        g = grad_tensors[i] if grad_tensors is not None and i < len(grad_tensors) else None
        if g is None:
            g = Tensor._wrap(np.ones_like(t._data))
        elif not isinstance(g, Tensor):
            g = Tensor._wrap(np.asarray(g, dtype=t._data.dtype))
        if one_element and g._data.size == 1 == t._data.size and g._data.shape != t._data.shape:
            from .dispatch import run_op
            g = run_op("reshape2", g, shape=list(t._data.shape))
        if list(g._data.shape) != list(t._data.shape):
            raise GradientError(f"grad_tensor shape {list(g._data.shape)} does not match the tensor's shape "
                                f"{list(t._data.shape)}")
        res.append(g)
    return res


def backward(tensors, grad_tensors=None, retain_graph=False):
    """``paddle.autograd.backward``: accumulate d(tensors)/d(leaf) into every leaf's ``.grad``."""
    Tensor = _Tensor or _tensor_class()
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    if isinstance(grad_tensors, Tensor):
        grad_tensors = [grad_tensors]
    if any(t.stop_gradient for t in tensors):
        # Paddle: a tensor nothing of which needs a gradient contributes nothing (no error, no .grad)
        keep = [i for i, t in enumerate(tensors) if not t.stop_gradient]
        tensors = [tensors[i] for i in keep]
        if grad_tensors is not None:
            grad_tensors = [grad_tensors[i] for i in keep]
        if not tensors:
            return
    if len(tensors) == 1 and tensors[0]._node is not None:
        # an op's own whole-graph backward (a converted training step: dy2st.partial_program); it
        # returns False when the graph is not the simple case it handles
        fast = getattr(tensors[0]._node.opdef, "fast_backward", None)
        if fast is not None and fast(tensors[0], grad_tensors, retain_graph):
            if _final_hooks:
                _run_final_hooks()
            return
    _run_engine(list(tensors), _root_grads(tensors, grad_tensors), retain_graph, create_graph=False)


def _check_grad_args(outputs, inputs, grad_outputs, no_grad_vars, create_graph):
    """paddle.grad's argument checks in eager mode: AssertionErrors with Paddle's messages."""
    from .tensor import Tensor
    for value, name in ((outputs, "outputs"), (inputs, "inputs")):
        assert value is not None, f"{name} should not be None"
        if isinstance(value, (list, tuple)):
            assert len(value) > 0, f"{name} cannot be empty"
            assert all(isinstance(v, Tensor) for v in value), f"Elements of {name} must be Tensor"
        else:
            assert isinstance(value, Tensor), f"{name} must be Tensor or list of Tensor"
    if grad_outputs is not None:
        gos = grad_outputs if isinstance(grad_outputs, (list, tuple)) else [grad_outputs]
        assert all(g is None or isinstance(g, Tensor) for g in gos), \
            "grad_outputs must be None, a Variable or a list containing None or Variables"
        n_out = len(outputs) if isinstance(outputs, (list, tuple)) else 1
        assert not gos or len(gos) == n_out, "The length of grad_outputs must be equal to outputs"
    if no_grad_vars is not None and not isinstance(no_grad_vars, Tensor):
        if not isinstance(no_grad_vars, (list, tuple, set)):
            raise AssertionError("no_grad_vars must be None, Tensor or list/tuple/set of Tensors")
        assert all(isinstance(v, Tensor) for v in no_grad_vars), "no_grad_vars can only contains Tensor"
    assert isinstance(create_graph, bool), "create_graph must be True or False"


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """``paddle.grad``: gradients of ``outputs`` w.r.t. ``inputs``, returned (``.grad`` is untouched).

    ``create_graph=True`` records the backward so the gradients can be differentiated again (second-order
    rules: `runtime.double_grad`; an op without one raises a GradientError naming it when a gradient has
    to flow through it). Inside a to_static function (static mode) this is Paddle's
    ``paddle.static.gradients``: the gradient ops join the Program and are always differentiable;
    ``retain_graph``, ``create_graph``, ``only_inputs`` and ``allow_unused`` are ignored with Paddle's
    warning when not at their defaults, and an input the outputs do not use gets None."""
    from .tensor import Tensor
    if state.static:
        return _static_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs, allow_unused,
                            no_grad_vars)
    _check_grad_args(outputs, inputs, grad_outputs, no_grad_vars, create_graph)
    if create_graph:
        from .double_grad import ensure_double_grads
        ensure_double_grads()
    single = isinstance(inputs, Tensor)
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    inputs = [inputs] if single else list(inputs)
    if isinstance(grad_outputs, Tensor):
        grad_outputs = [grad_outputs]
    if retain_graph is None:
        retain_graph = create_graph
    capture = {id(t): t for t in inputs}
    blocked = []
    if no_grad_vars is not None:
        for v in ([no_grad_vars] if isinstance(no_grad_vars, Tensor) else no_grad_vars):
            if not v.stop_gradient:
                blocked.append(v)
                v.stop_gradient = True
    try:
        captured = _run_engine(outputs, _root_grads(outputs, grad_outputs, one_element=True), retain_graph,
                               create_graph, capture=capture, accumulate=False)
    finally:
        for v in blocked:
            v.stop_gradient = False
    res = []
    for k, t in enumerate(inputs):
        g = captured.get(id(t))
        if g is None and not allow_unused:
            raise UnusedInputError(
                f"The {k}-th input does not appear in the backward graph. Please check the input tensor or set "
                f"allow_unused=True to get None result. (input {k}, shape {t.shape}, is not used to compute the "
                "outputs, so it has no gradient)")
        if g is not None and not create_graph:
            g = Tensor._wrap(g._data)
        res.append(g)
    return res


def _static_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs, allow_unused,
                 no_grad_vars):
    """``paddle.grad`` while a Program is being built (to_static): Paddle's ``paddle.static.gradients``."""
    import warnings
    from .double_grad import ensure_double_grads
    from .static.backward import gradients
    from .static.builder import as_variable
    from .static.program import Variable, default_main_program
    from .tensor import Tensor
    for name, value, default in (("retain_graph", retain_graph, None), ("create_graph", create_graph, False),
                                 ("only_inputs", only_inputs, True), ("allow_unused", allow_unused, False)):
        if value != default:
            warnings.warn(f"paddle.grad has unsupported parameter in jit: {name}, jit will discard it", stacklevel=3)
    ensure_double_grads()
    block = default_main_program().current_block()

    def var(t, what):
        if isinstance(t, Variable):
            return t
        if isinstance(t, Tensor):       # an eager tensor the Program reads (a parameter): bound by name
            return as_variable(block, t)
        raise TypeError(f"paddle.grad: {what} must be Tensors, got {type(t).__name__}")

    outs = [var(t, "outputs") for t in ([outputs] if isinstance(outputs, (Tensor, Variable)) else list(outputs))]
    ins = [var(t, "inputs") for t in ([inputs] if isinstance(inputs, (Tensor, Variable)) else list(inputs))]
    if grad_outputs is not None:
        if isinstance(grad_outputs, (Tensor, Variable)):
            grad_outputs = [grad_outputs]
        grad_outputs = [None if g is None else var(g, "grad_outputs") for g in grad_outputs]
        if len(grad_outputs) != len(outs):
            raise ValueError("The length of grad_outputs must be equal to outputs")
    no_grad = None
    if no_grad_vars is not None:
        items = [no_grad_vars] if isinstance(no_grad_vars, (Tensor, Variable)) else list(no_grad_vars)
        no_grad = [var(t, "no_grad_vars") for t in items]
    program = default_main_program()
    n_ops = [len(b.ops) for b in program.blocks]
    result = gradients(outs, ins, grad_outputs, no_grad)
    # the gradient ops are part of the function's (forward) computation: an inference copy of the
    # Program (clone(for_test=True), jit.save) keeps them, as Paddle's does
    from .static.program import ROLE_FORWARD
    for k, b in enumerate(program.blocks):
        for op in b.ops[n_ops[k] if k < len(n_ops) else 0:]:
            op.role = ROLE_FORWARD
    return result
