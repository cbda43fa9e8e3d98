"""The rest of paddle.nn.functional: fractional max pooling, rms_norm, swiglu, temporal_shift, dropout1d,
the in-place activations (elu_, hardtanh_, leaky_relu_, softmax_, tanh_, thresholded_relu_) and the
attention / MoE entry points that Paddle 3.3.1 only runs on GPUs (see `_GPUOnly`)."""
from __future__ import annotations

import warnings

import numpy as np

from ...dispatch import run_op
from ...tensor import Tensor
from ...api.arg_checks import check_variable_and_dtype
from ...api.inplace_extra import _make
from ...api.math import tanh_  # noqa: F401  (paddle.nn.functional.tanh_ is paddle.tanh_)
from . import activation as _act
from .common import dropout

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d", "rms_norm", "swiglu", "temporal_shift", "dropout1d",
           "elu_", "hardtanh_", "leaky_relu_", "softmax_", "tanh_", "thresholded_relu_",
           "flash_attn_qkvpacked", "flash_attn_varlen_qkvpacked", "flashmask_attention", "flash_attention_v3_varlen",
           "sparse_attention", "moe_permute", "moe_unpermute"]


# -- fractional max pooling ------------------------------------------------------------------------

def _fractional(op, nd, x, output_size, kernel_size, random_u, return_mask):
    if not isinstance(x, Tensor) and not hasattr(x, "shape"):
        raise TypeError(f"{op}: x must be a Tensor, got {type(x).__name__}")
    if len(x.shape) != nd + 2:
        raise ValueError(f"{op}: x must be a {nd + 2}-D tensor ({'NCHW' if nd == 2 else 'NCDHW'}), got shape "
                         f"{list(x.shape)}")
    if random_u is None:
        random_u = 0.0          # the kernel draws u
    elif not 0 < random_u < 1:
        raise ValueError("The param `random_u` should be a `float` in (0, 1).")
    if kernel_size is None:
        ks = [0] * nd
    elif isinstance(kernel_size, int):
        ks = [kernel_size] * nd
    else:
        ks = [int(k) for k in kernel_size]
        if len(ks) != nd:
            raise ValueError(f"{op}: kernel_size must be an int or {nd} ints, got {list(kernel_size)}")
    if isinstance(output_size, int):
        outs = [output_size] * nd
    else:
        outs = list(output_size)
        if len(outs) != nd:
            raise ValueError(f"{op}: output_size must be an int or {nd} values, got {outs}")
        # None keeps that dimension's input size
        outs = [x.shape[2 + d] if o is None else int(o) for d, o in enumerate(outs)]
    out, mask = run_op(op, x, output_size=outs, kernel_size=ks, random_u=float(random_u),
                       return_mask=bool(return_mask))
    return (out, mask) if return_mask else out


def fractional_max_pool2d(x, output_size, kernel_size=None, random_u=None, return_mask=False, name=None):
    """2-D fractional max pooling (Graham 2015); ``random_u`` in (0, 1) fixes the pseudo-random windows."""
    return _fractional("fractional_max_pool2d", 2, x, output_size, kernel_size, random_u, return_mask)


def fractional_max_pool3d(x, output_size, kernel_size=None, random_u=None, return_mask=False, name=None):
    """3-D fractional max pooling (Graham 2015); ``random_u`` in (0, 1) fixes the pseudo-random windows."""
    return _fractional("fractional_max_pool3d", 3, x, output_size, kernel_size, random_u, return_mask)


# -- rms_norm / swiglu / temporal_shift / dropout1d ------------------------------------------------

def rms_norm(input, normalized_shape, weight=None, eps=1e-5, name=None):
    """``x / sqrt(mean(x**2) + eps) * weight`` over the trailing ``normalized_shape`` dims.

    Returns ``(out, invvar)``; invvar has one value per normalised row. (Paddle 3.3.1 registers this
    op's kernel for GPUs only; here it runs everywhere.)
    """
    shape = [normalized_shape] if isinstance(normalized_shape, int) else [int(s) for s in normalized_shape]
    return run_op("rms_norm", input, weight, normalized_shape=shape, epsilon=float(eps))


def swiglu(x, y=None, name=None):
    """``silu(x) * y``; without ``y``, x's last dim is split in two halves (gate, value)."""
    return run_op("swiglu", x, y)


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format="NCHW"):
    """Temporal Shift Module: per segment of ``seg_num`` frames, shift ``shift_ratio`` of the channels one
    frame back and as many one frame forward (zeros fill the ends)."""
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("Attr(data_format) should be 'NCHW' or 'NHWC'. "
                         f"Received Attr(data_format): {data_format}.")
    if not isinstance(seg_num, int) or isinstance(seg_num, bool):
        raise TypeError(f"temporal_shift: seg_num must be an int, got {type(seg_num).__name__}")
    return run_op("temporal_shift", x, seg_num=seg_num, shift_ratio=float(shift_ratio), data_format=data_format)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a [N, C, L] (or [C, L]) input with probability ``p`` (Paddle: one draw per
    channel, shared across the batch, as ``dropout(axis=1)``)."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability must be in [0, 1], got {p}")
    ndim = len(input.shape)
    if ndim not in (2, 3):
        raise RuntimeError(f"dropout1d expects 2D or 3D input, got {ndim}D")
    if inplace:
        warnings.warn("inplace=True is currently not supported in dropout1d and will be ignored. "
                      "This parameter is reserved for future implementation.")
    if ndim == 2:
        input = input.unsqueeze(0)
    out = dropout(input, p=p, axis=1, training=training)
    return out.squeeze(0) if ndim == 2 else out


# -- in-place activations --------------------------------------------------------------------------

_elu_inplace = _make("elu_", _act.elu)


def _f32(v):
    # Paddle's in-place kernels take these attributes as C++ float
    return float(np.float32(v))


def elu_(x, alpha=1.0, name=None):
    """In-place ``elu``: ``x`` takes the result (alpha must be >= 0, as in Paddle)."""
    assert alpha >= 0.0, "elu_ only support alpha >= 0, please use elu instead."
    return _elu_inplace(x, _f32(alpha))


_hardtanh_inplace = _make("hardtanh_", _act.hardtanh)


def hardtanh_(x, min=-1.0, max=1.0, name=None):
    """In-place ``hardtanh``: ``x`` takes ``clip(x, min, max)``."""
    return _hardtanh_inplace(x, _f32(min), _f32(max))


leaky_relu_ = _make("leaky_relu_", _act.leaky_relu)
thresholded_relu_ = _make("thresholded_relu_", _act.thresholded_relu)
_softmax_inplace = _make("softmax_", _act.softmax)


def softmax_(x, axis=-1, dtype=None, name=None):
    """In-place ``softmax``. With ``dtype`` Paddle casts first and works on the cast copy, so ``x``
    itself is left unchanged and the result is a new tensor; the same here."""
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64"), "softmax")
    if dtype is not None:
        return _act.softmax(x, axis=axis, dtype=dtype)
    return _softmax_inplace(x, axis)


# -- attention entry points ------------------------------------------------------------------------

def flash_attn_qkvpacked(qkv, dropout=0.0, causal=False, return_softmax=False, *, fixed_seed_offset=None,
                         rng_name="", training=True, name=None):
    """Attention over a packed [batch, seq, heads/kv_heads + 2, kv_heads, head_dim] tensor.

    Off GPU Paddle 3.3.1 takes its plain "math" path, and so do we: queries are every slot but the last
    two, scores ``q k^T / sqrt(head_dim)``, a -1e4 upper-triangle mask when ``causal``, softmax, dropout
    (upscale_in_train) while ``training``; returns ``(out, softmax if return_softmax else None)``.
    """
    from ...api import manipulation as M
    from .flash_attention import _math_attention
    if len(qkv.shape) != 5:
        raise ValueError(f"flash_attn_qkvpacked: qkv must be 5-D [batch, seq_len, num_heads/num_heads_k + 2, "
                         f"num_heads_k, head_dim], got shape {list(qkv.shape)}")
    head_dim = qkv.shape[-1]
    query = M.reshape(qkv[:, :, :-2], [0, 0, -1, head_dim])
    return _math_attention(query, qkv[:, :, -2], qkv[:, :, -1], dropout_rate=dropout, causal=causal,
                           return_softmax=return_softmax, training=training)


class _GPUOnly:
    """Paddle 3.3.1 has no CPU kernel for these; each call fails as Paddle's does, with the same error type."""

    def __init__(self, api, kernel, error=RuntimeError, hint=""):
        self.api, self.kernel, self.error, self.hint = api, kernel, error, hint

    def fail(self):
        raise self.error(f"{self.api}: Paddle 3.3.1 implements this only as a CUDA kernel (`{self.kernel}`, "
                         f"no CPU kernel is registered), so it cannot run here.{self.hint}")


_ATTN_HINT = " Use paddle.nn.functional.scaled_dot_product_attention (or flash_attn_qkvpacked) on CPU."


def flash_attn_varlen_qkvpacked(qkv, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, scale, dropout=0.0,
                                causal=False, return_softmax=False, fixed_seed_offset=None, rng_name="",
                                varlen_padded=True, training=True, name=None):
    """GPU-only in Paddle 3.3.1: raises RuntimeError (Paddle: kernel not registered)."""
    _GPUOnly("flash_attn_varlen_qkvpacked", "flash_attn_varlen_qkvpacked", hint=_ATTN_HINT).fail()


def flashmask_attention(query, key, value, startend_row_indices=None, *, dropout=0.0, causal=False, window_size=None,
                        return_softmax_lse=False, return_seed_offset=False, fixed_seed_offset=None, rng_name="",
                        training=True, name=None, softmax_scale=None, block_mask=None):
    """GPU-only in Paddle 3.3.1. Without ``startend_row_indices`` Paddle fails looking up the ``flash_attn``
    kernel (RuntimeError); with them it fails reading a CUDA-only flag (ValueError). Same types here."""
    if startend_row_indices is None:
        _GPUOnly("flashmask_attention", "flash_attn", hint=_ATTN_HINT).fail()
    _GPUOnly("flashmask_attention", "flashmask_attention", ValueError,
             " (Paddle fails reading the CUDA-only flag FLAGS_cudnn_deterministic.)" + _ATTN_HINT).fail()


def flash_attention_v3_varlen(query, key, value, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                              seqused_q=None, seqused_k=None, softmax_scale=None, causal=False, qv=None,
                              q_descale=None, k_descale=None, v_descale=None, window_size=(-1, -1), softcap=0.0,
                              num_splits=1, pack_gqa=None, sm_margin=0):
    """GPU-only (FlashAttention-3, Hopper) in Paddle 3.3.1: raises ValueError as Paddle does on CPU."""
    _GPUOnly("flash_attention_v3_varlen", "flash_attn_v3_varlen", ValueError,
             " (Paddle fails reading the CUDA-only flag FLAGS_cudnn_deterministic.)" + _ATTN_HINT).fail()


def sparse_attention(query, key, value, sparse_csr_offset, sparse_csr_columns, key_padding_mask=None,
                     attn_mask=None, name=None):
    """GPU-only (CUDA >= 11.3) in Paddle 3.3.1: raises RuntimeError (kernel not registered)."""
    _GPUOnly("sparse_attention", "sparse_attention", hint=_ATTN_HINT).fail()


def moe_permute(hidden_states, scale, expert_routemap_topk, expert_prob_topk, num_experts, tokens_per_expert,
                padding_alignment, do_gather=True, using_ue8m0_scale=False, return_expert_indices=False,
                override_buffer_size=-1, name=None):
    """GPU-only in Paddle 3.3.1: raises RuntimeError (kernel not registered)."""
    _GPUOnly("moe_permute", "moe_permute").fail()


def moe_unpermute(hidden_states_unzipped, zipped_expertwise_rowmap, expert_routemap_topk, token_prob_unzipped,
                  total_zipped_tokens, num_experts, using_mix_precision=True, using_weighted_combine=False,
                  name=None):
    """GPU-only in Paddle 3.3.1: raises RuntimeError (kernel not registered)."""
    _GPUOnly("moe_unpermute", "moe_unpermute").fail()

