"""MNIST and FashionMNIST read from local IDX files (``paddle.vision.datasets.MNIST``).

dy2st never downloads anything: pass ``image_path`` and ``label_path`` pointing at the IDX
files (``train-images-idx3-ubyte[.gz]`` and ``train-labels-idx1-ubyte[.gz]``, or the t10k
pair for ``mode='test'``), or leave them out to read the files from Paddle's dataset cache
(``~/.cache/paddle/dataset/mnist/...``, checked against Paddle's md5s; a missing file is an error
that names the path and the URL). Gzipped and plain files are both read (gzip is detected from the
file's first bytes).
"""
from __future__ import annotations

import gzip
import os

import numpy as np

from ...dtype import get_default_dtype
from ...io.dataset import Dataset
from ...tensor import Tensor
from ._cache import check_exists_and_download

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
    URL_PREFIX = "https://dataset.bj.bcebos.com/mnist/"
    TEST_IMAGE_URL = URL_PREFIX + "t10k-images-idx3-ubyte.gz"
    TEST_IMAGE_MD5 = "9fb629c4189551a2d022fa330f9573f3"
    TEST_LABEL_URL = URL_PREFIX + "t10k-labels-idx1-ubyte.gz"
    TEST_LABEL_MD5 = "ec29112dd5afa0611ce80d1b7f02629c"
    TRAIN_IMAGE_URL = URL_PREFIX + "train-images-idx3-ubyte.gz"
    TRAIN_IMAGE_MD5 = "f68b3c2dcbeaaa9fbdd348bbdeb94873"
    TRAIN_LABEL_URL = URL_PREFIX + "train-labels-idx1-ubyte.gz"
    TRAIN_LABEL_MD5 = "d53e105ee54ea40749a09fcbcd1e9432"

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
        split = "TRAIN" if mode == "train" else "TEST"
        paths = {}
        for name, given, kind in (("image_path", image_path, "IMAGE"), ("label_path", label_path, "LABEL")):
            if given is None:
                # Paddle's rule: no path and download=False is an AssertionError; with download, the file in
                # Paddle's dataset cache (we never fetch it: the error says where to put it)
                assert download, f"{name.split('_')[0]}_path is not set and downloading automatically is disabled"
                given = check_exists_and_download(None, getattr(self, f"{split}_{kind}_URL"),
                                                  getattr(self, f"{split}_{kind}_MD5"), self.NAME, download,
                                                  who=type(self).__name__, arg=name)
            paths[name] = given
        image_path, label_path = paths["image_path"], paths["label_path"]
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
    URL_PREFIX = "https://dataset.bj.bcebos.com/fashion_mnist/"
    TEST_IMAGE_URL = URL_PREFIX + "t10k-images-idx3-ubyte.gz"
    TEST_IMAGE_MD5 = "bef4ecab320f06d8554ea6380940ec79"
    TEST_LABEL_URL = URL_PREFIX + "t10k-labels-idx1-ubyte.gz"
    TEST_LABEL_MD5 = "bb300cfdad3c16e7a12a480ee83cd310"
    TRAIN_IMAGE_URL = URL_PREFIX + "train-images-idx3-ubyte.gz"
    TRAIN_IMAGE_MD5 = "8d4fb7e6c68d591d4c3dfef9ec88bf0d"
    TRAIN_LABEL_URL = URL_PREFIX + "train-labels-idx1-ubyte.gz"
    TRAIN_LABEL_MD5 = "25c81989df183df01b3e8a0aad5dffbe"
