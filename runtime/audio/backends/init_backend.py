"""Choosing the audio backend, as Paddle 3.3.1 does: the wave backend always, and the backends of the
optional ``paddleaudio`` package (soundfile) when it is installed (version >= 1.0.2). Without it,
`list_available_backends` warns and returns ``['wave_backend']``, and asking for another backend raises
NotImplementedError."""
from __future__ import annotations

import sys
import warnings

from . import backend, wave_backend

__all__ = ["list_available_backends", "get_current_backend", "set_backend"]


def _check_version(version):
    major, minor, patch = (int(v) for v in version.split(".")[:3])
    return not (major < 1 or (major == 1 and minor == 0 and patch <= 1))


def list_available_backends():
    """Names of the usable backends: paddleaudio's (if installed) followed by 'wave_backend'."""
    backends = []
    try:
        import paddleaudio
    except ImportError:
        warnings.warn("Failed importing paddleaudio. \nonly wave_backend(only can deal with PCM16 WAV) supported.\n"
                      "if want soundfile_backend(more audio type supported),\nplease manually installed (usually "
                      "with `pip install paddleaudio >= 1.0.2`). ")
    if "paddleaudio" in sys.modules:
        version = paddleaudio.__version__
        if not _check_version(version):
            raise ImportError(f"the version of paddleaudio installed is {version},\n"
                              "please ensure the paddleaudio >= 1.0.2.")
        backends = list(paddleaudio.backends.list_audio_backends())
    backends.append("wave_backend")
    return backends


def get_current_backend():
    """'wave_backend', or paddleaudio's current backend when it has been set with `set_backend`."""
    if "paddleaudio" in sys.modules:
        import paddleaudio
        from .. import load as current_load
        current = paddleaudio.backends.get_audio_backend()
        if current_load == paddleaudio.load:
            return current
    return "wave_backend"


def set_backend(backend_name):
    """Make ``backend_name`` (one of `list_available_backends`) serve paddle.audio.load / info / save."""
    available = list_available_backends()
    if backend_name not in available:
        raise NotImplementedError(f"audio backend {backend_name!r} is not available; available backends: "
                                  f"{available} (the soundfile backend needs `pip install paddleaudio>=1.0.2`)")
    if backend_name == "wave_backend":
        module = wave_backend
    else:
        import paddleaudio
        paddleaudio.backends.set_audio_backend(backend_name)
        module = paddleaudio
    from ... import audio
    for func in ("save", "load", "info"):
        setattr(backend, func, getattr(module, func))
        setattr(audio, func, getattr(module, func))


def _init_set_audio_backend():
    for func in ("save", "load", "info"):
        setattr(backend, func, getattr(wave_backend, func))
