"""``paddle.autograd.saved_tensors_hooks(pack_hook, unpack_hook)``: hooks on the values the tape keeps.

Inside the context, every grad node recorded hands each tensor it keeps for its backward (its tensor
inputs, and its outputs when the op's grad rule reads them) to ``pack_hook`` and keeps only what that
returns; when ``backward`` reaches the node, ``unpack_hook`` turns each packed object back into the
Tensor the grad rule computes with (on every backward, so ``retain_graph=True`` works). Contexts nest:
the innermost one applies. Typical use: offload saved activations (pack to numpy, unpack to a Tensor).

Difference from Paddle: Paddle packs only the tensors each op's grad kernel needs (none for ``add``,
the output for ``exp``); a node here packs every tensor input it keeps, since the grad rules are
general Python. Hooks that return the value they were given (offloading, compressing losslessly)
give the same gradients; a hook that changes values may change a gradient differently from Paddle.
"""
from __future__ import annotations

import weakref

from . import autograd as _tape

__all__ = ["saved_tensors_hooks"]

# node -> ([(input position, element index or -1, packed)], [(output index, packed)])
_packed = weakref.WeakKeyDictionary()
_stack: list = []


class saved_tensors_hooks:
    """Context manager: ``with paddle.autograd.saved_tensors_hooks(pack_hook, unpack_hook): ...``.
    ``pack_hook(tensor) -> anything``; ``unpack_hook(that) -> Tensor``."""

    def __init__(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks: pack_hook and unpack_hook must be callables, got "
                            f"{type(pack_hook).__name__} and {type(unpack_hook).__name__}")
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _stack.append(self)
        _tape._saved_hooks = self
        _tape._saved_hooks_used = True
        return self

    def __exit__(self, *exc):
        _stack.pop()
        _tape._saved_hooks = _stack[-1] if _stack else None
        return False

    # -- called by the tape -------------------------------------------------------------------
    def pack_node(self, node):
        """Replace the values ``node`` keeps by what ``pack_hook`` makes of them."""
        from .tensor import Tensor
        ins, outs = [], []
        new_inputs = []
        for i, x in enumerate(node.inputs):
            if isinstance(x, Tensor):
                ins.append((i, -1, self._pack(x)))
                new_inputs.append(None)
            elif isinstance(x, (list, tuple)):
                items = []
                for j, t in enumerate(x):
                    if isinstance(t, Tensor):
                        ins.append((i, j, self._pack(t)))
                        items.append(None)
                    else:
                        items.append(t)
                new_inputs.append(items)
            else:
                new_inputs.append(x)
        if node.out_data is not None:
            for k, arr in enumerate(node.out_data):
                if arr is not None:
                    outs.append((k, self._pack(Tensor._wrap(arr))))
            node.out_data = [None] * len(node.out_data)
        node.inputs = new_inputs
        _packed[node] = (ins, outs, self.unpack_hook)

    def _pack(self, t):
        # the hook gets a detached tensor that shares the value (as Paddle's saved tensors)
        from .tensor import Tensor
        view = Tensor._wrap(t._data, True)
        view._name = t._name
        return self.pack_hook(view)


def unpack_node(node):
    """Before ``node``'s grad rule runs: put back its kept values from ``unpack_hook``."""
    entry = _packed.get(node)
    if entry is None or node.inputs is None:
        return
    from .tensor import Tensor
    ins, outs, unpack = entry
    inputs = [list(v) if isinstance(v, (list, tuple)) else v for v in node.inputs]
    for i, j, p in ins:
        t = _unpacked(unpack, p, Tensor)
        if j < 0:
            inputs[i] = t
        else:
            inputs[i][j] = t
    node.inputs = inputs
    if outs:
        data = list(node.out_data)
        for k, p in outs:
            data[k] = _unpacked(unpack, p, Tensor)._data
        node.out_data = data


def _unpacked(unpack, packed, Tensor):
    t = unpack(packed)
    if not isinstance(t, Tensor):
        raise TypeError(f"saved_tensors_hooks: unpack_hook must return a paddle Tensor, got {type(t).__name__} "
                        "(it receives what pack_hook returned; rebuild the tensor, e.g. paddle.to_tensor(x))")
    return t
