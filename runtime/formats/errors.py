"""Errors raised while reading or writing Paddle inference-model files (.pdmodel/.pdiparams/.info)."""
from __future__ import annotations

from ..errors import UnsafePickleError

__all__ = ["ModelFormatError", "UnsafeInfoError"]


class ModelFormatError(ValueError):
    """A model file is truncated, corrupted or does not match its program; the message names the file."""

    def __init__(self, message, path=None):
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


class UnsafeInfoError(ModelFormatError, UnsafePickleError):
    """A .pdiparams.info pickle asked for something other than plain data (it may be malicious)."""
