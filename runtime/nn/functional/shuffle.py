"""Channel rearranging functionals: pixel_unshuffle and channel_shuffle (``paddle.nn.functional``)."""
from __future__ import annotations

from ...dispatch import run_op

__all__ = ["pixel_unshuffle", "channel_shuffle"]


def _check(x, factor, data_format, fn, what):
    if len(x.shape) != 4:
        raise ValueError(f"{fn}: x must be a 4-D tensor, got shape {list(x.shape)}")
    if not isinstance(factor, int) or isinstance(factor, bool):
        raise TypeError(f"{fn}: {what} must be an int, got {factor!r}")
    if factor <= 0:
        raise ValueError(f"{fn}: {what} must be positive, got {factor}")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"{fn}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")


def pixel_unshuffle(x, downscale_factor, data_format="NCHW", name=None):
    """Rearrange [N, C, H*r, W*r] into [N, C*r*r, H, W] (r = downscale_factor), pixel_shuffle's inverse."""
    _check(x, downscale_factor, data_format, "pixel_unshuffle", "downscale_factor")
    return run_op("pixel_unshuffle", x, downscale_factor=downscale_factor, data_format=data_format)


def channel_shuffle(x, groups, data_format="NCHW", name=None):
    """Split the channels into ``groups`` and interleave them (ShuffleNet's channel shuffle)."""
    _check(x, groups, data_format, "channel_shuffle", "groups")
    return run_op("channel_shuffle", x, groups=groups, data_format=data_format)
