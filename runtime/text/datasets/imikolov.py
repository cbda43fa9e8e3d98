"""Penn Treebank language-model data (Mikolov's ``simple-examples.tgz``): n-grams or sequences."""
from __future__ import annotations

import collections
import tarfile

import numpy as np

from ...io.dataset import Dataset
from ...vision.datasets._cache import check_exists_and_download, check_mode

__all__ = ["Imikolov"]

URL = "https://dataset.bj.bcebos.com/imikolov%2Fsimple-examples.tgz"
MD5 = "30177ea32e27c525793142b6bf2c8e2d"


class Imikolov(Dataset):
    """``data_type='NGRAM'``: every ``window_size``-gram of ``<s> words <e>`` as a tuple of ids;
    ``'SEQ'``: ``(<s> + ids, ids + <e>)`` pairs, skipping lines longer than ``window_size`` (when
    > 0). ``word_idx`` maps the words (bytes; ``'<s>'``/``'<e>'`` are str, as in Paddle) seen more
    than ``min_word_freq`` times in ptb.train and ptb.valid to ids by descending frequency, and
    ``'<unk>'`` to the next id."""

    def __init__(self, data_file=None, data_type="NGRAM", window_size=-1, mode="train", min_word_freq=50,
                 download=True):
        if not isinstance(data_type, str) or data_type.upper() not in ("NGRAM", "SEQ"):
            raise AssertionError(f"data type should be 'NGRAM', 'SEQ', but got {data_type!r}")
        self.data_type = data_type.upper()
        self.mode = check_mode(mode, ("train", "test"), "Imikolov")
        self.window_size = window_size
        self.min_word_freq = min_word_freq
        self.data_file = check_exists_and_download(data_file, URL, MD5, "imikolov", download, "Imikolov")
        self.word_idx = self._build_work_dict(min_word_freq)
        self._load_anno()

    def word_count(self, f, word_freq=None):
        """Add the words of the lines of ``f`` (and one ``<s>``/``<e>`` per line) to ``word_freq``."""
        if word_freq is None:
            word_freq = collections.defaultdict(int)
        for line in f:
            for w in line.strip().split():
                word_freq[w] += 1
            word_freq["<s>"] += 1
            word_freq["<e>"] += 1
        return word_freq

    def _member(self, tf, name):
        try:
            return tf.extractfile(name)
        except KeyError:
            raise ValueError(f"Imikolov: {self.data_file} has no member {name!r}; is it simple-examples.tgz?") from None

    def _build_work_dict(self, cutoff):
        with tarfile.open(self.data_file) as tf:
            trainf = self._member(tf, "./simple-examples/data/ptb.train.txt")
            testf = self._member(tf, "./simple-examples/data/ptb.valid.txt")
            word_freq = self.word_count(testf, self.word_count(trainf))
        word_freq.pop("<unk>", None)
        kept = sorted((x for x in word_freq.items() if x[1] > self.min_word_freq), key=lambda x: (-x[1], x[0]))
        if not kept:
            raise ValueError(f"Imikolov: no word occurs more than min_word_freq={self.min_word_freq} times")
        word_idx = {w: i for i, (w, _) in enumerate(kept)}
        word_idx["<unk>"] = len(kept)
        return word_idx

    def _load_anno(self):
        self.data = []
        unk = self.word_idx["<unk>"]
        with tarfile.open(self.data_file) as tf:
            f = self._member(tf, f"./simple-examples/data/ptb.{self.mode}.txt")
            for line in f:
                if self.data_type == "NGRAM":
                    if not self.window_size > -1:
                        raise AssertionError("Invalid gram length: pass window_size >= 0 for data_type='NGRAM'")
                    words = ["<s>", *line.strip().split(), "<e>"]
                    if len(words) >= self.window_size:
                        ids = [self.word_idx.get(w, unk) for w in words]
                        for i in range(self.window_size, len(ids) + 1):
                            self.data.append(tuple(ids[i - self.window_size:i]))
                else:
                    ids = [self.word_idx.get(w, unk) for w in line.strip().split()]
                    src = [self.word_idx["<s>"], *ids]
                    trg = [*ids, self.word_idx["<e>"]]
                    if self.window_size > 0 and len(src) > self.window_size:
                        continue
                    self.data.append((src, trg))

    def __getitem__(self, idx):
        return tuple(np.array(d) for d in self.data[idx])

    def __len__(self):
        return len(self.data)
