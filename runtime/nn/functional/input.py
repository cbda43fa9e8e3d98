"""paddle.nn.functional input ops: embedding (lookup_table_v2) and one_hot (one_hot_v2)."""
from __future__ import annotations

import numbers

from ...dispatch import run_op
from ...tensor import Tensor
from ...api.param_alias import param_alias

__all__ = ["embedding", "one_hot"]


@param_alias(x="input")
def embedding(x, weight, padding_idx=None, max_norm=None, norm_type=2.0, sparse=False,
              scale_grad_by_freq=False, name=None):
    """Rows of ``weight`` ([num_embeddings, dim]) picked by the integer ids ``x``.

    Output rows for ``padding_idx`` are zeros and that row of ``weight`` gets no gradient;
    a negative ``padding_idx`` counts from the end. ``sparse`` is accepted for
    compatibility; gradients are always dense here.
    """
    num = weight.shape[0]
    if padding_idx is None:
        pad = -1
    else:
        pad = int(padding_idx)
        if not -num <= pad < num:
            raise ValueError(f"embedding: padding_idx must be within [-{num}, {num}), got {padding_idx}")
        if pad < 0:
            pad += num
    if max_norm is not None:
        raise NotImplementedError("embedding: max_norm is not supported in dy2st; renormalise the weight "
                                  "explicitly instead")
    return run_op("lookup_table_v2", x, weight, padding_idx=pad)


@param_alias(x="input")
def one_hot(x, num_classes=-1, name=None):
    """One-hot float32 vectors of length ``num_classes`` for the integer labels ``x``
    (output shape ``x.shape + [num_classes]``); -1 takes ``max(x) + 1`` classes."""
    if isinstance(num_classes, Tensor):
        num_classes = int(num_classes.item())
    elif isinstance(num_classes, numbers.Integral):
        num_classes = int(num_classes)
    else:
        # a static Variable: the depth is known only at run time
        return run_op("one_hot_v2", x, num_classes, depth=-1, dtype=5, allow_out_of_range=False)
    if int(num_classes) < 1 and num_classes != -1:
        raise ValueError(f"one_hot: num_classes must be a positive integer, got {num_classes}")
    return run_op("one_hot_v2", x, None, depth=int(num_classes), dtype=5, allow_out_of_range=False)
