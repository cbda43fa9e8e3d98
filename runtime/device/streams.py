"""Streams and events of ``paddle.device``: there are none on the CPU, and each call answers as Paddle's
CPU build does (a clear error, or a no-op for ``stream_guard(None)``)."""
from __future__ import annotations

__all__ = ["Stream", "Event", "StreamContext", "stream_guard", "current_stream", "set_stream", "synchronize",
           "is_current_stream_capturing", "get_stream_from_external"]

_NO_DEVICE = "dy2st runs on the CPU only, which has no streams or events (Paddle's CPU build has none either)"


class Stream:
    """An accelerator stream: cannot be created on the CPU (RuntimeError)."""

    def __init__(self, device=None, priority=2, stream_base=None):
        raise RuntimeError(f"paddle.device.Stream: {_NO_DEVICE}")


class Event:
    """An accelerator event: cannot be created on the CPU (RuntimeError)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        raise RuntimeError(f"paddle.device.Event: {_NO_DEVICE}")


def _device_error(where):
    return TypeError(f"{where}: device should be gpu, xpu or a custom device; {_NO_DEVICE}")


def current_stream(device=None):
    raise _device_error("paddle.device.current_stream")


def synchronize(device=None):
    raise _device_error("paddle.device.synchronize")


def set_stream(stream):
    if not isinstance(stream, Stream):
        raise AttributeError(f"paddle.device.set_stream: expected a paddle.device.Stream, got "
                             f"{type(stream).__name__} ({_NO_DEVICE})")
    return stream


def get_stream_from_external(data_ptr, device=None):
    raise _device_error("paddle.device.get_stream_from_external")


def is_current_stream_capturing():
    return False


class stream_guard:
    """``with stream_guard(stream):`` run on ``stream``; ``None`` (the only stream there can be here) is a no-op."""

    def __init__(self, stream=None):
        if stream is not None and not isinstance(stream, Stream):
            raise TypeError(f"stream_guard: stream must be a paddle.device.Stream or None, got "
                            f"{type(stream).__name__}")
        self.stream = stream

    def __enter__(self):
        return None

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False


StreamContext = stream_guard
