"""paddle.nn.functional activations: thin calls to the activation ops (Paddle's op types, so saved
programs carry what Paddle writes: ``brelu`` for hardtanh, ``logsigmoid``, ``hard_shrink`` ...), plus
the composite ``glu``."""
from __future__ import annotations

from ...dispatch import run_op
from ...framework import state
from ...tensor import Tensor
from ...api.arg_checks import check_variable_and_dtype
from .common import _cast
from ...api.param_alias import param_alias

__all__ = ["relu", "relu_", "relu6", "leaky_relu", "elu", "gelu", "sigmoid", "tanh", "silu", "swish",
           "hardswish", "hardsigmoid", "softplus", "softsign", "softmax", "log_softmax", "tanhshrink",
           "hardtanh", "log_sigmoid", "mish", "selu", "celu", "softshrink", "hardshrink",
           "thresholded_relu", "prelu", "glu", "logsigmoid", "maxout"]


def relu(x, name=None):
    """max(x, 0)."""
    return run_op("relu", x)


def relu_(x, name=None):
    """In-place relu: ``x`` takes the result and is returned (eager mode)."""
    if state.static or not isinstance(x, Tensor):
        return relu(x)
    if not x.stop_gradient and x._node is None:     # a ValueError, as Paddle's
        raise ValueError(f"(InvalidArgument) Leaf Var ({x.name}) that doesn't stop gradient can't use inplace "
                         "strategy: relu_ cannot modify a leaf tensor that requires a gradient; use F.relu(x)")
    out = run_op("relu", x)
    # x becomes the op's output: same data, same place in the graph (grad nodes that read x keep its old value)
    from ...autograd import freeze_inputs
    freeze_inputs(x)
    x._data = out._data
    x._version = x.inplace_version + 1
    x._node = out._node
    x._out_idx = out._out_idx
    x.stop_gradient = out.stop_gradient
    return x


def relu6(x, name=None):
    return run_op("relu6", x)


def leaky_relu(x, negative_slope=0.01, name=None):
    return run_op("leaky_relu", x, alpha=float(negative_slope))


def elu(x, alpha=1.0, name=None):
    return run_op("elu", x, alpha=float(alpha))


def gelu(x, approximate=False, name=None):
    """Gaussian error linear unit; ``approximate`` True/'tanh' uses the tanh form."""
    if isinstance(approximate, str):
        if approximate not in ("tanh", "none"):
            raise ValueError(f"gelu: approximate must be True, False, 'tanh' or 'none', got {approximate!r}")
        approximate = approximate == "tanh"
    return run_op("gelu", x, approximate=bool(approximate))


def sigmoid(x, name=None, *, out=None):
    return _maybe_out(run_op("sigmoid", x), out)


def tanh(x, name=None, *, out=None):
    return _maybe_out(run_op("tanh", x), out)


@param_alias(x="input")
def silu(x, inplace=False, name=None):
    return run_op("silu", x)


def swish(x, name=None):
    return run_op("swish", x)


def hardswish(x, name=None):
    return run_op("hard_swish", x, threshold=6.0, scale=6.0, offset=3.0)


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None):
    return run_op("hard_sigmoid", x, slope=float(slope), offset=float(offset))


def softplus(x, beta=1, threshold=20, name=None):
    return run_op("softplus", x, beta=float(beta), threshold=float(threshold))


def softsign(x, name=None):
    return run_op("softsign", x)


def _cast_to(x, dtype):
    return x if dtype is None else _cast(x, dtype)


def softmax(x=None, axis=-1, dtype=None, name=None, *, out=None, input=None, dim=None):
    """exp(x) / sum(exp(x)) along ``axis``; ``dtype`` casts the input first. ``input`` and ``dim`` are
    Paddle's aliases of ``x`` and ``axis``."""
    if input is not None:
        x = input
    if dim is not None:
        axis = dim
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64"), "softmax")
    return _maybe_out(run_op("softmax", _cast_to(x, dtype), axis=int(axis)), out)


def log_softmax(x, axis=-1, dtype=None, name=None):
    return run_op("log_softmax", _cast_to(x, dtype), axis=int(axis))


def _maybe_out(res, out):
    if out is not None and isinstance(out, Tensor):
        out._data = res._data
        out._node = res._node
        out._out_idx = res._out_idx
        out.stop_gradient = res.stop_gradient
        return out
    return res


# -- Paddle's dedicated activation ops (runtime/ops/activation_extra.py) -----------------------

def tanhshrink(x, name=None):
    """x - tanh(x)."""
    return run_op("tanh_shrink", x)


def hardtanh(x, min=-1.0, max=1.0, name=None):
    """clip(x, min, max) (Paddle's op ``brelu``)."""
    return run_op("brelu", x, t_min=float(min), t_max=float(max))


@param_alias(x="input")
def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), computed stably."""
    return run_op("logsigmoid", x)


def mish(x, name=None):
    """x * tanh(softplus(x)) (softplus is x itself above 20, as Paddle's kernel)."""
    return run_op("mish", x, threshold=20.0)


def selu(x, scale=1.0507009873554805, alpha=1.6732632423543772, name=None):
    if scale <= 1.0:
        raise ValueError(f"selu: scale must be greater than 1.0, got {scale}")
    if alpha < 0:
        raise ValueError(f"selu: alpha must be no less than zero, got {alpha}")
    return run_op("selu", x, scale=float(scale), alpha=float(alpha))


def celu(x, alpha=1.0, name=None):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) = alpha * elu(x / alpha)."""
    if alpha == 0:
        raise ZeroDivisionError("celu: alpha cannot be 0")
    return run_op("celu", x, alpha=float(alpha))


@param_alias(x="input", threshold="lambd")
def softshrink(x, threshold=0.5, name=None):
    """x - clip(x, -t, t): shrinks values toward zero by t, zero inside [-t, t]."""
    if threshold < 0:
        raise ValueError(f"softshrink: threshold must be no less than zero, got {threshold}")
    return run_op("softshrink", x, **{"lambda": float(threshold)})


@param_alias(x="input", threshold="lambd")
def hardshrink(x, threshold=0.5, name=None):
    """x where |x| > t, else 0."""
    return run_op("hard_shrink", x, threshold=float(threshold))


def thresholded_relu(x, threshold=1.0, value=0.0, name=None):
    """x where x > threshold, else ``value``."""
    return run_op("thresholded_relu", x, threshold=float(threshold), value=float(value))


def prelu(x, weight, data_format="NCHW", name=None):
    """max(0, x) + weight * min(0, x); ``weight`` (0-D or 1-D) has 1 element or one per channel."""
    if len(weight.shape) > 1:
        raise ValueError(f"prelu: weight must be 0-D or 1-D, got shape {list(weight.shape)}")
    mode = "all"
    if len(weight.shape) == 1 and weight.shape[0] > 1:
        if data_format not in ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
            raise ValueError(f"prelu: data_format must be one of NC, NCL, NCHW, NCDHW, NLC, NHWC, NDHWC, "
                             f"got {data_format!r}")
        if len(x.shape) < 2:
            raise ValueError(f"prelu: x must have at least 2 dims when weight has one value per channel, got "
                             f"shape {list(x.shape)}")
        data_format = "NCHW" if data_format[1] == "C" else "NHWC"     # as Paddle records it
        channels = x.shape[1] if data_format == "NCHW" else x.shape[-1]
        if channels >= 0 and weight.shape[0] != channels:
            raise ValueError(f"prelu: weight has {weight.shape[0]} values, but x (shape {list(x.shape)}, "
                             f"{data_format}) has {channels} channels")
        mode = "channel"
    return run_op("prelu", x, weight, data_format=data_format, mode=mode)


@param_alias(x="input", axis="dim")
def glu(x, axis=-1, name=None):
    """a * sigmoid(b) where a, b are the two halves of ``x`` along ``axis``."""
    a, b = run_op("split", x, None, None, num=2, axis=int(axis))
    return run_op("elementwise_mul", a, run_op("sigmoid", b))


logsigmoid = log_sigmoid   # Paddle's older name, still exported


def maxout(x, groups, axis=1, name=None):
    """Max over each run of ``groups`` consecutive channels along ``axis`` (1, or -1/3 for NHWC):
    ``out[:, c] = max(x[:, c*groups : (c+1)*groups])``."""
    nd = len(x.shape)
    if axis not in (1, -1, nd - 1):
        raise ValueError(f"maxout: axis must be 1 or -1 (or {nd - 1}), got {axis}")
    axis = axis % nd
    c = x.shape[axis]
    if not isinstance(groups, int) or groups <= 0 or (c >= 0 and c % groups):
        raise ValueError(f"maxout: the {c} channels of x (shape {list(x.shape)}) must divide into groups of "
                         f"{groups}")
    return run_op("maxout", x, groups=groups, axis=axis)
