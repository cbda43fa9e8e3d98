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


_FLAGS = {"FLAGS_enable_pir_api": _env_bool("FLAGS_enable_pir_api", False)}
_TYPES = {"FLAGS_enable_pir_api": bool}


def set_flags(flags):
    """Set global flags from a dict ``{name: value}``; unknown names raise ValueError (as Paddle)."""
    if not isinstance(flags, dict):
        raise TypeError(f"set_flags: flags must be a dict, got {type(flags).__name__}")
    for name, value in flags.items():
        if name not in _FLAGS:
            raise ValueError(f"Flag {name} cannot set its value through this function (dy2st knows "
                             f"{sorted(_FLAGS)})")
        typ = _TYPES[name]
        if typ is bool and isinstance(value, str):
            value = value.strip().lower() in ("1", "true", "yes", "on")
        _FLAGS[name] = typ(value)


def get_flags(flags):
    """``{name: value}`` for a flag name or a list of names."""
    names = [flags] if isinstance(flags, str) else list(flags)
    out = {}
    for name in names:
        if name not in _FLAGS:
            raise ValueError(f"Flag {name} is not a flag dy2st knows ({sorted(_FLAGS)})")
        out[name] = _FLAGS[name]
    return out


def pir_format_enabled():
    """True when saves should write the PIR format (``FLAGS_enable_pir_api``)."""
    return bool(_FLAGS["FLAGS_enable_pir_api"])
