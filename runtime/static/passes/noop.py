"""Removal of ops that return their input's value unchanged; their readers read the input.

* ``scale`` with scale 1, bias 0 and no ScaleTensor/BiasTensor (x * 1 + 0 is x in every dtype);
* ``assign`` (a copy: kernels never write into their inputs, so readers may share the value);
* ``cast`` to the dtype its input already has, when that dtype is sure at compile time: the
  input is the output of another cast, or a persistable/eagerly bound value of that dtype
  (static dtypes of other values are inferred and a kernel may differ, e.g. numpy promotion);
* ``reshape2`` to the input's own fully known static shape with no shape tensors.

The input must have one value during the run and the output must be free to rename (not fetched,
persistable or used by control flow); an intermediate XShape output must be unread.
"""
from __future__ import annotations

from ..program import VarType
from .analysis import ReadIndex, Uses, intermediate_outputs, remove_ops


def _var(block, n):
    return block._find_var_recursive(n)


def _sure_dtype(uses, block, n):
    """The numpy dtype ``n`` surely has at run time, or None."""
    t = block.program._eager_bindings.get(n)
    if t is not None:
        return t._data.dtype
    v = _var(block, n)
    if v is None:
        return None
    if v.persistable:
        return v.dtype.np
    op = uses.producer(n)
    if op is not None and op.type == "cast":
        return v.dtype.np
    return None


def _is_noop(op, uses, block):
    x = _var(block, op.inputs["X"][0]) if op.inputs.get("X") else None
    if x is None or x.type != VarType.LOD_TENSOR:
        return False
    if op.type == "scale":
        return (not op.inputs.get("ScaleTensor") and not op.inputs.get("BiasTensor")
                and float(op.attrs.get("scale", 1.0)) == 1.0 and float(op.attrs.get("bias", 0.0)) == 0.0)
    if op.type == "assign":
        return bool(op.inputs.get("X"))
    if op.type == "cast":
        x, out = _var(block, op.inputs["X"][0]), _var(block, op.outputs["Out"][0])
        if x is None or out is None or x.type != VarType.LOD_TENSOR:
            return False
        sure = _sure_dtype(uses, block, x.name)
        return sure is not None and sure == out.dtype.np
    if op.type == "reshape2":
        if op.inputs.get("Shape") or op.inputs.get("ShapeTensor"):
            return False
        x, out = _var(block, op.inputs["X"][0]), _var(block, op.outputs["Out"][0])
        return (x is not None and out is not None and -1 not in x.shape and x.shape == out.shape
                and len(x.shape) > 0 and x.type == VarType.LOD_TENSOR)
    return False


def run(program, feed_names, fetch_names):
    uses = Uses(program, feed_names, fetch_names)
    block = program.global_block()
    dead = set()
    reads = ReadIndex(block)
    for op in block.ops:
        if op.type not in ("scale", "assign", "cast", "reshape2") or not _is_noop(op, uses, block):
            continue
        src = op.inputs["X"][0]
        out = op.outputs["Out"][0]
        if not uses.stable(src) or not uses.free(out) or any(uses.reads[n] for n in intermediate_outputs(op)):
            continue
        reads.rename(out, src)
        dead.add(id(op))
    remove_ops(block, dead)
    return len(dead)
