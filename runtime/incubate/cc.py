"""``paddle.incubate.cc``: Paddle's "abstract pass" compiler front end (CINN/PCC code generation for CUDA).
Both need Paddle's GPU-only "ap" kernels: ``fuse.matmul``/``fuse.by_register`` raise RuntimeError as in Paddle's
CPU build (kernel ``ap_trivial_fusion_begin`` is not registered), and so does ``compile``."""
from __future__ import annotations

import contextlib
import types

__all__ = ["fuse", "compile"]


_NO_AP = ("(NotFound) The kernel `ap_trivial_fusion_begin` is not registered. (paddle.incubate.cc fusion regions "
          "are GPU-only in Paddle; on CPU compute epilogue(paddle.matmul(x, w)) directly)")


@contextlib.contextmanager
def _by_register():
    """Marks a fusion region for the GPU compiler; Paddle's CPU build raises on entry."""
    raise RuntimeError(_NO_AP)
    yield  # noqa: unreachable (a generator is what contextmanager needs)


def _matmul(x, w, epilogue, **kwargs):
    """``epilogue(paddle.matmul(x, w))`` inside a fusion region (raises on CPU, as Paddle)."""
    from ..api.linalg import matmul
    y = matmul(x, w, **kwargs)
    with _by_register():
        return epilogue(y)


fuse = types.SimpleNamespace(matmul=_matmul, by_register=_by_register)


def compile(func, *args, **kwargs):
    """Paddle compiles ``func`` with its abstract-pass compiler for a CUDA backend; not available here."""
    raise RuntimeError("paddle.incubate.cc.compile generates CUDA kernels with Paddle's abstract-pass compiler "
                       "(backend_device='cuda'); this package has no such backend. Run the function directly, or "
                       "use paddle.jit.to_static for a static program")
