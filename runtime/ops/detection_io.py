"""Image file ops of paddle.vision.ops: read_file (a file's bytes as a uint8 vector) and decode_jpeg.

Paddle decodes JPEG with nvjpeg on GPU only (its CPU kernel raises); here the CPU decodes with Pillow,
which must be installed for decode_jpeg. The bytes are only ever decoded as an image, never run.
"""
from __future__ import annotations

import io

import numpy as np

from .registry import Meta, register


class ReadFileError(FileNotFoundError, RuntimeError):
    """read_file could not open its file (a RuntimeError, as Paddle raises, and a FileNotFoundError)."""


def _read_file(filename=""):
    try:
        with open(filename, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ReadFileError(f"read_file: cannot read file {filename!r}: {e.strerror or e}; check the path") from None
    return np.frombuffer(data, dtype=np.uint8).copy()


register("read_file", [], ["Out"], {"filename": ("STRING", "")}, kernel=_read_file,
         infer_meta=lambda **_: Meta((-1,), np.dtype(np.uint8)))


_MODES = {"unchanged": None, "gray": "L", "rgb": "RGB"}


def _decode_jpeg(x, mode="unchanged"):
    op = "decode_jpeg"
    if mode not in _MODES:
        raise ValueError(f"{op}: mode must be one of {list(_MODES)}, got {mode!r}")
    if x.dtype != np.uint8 or x.ndim != 1:
        raise ValueError(f"{op}: X must be a 1-D uint8 tensor of JPEG bytes, got {x.dtype} with shape "
                         f"{list(x.shape)}")
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("decode_jpeg needs Pillow to decode JPEG images on the CPU; install it with "
                          "`pip install Pillow`") from None
    try:
        img = Image.open(io.BytesIO(x.tobytes()))
        if img.format != "JPEG":
            raise ValueError(f"the bytes hold a {img.format} image, not a JPEG")
        img.load()
    except Exception as e:   # Pillow raises several types for corrupt data
        raise ValueError(f"{op}: cannot decode the input bytes as a JPEG image ({e})") from None
    target = _MODES[mode]
    if target is None:
        target = "L" if img.mode in ("L", "1", "I", "F") else "RGB"
    arr = np.asarray(img.convert(target), dtype=np.uint8)
    if arr.ndim == 2:
        arr = arr[None]
    else:
        arr = arr.transpose(2, 0, 1)
    return np.ascontiguousarray(arr)


def _decode_jpeg_meta(x, mode="unchanged"):
    c = {"gray": 1, "rgb": 3}.get(mode, -1)
    return Meta((c, -1, -1), np.dtype(np.uint8))


register("decode_jpeg", ["X"], ["Out"], {"mode": ("STRING", "unchanged")}, kernel=_decode_jpeg,
         infer_meta=_decode_jpeg_meta)
