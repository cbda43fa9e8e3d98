"""``paddle.utils``: ``unique_name``, ``download``, ``environments`` and ``gast`` (the AST library
Paddle's dy2st code and tests use, here the installed ``gast`` package itself).

Re-exports `runtime.utils`: ``dy2st.utils.download is runtime.utils.download``.
"""
from __future__ import annotations

import types as _types

import gast  # noqa: F401

import runtime.utils as _impl

globals().update({k: v for k, v in vars(_impl).items() if not k.startswith("_")})

from . import environments, unique_name  # noqa: F401,E402

__all__ = sorted({*(k for k, v in vars(_impl).items()
                    if not k.startswith("_") and not isinstance(v, _types.ModuleType)),
                  "unique_name", "download", "environments", "gast"})
