"""``paddle.incubate.nn``'s fused layers, with Paddle's parameters (names, shapes, initialisers) so state_dicts
load both ways. Their forward calls the fused functional op: ``FusedDropoutAdd`` computes; the others reach a
GPU-only kernel and raise as Paddle's CPU build does (`functional.cpu_unsupported`)."""
from __future__ import annotations

from ...nn.layer.layers import Layer
from ...nn.initializer import Constant
from . import functional as incubate_f

__all__ = ["FusedLinear", "FusedDropout", "FusedDropoutAdd", "FusedBiasDropoutResidualLayerNorm",
           "FusedMultiHeadAttention",
           "FusedFeedForward", "FusedTransformerEncoderLayer", "FusedMultiTransformer"]


def _default_dtype():
    from ...dtype import get_default_dtype
    return get_default_dtype()


def _attr_list(attr, n):
    if isinstance(attr, (list, tuple)):
        if len(attr) != n:
            raise AssertionError(f"length of param_attr should be {n} when it is a list/tuple")
        return list(attr)
    return [attr] * n


class FusedLinear(Layer):
    """``y = x @ W + b`` through ``fused_linear`` (weight [in, out], or [out, in] with ``transpose_weight``)."""

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, transpose_weight=False,
                 name=None):
        super().__init__()
        shape = [out_features, in_features] if transpose_weight else [in_features, out_features]
        dtype = _default_dtype()
        self.weight = self.create_parameter(shape=shape, attr=weight_attr, dtype=dtype, is_bias=False)
        self.bias = self.create_parameter(shape=[out_features], attr=bias_attr, dtype=dtype, is_bias=True)
        self.transpose_weight = transpose_weight
        self.name = name

    def forward(self, input):
        return incubate_f.fused_linear(input, self.weight, self.bias, self.transpose_weight, self.name)


class FusedDropout(Layer):
    """Dropout as ``paddle.nn.functional.dropout``. As Paddle's CPU build: with an ``axis`` the dynamic-mode forward
    raises AttributeError (GPU-only ``dropout_nd`` op), and ``mode='downscale_in_infer'`` is refused (Paddle
    renames it before checking it)."""

    def __init__(self, p=0.5, axis=None, mode="upscale_in_train", name=None):
        super().__init__()
        if not isinstance(p, (float, int)):
            raise TypeError("p argument should be a number")
        if p < 0 or p > 1:
            raise ValueError("p argument should between 0 and 1")
        mode = "downgrade_in_infer" if mode == "downscale_in_infer" else mode
        if mode not in ("downscale_in_infer", "upscale_in_train"):
            raise ValueError("mode argument should be 'downscale_in_infer' or 'upscale_in_train'")
        if axis and not isinstance(axis, (int, list, tuple)):
            raise TypeError("datatype of axis argument should be int or list")
        self.p = p
        self.mode = mode
        self.name = name
        self.axis = None if axis is None else ([axis] if isinstance(axis, int) else list(axis))

    def forward(self, input):
        from ...nn.functional.common import dropout
        from ...framework import state
        if self.p == 0:
            return input
        if self.axis is not None and not state.static:
            raise AttributeError("module 'paddle.base.libpaddle.eager.ops.legacy' has no attribute 'dropout_nd' "
                                 "(FusedDropout with an axis runs the GPU-only dropout_nd op in dynamic mode; on "
                                 "CPU use paddle.nn.functional.dropout(x, p, axis=...))")
        return dropout(input, p=self.p, axis=self.axis, training=self.training, mode=self.mode)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return f"p={self.p}, axis={self.axis}, mode={self.mode}{name_str}"


class FusedDropoutAdd(Layer):
    """``dropout(x) + y`` (train mode drops with probability ``p``; eval mode is ``x + y`` for upscale_in_train)."""

    def __init__(self, p=0.5, mode="upscale_in_train", name=None):
        super().__init__()
        self.p = p
        self.mode = mode
        self.name = name

    def forward(self, x, y):
        return incubate_f.fused_dropout_add(x, y, p=self.p, training=self.training, mode=self.mode, name=self.name)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return f"p={self.p}, mode={self.mode}{name_str}"


class FusedBiasDropoutResidualLayerNorm(Layer):
    """``layer_norm(residual + dropout(x + linear_bias))`` (GPU-only in Paddle)."""

    def __init__(self, embed_dim, dropout_rate=0.5, weight_attr=None, bias_attr=None, epsilon=1e-5, name=None):
        super().__init__()
        if not embed_dim > 0:
            raise AssertionError(f"Expected embed_dim to be greater than 0, but received {embed_dim}")
        self._dtype = _default_dtype()
        self._bias_attr = bias_attr
        self._weight_attr = weight_attr
        self.embed_dim = embed_dim
        self.linear_bias = self.create_parameter(shape=[embed_dim], attr=bias_attr, dtype=self._dtype, is_bias=True)
        self.ln_scale = self.create_parameter(attr=weight_attr, shape=[embed_dim],
                                              default_initializer=Constant(value=1.0))
        self.ln_bias = self.create_parameter(attr=bias_attr, shape=[embed_dim], is_bias=True)
        self.dropout_rate = dropout_rate
        self._epsilon = epsilon
        self.name = name

    def forward(self, x, residual):
        return incubate_f.fused_bias_dropout_residual_layer_norm(
            x=x, residual=residual, bias=self.linear_bias, ln_scale=self.ln_scale, ln_bias=self.ln_bias,
            dropout_rate=self.dropout_rate, ln_epsilon=self._epsilon, training=self.training,
            mode="upscale_in_train", name=self.name)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return (f"embed_dim={self.embed_dim}, dropout_rate={self.dropout_rate}, epsilon={self._epsilon}, "
                f"dtype={self._dtype}{name_str}")


class FusedMultiHeadAttention(Layer):
    """Self-attention with the QKV projection in one weight ([3, heads, head_dim, embed], or [embed, 3 * embed]
    with ``transpose_qkv_wb``), an output projection and a pre- or post- layer norm (GPU-only in Paddle)."""

    def __init__(self, embed_dim, num_heads, dropout_rate=0.5, attn_dropout_rate=0.5, kdim=None, vdim=None,
                 normalize_before=False, need_weights=False, qkv_weight_attr=None, qkv_bias_attr=None,
                 linear_weight_attr=None, linear_bias_attr=None, pre_ln_scale_attr=None, pre_ln_bias_attr=None,
                 ln_scale_attr=None, ln_bias_attr=None, epsilon=1e-5, nranks=1, ring_id=-1, transpose_qkv_wb=False,
                 name=None):
        super().__init__()
        if not embed_dim > 0:
            raise AssertionError(f"Expected embed_dim to be greater than 0, but received {embed_dim}")
        if not num_heads > 0:
            raise AssertionError(f"Expected nhead to be greater than 0, but received {num_heads}")
        self.normalize_before = normalize_before
        self._dtype = _default_dtype()
        self._epsilon = epsilon
        self._ring_id = ring_id
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.kdim = kdim
        self.vdim = vdim
        self.need_weights = need_weights
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if need_weights is not False:
            raise AssertionError("Only support need_weight is False now.")
        if num_heads % nranks != 0:
            raise AssertionError(f"num_heads ({num_heads}) must be divisible by nranks ({nranks})")
        self.num_heads = num_heads // nranks
        self.transpose_qkv_wb = transpose_qkv_wb
        if transpose_qkv_wb:
            w_shape, b_shape = [embed_dim, 3 * self.num_heads * self.head_dim], [3 * self.num_heads * self.head_dim]
        else:
            w_shape, b_shape = [3, self.num_heads, self.head_dim, embed_dim], [3, self.num_heads, self.head_dim]
        self.qkv_weight = self.create_parameter(shape=w_shape, attr=qkv_weight_attr, dtype=self._dtype,
                                                is_bias=False)
        self.qkv_bias = self.create_parameter(shape=b_shape, attr=qkv_bias_attr, dtype=self._dtype, is_bias=True)
        self.linear_weight = self.create_parameter(shape=[self.num_heads * self.head_dim, embed_dim],
                                                   attr=linear_weight_attr, dtype=self._dtype, is_bias=False)
        self.linear_bias = self.create_parameter(shape=[embed_dim], attr=linear_bias_attr, dtype=self._dtype,
                                                 is_bias=True)
        if normalize_before:
            self.pre_ln_scale = self.create_parameter(attr=pre_ln_scale_attr, shape=[embed_dim],
                                                      default_initializer=Constant(value=1.0))
            self.pre_ln_bias = self.create_parameter(attr=pre_ln_bias_attr, shape=[embed_dim], is_bias=True)
            self.ln_scale = None
            self.ln_bias = None
        else:
            self.pre_ln_scale = None
            self.pre_ln_bias = None
            self.ln_scale = self.create_parameter(attr=ln_scale_attr, shape=[embed_dim],
                                                  default_initializer=Constant(value=1.0))
            self.ln_bias = self.create_parameter(attr=ln_bias_attr, shape=[embed_dim], is_bias=True)
        self.dropout_rate = dropout_rate
        self.attn_dropout_rate = attn_dropout_rate
        self.name = name

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        if len(query.shape) != 3:
            raise ValueError(f"The rank of the x should be 3, but received {len(query.shape)}.")
        return incubate_f.fused_multi_head_attention(query, self.qkv_weight, self.linear_weight)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return (f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, dropout_rate={self.dropout_rate}, "
                f"attn_dropout_rate={self.attn_dropout_rate}, epsilon={self._epsilon}, kdim={self.kdim}, "
                f"vdim={self.vdim}, normalize_before={self.normalize_before}, need_weights={self.need_weights}, "
                f"dtype={self._dtype}{name_str}")


class FusedFeedForward(Layer):
    """``linear2(dropout(act(linear1(x))))`` with residual, dropout and a pre- or post- layer norm (GPU-only in
    Paddle)."""

    def __init__(self, d_model, dim_feedforward, dropout_rate=0.1, epsilon=1e-05, activation="relu",
                 act_dropout_rate=None, normalize_before=False, linear1_weight_attr=None, linear1_bias_attr=None,
                 linear2_weight_attr=None, linear2_bias_attr=None, ln1_scale_attr=None, ln1_bias_attr=None,
                 ln2_scale_attr=None, ln2_bias_attr=None, nranks=1, ring_id=-1, name=None):
        super().__init__()
        if not d_model > 0:
            raise AssertionError(f"Expected d_model to be greater than 0, but received {d_model}")
        if not dim_feedforward > 0:
            raise AssertionError(f"Expected dim_feedforward to be greater than 0, but received {dim_feedforward}")
        if dim_feedforward % nranks != 0:
            raise AssertionError(f"dim_feedforward ({dim_feedforward}) must be divisible by nranks ({nranks})")
        self._dtype = _default_dtype()
        self._d_model = d_model
        dim_feedforward = dim_feedforward // nranks
        self._dim_feedforward = dim_feedforward
        self._dropout_rate = dropout_rate
        self._act_dropout_rate = dropout_rate if act_dropout_rate is None else act_dropout_rate
        self._act_method = activation
        self._normalize_before = normalize_before
        self._epsilon = epsilon
        self._ring_id = ring_id
        self._linear1_weight = self.create_parameter(shape=[d_model, dim_feedforward], attr=linear1_weight_attr,
                                                     dtype=self._dtype, is_bias=False)
        self._linear1_bias = self.create_parameter(shape=[dim_feedforward], attr=linear1_bias_attr,
                                                   dtype=self._dtype, is_bias=True)
        self._linear2_weight = self.create_parameter(shape=[dim_feedforward, d_model], attr=linear2_weight_attr,
                                                     dtype=self._dtype, is_bias=False)
        self._linear2_bias = self.create_parameter(shape=[d_model], attr=linear2_bias_attr, dtype=self._dtype,
                                                   is_bias=True)
        if normalize_before:
            self._ln1_scale = self.create_parameter(shape=[d_model], attr=ln1_scale_attr, is_bias=False,
                                                    default_initializer=Constant(1.0))
            self._ln1_bias = self.create_parameter(shape=[d_model], attr=ln1_bias_attr, is_bias=True)
            self._ln2_scale = None
            self._ln2_bias = None
        else:
            self._ln1_scale = None
            self._ln1_bias = None
            self._ln2_scale = self.create_parameter(shape=[d_model], attr=ln2_scale_attr, is_bias=False,
                                                    default_initializer=Constant(1.0))
            self._ln2_bias = self.create_parameter(shape=[d_model], attr=ln2_bias_attr, is_bias=True)
        self.name = name

    def forward(self, src, cache=None):
        return incubate_f.fused_feedforward(src, self._linear1_weight, self._linear2_weight)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return (f"d_model={self._d_model}, dim_feedforward={self._dim_feedforward}, "
                f"dropout_rate={self._dropout_rate}, epsilon={self._epsilon}, activation={self._act_method}, "
                f"act_dropout_rate={self._act_dropout_rate}, normalize_before={self._normalize_before}, "
                f"dtype={self._dtype}{name_str}")


class FusedTransformerEncoderLayer(Layer):
    """A `FusedMultiHeadAttention` (``fused_attn``) followed by a `FusedFeedForward` (``ffn``)."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout_rate=0.1, activation="relu", attn_dropout_rate=None,
                 act_dropout_rate=None, normalize_before=False, weight_attr=None, bias_attr=None):
        super().__init__()
        if not d_model > 0:
            raise AssertionError(f"Expected d_model to be greater than 0, but received {d_model}")
        if not nhead > 0:
            raise AssertionError(f"Expected nhead to be greater than 0, but received {nhead}")
        if not dim_feedforward > 0:
            raise AssertionError(f"Expected dim_feedforward to be greater than 0, but received {dim_feedforward}")
        attn_dropout_rate = dropout_rate if attn_dropout_rate is None else attn_dropout_rate
        act_dropout_rate = dropout_rate if act_dropout_rate is None else act_dropout_rate
        self.normalize_before = normalize_before
        w = _attr_list(weight_attr, 2)
        b = _attr_list(bias_attr, 2)
        self.fused_attn = FusedMultiHeadAttention(
            d_model, nhead, dropout_rate=dropout_rate, attn_dropout_rate=attn_dropout_rate,
            normalize_before=normalize_before, qkv_weight_attr=w[0], qkv_bias_attr=b[0], linear_weight_attr=w[0],
            linear_bias_attr=b[0], pre_ln_scale_attr=w[0], pre_ln_bias_attr=b[0], ln_scale_attr=w[0],
            ln_bias_attr=b[0])
        self.ffn = FusedFeedForward(
            d_model, dim_feedforward, dropout_rate=dropout_rate, activation=activation,
            act_dropout_rate=act_dropout_rate, normalize_before=normalize_before, linear1_weight_attr=w[1],
            linear1_bias_attr=b[1], linear2_weight_attr=w[1], linear2_bias_attr=b[1])

    def forward(self, src, src_mask=None, cache=None):
        attn_out = self.fused_attn(src, attn_mask=src_mask)
        return self.ffn(attn_out)


class FusedMultiTransformer(Layer):
    """A stack of ``num_layers`` pre-LN transformer layers in one fused op (inference; GPU-only in Paddle).
    Parameters are registered under their generated names, as Paddle does."""

    def __init__(self, embed_dim, num_heads, dim_feedforward, dropout_rate=0.0, activation="gelu",
                 normalize_before=True, ln_scale_attrs=None, ln_bias_attrs=None, qkv_weight_attrs=None,
                 qkv_bias_attrs=None, linear_weight_attrs=None, linear_bias_attrs=None, ffn_ln_scale_attrs=None,
                 ffn_ln_bias_attrs=None, ffn1_weight_attrs=None, ffn1_bias_attrs=None, ffn2_weight_attrs=None,
                 ffn2_bias_attrs=None, epsilon=1e-5, residual_alpha=1.0, num_layers=-1, nranks=1, trans_qkvw=True,
                 ring_id=-1, norm_type="layernorm", use_neox_rotary_style=False, gqa_group_size=-1, name=None):
        super().__init__()
        for what, v in (("embed_dim", embed_dim), ("nhead", num_heads), ("dim_feedforward", dim_feedforward)):
            if not v > 0:
                raise AssertionError(f"Expected {what} to be greater than 0, but received {v}")
        self.normalize_before = normalize_before
        self._dtype = _default_dtype()
        self._epsilon = epsilon
        self._residual_alpha = residual_alpha
        self._trans_qkvw = trans_qkvw
        self._ring_id = ring_id
        self._norm_type = norm_type
        self._use_neox_rotary_style = use_neox_rotary_style
        self._gqa_group_size = gqa_group_size
        self._norm_weight_dtype = "float32" if norm_type == "layernorm" else self._dtype
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if num_heads % nranks != 0 or dim_feedforward % nranks != 0:
            raise AssertionError("num_heads and dim_feedforward must be divisible by nranks")
        num_heads //= nranks
        dim_feedforward //= nranks
        self._dim_feedforward = dim_feedforward
        if isinstance(qkv_weight_attrs, (list, tuple)):
            num_layers = len(qkv_weight_attrs)
        if not num_layers > 0:
            raise AssertionError(f"FusedMultiTransformer: num_layers must be > 0 (or give per-layer "
                                 f"qkv_weight_attrs), got {num_layers}")
        names = ("ln_scales", "ln_biases", "qkv_weights", "qkv_biases", "linear_weights", "linear_biases",
                 "ffn_ln_scales", "ffn_ln_biases", "ffn1_weights", "ffn1_biases", "ffn2_weights", "ffn2_biases")
        for n in names:
            setattr(self, n, [])
        self.qkv_weights_scales, self.linear_weights_scales = [], []
        self.ffn1_weights_scales, self.ffn2_weights_scales = [], []

        def get_attr(attrs, idx):
            if isinstance(attrs, (list, tuple)):
                if len(attrs) != num_layers:
                    raise AssertionError(f"expected {num_layers} attrs, got {len(attrs)}")
                return attrs[idx]
            return attrs

        glu = activation.endswith("glu")
        heads = [3, num_heads] if gqa_group_size <= 0 else [num_heads + 2 * gqa_group_size]
        nd = self._norm_weight_dtype
        for i in range(num_layers):
            mk = self.create_parameter
            ln_scale = mk(attr=get_attr(ln_scale_attrs, i), shape=[embed_dim],
                          default_initializer=Constant(value=1.0), dtype=nd)
            a = get_attr(ln_bias_attrs, i)
            ln_bias = mk(attr=a, shape=[embed_dim], is_bias=True, dtype=nd) if a else None
            qkv_weight = mk(shape=[*heads, self.head_dim, embed_dim] if trans_qkvw
                            else [embed_dim, *heads, self.head_dim], attr=get_attr(qkv_weight_attrs, i),
                            dtype=self._dtype, is_bias=False)
            a = get_attr(qkv_bias_attrs, i)
            qkv_bias = mk(shape=[*heads, self.head_dim], attr=a, dtype=self._dtype, is_bias=True) if a else None
            linear_weight = mk(shape=[num_heads * self.head_dim, embed_dim], attr=get_attr(linear_weight_attrs, i),
                               dtype=self._dtype, is_bias=False)
            a = get_attr(linear_bias_attrs, i)
            linear_bias = mk(shape=[embed_dim], attr=a, dtype=self._dtype, is_bias=True) if a else None
            ffn_ln_scale = mk(shape=[embed_dim], attr=get_attr(ffn_ln_scale_attrs, i), is_bias=False,
                              default_initializer=Constant(1.0), dtype=nd)
            a = get_attr(ffn_ln_bias_attrs, i)
            ffn_ln_bias = mk(shape=[embed_dim], attr=a, is_bias=True, dtype=nd) if a else None
            ffn1_weight = mk(shape=[embed_dim, dim_feedforward * 2] if glu else [embed_dim, dim_feedforward],
                             attr=get_attr(ffn1_weight_attrs, i), dtype=self._dtype, is_bias=False)
            a = get_attr(ffn1_bias_attrs, i)
            ffn1_bias = (mk(shape=[dim_feedforward * 2] if glu else [dim_feedforward], attr=a, dtype=self._dtype,
                            is_bias=True) if a else None)
            ffn2_weight = mk(shape=[dim_feedforward, embed_dim], attr=get_attr(ffn2_weight_attrs, i),
                             dtype=self._dtype, is_bias=False)
            a = get_attr(ffn2_bias_attrs, i)
            ffn2_bias = mk(shape=[embed_dim], attr=a, dtype=self._dtype, is_bias=True) if a else None
            params = (ln_scale, ln_bias, qkv_weight, qkv_bias, linear_weight, linear_bias, ffn_ln_scale,
                      ffn_ln_bias, ffn1_weight, ffn1_bias, ffn2_weight, ffn2_bias)
            for n, p in zip(names, params):
                getattr(self, n).append(p)
            for p in params:
                if p is not None:
                    if p.name in self._parameters:
                        raise AssertionError(f"parameter {p.name} registered twice")
                    self._parameters[p.name] = p
        for n in ("ln_biases", "qkv_biases", "linear_biases", "ffn_ln_biases"):
            if getattr(self, n)[0] is None:
                setattr(self, n, None)
        self.dropout_rate = dropout_rate
        self.activation = activation
        self.name = name

    def forward(self, src, attn_mask=None, caches=None, pre_caches=None, rotary_embs=None, rotary_emb_dims=0,
                beam_offset=None, seq_lens=None, time_step=None):
        return incubate_f.fused_multi_transformer(src)
