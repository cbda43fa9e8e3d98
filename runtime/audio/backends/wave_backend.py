"""Paddle's default audio backend: 16-bit PCM WAV files through the standard library's ``wave`` module.

``load`` gives float32 samples, divided by 2**15 when ``normalize`` (raw integer values otherwise), shaped
[channels, frames] (``channels_first``) or [frames, channels]. As in Paddle 3.3.1, ``frame_offset`` takes
effect only together with ``num_frames`` (``num_frames=-1`` reads the whole file), and a file object passed
in is closed after reading. Files that are not PCM WAV raise NotImplementedError and files that end inside
the header EOFError (Paddle's errors, with messages that say why); data shorter than the header announces
raises ValueError (Paddle's numpy error), and WAV files whose samples are not 16 bits NotImplementedError
(Paddle would return their bytes misread as 16-bit samples).
"""
from __future__ import annotations

import wave

import numpy as np

from .backend import AudioInfo

__all__ = ["info", "load", "save"]


def _error_message(path, reason):
    return (f"{reason} ({path!r}). The wave backend reads only PCM16 WAV files; for other audio types install "
            "paddleaudio (`pip install paddleaudio`) and call paddle.audio.backends.set_backend('soundfile')")


def _open(filepath):
    """(file object, wave reader); NotImplementedError for a file that wave cannot parse as PCM WAV."""
    file_obj = filepath if hasattr(filepath, "read") else open(filepath, "rb")
    name = getattr(file_obj, "name", filepath)
    try:
        reader = wave.open(file_obj)
    except wave.Error as e:
        file_obj.close()
        raise NotImplementedError(_error_message(name, f"not a PCM WAV file: {e}")) from None
    except EOFError:
        file_obj.close()   # Paddle lets wave's EOFError through: same type, with a message that says why
        raise EOFError(f"{name!r} is empty or its WAV header is cut short (the file ends inside a header "
                       "chunk): the file is truncated, or not a WAV file") from None
    return file_obj, reader


def info(filepath):
    """`AudioInfo` of a WAV file (a path or a binary file object)."""
    file_obj, reader = _open(filepath)
    try:
        return AudioInfo(reader.getframerate(), reader.getnframes(), reader.getnchannels(),
                         reader.getsampwidth() * 8, "PCM_S")
    finally:
        file_obj.close()


def load(filepath, frame_offset=0, num_frames=-1, normalize=True, channels_first=True):
    """(waveform float32 Tensor, sample_rate) of a PCM16 WAV file."""
    from ...api.creation import to_tensor
    file_obj, reader = _open(filepath)
    name = getattr(file_obj, "name", filepath)
    try:
        channels, sample_rate = reader.getnchannels(), reader.getframerate()
        frames, width = reader.getnframes(), reader.getsampwidth()
        if width != 2:
            raise NotImplementedError(_error_message(name, f"the file has {8 * width}-bit samples"))
        data = reader.readframes(frames)
    finally:
        file_obj.close()
    if len(data) != frames * channels * 2:
        raise ValueError(f"wave_backend.load: {name!r} is truncated or inconsistent: its header announces {frames} "
                         f"frames of {channels} channel(s) x 16 bits ({frames * channels * 2} bytes), but its data "
                         f"holds {len(data)} bytes")
    samples = np.frombuffer(data, dtype="<i2").astype(np.float32)
    if normalize:
        samples = samples / np.float32(2 ** 15)
    waveform = samples.reshape(frames, channels)
    if num_frames != -1:
        waveform = waveform[frame_offset:frame_offset + num_frames, :]
    if channels_first:
        waveform = waveform.T
    return to_tensor(np.ascontiguousarray(waveform)), sample_rate


def save(filepath, src, sample_rate, channels_first=True, encoding=None, bits_per_sample=16):
    """Write ``src`` ([channels, time], or [time, channels] with ``channels_first=False``) as a PCM16 WAV.

    Floating tensors are scaled by 2**15 and truncated toward zero, as in Paddle; values outside [-1, 1) are
    clipped to the 16-bit range (Paddle wraps them around). Integer tensors are written as they are."""
    assert src.ndim == 2, f"Expected 2D tensor, but got a {src.ndim}-D tensor of shape {list(src.shape)}"
    if bits_per_sample not in (None, 16):
        raise ValueError(f"Invalid bits_per_sample, only support 16 bit (got {bits_per_sample}); the wave backend "
                         "writes PCM16 only")
    audio = src.numpy()
    if channels_first:
        audio = audio.T
    if audio.dtype.kind == "f":
        audio = np.clip(audio.astype(np.float64) * 2 ** 15, -(2 ** 15), 2 ** 15 - 1)
    elif audio.dtype.kind not in "iub":
        raise TypeError(f"wave_backend.save: cannot write a {audio.dtype} tensor as PCM16; pass float or int16 "
                        "samples")
    elif audio.size and (audio.min() < -(2 ** 15) or audio.max() >= 2 ** 15):
        raise ValueError(f"wave_backend.save: integer samples must fit in 16 bits, but range over "
                         f"[{audio.min()}, {audio.max()}]")
    pcm = np.ascontiguousarray(audio.astype("<i2"))
    with wave.open(filepath, "wb") as f:
        f.setnchannels(pcm.shape[1])
        f.setsampwidth(2)
        f.setframerate(sample_rate)
        f.writeframes(pcm.tobytes())
