"""Normalisation layers: BatchNorm (1D/2D/3D and the legacy BatchNorm), LayerNorm, GroupNorm,
InstanceNorm, LocalResponseNorm.

As in Paddle, BatchNorm's running statistics ``_mean`` and ``_variance`` are Parameters with
``trainable=False`` (so they appear in ``parameters()`` and in ``state_dict`` as
``bn._mean`` / ``bn._variance``); F.batch_norm updates them in training mode with
``running = momentum * running + (1 - momentum) * batch``.
"""
from __future__ import annotations

import numbers

import numpy as np

from ...dtype import get_default_dtype
from ...framework import state
from .. import functional as F
from ..functional.norm import _batch_norm_op
from ..initializer import Constant
from ..param_attr import ParamAttr
from .layers import Layer
from ...api.param_alias import param_alias

__all__ = ["BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "SyncBatchNorm", "LayerNorm", "GroupNorm",
           "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D", "LocalResponseNorm"]


def _ndim(x):
    return len(x.shape)


class _BatchNormBase(Layer):
    _formats = ("NCHW", "NHWC")

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", use_global_stats=None, name=None):
        super().__init__()
        if data_format not in self._formats:
            raise ValueError(f"{type(self).__name__}: data_format must be one of {list(self._formats)}, "
                             f"got {data_format!r}")
        self._num_features = num_features
        self._weight_attr = weight_attr
        self._bias_attr = bias_attr
        self._use_global_stats = use_global_stats
        self._dtype = get_default_dtype()
        shape = [num_features]
        if weight_attr is False:
            self.weight = None
        else:
            self.weight = self.create_parameter(shape, attr=weight_attr, dtype=self._dtype,
                                                default_initializer=Constant(1.0))
        if bias_attr is False:
            self.bias = None
        else:
            self.bias = self.create_parameter(shape, attr=bias_attr, dtype=self._dtype, is_bias=True)
        self._mean = self.create_parameter(shape, dtype=self._dtype,
                                           attr=ParamAttr(initializer=Constant(0.0), trainable=False,
                                                          do_model_average=True))
        self._mean.stop_gradient = True
        self._variance = self.create_parameter(shape, dtype=self._dtype,
                                               attr=ParamAttr(initializer=Constant(1.0), trainable=False,
                                                              do_model_average=True))
        self._variance.stop_gradient = True
        self._data_format = data_format
        self._in_place = False
        self._momentum = momentum
        self._epsilon = epsilon
        self._fuse_with_relu = False
        self._name = name

    def _check_input_dim(self, input):
        pass

    def forward(self, input):
        self._check_input_dim(input)
        return F.batch_norm(input, self._mean, self._variance, weight=self.weight, bias=self.bias,
                            training=self.training, momentum=self._momentum, epsilon=self._epsilon,
                            data_format=self._data_format, use_global_stats=self._use_global_stats)

    def extra_repr(self):
        s = f"num_features={self._num_features}, momentum={self._momentum}, epsilon={self._epsilon}"
        if self._data_format != "NCHW":
            s += f", data_format={self._data_format}"
        if self._name is not None:
            s += f", name={self._name}"
        return s


class BatchNorm1D(_BatchNormBase):
    """Batch normalisation over ``[N, C]`` or ``[N, C, L]`` input (``data_format`` NC, NCL or NLC)."""
    _formats = ("NC", "NCL", "NLC")

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCL", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats,
                         name)

    def _check_input_dim(self, input):
        if _ndim(input) not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {_ndim(input)}D input)")


class BatchNorm2D(_BatchNormBase):
    """Batch normalisation over ``[N, C, H, W]`` input, per channel."""

    def _check_input_dim(self, input):
        if _ndim(input) != 4:
            raise ValueError(f"expected 4D input (got {_ndim(input)}D input)")


class BatchNorm3D(_BatchNormBase):
    _formats = ("NCDHW", "NDHWC")

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCDHW", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats,
                         name)

    def _check_input_dim(self, input):
        if _ndim(input) != 5:
            raise ValueError(f"expected 5D input (got {_ndim(input)}D input)")


class SyncBatchNorm(_BatchNormBase):
    """On one CPU process this is BatchNorm over any ``[N, C, ...]`` input."""
    _formats = ("NCHW", "NHWC", "NC", "NCL", "NLC", "NCDHW", "NDHWC")

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        return layer


class BatchNorm(Layer):
    """Paddle's legacy batch norm (``paddle.nn.BatchNorm``), with an optional activation ``act``."""

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
                 bias_attr=None, dtype="float32", data_layout="NCHW", in_place=False, moving_mean_name=None,
                 moving_variance_name=None, do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        super().__init__()
        self._param_attr = param_attr
        self._bias_attr = bias_attr
        self._act = act
        self._use_global_stats = use_global_stats
        self._dtype = dtype
        shape = [num_channels]
        if param_attr is False:
            self.weight = None
        else:
            self.weight = self.create_parameter(shape, attr=param_attr, dtype=dtype, default_initializer=Constant(1.0))
        if bias_attr is False:
            self.bias = None
        else:
            self.bias = self.create_parameter(shape, attr=bias_attr, dtype=dtype, is_bias=True)
        self._mean = self.create_parameter(shape, dtype=dtype, attr=ParamAttr(
            name=moving_mean_name, initializer=Constant(0.0), trainable=False,
            do_model_average=do_model_average_for_mean_and_var))
        self._mean.stop_gradient = True
        self._variance = self.create_parameter(shape, dtype=dtype, attr=ParamAttr(
            name=moving_variance_name, initializer=Constant(1.0), trainable=False,
            do_model_average=do_model_average_for_mean_and_var))
        self._variance.stop_gradient = True
        self._in_place = in_place
        self._data_layout = data_layout
        self._momentum = momentum
        self._epsilon = epsilon
        self._is_test = is_test
        self._fuse_with_relu = False
        self._trainable_statistics = trainable_statistics

    def forward(self, input):
        # Paddle's layer calls the op itself with is_test = not training and its own
        # trainable_statistics (False by default): going through F.batch_norm with
        # use_global_stats=False would turn trainable_statistics on and normalise eval
        # batches with their own statistics. In a static program Paddle reads the
        # constructor's is_test instead; honouring either keeps eval-mode tracing and
        # static scripts that pass is_test=True on the running statistics.
        is_test = not self.training or (self._is_test and state.static)
        out = _batch_norm_op(input, self._mean, self._variance, self.weight, self.bias, is_test,
                             self._momentum, self._epsilon, self._data_layout, self._use_global_stats,
                             self._trainable_statistics)
        if self._act is None:
            return out
        act = getattr(F, self._act, None)
        if act is None:
            raise ValueError(f"BatchNorm: unknown activation act={self._act!r}")
        return act(out)


class LayerNorm(Layer):
    """Normalises over the trailing ``normalized_shape`` dimensions; weight and bias have
    ``prod(normalized_shape)`` elements (Paddle's flat layout)."""

    @param_alias(epsilon="eps")
    def __init__(self, normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None, name=None, *,
                 elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = [int(normalized_shape)]
        self._normalized_shape = list(normalized_shape)
        self._epsilon = epsilon
        self._weight_attr = weight_attr
        self._bias_attr = bias_attr
        self._dtype = get_default_dtype() if dtype is None else dtype
        param_shape = [int(np.prod(self._normalized_shape))]
        if weight_attr is False or not elementwise_affine:
            self.weight = None
        else:
            self.weight = self.create_parameter(param_shape, attr=weight_attr, dtype=self._dtype,
                                                default_initializer=Constant(1.0))
        if bias_attr is False or not elementwise_affine or not bias:
            self.bias = None
        else:
            self.bias = self.create_parameter(param_shape, attr=bias_attr, dtype=self._dtype, is_bias=True)
        self._name = name

    def forward(self, input):
        return F.layer_norm(input, normalized_shape=self._normalized_shape, weight=self.weight, bias=self.bias,
                            epsilon=self._epsilon)

    def extra_repr(self):
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


class GroupNorm(Layer):
    """Normalises each of ``num_groups`` channel groups of each sample."""

    @param_alias(epsilon="eps")
    def __init__(self, num_groups, num_channels, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None, *, affine=True, device=None, dtype=None):
        super().__init__()
        if num_groups <= 0 or num_channels % num_groups != 0:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self._num_groups = num_groups
        self._num_channels = num_channels
        self._epsilon = epsilon
        self._weight_attr = weight_attr
        self._bias_attr = bias_attr
        self._data_format = data_format
        self._dtype = get_default_dtype() if dtype is None else dtype
        shape = [num_channels]
        if weight_attr is False or not affine:
            self.weight = None
        else:
            self.weight = self.create_parameter(shape, attr=weight_attr, dtype=self._dtype,
                                                default_initializer=Constant(1.0))
        if bias_attr is False or not affine:
            self.bias = None
        else:
            self.bias = self.create_parameter(shape, attr=bias_attr, dtype=self._dtype, is_bias=True)
        self._name = name

    def forward(self, input):
        return F.group_norm(input, num_groups=self._num_groups, epsilon=self._epsilon, weight=self.weight,
                            bias=self.bias, data_format=self._data_format)

    def extra_repr(self):
        return f"num_groups={self._num_groups}, num_channels={self._num_channels}, epsilon={self._epsilon}"


class _InstanceNormBase(Layer):
    _default_format = "NCHW"

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format=None, name=None):
        super().__init__()
        self._epsilon = epsilon
        self._weight_attr = weight_attr
        self._bias_attr = bias_attr
        self._num_features = num_features
        self._momentum = momentum
        self._data_format = data_format or self._default_format
        self._dtype = get_default_dtype()
        if weight_attr is not False and bias_attr is not False:
            self.scale = self.create_parameter([num_features], attr=weight_attr, dtype=self._dtype,
                                               default_initializer=Constant(1.0))
            self.bias = self.create_parameter([num_features], attr=bias_attr, dtype=self._dtype, is_bias=True)
        else:
            self.scale = None
            self.bias = None
        self._name = name

    _input_ranks = ()        # the ranks the subclass accepts (InstanceNorm1D: 2 or 3, 2D: 4, 3D: 5)

    def forward(self, input):
        if self._input_ranks and len(input.shape) not in self._input_ranks:
            raise ValueError(f"{type(self).__name__}: expected a {' or '.join(f'{r}D' for r in self._input_ranks)} "
                             f"input, got {len(input.shape)}D input of shape {list(input.shape)}")
        return F.instance_norm(input, weight=self.scale, bias=self.bias, eps=self._epsilon,
                               data_format=self._data_format)

    def extra_repr(self):
        return f"num_features={self._num_features}, epsilon={self._epsilon}"


class InstanceNorm1D(_InstanceNormBase):
    _default_format = "NCL"
    _input_ranks = (2, 3)

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format="NCL", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name)


class InstanceNorm2D(_InstanceNormBase):
    """Normalises each channel of each sample over its spatial dimensions (params ``scale``, ``bias``)."""
    _input_ranks = (4,)

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name)


class InstanceNorm3D(_InstanceNormBase):
    _default_format = "NCDHW"
    _input_ranks = (5,)

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format="NCDHW", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name)


class LocalResponseNorm(Layer):
    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k
        self.data_format = data_format
        self.name = name

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k, self.data_format, self.name)

    def extra_repr(self):
        s = f"size={self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
        if self.data_format != "NCHW":
            s += f", data_format={self.data_format}"
        if self.name is not None:
            s += f", name={self.name}"
        return s
