"""``get_window``: the window functions of Paddle 3.3.1's ``paddle.audio.functional.window`` (scipy's
formulas). A window is a constant, so it is computed in float64 numpy and returned as a Tensor of ``dtype``
(float64 results equal Paddle's to rounding; float32 ones to a float32 ulp or two).

``fftbins=True`` gives the periodic window (a symmetric window one sample longer, last sample dropped).
The module also holds Paddle's ``hann_window``, ``hamming_window``, ``kaiser_window``, ``blackman_window`` and
``bartlett_window`` (top-level ``paddle.*`` names in Paddle), built on `get_window`.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["get_window", "hann_window", "hamming_window", "kaiser_window", "blackman_window", "bartlett_window"]


def _check_length(M):
    """True when the window is trivial (length 0 or 1: all ones); Paddle's ValueError for a bad length."""
    if int(M) != M or M < 0:
        raise ValueError(f"Window length M must be a non-negative integer, but got {M!r}")
    return M <= 1


def _extend(M, sym):
    return (M, False) if sym else (M + 1, True)


def _finish(w, trunc):
    return w[:-1] if trunc else w


def _general_cosine(M, a, sym=True):
    if _check_length(M):
        return np.ones(int(M))
    M, trunc = _extend(int(M), sym)
    fac = np.linspace(-math.pi, math.pi, M)
    w = np.zeros(M)
    for k, coef in enumerate(a):
        w = w + coef * np.cos(k * fac)
    return _finish(w, trunc)


def _general_hamming(M, alpha, sym=True):
    return _general_cosine(M, [alpha, 1.0 - alpha], sym)


def _hamming(M, sym=True):
    return _general_hamming(M, 0.54, sym)


def _hann(M, sym=True):
    return _general_hamming(M, 0.5, sym)


def _blackman(M, sym=True):
    return _general_cosine(M, [0.42, 0.50, 0.08], sym)


def _nuttall(M, sym=True):
    return _general_cosine(M, [0.3635819, 0.4891775, 0.1365995, 0.0106411], sym)


def _bartlett(M, sym=True):
    if _check_length(M):
        return np.ones(int(M))
    M, trunc = _extend(int(M), sym)
    n = np.arange(M, dtype=np.float64)
    w = np.where(n <= (M - 1) / 2.0, 2.0 * n / (M - 1), 2.0 - 2.0 * n / (M - 1))
    return _finish(w, trunc)


def _kaiser(M, beta, sym=True):
    if _check_length(M):
        return np.ones(int(M))
    M, trunc = _extend(int(M), sym)
    n = np.arange(M, dtype=np.float64)
    alpha = (M - 1) / 2.0
    w = np.i0(beta * np.sqrt(1 - ((n - alpha) / alpha) ** 2.0)) / np.i0(float(beta))
    return _finish(w, trunc)


def _gaussian(M, std, sym=True):
    if _check_length(M):
        return np.ones(int(M))
    M, trunc = _extend(int(M), sym)
    n = np.arange(M, dtype=np.float64) - (M - 1.0) / 2.0
    w = np.exp(-(n ** 2) / (2 * std * std))
    return _finish(w, trunc)


def _general_gaussian(M, p, sig, sym=True):
    if _check_length(M):
        return np.ones(int(M))
    M, trunc = _extend(int(M), sym)
    n = np.arange(M, dtype=np.float64) - (M - 1.0) / 2.0
    w = np.exp(-0.5 * np.abs(n / sig) ** (2 * p))
    return _finish(w, trunc)


def _exponential(M, center=None, tau=1.0, sym=True):
    if sym and center is not None:
        raise ValueError("If sym==True, center must be None (pass fftbins=True to place the centre).")
    if _check_length(M):
        return np.ones(int(M))
    M, trunc = _extend(int(M), sym)
    if center is None:
        center = (M - 1) / 2
    n = np.arange(M, dtype=np.float64)
    w = np.exp(-np.abs(n - center) / tau)
    return _finish(w, trunc)


def _triang(M, sym=True):
    if _check_length(M):
        return np.ones(int(M))
    M, trunc = _extend(int(M), sym)
    n = np.arange(1, (M + 1) // 2 + 1, dtype=np.float64)
    if M % 2 == 0:
        half = (2 * n - 1.0) / M
        w = np.concatenate([half, half[::-1]])
    else:
        half = 2 * n / (M + 1.0)
        w = np.concatenate([half, half[-2::-1]])
    return _finish(w, trunc)


def _bohman(M, sym=True):
    if _check_length(M):
        return np.ones(int(M))
    M, trunc = _extend(int(M), sym)
    fac = np.abs(np.linspace(-1, 1, M)[1:-1])
    inner = (1 - fac) * np.cos(math.pi * fac) + 1.0 / math.pi * np.sin(math.pi * fac)
    return _finish(np.concatenate([[0.0], inner, [0.0]]), trunc)


def _cosine(M, sym=True):
    if _check_length(M):
        return np.ones(int(M))
    M, trunc = _extend(int(M), sym)
    w = np.sin(math.pi / M * (np.arange(M, dtype=np.float64) + 0.5))
    return _finish(w, trunc)


def _tukey(M, alpha=0.5, sym=True):
    if _check_length(M):
        return np.ones(int(M))
    if alpha <= 0:
        return np.ones(int(M))
    if alpha >= 1.0:
        return _hann(M, sym=sym), "float64"   # Paddle returns its float64 default here, whatever dtype asked
    M, trunc = _extend(int(M), sym)
    n = np.arange(M, dtype=np.float64)
    width = int(alpha * (M - 1) / 2.0)
    n1, n2, n3 = n[:width + 1], n[width + 1:M - width - 1], n[M - width - 1:]
    w1 = 0.5 * (1 + np.cos(math.pi * (-1 + 2.0 * n1 / alpha / (M - 1))))
    w3 = 0.5 * (1 + np.cos(math.pi * (-2.0 / alpha + 1 + 2.0 * n3 / alpha / (M - 1))))
    return _finish(np.concatenate([w1, np.ones(n2.shape), w3]), trunc)


def _taylor(M, nbar=4, sll=30, norm=True, sym=True):
    """Taylor window: ``nbar`` near sidelobes held at ``sll`` dB below the main lobe (``sll`` positive)."""
    if _check_length(M):
        return np.ones(int(M))
    M, trunc = _extend(int(M), sym)
    B = 10 ** (sll / 20)
    A = math.log(B + math.sqrt(B ** 2 - 1)) / math.pi     # acosh(B) / pi
    s2 = nbar ** 2 / (A ** 2 + (nbar - 0.5) ** 2)
    ma = np.arange(1, nbar, dtype=np.float64)
    m2 = ma * ma
    signs = np.where(np.arange(len(ma)) % 2 == 0, 1.0, -1.0)
    Fm = np.empty(len(ma))
    for mi in range(len(ma)):
        numer = signs[mi] * np.prod(1 - m2[mi] / s2 / (A ** 2 + (ma - 0.5) ** 2))
        denom = 2 * np.prod(1 - m2[mi] / m2[:mi]) * np.prod(1 - m2[mi] / m2[mi + 1:])
        Fm[mi] = numer / denom

    def W(n):
        return 1 + 2 * (Fm[None, :] @ np.cos(2 * math.pi * ma[:, None] * (n - M / 2.0 + 0.5) / M))

    w = W(np.arange(M, dtype=np.float64))
    if norm:
        w = w * (1.0 / W((M - 1) / 2))
    return _finish(np.squeeze(w), trunc)


_WINDOWS = {"hamming": _hamming, "hann": _hann, "blackman": _blackman, "nuttall": _nuttall,
            "bartlett": _bartlett, "kaiser": _kaiser, "gaussian": _gaussian,
            "general_gaussian": _general_gaussian, "exponential": _exponential, "triang": _triang,
            "bohman": _bohman, "cosine": _cosine, "tukey": _tukey, "taylor": _taylor,
            "general_cosine": _general_cosine, "general_hamming": _general_hamming}
_NEED_PARAMETERS = ("gaussian", "exponential", "kaiser")
# helpers Paddle registers beside its windows: get_window finds them and then fails calling them (TypeError)
_PADDLE_HELPERS = ("cat", "acosh", "extend", "len_guards", "truncate")


def get_window(window, win_length, fftbins=True, dtype="float64"):
    """The window ``window`` (a name, or a tuple (name, parameters...)) of ``win_length`` samples:
    periodic for ``fftbins=True`` (for spectral analysis), symmetric otherwise (for filter design)."""
    from ...api.creation import to_tensor
    from ...dtype import convert_dtype
    args = ()
    if isinstance(window, tuple):
        name = window[0]
        args = tuple(window[1:])
    elif isinstance(window, str):
        if window in _NEED_PARAMETERS:
            raise ValueError(f"The '{window}' window needs one or more parameters -- pass a tuple, e.g. "
                             f"('{window}', 1.0).")
        name = window
    else:
        raise ValueError(f"{type(window)} as window type is not supported: pass a name or a (name, params...) "
                         "tuple.")
    if name in _PADDLE_HELPERS:
        raise TypeError(f"get_window: {name!r} is a helper of Paddle's window module, not a window; windows are "
                        f"{sorted(_WINDOWS)}")
    func = _WINDOWS.get(name)
    if func is None:
        raise ValueError(f"Unknown window type. Got {name!r}; supported windows are {sorted(_WINDOWS)}.")
    w = func(win_length, *args, sym=not fftbins)
    if isinstance(w, tuple):
        w, dtype = w
    np_dtype = convert_dtype(dtype).np
    return to_tensor(np.asarray(w, dtype=np.float64).astype(np_dtype))


# paddle.hann_window & co. (defined in Paddle's window module, reached as top-level paddle names): float32 by
# default, then Paddle's post-processing: layout ignored with a warning, device placement, and pin_memory,
# which on a CPU-only build is Paddle's RuntimeError
def _postprocess(w, layout=None, device=None, pin_memory=False, requires_grad=False):
    if layout is not None:
        import warnings
        warnings.warn("layout only supports 'strided' in Paddle; ignored")
    if pin_memory:
        raise RuntimeError(f"Pinning memory is not supported for {device if device is not None else 'Place(cpu)'}: "
                           "this build runs on the CPU only; pass pin_memory=False")
    if device is not None:
        w = w.to(device=device)
    if requires_grad is True:
        w.stop_gradient = False
    return w


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype="float32", layout=None,
                   device=None, pin_memory=False, requires_grad=False):
    """Generalised Hamming window ``alpha - beta * cos(...)`` of ``window_length`` samples."""
    w0 = get_window("hamming", window_length, fftbins=periodic, dtype=dtype)
    scale = beta / 0.46              # rescale Paddle's 0.54 / 0.46 Hamming window to alpha / beta
    w = (alpha - scale * 0.54) + scale * w0
    return _postprocess(w, layout, device, pin_memory, requires_grad)


def hann_window(window_length, periodic=True, *, dtype="float32", layout=None, device=None, pin_memory=False,
                requires_grad=False):
    """Hann window of ``window_length`` samples (periodic by default)."""
    return _postprocess(get_window("hann", window_length, fftbins=periodic, dtype=dtype), layout, device,
                        pin_memory, requires_grad)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype="float32", layout=None, device=None,
                  pin_memory=False, requires_grad=False):
    """Kaiser window of shape parameter ``beta``."""
    return _postprocess(get_window(("kaiser", beta), window_length, fftbins=periodic, dtype=dtype), layout,
                        device, pin_memory, requires_grad)


def blackman_window(window_length, periodic=True, *, dtype="float32", layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    """Blackman window of ``window_length`` samples."""
    return _postprocess(get_window("blackman", window_length, fftbins=periodic, dtype=dtype), layout, device,
                        pin_memory, requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype="float32", layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    """Bartlett (triangular, zero at the ends) window of ``window_length`` samples."""
    return _postprocess(get_window("bartlett", window_length, fftbins=periodic, dtype=dtype), layout, device,
                        pin_memory, requires_grad)
