"""``paddle.incubate``: the experimental API research code imports — LookAhead, ModelAverage, the fused masked
softmax, the older graph/segment functions, identity_loss, and the subpackages autograd, optimizer and nn."""
from . import autograd, optimizer, nn  # noqa: F401
from . import cc, autotune  # noqa: F401
from .inference_decorator import inference  # noqa: F401
from .operators import (softmax_mask_fuse, softmax_mask_fuse_upper_triangle, graph_send_recv,  # noqa: F401
                        graph_reindex, graph_sample_neighbors, segment_sum, segment_mean, segment_max, segment_min,
                        identity_loss)
from .khop_sampler import graph_khop_sampler  # noqa: F401
from .optimizer import LookAhead, ModelAverage  # noqa: F401

__all__ = ["LookAhead", "ModelAverage", "softmax_mask_fuse_upper_triangle", "softmax_mask_fuse", "graph_send_recv",
           "graph_khop_sampler", "graph_sample_neighbors", "graph_reindex", "segment_sum", "segment_mean",
           "segment_max", "segment_min", "identity_loss", "inference", "cc"]
