"""PASCAL VOC2012 segmentation pairs read straight from ``VOCtrainval_11-May-2012.tar``."""
from __future__ import annotations

import io
import tarfile

import numpy as np

from ...dtype import get_default_dtype
from ...io.dataset import Dataset
from ._cache import check_exists_and_download, check_mode, resolve_backend

__all__ = ["VOC2012"]

VOC_URL = "https://dataset.bj.bcebos.com/voc/VOCtrainval_11-May-2012.tar"
VOC_MD5 = "6cd6e144f989b92b3379bac3b3de84fd"
SET_FILE = "VOCdevkit/VOC2012/ImageSets/Segmentation/{}.txt"
DATA_FILE = "VOCdevkit/VOC2012/JPEGImages/{}.jpg"
LABEL_FILE = "VOCdevkit/VOC2012/SegmentationClass/{}.png"
CACHE_DIR = "voc2012"
# Paddle's mapping of modes to the image-set lists
MODE_FLAG_MAP = {"train": "trainval", "test": "train", "valid": "val"}


class VOC2012(Dataset):
    """``dataset[i]`` is ``(image, label)``: the JPEG image and its segmentation-class PNG named by
    line i of ``ImageSets/Segmentation/<set>.txt``. PIL images for backend 'pil'; ndarrays in the
    default float dtype for 'cv2'. Decoding needs Pillow."""

    def __init__(self, data_file=None, mode="train", transform=None, download=True, backend=None):
        mode = check_mode(mode, ("train", "valid", "test"), "VOC2012")
        self.backend = resolve_backend(backend, "VOC2012")
        self.flag = MODE_FLAG_MAP[mode]
        self.data_tar = None
        self.data_file = check_exists_and_download(data_file, VOC_URL, VOC_MD5, CACHE_DIR, download, "VOC2012")
        self.transform = transform
        self._load_anno()
        self.dtype = get_default_dtype()

    def _load_anno(self):
        self.data_tar = tarfile.open(self.data_file)
        self.name2mem = {m.name: m for m in self.data_tar.getmembers()}
        set_file = SET_FILE.format(self.flag)
        if set_file not in self.name2mem:
            raise ValueError(f"VOC2012: {self.data_file} has no member {set_file!r}; is it the VOCtrainval tar?")
        self.data, self.labels = [], []
        for line in self.data_tar.extractfile(self.name2mem[set_file]):
            name = line.strip().decode("utf-8")
            self.data.append(DATA_FILE.format(name))
            self.labels.append(LABEL_FILE.format(name))

    def _read(self, name):
        if name not in self.name2mem:
            raise KeyError(f"VOC2012: {self.data_file} has no member {name!r}")
        return self.data_tar.extractfile(self.name2mem[name]).read()

    def __getitem__(self, idx):
        from PIL import Image
        data = Image.open(io.BytesIO(self._read(self.data[idx])))
        label = Image.open(io.BytesIO(self._read(self.labels[idx])))
        if self.backend == "cv2":
            data, label = np.array(data), np.array(label)
        if self.transform is not None:
            data = self.transform(data)
        if self.backend == "cv2":
            return data.astype(self.dtype), label.astype(self.dtype)
        return data, label

    def __len__(self):
        return len(self.data)

    def __del__(self):
        if getattr(self, "data_tar", None) is not None:
            self.data_tar.close()
