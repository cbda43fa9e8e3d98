"""Paddle's fixed-mode padding layers: Constant / Reflection / Replication / Circular / Zero Pad in
1-D, 2-D and 3-D (subclasses of Pad1D / Pad2D / Pad3D with the mode set), and their lower-case aliases."""
from __future__ import annotations

from .common import Pad1D, Pad2D, Pad3D, ZeroPad2D

_BASES = {1: (Pad1D, "NCL"), 2: (Pad2D, "NCHW"), 3: (Pad3D, "NCDHW")}


def _fixed_mode(mode, nd, with_value=False):
    base, fmt = _BASES[nd]
    if with_value:
        def __init__(self, padding, value, data_format=fmt, name=None):
            base.__init__(self, padding, mode, value, data_format, name)
    else:
        def __init__(self, padding, data_format=fmt, name=None):
            base.__init__(self, padding, mode, 0.0, data_format, name)
    return __init__


def _make(prefix, mode, nd, with_value=False):
    """A ``Pad{nd}D`` subclass named ``{prefix}{nd}D`` whose mode is fixed."""
    base = _BASES[nd][0]
    doc = f"``{base.__name__}`` with mode='{mode}'" + (" and a fill value" if with_value else "") + "."
    return type(f"{prefix}{nd}D", (base,), {"__init__": _fixed_mode(mode, nd, with_value), "__doc__": doc,
                                            "__module__": __name__})


__all__ = []
for _prefix, _mode, _value in (("ConstantPad", "constant", True), ("ReflectionPad", "reflect", False),
                               ("ReplicationPad", "replicate", False), ("CircularPad", "circular", False),
                               ("ZeroPad", "constant", False)):
    for _nd in (1, 2, 3):
        if _prefix == "ZeroPad" and _nd == 2:
            _cls = ZeroPad2D   # defined with the other common layers
        else:
            _cls = _make(_prefix, _mode, _nd, _value)
            globals()[_cls.__name__] = _cls
            __all__.append(_cls.__name__)
        globals()[f"{_prefix}{_nd}d"] = _cls
        __all__.append(f"{_prefix}{_nd}d")
