"""Atomic file writes shared by every saver (paddle.save, jit.save / save_inference_model, ONNX).

Each file is written to a temporary file beside it, flushed to disk, given the permissions a
plain ``open(path, "w")`` would have (``mkstemp`` creates files 0600), then renamed into place,
so a reader never sees a half-written file and a failed write leaves the old file untouched.
"""
from __future__ import annotations

import os
import tempfile


def _default_mode():
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_files_atomically(contents):
    """Write every ``(path, bytes)`` of ``contents``; all files are complete before any is renamed."""
    temps = []
    mode = _default_mode()
    try:
        for path, data in contents:
            d = os.path.dirname(os.path.abspath(path))
            os.makedirs(d, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=d)
            temps.append(tmp)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, mode)
        for (path, _), tmp in zip(contents, temps):
            os.replace(tmp, path)
    finally:
        for tmp in temps:
            if os.path.exists(tmp):
                os.remove(tmp)
