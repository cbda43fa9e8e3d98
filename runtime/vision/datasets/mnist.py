"""MNIST and FashionMNIST read from local IDX files (``paddle.vision.datasets.MNIST``).

dy2st never downloads anything: pass ``image_path`` and ``label_path`` pointing at the IDX
files (``train-images-idx3-ubyte[.gz]`` and ``train-labels-idx1-ubyte[.gz]``, or the t10k
pair for ``mode='test'``). Gzipped and plain files are both read (gzip is detected from the
file's first bytes).
"""
from __future__ import annotations

import gzip
import os

import numpy as np

from ...dtype import get_default_dtype
from ...io.dataset import Dataset
from ...tensor import Tensor

__all__ = ["MNIST", "FashionMNIST", "read_idx"]

_IMAGE_MAGIC = 2051
_LABEL_MAGIC = 2049


def _read_bytes(path):
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        return f.read()


def read_idx(path, expected_magic=None):
    """Read an IDX file (big-endian header, magic 2051 for images / 2049 for labels) as a uint8 array.

    Images come back as ``[N, rows, cols]``, labels as ``[N]``.
    """
    buf = _read_bytes(path)
    if len(buf) < 8:
        raise ValueError(f"{path}: too short to be an IDX file ({len(buf)} bytes)")
    magic = int.from_bytes(buf[0:4], "big")
    if expected_magic is not None and magic != expected_magic:
        kind = "image" if expected_magic == _IMAGE_MAGIC else "label"
        raise ValueError(f"{path}: not an IDX {kind} file: magic number is {magic}, expected {expected_magic}")
    if magic == _IMAGE_MAGIC:
        ndim = 3
    elif magic == _LABEL_MAGIC:
        ndim = 1
    else:
        raise ValueError(f"{path}: unknown IDX magic number {magic} (expected {_IMAGE_MAGIC} or {_LABEL_MAGIC})")
    header = 4 + 4 * ndim
    if len(buf) < header:
        raise ValueError(f"{path}: truncated IDX header")
    dims = [int.from_bytes(buf[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    count = int(np.prod(dims))
    if len(buf) - header != count:
        raise ValueError(f"{path}: IDX header announces shape {dims} ({count} bytes of data) but the file "
                         f"holds {len(buf) - header} bytes after the header")
    return np.frombuffer(buf, dtype=np.uint8, count=count, offset=header).reshape(dims)


class MNIST(Dataset):
    """The MNIST handwritten digits from local IDX files.

    ``dataset[i]`` is ``(image, label)``: ``label`` is an int64 ndarray of shape ``[1]``; the
    image is passed through ``transform`` when given. Without a transform the image is a
    28x28 ``PIL.Image`` (mode 'L') for ``backend='pil'``, or a float32 ndarray ``[28, 28]``
    with values 0-255 for ``backend='cv2'`` (dy2st's numpy backend: OpenCV is not needed).
    ``backend=None`` uses `paddle.vision.get_image_backend()` ('pil' when Pillow is installed,
    else 'cv2').

    ``images`` holds the raw pixels as a uint8 array ``[N, rows*cols]`` and ``labels`` the
    labels as int64 ``[N, 1]``.
    """

    NAME = "mnist"

    def __init__(self, image_path=None, label_path=None, mode="train", transform=None, download=True,
                 backend=None):
        mode = mode.lower() if isinstance(mode, str) else mode
        if mode not in ("train", "test"):
            raise ValueError(f"{type(self).__name__}: mode should be 'train' or 'test', but got {mode!r}")
        if backend is None:
            from .. import get_image_backend
            backend = get_image_backend()
        if backend not in ("pil", "cv2"):
            raise ValueError(f"{type(self).__name__}: expected backend is one of ['pil', 'cv2'], but got {backend!r}")
        if backend == "pil":
            try:
                import PIL  # noqa: F401
            except ImportError:
                raise ImportError(f"{type(self).__name__}: backend='pil' needs Pillow, which is not installed; "
                                  "pass backend='cv2' to get numpy images") from None
        if image_path is None or label_path is None:
            prefix = "train" if mode == "train" else "t10k"
            missing = " and ".join(n for n, p in (("image_path", image_path), ("label_path", label_path))
                                   if p is None)
            raise ValueError(
                f"{type(self).__name__}: {missing} not given. dy2st does not download data sets; download "
                f"the {self.NAME} IDX files yourself and pass image_path='.../{prefix}-images-idx3-ubyte.gz' "
                f"and label_path='.../{prefix}-labels-idx1-ubyte.gz' (download={download!r} is ignored)")
        for name, p in (("image_path", image_path), ("label_path", label_path)):
            if not os.path.isfile(p):
                raise FileNotFoundError(f"{type(self).__name__}: {name} {p!r} does not exist")
        self.mode = mode
        self.backend = backend
        self.image_path = image_path
        self.label_path = label_path
        self.transform = transform
        self.dtype = get_default_dtype()
        images = read_idx(image_path, _IMAGE_MAGIC)
        labels = read_idx(label_path, _LABEL_MAGIC)
        if images.shape[0] != labels.shape[0]:
            raise ValueError(f"{type(self).__name__}: {image_path!r} holds {images.shape[0]} images but "
                             f"{label_path!r} holds {labels.shape[0]} labels")
        self._hw = images.shape[1:]
        self.images = images.reshape(images.shape[0], -1)
        self.labels = labels.astype(np.int64).reshape(-1, 1)

    def __getitem__(self, idx):
        image = self.images[idx].reshape(self._hw)
        label = self.labels[idx].copy()
        if self.backend == "pil":
            from PIL import Image
            image = Image.fromarray(np.ascontiguousarray(image))  # uint8 HW -> mode "L"
        else:
            image = image.astype(np.float32)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label
        if isinstance(image, np.ndarray):
            image = image.astype(self.dtype, copy=False)
        elif isinstance(image, Tensor) and image.dtype.name != self.dtype:
            image = image.astype(self.dtype)
        return image, label

    def __len__(self):
        return self.labels.shape[0]


class FashionMNIST(MNIST):
    """Fashion-MNIST (Zalando's clothing images) from local IDX files; same format and API as `MNIST`."""

    NAME = "fashion-mnist"
