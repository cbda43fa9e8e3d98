"""Audio feature layers with Paddle 3.3.1's constructor arguments and defaults, composed of
``paddle.signal.stft`` and registered ops: they run eagerly, in static programs and under to_static,
and differentiate with respect to the waveform. Windows, mel filter banks and DCT matrices are
persistable buffers (``fft_window``, ``fbank_matrix``, ``dct_matrix``), as in Paddle's state_dict."""
from __future__ import annotations

from ...api.math import abs as _abs, pow as _pow
from ...api.linalg import matmul
from ...nn.layer.layers import Layer
from ..functional import compute_fbank_matrix, create_dct, power_to_db
from ..functional.window import get_window

__all__ = ["Spectrogram", "MelSpectrogram", "LogMelSpectrogram", "MFCC"]


class Spectrogram(Layer):
    """``|stft(x)| ** power``: waveforms [N, T] (or [T]) -> [N, n_fft // 2 + 1, num_frames]."""

    def __init__(self, n_fft=512, hop_length=512, win_length=None, window="hann", power=1.0, center=True,
                 pad_mode="reflect", dtype="float32"):
        super().__init__()
        assert power > 0, f"Power of spectrogram must be > 0, but got {power}."
        self.power = power
        if win_length is None:
            win_length = n_fft
        self._stft_args = dict(n_fft=n_fft, hop_length=hop_length, win_length=win_length, center=center,
                               pad_mode=pad_mode)
        self.register_buffer("fft_window", get_window(window, win_length, fftbins=True, dtype=dtype))

    def forward(self, x):
        from ...signal import stft
        spec = stft(x, window=self.fft_window, **self._stft_args)
        return _pow(_abs(spec), self.power)


class MelSpectrogram(Layer):
    """Mel filter bank times the spectrogram: [N, T] -> [N, n_mels, num_frames]."""

    def __init__(self, sr=22050, n_fft=2048, hop_length=512, win_length=None, window="hann", power=2.0,
                 center=True, pad_mode="reflect", n_mels=64, f_min=50.0, f_max=None, htk=False, norm="slaney",
                 dtype="float32"):
        super().__init__()
        self._spectrogram = Spectrogram(n_fft=n_fft, hop_length=hop_length, win_length=win_length, window=window,
                                        power=power, center=center, pad_mode=pad_mode, dtype=dtype)
        self.n_mels = n_mels
        self.f_min = f_min
        self.f_max = f_max
        self.htk = htk
        self.norm = norm
        if f_max is None:
            f_max = sr // 2
        self.register_buffer("fbank_matrix", compute_fbank_matrix(sr=sr, n_fft=n_fft, n_mels=n_mels, f_min=f_min,
                                                                  f_max=f_max, htk=htk, norm=norm, dtype=dtype))

    def forward(self, x):
        return matmul(self.fbank_matrix, self._spectrogram(x))


class LogMelSpectrogram(Layer):
    """`power_to_db` of the mel spectrogram: [N, T] -> [N, n_mels, num_frames]."""

    def __init__(self, sr=22050, n_fft=512, hop_length=None, win_length=None, window="hann", power=2.0,
                 center=True, pad_mode="reflect", n_mels=64, f_min=50.0, f_max=None, htk=False, norm="slaney",
                 ref_value=1.0, amin=1e-10, top_db=None, dtype="float32"):
        super().__init__()
        self._melspectrogram = MelSpectrogram(sr=sr, n_fft=n_fft, hop_length=hop_length, win_length=win_length,
                                              window=window, power=power, center=center, pad_mode=pad_mode,
                                              n_mels=n_mels, f_min=f_min, f_max=f_max, htk=htk, norm=norm,
                                              dtype=dtype)
        self.ref_value = ref_value
        self.amin = amin
        self.top_db = top_db

    def forward(self, x):
        return power_to_db(self._melspectrogram(x), ref_value=self.ref_value, amin=self.amin, top_db=self.top_db)


class MFCC(Layer):
    """DCT of the log-mel spectrogram: [N, T] -> [N, n_mfcc, num_frames]."""

    def __init__(self, sr=22050, n_mfcc=40, n_fft=512, hop_length=None, win_length=None, window="hann",
                 power=2.0, center=True, pad_mode="reflect", n_mels=64, f_min=50.0, f_max=None, htk=False,
                 norm="slaney", ref_value=1.0, amin=1e-10, top_db=None, dtype="float32"):
        super().__init__()
        assert n_mfcc <= n_mels, f"n_mfcc cannot be larger than n_mels: {n_mfcc} vs {n_mels}"
        self._log_melspectrogram = LogMelSpectrogram(
            sr=sr, n_fft=n_fft, hop_length=hop_length, win_length=win_length, window=window, power=power,
            center=center, pad_mode=pad_mode, n_mels=n_mels, f_min=f_min, f_max=f_max, htk=htk, norm=norm,
            ref_value=ref_value, amin=amin, top_db=top_db, dtype=dtype)
        self.register_buffer("dct_matrix", create_dct(n_mfcc=n_mfcc, n_mels=n_mels, dtype=dtype))

    def forward(self, x):
        log_mel = self._log_melspectrogram(x)   # [N, n_mels, L]
        return matmul(log_mel.transpose((0, 2, 1)), self.dct_matrix).transpose((0, 2, 1))
