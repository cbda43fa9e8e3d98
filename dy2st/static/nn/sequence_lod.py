"""``paddle.static.nn.sequence_*``: operations on LoD (variable-length sequence) tensors.

dy2st has no LoD tensors, and on dense (non-LoD) input Paddle's CPU build fails at run time with
``ValueError: ... does not contain LoD information``. These raise that ValueError when the op is built,
saying so, instead of building a Program that cannot run.
"""
from __future__ import annotations

from .common import static_only

__all__ = ["sequence_conv", "sequence_softmax", "sequence_pool", "sequence_first_step", "sequence_last_step",
           "sequence_expand"]


def _no_lod(op):
    return ValueError(f"paddle.static.nn.{op}: Input(X) of {op} does not contain LoD information. dy2st has no LoD "
                      "(variable-length sequence) tensors, and on dense input Paddle fails the same way at run time. "
                      "Pad the sequences to one length and use the dense layers (conv1d, pooling, softmax) instead.")


@static_only
def sequence_conv(input, num_filters, filter_size=3, filter_stride=1, padding=True, padding_start=None,
                  bias_attr=None, param_attr=None, act=None, name=None):
    raise _no_lod("sequence_conv")


@static_only
def sequence_softmax(input, use_cudnn=False, name=None):
    raise _no_lod("sequence_softmax")


@static_only
def sequence_pool(input, pool_type, is_test=False, pad_value=0.0):
    raise _no_lod("sequence_pool")


@static_only
def sequence_first_step(input):
    raise _no_lod("sequence_pool")


@static_only
def sequence_last_step(input):
    raise _no_lod("sequence_pool")


@static_only
def sequence_expand(x, y, ref_level=-1, name=None):
    raise _no_lod("sequence_expand")
