"""Every Paddle op type we implement, registered on import (one module per family)."""
from . import registry  # noqa: F401
from . import (elementwise, activation, math, reduce, search, logic, creation, random,  # noqa: F401
               shape, indexing, conv, pool, interp, norm, nn_misc, loss, optimizer_ops, control_flow)
from . import linalg, linalg_decomp  # noqa: F401
from . import complex, fft  # noqa: F401
from . import fused  # noqa: F401  (ops the static graph passes create)
from . import interpolate  # noqa: F401  (linear/trilinear/bicubic interp)
from . import unfold, shuffle  # noqa: F401  (im2col/col2im, pixel_unshuffle, channel_shuffle)
from . import activation_extra  # noqa: F401  (selu, celu, shrinks, mish, logsigmoid, prelu, maxout, bmm ...)
from . import grid_sample  # noqa: F401  (grid_sampler, affine_grid)
from . import conv3d, pool3d  # noqa: F401  (conv3d, conv3d_transpose, pool3d, max_pool3d_with_index)
from . import bilinear, random_activation  # noqa: F401  (bilinear_tensor_product, rrelu, gumbel_softmax)
from . import index_put  # noqa: F401  (x[indices] = value as one op)
from . import unique, histogram, cumulative, tensor_extra  # noqa: F401,E402  (unique, mode, bincount, cummax, kron ...)
from . import unpool, lp_pool, gather_tree  # noqa: F401,E402  (unpool(3d), lp_pool2d, gather_tree)
from . import manipulation_extra  # noqa: F401,E402  (as_strided, multiplex, shard_index, fill_diagonal, exponential ...)
from . import optimizer_ops_extra  # noqa: F401,E402  (adadelta, adamax, asgd, lamb, nadam, radam, rprop)
from . import metric_ops  # noqa: F401,E402  (auc)
from . import special, math_extra, linalg_extra, order_stats  # noqa: F401,E402  (digamma ... i1e, logit, atan2, fmax, trace, addmm, kthvalue, nanmedian ...)
from . import detection_roi, detection_box, detection_proposals, detection_io  # noqa: F401,E402  (vision.ops)
from . import detection_deform, detection_yolo_loss  # noqa: F401,E402  (vision.ops: deform_conv2d, yolo_loss)
from . import fractional_pool, spectral_norm, nn_rest, viterbi  # noqa: F401,E402  (fractional pools, spectral_norm, temporal_shift, rms_norm, swiglu, viterbi_decode)
from . import loss_ctc, loss_extra  # noqa: F401,E402  (warpctc, warprnnt, hierarchical_sigmoid, margin_cross_entropy ...)
from .blas_threads import mark_blas_ops  # noqa: E402
mark_blas_ops(registry.all_ops())
