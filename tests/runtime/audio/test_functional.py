"""paddle.audio.functional against independent numpy references: numpy's own windows, librosa's
published mel formulas written out here, an orthonormal DCT-II, and the dB definition."""
import math

import numpy as np
import pytest

import dy2st as paddle
from runtime.audio import functional as AF


def _np_window_sym(name, n):
    return {"hann": np.hanning, "hamming": np.hamming, "blackman": np.blackman, "bartlett": np.bartlett}[name](n)


@pytest.mark.parametrize("name", ["hann", "hamming", "blackman", "bartlett"])
@pytest.mark.parametrize("n", [1, 2, 5, 16])
def test_symmetric_and_periodic_windows_match_numpy(name, n):
    sym = AF.get_window(name, n, fftbins=False).numpy()
    np.testing.assert_allclose(sym, _np_window_sym(name, n), atol=1e-12)
    periodic = AF.get_window(name, n, fftbins=True).numpy()      # symmetric of n + 1, last sample dropped
    np.testing.assert_allclose(periodic, _np_window_sym(name, n + 1)[:n] if n > 1 else np.ones(n), atol=1e-12)


def test_kaiser_matches_numpy_and_dtype_is_honoured():
    np.testing.assert_allclose(AF.get_window(("kaiser", 6.0), 11, fftbins=False).numpy(), np.kaiser(11, 6.0),
                               rtol=1e-12)
    w = AF.get_window("cosine", 8, dtype="float32")
    assert w.dtype == paddle.float32 and w.shape == [8]
    assert AF.get_window("hann", 8).dtype == paddle.float64           # Paddle's default dtype
    assert AF.get_window(("tukey", 1.0), 8, dtype="float32").dtype == paddle.float64   # Paddle's quirk


def test_window_shapes_by_definition():
    n = np.arange(9.0)
    np.testing.assert_allclose(AF.get_window(("gaussian", 2.0), 9, False).numpy(), np.exp(-((n - 4) ** 2) / 8))
    np.testing.assert_allclose(AF.get_window("cosine", 9, False).numpy(), np.sin(np.pi * (n + 0.5) / 9))
    np.testing.assert_allclose(AF.get_window(("exponential", None, 2.0), 9, False).numpy(), np.exp(-abs(n - 4) / 2))
    tri = AF.get_window("triang", 5, False).numpy()
    np.testing.assert_allclose(tri, [1 / 3, 2 / 3, 1, 2 / 3, 1 / 3])
    tukey = AF.get_window(("tukey", 0.5), 9, False).numpy()
    assert tukey[0] == 0 and np.all(tukey[3:6] == 1) and np.allclose(tukey, tukey[::-1])
    taylor = AF.get_window("taylor", 33, False).numpy()
    assert abs(taylor.max() - 1) < 1e-12 and np.allclose(taylor, taylor[::-1])


def test_window_errors():
    with pytest.raises(ValueError, match="needs one or more parameters"):
        AF.get_window("kaiser", 8)
    with pytest.raises(ValueError, match="Unknown window type"):
        AF.get_window("boxcar_x", 8)
    with pytest.raises(ValueError, match="non-negative integer"):
        AF.get_window("hann", -1)
    with pytest.raises(ValueError, match="center must be None"):
        AF.get_window(("exponential", 2.0), 8, fftbins=False)


def _slaney_hz_to_mel(f):
    f = np.asarray(f, dtype=np.float64)
    lin = f * 3 / 200
    return np.where(f >= 1000, 15 + np.log(f / 1000 + 1e-10) / (np.log(6.4) / 27), lin)


def test_mel_scale_tensor_and_float_paths():
    f = np.array([0.0, 200.0, 999.0, 1001.0, 4000.0, 11025.0])
    np.testing.assert_allclose(AF.hz_to_mel(paddle.to_tensor(f)).numpy(), _slaney_hz_to_mel(f), rtol=1e-12)
    assert math.isclose(AF.hz_to_mel(4000.0), float(_slaney_hz_to_mel(4000.0)), rel_tol=1e-12)
    np.testing.assert_allclose(AF.hz_to_mel(paddle.to_tensor(f), htk=True).numpy(),
                               2595 * np.log10(1 + f / 700), rtol=1e-12)
    mels = paddle.to_tensor(np.linspace(0, 40, 9))
    for htk in (False, True):
        back = AF.hz_to_mel(AF.mel_to_hz(mels, htk), htk).numpy()
        np.testing.assert_allclose(back, mels.numpy(), atol=1e-8)
    freqs = AF.mel_frequencies(10, 20.0, 8000.0, dtype="float64").numpy()
    np.testing.assert_allclose(_slaney_hz_to_mel(freqs), np.linspace(_slaney_hz_to_mel(20.0),
                                                                      _slaney_hz_to_mel(8000.0), 10), atol=1e-8)
    np.testing.assert_allclose(AF.fft_frequencies(16000, 8, "float64").numpy(), [0, 2000, 4000, 6000, 8000])


def test_fbank_matrix_against_librosa_formula():
    sr, n_fft, n_mels = 16000, 64, 10
    got = AF.compute_fbank_matrix(sr, n_fft, n_mels, dtype="float64").numpy()
    fft_f = np.linspace(0, sr / 2, n_fft // 2 + 1)
    mel_f = AF.mel_frequencies(n_mels + 2, 0.0, sr / 2, dtype="float64").numpy()
    ref = np.zeros((n_mels, n_fft // 2 + 1))
    for i in range(n_mels):
        lower = (fft_f - mel_f[i]) / (mel_f[i + 1] - mel_f[i])
        upper = (mel_f[i + 2] - fft_f) / (mel_f[i + 2] - mel_f[i + 1])
        ref[i] = np.maximum(0, np.minimum(lower, upper)) * 2.0 / (mel_f[i + 2] - mel_f[i])
    np.testing.assert_allclose(got, ref, atol=1e-14)
    p2 = AF.compute_fbank_matrix(sr, n_fft, n_mels, norm=2.0, dtype="float64").numpy()
    np.testing.assert_allclose(np.linalg.norm(p2, axis=1), 1.0, rtol=1e-12)


def test_power_to_db_and_errors():
    x = np.array([[1e-12, 1e-3, 1.0, 100.0]])
    got = AF.power_to_db(paddle.to_tensor(x), ref_value=2.0, amin=1e-10, top_db=None).numpy()
    np.testing.assert_allclose(got, 10 * np.log10(np.maximum(x, 1e-10)) - 10 * np.log10(2.0), rtol=1e-12)
    floored = AF.power_to_db(paddle.to_tensor(x), top_db=50.0).numpy()
    np.testing.assert_allclose(floored, np.maximum(10 * np.log10(np.maximum(x, 1e-10)), 20 - 50), rtol=1e-12)
    for kw in (dict(amin=0.0), dict(ref_value=0.0), dict(top_db=-1.0)):
        with pytest.raises(Exception, match="must be"):
            AF.power_to_db(paddle.to_tensor(x), **kw)


def test_dct_is_orthonormal_dct_ii():
    d = AF.create_dct(8, 8, dtype="float64").numpy()      # [n_mels, n_mfcc]
    np.testing.assert_allclose(d.T @ d, np.eye(8), atol=1e-12)
    n, k = np.arange(8), np.arange(3)[:, None]
    np.testing.assert_allclose(AF.create_dct(3, 8, None, "float64").numpy().T,
                               2 * np.cos(np.pi / 8 * (n + 0.5) * k), atol=1e-12)
    with pytest.raises(AssertionError):
        AF.create_dct(3, 8, "slaney")


def test_hz_to_mel_gradient():
    x = paddle.to_tensor(np.array([300.0, 2000.0]), stop_gradient=False)
    AF.hz_to_mel(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3 / 200, 27 / np.log(6.4) / 2000], rtol=1e-8)


def test_torch_style_window_functions():
    from runtime.audio.functional import window as W
    w = W.hann_window(8)
    assert w.dtype == paddle.float32 and w.stop_gradient
    np.testing.assert_allclose(w.numpy(), np.hanning(9)[:8], atol=1e-7)
    np.testing.assert_allclose(W.hamming_window(7, False, 0.5, 0.5, dtype="float64").numpy(), np.hanning(7),
                               atol=1e-12)
    assert not W.kaiser_window(5, requires_grad=True).stop_gradient
    with pytest.raises(RuntimeError, match="Pinning memory"):
        W.bartlett_window(5, pin_memory=True)
