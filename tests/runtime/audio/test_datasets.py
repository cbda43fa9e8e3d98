"""ESC50 and TESS on small synthetic data in the upstream layouts: splits and labels, feature types,
archives found in Paddle's dataset cache (md5-checked, unpacked safely), and clear errors when the data
is missing or malformed. Item-by-item equality with real Paddle is in tests/interop/test_audio_interop.py."""
import hashlib
import os
import zipfile

import numpy as np
import pytest

import dy2st as paddle
from runtime.audio.datasets import esc50, tess

HEADER = "filename,fold,target,category,esc10,src_file,take\n"


def _wav(path, n, seed):
    sig = 0.1 * np.random.default_rng(seed).standard_normal((1, n)).astype("float32")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    paddle.audio.save(str(path), paddle.to_tensor(sig), 8000)


def _esc_rows(root, folds=(1, 2, 3, 2, 5)):
    rows = []
    for k, fold in enumerate(folds):
        name = f"{fold}-{k}-A-{k}.wav"
        _wav(os.path.join(root, "ESC-50-master", "audio", name), 400 + k, k)
        rows.append(f"{name},{fold},{10 + k},c{k},False,{k},A\n")
    return rows


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setattr(esc50, "DATA_HOME", str(tmp_path))
    monkeypatch.setattr(tess, "DATA_HOME", str(tmp_path))
    return tmp_path


def test_esc50_splits_and_feature_types(home):
    rows = _esc_rows(home)
    meta = home / "ESC-50-master" / "meta"
    meta.mkdir(parents=True)
    (meta / "esc50.csv").write_text(HEADER + "".join(rows))
    train = paddle.audio.datasets.ESC50(mode="train", split=2)
    dev = paddle.audio.datasets.ESC50(mode="dev", split=2)
    assert train.labels == [10, 12, 14] and dev.labels == [11, 13]
    wave, label = dev[1]
    assert label == 13 and wave.shape == [403] and wave.dtype == paddle.float32
    expected, _ = paddle.audio.load(dev.files[1])
    np.testing.assert_array_equal(wave.numpy(), expected.numpy()[0])
    mfcc, _ = paddle.audio.datasets.ESC50(mode="dev", split=2, feat_type="mfcc", n_mfcc=7, n_fft=64,
                                          n_mels=10)[0]
    assert mfcc.shape == [7, 1 + 402 // 16]
    spec, _ = paddle.audio.datasets.ESC50(mode="dev", split=2, feat_type="spectrogram", n_fft=64)[0]
    assert spec.shape == [33, 1 + 402 // 512]
    with pytest.raises(RuntimeError, match="Unknown feat_type"):
        paddle.audio.datasets.ESC50(feat_type="cqt")
    with pytest.raises(AssertionError, match="1 <= split <= 5"):
        paddle.audio.datasets.ESC50(split=0)
    (meta / "esc50.csv").write_text(HEADER + "broken,line\n")
    with pytest.raises(ValueError, match="line 2 has 2 fields"):
        paddle.audio.datasets.ESC50()


def test_missing_data_names_the_paths(home):
    with pytest.raises(FileNotFoundError, match="ESC-50-master.zip") as e:
        paddle.audio.datasets.ESC50()
    assert str(home) in str(e.value) and "does not download" in str(e.value)
    with pytest.raises(FileNotFoundError, match="TESS_Toronto_emotional_speech_set.zip"):
        paddle.audio.datasets.TESS()


def _zip_of(folder, zip_path, extra=None):
    with zipfile.ZipFile(zip_path, "w") as zf:
        for d, _, names in os.walk(folder):
            for n in names:
                full = os.path.join(d, n)
                zf.write(full, os.path.relpath(full, os.path.dirname(folder)))
        for name, data in (extra or {}).items():
            zf.writestr(name, data)


def test_cached_archive_is_checked_and_unpacked(home, tmp_path_factory):
    staging = tmp_path_factory.mktemp("staging")
    for spk, word, emo in [("OAF", "back", "angry"), ("OAF", "bar", "sad"), ("YAF", "back", "ps"),
                           ("YAF", "dog", "fear"), ("YAF", "bar", "neutral")]:
        _wav(staging / "TESS_Toronto_emotional_speech_set" / f"{spk}_{emo}" / f"{spk}_{word}_{emo}.wav", 300, 1)
    zip_path = home / "TESS_Toronto_emotional_speech_set.zip"
    _zip_of(str(staging / "TESS_Toronto_emotional_speech_set"), zip_path)
    with pytest.raises(ValueError, match="has md5"):
        paddle.audio.datasets.TESS()                      # the published md5 is not our synthetic archive's
    archive = {"url": "https://example.invalid/TESS_Toronto_emotional_speech_set.zip",
               "md5": hashlib.md5(zip_path.read_bytes()).hexdigest()}
    dev = paddle.audio.datasets.TESS(mode="dev", n_folds=2, split=1, archive=archive)
    train = paddle.audio.datasets.TESS(mode="train", n_folds=2, split=1)     # unpacked: no archive needed now
    assert len(dev) + len(train) == 5 and not set(dev.files) & set(train.files)
    labels = {os.path.basename(f).split("_")[2][:-4]: lab for f, lab in zip(dev.files + train.files,
                                                                             dev.labels + train.labels)}
    assert all(tess.TESS.label_list[lab] == emo for emo, lab in labels.items())
    assert dev[0][0].ndim == 1


def test_hostile_archive_and_file_names(home, tmp_path_factory):
    staging = tmp_path_factory.mktemp("hostile")
    _wav(staging / "ESC-50-master" / "audio" / "1-0-A-0.wav", 100, 0)
    zip_path = home / "ESC-50-master.zip"
    _zip_of(str(staging / "ESC-50-master"), zip_path, {"../escaped.txt": "x"})
    archive = {"url": "https://example.invalid/ESC-50-master.zip",
               "md5": hashlib.md5(zip_path.read_bytes()).hexdigest()}
    with pytest.raises(ValueError, match="points outside"):
        paddle.audio.datasets.ESC50(archive=archive)
    assert not (home.parent / "escaped.txt").exists()
    _wav(home / "TESS_Toronto_emotional_speech_set" / "x" / "OAF_back_angry_extra.wav", 100, 0)
    with pytest.raises(ValueError, match="<speaker>_<word>_<emotion>"):
        paddle.audio.datasets.TESS()
    os.remove(home / "TESS_Toronto_emotional_speech_set" / "x" / "OAF_back_angry_extra.wav")
    _wav(home / "TESS_Toronto_emotional_speech_set" / "x" / "OAF_back_bored.wav", 100, 0)
    with pytest.raises(ValueError, match="emotion 'bored'"):
        paddle.audio.datasets.TESS()
