"""dy2st: a Paddle-compatible deep-learning framework with a dynamic-to-static compiler.

``import dy2st as paddle`` gives Paddle's public API. The framework itself lives in
the `runtime` package; this package re-exports it and adds the compiler (to_static,
jit.save/load, ONNX export, the CLI) as those parts land.
"""
import importlib as _importlib
import sys as _sys

import runtime as _runtime
from runtime import *  # noqa: F401,F403
from runtime import __dict__ as _runtime_namespace

# Re-export every public name of runtime (star-import skips names without __all__ entries).
globals().update({k: v for k, v in _runtime_namespace.items() if not k.startswith("_")})

from runtime.dtype import DType as dtype  # noqa: E402  (paddle.dtype is the dtype class)

__version__ = "0.1.0"

# Paddle's public submodules, importable as `dy2st.nn`, `dy2st.nn.functional`, ... so that
# `import dy2st.nn.functional as F` and `from dy2st.io import DataLoader` work. These are aliases
# (sys.modules entries for runtime's packages); a path that needs submodules of its own that runtime
# does not have is a package under dy2st/ instead (static, jit, base, framework, tensor, utils: below).
_PUBLIC_SUBMODULES = (
    "nn", "nn.functional", "nn.initializer", "optimizer", "optimizer.lr", "io",
    "vision", "vision.datasets", "vision.transforms", "metric", "regularizer",
    "autograd", "device", "linalg", "fft", "signal", "amp",
    "utils.download", "vision.ops", "vision.models", "vision.models._utils", "nn.decode",
    "nn.functional.flash_attention",
    "sparse", "sparse.nn", "sparse.nn.functional",
    "vision.transforms.functional", "text", "text.datasets", "distribution", "vision.image",
    "audio", "audio.functional", "audio.features", "audio.backends", "audio.datasets",
    "incubate", "incubate.autograd", "incubate.optimizer", "incubate.optimizer.functional", "incubate.nn",
    "incubate.nn.functional",
    "nn.utils", "device.cuda", "distributed", "distributed.fleet", "geometric", "io.dataloader",
    *("vision.models." + m for m in ("alexnet", "densenet", "googlenet", "inceptionv3", "lenet", "mobilenetv1",
                                     "mobilenetv2", "mobilenetv3", "resnet", "shufflenetv2", "squeezenet", "vgg")),
)


def _alias_submodules():
    for name in _PUBLIC_SUBMODULES:
        try:
            mod = _importlib.import_module("runtime." + name)
        except ImportError:
            continue
        _sys.modules.setdefault(f"{__name__}.{name}", mod)
        parent, _, leaf = name.rpartition(".")
        if not parent:
            globals()[leaf] = mod


_alias_submodules()
DataParallel = distributed.DataParallel  # noqa: F821  (paddle.DataParallel; `distributed` is aliased above)

# deeper paths under those aliases (dy2st.nn.functional.loss, dy2st.nn.layer.conv ...): the runtime modules
from . import module_alias as _module_alias  # noqa: E402
_module_alias.install()

# the compiler's public modules. Imported explicitly: ``from . import onnx`` would return the
# runtime.onnx package copied in above whenever runtime.onnx was imported before dy2st
jit = _importlib.import_module(__name__ + ".jit")
onnx = _importlib.import_module(__name__ + ".onnx")

# Paddle's module paths that are modules of their own here (they re-export runtime). Imported
# eagerly so the attribute is the module: runtime's namespace copied above holds runtime.framework
# and runtime.tensor under the same names
base = _importlib.import_module(__name__ + ".base")
framework = _importlib.import_module(__name__ + ".framework")
tensor = _importlib.import_module(__name__ + ".tensor")
static = _importlib.import_module(__name__ + ".static")
utils = _importlib.import_module(__name__ + ".utils")
pir_utils = _importlib.import_module(__name__ + ".pir_utils")
core = base.core   # ``from paddle import core``
inference = _importlib.import_module(__name__ + ".inference")   # paddle.inference: Config, create_predictor
version = _importlib.import_module(__name__ + ".version")       # paddle.version (dy2st's own numbers)
sysconfig = _importlib.import_module(__name__ + ".sysconfig")   # paddle.sysconfig: get_include, get_lib
hapi = _importlib.import_module(__name__ + ".hapi")             # paddle.hapi: Model, summary, flops, callbacks
callbacks = _importlib.import_module(__name__ + ".callbacks")   # paddle.callbacks
Model, summary, flops = hapi.Model, hapi.summary, hapi.flops
from .utils.dlpack import from_dlpack, to_dlpack  # noqa: E402,F401  (paddle.from_dlpack / to_dlpack)
_C_ops = _importlib.import_module(__name__ + "._C_ops")        # paddle._C_ops: the positional op functions
from runtime.nn.initializer.lazy_init import LazyGuard  # noqa: E402,F401  (paddle.LazyGuard: deferred parameter init)
from runtime.api.generator import Generator  # noqa: E402,F401  (paddle.Generator)
from runtime.api import tensor_signal_methods as _tensor_signal_methods  # noqa: E402,F401  (Tensor.stft/istft/top_p_sampling)
from runtime.api.generator import seed  # noqa: E402,F401,F811  (paddle.seed returns the global paddle.Generator)
