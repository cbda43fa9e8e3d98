"""UCI Boston housing (``housing.data``: 14 whitespace-separated numbers per house)."""
from __future__ import annotations

import numpy as np

from ...dtype import get_default_dtype
from ...io.dataset import Dataset
from ...vision.datasets._cache import check_exists_and_download, check_mode

__all__ = ["UCIHousing"]

URL = "http://paddlemodels.bj.bcebos.com/uci_housing/housing.data"
MD5 = "d4accdce7a25600298819f8e28e8d593"
feature_names = ["CRIM", "ZN", "INDUS", "CHAS", "NOX", "RM", "AGE", "DIS", "RAD", "TAX", "PTRATIO", "B", "LSTAT"]


class UCIHousing(Dataset):
    """``dataset[i]`` is ``(features[13], price[1])`` in the default float dtype. Each feature is
    centred on its mean and divided by its range (over the whole file); the first 80 % of the
    rows are 'train', the rest 'test'."""

    def __init__(self, data_file=None, mode="train", download=True):
        self.mode = check_mode(mode, ("train", "test"), "UCIHousing")
        self.data_file = check_exists_and_download(data_file, URL, MD5, "uci_housing", download, "UCIHousing")
        self._load_data()
        self.dtype = get_default_dtype()

    def _load_data(self, feature_num=14, ratio=0.8):
        with open(self.data_file, "rb") as f:
            text = f.read().decode("latin-1")
        try:
            data = np.array([float(v) for v in text.split()], dtype=np.float64)
        except ValueError as e:
            raise ValueError(f"UCIHousing: {self.data_file} should hold whitespace-separated numbers: {e}") from None
        if data.size % feature_num:
            raise ValueError(f"UCIHousing: {self.data_file} holds {data.size} numbers, not a multiple of "
                             f"{feature_num} (13 features and the price per row)")
        data = data.reshape(data.shape[0] // feature_num, feature_num)
        maximums, minimums = data.max(axis=0), data.min(axis=0)
        avgs = data.sum(axis=0) / data.shape[0]
        for i in range(feature_num - 1):
            data[:, i] = (data[:, i] - avgs[i]) / (maximums[i] - minimums[i])
        offset = int(data.shape[0] * ratio)
        self.data = data[:offset] if self.mode == "train" else data[offset:]

    def __getitem__(self, idx):
        row = self.data[idx]
        return np.array(row[:-1]).astype(self.dtype), np.array(row[-1:]).astype(self.dtype)

    def __len__(self):
        return len(self.data)
