"""The wave backend: round trips through paddle.audio.save / load / info, Paddle's offset rule, file
objects, backend selection, and hostile or truncated files, each raising a clear error."""
import io
import struct
import wave
import warnings

import numpy as np
import pytest

import dy2st as paddle
from runtime.audio.backends import wave_backend


def _pcm16(path, data, sr=8000, width=2):
    """Write ``data`` ([frames, channels] int) with the standard library, independently of the backend."""
    with wave.open(str(path), "wb") as w:
        w.setnchannels(data.shape[1])
        w.setsampwidth(width)
        w.setframerate(sr)
        w.writeframes(np.ascontiguousarray(data.astype("<i2" if width == 2 else "u1")).tobytes())


def test_round_trip_float_and_int(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (2, 300)).astype("float32")
    paddle.audio.save(str(tmp_path / "a.wav"), paddle.to_tensor(x), 16000)
    y, sr = paddle.audio.load(str(tmp_path / "a.wav"))
    assert sr == 16000 and y.shape == [2, 300] and y.dtype == paddle.float32
    np.testing.assert_array_equal(y.numpy(), np.trunc(x * 32768) / 32768)
    raw, _ = paddle.audio.load(str(tmp_path / "a.wav"), normalize=False, channels_first=False)
    np.testing.assert_array_equal(raw.numpy(), np.trunc(x.T * 32768))
    ints = rng.integers(-32768, 32767, (300, 3)).astype("int16")
    paddle.audio.save(str(tmp_path / "b.wav"), paddle.to_tensor(ints), 44100, channels_first=False)
    with wave.open(str(tmp_path / "b.wav")) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()) == (3, 2, 44100, 300)
        np.testing.assert_array_equal(np.frombuffer(w.readframes(300), "<i2").reshape(300, 3), ints)
    info = paddle.audio.info(str(tmp_path / "b.wav"))
    assert (info.sample_rate, info.num_samples, info.num_channels, info.bits_per_sample, info.encoding) == \
        (44100, 300, 3, 16, "PCM_S")


def test_offsets_follow_paddle_and_file_objects(tmp_path):
    data = np.arange(40, dtype=np.int16).reshape(20, 2)
    _pcm16(tmp_path / "c.wav", data)
    part, _ = paddle.audio.load(str(tmp_path / "c.wav"), frame_offset=5, num_frames=4, normalize=False)
    np.testing.assert_array_equal(part.numpy(), data[5:9].T)
    whole, _ = paddle.audio.load(str(tmp_path / "c.wav"), frame_offset=5, normalize=False)   # Paddle: ignored
    np.testing.assert_array_equal(whole.numpy(), data.T)
    with open(tmp_path / "c.wav", "rb") as f:
        assert paddle.audio.info(f).num_samples == 20
    buf = io.BytesIO((tmp_path / "c.wav").read_bytes())
    y, sr = paddle.audio.load(buf, normalize=False)
    assert sr == 8000 and buf.closed                               # Paddle closes the file object too
    np.testing.assert_array_equal(y.numpy(), data.T)


def test_save_clips_out_of_range_and_rejects_bad_input(tmp_path):
    paddle.audio.save(str(tmp_path / "d.wav"), paddle.to_tensor(np.array([[1.0, -1.0, 2.0, -3.0, 0.5]], "float32")),
                      8000)
    with wave.open(str(tmp_path / "d.wav")) as w:
        assert np.frombuffer(w.readframes(5), "<i2").tolist() == [32767, -32768, 32767, -32768, 16384]
    with pytest.raises(AssertionError, match="2D"):
        paddle.audio.save(str(tmp_path / "e.wav"), paddle.to_tensor(np.zeros(4, "float32")), 8000)
    with pytest.raises(ValueError, match="only support 16 bit"):
        paddle.audio.save(str(tmp_path / "e.wav"), paddle.to_tensor(np.zeros((1, 4), "float32")), 8000,
                          bits_per_sample=24)
    with pytest.raises(ValueError, match="fit in 16 bits"):
        paddle.audio.save(str(tmp_path / "e.wav"), paddle.to_tensor(np.array([[40000]], "int32")), 8000)
    paddle.audio.save(str(tmp_path / "f.wav"), paddle.to_tensor(np.zeros((1, 4), "float32")), 8000,
                      bits_per_sample=None)
    assert paddle.audio.info(str(tmp_path / "f.wav")).bits_per_sample == 16


def test_hostile_and_truncated_files(tmp_path):
    data = np.arange(-50, 50, dtype=np.int16).reshape(50, 2)
    _pcm16(tmp_path / "ok.wav", data)
    good = (tmp_path / "ok.wav").read_bytes()
    cases = {   # the error types are real Paddle's on the same bytes
        "empty.wav": (b"", EOFError, "empty or its WAV header is cut short"),
        "header_cut.wav": (good[:30], EOFError, "cut short"),
        "text.wav": (b"this is not audio at all, just some text bytes" * 3, NotImplementedError, "PCM16 WAV"),
        "riff_only.wav": (good[:12], NotImplementedError, "PCM16 WAV"),
        "bad_format.wav": (good[:20] + struct.pack("<H", 3) + good[22:], NotImplementedError, "unknown format"),
        "mp3.wav": (b"ID3\x03\x00\x00\x00\x00\x00\x00" + bytes(200), NotImplementedError, "PCM16 WAV"),
    }
    for name, (blob, error, message) in cases.items():
        (tmp_path / name).write_bytes(blob)
        for fn in (paddle.audio.load, paddle.audio.info):
            with pytest.raises(error, match=message):
                fn(str(tmp_path / name))
    for name, blob in (("data_cut.wav", good[:-37]), ("odd.wav", good[:-1])):   # header promises 50 frames
        (tmp_path / name).write_bytes(blob)
        with pytest.raises(ValueError, match="truncated or inconsistent"):
            paddle.audio.load(str(tmp_path / name))
        assert paddle.audio.info(str(tmp_path / name)).num_samples == 50
    _pcm16(tmp_path / "u8.wav", np.full((10, 1), 128), width=1)
    assert paddle.audio.info(str(tmp_path / "u8.wav")).bits_per_sample == 8
    with pytest.raises(NotImplementedError, match="8-bit samples"):
        paddle.audio.load(str(tmp_path / "u8.wav"))
    with pytest.raises(FileNotFoundError):
        paddle.audio.load(str(tmp_path / "nope.wav"))


def test_backend_selection():
    with pytest.warns(UserWarning, match="paddleaudio"):
        assert paddle.audio.backends.list_available_backends() == ["wave_backend"]
    assert paddle.audio.backends.get_current_backend() == "wave_backend"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(NotImplementedError, match="soundfile"):
            paddle.audio.backends.set_backend("soundfile")
        paddle.audio.backends.set_backend("wave_backend")
    assert paddle.audio.load is wave_backend.load and paddle.audio.backends.backend.info is wave_backend.info
    assert "sample_rate=1," in repr(paddle.audio.backends.backend.AudioInfo(1, 2, 3, 16, "PCM_S"))
