"""paddle.nn.functional normalisation: batch_norm, layer_norm, instance_norm, group_norm."""
from __future__ import annotations

from ...dispatch import run_op
from ...framework import state
from ...tensor import Tensor
from .common import _reshape
from ...api.param_alias import param_alias

__all__ = ["batch_norm", "layer_norm", "instance_norm", "group_norm", "local_response_norm"]

_BN_FORMATS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.9,
               epsilon=1e-05, data_format="NCHW", use_global_stats=None, name=None):
    """Batch normalisation over every axis but the channel axis.

    Training (and ``use_global_stats`` false) normalises with the batch statistics and,
    eagerly, updates ``running_mean``/``running_var`` in place:
    ``running = momentum * running + (1 - momentum) * batch`` (biased batch variance).
    Otherwise the running statistics normalise the input.
    """
    if data_format not in _BN_FORMATS:
        raise ValueError(f"batch_norm: data_format must be one of {', '.join(_BN_FORMATS)}, got {data_format!r}")
    layout = "NCHW" if data_format[1] == "C" else "NHWC"
    if use_global_stats is None:
        use_global_stats = not training
        trainable_statistics = False
    else:
        trainable_statistics = not use_global_stats
    ndim = len(x.shape)
    if ndim < 2:
        raise ValueError(f"batch_norm: x must have rank >= 2 ([N, C, ...]), got shape {list(x.shape)}")
    c = x.shape[1] if layout == "NCHW" else x.shape[-1]
    if c != -1 and running_mean.shape and running_mean.shape[0] not in (-1, c):
        raise ValueError(f"batch_norm: running_mean has {running_mean.shape[0]} entries but x has {c} channels "
                         f"(shape {list(x.shape)}, data_format {data_format})")
    return _batch_norm_op(x, running_mean, running_var, weight, bias, not training, momentum, epsilon, layout,
                          use_global_stats, trainable_statistics)


def _batch_norm_op(x, running_mean, running_var, weight, bias, is_test, momentum, epsilon, layout,
                   use_global_stats, trainable_statistics):
    """The batch_norm op with its flags given as Paddle's kernel takes them.

    F.batch_norm derives the flags from ``training``/``use_global_stats``; the legacy
    ``nn.BatchNorm`` layer passes its own (``trainable_statistics`` defaults to False there,
    so eval mode uses the running statistics), as Paddle's layer calls the op directly."""
    y, mean_out, var_out = run_op(
        "batch_norm", x, weight, bias, running_mean, running_var, None,
        is_test=bool(is_test), momentum=float(momentum), epsilon=float(epsilon), data_layout=layout,
        use_global_stats=bool(use_global_stats), trainable_statistics=bool(trainable_statistics))
    # the op's own rule (ops/norm.py _bn_mode): the running statistics are read, not updated
    uses_running = (is_test and not trainable_statistics) or use_global_stats
    if not uses_running and not state.static:
        _write_back(running_mean, mean_out)
        _write_back(running_var, var_out)
    return y


def _write_back(dst, src):
    if isinstance(dst, Tensor):
        # in place, like Paddle: layers hold these buffers and see the new values
        dst._data = src._data.astype(dst._data.dtype, copy=False)


@param_alias(x="input", epsilon="eps")
def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None):
    """Normalise over the trailing dims given by ``normalized_shape`` (an int or a list)."""
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    if not isinstance(normalized_shape, (list, tuple)):
        raise ValueError(f"layer_norm: normalized_shape must be an int, a list or a tuple, got "
                         f"{type(normalized_shape).__name__} {normalized_shape!r}")
    normalized_shape = [int(d) for d in normalized_shape]
    shape = list(x.shape)
    begin = len(shape) - len(normalized_shape)
    if begin < 0 or any(a != b and a != -1 for a, b in zip(shape[begin:], normalized_shape)):
        raise ValueError(f"layer_norm: normalized_shape {normalized_shape} must match the trailing dimensions "
                         f"of x (shape {shape})")
    n = 1
    for d in normalized_shape:
        n *= d
    # Paddle's layer_norm op takes Scale and Bias flattened to the normalised size
    if weight is not None and len(weight.shape) != 1:
        weight = _reshape(weight, [n])
    if bias is not None and len(bias.shape) != 1:
        bias = _reshape(bias, [n])
    return run_op("layer_norm", x, weight, bias, epsilon=float(epsilon), begin_norm_axis=begin)


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.9, eps=1e-05, data_format="NCHW", name=None):
    """Normalise each (sample, channel) slice over its spatial dims.
    (``running_mean``/``running_var``/``use_input_stats``/``momentum`` are unused, as in Paddle.)"""
    if data_format not in ("NC", "NCL", "NCHW", "NCDHW"):
        raise ValueError(f"instance_norm: data_format must be one of NC, NCL, NCHW, NCDHW, got {data_format!r}")
    return run_op("instance_norm", x, weight, bias, epsilon=float(eps))


def group_norm(x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format="NCHW", name=None):
    """Normalise over groups of ``num_groups`` channel blocks (and the spatial dims)."""
    if data_format not in ("NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
        raise ValueError(f"group_norm: unsupported data_format {data_format!r}; expected one of "
                         "NCL, NCHW, NCDHW, NLC, NHWC, NDHWC")
    layout = "NCHW" if data_format[1] == "C" else "NHWC"
    c = x.shape[1] if layout == "NCHW" else x.shape[-1]
    if c != -1 and (num_groups <= 0 or c % num_groups):
        raise ValueError(f"group_norm: the channel count {c} must be divisible by num_groups ({num_groups})")
    return run_op("group_norm", x, weight, bias, epsilon=float(epsilon), groups=int(num_groups),
                  data_layout=layout)


def local_response_norm(x, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
    """``x / (k + alpha * mean(x**2 over a window of `size` channels, zero-padded))**beta``; the window
    at channel c covers c - size//2 .. c + (size-1)//2 (Paddle's layout)."""
    from ...api.creation import zeros_like
    from ...api.manipulation import concat, slice as slice_
    nd = len(x.shape)
    if nd < 3:
        raise ValueError(f"local_response_norm: x must have at least 3 dimensions, got shape {list(x.shape)}")
    if data_format not in ("NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
        raise ValueError(f"local_response_norm: data_format must be NCL/NCHW/NCDHW/NLC/NHWC/NDHWC, got "
                         f"{data_format!r}")
    axis = 1 if data_format.startswith("NC") else nd - 1
    c = x.shape[axis]
    if c < 0:
        raise ValueError(f"local_response_norm: the channel count of x (shape {list(x.shape)}) must be known")
    sq = x * x
    zero = zeros_like(slice_(sq, [axis], [0], [1]))    # one zero channel, batch size known at run time
    before, after = size // 2, (size - 1) // 2
    padded = concat([zero] * before + [sq] + [zero] * after, axis=axis)
    total = None
    for o in range(size):
        win = slice_(padded, [axis], [o], [o + c])
        total = win if total is None else total + win
    return x / (total * (alpha / size) + k) ** beta
