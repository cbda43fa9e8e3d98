"""The backend-neutral face of audio I/O: `AudioInfo`, and ``load``/``info``/``save`` placeholders that
`init_backend` replaces with the current backend's functions (the wave backend at import)."""
from __future__ import annotations

__all__ = ["AudioInfo", "info", "load", "save"]


class AudioInfo:
    """What `info` returns: sample_rate, num_samples (frames), num_channels, bits_per_sample, encoding."""

    def __init__(self, sample_rate, num_samples, num_channels, bits_per_sample, encoding):
        self.sample_rate = sample_rate
        self.num_samples = num_samples
        self.num_channels = num_channels
        self.bits_per_sample = bits_per_sample
        self.encoding = encoding

    def __repr__(self):
        return (f"AudioInfo(sample_rate={self.sample_rate}, num_samples={self.num_samples}, "
                f"num_channels={self.num_channels}, bits_per_sample={self.bits_per_sample}, "
                f"encoding={self.encoding!r})")


def info(filepath):
    """Signal information of an audio file (replaced by the current backend's function)."""
    raise NotImplementedError("please set audio backend: paddle.audio.backends.set_backend('wave_backend')")


def load(filepath, frame_offset=0, num_frames=-1, normalize=True, channels_first=True):
    """(waveform, sample_rate) of an audio file (replaced by the current backend's function)."""
    raise NotImplementedError("please set audio backend: paddle.audio.backends.set_backend('wave_backend')")


def save(filepath, src, sample_rate, channels_first=True, encoding=None, bits_per_sample=16):
    """Write an audio tensor to a file (replaced by the current backend's function)."""
    raise NotImplementedError("please set audio backend: paddle.audio.backends.set_backend('wave_backend')")
