"""`paddle.static.nn.fc` (mul + elementwise_add + activation, parameters fc_N.w_0 / fc_N.b_0)
and `paddle.static.accuracy`."""
from __future__ import annotations

import numpy as np

from .. import unique_name
from ..dispatch import run_op
from ..framework import state
from .program import Variable

__all__ = ["fc", "accuracy"]


def _prod(dims, where):
    n = 1
    for d in dims:
        if d < 0:
            raise ValueError(f"{where}: the dimensions after num_flatten_dims must be known, got shape with -1")
        n *= int(d)
    return n


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None, name=None):
    """A fully connected layer: ``activation(sum_i flatten(x_i) @ w_i + b)``.

    The first ``num_flatten_dims`` dimensions of each input are kept; the rest are flattened and
    multiplied by a weight of shape ``[prod(rest), size]``. A list ``x`` gets one weight per input.
    """
    from ..nn.param_attr import ParamAttr, _make_parameter
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size <= 0:
        raise ValueError(f"fc: size must be a positive int, got {size!r}")
    inputs = list(x) if isinstance(x, (list, tuple)) else [x]
    if not inputs:
        raise ValueError("fc: x must be a Variable or a non-empty list of Variables")
    if isinstance(num_flatten_dims, bool) or not isinstance(num_flatten_dims, (int, np.integer)):
        raise TypeError(f"fc: num_flatten_dims must be an int, got {type(num_flatten_dims).__name__}")
    prefix = name or unique_name.generate("fc")
    wattrs = ParamAttr._to_attr(weight_attr)
    if not isinstance(wattrs, list):
        # one attr for several inputs: only a nameless attr can be reused (names must be unique)
        wattrs = [wattrs] + [ParamAttr._to_attr(weight_attr) if wattrs is False or wattrs.name is None
                             else ParamAttr(initializer=wattrs.initializer) for _ in inputs[1:]]
    if len(wattrs) != len(inputs):
        raise ValueError(f"fc: weight_attr has {len(wattrs)} entries but x has {len(inputs)} inputs")
    products = []
    for inp, wattr in zip(inputs, wattrs):
        shape = list(inp.shape)
        nfd = num_flatten_dims if num_flatten_dims >= 0 else len(shape) + num_flatten_dims
        if not 1 <= nfd < len(shape):
            raise ValueError(f"fc: num_flatten_dims must be in [1, {len(shape) - 1}] for an input of shape "
                             f"{shape}, got {num_flatten_dims}")
        in_features = _prod(shape[nfd:], "fc")
        w = _make_parameter([in_features, int(size)], inp.dtype, wattr, is_bias=False, name_prefix=prefix,
                            where="fc")
        products.append(run_op("mul", inp, w, x_num_col_dims=int(nfd), y_num_col_dims=1))
    out = products[0] if len(products) == 1 else run_op("sum", products)
    b = _make_parameter([int(size)], inputs[0].dtype, bias_attr, is_bias=True, name_prefix=prefix, where="fc")
    if b is not None:
        nfd = num_flatten_dims if num_flatten_dims >= 0 else len(inputs[0].shape) + num_flatten_dims
        out = run_op("elementwise_add", out, b, axis=int(nfd))
    if activation is not None:
        if not isinstance(activation, str):
            raise TypeError(f"fc: activation must be an op name such as 'relu', got {type(activation).__name__}")
        out = run_op(activation, out)
    return out


def accuracy(input, label, k=1, correct=None, total=None):
    """Top-``k`` accuracy of ``input`` scores against int64 ``label`` ([N, 1]); ``correct`` and
    ``total`` Variables, when given, become the op's count outputs."""
    from ..metric import accuracy as eager_accuracy, _label_column
    from ..dtype import convert_dtype
    if not state.static:
        return eager_accuracy(input, label, k=k, correct=correct, total=total)
    if convert_dtype(label.dtype).np.kind not in "iu":
        raise TypeError(f"accuracy: label must be an integer Variable, got {label.dtype}")
    values, indices = run_op("top_k_v2", input, None, k=int(k), axis=-1, largest=True, sorted=True)
    acc, n_correct, n_total = run_op("accuracy", values, indices, _label_column(label))
    op = acc.block.ops[-1]
    for dst, src in ((correct, n_correct), (total, n_total)):
        if isinstance(dst, Variable):
            if dst.dtype != src.dtype:
                raise TypeError(f"accuracy: correct/total must be {src.dtype.name} Variables, got {dst.dtype.name}")
            if dst.shape != src.shape:
                dst._set_meta(src.shape, dst.dtype)
            op._rename_output(src.name, dst.name)
            src.block.vars.pop(src.name, None)
    return acc
