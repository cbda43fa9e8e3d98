"""Common layers: Linear, Embedding, Dropout, Flatten, Identity, Upsample, padding, Unflatten."""
from __future__ import annotations

import numpy as np

import runtime as paddle  # the package itself: top-level ops (flatten, unflatten) resolved at call time
from ...dtype import get_default_dtype
from ...framework import no_grad
from .. import functional as F
from .layers import Layer
from ...api.param_alias import forward_alias, param_alias

__all__ = ["Linear", "Embedding", "Dropout", "Dropout2D", "Dropout3D", "AlphaDropout", "Flatten", "Unflatten",
           "Identity", "Upsample", "UpsamplingNearest2D", "UpsamplingBilinear2D", "Pad1D", "Pad2D", "Pad3D",
           "ZeroPad2D", "CosineSimilarity", "PixelShuffle", "Bilinear"]


def _check_positive_int(value, name, where):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{where}: {name} must be a positive int, got {value!r}")
    return int(value)


class Linear(Layer):
    """``y = x @ weight + bias`` with ``weight`` of shape ``[in_features, out_features]``."""

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        in_features = _check_positive_int(in_features, "in_features", "Linear")
        out_features = _check_positive_int(out_features, "out_features", "Linear")
        self._dtype = get_default_dtype()
        self._weight_attr = weight_attr
        self._bias_attr = bias_attr
        self.weight = self.create_parameter(shape=[in_features, out_features], attr=weight_attr,
                                            dtype=self._dtype, is_bias=False)
        self.bias = self.create_parameter(shape=[out_features], attr=bias_attr, dtype=self._dtype, is_bias=True)
        self.name = name

    def forward(self, input):
        return F.linear(input, self.weight, self.bias, name=self.name)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return (f"in_features={self.weight.shape[0]}, out_features={self.weight.shape[1]}, "
                f"dtype={self._dtype}{name_str}")


class Embedding(Layer):
    """A lookup table of ``num_embeddings`` vectors of size ``embedding_dim``; row
    ``padding_idx`` (if given) starts at zero and gets no gradient."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0, sparse=False,
                 weight_attr=None, name=None, *, scale_grad_by_freq=False, _weight=None, _freeze=False,
                 device=None, dtype=None):
        super().__init__()
        self._num_embeddings = _check_positive_int(num_embeddings, "num_embeddings", "Embedding")
        self._embedding_dim = _check_positive_int(embedding_dim, "embedding_dim", "Embedding")
        self._sparse = sparse
        self._max_norm = max_norm
        self._norm_type = norm_type
        self._scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"Embedding: padding_idx must be within [-{num_embeddings}, {num_embeddings}), "
                                 f"got {padding_idx}")
        self._padding_idx = padding_idx
        self._dtype = get_default_dtype() if dtype is None else dtype
        self._weight_attr = weight_attr
        self._name = name
        shape = [self._num_embeddings, self._embedding_dim]
        if _weight is not None:
            if list(_weight.shape) != shape:
                raise ValueError(f"Embedding: _weight must have shape {shape}, got {list(_weight.shape)}")
            from ..initializer import Assign
            self.weight = self.create_parameter(shape, attr=weight_attr, dtype=self._dtype,
                                                default_initializer=Assign(_weight))
        else:
            self.weight = self.create_parameter(shape, attr=weight_attr, dtype=self._dtype, is_bias=False)
        if padding_idx is not None and not _in_static():
            with no_grad():
                self.weight._data[self._norm_padding_idx()] = 0
        if _freeze:
            self.weight.stop_gradient = True

    def _norm_padding_idx(self):
        if self._padding_idx is None:
            return None
        return self._padding_idx + self._num_embeddings if self._padding_idx < 0 else self._padding_idx

    @forward_alias(x="input")
    def forward(self, x):
        return F.embedding(x, weight=self.weight, padding_idx=self._norm_padding_idx(), max_norm=self._max_norm,
                           norm_type=self._norm_type, sparse=self._sparse,
                           scale_grad_by_freq=self._scale_grad_by_freq, name=self._name)

    def extra_repr(self):
        s = f"{self._num_embeddings}, {self._embedding_dim}"
        if self._padding_idx is not None:
            s += f", padding_idx={self._padding_idx}"
        if self._max_norm is not None:
            s += f", max_norm={self._max_norm}"
        if self._norm_type != 2.0:
            s += f", norm_type={self._norm_type}"
        s += f", sparse={self._sparse}, scale_grad_by_freq={self._scale_grad_by_freq}"
        if self._name is not None:
            s += f", name={self._name}"
        return s


def _in_static():
    from ...framework import state
    return state.static


class Dropout(Layer):
    """Zeroes elements with probability ``p`` while training (``upscale_in_train`` scales the
    rest by 1/(1-p)); the identity in eval mode (``downscale_in_infer`` scales by 1-p there)."""

    def __init__(self, p=0.5, inplace=False, axis=None, mode="upscale_in_train", name=None):
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, (int, float, np.floating)):
            raise TypeError(f"Dropout: p must be a float, got {type(p).__name__}")
        if not 0 <= p <= 1:
            raise ValueError(f"Dropout: p must be between 0 and 1, got {p}")
        if mode not in ("upscale_in_train", "downscale_in_infer"):
            raise ValueError(f"Dropout: mode must be 'upscale_in_train' or 'downscale_in_infer', got {mode!r}")
        self.p = p
        self.inplace = inplace
        self.axis = axis
        self.mode = mode
        self.name = name

    def forward(self, input):
        return F.dropout(input, p=self.p, axis=self.axis, training=self.training, mode=self.mode, name=self.name)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return f"p={self.p}, axis={self.axis}, mode={self.mode}, inplace={self.inplace}{name_str}"


class Dropout2D(Layer):
    """Zeroes whole channels of an NCHW/NHWC input with probability ``p`` while training."""

    def __init__(self, p=0.5, data_format="NCHW", name=None):
        super().__init__()
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"Dropout2D: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
        self.p = p
        self.data_format = data_format
        self.name = name

    def forward(self, input):
        return F.dropout2d(input, p=self.p, training=self.training, data_format=self.data_format, name=self.name)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return f"p={self.p}, data_format={self.data_format}{name_str}"


class Dropout3D(Layer):
    def __init__(self, p=0.5, data_format="NCDHW", name=None):
        super().__init__()
        self.p = p
        self.data_format = data_format
        self.name = name

    def forward(self, input):
        return F.dropout3d(input, p=self.p, training=self.training, data_format=self.data_format, name=self.name)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return f"p={self.p}, data_format={self.data_format}{name_str}"


class AlphaDropout(Layer):
    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p = p
        self.name = name

    def forward(self, input):
        return F.alpha_dropout(input, p=self.p, training=self.training, name=self.name)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return f"p={self.p}{name_str}"


class Flatten(Layer):
    """Flattens dimensions ``start_axis`` .. ``stop_axis`` into one."""

    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__()
        self.start_axis = start_axis
        self.stop_axis = stop_axis

    def forward(self, input):
        return paddle.flatten(input, start_axis=self.start_axis, stop_axis=self.stop_axis)


class Unflatten(Layer):
    """Splits dimension ``axis`` into ``shape``."""

    def __init__(self, axis, shape, name=None):
        super().__init__()
        self.axis = axis
        self.shape = shape
        self.name = name

    def forward(self, input):
        return paddle.unflatten(input, axis=self.axis, shape=self.shape, name=self.name)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return f"axis={self.axis}, shape={self.shape}{name_str}"


class Identity(Layer):
    """Returns its input unchanged (accepts and ignores any constructor arguments)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Upsample(Layer):
    """Resizes to ``size`` or by ``scale_factor`` (``F.interpolate``)."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0,
                 data_format=None, recompute_scale_factor=None, name=None):
        super().__init__()
        self.size = size
        self.scale_factor = scale_factor
        self.mode = mode.lower()
        self.align_corners = align_corners
        self.align_mode = align_mode
        self.data_format = data_format
        self.recompute_scale_factor = recompute_scale_factor
        self.name = name

    def forward(self, x):
        return F.interpolate(x, size=self.size, scale_factor=self.scale_factor, mode=self.mode,
                             align_corners=self.align_corners, align_mode=self.align_mode,
                             data_format=self.data_format, recompute_scale_factor=self.recompute_scale_factor,
                             name=self.name)

    def extra_repr(self):
        if self.scale_factor is not None:
            s = f"scale_factor={self.scale_factor}"
        else:
            s = f"size={self.size}"
        name_str = f", name={self.name}" if self.name else ""
        return (f"{s}, mode={self.mode}, align_corners={self.align_corners}, align_mode={self.align_mode}, "
                f"data_format={self.data_format}{name_str}")


class UpsamplingNearest2D(Layer):
    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__()
        self.size = size
        self.scale_factor = scale_factor
        self.data_format = data_format
        self.name = name

    @forward_alias(x="input")
    def forward(self, x):
        return F.interpolate(x, size=self.size, scale_factor=self.scale_factor, mode="nearest",
                             align_corners=False, align_mode=0, data_format=self.data_format, name=self.name)

    def extra_repr(self):
        s = f"scale_factor={self.scale_factor}" if self.scale_factor is not None else f"size={self.size}"
        name_str = f", name={self.name}" if self.name else ""
        return f"{s}, data_format={self.data_format}{name_str}"


class UpsamplingBilinear2D(UpsamplingNearest2D):
    @forward_alias(x="input")
    def forward(self, x):
        return F.interpolate(x, size=self.size, scale_factor=self.scale_factor, mode="bilinear",
                             align_corners=True, align_mode=0, data_format=self.data_format, name=self.name)


class _PadNd(Layer):
    _n = 2
    _default_format = "NCHW"

    def __init__(self, padding, mode="constant", value=0.0, data_format=None, name=None):
        super().__init__()
        if isinstance(padding, (int, np.integer)):
            padding = [int(padding)] * (2 * self._n)
        self._pad = padding
        self._mode = mode
        self._value = value
        self._data_format = data_format or self._default_format
        self._name = name

    def forward(self, x=None, input=None):   # ``input=`` is Paddle's alias of ``x`` (@param_one_alias)
        if x is None:
            if input is None:
                raise TypeError(f"{type(self).__name__}.forward() missing 1 required positional argument: 'x'")
            x = input
        return F.pad(x, pad=self._pad, mode=self._mode, value=self._value, data_format=self._data_format,
                     name=self._name)

    def extra_repr(self):
        name_str = f", name={self._name}" if self._name else ""
        return f"padding={self._pad}, mode={self._mode}, value={self._value}, data_format={self._data_format}{name_str}"


class Pad1D(_PadNd):
    _n = 1
    _default_format = "NCL"

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCL", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad2D(_PadNd):
    """Pads the last two dimensions by ``padding`` ([left, right, top, bottom] or one int)."""

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad3D(_PadNd):
    _n = 3
    _default_format = "NCDHW"

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCDHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


class ZeroPad2D(_PadNd):
    def __init__(self, padding, data_format="NCHW", name=None):
        super().__init__(padding, "constant", 0.0, data_format, name)


class CosineSimilarity(Layer):
    @param_alias(axis="dim")
    def __init__(self, axis=1, eps=1e-8):
        super().__init__()
        self._axis = axis
        self._eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, axis=self._axis, eps=self._eps)

    def extra_repr(self):
        return f"axis={self._axis}, eps={self._eps}"


class PixelShuffle(Layer):
    def __init__(self, upscale_factor, data_format="NCHW", name=None):
        super().__init__()
        self._upscale_factor = upscale_factor
        self._data_format = data_format
        self._name = name

    def forward(self, x):
        return F.pixel_shuffle(x, self._upscale_factor, self._data_format, self._name)

    def extra_repr(self):
        s = f"upscale_factor={self._upscale_factor}"
        if self._data_format != "NCHW":
            s += f", data_format={self._data_format}"
        if self._name is not None:
            s += f", name={self._name}"
        return s


class Bilinear(Layer):
    """``out[:, k] = x1 @ weight[k] @ x2^T + bias[k]``, weight ``[out_features, in1, in2]``."""

    def __init__(self, in1_features, in2_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self._in1_features = in1_features
        self._in2_features = in2_features
        self._out_features = out_features
        self._dtype = get_default_dtype()
        self.weight = self.create_parameter([out_features, in1_features, in2_features], attr=weight_attr,
                                            dtype=self._dtype, is_bias=False)
        self.bias = self.create_parameter([1, out_features], attr=bias_attr, dtype=self._dtype, is_bias=True)
        self._name = name

    def forward(self, x1, x2):
        return F.bilinear(x1, x2, self.weight, self.bias, self._name)

    def extra_repr(self):
        name_str = f", name={self._name}" if self._name else ""
        return (f"in1_features={self._in1_features}, in2_features={self._in2_features}, "
                f"out_features={self._out_features}, dtype={self._dtype}{name_str}")

