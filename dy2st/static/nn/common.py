"""``paddle.static.nn`` layer functions: each creates its parameters (named ``<layer>_N.w_0`` / ``.b_0`` as
Paddle's LayerHelper names them, initialised in the startup program) and appends Paddle's op to the main
program, with Paddle's ``param_attr`` / ``bias_attr`` / ``act`` handling.

conv2d / conv3d (+ transposes), deform_conv2d, batch_norm, group_norm, instance_norm, layer_norm, prelu,
embedding, bilinear_tensor_product, spectral_norm, row_conv; sparse_embedding raises (parameter-server only).
"""
from __future__ import annotations

import functools

import numpy as np

from runtime import unique_name
from runtime.dispatch import run_op
from runtime.framework import state
from runtime.nn.initializer import Constant, Normal
from runtime.nn.param_attr import ParamAttr, _make_parameter
from runtime.nn.functional.conv import update_padding

__all__ = ["conv2d", "conv3d", "conv2d_transpose", "conv3d_transpose", "deform_conv2d", "batch_norm",
           "group_norm", "instance_norm", "layer_norm", "prelu", "embedding", "bilinear_tensor_product",
           "spectral_norm", "row_conv", "sparse_embedding"]

_FLOATS = ("float16", "bfloat16", "float32", "float64")


def static_only(fn):
    """Paddle's ``@static_only``: these build Program ops, so dynamic mode is refused (AssertionError)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not state.static:
            raise AssertionError(f"In PaddlePaddle 2.x, we turn on dynamic graph mode by default, and "
                                 f"'{fn.__name__}()' is only supported in static graph mode. So if you want to use "
                                 "this api, please call 'paddle.enable_static()' before this api to enter static "
                                 "graph mode.")
        return fn(*args, **kwargs)
    return wrapper


class _Helper:
    """What Paddle's LayerHelper does for these functions: the name prefix, parameters, bias and activation."""

    def __init__(self, layer_type, name=None):
        self.prefix = name if name else unique_name.generate(layer_type)
        self.where = f"paddle.static.nn.{layer_type}"

    def param(self, shape, dtype, attr, default=None, is_bias=False):
        return _make_parameter([int(d) for d in shape], dtype, attr, is_bias=is_bias, default_initializer=default,
                               name_prefix=self.prefix, where=self.where)

    def bias(self, out, bias_attr, axis, size):
        """``append_bias_op``: a ``[size]`` bias added along ``axis`` (none when ``bias_attr`` is False)."""
        b = self.param([size], out.dtype, bias_attr, is_bias=True)
        if b is None:
            return out
        return run_op("elementwise_add", out, b, axis=int(axis))

    @staticmethod
    def act(out, act):
        if act is None:
            return out
        if not isinstance(act, str):
            raise TypeError(f"act must be the name of an activation op such as 'relu', got {type(act).__name__}")
        return run_op(act, out)


def _dtype_name(x):
    return x.dtype.name


def _check_float(x, what, where, allowed=_FLOATS):
    if _dtype_name(x) not in allowed:
        raise TypeError(f"The data type of '{what}' in {where} must be one of {list(allowed)}, but received "
                        f"{_dtype_name(x)}.")


def _to_list(value, n, what):
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return [int(value)] * n
    if isinstance(value, (list, tuple)) and len(value) == n and all(isinstance(v, (int, np.integer)) for v in value):
        return [int(v) for v in value]
    raise ValueError(f"The {what}'s type must be list or tuple of {n} ints or an int. Received: {value!r}")


def _conv_common(fn, input, groups, param_attr, data_format, nd):
    """Paddle's checks shared by the convolutions: (input channels, groups as an int, channel-last layout)."""
    _check_float(input, "input", fn)
    if len(input.shape) != nd + 2:
        raise ValueError(f"Input size should be {nd + 2}, but received {len(input.shape)}")
    if data_format not in (("NCHW", "NHWC") if nd == 2 else ("NCDHW", "NDHWC")):
        raise ValueError(f"Attr(data_format) of {fn} got wrong value: received {data_format}")
    if param_attr is False:
        raise AssertionError("param_attr should not be False here.")
    channel_last = data_format[-1] == "C"
    channels = input.shape[-1 if channel_last else 1]
    if channels is None or channels < 0:
        raise ValueError(f"The channel dimension of the input({list(input.shape)}) should be defined. "
                         f"Received: {channels}.")
    if groups is not None and groups <= 0:
        raise ValueError(f"the groups of input must be greater than 0, but received the groups of input is {groups}")
    groups = 1 if groups is None else int(groups)
    if channels % groups:
        raise ValueError(f"the channel of input must be divisible by groups,received: the channel of input is "
                         f"{channels}, the shape of input is {list(input.shape)}, the groups is {groups}")
    return channels, groups, channel_last


def _conv_nd(fn, nd, input, num_filters, filter_size, stride, padding, dilation, groups, param_attr, bias_attr,
             use_cudnn, act, name, data_format):
    channels, groups, channel_last = _conv_common(fn, input, groups, param_attr, data_format, nd)
    if not isinstance(use_cudnn, bool):
        raise ValueError(f"Attr(use_cudnn) should be True or False. Received Attr(use_cudnn): {use_cudnn}. ")
    op_type = fn
    if nd == 2 and channels == groups and num_filters % channels == 0 and not use_cudnn:
        op_type = "depthwise_conv2d"
    helper = _Helper(op_type, name)
    filter_size = _to_list(filter_size, nd, "filter_size")
    pads, algo = update_padding(padding, nd, channel_last, fn)
    fan = int(np.prod(filter_size)) * channels
    if fan <= 0:
        raise ValueError(f"Invalid filter number, excepted number is larger than 0, but received {fan}, please check "
                         "the input shape and filter size.")
    w = helper.param([num_filters, channels // groups, *filter_size], input.dtype, param_attr,
                     default=Normal(0.0, (2.0 / fan) ** 0.5))
    out = run_op(op_type, input, w, strides=_to_list(stride, nd, "stride"), paddings=pads, padding_algorithm=algo,
                 dilations=_to_list(dilation, nd, "dilation"), groups=groups, data_format=data_format)
    out = helper.bias(out, bias_attr, nd + 1 if channel_last else 1, num_filters)
    return helper.act(out, act)


@static_only
def conv2d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None, param_attr=None,
           bias_attr=None, use_cudnn=True, act=None, name=None, data_format="NCHW"):
    """2-D convolution layer: parameters ``[num_filters, C/groups, kh, kw]`` (Normal(0, sqrt(2/fan_in)) by
    default) and ``[num_filters]`` bias, then ``act``."""
    return _conv_nd("conv2d", 2, input, num_filters, filter_size, stride, padding, dilation, groups, param_attr,
                    bias_attr, use_cudnn, act, name, data_format)


@static_only
def conv3d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None, param_attr=None,
           bias_attr=None, use_cudnn=True, act=None, name=None, data_format="NCDHW"):
    """3-D convolution layer (see `conv2d`)."""
    return _conv_nd("conv3d", 3, input, num_filters, filter_size, stride, padding, dilation, groups, param_attr,
                    bias_attr, use_cudnn, act, name, data_format)


# the transposed-conv ops record 3-D layouts with the 2-D names, as Paddle's programs do
_TRANSPOSE_LAYOUT = {"NCHW": "NCHW", "NHWC": "NHWC", "NCDHW": "NCHW", "NDHWC": "NHWC"}


def _conv_transpose_nd(fn, nd, input, num_filters, output_size, filter_size, padding, stride, dilation, groups,
                       param_attr, bias_attr, use_cudnn, act, name, data_format):
    if param_attr is False:
        raise AssertionError(f"param_attr should not be False in {fn}.")
    if num_filters == 0:
        raise ValueError("num of filters should not be 0.")
    channels, groups_, channel_last = _conv_common(fn, input, groups, None, data_format, nd)
    if not isinstance(use_cudnn, bool):
        raise ValueError("use_cudnn should be True or False")
    op_type = fn
    if nd == 2 and channels == groups and num_filters == channels and not use_cudnn:
        op_type = "depthwise_conv2d_transpose"
    helper = _Helper(op_type, name)
    stride = _to_list(stride, nd, "stride")
    dilation = _to_list(dilation, nd, "dilation")
    pads, algo = update_padding(padding, nd, channel_last, fn)
    pairs = [(p, p) for p in pads] if len(pads) == nd else list(zip(pads[0::2], pads[1::2]))
    if output_size is None:
        output_size = []
    elif isinstance(output_size, (list, tuple, int)):
        output_size = _to_list(output_size, nd, "output_size")
    else:
        raise ValueError("output_size should be int, list[int] or tuple[int] (a Tensor output_size is not supported "
                         "by dy2st's static.nn; give ints)")
    if filter_size is None:
        if not output_size:
            raise ValueError("output_size must be set when filter_size is None")
        spatial = input.shape[1:1 + nd] if channel_last else input.shape[2:]
        if any(d is None or d < 0 for d in spatial):
            raise ValueError(f"{fn}: the spatial input dimensions must be known to derive filter_size from "
                             f"output_size, got input shape {list(input.shape)}")
        filter_size = [(output_size[i] - (spatial[i] - 1) * stride[i] + pairs[i][0] + pairs[i][1] - 1)
                       // dilation[i] + 1 for i in range(nd)]
    else:
        filter_size = _to_list(filter_size, nd, f"{fn}.filter_size")
    w = helper.param([channels, num_filters // groups_, *filter_size], input.dtype, param_attr)
    args = (input, w, None) if op_type in ("conv2d_transpose", "depthwise_conv2d_transpose") else (input, w)
    out = run_op(op_type, *args, output_size=output_size, strides=stride, paddings=pads, padding_algorithm=algo,
                 dilations=dilation, groups=groups_, data_format=_TRANSPOSE_LAYOUT[data_format])
    out = helper.bias(out, bias_attr, nd + 1 if channel_last else 1, num_filters)
    return helper.act(out, act)


@static_only
def conv2d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0, stride=1, dilation=1,
                     groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
                     data_format="NCHW"):
    """2-D transposed convolution layer; ``filter_size`` is derived from ``output_size`` when not given."""
    return _conv_transpose_nd("conv2d_transpose", 2, input, num_filters, output_size, filter_size, padding, stride,
                              dilation, groups, param_attr, bias_attr, use_cudnn, act, name, data_format)


@static_only
def conv3d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0, stride=1, dilation=1,
                     groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
                     data_format="NCDHW"):
    """3-D transposed convolution layer (see `conv2d_transpose`)."""
    return _conv_transpose_nd("conv3d_transpose", 3, input, num_filters, output_size, filter_size, padding, stride,
                              dilation, groups, param_attr, bias_attr, use_cudnn, act, name, data_format)


@static_only
def deform_conv2d(x, offset, mask, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=1,
                  deformable_groups=1, im2col_step=1, weight_attr=None, bias_attr=None, name=None):
    """Deformable convolution v2 (``mask`` given: op ``deformable_conv``) or v1 (``mask=None``)."""
    _check_float(x, "input", "deformable_conv", ("float32", "float64"))
    helper = _Helper("deformable_conv", name)
    channels = x.shape[1]
    if groups is None:
        groups = 1
    if groups == 0:
        raise ValueError("groups should not be 0.")
    if channels % groups:
        raise ValueError("num_channels must be divisible by groups.")
    filter_size = _to_list(filter_size, 2, "filter_size")
    fan = filter_size[0] * filter_size[1] * channels
    if fan <= 0:
        raise ValueError(f"Invalid filter number, excepted number is larger than 0, but received {fan}, please check "
                         "the input shape and filter size.")
    w = helper.param([num_filters, channels // groups, *filter_size], x.dtype, weight_attr,
                     default=Normal(0.0, (2.0 / fan) ** 0.5))
    attrs = dict(strides=_to_list(stride, 2, "stride"), paddings=_to_list(padding, 2, "padding"),
                 dilations=_to_list(dilation, 2, "dilation"), groups=int(groups),
                 deformable_groups=int(deformable_groups), im2col_step=int(im2col_step))
    if mask is None:
        out = run_op("deformable_conv_v1", x, offset, w, **attrs)
    else:
        out = run_op("deformable_conv", x, offset, w, mask, **attrs)
    return helper.bias(out, bias_attr, 1, num_filters)


@static_only
def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None, bias_attr=None,
               data_layout="NCHW", in_place=False, name=None, moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    """Batch normalisation with scale ``w_0``, bias ``b_0`` and the running mean/variance ``w_1``/``w_2``
    (non-trainable, updated in place by the op in training)."""
    if bias_attr is False:
        raise AssertionError("bias_attr should not be False in batch_norm.")
    _check_float(input, "input", "batch_norm")
    helper = _Helper("batch_norm", name)
    if not 2 <= len(input.shape) <= 5:
        raise ValueError(f"expected 2D or 3D or 4D or 5D input (got {len(input.shape)}D input, input shape is: "
                         f"{list(input.shape)})")
    if data_layout not in ("NCHW", "NHWC"):
        raise ValueError("unsupported data layout:" + data_layout)
    dtype = "float32" if _dtype_name(input) in ("float16", "bfloat16") else input.dtype
    c = input.shape[1] if data_layout == "NCHW" else input.shape[-1]
    scale = helper.param([c], dtype, param_attr, default=Constant(1.0))
    bias = helper.param([c], dtype, bias_attr, is_bias=True)
    stats = []
    for stat_name, value in ((moving_mean_name, 0.0), (moving_variance_name, 1.0)):
        attr = ParamAttr(name=stat_name, initializer=Constant(value), trainable=False,
                         do_model_average=do_model_average_for_mean_and_var)
        p = helper.param([c], dtype, attr)
        p.stop_gradient = True
        stats.append(p)
    if not isinstance(momentum, (int, float)):
        raise TypeError("batch_norm: momentum must be a float (a Tensor momentum is not supported by dy2st)")
    y = run_op("batch_norm", input, scale, bias, stats[0], stats[1], None, is_test=bool(is_test),
               momentum=float(momentum), epsilon=float(epsilon), data_layout=data_layout,
               use_global_stats=bool(use_global_stats), trainable_statistics=False)[0]
    return _Helper.act(y, act)


@static_only
def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None, data_layout="NCHW",
               name=None):
    """Group normalisation; as in Paddle, the scale and bias exist only when ``param_attr`` / ``bias_attr`` are
    given (truthy)."""
    _check_float(input, "input", "group_norm")
    helper = _Helper("group_norm", name)
    if len(input.shape) < 2:
        raise ValueError("The dimensions of Op(static.nn.group_norm)'s input should be more than 1. But received "
                         f"{len(input.shape)}")
    if data_layout not in ("NCHW", "NHWC"):
        raise ValueError("Param(data_layout) of Op(static.nn.group_norm) got wrong value: received " + data_layout
                         + " but only NCHW or NHWC supported.")
    c = input.shape[1] if data_layout == "NCHW" else input.shape[-1]
    scale = helper.param([c], input.dtype, param_attr, default=Constant(1.0)) if param_attr else None
    bias = helper.param([c], input.dtype, bias_attr, is_bias=True) if bias_attr else None
    y = run_op("group_norm", input, scale, bias, epsilon=float(epsilon), groups=int(groups),
               data_layout=data_layout)
    return _Helper.act(y, act)


@static_only
def instance_norm(input, epsilon=1e-05, param_attr=None, bias_attr=None, name=None):
    """Instance normalisation; scale and bias exist only when both ``param_attr`` and ``bias_attr`` are given."""
    _check_float(input, "input", "instance_norm", ("float32", "float64", "float16", "bfloat16"))
    if param_attr is False and bias_attr is not False:
        raise AssertionError("param_attr and bias_attr must be set to False at the same time in instance_norm")
    helper = _Helper("instance_norm", name)
    if not 2 <= len(input.shape) <= 5:
        raise ValueError(f"expected 2D or 3D or 4D or 5D input (got {len(input.shape)}D input, input shape is: "
                         f"{list(input.shape)})")
    dtype = "float32" if _dtype_name(input) == "float16" else input.dtype
    c = input.shape[1]
    scale = bias = None
    if param_attr and bias_attr:
        scale = helper.param([c], dtype, param_attr, default=Constant(1.0))
        bias = helper.param([c], dtype, bias_attr, is_bias=True, default=Constant(0.0))
    return run_op("instance_norm", input, scale, bias, epsilon=float(epsilon))


@static_only
def layer_norm(input, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05, param_attr=None, bias_attr=None,
               act=None, name=None):
    """Layer normalisation over the dimensions from ``begin_norm_axis`` on, with a flattened scale and bias."""
    _check_float(input, "input", "layer_norm", ("float32", "float64"))
    helper = _Helper("layer_norm", name)
    size = int(np.prod(input.shape[begin_norm_axis:])) if input.shape[begin_norm_axis:] else 1
    if any(d is None or d < 0 for d in input.shape[begin_norm_axis:]):
        raise ValueError(f"layer_norm: the normalised dimensions must be known, got shape {list(input.shape)}")
    s = b = None
    if scale:
        if param_attr is False:
            raise AssertionError("param_attr should not be False when using scale.")
        s = helper.param([size], input.dtype, param_attr, default=Constant(1.0))
    if shift:
        if bias_attr is False:
            raise AssertionError("bias_attr should not be False when using shift.")
        b = helper.param([size], input.dtype, bias_attr, is_bias=True)
    y = run_op("layer_norm", input, s, b, epsilon=float(epsilon), begin_norm_axis=int(begin_norm_axis))
    return _Helper.act(y, act)


@static_only
def prelu(x, mode, param_attr=None, data_format="NCHW", name=None):
    """PReLU with a learnable slope (initial 0.25) per tensor (``'all'``), channel or element."""
    helper = _Helper("prelu", name)
    if mode not in ("all", "channel", "element"):
        raise ValueError("mode should be one of all, channel, element.")
    shape = [1]
    if mode == "channel":
        forms = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")
        if data_format not in forms:
            raise ValueError("data_format must be one of 'NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', 'NHWC', 'NDHWC' but "
                             f"receive {data_format}")
        data_format = "NCHW" if data_format[1] == "C" else "NHWC"
        if len(x.shape) < 2:
            raise AssertionError("The size of input shape should be equal or larger than 2 in prelu() when mode is "
                                 "'channel'")
        shape = [1, 1, 1, x.shape[-1]] if data_format == "NHWC" else [1, x.shape[1], 1, 1]
    elif mode == "element":
        shape = [1, *list(x.shape)[1:]]
    alpha = helper.param(shape, x.dtype, param_attr, default=Constant(0.25))
    return run_op("prelu", x, alpha, mode=mode, data_format=data_format)


@static_only
def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None, param_attr=None,
              dtype="float32"):
    """Look up rows of a ``size = [vocab, dim]`` table (op ``lookup_table_v2``); ``padding_idx`` rows read 0."""
    helper = _Helper("embedding")
    if _dtype_name(input) not in ("int32", "int64", "uint8", "int16"):
        raise TypeError(f"The data type of 'input' in embedding must be int, but received {_dtype_name(input)}.")
    w = helper.param(list(size), dtype, param_attr)
    if padding_idx is None:
        padding_idx = -1
    elif padding_idx < 0:
        padding_idx = size[0] + padding_idx
    return run_op("lookup_table_v2", input, w, padding_idx=int(padding_idx))


@static_only
def bilinear_tensor_product(x, y, size, act=None, name=None, param_attr=None, bias_attr=None):
    """``out[:, i] = x W_i y^T + b_i`` with ``W`` of shape ``[size, x_dim, y_dim]`` and bias ``[1, size]``."""
    helper = _Helper("bilinear_tensor_product", name)
    if len(x.shape) != 2 or len(y.shape) != 2:
        raise ValueError(f"Input x and y should be 2D tensor, but received x with the shape of {list(x.shape)}, y "
                         f"with the shape of {list(y.shape)}")
    w = helper.param([size, x.shape[1], y.shape[1]], x.dtype, param_attr)
    b = helper.param([1, size], x.dtype, bias_attr, is_bias=True) if bias_attr is not False else None
    out = run_op("bilinear_tensor_product", x, y, w, b)
    return _Helper.act(out, act)


@static_only
def spectral_norm(weight, dim=0, power_iters=1, eps=1e-12, name=None):
    """``weight / sigma(weight)``, sigma estimated by ``power_iters`` power iterations from the vectors ``U``
    (``[h]``) and ``V`` (``[w]``), Normal(0, 1)-initialised non-trainable parameters."""
    _check_float(weight, "weight", "spectral_norm", ("float32", "float64"))
    helper = _Helper("spectral_norm", name)
    shape = list(weight.shape)
    if 0 in shape:
        raise AssertionError("Any dimension of input cannot be equal to 0.")
    if dim not in (0, 1):
        raise ValueError("The input `dim` must be 0 (if weight in fc) or 1 (if weight in conv), but received "
                         f"dim={dim}")
    h = shape[dim]
    w = int(np.prod(shape)) // h
    u = helper.param([h], weight.dtype, ParamAttr(), default=Normal(0.0, 1.0))
    u.stop_gradient = True
    v = helper.param([w], weight.dtype, ParamAttr(), default=Normal(0.0, 1.0))
    v.stop_gradient = True
    return run_op("spectral_norm", weight, u, v, dim=int(dim), power_iters=int(power_iters), eps=float(eps))


@static_only
def row_conv(input, future_context_size, param_attr=None, act=None):
    """Lookahead (row) convolution over time of a dense ``[B, T, D]`` input:
    ``out[b, t] = sum_{j=0}^{k} input[b, t + j] * W[j]`` (steps past the end count as 0), ``W`` being
    ``[future_context_size + 1, D]``. Built from pad/slice/multiply ops (Paddle's ``row_conv`` op also
    takes LoD sequences, which dy2st does not have)."""
    from runtime.api.manipulation import concat
    helper = _Helper("row_conv")
    _check_float(input, "input", "row_conv", ("float32",))
    if len(input.shape) != 3:
        raise ValueError(f"row_conv: dy2st supports dense [batch, time, dim] input only (no LoD sequences), got shape "
                         f"{list(input.shape)}")
    k = int(future_context_size) + 1
    d = input.shape[-1]
    w = helper.param([k, d], input.dtype, param_attr)
    t = input.shape[1]
    if t is None or t < 0:
        raise ValueError(f"row_conv: the time dimension must be known, got shape {list(input.shape)}")
    # zeros after the last step, enough of them for the widest window (each copy adds t zero steps)
    pad = run_op("fill_any_like", input, value=0.0, dtype=-1)
    copies = -(-(k - 1) // t) if t else 0
    padded = concat([input] + [pad] * copies, axis=1) if copies else input
    out = None
    for j in range(k):
        window = run_op("slice", padded, None, None, None, None, axes=[1], starts=[j], ends=[j + t],
                        infer_flags=[1], decrease_axis=[])
        wj = run_op("slice", w, None, None, None, None, axes=[0], starts=[j], ends=[j + 1], infer_flags=[1],
                    decrease_axis=[])
        term = run_op("elementwise_mul", window, wj, axis=-1)
        out = term if out is None else run_op("elementwise_add", out, term, axis=-1)
    return _Helper.act(out, act)


@static_only
def sparse_embedding(input, size, padding_idx=None, is_test=False, entry=None, table_class="MemorySparseTable",
                     param_attr=None, dtype="float32", slot=None):
    """Parameter-server sparse tables: not supported (Paddle's CPU build cannot run them outside a PS job either)."""
    raise RuntimeError("paddle.static.nn.sparse_embedding looks rows up in a parameter-server sparse table, which "
                       "dy2st does not have (it trains in one process); use paddle.static.nn.embedding instead")
