"""``paddle.incubate.nn``: the fused layers (Paddle's parameter layout) and ``functional``."""
from . import functional  # noqa: F401
from .layers import FusedDropout  # noqa: F401  (importable in Paddle, not in its __all__)
from .layers import (FusedLinear, FusedDropoutAdd, FusedBiasDropoutResidualLayerNorm,  # noqa: F401
                     FusedMultiHeadAttention, FusedFeedForward, FusedTransformerEncoderLayer, FusedMultiTransformer)

__all__ = ["FusedMultiHeadAttention", "FusedFeedForward", "FusedTransformerEncoderLayer", "FusedMultiTransformer",
           "FusedLinear", "FusedBiasDropoutResidualLayerNorm", "FusedDropoutAdd"]
