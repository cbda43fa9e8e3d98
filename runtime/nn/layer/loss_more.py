"""Layers over the sequence and classification losses of ``functional/loss_sequence.py`` and
``functional/loss_class.py``: CTCLoss, RNNTLoss, HSigmoidLoss, AdaptiveLogSoftmaxWithLoss.

Parameter shapes and names follow Paddle, quirks included: AdaptiveLogSoftmaxWithLoss keeps its
tail projections in a plain list ``tail_weights`` (so, as in Paddle, they are not registered
parameters and not in ``state_dict``), and HSigmoidLoss prints Paddle's sparse-mode notice.
"""
from __future__ import annotations

from .. import functional as F
from .layers import Layer

__all__ = ["CTCLoss", "RNNTLoss", "HSigmoidLoss", "AdaptiveLogSoftmaxWithLoss"]


def _paddle():
    import runtime  # late: layers are imported while runtime initialises
    return runtime


class CTCLoss(Layer):
    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        self.blank = blank
        self.reduction = reduction
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times=False):
        return F.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank, self.reduction,
                          norm_by_times=norm_by_times, zero_infinity=self.zero_infinity)


class RNNTLoss(Layer):
    def __init__(self, blank=0, fastemit_lambda=0.001, reduction="mean", name=None):
        super().__init__()
        self.blank = blank
        self.reduction = reduction
        self.fastemit_lambda = fastemit_lambda
        self.name = name

    def forward(self, input, label, input_lengths, label_lengths):
        return F.rnnt_loss(input, label, input_lengths, label_lengths, blank=self.blank,
                           fastemit_lambda=self.fastemit_lambda, reduction=self.reduction, name=self.name)


class HSigmoidLoss(Layer):
    def __init__(self, feature_size, num_classes, weight_attr=None, bias_attr=None, is_custom=False,
                 is_sparse=False, name=None):
        super().__init__()
        if num_classes < 2 and not is_custom:
            raise ValueError("num_classes must not be less than 2 with default tree")
        if not is_custom and is_sparse:
            print("Sparse mode should not be used without custom tree")
            is_sparse = False
        self._feature_size = feature_size
        self._num_classes = num_classes
        self._is_custom = is_custom
        self._is_sparse = is_sparse
        self._weight_attr = weight_attr
        self._bias_attr = bias_attr
        self._name = name
        self._dtype = _paddle().get_default_dtype()
        print("With sparse mode, if your models has only small parameter prefetch may cause speed down")
        rows = num_classes if is_custom else num_classes - 1
        self.weight = self.create_parameter([rows, feature_size], attr=weight_attr, is_bias=False, dtype=self._dtype)
        self.bias = self.create_parameter([rows, 1], attr=bias_attr, is_bias=True, dtype=self._dtype)

    def forward(self, input, label, path_table=None, path_code=None):
        return F.hsigmoid_loss(input, label, self._num_classes, self.weight, self.bias, path_table=path_table,
                               path_code=path_code, is_sparse=self._is_sparse, name=self._name)


class AdaptiveLogSoftmaxWithLoss(Layer):
    def __init__(self, in_features, n_classes, cutoffs, weight_attr=None, bias_attr=None, div_value=4.0,
                 head_bias=False, name=None):
        super().__init__()
        self._dtype = _paddle().get_default_dtype()
        cutoffs = list(cutoffs)
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = [*cutoffs, n_classes]
        self.div_value = div_value
        self._weight_attr = weight_attr
        self._bias_attr = bias_attr
        self.is_head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head_weight = self.create_parameter([in_features, self.head_size], attr=weight_attr, dtype=self._dtype,
                                                 is_bias=False)
        if head_bias:
            self.head_bias = self.create_parameter([self.head_size], attr=bias_attr, dtype=self._dtype, is_bias=True)
        else:
            self.head_bias = None
        self.tail_weights = []
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail_weights.append([
                self.create_parameter([in_features, hsz], attr=weight_attr, dtype=self._dtype, is_bias=False),
                self.create_parameter([hsz, osz], attr=weight_attr, dtype=self._dtype, is_bias=False)])

    def forward(self, input, label):
        return F.adaptive_log_softmax_with_loss(input, label, self.head_weight, self.tail_weights, self.cutoffs,
                                                self.head_bias)

    def _get_full_log_prob(self, input, head_output):
        paddle = _paddle()
        head_logprob = F.log_softmax(head_output, axis=1)
        pieces = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster = F.linear(F.linear(input, self.tail_weights[i][0]), self.tail_weights[i][1])
            pieces.append(F.log_softmax(cluster, axis=1)
                          + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        # Paddle writes the pieces into paddle.empty(...), a tensor of the default dtype
        return paddle.concat(pieces, axis=1).astype(paddle.get_default_dtype())

    def log_prob(self, input):
        """Log-probabilities of every class, [N, n_classes]."""
        head_output = F.linear(input, self.head_weight, self.head_bias)
        return self._get_full_log_prob(input, head_output)

    def predict(self, input):
        """The most likely class of each row (float32 when every row's best head entry is a
        shortlist class, as Paddle returns it)."""
        paddle = _paddle()
        head_output = F.linear(input, self.head_weight, self.head_bias)
        output = paddle.argmax(head_output, axis=1).cast("float32")
        not_in_shortlist = output >= self.shortlist_size
        if not bool(not_in_shortlist.any()):
            return output
        if bool(not_in_shortlist.all()):
            return paddle.argmax(self._get_full_log_prob(input, head_output), axis=1)
        log_prob = self._get_full_log_prob(input[not_in_shortlist], head_output[not_in_shortlist])
        indices = paddle.masked_select(paddle.arange(not_in_shortlist.shape[0]), not_in_shortlist)
        return paddle.scatter(output, indices, paddle.argmax(log_prob, axis=1).cast("float32"))
