"""`AudioClassificationDataset`: (feature, label) items of audio files, the feature being the waveform
('raw') or one of the feature layers built per item with the file's sample rate, as in Paddle 3.3.1.

Where the files come from: Paddle unpacks each archive into its dataset cache (``DATA_HOME``,
``~/.cache/paddle/dataset``). We read that layout; an archive already in the cache (``DATA_HOME/<name>.zip``,
as Paddle's downloader leaves it; zip or tar) is checked against its md5 and unpacked where Paddle's
downloader would put it; with neither, the error names the paths and the URL. Nothing is downloaded.
"""
from __future__ import annotations

import os
import tarfile
import zipfile

from ...io.dataset import Dataset
from ..features import MFCC, LogMelSpectrogram, MelSpectrogram, Spectrogram

__all__ = ["AudioClassificationDataset"]

feat_funcs = {"raw": None, "melspectrogram": MelSpectrogram, "mfcc": MFCC, "logmelspectrogram": LogMelSpectrogram,
              "spectrogram": Spectrogram}


def _extraction_dir(data_home, archive_path, names):
    """Paddle's downloader's rule: an archive holding one file or one top folder unpacks beside itself;
    any other archive into a folder named after it."""
    tops = {n.replace("\\", "/").split("/")[0] for n in names}
    if len(tops) <= 1:
        return data_home
    return os.path.join(data_home, os.path.splitext(os.path.basename(archive_path))[0])


def _unpack(archive_path, data_home, who):
    if zipfile.is_zipfile(archive_path):
        with zipfile.ZipFile(archive_path) as zf:
            names = zf.namelist()
            dest = _extraction_dir(data_home, archive_path, names)
            _check_members(names, dest, archive_path, who)
            zf.extractall(dest)
    elif tarfile.is_tarfile(archive_path):
        with tarfile.open(archive_path) as tf:
            members = tf.getmembers()
            dest = _extraction_dir(data_home, archive_path, [m.name for m in members])
            _check_members([m.name for m in members], dest, archive_path, who)
            links = [m.name for m in members if m.issym() or m.islnk()]
            if links:
                raise ValueError(f"{who}: refusing to unpack {archive_path}: it holds links {links[:3]}")
            tf.extractall(dest)
    else:
        raise ValueError(f"{who}: {archive_path} is neither a zip nor a tar archive")


def _check_members(names, dest, archive_path, who):
    root = os.path.realpath(dest)
    for name in names:
        target = os.path.realpath(os.path.join(root, name))
        if os.path.commonpath([root, target]) != root:
            raise ValueError(f"{who}: refusing to unpack {archive_path}: member {name!r} points outside {dest}")


def unpack_cached_archive(data_home, archive, wanted, who):
    """Make ``wanted`` (paths under ``data_home``) exist by unpacking the cached copy of ``archive`` (its 'url'
    and 'md5'), or raise FileNotFoundError saying what to put where."""
    from ...vision.datasets._cache import md5file
    url = archive["url"]
    archive_path = os.path.join(data_home, url.split("/")[-1])
    if not os.path.exists(archive_path):
        raise FileNotFoundError(
            f"{who}: {' and '.join(wanted)} not found, and no archive at {archive_path}. This package does not "
            f"download data sets: download {url} (md5 {archive.get('md5')}) on a machine with network access and "
            f"put it at {archive_path} (Paddle's dataset cache), or unpack it into {data_home}.")
    md5 = archive.get("md5")
    got = md5file(archive_path)
    if md5 is not None and got != md5:
        raise ValueError(f"{who}: {archive_path} has md5 {got}, expected {md5}: the file is incomplete or not the "
                         f"one published at {url}; replace it, or unpack it into {data_home} yourself")
    _unpack(archive_path, data_home, who)
    missing = [p for p in wanted if not os.path.exists(p)]
    if missing:
        raise FileNotFoundError(f"{who}: {archive_path} was unpacked, but {missing} still do not exist: the "
                                "archive does not have the upstream layout")


class AudioClassificationDataset(Dataset):
    """Base of the audio classification datasets: ``files`` and ``labels``; extra keyword arguments
    configure the feature layer of ``feat_type``."""

    def __init__(self, files, labels, feat_type="raw", sample_rate=None, **kwargs):
        super().__init__()
        if feat_type not in feat_funcs:
            raise RuntimeError(f"Unknown feat_type: {feat_type}, it must be one in {list(feat_funcs.keys())}")
        self.files = files
        self.labels = labels
        self.feat_type = feat_type
        self.sample_rate = sample_rate
        self.feat_config = kwargs

    def _get_data(self, input_file):
        raise NotImplementedError

    def _convert_to_record(self, idx):
        from ... import audio
        from ...api.creation import to_tensor
        file, label = self.files[idx], self.labels[idx]
        waveform, sample_rate = audio.load(file)
        self.sample_rate = sample_rate
        if len(waveform.shape) == 2:
            waveform = waveform.squeeze(0)
        waveform = to_tensor(waveform, dtype="float32")
        feat_func = feat_funcs[self.feat_type]
        if feat_func is None:
            feat = waveform
        else:
            if self.feat_type == "spectrogram":
                extractor = feat_func(**self.feat_config)
            else:
                extractor = feat_func(sr=self.sample_rate, **self.feat_config)
            feat = extractor(waveform.unsqueeze(0)).squeeze(0)
        return {"feat": feat, "label": label}

    def __getitem__(self, idx):
        record = self._convert_to_record(idx)
        return record["feat"], record["label"]

    def __len__(self):
        return len(self.files)
