"""paddle.sparse.nn BatchNorm and SyncBatchNorm: batch normalisation of a channel-last COO tensor's values."""
from __future__ import annotations

import warnings

from ....nn.functional.norm import _batch_norm_op
from ....nn.layer.norm import BatchNorm1D
from ...tensor import _SparseBase

__all__ = ["BatchNorm", "SyncBatchNorm"]


def _values_bn(layer, x, is_test, use_global_stats, trainable_statistics):
    if not isinstance(x, _SparseBase) or not x.is_sparse_coo():
        raise NotImplementedError(f"{type(layer).__name__} takes a sparse COO tensor with channels as values")
    y = _batch_norm_op(x.values(), layer._mean, layer._variance, layer.weight, layer.bias, is_test,
                       layer._momentum, layer._epsilon, "NHWC", use_global_stats, trainable_statistics)
    return x._with_values(y)


class BatchNorm(BatchNorm1D):
    """Batch normalisation of a channel-last sparse COO tensor over its stored values [nnz, C].

    As in Paddle, the first call fixes ``use_global_stats`` to ``not self.training`` when it was None,
    so a layer first called in training keeps normalising with batch statistics in eval mode."""
    _formats = ("NDHWC", "NHWC")

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NDHWC", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats,
                         name)

    def _check_data_format(self, fmt):
        if fmt not in ("NDHWC", "NHWC"):
            raise ValueError("sparse BatchNorm only support layout of NDHWC")

    def forward(self, input):
        self._check_data_format(self._data_format)
        if self.training:
            warnings.warn("When training, we now always track global mean and variance.")
        if self._use_global_stats is None:
            self._use_global_stats = not self.training
            trainable_statistics = False
        else:
            trainable_statistics = not self._use_global_stats
        return _values_bn(self, input, not self.training, self._use_global_stats, trainable_statistics)


class SyncBatchNorm(BatchNorm):
    """SyncBatchNorm on one process: batch statistics in training, running statistics in eval."""

    def forward(self, x):
        self._check_data_format(self._data_format)
        return _values_bn(self, x, not self.training, False, False)

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """Replace every sparse BatchNorm under ``layer`` by a SyncBatchNorm sharing its parameters."""
        out = layer
        if isinstance(layer, BatchNorm) and not isinstance(layer, SyncBatchNorm):
            out = SyncBatchNorm(layer._num_features, layer._momentum, layer._epsilon, layer._weight_attr,
                                layer._bias_attr, layer._data_format, layer._use_global_stats, layer._name)
            for name in ("weight", "bias", "_mean", "_variance"):
                setattr(out, name, getattr(layer, name))
        for name, sub in list(layer._sub_layers.items()):
            layer._sub_layers[name] = cls.convert_sync_batchnorm(sub)
        return out
