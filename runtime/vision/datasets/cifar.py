"""Cifar10 and Cifar100 from the python-pickle archives (``cifar-10-python.tar.gz``,
``cifar-100-python.tar.gz``), read with our restricted unpickler (never plain ``pickle``)."""
from __future__ import annotations

import tarfile

import numpy as np

from ...dtype import get_default_dtype
from ...formats.safe_pickle import safe_load
from ...io.dataset import Dataset
from ._cache import check_exists_and_download, check_mode, resolve_backend

__all__ = ["Cifar10", "Cifar100"]

URL_PREFIX = "https://dataset.bj.bcebos.com/cifar/"
CIFAR10_URL = URL_PREFIX + "cifar-10-python.tar.gz"
CIFAR10_MD5 = "c58f30108f718f92721af3b95e74349a"
CIFAR100_URL = URL_PREFIX + "cifar-100-python.tar.gz"
CIFAR100_MD5 = "eb9058c3a382ffc7106e4002c42a8d85"
MODE_FLAG_MAP = {"train10": "data_batch", "test10": "test_batch", "train100": "train", "test100": "test"}


class Cifar10(Dataset):
    """CIFAR-10: ``dataset[i]`` is ``(image, label)`` with a 32x32x3 HWC image (a PIL image for
    backend 'pil', else a numpy array in the default float dtype after ``transform``) and an
    int64 label array of shape ``[]``. Batches are the archive members whose name contains
    'data_batch' (train) or 'test_batch' (test), in sorted order."""

    def __init__(self, data_file=None, mode="train", transform=None, download=True, backend=None):
        self.mode = check_mode(mode, ("train", "test"), type(self).__name__)
        self.backend = resolve_backend(backend, type(self).__name__)
        self._init_url_md5_flag()
        self.data_file = check_exists_and_download(data_file, self.data_url, self.data_md5, "cifar", download,
                                                   type(self).__name__)
        self.transform = transform
        self._load_data()
        self.dtype = get_default_dtype()

    def _init_url_md5_flag(self):
        self.data_url, self.data_md5 = CIFAR10_URL, CIFAR10_MD5
        self.flag = MODE_FLAG_MAP[self.mode + "10"]

    def _load_data(self):
        self.data = []
        with tarfile.open(self.data_file, mode="r") as f:
            names = sorted(m.name for m in f if self.flag in m.name and m.isfile())
            for name in names:
                batch = safe_load(f.extractfile(name), encoding="bytes", path=f"{self.data_file}:{name}")
                if not isinstance(batch, dict) or b"data" not in batch:
                    raise ValueError(f"{type(self).__name__}: {self.data_file}:{name} is not a CIFAR batch "
                                     "(expected a dict with b'data' and b'labels' or b'fine_labels')")
                labels = batch.get(b"labels", batch.get(b"fine_labels", None))
                if labels is None:
                    raise ValueError(f"{type(self).__name__}: {self.data_file}:{name} has no b'labels' or "
                                     "b'fine_labels' entry")
                data = np.asarray(batch[b"data"])
                for sample, label in zip(data, labels):
                    self.data.append((sample, label))

    def __getitem__(self, idx):
        image, label = self.data[idx]
        image = np.reshape(image, [3, 32, 32]).transpose([1, 2, 0])
        if self.backend == "pil":
            from PIL import Image
            image = Image.fromarray(image.astype("uint8"))
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, np.array(label).astype("int64")
        return image.astype(self.dtype), np.array(label).astype("int64")

    def __len__(self):
        return len(self.data)


class Cifar100(Cifar10):
    """CIFAR-100 (fine labels); same API as `Cifar10`, members named 'train' / 'test'."""

    def _init_url_md5_flag(self):
        self.data_url, self.data_md5 = CIFAR100_URL, CIFAR100_MD5
        self.flag = MODE_FLAG_MAP[self.mode + "100"]
