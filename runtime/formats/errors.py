"""The errors every loader of a file we read raises (.pdmodel, .pdiparams, .pdiparams.info, .pdparams, .pdopt).

One base class covers every load failure, whatever the bytes: ``except ModelFormatError``
catches a truncated or corrupt file, a file that breaks a size or depth limit, and a
pickle that asks for something we refuse (`UnsafePickleError`). `ModelFormatError` is a
`ValueError`, so code written against Paddle's ``ValueError``/``RuntimeError``-ish loaders
that catches ``ValueError`` keeps working. Each message starts with the file's path.

This module imports nothing from the runtime, so `runtime.errors` can re-export
`UnsafePickleError` from here without an import cycle.
"""
from __future__ import annotations

__all__ = ["ModelFormatError", "UnsafePickleError", "UnsafeInfoError"]


class ModelFormatError(ValueError):
    """A file we read is truncated, corrupt, too large for what it claims, or does not match its
    program; the message names the file (``path``) and what is wrong."""

    def __init__(self, message, path=None):
        self.path = path
        self.reason = message
        super().__init__(f"{path}: {message}" if path else message)

    def __reduce__(self):   # keep (message, path) when the error crosses a process boundary
        return type(self), (self.reason, self.path)


class UnsafePickleError(ModelFormatError):
    """A pickle asked for something other than plain containers, numbers, strings and numeric
    numpy arrays (a global, an object array, a state change of an object we do not build ...),
    or broke a size/depth limit. The file may be malicious; nothing it named was run."""


class UnsafeInfoError(UnsafePickleError):
    """A .pdiparams.info pickle asked for something other than plain data (it may be malicious)."""
