"""Static-mode helpers the newer optimizers share: make the op just appended write an existing variable
(Adamax's ``beta1_pow *= beta1``, ASGD's step counter and gradient ring). The update ops themselves need
nothing: the static builder points their ``*Out``/``*_out`` outputs at the inputs by the op's ``inplace``
schema (runtime/ops/optimizer_ops_extra.py)."""
from __future__ import annotations

from ..dispatch import run_op
from ..framework import state

__all__ = ["scale_accumulator", "write_last_output"]


def _current_block():
    from ..static.program import default_main_program
    return default_main_program().global_block()


def scale_accumulator(acc, factor):
    """``acc *= factor`` (eager: the tensor's data; static: a ``scale`` op writing ``acc``)."""
    out = run_op("scale", acc, None, None, scale=float(factor), bias=0.0, bias_after_scale=True)
    if not state.static:
        acc._data = out._data
        return
    write_last_output(out, acc)


def write_last_output(out, target):
    """Static mode: make the op just appended (whose result is ``out``) write ``target`` instead."""
    block = _current_block()
    block.ops[-1]._rename_output(out.name, target.name)
    block.vars.pop(out.name, None)
    block.program._bump()
    return target


def check_master_weights(opt, params):
    """``multi_precision=True`` with float16 parameters needs float32 master weights, which these
    optimizers do not keep: refuse rather than update in float16 silently."""
    if not getattr(opt, "_multi_precision", False):
        return
    import numpy as np
    low = [p.name for p in params if np.dtype(p._data.dtype) == np.float16]
    if low:
        raise NotImplementedError(f"{type(opt).__name__}(multi_precision=True): float32 master weights for float16 "
                                  f"parameters are not implemented (parameters {low[:3]}); keep the parameters in "
                                  "float32 or pass multi_precision=False")
