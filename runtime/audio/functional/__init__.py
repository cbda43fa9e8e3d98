"""paddle.audio.functional: mel scale conversions, filter banks, dB scaling, DCT matrices and windows."""
from .functional import (compute_fbank_matrix, create_dct, fft_frequencies, hz_to_mel,  # noqa: F401
                         mel_frequencies, mel_to_hz, power_to_db)
from .window import get_window  # noqa: F401

__all__ = ["compute_fbank_matrix", "create_dct", "fft_frequencies", "hz_to_mel", "mel_frequencies", "mel_to_hz",
           "power_to_db", "get_window"]
