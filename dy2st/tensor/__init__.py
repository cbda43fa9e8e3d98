"""``paddle.tensor``: the tensor functions (and their submodule paths ``paddle.tensor.math``, ...).

The package also keeps the names of `runtime.tensor` (Tensor, Parameter, ...) that ``dy2st.tensor``
gave before it became this package.
"""
from runtime.tensor import Parameter, Tensor, is_tensor, set_printoptions  # noqa: F401

from . import (array, attribute, creation, einsum, linalg, logic, manipulation, math, ops, random,  # noqa: F401,E402
               search, stat, to_string)
from ._all import *  # noqa: F401,F403,E402
from ._all import __all__ as _functions  # noqa: E402

__all__ = ["Tensor", "Parameter", "is_tensor", "set_printoptions", *_functions]
