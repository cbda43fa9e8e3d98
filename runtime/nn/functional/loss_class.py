"""Classification losses of ``paddle.nn.functional`` beyond cross entropy: hsigmoid_loss,
margin_cross_entropy and class_center_sample (each over its Paddle op), and dice_loss, npair_loss,
sigmoid_focal_loss and adaptive_log_softmax_with_loss (composites, step for step as Paddle composes
them, so values, dtypes and gradients agree).

margin_cross_entropy and class_center_sample are single-process: a ``group`` spanning several ranks
raises NotImplementedError. Real Paddle has no CPU kernel for margin_cross_entropy; this one runs on
numpy with the GPU kernel's formula.
"""
from __future__ import annotations

from ...dispatch import run_op
from ...dtype import convert_dtype
from ...ops.linalg import UnsupportedDtypeError
from .loss_sequence import IndexDtypeError

__all__ = ["hsigmoid_loss", "margin_cross_entropy", "class_center_sample", "dice_loss", "npair_loss",
           "sigmoid_focal_loss", "adaptive_log_softmax_with_loss"]


def _paddle():
    import runtime  # late: the functional package is imported while runtime initialises
    return runtime


def _dtype_name(t):
    return convert_dtype(t.dtype).name


def _check_dtype(t, fn, what, allowed):
    """A float input Paddle has no kernel for raises UnsupportedDtypeError (RuntimeError in Paddle's eager
    mode, TypeError in static); an integer input of the wrong width IndexDtypeError (ValueError / TypeError)."""
    name = _dtype_name(t)
    if name not in allowed:
        integer = all(a.startswith("int") for a in allowed) and name.startswith("int")
        cls = IndexDtypeError if integer else UnsupportedDtypeError
        raise cls(f"{fn}: the data type of '{what}' must be one of {list(allowed)}, got {name}")


def _single_process(group, fn):
    """Paddle's ``group`` argument: None (default group) or False (data parallel) or a Group."""
    if not (group is False or group is None or hasattr(group, "is_member")):
        raise ValueError(f"{fn}: expected group is False, None or instance of paddle.distributed.collective.Group "
                         f"(got group: {group})")
    nranks = getattr(group, "nranks", 1) if group not in (None, False) else 1
    if nranks != 1:
        raise NotImplementedError(f"{fn}: only single-process use is supported (the group has {nranks} ranks); "
                                  "pass group=False or run on one process")


# ---- ops with a Paddle op of their own ---------------------------------------------------------

def hsigmoid_loss(input, label, num_classes, weight, bias=None, path_table=None, path_code=None, is_sparse=False,
                  name=None):
    """Hierarchical sigmoid: the cost of each sample's path through a binary tree of classifiers
    (the default complete tree, or ``path_table`` / ``path_code`` for a custom one). Returns [N, 1]."""
    if num_classes < 2:
        raise ValueError(f"Expected num_classes >= 2 (got {num_classes})")
    _check_dtype(input, "hsigmoid_loss", "input", ("float32", "float64"))
    _check_dtype(label, "hsigmoid_loss", "label", ("int64",))
    _check_dtype(weight, "hsigmoid_loss", "weight", ("float32", "float64"))
    if bias is not None:
        _check_dtype(bias, "hsigmoid_loss", "bias", ("float32", "float64"))
    for t, what in ((path_table, "path_table"), (path_code, "path_code")):
        if t is not None:
            _check_dtype(t, "hsigmoid_loss", what, ("int64",))
    if (path_table is None) != (path_code is None):
        raise ValueError("hsigmoid_loss: path_table and path_code must be given together (a custom tree) or both "
                         "be None (the default tree)")
    return run_op("hierarchical_sigmoid", input, weight, label, path_table, path_code, bias,
                  num_classes=int(num_classes), is_sparse=bool(is_sparse))


def margin_cross_entropy(logits, label, margin1=1.0, margin2=0.5, margin3=0.0, scale=64.0, group=None,
                         return_softmax=False, reduction="mean"):
    """Cross entropy of ``scale * (cos(margin1 * theta + margin2) - margin3)`` at the label and
    ``scale * cos(theta)`` elsewhere (ArcFace / CosFace / SphereFace margins); ``logits`` are cosines."""
    paddle = _paddle()
    if reduction not in ("mean", "sum", "none", None):
        raise ValueError(f"margin_cross_entropy: reduction must be 'mean', 'sum', 'none' or None, got {reduction!r}")
    _single_process(group, "margin_cross_entropy")
    if logits.shape[-1] == 0:
        raise ValueError(f"Expected logit_dims[-1] > 0 (got logit_dims {list(logits.shape)})")
    _check_dtype(logits, "margin_cross_entropy", "logits", ("float16", "float32", "float64"))
    _check_dtype(label, "margin_cross_entropy", "label", ("int32", "int64"))
    input_dims, label_dims = len(logits.shape), len(label.shape)
    if input_dims - 1 != label_dims and input_dims != label_dims:
        raise ValueError(f"Expected input_dims - 1 = label_dims or input_dims == label_dims "
                         f"(got input_dims{input_dims}, label_dims{label_dims})")
    if input_dims - 1 == label_dims:
        label = paddle.unsqueeze(label, axis=-1)
    out_dtype = _dtype_name(logits)
    if out_dtype == "float16":
        logits = paddle.cast(logits, "float32")
    softmax, loss = run_op("margin_cross_entropy", logits, label, return_softmax=bool(return_softmax), ring_id=0,
                           rank=0, nranks=1, margin1=float(margin1), margin2=float(margin2),
                           margin3=float(margin3), scale=float(scale))
    if reduction == "mean":
        loss = paddle.mean(loss)
    elif reduction == "sum":
        loss = paddle.sum(loss)
    if out_dtype == "float16":
        softmax, loss = paddle.cast(softmax, out_dtype), paddle.cast(loss, out_dtype)
    return (loss, softmax) if return_softmax else loss


def class_center_sample(label, num_classes, num_samples, group=None):
    """PartialFC's sampling: every positive class centre of ``label`` (sorted) then random negatives
    up to ``num_samples``; returns (label remapped into the sample, the sampled class centres)."""
    _single_process(group, "class_center_sample")
    if num_samples > num_classes:
        raise ValueError(f"Expected num_samples less than or equal to {num_classes}, got num_samples {num_samples}")
    size = 1
    for d in label.shape:
        size *= d
    if size != -1 and size < 1:
        raise ValueError(f"Expected label_size > 0 (got label_size: {size})")
    if len(label.shape) != 1:
        raise ValueError(f"Expected label_dims == 1 (got label_dims: {len(label.shape)})")
    _check_dtype(label, "class_center_sample", "label", ("int32", "int64"))
    from ...static.program import default_main_program
    # as Paddle: a nonzero random_seed on the default main program fixes the op's seed
    seed = int(getattr(default_main_program(), "random_seed", 0) or 0)
    return run_op("class_center_sample", label, num_classes=int(num_classes), num_samples=int(num_samples),
                  ring_id=0, rank=0, nranks=1, fix_seed=seed != 0, seed=seed)


# ---- composites --------------------------------------------------------------------------------

def _assert(cond, message):
    if not cond:
        raise AssertionError(message)    # Paddle checks these with assert statements


def dice_loss(input, label, epsilon=1e-05, name=None):
    """1 - 2 |input * onehot(label)| / (|input| + |onehot(label)|), averaged over the batch."""
    paddle = _paddle()
    F = paddle.nn.functional
    _assert(_dtype_name(input) in ("float32", "float64"), f"dice_loss: input must be float32 or float64, got "
                                                           f"{_dtype_name(input)}")
    _assert(_dtype_name(label) in ("int32", "int64"), f"dice_loss: label must be int32 or int64, got "
                                                       f"{_dtype_name(label)}")
    _assert(len(input.shape) >= 2, "The rank of input should be greater than or equal to 2.")
    _assert(len(input.shape) == len(label.shape), "The rank of input and label should be equal, "
            f"but received input: {len(input.shape)}, label: {len(label.shape)}.")
    _assert(label.shape[-1] == 1, f"The last dimension of label should be 1, but received {label.shape[-1]}.")
    _assert(list(input.shape[:-1]) == list(label.shape[:-1]), "All dimensions should be equal except the last one.")
    label = paddle.squeeze(label, [-1])
    label = F.one_hot(label, input.shape[-1])
    reduce_dim = list(range(1, len(input.shape)))
    inse = paddle.sum(input * label, axis=reduce_dim)
    denominator = paddle.sum(input, axis=reduce_dim) + paddle.sum(label, axis=reduce_dim)
    dice_score = 1 - inse * 2 / (denominator + epsilon)
    return paddle.mean(dice_score)


def npair_loss(anchor, positive, labels, l2_reg=0.002):
    """N-pair loss: soft-label cross entropy over the anchor-positive similarity matrix plus an L2
    penalty (0.25 * l2_reg) on both embeddings. Returns a 0-D tensor."""
    paddle = _paddle()
    if isinstance(anchor, paddle.Tensor) and anchor.size == 0:
        raise ValueError("The dims of anchor should be greater than 0.")
    if isinstance(positive, paddle.Tensor) and positive.size == 0:
        raise ValueError("The dims of positive should be greater than 0.")
    _check_dtype(anchor, "npair_loss", "anchor", ("float32", "float64"))
    _check_dtype(positive, "npair_loss", "positive", ("float32", "float64"))
    _check_dtype(labels, "npair_loss", "labels", ("float32", "float64", "int64"))
    beta = 0.25
    batch_size = labels.shape[0]
    labels = paddle.reshape(labels, shape=[batch_size, 1])
    labels = paddle.tile(labels, repeat_times=[1, batch_size])
    labels = paddle.equal(labels, paddle.transpose(labels, perm=[1, 0])).astype("float32")
    labels = labels / paddle.sum(labels, axis=1, keepdim=True)
    l2loss = paddle.mean(paddle.sum(paddle.square(anchor), 1)) + paddle.mean(paddle.sum(paddle.square(positive), 1))
    l2loss = l2loss * beta * l2_reg
    similarity = paddle.matmul(anchor, positive, transpose_x=False, transpose_y=True)
    softmax_ce = paddle.nn.functional.softmax_with_cross_entropy(similarity, labels, soft_label=True)
    cross_entropy = paddle.sum(labels * softmax_ce, 0)
    return l2loss + paddle.mean(cross_entropy)


def sigmoid_focal_loss(logit, label, normalizer=None, alpha=0.25, gamma=2.0, reduction="sum", name=None):
    """Focal loss over sigmoid probabilities: alpha_t (1 - p_t)^gamma BCE(logit, label), divided by
    ``normalizer`` when given. Default reduction 'sum', as Paddle."""
    paddle = _paddle()
    if reduction not in ("sum", "mean", "none"):
        raise ValueError("The value of 'reduction' in sigmoid_focal_loss should be 'sum', 'mean' or 'none', "
                         f"but received {reduction}, which is not allowed.")
    if normalizer is not None:
        _check_dtype(normalizer, "sigmoid_focal_loss", "normalizer", ("float32", "float64"))
        if len(normalizer.shape) > 1:
            raise ValueError("Expected zero or one dimension of normalizer in sigmoid_focal_loss but got "
                             f"{len(normalizer.shape)}.")
    _check_dtype(logit, "sigmoid_focal_loss", "logit", ("float32", "float64"))
    _check_dtype(label, "sigmoid_focal_loss", "label", ("float32", "float64"))
    one = paddle.ones_like(logit)
    loss = run_op("sigmoid_cross_entropy_with_logits", logit, label, None, normalize=False, ignore_index=-100)
    pred = paddle.nn.functional.sigmoid(logit)
    p_t = pred * label + (one - pred) * (one - label)
    alpha_t = paddle.to_tensor(alpha, dtype=loss.dtype)
    alpha_t = alpha_t * label + (one - alpha_t) * (one - label)
    loss = alpha_t * loss
    gamma_t = paddle.pow(one - p_t, float(gamma))
    loss = gamma_t * loss
    if normalizer is not None:
        loss = paddle.divide(loss, normalizer)
    if reduction == "sum":
        return paddle.sum(loss)
    if reduction == "mean":
        return paddle.mean(loss)
    return loss


def adaptive_log_softmax_with_loss(input, label, head_weight, tail_weights, cutoffs, head_bias=None, name=None):
    """Adaptive softmax (Grave et al.): the head scores the ``cutoffs[0]`` frequent classes plus one
    entry per tail cluster; a tail class's log-probability adds its cluster's head entry to its
    log-probability within the cluster (two projections, ``tail_weights[i]``).
    Returns (per-sample log-probability of the label, mean negative log-likelihood)."""
    paddle = _paddle()
    F = paddle.nn.functional
    target_dim = len(label.shape)
    if target_dim == 1:
        if input.shape[0] != label.shape[0] and label.shape[0] != 0:
            raise ValueError("Input and label should have the same size in the batch dimension.")
        if len(input.shape) != 2:
            raise ValueError(f"1D label tensor expects 2D input tensors, but found inputs with size "
                             f"{list(input.shape)}")
    elif target_dim == 0:
        if len(input.shape) != 1:
            raise ValueError(f"0D label tensor expects 1D input tensors, but found inputs with size "
                             f"{list(input.shape)}")
    else:
        raise ValueError("0D or 1D label tensor expected, multi-label not supported")
    batched = target_dim > 0
    if not batched:
        input, label = input.unsqueeze(0), label.unsqueeze(0)
    batch_size = label.shape[0]
    cutoffs = [int(c) for c in cutoffs]
    bounds = [0, *cutoffs]
    output = paddle.zeros([batch_size], dtype=input.dtype)
    gather_inds = label
    used_rows = 0
    for i in range(len(bounds) - 1):
        low, high = bounds[i], bounds[i + 1]
        mask = (label >= low) & (label < high)
        rows = paddle.nonzero(mask).reshape([-1])
        if rows.shape[0] == 0:
            continue
        used_rows += rows.shape[0]
        if i == 0:
            continue        # head classes: their index in the head is the label itself
        relative = paddle.masked_select(label, mask) - low
        subset = paddle.index_select(input, rows, axis=0)
        cluster = F.linear(F.linear(subset, tail_weights[i - 1][0]), tail_weights[i - 1][1])
        gather_inds = paddle.where(mask, paddle.full_like(label, cutoffs[0] + i - 1), gather_inds)
        local = paddle.take_along_axis(F.log_softmax(cluster, axis=1), relative.unsqueeze(1), axis=1)
        output = output + paddle.scatter_nd(rows.unsqueeze(1), local.squeeze(1), [batch_size])
    if used_rows != batch_size:
        raise ValueError(f"label values should be in [0, n_classes - 1], but values in range "
                         f"[{label.min().item()}, {label.max().item()}] were found. ")
    head_logprob = F.log_softmax(F.linear(input, head_weight, head_bias), axis=1)
    if batch_size:
        output = output + paddle.take_along_axis(head_logprob, gather_inds.unsqueeze(1), axis=1).squeeze(1)
    loss = (-output).mean()
    if not batched:
        output = output.squeeze(0)
    return output, loss
