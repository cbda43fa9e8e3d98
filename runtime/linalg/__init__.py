"""``paddle.linalg``: the linear-algebra namespace, Paddle 3.3.1's ``paddle.linalg.__all__``.

The functions live in `runtime.api.linalg` (norms, products, statistics), `runtime.api.linalg_solve`
(solvers, factorizations) and `runtime.api.linalg_decomp` (decompositions); their ops in
runtime/ops/linalg.py and linalg_decomp.py. This package is the public path ``paddle.linalg.*``.
"""
from ..api.linalg import (  # noqa: F401
    cond, corrcoef, cov, cross, diagonal, fp8_fp8_half_gemm_fused, matmul, matrix_exp, matrix_norm,
    matrix_power, matrix_rank, matrix_transpose, multi_dot, norm, vecdot, vector_norm,
)
from ..api.linalg_decomp import (  # noqa: F401
    eig, eigh, eigvals, eigvalsh, householder_product, ormqr, pca_lowrank, pinv, qr, svd, svd_lowrank, svdvals,
)
from ..api.linalg_solve import (  # noqa: F401
    cholesky, cholesky_inverse, cholesky_solve, det, inv, lstsq, lu, lu_solve, lu_unpack, slogdet, solve,
    triangular_solve,
)

__all__ = [
    "cholesky", "cholesky_inverse", "norm", "matrix_norm", "vecdot", "vector_norm", "cond", "cov",
    "corrcoef", "cross", "inv", "eig", "eigvals", "multi_dot", "matrix_rank", "matrix_transpose",
    "matmul", "svd", "svdvals", "qr", "householder_product", "pca_lowrank", "svd_lowrank", "lu",
    "lu_solve", "lu_unpack", "matrix_exp", "matrix_power", "det", "slogdet", "eigh", "eigvalsh",
    "pinv", "solve", "cholesky_solve", "triangular_solve", "lstsq", "ormqr",
    "fp8_fp8_half_gemm_fused", "diagonal",
]
