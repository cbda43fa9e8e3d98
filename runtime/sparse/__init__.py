"""paddle.sparse: COO and CSR sparse tensors, their math, and sparse.nn (see tensor.py for the design)."""
from . import creation as _creation  # noqa: F401  (also attaches the dense Tensor's sparse methods)
from .binary import (add, divide, is_same_shape, mask_as, masked_matmul, matmul, multiply, mv,  # noqa: F401
                     subtract)
from .multiary import addmm  # noqa: F401
from .creation import sparse_coo_tensor, sparse_csr_tensor  # noqa: F401
from .tensor import SparseCooTensor, SparseCsrTensor  # noqa: F401
from .unary import (abs, asin, asinh, atan, atanh, cast, coalesce, deg2rad, expm1, isnan, log1p,  # noqa: F401
                    neg, pca_lowrank, pow, rad2deg, reshape, sin, sinh, slice, sqrt, square, sum, tan, tanh,
                    transpose)
from . import nn  # noqa: F401

__all__ = ["sparse_coo_tensor", "sparse_csr_tensor", "sin", "tan", "asin", "atan", "sinh", "tanh", "asinh",
           "atanh", "sqrt", "square", "log1p", "abs", "pow", "pca_lowrank", "cast", "neg", "deg2rad", "rad2deg",
           "expm1", "mv", "matmul", "mask_as", "masked_matmul", "addmm", "add", "subtract", "transpose", "sum",
           "multiply", "divide", "coalesce", "is_same_shape", "reshape", "isnan", "slice"]
