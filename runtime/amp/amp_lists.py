"""Paddle 3.3.1's AMP op lists: which ops compute in float16/bfloat16 (white) and which stay float32 (black).

Names are op types as Paddle's eager AMP looks them up (its fluid names: ``matmul_v2``, ``reduce_sum``,
``lookup_table_v2``) plus Paddle 3 op names (``matmul``, ``mean``); `runtime.amp.op_rules` applies them.
"""
from __future__ import annotations

import copy

WHITE_LIST = {"conv2d", "einsum", "matmul", "matmul_v2", "linear_v2", "max_pool2d_with_index", "mul",
              "fused_gemm_epilogue", "fused_rotary_position_embedding", "flash_attn"}

# float16 only (no bfloat16 kernels in Paddle)
ONLY_FP16_WHITE_LIST = {"fake_quantize_dequantize_abs_max", "fake_quantize_dequantize_moving_average_abs_max",
                        "fused_attention", "fused_feedforward"}

FP16_WHITE_LIST = WHITE_LIST | ONLY_FP16_WHITE_LIST

# numerically dangerous in half precision
FP16_BLACK_LIST = {
    "tan", "acos", "asin", "sinh", "cosh", "atanh", "tanh_shrink", "erfinv", "exp", "expm1", "log", "log10",
    "log2", "reciprocal", "rsqrt", "pow", "square", "reduce_sum", "mean", "reduce_mean", "reduce_prod", "cumprod",
    "cumsum", "dist", "pnorm", "frobenius_norm", "renorm", "group_norm", "layer_norm", "softmax", "softmin",
    "softplus", "log_softmax", "softmax_with_cross_entropy", "sigmoid_cross_entropy_with_logits",
    "c_softmax_with_cross_entropy", "c_softmax_with_multi_label_cross_entropy", "cross_entropy", "cross_entropy2",
    "nll_loss", "huber_loss", "triplet_margin_loss", "log_loss", "hsigmoid_loss", "margin_cross_entropy",
}

# slower in half precision (their grads): float32 by default
EXTRA_BLACK_LIST = {"linear_interp_v2", "nearest_interp_v2", "bilinear_interp_v2", "bicubic_interp_v2",
                    "trilinear_interp_v2", "lookup_table", "lookup_table_v2", "scatter"}

BF16_WHITE_LIST = WHITE_LIST
BF16_BLACK_LIST = FP16_BLACK_LIST


def white_list():
    """{dtype: {level: set of op names}} of the ops that compute in the AMP dtype."""
    return {"float16": {"OD": FP16_WHITE_LIST, "O1": FP16_WHITE_LIST, "O2": FP16_WHITE_LIST},
            "bfloat16": {"OD": BF16_WHITE_LIST, "O1": BF16_WHITE_LIST, "O2": BF16_WHITE_LIST}}


def black_list():
    """{dtype: {level: set of op names}} of the ops that stay in float32."""
    return {"float16": {"OD": set(), "O1": FP16_BLACK_LIST | EXTRA_BLACK_LIST, "O2": EXTRA_BLACK_LIST},
            "bfloat16": {"OD": set(), "O1": BF16_BLACK_LIST | EXTRA_BLACK_LIST, "O2": EXTRA_BLACK_LIST}}


def update_list(custom_white_list, custom_black_list, level="O1", dtype="float16"):
    """The lists for ``level``/``dtype`` with the user's additions (Paddle's ``_update_list``)."""
    if level == "O0":
        return set(), set()
    white = copy.copy(white_list()[dtype][level])
    black = copy.copy(black_list()[dtype][level])
    if custom_white_list and custom_black_list:
        for name in custom_white_list:
            if name in custom_black_list:
                raise ValueError("Custom white list overlap custom black list")
    for name in custom_white_list or ():
        black.discard(name)
        white.add(name)
    for name in custom_black_list or ():
        white.discard(name)
        black.add(name)
    return white, black
