"""CoNLL-2005 semantic role labelling, the public WSJ test split (``conll05st-tests.tar.gz`` with the word,
verb and label dictionaries): one item per (sentence, predicate) as `paddle.text.Conll05st` gives it."""
from __future__ import annotations

import gzip
import tarfile

import numpy as np

from ...io.dataset import Dataset
from ...vision.datasets._cache import check_exists_and_download

__all__ = ["Conll05st"]

DATA_URL = "http://paddlemodels.bj.bcebos.com/conll05st/conll05st-tests.tar.gz"
DATA_MD5 = "387719152ae52d60422c016e92a742fc"
WORDDICT_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2FwordDict.txt"
WORDDICT_MD5 = "ea7fb7d4c75cc6254716f0177a506baa"
VERBDICT_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2FverbDict.txt"
VERBDICT_MD5 = "0d2977293bbb6cbefab5b0f97db1e77c"
TRGDICT_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2FtargetDict.txt"
TRGDICT_MD5 = "d8c7f03ceb5fc2e5a0fa7503a4353751"
EMB_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2Femb"
EMB_MD5 = "bf436eb0faa1f6f9103017f8be57cdb7"
UNK_IDX = 0
WORDS = "conll05st-release/test.wsj/words/test.wsj.words.gz"
PROPS = "conll05st-release/test.wsj/props/test.wsj.props.gz"


def _load_dict(filename):
    with open(filename) as f:
        return {line.strip(): i for i, line in enumerate(f)}


def _load_label_dict(filename):
    """``B-<tag>``, ``I-<tag>`` for every tag of the file, then ``O``. Paddle orders the tags by iterating a
    Python set (an order that changes with PYTHONHASHSEED); here they keep their first appearance."""
    tags = []
    with open(filename) as f:
        for line in f:
            line = line.strip()
            if line.startswith(("B-", "I-")) and line[2:] not in tags:
                tags.append(line[2:])
    out = {}
    for tag in tags:
        out["B-" + tag] = len(out)
        out["I-" + tag] = len(out)
    out["O"] = len(out)
    return out


def _bracket_labels(column):
    """One predicate's bracketed argument column (``(A0*``, ``*``, ``*)``, ``(V*)``) as B-/I-/O tags."""
    tags, current, inside = [], "O", False
    for mark in column:
        if mark == "*":
            tags.append("I-" + current if inside else "O")
        elif mark == "*)":
            tags.append("I-" + current)
            inside = False
        elif "(" in mark:
            current = mark[1:mark.find("*")]
            tags.append("B-" + current)
            inside = ")" not in mark
        else:
            raise RuntimeError(f"Conll05st: unexpected label: {mark}")
    return tags


class Conll05st(Dataset):
    """``dataset[i]`` is nine int64 arrays of the sentence's length: word ids, the ids of the words two and
    one before the predicate, the predicate, one and two after it (each repeated; ``bos``/``eos`` at the
    edges), the predicate id, the 0/1 mark of that five-word window, and the label ids."""

    def __init__(self, data_file=None, word_dict_file=None, verb_dict_file=None, target_dict_file=None,
                 emb_file=None, download=True):
        self.data_file = check_exists_and_download(data_file, DATA_URL, DATA_MD5, "conll05st", download,
                                                   "Conll05st")
        self.word_dict_file = check_exists_and_download(word_dict_file, WORDDICT_URL, WORDDICT_MD5, "conll05st",
                                                        download, "Conll05st", "word_dict_file")
        self.verb_dict_file = check_exists_and_download(verb_dict_file, VERBDICT_URL, VERBDICT_MD5, "conll05st",
                                                        download, "Conll05st", "verb_dict_file")
        self.target_dict_file = check_exists_and_download(target_dict_file, TRGDICT_URL, TRGDICT_MD5, "conll05st",
                                                          download, "Conll05st", "target_dict_file")
        self.emb_file = check_exists_and_download(emb_file, EMB_URL, EMB_MD5, "conll05st", download, "Conll05st",
                                                  "emb_file")
        self.word_dict = _load_dict(self.word_dict_file)
        self.predicate_dict = _load_dict(self.verb_dict_file)
        self.label_dict = _load_label_dict(self.target_dict_file)
        self._load_anno()

    def _load_anno(self):
        self.sentences, self.predicates, self.labels = [], [], []
        with tarfile.open(self.data_file) as tar:
            try:
                words_raw, props_raw = tar.extractfile(WORDS), tar.extractfile(PROPS)
            except KeyError as e:
                raise ValueError(f"Conll05st: {self.data_file} lacks {e.args[0]}") from None
            with gzip.GzipFile(fileobj=words_raw) as words, gzip.GzipFile(fileobj=props_raw) as props:
                sentence, rows = [], []
                for word, prop in zip(words, props):
                    word, prop = word.strip().decode(), prop.strip().decode().split()
                    if prop:
                        sentence.append(word)
                        rows.append(prop)
                        continue
                    # end of a sentence: column 0 names the predicates, column k+1 labels the k-th one
                    if rows:
                        columns = [[row[i] for row in rows] for i in range(len(rows[0]))]
                        verbs = [v for v in columns[0] if v != "-"]
                        for k, column in enumerate(columns[1:]):
                            tags = _bracket_labels(column)
                            self.sentences.append(sentence)
                            self.predicates.append(verbs[k])
                            self.labels.append(tags)
                    sentence, rows = [], []

    def __getitem__(self, idx):
        sentence, predicate, labels = self.sentences[idx], self.predicates[idx], self.labels[idx]
        n = len(sentence)
        v = labels.index("B-V")
        mark = [0] * len(labels)
        context = {}
        for offset, edge in ((-2, "bos"), (-1, "bos"), (0, None), (1, "eos"), (2, "eos")):
            j = v + offset
            if 0 <= j < len(labels):
                mark[j] = 1
                context[offset] = sentence[j]
            else:
                context[offset] = edge
        word = self.word_dict.get
        return (np.array([word(w, UNK_IDX) for w in sentence]),
                *(np.array([word(context[o], UNK_IDX)] * n) for o in (-2, -1, 0, 1, 2)),
                np.array([self.predicate_dict.get(predicate)] * n),
                np.array(mark),
                np.array([self.label_dict.get(t) for t in labels]))

    def __len__(self):
        return len(self.sentences)

    def get_dict(self):
        """``(word_dict, predicate_dict, label_dict)``."""
        return self.word_dict, self.predicate_dict, self.label_dict

    def get_embedding(self):
        """The path of the embedding file."""
        return self.emb_file
