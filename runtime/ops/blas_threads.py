"""Thread count of numpy's BLAS: one cheap, cached switch and the process-wide policy.

Measured on the 2-core target (benchmarks/kernels.py --blas): OpenBLAS already runs products of
at most 262144 multiply-adds on one thread (every batch-1 layer, the LSTM step, the control-flow
model, each per-sample GEMM of a batched matmul such as LeNet's convolutions), and above that two
threads took 0.51-0.68x the time of one on an idle second core (MLP batch 64, transformer
projections, LeNet fc1) while no product size ran consistently faster on one thread. So a
per-call size policy does not pay and the matmul kernels do not consult this module. When the
second core is busy with another process, two-thread products can take 10-100x longer (the
fork-join waits for a descheduled worker): set ``DY2ST_BLAS_THREADS=1`` for such machines; the
policy is applied once, at import. threadpoolctl is optional (only used to find the library).
"""
from __future__ import annotations

import contextlib
import ctypes
import os

import numpy as np

_UNSET = object()
_lib = _UNSET          # (setter, getter) of numpy's OpenBLAS, or None when unavailable
_current = None        # last thread count we set (None: not known)


def _numpy_openblas():
    """ctypes (set, get) thread-count functions of the OpenBLAS numpy links, or None."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    np_dir = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy")
    try:
        controllers = ThreadpoolController().lib_controllers
    except Exception:   # threadpoolctl could not inspect the process: leave BLAS alone
        return None
    for m in controllers:
        if m.user_api != "blas" or m.internal_api != "openblas" or not m.filepath.startswith(np_dir):
            continue
        lib = ctypes.CDLL(m.filepath)
        for prefix in ("scipy_openblas", "openblas"):
            for suffix in ("64_", ""):
                s, g = f"{prefix}_set_num_threads{suffix}", f"{prefix}_get_num_threads{suffix}"
                if hasattr(lib, s) and hasattr(lib, g):
                    return getattr(lib, s), getattr(lib, g)
    return None


def _ensure():
    global _lib, _current
    if _lib is _UNSET:
        _lib = _numpy_openblas()
        if _lib is not None:
            _current = int(_lib[1]())
    return _lib


def available() -> bool:
    """Whether the thread count of numpy's BLAS can be read and changed."""
    return _ensure() is not None


def get_threads():
    """Current thread count of numpy's BLAS, or None when it cannot be controlled."""
    return _current if _ensure() is not None else None


def set_threads(n: int) -> None:
    """Set numpy's BLAS thread count; a no-op when unchanged (one comparison) or unavailable."""
    global _current
    if n == _current:
        return
    lib = _ensure()
    if lib is None or n == _current:
        return
    lib[0](int(n))
    _current = int(n)


@contextlib.contextmanager
def limit(n: int):
    """Run a block with ``n`` BLAS threads, restoring the previous count after."""
    before = get_threads()
    set_threads(n)
    try:
        yield
    finally:
        if before is not None:
            set_threads(before)


def apply_policy(value=None) -> None:
    """Apply ``DY2ST_BLAS_THREADS`` (or ``value``): a positive integer fixes the thread count;
    unset/empty/'auto' leaves the BLAS default (all cores)."""
    value = os.environ.get("DY2ST_BLAS_THREADS", "") if value is None else str(value)
    value = value.strip().lower()
    if value in ("", "auto"):
        return
    try:
        n = int(value)
    except ValueError:
        raise ValueError(f"DY2ST_BLAS_THREADS must be a positive integer or 'auto', got {value!r}") from None
    if n < 1:
        raise ValueError(f"DY2ST_BLAS_THREADS must be a positive integer or 'auto', got {value!r}")
    set_threads(n)


apply_policy()
