"""Oxford 102 Flowers: ``102flowers.tgz`` (jpg/image_XXXXX.jpg) with ``imagelabels.mat`` and
``setid.mat`` (MATLAB level-5 files, read by `runtime.formats.matfile`)."""
from __future__ import annotations

import os
import tarfile

import numpy as np

from ...dtype import get_default_dtype
from ...io.dataset import Dataset
from ._cache import check_exists_and_download, check_mode, resolve_backend

__all__ = ["Flowers"]

DATA_URL = "http://paddlemodels.bj.bcebos.com/flowers/102flowers.tgz"
LABEL_URL = "http://paddlemodels.bj.bcebos.com/flowers/imagelabels.mat"
SETID_URL = "http://paddlemodels.bj.bcebos.com/flowers/setid.mat"
DATA_MD5 = "52808999861908f626f3c1f4e79d11fa"
LABEL_MD5 = "e0620be6f572b9609742df49c70aed4d"
SETID_MD5 = "a5357ecc9cb78c4bef273ce3793fc85c"
# Paddle's mapping: its 'train' split is the published test ids (the larger set)
MODE_FLAG_MAP = {"train": "tstid", "test": "trnid", "valid": "valid"}


def _loadmat(path):
    from ...formats.matfile import loadmat
    return loadmat(path)


def _safe_extract(tar, dest):
    root = os.path.realpath(dest)
    for m in tar.getmembers():
        target = os.path.realpath(os.path.join(dest, m.name))
        if os.path.commonpath([root, target]) != root or m.issym() or m.islnk():
            raise ValueError(f"Flowers: refusing to extract the unsafe archive member {m.name!r}")
    tar.extractall(dest)


class Flowers(Dataset):
    """``dataset[i]`` is ``(image, label)``: the image (a PIL image for backend 'pil', an HWC
    ndarray for 'cv2') of the i-th id of the split, and its label as int64 ``[1]``. The archive is
    unpacked once beside itself (``102flowers/``), as Paddle does."""

    def __init__(self, data_file=None, label_file=None, setid_file=None, mode="train", transform=None,
                 download=True, backend=None):
        mode = check_mode(mode, ("train", "valid", "test"), "Flowers")
        self.backend = resolve_backend(backend, "Flowers")
        flag = MODE_FLAG_MAP[mode]
        data_file = check_exists_and_download(data_file, DATA_URL, DATA_MD5, "flowers", download, "Flowers")
        label_file = check_exists_and_download(label_file, LABEL_URL, LABEL_MD5, "flowers", download, "Flowers",
                                               "label_file")
        setid_file = check_exists_and_download(setid_file, SETID_URL, SETID_MD5, "flowers", download, "Flowers",
                                               "setid_file")
        self.transform = transform
        self.data_path = data_file.replace(".tgz", "/")
        if not os.path.exists(self.data_path):
            os.mkdir(self.data_path)
        if not os.path.exists(os.path.join(self.data_path, "jpg")):
            with tarfile.open(data_file) as tar:
                _safe_extract(tar, self.data_path)
        self.labels = _loadmat(label_file)["labels"][0]
        self.indexes = _loadmat(setid_file)[flag][0]

    def __getitem__(self, idx):
        from PIL import Image
        index = self.indexes[idx]
        label = np.array([self.labels[index - 1]])
        path = os.path.join(self.data_path, f"jpg/image_{index:05}.jpg")
        image = Image.open(path)
        if self.backend == "cv2":
            image = np.array(image)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label.astype("int64")
        return image.astype(get_default_dtype()), label.astype("int64")

    def __len__(self):
        return len(self.indexes)
