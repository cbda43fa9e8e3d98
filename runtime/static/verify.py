"""The Program verifier: structural checks run after every pass and in tests.

Checks that every op type is registered; attrs are exactly the schema's with values of
the declared types; sub-block indices are valid and their parent is the op's block;
every variable an op reads is defined in its block or an ancestor and is produced before
it is read (or is persistable, fed data, or a loop-carried value); and re-running
``infer_meta`` agrees with the recorded output shapes and dtypes.
"""
from __future__ import annotations

import numpy as np

from ..errors import UnknownOpError
from ..ops.registry import lookup


class ProgramVerifyError(ValueError):
    """A Program is malformed; the message names the block, the op and the problem."""


_CHECKS = {
    "INT": lambda v: isinstance(v, (int, np.integer)) and not isinstance(v, bool),
    "LONG": lambda v: isinstance(v, (int, np.integer)) and not isinstance(v, bool),
    "FLOAT": lambda v: isinstance(v, (int, float, np.floating, np.integer)) and not isinstance(v, bool),
    "FLOAT64": lambda v: isinstance(v, (int, float, np.floating)) and not isinstance(v, bool),
    "STRING": lambda v: isinstance(v, str),
    "BOOLEAN": lambda v: isinstance(v, (bool, np.bool_)),
    "INTS": lambda v: isinstance(v, (list, tuple)) and all(_CHECKS["INT"](x) for x in v),
    "LONGS": lambda v: isinstance(v, (list, tuple)) and all(_CHECKS["INT"](x) for x in v),
    "FLOATS": lambda v: isinstance(v, (list, tuple)) and all(_CHECKS["FLOAT"](x) for x in v),
    "FLOAT64S": lambda v: isinstance(v, (list, tuple)) and all(_CHECKS["FLOAT"](x) for x in v),
    "STRINGS": lambda v: isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v),
    "BOOLEANS": lambda v: isinstance(v, (list, tuple)) and all(isinstance(x, (bool, np.bool_)) for x in v),
    "BLOCK": lambda v: v is None or isinstance(v, int),
    "BLOCKS": lambda v: isinstance(v, (list, tuple)),
    "SCALAR": lambda v: v is None or isinstance(v, (bool, int, float, complex, np.generic)),
    "SCALARS": lambda v: isinstance(v, (list, tuple)),
    "VAR": lambda v: v is None or isinstance(v, str),
    "VARS": lambda v: isinstance(v, (list, tuple)),
}


def _compatible(recorded, inferred):
    if len(recorded) != len(inferred):
        return False
    return all(a == b or a == -1 or b == -1 for a, b in zip(recorded, inferred))


def verify_program(program):
    problems = []
    for blk in program.blocks:
        if blk.idx > 0 and not (0 <= blk.parent_idx < blk.idx):
            problems.append(f"block {blk.idx}: invalid parent_idx {blk.parent_idx}")
    for blk in program.blocks:
        # values visible in this block: its own persistables/data, then every variable of its ancestors
        # (looked up in their dicts: copying the global block's variables into a set per sub-block
        # made verification quadratic in programs with many control-flow ops)
        defined = {v.name for v in blk.vars.values() if v.persistable or v.is_data}
        outer = []
        b = blk.parent_block
        while b is not None:
            outer.append(b.vars)
            b = b.parent_block
        for i, op in enumerate(blk.ops):
            where = f"block {blk.idx}, op {i} '{op.type}'" + (f" (built at {op.user_location()})"
                                                               if op.callstack else "")
            try:
                opdef = lookup(op.type)
            except UnknownOpError as e:
                problems.append(f"{where}: {e}")
                continue
            for name, (typ, _) in opdef.attrs.items():
                if name not in op.attrs:
                    problems.append(f"{where}: attribute '{name}' is missing")
                elif not _CHECKS[typ](op.attrs[name]):
                    problems.append(f"{where}: attribute '{name}' = {op.attrs[name]!r} is not a valid {typ}")
            for name in op.attrs:
                if name not in opdef.attrs:
                    problems.append(f"{where}: attribute '{name}' is not declared by the op")
            for sid in op.sub_block_ids():
                if not (0 < sid < program.num_blocks):
                    problems.append(f"{where}: sub-block index {sid} out of range")
                elif program.blocks[sid].parent_idx != blk.idx:
                    problems.append(f"{where}: sub-block {sid} has parent {program.blocks[sid].parent_idx}, "
                                    f"expected {blk.idx}")
            slots = {s.name for s in opdef.inputs}
            for slot, names in op.inputs.items():
                if slot not in slots:
                    problems.append(f"{where}: unknown input slot '{slot}'")
                for n in names:
                    if blk._find_var_recursive(n) is None:
                        problems.append(f"{where}: input {slot}='{n}' is not a variable of this block or "
                                        "its ancestors")
                    elif (n not in defined and opdef.interpret is None and op.type != "while"
                          and not _declared_in(n, outer)):
                        problems.append(f"{where}: input {slot}='{n}' is read before any op writes it")
            for slot, names in op.outputs.items():
                for n in names:
                    if blk._find_var_recursive(n) is None:
                        problems.append(f"{where}: output {slot}='{n}' is not a variable of this block or "
                                        "its ancestors")
                    defined.add(n)
            if opdef.interpret is None:
                _check_meta(blk, op, opdef, where, problems)
    if problems:
        raise ProgramVerifyError("Program failed verification:\n  " + "\n  ".join(problems))


def _declared_in(name, var_dicts):
    """``name`` names a variable of one of the blocks whose ``vars`` are ``var_dicts``."""
    for vs in var_dicts:
        v = vs.get(name)
        if v is not None and v.name == name:
            return True
    return False


def _check_meta(blk, op, opdef, where, problems):
    metas = []
    try:
        for slot in opdef.inputs:
            names = op.inputs.get(slot.name, [])
            vs = [blk._var_recursive(n).meta for n in names]
            metas.append(vs if slot.duplicable else (vs[0] if vs else None))
        res = opdef.infer_meta(*metas, **op.attrs)
    except Exception as e:   # a malformed op: report, don't crash the verifier
        problems.append(f"{where}: infer_meta failed: {type(e).__name__}: {e}")
        return
    if len(opdef.outputs) == 1:
        res = (res,)
    for slot, meta in zip(opdef.outputs, res):
        names = op.outputs.get(slot.name, [])
        if meta is None or not names:
            continue
        metas_ = meta if isinstance(meta, list) else [meta]
        for n, m in zip(names, metas_):
            v = blk._find_var_recursive(n)
            if v is None or m is None:
                continue
            if not _compatible(tuple(v.shape), tuple(m.shape)):
                problems.append(f"{where}: output {slot}='{n}' has shape {v.shape} but infer_meta gives "
                                f"{list(m.shape)}")
            elif v.dtype.np != np.dtype(m.dtype) and slot.name not in opdef.inplace:
                problems.append(f"{where}: output {slot}='{n}' has dtype {v.dtype.name} but infer_meta gives "
                                f"{np.dtype(m.dtype)}")
