"""``paddle.incubate.nn.functional``: the fused ops. Those Paddle's CPU build computes are implemented
(fused_layer_norm, fused_rms_norm, fused_dropout_add, swiglu); the GPU-only ones raise as Paddle's CPU build
(`cpu_unsupported`)."""
from .fused_norm import fused_layer_norm, fused_rms_norm  # noqa: F401
from .dropout_add import fused_dropout_add  # noqa: F401
from .cpu_unsupported import *  # noqa: F401,F403
from .cpu_unsupported import CPU_UNSUPPORTED  # noqa: F401
from ....nn.functional.nn_rest import swiglu  # noqa: F401  (deprecated alias of paddle.nn.functional.swiglu)

__all__ = [
    "embedding_grad_add_to_", "fp8_gemm_blockwise", "cross_entropy_with_softmax_bwd_w_downcast",
    "fp8_quant_blockwise", "fast_ln", "fast_rms_norm", "fused_act_dequant", "fused_multi_head_attention",
    "fused_feedforward", "fused_multi_transformer", "fused_matmul_bias", "fused_linear", "fused_linear_activation",
    "fused_bias_dropout_residual_layer_norm", "fused_dropout_add", "fused_rotary_position_embedding",
    "fused_stack_transpose_quant", "fused_transpose_split_quant", "fused_transpose_wlch_split_quant",
    "variable_length_memory_efficient_attention", "fused_rms_norm", "fused_layer_norm", "fused_bias_act",
    "fused_swiglu_weighted_bwd", "fused_weighted_swiglu_act_quant", "masked_multihead_attention",
    "blha_get_max_len", "block_multihead_attention", "moe_combine", "expand_modality_expert_id", "cal_aux_loss",
    "build_src_rank_and_local_expert_id", "int_bincount", "fused_rms_norm_ext", "moe_gate_dispatch",
    "moe_gate_dispatch_permute", "moe_gate_dispatch_partial_nosoftmaxtopk", "moe_gate_dispatch_and_quant",
]
