"""The per-op autocast rule `run_op` applies while ``paddle.amp.auto_cast`` is on (Paddle's eager AMP).

For each op: a white-list op computes in the AMP dtype; a black-list op in float32; any other op at O1/O2
(with ``use_promote``) computes in float32 if one of its floating inputs is float32, else in the AMP dtype;
at OD every other op is float32. Only float16/float32 inputs are cast (float64 and integers are left alone),
as Paddle's ``NeedCast`` does. Normalization ops cast only their input ``X``: their scale, bias and statistics
stay float32, as Paddle keeps them. The lists are looked up by the op's fluid type (``matmul_v2``,
``reduce_sum``: Paddle's eager mode translates its op names back to these, ``TransToFluidOpName``) and also
by Paddle 3's op name (``matmul``, ``sum``) so custom lists written either way apply.

bfloat16: numpy has no bfloat16, so tensors keep float32 storage; the inputs of white-list ops are rounded
to bfloat16 precision (round to nearest even on the top 16 bits) with a straight-through gradient, which is
what a bfloat16 kernel accumulating in float32 sees. A warning says so once per process. While a Program is
being built (to_static) the casts are staged as ``cast`` ops; bfloat16 rounding is eager only.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..framework import state

# our (fluid) op types -> Paddle 3's op names, which users may also write in custom lists
PADDLE_NAMES = {
    "matmul_v2": "matmul", "elementwise_add": "add", "elementwise_sub": "subtract",
    "elementwise_mul": "multiply", "elementwise_div": "divide", "elementwise_pow": "elementwise_pow",
    "reduce_sum": "sum", "reduce_mean": "mean", "reduce_prod": "prod", "reduce_max": "max", "reduce_min": "min",
    "lookup_table_v2": "embedding", "softmax_with_cross_entropy": "cross_entropy_with_softmax",
    "depthwise_conv2d": "depthwise_conv2d", "p_norm": "p_norm", "fill_constant": "full",
}

_NORM_OPS = {"batch_norm", "layer_norm", "instance_norm", "group_norm", "sync_batch_norm"}
_NEVER = {"cast", "assign", "fill_constant", "feed", "fetch", "py_func", "share_data", "memcpy"}

_bf16_warned = []


class AmpState:
    """What one ``auto_cast`` region asks for; `run_op` calls `cast_inputs` while it is on."""

    __slots__ = ("level", "dtype", "white", "black", "use_promote", "custom_white", "custom_black")

    def __init__(self, level, dtype, white, black, use_promote, custom_white=(), custom_black=()):
        self.level = level
        self.dtype = dtype
        self.white = white
        self.black = black
        self.use_promote = use_promote
        # the user's own lists win over the defaults whichever name they use (matmul or matmul_v2)
        self.custom_white = frozenset(custom_white or ())
        self.custom_black = frozenset(custom_black or ())

    def dest_dtype(self, op_type, float_dtypes):
        """'float32', the AMP dtype, or None (leave the op alone), as Paddle's ``GetAmpDestDtype``."""
        name = PADDLE_NAMES.get(op_type, op_type)
        amp = self.dtype
        if op_type in self.custom_black or name in self.custom_black:
            return "float32"
        if op_type in self.custom_white or name in self.custom_white:
            return amp
        if self.level == "O2" and not self.use_promote:
            return "float32" if (op_type in self.black or name in self.black) else amp
        if op_type in self.white or name in self.white:
            return amp
        if op_type in self.black or name in self.black:
            return "float32"
        if self.level == "OD":
            return "float32"
        return "float32" if "float32" in float_dtypes else amp

    def cast_inputs(self, opdef, inputs):
        if opdef.type in _NEVER:
            return inputs
        float_dtypes = set()
        for x in inputs:
            for t in (x if isinstance(x, (list, tuple)) else (x,)):
                k = _np_dtype(t)
                if k is not None:
                    if k == np.float32:
                        float_dtypes.add("float32")
                    elif k == np.float16:
                        float_dtypes.add("float16")
        if not float_dtypes:
            return inputs
        dst = self.dest_dtype(opdef.type, float_dtypes)
        if dst == "bfloat16":
            if state.static:
                # the eager emulation rounds values at run time; a Program has no op for that yet, and
                # leaving the inputs in float32 would give other numbers than eager and Paddle
                raise NotImplementedError(
                    f"paddle.amp.auto_cast(dtype='bfloat16') while a Program is built (static mode or "
                    f"@paddle.jit.to_static): dy2st emulates bfloat16 by rounding float32 values eagerly, which "
                    f"a Program cannot do yet (op '{opdef.type}'); run this code eagerly "
                    "(paddle.jit.enable_to_static(False)) or use dtype='float16'")
            return self._bf16(opdef, inputs)
        if dst == "float16" and float_dtypes == {"float16"} or dst == "float32" and float_dtypes == {"float32"}:
            return inputs
        target = np.float16 if dst == "float16" else np.float32
        only_first = opdef.type in _NORM_OPS
        out = list(inputs)
        for i, x in enumerate(inputs):
            if only_first and i > 0:
                break
            if isinstance(x, (list, tuple)):
                out[i] = [_cast(t, target) for t in x]
            else:
                out[i] = _cast(x, target)
        return tuple(out)

    def _bf16(self, opdef, inputs):
        if not _bf16_warned:
            _bf16_warned.append(True)
            warnings.warn("paddle.amp.auto_cast(dtype='bfloat16'): numpy has no bfloat16, so dy2st keeps float32 "
                          "storage and rounds the inputs of white-list ops (matmul, conv2d, ...) to bfloat16 "
                          "precision; results report dtype float32", UserWarning, stacklevel=4)
        out = list(inputs)
        for i, x in enumerate(inputs):
            if isinstance(x, (list, tuple)):
                out[i] = [_round_bf16(t) for t in x]
            else:
                out[i] = _round_bf16(x)
        return tuple(out)


def _np_dtype(t):
    """The numpy dtype of an eager Tensor or a Program Variable (None for anything else)."""
    from ..tensor import Tensor
    if isinstance(t, Tensor):
        return t._data.dtype
    from ..static.program import Variable
    if isinstance(t, Variable):
        return np.dtype(t.dtype.np)
    return None


def _cast(t, target):
    k = _np_dtype(t)
    if k is None or k not in (np.float16, np.float32) or k == target:
        return t
    return t.astype("float16" if target == np.float16 else "float32")


def round_to_bfloat16(a: np.ndarray) -> np.ndarray:
    """float32 values rounded to the nearest bfloat16 (ties to even), still as float32; inf/nan kept."""
    a = np.ascontiguousarray(a, dtype=np.float32)
    bits = a.view(np.uint32)
    rounded = ((bits + np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1))) & np.uint32(0xFFFF0000)).astype(np.uint32)
    out = rounded.view(np.float32)
    return np.where(np.isfinite(a), out, a)


def _round_bf16(t):
    from ..tensor import Tensor
    if not isinstance(t, Tensor) or t._data.dtype != np.float32:
        return t
    from .bf16_round import BF16Round
    return BF16Round.apply(t)
