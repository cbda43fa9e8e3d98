"""What the subcommands share: the error type, progress lines, model-path lookup, formatting."""
from __future__ import annotations

import glob
import os
import sys
import time

__all__ = ["CLIError", "UI", "model_prefix", "fmt_size", "fmt_shape", "fmt_count", "var_desc"]


class CLIError(Exception):
    """A failure the command reports as one ``dy2st <cmd>: error: ...`` line (exit code ``code``)."""

    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code


class UI:
    """Progress lines on stderr (when stderr is a terminal, or with --verbose); results go to stdout."""

    def __init__(self, command, verbose=False, stdout=None, stderr=None):
        self.command = command
        self.out = stdout or sys.stdout
        self.err = stderr or sys.stderr
        isatty = getattr(self.err, "isatty", None)
        self.show_progress = bool(verbose) or bool(isatty and isatty())
        self.t0 = time.perf_counter()

    def progress(self, message):
        if self.show_progress:
            print(f"[{time.perf_counter() - self.t0:5.1f}s] {message}", file=self.err, flush=True)

    def print(self, *args, **kwargs):
        print(*args, file=self.out, **kwargs)

    def warn(self, message):
        print(f"dy2st {self.command}: warning: {message}", file=self.err, flush=True)


def model_prefix(path):
    """``PREFIX`` from ``PREFIX``, ``PREFIX.pdmodel`` or a directory holding one ``*.pdmodel``."""
    p = os.fspath(path)
    if p.endswith(".pdmodel"):
        p = p[:-len(".pdmodel")]
    elif p.endswith(".json") and os.path.isfile(p):     # Paddle 3's PIR program
        p = p[:-len(".json")]
    elif p.endswith((".pdiparams", ".pdiparams.info")):
        p = p[:p.rindex(".pdiparams")]
    if os.path.isdir(path):
        found = sorted(glob.glob(os.path.join(glob.escape(os.fspath(path)), "*.pdmodel")))
        if not found:   # Paddle 3's default format: PREFIX.json beside PREFIX.pdiparams
            found = [f[:-len(".pdiparams")] + ".pdmodel" for f in
                     sorted(glob.glob(os.path.join(glob.escape(os.fspath(path)), "*.pdiparams")))
                     if os.path.isfile(f[:-len(".pdiparams")] + ".json")]
        if len(found) == 1:
            return found[0][:-len(".pdmodel")]
        if not found:
            raise CLIError(f"no .pdmodel file in directory {path}")
        raise CLIError(f"directory {path} holds {len(found)} models ({', '.join(os.path.basename(f) for f in found)});"
                       " give the prefix of one")
    if not os.path.exists(p + ".pdmodel") and not os.path.exists(p + ".json"):
        from runtime.formats.model_io import model_file_set
        # a first save killed after its commit but before the .pdmodel rename: load_model completes it
        if not model_file_set(p).pending():
            raise CLIError(f"model file not found: {p}.pdmodel")
    return p


def fmt_size(n):
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024.0
    return f"{n:.1f} GB"   # pragma: no cover


def fmt_shape(shape):
    return "[" + ", ".join("None" if d is None or d < 0 else str(d) for d in shape) + "]"


def fmt_count(n):
    return f"{n:,}"


def var_desc(v):
    """``float32[None, 784]`` for a tensor variable, else its kind (``tensor_array``...)."""
    from runtime.static.program import VarType
    if v is None:
        return "?"
    if v.type == VarType.LOD_TENSOR:
        return f"{v.dtype.name}{fmt_shape(v.shape)}"
    from runtime.static.program import _TYPE_NAMES
    kind = _TYPE_NAMES.get(v.type, str(v.type)).lower()
    return f"{kind}<{v.dtype.name}>" if v.type == VarType.LOD_TENSOR_ARRAY else kind
