"""Every tensor function of our API, for the ``paddle.tensor.*`` path modules.

Paddle spreads its tensor functions over ``paddle.tensor.math``, ``.manipulation``, ``.creation``,
... in a grouping that differs from ours, so each path module re-exports all of them: a name
Paddle puts in a given module is found there whenever we implement it. Earlier modules win a
name defined twice; the linear-algebra package (``paddle.linalg``'s implementation) and stft / istft
(``paddle.signal``'s) come last.
"""
from runtime import linalg as _linalg_package, signal as _signal
from runtime.api import (aliases, complex, composite_extra, creation, histogramdd, indexing, inplace_extra,  # noqa: F401
                         linalg, linalg_decomp, linalg_solve, logic, manipulation, math, random, reduction,
                         search, tensor_extra)

from . import _extra

__all__ = []
for _mod in (creation, indexing, linalg, logic, manipulation, math, random, reduction, search, complex,
             linalg_decomp, linalg_solve, tensor_extra, composite_extra, histogramdd, aliases, inplace_extra, _extra,
             _linalg_package, _signal):
    for _name in getattr(_mod, "__all__", ()):
        if _name not in __all__:
            globals()[_name] = getattr(_mod, _name)
            __all__.append(_name)
del _mod, _name
