"""``paddle.callbacks``: Paddle's callback classes for `paddle.Model`, plus dy2st's file loggers
``CSVLogger`` and ``JSONLinesLogger`` (one record per epoch and per evaluation, no extra package)."""
from .hapi.callbacks import (Callback, EarlyStopping, LRScheduler, ModelCheckpoint,  # noqa: F401
                             ProgBarLogger, ReduceLROnPlateau)
from .hapi.logger_callbacks import CSVLogger, JSONLinesLogger, VisualDL, WandbCallback  # noqa: F401

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "VisualDL", "LRScheduler", "EarlyStopping",
           "ReduceLROnPlateau", "WandbCallback", "CSVLogger", "JSONLinesLogger"]
