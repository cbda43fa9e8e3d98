"""``paddle.hapi``: the high-level API — `Model` (fit / evaluate / predict), callbacks, the progress bar,
`summary` and `flops` — in dynamic-graph mode. Lives in dy2st because ``Model.save(training=False)``
uses jit.save."""
from . import callbacks, logger, logger_callbacks, progressbar, static_flops  # noqa: F401
from . import dynamic_flops, model, model_summary  # noqa: F401
from .dynamic_flops import flops  # noqa: F401
from .model import Model  # noqa: F401
from .model_summary import summary  # noqa: F401

logger.setup_logger()

__all__ = []
