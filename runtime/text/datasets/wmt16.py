"""WMT16 English-German (Paddle's ``wmt16.tar.gz``: tab-separated ``wmt16/train``, ``val``, ``test``): source
ids, target ids and next-target ids per sentence pair, with dictionaries built from the training file and
cached as ``DATA_HOME/wmt16/<lang>_<size>.dict``, as `paddle.text.WMT16` does."""
from __future__ import annotations

import collections
import os
import tarfile
import tempfile

import numpy as np

from ...io.dataset import Dataset
from ...vision.datasets import _cache
from ...vision.datasets._cache import check_exists_and_download, check_mode

__all__ = ["WMT16"]

DATA_URL = "http://paddlemodels.bj.bcebos.com/wmt/wmt16.tar.gz"
DATA_MD5 = "0c38be43600334966403524a40dcd81e"
TOTAL_EN_WORDS = 11250
TOTAL_DE_WORDS = 19220
START_MARK, END_MARK, UNK_MARK = "<s>", "<e>", "<unk>"


class WMT16(Dataset):
    """``dataset[i]`` is ``(src_ids, trg_ids, trg_ids_next)`` (int64 arrays) for ``lang`` as the source
    language ('en' or 'de'). Dictionaries: ``<s>``, ``<e>``, ``<unk>`` then the training words by descending
    count (first occurrence first among equal counts), ``dict_size`` entries in all.

    Kept from Paddle for files and results to agree: both dictionaries are counted over the SOURCE column
    (Paddle's ``_build_dict`` reads the column of ``self.lang`` whatever language it builds), the cache file
    is named with the requested size, not the clipped one, and ``get_dict`` ignores ``reverse``."""

    def __init__(self, data_file=None, mode="train", src_dict_size=-1, trg_dict_size=-1, lang="en",
                 download=True):
        self.mode = check_mode(mode, ("train", "test", "val"), "WMT16")
        self.data_file = check_exists_and_download(data_file, DATA_URL, DATA_MD5, "wmt16", download, "WMT16")
        if lang not in ("en", "de"):
            raise ValueError(f"WMT16: lang should be 'en' or 'de', got {lang!r}")
        self.lang = lang
        if not src_dict_size > 0 or not trg_dict_size > 0:
            raise AssertionError("WMT16: dict_size should be set as positive number, got "
                                 f"src_dict_size={src_dict_size!r}, trg_dict_size={trg_dict_size!r}")
        self.src_dict_size = min(src_dict_size, TOTAL_EN_WORDS if lang == "en" else TOTAL_DE_WORDS)
        self.trg_dict_size = min(trg_dict_size, TOTAL_DE_WORDS if lang == "en" else TOTAL_EN_WORDS)
        self.src_dict = self._load_dict(lang, src_dict_size)
        self.trg_dict = self._load_dict("de" if lang == "en" else "en", trg_dict_size)
        self._load_data()

    def _dict_path(self, lang, dict_size):
        return os.path.join(_cache.DATA_HOME, "wmt16", f"{lang}_{dict_size}.dict")

    def _load_dict(self, lang, dict_size, reverse=False):
        path = self._dict_path(lang, dict_size)
        found = False
        if os.path.exists(path):
            with open(path, "rb") as f:
                found = len(f.readlines()) == dict_size
        if not found:
            self._build_dict(path, dict_size)
        words = {}
        with open(path, "rb") as f:
            for i, line in enumerate(f):
                word = line.strip().decode()
                if reverse:
                    words[i] = word
                else:
                    words[word] = i
        return words

    def _lines(self, member):
        with tarfile.open(self.data_file, mode="r") as tar:
            try:
                fileobj = tar.extractfile(member)
            except KeyError:
                raise ValueError(f"WMT16: {self.data_file} has no {member!r}") from None
            for raw in fileobj:
                parts = raw.decode().strip().split("\t")
                if len(parts) == 2:
                    yield parts

    def _build_dict(self, path, dict_size):
        counts = collections.defaultdict(int)
        column = 0 if self.lang == "en" else 1
        for parts in self._lines("wmt16/train"):
            for w in parts[column].split():
                counts[w] += 1
        lines = [START_MARK, END_MARK, UNK_MARK]
        for i, (word, _) in enumerate(sorted(counts.items(), key=lambda x: x[1], reverse=True)):
            if i + 3 == dict_size:
                break
            lines.append(word)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".wmt16-dict-")
        try:                                     # atomic: a reader never sees half a dictionary
            with os.fdopen(fd, "wb") as f:
                f.write(("\n".join(lines) + "\n").encode())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def _load_data(self):
        start, end, unk = self.src_dict[START_MARK], self.src_dict[END_MARK], self.src_dict[UNK_MARK]
        src_col = 0 if self.lang == "en" else 1
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        for parts in self._lines(f"wmt16/{self.mode}"):
            trg = [self.trg_dict.get(w, unk) for w in parts[1 - src_col].split()]
            self.src_ids.append([start, *[self.src_dict.get(w, unk) for w in parts[src_col].split()], end])
            self.trg_ids.append([start, *trg])
            self.trg_ids_next.append([*trg, end])

    def __getitem__(self, idx):
        return np.array(self.src_ids[idx]), np.array(self.trg_ids[idx]), np.array(self.trg_ids_next[idx])

    def __len__(self):
        return len(self.src_ids)

    def get_dict(self, lang, reverse=False):
        """The dictionary of ``lang`` (word -> id; Paddle 3.3.1 returns this form whatever ``reverse`` says)."""
        dict_size = self.src_dict_size if lang == self.lang else self.trg_dict_size
        if not os.path.exists(self._dict_path(lang, dict_size)):
            raise AssertionError("Word dictionary does not exist. ")
        return self._load_dict(lang, dict_size)
