"""paddle.nn.functional common ops: linear, dropout (and 2-D/3-D/alpha forms), label_smooth,
normalize, cosine_similarity; plus the small op wrappers the other functional modules share."""
from __future__ import annotations

import numbers

from ...dispatch import run_op
from ...dtype import convert_dtype
from ...api._helpers import scalar_like
from ...api.param_alias import param_alias

__all__ = ["linear", "dropout", "dropout2d", "dropout3d", "alpha_dropout", "label_smooth", "normalize",
           "cosine_similarity", "sequence_mask", "scaled_dot_product_attention"]


# -- op wrappers shared by the functional modules (every optional slot passed explicitly) ---

def _cast(x, dtype):
    d = convert_dtype(dtype)
    src = convert_dtype(x.dtype)
    if src is d:
        return x
    return run_op("cast", x, in_dtype=src.proto, out_dtype=d.proto)


def _clip(x, lo, hi):
    return run_op("clip", x, None, None, min=float(lo), max=float(hi))


def _reshape(x, shape):
    return run_op("reshape2", x, None, None, shape=[int(d) for d in shape])


def _squeeze(x, axes):
    return run_op("squeeze2", x, axes=list(axes))


def _unsqueeze(x, axes):
    return run_op("unsqueeze2", x, None, None, axes=list(axes))


def _full(shape, value, dtype):
    return run_op("fill_constant", None, None, None, shape=[int(d) for d in shape],
                  dtype=convert_dtype(dtype).proto, value=float(value))


def _ones_like(x):
    return run_op("fill_any_like", x, value=1.0, dtype=convert_dtype(x.dtype).proto)


def _reduce_sum(x, axes=None, keepdim=False):
    if axes is None:
        return run_op("reduce_sum", x, dim=[], keep_dim=keepdim, reduce_all=True)
    return run_op("reduce_sum", x, dim=list(axes), keep_dim=keepdim, reduce_all=False)


def _reduce_mean(x):
    return run_op("reduce_mean", x, dim=[], keep_dim=False, reduce_all=True)


def _mul(x, y):
    return run_op("elementwise_mul", x, y if _is_tensor(y) else scalar_like(y, x))


def _add(x, y):
    return run_op("elementwise_add", x, y if _is_tensor(y) else scalar_like(y, x))


def _sub(x, y):
    return run_op("elementwise_sub", x, y if _is_tensor(y) else scalar_like(y, x))


def _div(x, y):
    return run_op("elementwise_div", x, y if _is_tensor(y) else scalar_like(y, x))


def _is_tensor(v):
    from ...api._helpers import is_var
    return is_var(v)


# -- public API ------------------------------------------------------------------------------

def linear(x, weight, bias=None, name=None):
    """``x @ weight + bias``; ``weight`` is ``[in_features, out_features]`` (Paddle's layout)."""
    out = run_op("matmul_v2", x, weight, trans_x=False, trans_y=False)
    if bias is not None:
        out = run_op("elementwise_add", out, bias)
    return out


_MODES = ("downscale_in_infer", "upscale_in_train")


def _check_p(p, what):
    if not isinstance(p, numbers.Real) or isinstance(p, bool):
        raise TypeError(f"{what}: p must be a float in [0, 1], got {type(p).__name__}")
    if p < 0 or p > 1:
        raise ValueError(f"{what}: p must be between 0 and 1, got {p}")


@param_alias(x="input")
def dropout(x, p=0.5, axis=None, training=True, inplace=False, mode="upscale_in_train", name=None):
    """Randomly zero elements with probability ``p``.

    ``mode='upscale_in_train'`` scales kept values by 1/(1-p) while training and is the
    identity at inference; ``'downscale_in_infer'`` keeps values unscaled while training
    and multiplies by (1-p) at inference. ``axis`` drops whole slices: one random draw per
    index along the given axes, shared across the others.
    """
    _check_p(p, "dropout")
    if mode not in _MODES:
        raise ValueError(f"dropout: mode must be 'downscale_in_infer' or 'upscale_in_train', got {mode!r}")
    if p == 0:
        return x
    impl = "downgrade_in_infer" if mode == "downscale_in_infer" else mode
    if axis is None:
        out, _ = run_op("dropout", x, None, dropout_prob=float(p), is_test=not training,
                        dropout_implementation=impl)
        return out
    axes = [axis] if isinstance(axis, int) else list(axis)
    shape = list(x.shape)
    if not axes or min(axes) < 0 or max(axes) >= len(shape):
        raise ValueError(f"dropout: axis values must satisfy 0 <= axis < {len(shape)} (the rank of x), got {axis}")
    if len(axes) > len(shape):
        raise ValueError(f"dropout: axis has {len(axes)} entries but x has only {len(shape)} dimensions")
    if not training:
        return _mul(x, 1.0 - p) if mode == "downscale_in_infer" else x
    mask_shape = [shape[i] if i in axes else 1 for i in range(len(shape))]
    # one draw per kept slice: dropout of a ones tensor of the mask shape gives the scaled mask
    ones = _full(mask_shape, 1.0, x.dtype)
    mask, _ = run_op("dropout", ones, None, dropout_prob=float(p), is_test=False, dropout_implementation=impl)
    return run_op("elementwise_mul", x, mask)


def _dropout_nd(x, p, training, data_format, rank, formats, what):
    if len(x.shape) != rank:
        raise ValueError(f"{what}: x must be a {rank}-D tensor, got shape {list(x.shape)}")
    if data_format not in formats:
        raise ValueError(f"{what}: data_format must be {formats[0]!r} or {formats[1]!r}, got {data_format!r}")
    axis = [0, 1] if data_format == formats[0] else [0, rank - 1]
    return dropout(x, p=p, axis=axis, training=training, mode="upscale_in_train")


def dropout2d(x, p=0.5, training=True, data_format="NCHW", name=None):
    """Zero whole channels of a 4-D input with probability ``p``."""
    return _dropout_nd(x, p, training, data_format, 4, ("NCHW", "NHWC"), "dropout2d")


def dropout3d(x, p=0.5, training=True, data_format="NCDHW", name=None):
    """Zero whole channels of a 5-D input with probability ``p``."""
    return _dropout_nd(x, p, training, data_format, 5, ("NCDHW", "NDHWC"), "dropout3d")


def alpha_dropout(x, p=0.5, training=True, name=None):
    """Dropout that keeps SELU's self-normalising mean and variance (dropped values take
    SELU's negative saturation value, then an affine map restores the moments)."""
    _check_p(p, "alpha_dropout")
    if not training or p == 0:
        return x
    if p == 1:
        return _mul(x, 0.0)
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    alpha_p = -alpha * scale
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    keep, _ = run_op("dropout", _ones_like(x), None, dropout_prob=float(p), is_test=False,
                     dropout_implementation="downgrade_in_infer")
    dropped = _mul(_sub(_ones_like(x), keep), alpha_p)
    y = run_op("elementwise_add", run_op("elementwise_mul", x, keep), dropped)
    return _add(_mul(y, a), b)


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    """(1 - epsilon) * label + epsilon * prior (uniform 1/C when ``prior_dist`` is None)."""
    if not 0.0 <= float(epsilon) <= 1.0:
        raise ValueError(f"label_smooth: epsilon must be between 0 and 1, got {epsilon}")
    return run_op("label_smooth", label, prior_dist, epsilon=float(epsilon))


def normalize(x=None, p=2, axis=1, epsilon=1e-12, out=None, name=None, *, input=None, dim=None, eps=None):
    """x / max(||x||_p along ``axis``, epsilon). ``input``, ``dim`` and ``eps`` are Paddle's aliases of
    ``x``, ``axis`` and ``epsilon``; ``out`` receives the result (eager mode)."""
    x = _alias_arg("normalize", "x", x, None, "input", input)
    axis = _alias_arg("normalize", "axis", axis, 1, "dim", dim)
    epsilon = _alias_arg("normalize", "epsilon", epsilon, 1e-12, "eps", eps)
    rank = len(x.shape)
    if not -rank <= axis < max(rank, 1):
        raise ValueError(f"normalize: Attr(axis) value should be in range [-R, R-1], R is the rank of x ({rank}); "
                         f"got axis {axis} (a 1-D x takes axis 0 or -1)")
    norm = run_op("p_norm", x, porder=float(p), axis=int(axis), epsilon=1e-12, keepdim=True, asvector=False)
    res = run_op("elementwise_div", x, run_op("elementwise_max", norm, scalar_like(float(epsilon), x)))
    if out is not None:
        from ...api.creation import assign
        return assign(res, out)
    return res


def _alias_arg(fn, name, value, default, alias, alias_value):
    """Paddle's parameter aliases (``input`` for ``x`` ...): the alias wins when only it is given."""
    if alias_value is None:
        if value is None and default is None:
            raise TypeError(f"{fn}() missing required argument '{name}' (or its alias '{alias}')")
        return value
    if value is not None and value is not default:
        raise TypeError(f"{fn}(): got both '{name}' and its alias '{alias}'; pass one")
    return alias_value


@param_alias(axis="dim")
def cosine_similarity(x1, x2, axis=1, eps=1e-8):
    """sum(x1 * x2) / sqrt(max(sum(x1^2) * sum(x2^2), eps^2)) along ``axis``."""
    w12 = _reduce_sum(run_op("elementwise_mul", x1, x2), [axis])
    w1 = _reduce_sum(run_op("elementwise_mul", x1, x1), [axis])
    w2 = _reduce_sum(run_op("elementwise_mul", x2, x2), [axis])
    n12 = run_op("sqrt", run_op("elementwise_max", run_op("elementwise_mul", w1, w2),
                                scalar_like(float(eps) ** 2, w12)))
    return run_op("elementwise_div", w12, n12)


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    """``out[..., j] = j < x[...]`` for j < ``maxlen`` (default: the largest length in x), as ``dtype``."""
    import runtime as paddle
    if maxlen is None:
        maxlen = paddle.max(x)
    elif isinstance(maxlen, numbers.Integral) and maxlen < 0:
        raise ValueError(f"sequence_mask: maxlen must be >= 0, got {maxlen}")
    pos = paddle.arange(0, maxlen, dtype=x.dtype)
    return paddle.cast(paddle.unsqueeze(x, -1) > pos, dtype)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, training=True,
                                 backend=None, scale=None, enable_gqa=True, name=None):
    """softmax(q k^T * scale + mask) v on [batch, seq_len, num_heads, head_dim] tensors (Paddle's layout).

    A bool ``attn_mask`` keeps the True positions, a float one is added; ``is_causal`` masks the
    future; with fewer key/value heads than query heads (grouped-query attention) each is shared."""
    import runtime as paddle
    for t, what in ((query, "query"), (key, "key"), (value, "value")):
        if len(t.shape) != 4:
            raise ValueError(f"scaled_dot_product_attention: {what} must be 4-D [batch, seq_len, num_heads, "
                             f"head_dim], got shape {list(t.shape)}")
    hq, hk = query.shape[2], key.shape[2]
    q = paddle.transpose(query, [0, 2, 1, 3])
    k = paddle.transpose(key, [0, 2, 1, 3])
    v = paddle.transpose(value, [0, 2, 1, 3])
    if hk != hq:
        if not enable_gqa or hk <= 0 or hq % hk:
            raise ValueError(f"scaled_dot_product_attention: query has {hq} heads and key {hk}; grouped-query "
                             "attention needs enable_gqa=True and a head count dividing the query's")
        k = paddle.repeat_interleave(k, hq // hk, axis=1)
        v = paddle.repeat_interleave(v, hq // hk, axis=1)
    d = query.shape[-1]
    if scale is None and d < 0:   # head_dim known only at run time (a program built from a dynamic reshape)
        scale = paddle.rsqrt(paddle.cast(paddle.shape(query)[3], query.dtype))
    elif scale is None:
        scale = 1.0 / float(d) ** 0.5
    s = paddle.matmul(q, k, transpose_y=True) * scale
    if is_causal:
        lq, lk = query.shape[1], key.shape[1]
        keep = paddle.tril(paddle.ones([lq, lk], dtype="bool"))
        s = paddle.where(keep, s, paddle.full_like(s, float("-inf")))
    if attn_mask is not None:
        if attn_mask.dtype.np.kind == "b":
            s = paddle.where(attn_mask, s, paddle.full_like(s, float("-inf")))
        else:
            s = s + attn_mask
    p = paddle.nn.functional.softmax(s, axis=-1)
    if dropout_p:
        p = dropout(p, dropout_p, training=training)
    return paddle.transpose(paddle.matmul(p, v), [0, 2, 1, 3])
