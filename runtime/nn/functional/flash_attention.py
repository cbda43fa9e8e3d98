"""``paddle.nn.functional.flash_attention``: the module path LLM code imports (``flash_attention``,
``flash_attn_qkvpacked``, ``sdp_kernel`` ...).

Off GPU Paddle 3.3.1 routes ``flash_attention`` to its plain "math" attention (``_math_attention``): inputs
``[batch, seq_len, num_heads, head_dim]``, scores ``(q * head_dim**-0.5) k^T``, a -1e4 upper-triangle mask when
``causal``, softmax, dropout (upscale_in_train) while training, ``(out, softmax if return_softmax else None)``.
This module does the same with our ops (so it runs eagerly, in programs and under to_static, with gradients).
The packed / varlen / flashmask forms live in `nn_rest` (GPU-only ones fail as Paddle's CPU build does).
"""
from __future__ import annotations

import contextlib

from ...api import manipulation as _M
from ...api import math as _PM
from ...api.creation import full_like, triu
from ...api.linalg import matmul
from . import activation as _act
from .nn_rest import (flash_attention_v3_varlen, flash_attn_qkvpacked, flash_attn_varlen_qkvpacked,  # noqa: F401
                      flashmask_attention)

__all__ = ["flash_attention", "flash_attn_qkvpacked", "flash_attn_varlen_qkvpacked", "flashmask_attention",
           "flash_attention_v3_varlen", "sdp_kernel", "get_triangle_upper_mask"]

_backends = {"flash": True, "math": True, "mem_efficient": True}


@contextlib.contextmanager
def sdp_kernel(enable_math=False, enable_flash=True, enable_mem_efficient=True):
    """Which attention implementations ``flash_attention`` may pick inside the block (Paddle's switch). On
    the CPU only the math path exists: with it disabled, ``flash_attention`` fails as Paddle's CPU build does."""
    saved = dict(_backends)
    _backends.update(flash=bool(enable_flash), math=bool(enable_math), mem_efficient=bool(enable_mem_efficient))
    try:
        yield
    finally:
        _backends.clear()
        _backends.update(saved)


def get_triangle_upper_mask(x):
    """-1e4 above the diagonal of the last two axes, 0 elsewhere (the causal mask), shaped like ``x``."""
    mask = full_like(x, -1e4)
    mask.stop_gradient = True
    mask = triu(mask, diagonal=1)
    mask.stop_gradient = True
    return mask


def _math_attention(query, key, value, dropout_rate=0.0, causal=False, return_softmax=False, training=True,
                    scale=None):
    head_dim = query.shape[-1]
    q = _M.transpose(query, [0, 2, 1, 3])
    k = _M.transpose(key, [0, 2, 1, 3])
    v = _M.transpose(value, [0, 2, 1, 3])
    scale = scale or (head_dim ** -0.5 if head_dim != 0 else 1.0)
    product = matmul(q * scale, k, transpose_y=True)
    if causal:
        product = _PM.add(product, get_triangle_upper_mask(product))
    weights = _act.softmax(product)
    if dropout_rate > 0.0:
        from .common import dropout
        weights = dropout(weights, dropout_rate, training=training, mode="upscale_in_train")
    out = _M.transpose(matmul(weights, v), [0, 2, 1, 3])
    return out, (weights if return_softmax else None)


def flash_attention(query, key, value, dropout=0.0, causal=False, return_softmax=False, *, fixed_seed_offset=None,
                    rng_name="", training=True, name=None, softmax_scale=None):
    """Scaled dot-product attention over ``[batch, seq_len, num_heads, head_dim]`` query/key/value; returns
    ``(out, softmax or None)`` with ``out`` shaped like ``query`` (Paddle's CPU "math" path)."""
    for what, t in (("query", query), ("key", key), ("value", value)):
        if len(t.shape) != 4:
            raise ValueError(f"flash_attention: {what} must be 4-D [batch_size, seq_len, num_heads, head_dim], "
                             f"got shape {list(t.shape)}")
    if not _backends["math"]:
        raise AssertionError("flash_attention: the math backend is disabled (sdp_kernel(enable_math=False)) and it "
                             "is the only attention implementation on the CPU; enable it")
    return _math_attention(query, key, value, dropout_rate=dropout, causal=causal, return_softmax=return_softmax,
                           training=training, scale=softmax_scale)
