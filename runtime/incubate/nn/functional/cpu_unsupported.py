"""The fused ops of ``paddle.incubate.nn.functional`` that Paddle's CPU build cannot run (GPU/XPU-only kernels).

Each raises what Paddle 3.3.1's CPU build raises when called with valid arguments: mostly RuntimeError
"(NotFound) The kernel `...` is not registered.", and AttributeError for the three whose legacy op is not
compiled into the CPU build at all (``fused_feedforward``, ``fused_multi_head_attention``,
``fused_linear_activation``). The message adds what to use on CPU instead.
"""
from __future__ import annotations


__all__ = ["fused_matmul_bias", "fused_linear", "fused_linear_activation", "fused_feedforward",
           "fused_multi_head_attention", "fused_multi_transformer", "fused_bias_dropout_residual_layer_norm",
           "fused_rotary_position_embedding", "fused_bias_act", "fast_ln", "fast_rms_norm", "fused_rms_norm_ext",
           "variable_length_memory_efficient_attention", "masked_multihead_attention", "blha_get_max_len",
           "block_multihead_attention", "embedding_grad_add_to_", "fp8_gemm_blockwise", "fp8_quant_blockwise",
           "cross_entropy_with_softmax_bwd_w_downcast", "fused_act_dequant", "fused_stack_transpose_quant",
           "fused_transpose_split_quant", "fused_transpose_wlch_split_quant", "fused_swiglu_weighted_bwd",
           "fused_weighted_swiglu_act_quant", "moe_combine", "moe_combine_no_weight", "moe_gate_dispatch",
           "moe_gate_dispatch_permute", "moe_gate_dispatch_partial_nosoftmaxtopk", "moe_gate_dispatch_and_quant",
           "expand_modality_expert_id", "cal_aux_loss", "build_src_rank_and_local_expert_id", "int_bincount",
           "CPU_UNSUPPORTED"]

# api name -> (error type, Paddle's kernel or legacy op name, what to do on CPU)
CPU_UNSUPPORTED = {
    "fused_matmul_bias": (RuntimeError, "fused_gemm_epilogue", "use paddle.matmul(x, y) + bias"),
    "fused_linear": (RuntimeError, "fused_gemm_epilogue", "use paddle.nn.functional.linear(x, weight, bias)"),
    "fused_linear_activation": (AttributeError, "fused_gemm_epilogue",
                                "use paddle.nn.functional.linear followed by gelu or relu"),
    "fused_feedforward": (AttributeError, "fused_feedforward",
                          "compose paddle.nn.functional.linear, dropout and layer_norm"),
    "fused_multi_head_attention": (AttributeError, "fused_attention", "use paddle.nn.MultiHeadAttention"),
    "fused_multi_transformer": (RuntimeError, "fused_multi_transformer", "use paddle.nn.TransformerEncoderLayer"),
    "fused_bias_dropout_residual_layer_norm": (RuntimeError, "fused_bias_dropout_residual_layer_norm",
                                               "use layer_norm(residual + dropout(x + bias))"),
    "fused_rotary_position_embedding": (RuntimeError, "fused_rotary_position_embedding",
                                        "apply the rotation with paddle ops (q * cos + rotate_half(q) * sin)"),
    "fused_bias_act": (RuntimeError, "fused_bias_act", "use the activation of (x + bias)"),
    "fast_ln": (RuntimeError, "fast_ln", "use paddle.nn.functional.layer_norm"),
    "fast_rms_norm": (RuntimeError, "fast_rms_norm", "use paddle.incubate.nn.functional.fused_rms_norm"),
    "fused_rms_norm_ext": (RuntimeError, "fused_rms_norm_ext", "use paddle.incubate.nn.functional.fused_rms_norm"),
    "variable_length_memory_efficient_attention": (RuntimeError, "variable_length_memory_efficient_attention",
                                                   "use paddle.nn.functional.scaled_dot_product_attention"),
    "masked_multihead_attention": (RuntimeError, "masked_multihead_attention",
                                   "use paddle.nn.functional.scaled_dot_product_attention"),
    "blha_get_max_len": (RuntimeError, "blha_get_max_len", "use paddle.max on the length tensors"),
    "block_multihead_attention": (RuntimeError, "block_multihead_attention",
                                  "use paddle.nn.functional.scaled_dot_product_attention"),
    "embedding_grad_add_to_": (RuntimeError, "embedding_grad_add_to", "use paddle.index_add"),
    "fp8_gemm_blockwise": (RuntimeError, "fp8_gemm_blockwise", "use paddle.matmul in float32"),
    "fp8_quant_blockwise": (RuntimeError, "fp8_quant_blockwise", "fp8 needs a GPU"),
    "cross_entropy_with_softmax_bwd_w_downcast": (RuntimeError, "cross_entropy_with_softmax_bwd_w_downcast",
                                                  "use paddle.nn.functional.cross_entropy and backward()"),
    "fused_act_dequant": (RuntimeError, "fused_act_dequant", "fp8 needs a GPU"),
    "fused_stack_transpose_quant": (RuntimeError, "fused_stack_transpose_quant", "fp8 needs a GPU"),
    "fused_transpose_split_quant": (RuntimeError, "fused_transpose_split_quant", "fp8 needs a GPU"),
    "fused_transpose_wlch_split_quant": (RuntimeError, "fused_transpose_wlch_split_quant", "fp8 needs a GPU"),
    "fused_swiglu_weighted_bwd": (RuntimeError, "fused_swiglu_weighted_bwd",
                                  "use paddle.nn.functional.swiglu and backward()"),
    "fused_weighted_swiglu_act_quant": (RuntimeError, "fused_weighted_swiglu_act_quant", "fp8 needs a GPU"),
    "moe_combine": (RuntimeError, "moe_combine", "combine the expert outputs with paddle ops"),
    "moe_combine_no_weight": (RuntimeError, "moe_combine_no_weight", "combine the expert outputs with paddle ops"),
    "moe_gate_dispatch": (RuntimeError, "moe_gate_dispatch", "dispatch with paddle.topk and paddle.gather"),
    "moe_gate_dispatch_permute": (RuntimeError, "moe_gate_dispatch_permute",
                                  "dispatch with paddle.topk and paddle.gather"),
    "moe_gate_dispatch_partial_nosoftmaxtopk": (RuntimeError, "moe_gate_dispatch_partial_nosoftmaxtopk",
                                                "dispatch with paddle.topk and paddle.gather"),
    "moe_gate_dispatch_and_quant": (RuntimeError, "moe_gate_dispatch_and_quant", "fp8 needs a GPU"),
    "expand_modality_expert_id": (RuntimeError, "expand_modality_expert_id", "compute the ids with paddle ops"),
    "cal_aux_loss": (RuntimeError, "cal_aux_loss", "compute the auxiliary loss with paddle ops"),
    "build_src_rank_and_local_expert_id": (RuntimeError, "build_src_rank_and_local_expert_id",
                                           "compute the ids with paddle ops"),
    "int_bincount": (RuntimeError, "int_bincount", "use paddle.bincount"),
}


def _raiser(api, err, kernel, instead):
    def fn(*args, **kwargs):
        if err is AttributeError:
            msg = (f"module 'paddle.base.libpaddle.eager.ops.legacy' has no attribute '{kernel}' ({api} runs only "
                   f"on GPU in Paddle; its CPU build, like this package, has no '{kernel}' op. On CPU: {instead})")
        else:
            msg = (f"(NotFound) The kernel `{kernel}` is not registered. ({api} has GPU kernels only; Paddle's CPU "
                   f"build raises this too. On CPU: {instead})")
        raise err(msg)
    fn.__name__ = fn.__qualname__ = api
    fn.__doc__ = f"``{api}``: a GPU-only fused op; raises {err.__name__} as Paddle's CPU build ({instead})."
    return fn


for _api, (_err, _kernel, _instead) in CPU_UNSUPPORTED.items():
    globals()[_api] = _raiser(_api, _err, _kernel, _instead)
del _api, _err, _kernel, _instead

_gemm_epilogue = globals()["fused_matmul_bias"]


def fused_matmul_bias(x, y, bias=None, transpose_x=False, transpose_y=False, name=None):
    """``matmul(x, y) + bias``. Without a bias Paddle calls plain ``matmul`` (which runs on CPU); with one it
    needs the GPU ``fused_gemm_epilogue`` kernel and raises RuntimeError on CPU, as here."""
    if bias is None:
        from ....api.linalg import matmul
        return matmul(x, y, transpose_x, transpose_y)
    return _gemm_epilogue(x, y, bias)


def fused_linear(x, weight, bias=None, transpose_weight=False, name=None):
    """``x @ weight + bias`` (``weight`` transposed first with ``transpose_weight``): `fused_matmul_bias`."""
    return fused_matmul_bias(x, weight, bias, False, transpose_weight)
