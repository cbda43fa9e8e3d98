"""``paddle.set_flags`` / ``paddle.get_flags``: Paddle's global flags, with the meaning dy2st gives them.

Every name Paddle 3.3.1 accepts is accepted (the table in `runtime.flags_table`; any other name is a
ValueError, as in Paddle), with Paddle's value types (a value of the wrong type is Paddle's RuntimeError).
What a flag does here falls in one of four kinds:

* flags dy2st acts on: ``FLAGS_enable_pir_api`` picks the save format (when true, ``paddle.jit.save`` and
  ``paddle.static.save_inference_model`` write Paddle 3's ``prefix.json`` PIR program + ``prefix.pdiparams``
  instead of dy2st's default legacy trio ``.pdmodel`` / ``.pdiparams`` / ``.pdiparams.info``; dy2st starts
  with it false because every Paddle loader reads the legacy trio; loading reads both whatever the flag
  says). ``FLAGS_check_nan_inf`` (with ``FLAGS_check_nan_inf_level``) checks the float outputs of every
  eager op for NaN/Inf as Paddle does (level 0 raises RuntimeError naming the op; see
  `paddle.amp.debugging`; ops inside a compiled Program are not checked);
* flags with one value dy2st can honour (a PIR executor, oneDNN kernels, 1-D instead of 0-D results,
  non-strided views): reported with that value; setting another raises ValueError saying why;
* everything else (allocators, GPU/CUDA/XPU, distributed, CINN/TensorRT, logging, dumps, thread pools):
  accepted and reported back, with no effect on dy2st's numpy execution on the CPU — none of them changes
  a result Paddle computes.

As in Paddle, a ``FLAGS_*`` environment variable set before import gives the flag's starting value.
"""
from __future__ import annotations

import os

from .flags_table import PADDLE_FLAG_DEFAULTS

__all__ = ["set_flags", "get_flags"]

# flag -> (the only value dy2st can honour, why). Paddle's own default differs for the first two
# (it runs PIR); scripts and Paddle's tests read them to choose a code path, so they report ours.
_FIXED = {
    "FLAGS_enable_pir_in_executor": (False, "dy2st's executor runs legacy ProgramDescs (there is no PIR executor)"),
    "FLAGS_enable_pir_with_pt_in_dy2st": (False, "to_static builds legacy ProgramDescs here (there is no PIR)"),
    "FLAGS_use_mkldnn": (False, "dy2st's kernels are numpy; there are no oneDNN (MKL-DNN) kernels"),
    "FLAGS_use_onednn": (False, "dy2st's kernels are numpy; there are no oneDNN (MKL-DNN) kernels"),
    "FLAGS_set_to_1d": (False, "dy2st returns 0-D tensors where Paddle 3 does; the legacy 1-D results are not "
                               "implemented"),
    "FLAGS_use_stride_kernel": (True, "dy2st's view semantics are fixed"),
    "FLAGS_tensor_operants_mode": ("eager", "dy2st has one tensor operant implementation"),
}
# dy2st's own starting values where they differ from Paddle's
_DY2ST_DEFAULTS = {"FLAGS_enable_pir_api": False}
_DY2ST_DEFAULTS.update({name: value for name, (value, _why) in _FIXED.items()})


def _from_env(name, default):
    raw = os.environ.get(name)
    if raw is None:
        return default
    if isinstance(default, bool):
        return raw.strip().lower() in ("1", "true", "yes", "on")
    try:
        return type(default)(raw)
    except ValueError:
        return default


_FLAGS = {name: _from_env(name, _DY2ST_DEFAULTS.get(name, default))
          for name, default in PADDLE_FLAG_DEFAULTS.items()}


def _coerce(name, value):
    """``value`` as the flag's type, accepting what Paddle's binding accepts (bool for bool flags also from
    an int; an int flag from an int or bool; a float flag from an int or float; a str flag from a str)."""
    default = PADDLE_FLAG_DEFAULTS[name]
    kind = type(default)
    if kind is bool and isinstance(value, (bool, int)) and not isinstance(value, float):
        return bool(value)
    if kind is int and isinstance(value, int):
        return int(value)
    if kind is float and isinstance(value, (int, float)):
        return float(value)
    if kind is str and isinstance(value, str):
        return value
    raise RuntimeError(f"Unable to cast Python instance of type {type(value).__name__} to the type of flag {name} "
                       f"({kind.__name__}); pass a {kind.__name__}, e.g. {default!r}")


def _apply(name, value):
    """Side effects of the flags dy2st acts on."""
    if name in ("FLAGS_check_nan_inf", "FLAGS_check_nan_inf_level"):
        from .amp import debugging
        debugging._set_flag_checker(_FLAGS["FLAGS_check_nan_inf"], _FLAGS["FLAGS_check_nan_inf_level"])


def set_flags(flags):
    """``paddle.set_flags``: set global flags from a dict ``{name: value}``. A flag Paddle does not have raises
    ValueError as in Paddle; a value dy2st cannot honour raises ValueError saying why. Nothing is set when
    any entry is refused."""
    if not isinstance(flags, dict):
        raise TypeError("flags in set_flags should be a dict")
    updates = []
    for name, value in flags.items():
        if name not in _FLAGS:
            raise ValueError(f"Flag {name} cannot set its value through this function.")
        value = _coerce(name, value)
        fixed = _FIXED.get(name)
        if fixed is not None and value != fixed[0]:
            raise ValueError(f"Flag {name} cannot be set to {value!r} in dy2st: {fixed[1]}; only {fixed[0]!r} "
                             "is supported")
        updates.append((name, value))
    for name, value in updates:
        _FLAGS[name] = value
        _apply(name, value)


def get_flags(flags):
    """``paddle.get_flags``: ``{name: value}`` for a flag name or a list/tuple of names; a flag Paddle does not
    have raises ValueError as in Paddle."""
    if isinstance(flags, str):
        names = [flags]
    elif isinstance(flags, (list, tuple)):
        names = list(flags)
    else:
        raise TypeError("Flags in get_flags should be a list, tuple or string.")
    out = {}
    for name in names:
        if name not in _FLAGS:
            raise ValueError(f"Flag {name} cannot get its value through this function.")
        out[name] = _FLAGS[name]
    return out


def flag_names():
    """Every flag name, sorted (``core.globals().keys()``)."""
    return sorted(_FLAGS)


def pir_format_enabled():
    """True when saves should write the PIR format (``FLAGS_enable_pir_api``)."""
    return bool(_FLAGS["FLAGS_enable_pir_api"])


if _FLAGS["FLAGS_check_nan_inf"]:   # set from the environment before import, as Paddle reads it
    _apply("FLAGS_check_nan_inf", True)
