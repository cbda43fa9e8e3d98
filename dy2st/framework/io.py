"""``paddle.framework.io``: ``paddle.save`` / ``paddle.load`` (``.pdparams``, ``.pdopt`` and other pickles)."""
from runtime.formats.serialization import load, save  # noqa: F401

__all__ = ["save", "load"]
