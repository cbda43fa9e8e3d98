"""TESS (Toronto emotional speech set): 2800 recordings of 200 words by two speakers in seven emotions.
Upstream layout under Paddle's dataset cache: ``TESS_Toronto_emotional_speech_set/**/<speaker>_<word>_
<emotion>.wav``. Files are taken in ``os.walk`` order (as Paddle does) and dealt round-robin into
``n_folds`` folds; mode 'train' takes every fold but ``split``, other modes fold ``split``."""
from __future__ import annotations

import os
from typing import NamedTuple

from ...vision.datasets._cache import DATA_HOME
from .dataset import AudioClassificationDataset, unpack_cached_archive

__all__ = []


class TESS(AudioClassificationDataset):
    """``dataset[i]`` is (feature, label): see `ESC50`; labels index `label_list`."""

    archive = {"url": "https://bj.bcebos.com/paddleaudio/datasets/TESS_Toronto_emotional_speech_set.zip",
               "md5": "1465311b24d1de704c4c63e4ccc470c7"}
    label_list = ["angry", "disgust", "fear", "happy", "neutral", "ps", "sad"]   # ps: pleasant surprise
    audio_path = "TESS_Toronto_emotional_speech_set"

    class meta_info(NamedTuple):
        speaker: str
        word: str
        emotion: str

    def __init__(self, mode="train", n_folds=5, split=1, feat_type="raw", archive=None, **kwargs):
        assert isinstance(n_folds, int) and n_folds >= 1, \
            f"the n_folds should be integer and n_folds >= 1, but got {n_folds}"
        assert split in range(1, n_folds + 1), \
            f"The selected split should be integer and should be 1 <= split <= {n_folds}, but got {split}"
        if archive is not None:
            self.archive = archive
        files, labels = self._get_data(mode, n_folds, split)
        super().__init__(files=files, labels=labels, feat_type=feat_type, **kwargs)

    def _get_meta_info(self, files):
        rows = []
        for file in files:
            parts = os.path.basename(file)[:-4].split("_")
            if len(parts) != 3:
                raise ValueError(f"TESS: file name {os.path.basename(file)!r} is not <speaker>_<word>_<emotion>.wav")
            rows.append(self.meta_info(*parts))
        return rows

    def _get_data(self, mode, n_folds, split):
        root = os.path.join(DATA_HOME, self.audio_path)
        if not os.path.isdir(root):
            unpack_cached_archive(DATA_HOME, self.archive, [root], "TESS")
        wav_files = [os.path.join(d, f) for d, _, names in os.walk(root) for f in names if f.endswith(".wav")]
        files, labels = [], []
        for idx, sample in enumerate(self._get_meta_info(wav_files)):
            if sample.emotion not in self.label_list:
                raise ValueError(f"TESS: {wav_files[idx]!r} has emotion {sample.emotion!r}, expected one of "
                                 f"{self.label_list}")
            fold = idx % n_folds + 1
            if (mode == "train") != (fold == split):
                files.append(wav_files[idx])
                labels.append(self.label_list.index(sample.emotion))
        return files, labels
