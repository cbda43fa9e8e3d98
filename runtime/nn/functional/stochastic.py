"""Randomised functionals: rrelu, gumbel_softmax, feature_alpha_dropout (``paddle.nn.functional``).

rrelu and gumbel_softmax map onto their Paddle op types; feature_alpha_dropout is Paddle's
composite (one keep/drop draw per [N, C] feature map, SELU's saturation value for dropped maps,
then the affine map that restores mean and variance).
"""
from __future__ import annotations

from ...dispatch import run_op
from .common import _cast, _full, _sub

__all__ = ["rrelu", "gumbel_softmax", "feature_alpha_dropout"]


def rrelu(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None):
    """Leaky ReLU with slopes drawn from U(lower, upper) in training, (lower + upper) / 2 otherwise."""
    fn = "rrelu"
    if not isinstance(lower, float) or not isinstance(upper, float):
        raise TypeError(f"{fn}: lower and upper must be floats, got lower={lower!r}, upper={upper!r}")
    if lower < 0 or lower > 1:
        raise ValueError(f"{fn}: lower must be in [0, 1], got {lower}")
    if upper < lower:
        raise ValueError(f"{fn}: upper must be >= lower, got lower={lower}, upper={upper}")
    if upper > 1:
        raise ValueError(f"{fn}: upper must be <= 1, got {upper}")
    return run_op("rrelu", x, lower=float(lower), upper=float(upper), is_test=not training)


def gumbel_softmax(x, temperature=1.0, hard=False, axis=-1, name=None):
    """softmax((x + Gumbel noise) / temperature) along ``axis``; ``hard`` gives its one-hot argmax."""
    fn = "gumbel_softmax"
    if not isinstance(temperature, (int, float)) or isinstance(temperature, bool) or temperature <= 0:
        raise ValueError(f"{fn}: temperature must be a positive number, got {temperature!r}")
    if not isinstance(hard, bool):
        raise TypeError(f"{fn}: hard must be a bool, got {hard!r}")
    return run_op("gumbel_softmax", x, temperature=float(temperature), hard=hard, axis=int(axis))


def feature_alpha_dropout(x, p=0.5, training=True, name=None):
    """Alpha dropout of whole feature maps: one draw per (sample, channel) of an [N, C, ...] input."""
    fn = "feature_alpha_dropout"
    if not isinstance(p, (float, int)) or isinstance(p, bool):
        raise TypeError(f"{fn}: p must be a float or int, got {p!r}")
    if p < 0 or p > 1:
        raise ValueError(f"{fn}: p must be between 0 and 1, got {p}")
    if not training:
        return x
    if p == 1:
        return run_op("scale", x, scale=0.0)
    if len(x.shape) < 2:
        raise ValueError(f"{fn}: needs at least a 2-D input [N, C, ...], got shape {list(x.shape)}")
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    alpha_p = -alpha * scale
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    shape = list(x.shape[:2]) + [1] * (len(x.shape) - 2)
    if any(d < 0 for d in shape):
        raise ValueError(f"{fn}: the batch and channel dims must be known, got shape {list(x.shape)}")
    u = run_op("uniform_random", None, None, shape=shape, dtype=5, min=0.0, max=1.0, seed=0)
    keep = _cast(run_op("greater_equal", u, _full(shape, p, "float32")), x.dtype)
    drop = _sub(_full(shape, 1.0, x.dtype), keep)
    y = run_op("elementwise_add", run_op("elementwise_mul", x, keep), run_op("scale", drop, scale=alpha_p))
    return run_op("elementwise_add", run_op("scale", y, scale=a), _full(shape, b, x.dtype))
