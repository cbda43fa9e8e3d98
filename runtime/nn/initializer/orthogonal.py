"""`Orthogonal` initializer: a (semi-)orthogonal matrix from the QR decomposition of a Gaussian sample."""
from __future__ import annotations

import numpy as np

from ...dispatch import run_op
from .initializer import Initializer, _check_number

__all__ = ["Orthogonal"]


class Orthogonal(Initializer):
    """Rows (or columns, whichever are fewer) of the flattened ``[shape[0], prod(shape[1:])]``
    weight are orthonormal, times ``gain``. Needs at least 2 dimensions."""

    def __init__(self, gain=1.0, name=None):
        self._gain = _check_number("Orthogonal", "gain", gain)

    def _build(self, shape, dtype, param):
        if len(shape) < 2:
            raise ValueError(f"Orthogonal: the parameter needs at least 2 dimensions, got shape {list(shape)}")
        from ...ops.registry import _OPS
        if "qr" not in _OPS:
            raise NotImplementedError("Orthogonal initializer needs the 'qr' op, which is not registered yet")
        rows = int(shape[0])
        cols = int(np.prod(shape[1:]))
        big, small = max(rows, cols), min(rows, cols)
        # QR of a tall [big, small] Gaussian sample gives orthonormal columns; fixing the
        # signs with diag(R) makes the distribution uniform over orthogonal matrices.
        g = run_op("gaussian_random", None, None, shape=[big, small], mean=0.0, std=1.0, seed=0,
                   dtype=dtype.proto)
        q, r = run_op("qr", g, mode="reduced")
        d = run_op("diag_v2", r, offset=0, padding_value=0.0)
        q = run_op("elementwise_mul", q, run_op("sign", d))
        if rows < cols:
            q = run_op("transpose2", q, axis=[1, 0])
        if self._gain != 1.0:
            q = run_op("scale", q, None, scale=self._gain, bias=0.0, bias_after_scale=True)
        return run_op("reshape2", q, None, None, shape=[int(s) for s in shape])

    def __repr__(self):
        return f"Orthogonal(gain={self._gain})"
