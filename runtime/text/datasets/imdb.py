"""IMDB movie reviews (``aclImdb_v1.tar.gz``): word ids and a sentiment label per review."""
from __future__ import annotations

import collections
import re
import string
import tarfile

import numpy as np

from ...io.dataset import Dataset
from ...vision.datasets._cache import check_exists_and_download, check_mode

__all__ = ["Imdb"]

URL = "https://dataset.bj.bcebos.com/imdb%2FaclImdb_v1.tar.gz"
MD5 = "7c2ac02c03563afcf9b574c7e56c153a"

_PUNCT = string.punctuation.encode("latin-1")


class Imdb(Dataset):
    """``dataset[i]`` is ``(word_ids, label)``: label 0 for ``pos`` reviews, 1 for ``neg``.

    Tokenisation as Paddle: a review's bytes lose trailing newlines and all ASCII punctuation,
    are lower-cased and split on whitespace. ``word_idx`` maps the words (bytes) seen more than
    ``cutoff`` times in train and test to ids by descending frequency (ties by the word), and
    ``'<unk>'`` to the next id."""

    def __init__(self, data_file=None, mode="train", cutoff=150, download=True):
        self.mode = check_mode(mode, ("train", "test"), "Imdb")
        self.data_file = check_exists_and_download(data_file, URL, MD5, "imdb", download, "Imdb")
        self.word_idx = self._build_work_dict(cutoff)
        self._load_anno()

    def _build_work_dict(self, cutoff):
        word_freq = collections.defaultdict(int)
        pattern = re.compile(r"aclImdb/((train)|(test))/((pos)|(neg))/.*\.txt$")
        for doc in self._tokenize(pattern):
            for word in doc:
                word_freq[word] += 1
        kept = sorted((x for x in word_freq.items() if x[1] > cutoff), key=lambda x: (-x[1], x[0]))
        if not kept:
            raise ValueError(f"Imdb: no word in {self.data_file} occurs more than cutoff={cutoff} times; "
                             "lower cutoff")
        word_idx = {w: i for i, (w, _) in enumerate(kept)}
        word_idx["<unk>"] = len(kept)
        return word_idx

    def _tokenize(self, pattern):
        data = []
        with tarfile.open(self.data_file) as tarf:
            for member in tarf:
                if pattern.match(member.name):
                    text = tarf.extractfile(member).read()
                    data.append(text.rstrip(b"\n\r").translate(None, _PUNCT).lower().split())
        return data

    def _load_anno(self):
        unk = self.word_idx["<unk>"]
        self.docs, self.labels = [], []
        for label, kind in ((0, "pos"), (1, "neg")):
            for doc in self._tokenize(re.compile(rf"aclImdb/{self.mode}/{kind}/.*\.txt$")):
                self.docs.append([self.word_idx.get(w, unk) for w in doc])
                self.labels.append(label)

    def __getitem__(self, idx):
        return np.array(self.docs[idx]), np.array([self.labels[idx]])

    def __len__(self):
        return len(self.docs)
