"""Mel scale (Slaney or HTK), mel filter banks, power-to-dB and the DCT-II matrix, as Paddle 3.3.1 computes
them (its formulas follow librosa). Tensor inputs go through registered ops, so the results carry gradients
and the functions build static programs; plain Python numbers give Python floats, as in Paddle."""
from __future__ import annotations

import math

from ...api.creation import arange, linspace, ones_like
from ...api.manipulation import unsqueeze
from ...api.math import exp, log, log10, maximum, minimum, cos
from ...tensor import TensorMethods

__all__ = ["hz_to_mel", "mel_to_hz", "mel_frequencies", "fft_frequencies", "compute_fbank_matrix",
           "power_to_db", "create_dct"]

# Slaney's mel scale: linear below 1 kHz (200/3 Hz per mel), logarithmic above it
_F_SP = 200.0 / 3
_MIN_LOG_HZ = 1000.0
_MIN_LOG_MEL = _MIN_LOG_HZ / _F_SP
_LOGSTEP = math.log(6.4) / 27.0


def _is_tensor(x):
    return isinstance(x, TensorMethods)


def hz_to_mel(freq, htk=False):
    """Frequencies in Hz -> mels (a Tensor of any shape, or a Python number)."""
    if htk:
        if _is_tensor(freq):
            return 2595.0 * log10(1.0 + freq / 700.0)
        return 2595.0 * math.log10(1.0 + freq / 700.0)
    mels = freq / _F_SP
    if _is_tensor(freq):
        # the 1e-10 keeps log finite at 0 Hz; the mask picks the log branch above 1 kHz (Paddle's blend)
        log_part = _MIN_LOG_MEL + log(freq / _MIN_LOG_HZ + 1e-10) / _LOGSTEP
        mask = (freq > _MIN_LOG_HZ).astype(freq.dtype)
        return log_part * mask + mels * (1 - mask)
    if freq >= _MIN_LOG_HZ:
        mels = _MIN_LOG_MEL + math.log(freq / _MIN_LOG_HZ + 1e-10) / _LOGSTEP
    return mels


def mel_to_hz(mel, htk=False):
    """Mels -> frequencies in Hz (the inverse of `hz_to_mel`)."""
    if htk:
        return 700.0 * (10.0 ** (mel / 2595.0) - 1.0)
    freqs = _F_SP * mel
    if _is_tensor(mel):
        log_part = _MIN_LOG_HZ * exp(_LOGSTEP * (mel - _MIN_LOG_MEL))
        mask = (mel > _MIN_LOG_MEL).astype(mel.dtype)
        return log_part * mask + freqs * (1 - mask)
    if mel >= _MIN_LOG_MEL:
        freqs = _MIN_LOG_HZ * math.exp(_LOGSTEP * (mel - _MIN_LOG_MEL))
    return freqs


def mel_frequencies(n_mels=64, f_min=0.0, f_max=11025.0, htk=False, dtype="float32"):
    """``n_mels`` frequencies in Hz, evenly spaced on the mel scale from ``f_min`` to ``f_max``: [n_mels]."""
    mels = linspace(hz_to_mel(f_min, htk=htk), hz_to_mel(f_max, htk=htk), n_mels, dtype=dtype)
    return mel_to_hz(mels, htk=htk)


def fft_frequencies(sr, n_fft, dtype="float32"):
    """Centre frequencies of the ``1 + n_fft // 2`` one-sided FFT bins: [1 + n_fft // 2]."""
    return linspace(0, float(sr) / 2, int(1 + n_fft // 2), dtype=dtype)


def compute_fbank_matrix(sr, n_fft, n_mels=64, f_min=0.0, f_max=None, htk=False, norm="slaney",
                         dtype="float32"):
    """Triangular mel filter bank: [n_mels, 1 + n_fft // 2]. ``norm='slaney'`` scales each filter to
    constant energy; a number p normalises each row to unit p-norm; anything else leaves the triangles."""
    if f_max is None:
        f_max = float(sr) / 2
    fftfreqs = fft_frequencies(sr=sr, n_fft=n_fft, dtype=dtype)
    # n_mels + 2 edges: filter i rises from edge i to edge i + 1 and falls to edge i + 2
    mel_f = mel_frequencies(n_mels + 2, f_min=f_min, f_max=f_max, htk=htk, dtype=dtype)
    fdiff = mel_f[1:] - mel_f[:-1]
    ramps = unsqueeze(mel_f, 1) - unsqueeze(fftfreqs, 0)
    lower = -ramps[:n_mels] / unsqueeze(fdiff[:n_mels], 1)
    upper = ramps[2:n_mels + 2] / unsqueeze(fdiff[1:n_mels + 1], 1)
    weights = maximum(ones_like(lower) * 0, minimum(lower, upper))
    if norm == "slaney":
        enorm = 2.0 / (mel_f[2:n_mels + 2] - mel_f[:n_mels])
        weights = weights * unsqueeze(enorm, 1)
    elif isinstance(norm, (int, float)):
        from ...nn.functional.common import normalize
        weights = normalize(weights, p=norm, axis=-1)
    return weights


def power_to_db(spect, ref_value=1.0, amin=1e-10, top_db=80.0):
    """``10 * log10(max(spect, amin) / max(ref_value, amin))``, floored at ``top_db`` below its maximum
    (no floor for ``top_db=None``). Errors are Paddle's plain ``Exception``."""
    if amin <= 0:
        raise Exception(f"power_to_db: amin must be strictly positive, but got {amin}")
    if ref_value <= 0:
        raise Exception(f"power_to_db: ref_value must be strictly positive, but got {ref_value}")
    ones = ones_like(spect)
    log_spec = 10.0 * log10(maximum(ones * amin, spect))
    log_spec = log_spec - 10.0 * math.log10(max(ref_value, amin))
    if top_db is not None:
        if top_db < 0:
            raise Exception(f"power_to_db: top_db must be non-negative (or None for no floor), but got {top_db}")
        log_spec = maximum(log_spec, ones * (log_spec.max() - top_db))
    return log_spec


def create_dct(n_mfcc, n_mels, norm="ortho", dtype="float32"):
    """DCT-II matrix [n_mels, n_mfcc] (multiply mel features by it for MFCCs); ``norm`` 'ortho' or None."""
    if norm is not None and norm != "ortho":
        raise AssertionError(f"create_dct: norm should be 'ortho' or None, but got {norm!r}")
    n = arange(n_mels, dtype=dtype)
    k = unsqueeze(arange(n_mfcc, dtype=dtype), 1)
    dct = cos(math.pi / float(n_mels) * (n + 0.5) * k)   # [n_mfcc, n_mels]
    if norm is None:
        dct = dct * 2.0
    else:
        import numpy as np
        from ...api.creation import to_tensor
        first_row = np.ones([n_mfcc, 1], dtype=dct.dtype.np)
        first_row[0] = 1.0 / math.sqrt(2.0)
        dct = dct * to_tensor(first_row) * math.sqrt(2.0 / float(n_mels))
    return dct.T
