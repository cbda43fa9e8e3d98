"""WMT14 (the small English-French set Paddle publishes as ``wmt14.tgz``): source ids, target ids and
next-target ids per sentence pair, as `paddle.text.WMT14` gives them."""
from __future__ import annotations

import tarfile

import numpy as np

from ...io.dataset import Dataset
from ...vision.datasets._cache import check_exists_and_download, check_mode

__all__ = ["WMT14"]

URL_TRAIN = "http://paddlemodels.bj.bcebos.com/wmt/wmt14.tgz"
MD5_TRAIN = "0791583d57d5beb693b9414c5b36798c"
START, END, UNK = "<s>", "<e>", "<unk>"
UNK_IDX = 2
MAX_LEN = 80                   # pairs with a longer source (with its marks) or target are skipped, as Paddle


def _first_words(fileobj, size):
    """The first ``size`` lines of a dictionary file: word -> line number."""
    out = {}
    for i, line in enumerate(fileobj):
        if i >= size:
            break
        out[line.strip().decode()] = i
    return out


class WMT14(Dataset):
    """``dataset[i]`` is ``(src_ids, trg_ids, trg_ids_next)``: the source words framed by ``<s>`` and ``<e>``,
    the target words after ``<s>``, and the target words followed by ``<e>`` (int64 arrays). The
    dictionaries are the first ``dict_size`` lines of the archive's ``src.dict`` / ``trg.dict``; unknown words
    get id 2. ``mode`` picks the archive's ``train/train``, ``test/test`` or ``gen/gen`` files."""

    def __init__(self, data_file=None, mode="train", dict_size=-1, download=True):
        self.mode = check_mode(mode, ("train", "test", "gen"), "WMT14")
        self.data_file = check_exists_and_download(data_file, URL_TRAIN, MD5_TRAIN, "wmt14", download, "WMT14")
        if not dict_size > 0:
            raise AssertionError(f"WMT14: dict_size should be set as positive number, got {dict_size!r}")
        self.dict_size = dict_size
        self._load_data()

    def _only(self, tar, suffix):
        names = [m.name for m in tar if m.name.endswith(suffix)]
        if len(names) != 1:
            raise ValueError(f"WMT14: {self.data_file} should hold exactly one file ending in {suffix!r}, "
                             f"found {len(names)}")
        return tar.extractfile(names[0])

    def _load_data(self):
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        with tarfile.open(self.data_file, mode="r") as tar:
            self.src_dict = _first_words(self._only(tar, "src.dict"), self.dict_size)
            self.trg_dict = _first_words(self._only(tar, "trg.dict"), self.dict_size)
            for key in (START, END):
                if key not in self.trg_dict:
                    raise ValueError(f"WMT14: the first {self.dict_size} words of trg.dict in {self.data_file} "
                                     f"lack {key!r}; use a larger dict_size")
            suffix = f"{self.mode}/{self.mode}"
            for name in [m.name for m in tar if m.name.endswith(suffix)]:
                for raw in tar.extractfile(name):
                    parts = raw.decode().strip().split("\t")
                    if len(parts) != 2:
                        continue
                    src = [self.src_dict.get(w, UNK_IDX) for w in [START, *parts[0].split(), END]]
                    trg = [self.trg_dict.get(w, UNK_IDX) for w in parts[1].split()]
                    if len(src) > MAX_LEN or len(trg) > MAX_LEN:
                        continue
                    self.src_ids.append(src)
                    self.trg_ids.append([self.trg_dict[START], *trg])
                    self.trg_ids_next.append([*trg, self.trg_dict[END]])

    def __getitem__(self, idx):
        return np.array(self.src_ids[idx]), np.array(self.trg_ids[idx]), np.array(self.trg_ids_next[idx])

    def __len__(self):
        return len(self.src_ids)

    def get_dict(self, reverse=False):
        """``(source dict, target dict)``: word -> id, or id -> word with ``reverse=True``."""
        src, trg = self.src_dict, self.trg_dict
        if reverse:
            src, trg = {v: k for k, v in src.items()}, {v: k for k, v in trg.items()}
        return src, trg
