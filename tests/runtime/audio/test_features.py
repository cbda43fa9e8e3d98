"""Feature layers against a numpy STFT / mel / dB / DCT pipeline written out here; gradients through
MelSpectrogram and MFCC by finite differences; the same layers in static programs and under to_static."""
import numpy as np
import pytest

import dy2st as paddle
from runtime.audio import features, functional as AF


def _np_spectrogram(x, n_fft, hop, window, power, center=True):
    if center:
        x = np.pad(x, [(0, 0), (n_fft // 2, n_fft // 2)], mode="reflect")
    n_frames = 1 + (x.shape[-1] - n_fft) // hop
    frames = np.stack([x[:, i * hop:i * hop + n_fft] for i in range(n_frames)], axis=1)   # [N, L, n_fft]
    spec = np.fft.rfft(frames * window, axis=-1)
    return np.abs(spec).transpose(0, 2, 1) ** power


@pytest.fixture(scope="module")
def wave():
    rng = np.random.default_rng(1)
    return 0.3 * np.sin(np.arange(2 * 500).reshape(2, 500) * 0.11) + 0.05 * rng.standard_normal((2, 500))


def test_spectrogram_matches_numpy(wave):
    layer = features.Spectrogram(n_fft=64, hop_length=20, window="hann", power=2.0, dtype="float64")
    got = layer(paddle.to_tensor(wave)).numpy()
    ref = _np_spectrogram(wave, 64, 20, np.hanning(65)[:64], 2.0)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)
    assert list(layer.state_dict()) == ["fft_window"]


def test_mel_logmel_mfcc_match_numpy(wave):
    kw = dict(sr=8000, n_fft=64, hop_length=16, n_mels=12, f_min=0.0, dtype="float64")
    spec = _np_spectrogram(wave, 64, 16, np.hanning(65)[:64], 2.0)
    fb = AF.compute_fbank_matrix(8000, 64, 12, 0.0, 4000, dtype="float64").numpy()
    mel = np.einsum("mf,nft->nmt", fb, spec)
    np.testing.assert_allclose(features.MelSpectrogram(**kw)(paddle.to_tensor(wave)).numpy(), mel, rtol=1e-10)
    db = 10 * np.log10(np.maximum(mel, 1e-10))
    db = np.maximum(db, db.max() - 40.0)
    logmel = features.LogMelSpectrogram(top_db=40.0, **kw)(paddle.to_tensor(wave)).numpy()
    np.testing.assert_allclose(logmel, db, rtol=1e-10, atol=1e-10)
    dct = AF.create_dct(5, 12, dtype="float64").numpy()
    mfcc = features.MFCC(n_mfcc=5, top_db=40.0, **kw)(paddle.to_tensor(wave)).numpy()
    np.testing.assert_allclose(mfcc, np.einsum("nmt,mk->nkt", db, dct), rtol=1e-10, atol=1e-9)
    assert mfcc.shape == (2, 5, 1 + 500 // 16)


def test_defaults_and_constructor_errors():
    mel = features.MelSpectrogram()
    assert mel.fbank_matrix.shape == [64, 1025] and mel.f_min == 50.0 and mel.f_max is None
    assert features.Spectrogram()._stft_args["hop_length"] == 512
    assert features.LogMelSpectrogram().top_db is None
    with pytest.raises(AssertionError, match="n_mfcc cannot be larger"):
        features.MFCC(n_mfcc=65)
    with pytest.raises(AssertionError, match="Power"):
        features.Spectrogram(power=-1)


@pytest.mark.parametrize("cls", [features.MelSpectrogram, features.MFCC])
def test_gradient_matches_finite_differences(cls, wave):
    extra = {"n_mfcc": 4} if cls is features.MFCC else {}
    layer = cls(sr=8000, n_fft=32, hop_length=8, n_mels=6, dtype="float64", **extra)
    x0 = wave[:1, :80].copy()
    weight = np.random.default_rng(2).standard_normal(layer(paddle.to_tensor(x0)).shape)

    def f(a):
        return float((layer(paddle.to_tensor(a)).numpy() * weight).sum())

    x = paddle.to_tensor(x0, stop_gradient=False)
    (layer(x) * paddle.to_tensor(weight)).sum().backward()
    eps, num = 1e-6, np.zeros_like(x0)
    for j in range(0, 80, 7):
        d = np.zeros_like(x0)
        d[0, j] = eps
        num[0, j] = (f(x0 + d) - f(x0 - d)) / (2 * eps)
    idx = np.arange(0, 80, 7)
    np.testing.assert_allclose(x.grad.numpy()[0, idx], num[0, idx], rtol=1e-5, atol=1e-6)


def test_static_program_and_to_static_equal_eager(wave):
    x = wave.astype("float32")
    layer = features.MFCC(sr=8000, n_mfcc=6, n_fft=64, hop_length=16, n_mels=10)
    eager = layer(paddle.to_tensor(x)).numpy()
    compiled = paddle.jit.to_static(layer, input_spec=[paddle.static.InputSpec([None, 500], "float32")])
    np.testing.assert_allclose(compiled(paddle.to_tensor(x)).numpy(), eager, rtol=1e-6, atol=1e-5)
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            xv = paddle.static.data("x", [None, 500], "float32")
            y = features.MFCC(sr=8000, n_mfcc=6, n_fft=64, hop_length=16, n_mels=10)(xv)
        exe = paddle.static.Executor()
        exe.run(startup)
        out, = exe.run(main, feed={"x": x}, fetch_list=[y])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(out, eager, rtol=1e-6, atol=1e-5)


def test_to_static_gradient_equals_eager(wave):
    layer = features.MelSpectrogram(sr=8000, n_fft=32, hop_length=8, n_mels=6, dtype="float64")
    x0 = wave[:, :120].copy()

    def grad_of(fn):
        x = paddle.to_tensor(x0, stop_gradient=False)
        (fn(x) ** 2).sum().backward()
        return x.grad.numpy()

    eager = grad_of(layer)
    compiled = paddle.jit.to_static(layer, input_spec=[paddle.static.InputSpec([None, 120], "float64")])
    np.testing.assert_allclose(grad_of(compiled), eager, rtol=1e-10, atol=1e-12)
