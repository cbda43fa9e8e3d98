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
from runtime.api import (attribute_extra, manipulation_extra, math_extra, random_extra,  # noqa: E402
                         reduction_extra, scatter_extra, special)

from . import _extra

__all__ = []
for _mod in (creation, indexing, linalg, logic, manipulation, math, random, reduction, search, complex,
             linalg_decomp, linalg_solve, tensor_extra, composite_extra, histogramdd, aliases, inplace_extra,
             manipulation_extra, math_extra, reduction_extra, special, random_extra, scatter_extra, attribute_extra,
             _extra, _linalg_package, _signal):
    for _name in getattr(_mod, "__all__", ()):
        if _name not in __all__:
            globals()[_name] = getattr(_mod, _name)
            __all__.append(_name)
del _mod, _name

# Tensor-method-only functions (add_, clip_, fill_diagonal_ ...), after every module above so none shadows them
from . import _methods  # noqa: E402
_method_name = None
for _method_name in _methods.__all__:
    if _method_name not in __all__:
        globals()[_method_name] = getattr(_methods, _method_name)
        __all__.append(_method_name)
del _method_name
