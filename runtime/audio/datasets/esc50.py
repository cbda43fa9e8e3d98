"""ESC-50: 2000 five-second environmental recordings in 50 classes, five folds. Upstream layout under
Paddle's dataset cache: ``ESC-50-master/meta/esc50.csv`` and ``ESC-50-master/audio/*.wav``. Mode 'train'
takes every fold but ``split``; any other mode takes fold ``split``."""
from __future__ import annotations

import os
from typing import NamedTuple

from ...vision.datasets._cache import DATA_HOME
from .dataset import AudioClassificationDataset, unpack_cached_archive

__all__ = []


class ESC50(AudioClassificationDataset):
    """``dataset[i]`` is (feature, label): the waveform [samples] for feat_type 'raw', else the feature
    layer's output for the file (e.g. [n_mfcc, frames]); label the class index (int)."""

    archive = {"url": "https://paddleaudio.bj.bcebos.com/datasets/ESC-50-master.zip",
               "md5": "7771e4b9d86d0945acce719c7a59305a"}
    label_list = [
        # animals
        "Dog", "Rooster", "Pig", "Cow", "Frog", "Cat", "Hen", "Insects (flying)", "Sheep", "Crow",
        # natural soundscapes and water sounds
        "Rain", "Sea waves", "Crackling fire", "Crickets", "Chirping birds", "Water drops", "Wind",
        "Pouring water", "Toilet flush", "Thunderstorm",
        # human, non-speech sounds
        "Crying baby", "Sneezing", "Clapping", "Breathing", "Coughing", "Footsteps", "Laughing",
        "Brushing teeth", "Snoring", "Drinking, sipping",
        # interior / domestic sounds
        "Door knock", "Mouse click", "Keyboard typing", "Door, wood creaks", "Can opening", "Washing machine",
        "Vacuum cleaner", "Clock alarm", "Clock tick", "Glass breaking",
        # exterior / urban noises
        "Helicopter", "Chainsaw", "Siren", "Car horn", "Engine", "Train", "Church bells", "Airplane",
        "Fireworks", "Hand saw",
    ]
    meta = os.path.join("ESC-50-master", "meta", "esc50.csv")
    audio_path = os.path.join("ESC-50-master", "audio")

    class meta_info(NamedTuple):
        filename: str
        fold: str
        target: str
        category: str
        esc10: str
        src_file: str
        take: str

    def __init__(self, mode="train", split=1, feat_type="raw", archive=None, **kwargs):
        assert split in range(1, 6), f"The selected split should be integer, and 1 <= split <= 5, but got {split}"
        if archive is not None:
            self.archive = archive
        files, labels = self._get_data(mode, split)
        super().__init__(files=files, labels=labels, feat_type=feat_type, **kwargs)

    def _get_meta_info(self):
        path = os.path.join(DATA_HOME, self.meta)
        rows = []
        with open(path) as f:
            for lineno, line in enumerate(f.readlines()[1:], start=2):
                fields = line.strip().split(",")
                if len(fields) != len(self.meta_info._fields):
                    raise ValueError(f"ESC50: {path} line {lineno} has {len(fields)} fields, expected "
                                     f"{len(self.meta_info._fields)} ({', '.join(self.meta_info._fields)})")
                rows.append(self.meta_info(*fields))
        return rows

    def _get_data(self, mode, split):
        audio_dir, meta = os.path.join(DATA_HOME, self.audio_path), os.path.join(DATA_HOME, self.meta)
        if not os.path.isdir(audio_dir) or not os.path.isfile(meta):
            unpack_cached_archive(DATA_HOME, self.archive, [audio_dir, meta], "ESC50")
        files, labels = [], []
        for sample in self._get_meta_info():
            in_dev_fold = int(sample.fold) == split
            if (mode == "train") != in_dev_fold:
                files.append(os.path.join(audio_dir, sample.filename))
                labels.append(int(sample.target))
        return files, labels
