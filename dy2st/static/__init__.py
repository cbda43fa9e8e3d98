"""``paddle.static``: Programs, the Executor, static autograd and control flow.

The implementation is `runtime.static`; this package re-exports every public name of it (the
same objects: ``paddle.static.Program is runtime.static.Program``) and holds Paddle's submodule
paths ``paddle.static.nn`` (with ``nn.control_flow``), ``paddle.static.input`` and
``paddle.static.io``.
"""
from __future__ import annotations

import types as _types

import runtime.static as _impl

# every public name of the implementation except its own submodules (program, executor, ...), which
# are not Paddle's paths; new names in runtime.static appear here without an edit
globals().update({k: v for k, v in vars(_impl).items()
                  if not k.startswith("_") and not isinstance(v, _types.ModuleType)})

from . import input, io, nn  # noqa: F401,E402  (Paddle's submodule paths; `input` as Paddle names it)

__all__ = sorted(k for k, v in vars(_impl).items() if not k.startswith("_") and not isinstance(v, _types.ModuleType))
