"""Transformer layers: MultiHeadAttention, TransformerEncoder(Layer), TransformerDecoder(Layer), Transformer.

Parameter names, shapes and defaults follow Paddle (``self_attn.q_proj.weight`` is ``[d_model,
d_model]``, ``linear1``/``linear2`` the feed-forward, ``norm1..3`` post- or pre-norms). Attention
masks broadcast to ``[batch, num_heads, len_q, len_k]``: a bool or integer mask keeps positions
that are True/1 and adds -1e9 elsewhere; a float mask is added to the scores as it is. Everything
is written with functional ops, so the layers run eagerly, in static Programs and under to_static.
"""
from __future__ import annotations

import collections
import copy

import numpy as np

import runtime as paddle  # top-level tensor functions, resolved at call time
from ...dtype import convert_dtype
from .. import functional as F
from .common import Dropout, Linear
from .container import LayerList
from .layers import Layer
from .norm import LayerNorm

__all__ = ["MultiHeadAttention", "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
           "TransformerDecoder", "Transformer"]


def _attn_mask_as(mask, dtype):
    """An attention mask as an additive float mask of ``dtype`` (bool/int masks: 0 keep, -1e9 drop)."""
    if mask is None or mask.dtype == dtype:
        return mask
    kind = mask.dtype.np.kind
    mask = paddle.cast(mask, dtype)
    if kind in "biu":
        mask = (mask - 1.0) * 1e9
    return mask


def _attr_list(attr, n):
    """``weight_attr``/``bias_attr`` of a layer as one attr per sub-block (Paddle's list forms)."""
    if isinstance(attr, (list, tuple)):
        if len(attr) == 1:
            return [attr[0]] * n
        if len(attr) != n:
            raise ValueError(f"expected a single attr or a list of {n} attrs, got a list of {len(attr)}")
        return list(attr)
    if isinstance(attr, bool) or attr is None:
        return [attr] * n
    return [copy.deepcopy(attr) for _ in range(n)]


def _activation(name):
    fn = getattr(F, name, None)
    if fn is None or not callable(fn):
        raise ValueError(f"activation: F.{name} does not exist (expected e.g. 'relu' or 'gelu')")
    return fn


class MultiHeadAttention(Layer):
    """Scaled dot-product attention over ``num_heads`` heads of ``embed_dim // num_heads``.

    ``forward(query, key=None, value=None, attn_mask=None, cache=None)`` returns the output,
    followed by the attention weights when ``need_weights`` and by the (new) cache when one
    was passed. ``Cache(k, v)`` grows along the time axis on every call (incremental
    decoding); ``StaticCache(k, v)`` holds projected keys/values that are reused as they are.
    """

    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

    def __init__(self, embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None, need_weights=False,
                 weight_attr=None, bias_attr=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"MultiHeadAttention: embed_dim and num_heads must be positive, got "
                             f"{embed_dim} and {num_heads}")
        if embed_dim % num_heads:
            raise ValueError(f"MultiHeadAttention: embed_dim ({embed_dim}) must be divisible by num_heads "
                             f"({num_heads})")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.need_weights = need_weights
        self.head_dim = embed_dim // num_heads
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)

    def _heads(self, x):
        # [batch, len, embed] -> [batch, heads, len, head_dim]
        x = paddle.reshape(x, [0, 0, self.num_heads, self.head_dim])
        return paddle.transpose(x, [0, 2, 1, 3])

    def compute_kv(self, key, value):
        """Keys and values projected and split into heads: two ``[batch, heads, len, head_dim]``."""
        return self._heads(self.k_proj(key)), self._heads(self.v_proj(value))

    def gen_cache(self, key, value=None, type=Cache):
        """A cache for ``forward``: StaticCache of projected ``key``/``value``; an empty Cache
        when ``value`` is None; else Cache(key, value) as given."""
        if type is MultiHeadAttention.StaticCache:
            k, v = self.compute_kv(key, key if value is None else value)
            return self.StaticCache(k, v)
        if value is None:
            shape = [key.shape[0], self.num_heads, 0, self.head_dim]
            k = paddle.full(shape, 0, dtype=key.dtype)
            v = paddle.full(shape, 0, dtype=key.dtype)
            return self.Cache(k, v)
        return self.Cache(key, value)

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        key = query if key is None else key
        value = query if value is None else value
        q = self._heads(self.q_proj(query))
        if isinstance(cache, self.StaticCache):
            k, v = cache.k, cache.v
        else:
            k, v = self.compute_kv(key, value)
            if isinstance(cache, self.Cache):
                k = paddle.concat([cache.k, k], axis=2)
                v = paddle.concat([cache.v, v], axis=2)
                cache = self.Cache(k, v)
        scores = paddle.matmul(q * (self.head_dim ** -0.5), k, transpose_y=True)
        if attn_mask is not None:
            scores = scores + _attn_mask_as(attn_mask, scores.dtype)
        weights = F.softmax(scores)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training, mode="upscale_in_train")
        out = paddle.matmul(weights, v)
        out = paddle.transpose(out, [0, 2, 1, 3])
        out = paddle.reshape(out, [0, 0, self.embed_dim])
        out = self.out_proj(out)
        outs = [out]
        if self.need_weights:
            outs.append(weights)
        if cache is not None:
            outs.append(cache)
        return out if len(outs) == 1 else tuple(outs)


class TransformerEncoderLayer(Layer):
    """Self-attention then a feed-forward block, each with a residual connection and a
    LayerNorm after it (or before it with ``normalize_before``)."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None, layer_norm_eps=1e-5):
        super().__init__()
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward, dropout=dropout,
                            activation=activation, attn_dropout=attn_dropout, act_dropout=act_dropout,
                            normalize_before=normalize_before, weight_attr=weight_attr, bias_attr=bias_attr,
                            layer_norm_eps=layer_norm_eps)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        w, b = _attr_list(weight_attr, 2), _attr_list(bias_attr, 2)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=w[0], bias_attr=b[0])
        self.linear1 = Linear(d_model, dim_feedforward, w[1], bias_attr=b[1])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, w[1], bias_attr=b[1])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.activation = _activation(activation)

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _attn_mask_as(src_mask, src.dtype)
        residual = src
        h = self.norm1(src) if self.normalize_before else src
        if cache is None:
            h = self.self_attn(h, h, h, src_mask)
        else:
            h, cache = self.self_attn(h, h, h, src_mask, cache)
        h = residual + self.dropout1(h)
        if not self.normalize_before:
            h = self.norm1(h)
        residual = h
        if self.normalize_before:
            h = self.norm2(h)
        h = self.linear2(self.dropout(self.activation(self.linear1(h))))
        h = residual + self.dropout2(h)
        if not self.normalize_before:
            h = self.norm2(h)
        return h if cache is None else (h, cache)

    def gen_cache(self, src):
        return self.self_attn.gen_cache(src, type=MultiHeadAttention.Cache)


class TransformerEncoder(Layer):
    """``num_layers`` encoder layers (the first is ``encoder_layer``, the others new layers of
    the same configuration, with their own parameters) and an optional final ``norm``."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList([encoder_layer if i == 0 else type(encoder_layer)(**encoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _attn_mask_as(src_mask, src.dtype)
        out, new_caches = src, []
        for i, layer in enumerate(self.layers):
            if cache is None:
                out = layer(out, src_mask=src_mask)
            else:
                out, c = layer(out, src_mask=src_mask, cache=cache[i])
                new_caches.append(c)
        if self.norm is not None:
            out = self.norm(out)
        return out if cache is None else (out, new_caches)

    def gen_cache(self, src):
        return [layer.gen_cache(src) for layer in self.layers]


class TransformerDecoderLayer(Layer):
    """Self-attention, cross-attention over ``memory`` and a feed-forward block, each with a
    residual connection and a LayerNorm (after, or before with ``normalize_before``)."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None, layer_norm_eps=1e-5):
        super().__init__()
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward, dropout=dropout,
                            activation=activation, attn_dropout=attn_dropout, act_dropout=act_dropout,
                            normalize_before=normalize_before, weight_attr=weight_attr, bias_attr=bias_attr,
                            layer_norm_eps=layer_norm_eps)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        w, b = _attr_list(weight_attr, 3), _attr_list(bias_attr, 3)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=w[0], bias_attr=b[0])
        self.cross_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=w[1], bias_attr=b[1])
        self.linear1 = Linear(d_model, dim_feedforward, w[2], bias_attr=b[2])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, w[2], bias_attr=b[2])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.norm3 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.dropout3 = Dropout(dropout, mode="upscale_in_train")
        self.activation = _activation(activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = _attn_mask_as(tgt_mask, tgt.dtype)
        memory_mask = _attn_mask_as(memory_mask, memory.dtype)
        pre = self.normalize_before
        residual = tgt
        h = self.norm1(tgt) if pre else tgt
        if cache is None:
            h = self.self_attn(h, h, h, tgt_mask, None)
        else:
            h, incremental = self.self_attn(h, h, h, tgt_mask, cache[0])
        h = residual + self.dropout1(h)
        if not pre:
            h = self.norm1(h)
        residual = h
        if pre:
            h = self.norm2(h)
        if cache is None:
            h = self.cross_attn(h, memory, memory, memory_mask, None)
        else:
            h, static = self.cross_attn(h, memory, memory, memory_mask, cache[1])
        h = residual + self.dropout2(h)
        if not pre:
            h = self.norm2(h)
        residual = h
        if pre:
            h = self.norm3(h)
        h = self.linear2(self.dropout(self.activation(self.linear1(h))))
        h = residual + self.dropout3(h)
        if not pre:
            h = self.norm3(h)
        return h if cache is None else (h, (incremental, static))

    def gen_cache(self, memory):
        """(empty self-attention Cache, cross-attention StaticCache of ``memory``)."""
        return (self.self_attn.gen_cache(memory, type=MultiHeadAttention.Cache),
                self.cross_attn.gen_cache(memory, memory, type=MultiHeadAttention.StaticCache))


class TransformerDecoder(Layer):
    """``num_layers`` decoder layers (built like TransformerEncoder's) and an optional final ``norm``."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList([decoder_layer if i == 0 else type(decoder_layer)(**decoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = _attn_mask_as(tgt_mask, tgt.dtype)
        memory_mask = _attn_mask_as(memory_mask, memory.dtype)
        out, new_caches = tgt, []
        for i, layer in enumerate(self.layers):
            if cache is None:
                out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, cache=None)
            else:
                out, c = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, cache=cache[i])
                new_caches.append(c)
        if self.norm is not None:
            out = self.norm(out)
        return out if cache is None else (out, new_caches)

    def gen_cache(self, memory, do_zip=False):
        cache = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*cache)) if do_zip else cache


def _split_attr(attr, n_enc, n_dec, what):
    """Paddle's Transformer attr lists: 1 -> shared; 2 -> (attention, feed-forward); 3 -> per decoder block."""
    if not isinstance(attr, (list, tuple)):
        return attr, attr
    if len(attr) == 1:
        return [attr[0]] * n_enc, [attr[0]] * n_dec
    if len(attr) == 2:
        return list(attr), [attr[0], attr[0], attr[-1]]
    if len(attr) == 3:
        return [attr[0], attr[-1]], list(attr)
    raise ValueError(f"Transformer: {what} must be one attr or a list of 1, 2 or 3, got a list of {len(attr)}")


class Transformer(Layer):
    """Encoder-decoder Transformer (Vaswani et al.); the encoder and the decoder each end in a LayerNorm."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation="relu", attn_dropout=None, act_dropout=None, normalize_before=False,
                 weight_attr=None, bias_attr=None, custom_encoder=None, custom_decoder=None):
        super().__init__()
        enc_w, dec_w = _split_attr(weight_attr, 2, 3, "weight_attr")
        enc_b, dec_b = _split_attr(bias_attr, 2, 3, "bias_attr")
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, attn_dropout,
                                            act_dropout, normalize_before, enc_w, enc_b)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, LayerNorm(d_model))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, attn_dropout,
                                            act_dropout, normalize_before, dec_w, dec_b)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, LayerNorm(d_model))
        self.d_model = d_model
        self.nhead = nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        src_mask = _attn_mask_as(src_mask, src.dtype)
        memory = self.encoder(src, src_mask=src_mask)
        tgt_mask = _attn_mask_as(tgt_mask, tgt.dtype)
        memory_mask = _attn_mask_as(memory_mask, memory.dtype)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)

    def generate_square_subsequent_mask(self, length):
        """``[length, length]`` float mask: 0 on and below the diagonal, -inf above it."""
        if not isinstance(length, int):
            length = int(length.item()) if hasattr(length, "item") else int(length)
        full = paddle.full([length, length], -np.inf, dtype=convert_dtype(paddle.get_default_dtype()).name)
        return paddle.triu(full, 1)
