"""``paddle.set_flags`` / ``paddle.get_flags``: the few global flags dy2st gives a meaning to.

``FLAGS_enable_pir_api``: when true, ``paddle.jit.save`` and ``paddle.static.save_inference_model``
write Paddle 3's default model format (``prefix.json`` PIR program + ``prefix.pdiparams``)
instead of dy2st's default legacy trio (``.pdmodel`` / ``.pdiparams`` / ``.pdiparams.info``).
dy2st starts with it false (its default format is the one every Paddle loader reads); the
environment variable of the same name, set before import, sets the initial value as in Paddle.
Loading reads both formats whatever the flag says.
"""
from __future__ import annotations

import os

__all__ = ["set_flags", "get_flags"]


def _env_bool(name, default):
    v = os.environ.get(name)
    if v is None:
        return default
    return v.strip().lower() in ("1", "true", "yes", "on")


# name -> (type, value). FLAGS_enable_pir_api picks the save format (see above). The others are Paddle
# flags that scripts and Paddle's own dy2st tests read to choose a code path; dy2st reports the value
# that describes it (legacy ProgramDescs on its own executor, no oneDNN) and refuses a value it cannot
# honour (a PIR executor, oneDNN kernels) with an error naming the flag, instead of pretending.
_FLAGS = {
    "FLAGS_enable_pir_api": [bool, _env_bool("FLAGS_enable_pir_api", False)],
    "FLAGS_enable_pir_in_executor": [bool, False],
    "FLAGS_enable_pir_with_pt_in_dy2st": [bool, False],
    "FLAGS_use_mkldnn": [bool, False],
    "FLAGS_use_onednn": [bool, False],
}
# flag -> the only value dy2st can honour, and why
_FIXED = {
    "FLAGS_enable_pir_in_executor": (False, "dy2st's executor runs legacy ProgramDescs (there is no PIR executor)"),
    "FLAGS_enable_pir_with_pt_in_dy2st": (False, "to_static builds legacy ProgramDescs here (there is no PIR)"),
    "FLAGS_use_mkldnn": (False, "dy2st's kernels are numpy; there are no oneDNN (MKL-DNN) kernels"),
    "FLAGS_use_onednn": (False, "dy2st's kernels are numpy; there are no oneDNN (MKL-DNN) kernels"),
}


def _coerce(name, typ, value):
    if typ is bool:
        if isinstance(value, str):
            return value.strip().lower() in ("1", "true", "yes", "on")
        return bool(value)
    return typ(value)


def set_flags(flags):
    """``paddle.set_flags``: set global flags from a dict ``{name: value}``. A flag dy2st does not know
    raises ValueError as in Paddle; one whose value dy2st cannot honour raises ValueError saying why."""
    if not isinstance(flags, dict):
        raise TypeError("flags in set_flags should be a dict")
    for name, value in flags.items():
        if name not in _FLAGS:
            raise ValueError(f"Flag {name} cannot set its value through this function. (dy2st knows "
                             f"{sorted(_FLAGS)})")
        value = _coerce(name, _FLAGS[name][0], value)
        fixed = _FIXED.get(name)
        if fixed is not None and value != fixed[0]:
            raise ValueError(f"Flag {name} cannot be set to {value!r} in dy2st: {fixed[1]}; only {fixed[0]!r} "
                             "is supported")
        _FLAGS[name][1] = value


def get_flags(flags):
    """``paddle.get_flags``: ``{name: value}`` for a flag name or a list/tuple of names; a flag dy2st does not
    know raises ValueError as in Paddle."""
    if isinstance(flags, str):
        names = [flags]
    elif isinstance(flags, (list, tuple)):
        names = list(flags)
    else:
        raise TypeError("Flags in get_flags should be a list, tuple or string.")
    out = {}
    for name in names:
        if name not in _FLAGS:
            raise ValueError(f"Flag {name} cannot get its value through this function. (dy2st knows "
                             f"{sorted(_FLAGS)})")
        out[name] = _FLAGS[name][1]
    return out


def pir_format_enabled():
    """True when saves should write the PIR format (``FLAGS_enable_pir_api``)."""
    return bool(_FLAGS["FLAGS_enable_pir_api"][1])
