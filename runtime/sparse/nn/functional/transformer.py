"""paddle.sparse.nn.functional.attention: Paddle 3.3.1 has this fused kernel on GPU only."""
from __future__ import annotations

__all__ = ["attention"]


def attention(query, key, value, sparse_mask, key_padding_mask=None, attn_mask=None, name=None):
    """Sparse-masked attention. Paddle's CPU build has no ``fused_attention_csr`` kernel, so this
    raises as Paddle does on the CPU."""
    raise RuntimeError("(NotFound) The kernel `fused_attention_csr` is not registered: Paddle 3.3.1 runs "
                       "paddle.sparse.nn.functional.attention on GPU only. Compute it densely: softmax of "
                       "query @ key^T masked by sparse_mask.to_dense(), times value")
