"""paddle.audio.backends: audio file I/O backends (the PCM16 WAV backend, paddleaudio's when installed)."""
from . import backend, init_backend, wave_backend  # noqa: F401
from .init_backend import get_current_backend, list_available_backends, set_backend  # noqa: F401

init_backend._init_set_audio_backend()

__all__ = ["get_current_backend", "list_available_backends", "set_backend"]
