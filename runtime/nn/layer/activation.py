"""Activation layers: thin Layer wrappers over the activation functions in nn.functional."""
from __future__ import annotations

from ...dtype import get_default_dtype
from .. import functional as F
from ..initializer import Constant
from .layers import Layer
from ...api.param_alias import forward_alias, param_alias

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "PReLU", "ELU", "CELU", "SELU", "GELU", "Sigmoid", "LogSigmoid",
           "Hardsigmoid", "Tanh", "Hardtanh", "Tanhshrink", "Hardshrink", "Softshrink", "Softsign", "Softplus",
           "Softmax", "LogSoftmax", "Softmax2D", "Silu", "Swish", "Mish", "Hardswish", "ThresholdedReLU", "GLU",
           "Maxout"]


class _Activation(Layer):
    """An activation with no state but an optional ``name`` shown in its repr."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def _name_str(self, first=False):
        if not self._name:
            return ""
        return ("" if first else ", ") + f"name={self._name}"

    def extra_repr(self):
        return self._name_str(first=True)


class ReLU(_Activation):
    """max(x, 0)."""

    def forward(self, x):
        return F.relu(x, self._name)


class ReLU6(_Activation):
    """min(max(x, 0), 6)."""

    def forward(self, x):
        return F.relu6(x, self._name)


class LeakyReLU(_Activation):
    """x for x >= 0, ``negative_slope`` * x otherwise."""

    def __init__(self, negative_slope=0.01, name=None):
        super().__init__(name)
        self._negative_slope = negative_slope

    def forward(self, x):
        return F.leaky_relu(x, self._negative_slope, self._name)

    def extra_repr(self):
        return f"negative_slope={self._negative_slope}" + self._name_str()


class PReLU(Layer):
    """Leaky ReLU with a learned slope per channel (``num_parameters`` = 1 or C), parameter ``_weight``."""

    def __init__(self, num_parameters=1, init=0.25, weight_attr=None, data_format="NCHW", name=None):
        super().__init__()
        self._num_parameters = num_parameters
        self._init = init
        self._weight_attr = weight_attr
        self._name = name
        self._data_format = data_format
        self._dtype = get_default_dtype()
        self._weight = self.create_parameter([num_parameters], attr=weight_attr, dtype=self._dtype,
                                             is_bias=False, default_initializer=Constant(init))

    def forward(self, x):
        return F.prelu(x, self._weight, data_format=self._data_format, name=self._name)

    def extra_repr(self):
        name_str = f", name={self._name}" if self._name else ""
        return (f"num_parameters={self._num_parameters}, data_format={self._data_format}, init={self._init}, "
                f"dtype={self._dtype}{name_str}")


class ELU(_Activation):
    def __init__(self, alpha=1.0, name=None):
        super().__init__(name)
        self._alpha = alpha

    def forward(self, x):
        return F.elu(x, self._alpha, self._name)

    def extra_repr(self):
        return f"alpha={self._alpha}" + self._name_str()


class CELU(_Activation):
    def __init__(self, alpha=1.0, name=None):
        super().__init__(name)
        self._alpha = alpha

    def forward(self, x):
        return F.celu(x, self._alpha, self._name)

    def extra_repr(self):
        return f"alpha={self._alpha}" + self._name_str()


class SELU(_Activation):
    def __init__(self, scale=1.0507009873554804934193349852946, alpha=1.6732632423543772848170429916717, name=None):
        super().__init__(name)
        self._scale = scale
        self._alpha = alpha

    def forward(self, x):
        return F.selu(x, self._scale, self._alpha, self._name)

    def extra_repr(self):
        return f"scale={self._scale}, alpha={self._alpha}" + self._name_str()


class GELU(_Activation):
    """Gaussian error linear unit (``approximate`` uses the tanh formula)."""

    def __init__(self, approximate=False, name=None):
        super().__init__(name)
        self._approximate = approximate

    def forward(self, x):
        return F.gelu(x, self._approximate, self._name)

    def extra_repr(self):
        return f"approximate={self._approximate}" + self._name_str()


class Sigmoid(_Activation):
    """1 / (1 + exp(-x))."""

    def forward(self, x):
        return F.sigmoid(x, self._name)


class LogSigmoid(_Activation):
    def forward(self, x):
        return F.log_sigmoid(x, self._name)


class Hardsigmoid(_Activation):
    """clip(x / 6 + 1/2, 0, 1)."""

    def forward(self, x):
        return F.hardsigmoid(x, name=self._name)


class Tanh(_Activation):
    def forward(self, x):
        return F.tanh(x, self._name)


class Hardtanh(_Activation):
    def __init__(self, min=-1.0, max=1.0, name=None):
        super().__init__(name)
        self._min = min
        self._max = max

    def forward(self, x):
        return F.hardtanh(x, self._min, self._max, self._name)

    def extra_repr(self):
        return f"min={self._min}, max={self._max}" + self._name_str()


class Tanhshrink(_Activation):
    def forward(self, x):
        return F.tanhshrink(x, self._name)


class Hardshrink(_Activation):
    @param_alias(threshold="lambd")
    def __init__(self, threshold=0.5, name=None):
        super().__init__(name)
        self._threshold = threshold

    @forward_alias(x="input")
    def forward(self, x):
        return F.hardshrink(x, self._threshold, self._name)

    def extra_repr(self):
        return f"threshold={self._threshold}" + self._name_str()


class Softshrink(Hardshrink):
    @forward_alias(x="input")
    def forward(self, x):
        return F.softshrink(x, self._threshold, self._name)


class Softsign(_Activation):
    def forward(self, x):
        return F.softsign(x, self._name)


class Softplus(_Activation):
    """log(1 + exp(beta * x)) / beta, linear above ``threshold``."""

    def __init__(self, beta=1, threshold=20, name=None):
        super().__init__(name)
        self._beta = beta
        self._threshold = threshold

    def forward(self, x):
        return F.softplus(x, self._beta, self._threshold, self._name)

    def extra_repr(self):
        return f"beta={self._beta}, threshold={self._threshold}" + self._name_str()


class Softmax(_Activation):
    """exp(x) / sum(exp(x)) along ``axis``."""

    def __init__(self, axis=-1, name=None):
        super().__init__(name)
        self._axis = axis
        self._dtype = None

    def forward(self, x):
        return F.softmax(x, self._axis, name=self._name)

    def extra_repr(self):
        return f"axis={self._axis}" + self._name_str()


class LogSoftmax(Softmax):
    """log(softmax(x)) along ``axis``, computed stably."""

    def forward(self, x):
        return F.log_softmax(x, self._axis, name=self._name)


class Softmax2D(_Activation):
    """Softmax over the channel axis of ``[N, C, H, W]`` or ``[C, H, W]`` input."""

    def forward(self, x):
        if len(x.shape) not in (3, 4):
            raise ValueError(f"Softmax2D: expected a 3-D or 4-D input, got {len(x.shape)}-D")
        return F.softmax(x, axis=-3, name=self._name)


class Silu(_Activation):
    """x * sigmoid(x)."""

    def __init__(self, inplace=False, name=None):
        super().__init__(name)
        self._inplace = inplace

    def forward(self, x):
        return F.silu(x, name=self._name)

    def extra_repr(self):
        return f"inplace={self._inplace}" + self._name_str()


class Swish(_Activation):
    def forward(self, x):
        return F.swish(x, self._name)


class Mish(_Activation):
    def forward(self, x):
        return F.mish(x, self._name)


class Hardswish(_Activation):
    """x * relu6(x + 3) / 6."""

    def forward(self, x):
        return F.hardswish(x, self._name)


class ThresholdedReLU(_Activation):
    def __init__(self, threshold=1.0, value=0.0, name=None):
        super().__init__(name)
        self._threshold = threshold
        self._value = value

    def forward(self, x):
        return F.thresholded_relu(x, self._threshold, self._value, self._name)

    def extra_repr(self):
        return f"threshold={self._threshold}, value={self._value}" + self._name_str()


class GLU(_Activation):
    @param_alias(axis="dim")
    def __init__(self, axis=-1, name=None):
        super().__init__(name)
        self._axis = axis

    @forward_alias(x="input")
    def forward(self, x):
        return F.glu(x, self._axis, self._name)

    def extra_repr(self):
        return f"axis={self._axis}" + self._name_str()


class Maxout(_Activation):
    def __init__(self, groups, axis=1, name=None):
        super().__init__(name)
        self._groups = groups
        self._axis = axis

    def forward(self, x):
        return F.maxout(x, self._groups, self._axis, self._name)

    def extra_repr(self):
        return f"groups={self._groups}, axis={self._axis}" + self._name_str()
