"""``paddle.fft``: discrete Fourier transforms, Paddle 3.3.1's ``paddle.fft.__all__``.

The transforms are in `transforms` (over the fft_c2c / fft_r2c / fft_c2r ops of
runtime/ops/fft.py), the frequency and shift helpers in `helper`.
"""
from .transforms import (  # noqa: F401
    fft, ifft, rfft, irfft, hfft, ihfft, fft2, ifft2, rfft2, irfft2, hfft2, ihfft2,
    fftn, ifftn, rfftn, irfftn, hfftn, ihfftn, fft_c2c, fft_r2c, fft_c2r, fftn_c2c, fftn_r2c, fftn_c2r,
)
from .helper import fftfreq, rfftfreq, fftshift, ifftshift  # noqa: F401

__all__ = [
    "fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
    "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
]
