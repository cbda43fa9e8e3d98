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

# Paddle's remaining paddle.static names, built on the implementation above (dy2st/static/*.py)
from .compiler import (BuildStrategy, CompiledProgram, IpuCompiledProgram, IpuStrategy,  # noqa: F401,E402
                       ipu_shard_guard, set_ipu_shard, cuda_places, xpu_places)
from .ema import ExponentialMovingAverage  # noqa: F401,E402
from .metric import auc, ctr_metric_bundle  # noqa: F401,E402
from .param_attr import WeightNormParamAttr  # noqa: F401,E402
from .static_io import (serialize_program, serialize_persistables, deserialize_program,  # noqa: F401,E402
                        deserialize_persistables, save_to_file, load_from_file, normalize_program, save, load,
                        load_program_state, set_program_state)
_EXTRA = ["BuildStrategy", "CompiledProgram", "IpuCompiledProgram", "IpuStrategy", "ipu_shard_guard", "set_ipu_shard",
          "cuda_places", "xpu_places", "ExponentialMovingAverage", "auc", "ctr_metric_bundle", "WeightNormParamAttr",
          "serialize_program", "serialize_persistables", "deserialize_program", "deserialize_persistables",
          "save_to_file", "load_from_file", "normalize_program", "save", "load", "load_program_state",
          "set_program_state"]
__all__ = sorted(set(__all__) | set(_EXTRA))
