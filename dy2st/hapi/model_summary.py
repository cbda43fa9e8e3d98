"""``paddle.summary``: run a network once on random inputs and print Paddle's table of layers (name with
its creation index, input and output shapes, parameter count), the totals and the memory estimate;
return ``{'total_params': ..., 'trainable_params': ...}``."""
from __future__ import annotations

import numbers
import warnings
from collections import OrderedDict

import numpy as np

from runtime.api.random import rand
from runtime.api.manipulation import cast
from runtime.framework import in_dynamic_mode, no_grad
from runtime.nn.layer.container import LayerList, Sequential
from runtime.nn.layer.rnn import RNNBase
from runtime.static.input_spec import InputSpec
from runtime.tensor import Tensor

__all__ = []

_MB = 1024 ** 2.0


def summary(net, input_size=None, dtypes=None, input=None):
    """Print the summary table of ``net`` for inputs of ``input_size`` (a shape tuple, an int, an
    InputSpec, or a list of those for several inputs; the batch dim may be None or -1) or for the given
    ``input`` tensor(s); ``dtypes`` the input dtype(s), float32 by default."""
    if input_size is None and input is None:
        raise ValueError("input_size and input cannot be None at the same time")
    if input_size is None:
        input_size = _sizes_of(input)
    size = _normalize_sizes(input_size)
    if not in_dynamic_mode():
        warnings.warn("Your model was created in static graph mode, this may not get correct summary information!")
        was_training = False
    else:
        was_training = net.training
    if was_training:
        net.eval()
    try:
        text, params_info = summary_string(net, _check_input(size), dtypes, input)
    finally:
        if was_training:
            net.train()
    print(text)
    return params_info


def _sizes_of(input):
    if isinstance(input, Tensor) or (hasattr(input, "shape") and not isinstance(input, (list, tuple, dict))):
        return tuple(input.shape)
    if isinstance(input, (list, tuple)):
        return [tuple(x.shape) for x in input]
    if isinstance(input, dict):
        return [tuple(v.shape) for v in input.values()]
    raise ValueError("Input is not tensor, list, tuple and dict, unable to determine input_size, please input "
                     "input_size.")


def _normalize_sizes(input_size):
    if isinstance(input_size, InputSpec):
        return tuple(input_size.shape)
    if isinstance(input_size, int):
        return (input_size,)
    if isinstance(input_size, list):
        out = []
        for item in input_size:
            if isinstance(item, int):
                item = (item,)
            if isinstance(item, InputSpec):
                out.append(tuple(item.shape))
            elif isinstance(item, tuple):
                out.append(item)
            else:
                raise TypeError(f"When input_size is list, expect item in input_size is a tuple or InputSpec, but "
                                f"got {type(item)}")
        return out
    return input_size


def is_fused_rnn(layer):
    """Whether Paddle runs ``layer`` (an LSTM/GRU/SimpleRNN with 4 parameters per cell) through its one
    fused kernel (``could_use_cudnn``, on CPU too): there its cells and RNN sublayers never run, so hooks
    on them never fire. Ours runs the cells; summary and flops leave them out to count as Paddle does."""
    flag = getattr(layer, "could_use_cudnn", None)
    if flag is None and isinstance(layer, RNNBase):
        cell_params = sum(1 for sub in layer.sublayers() for p in sub._parameters.values() if p is not None)
        flag = cell_params == layer.num_layers * 4 * layer.num_directions
    return bool(flag)


def inside_fused_rnns(model):
    """ids of the layers under a fused RNN (see `is_fused_rnn`) of ``model``."""
    return {id(sub) for layer in model.sublayers(include_self=True) if is_fused_rnn(layer)
            for sub in layer.sublayers()}


def _is_shape(shape):
    return not any(isinstance(item, (list, tuple)) for item in shape)


def _check_shape(shape):
    unknown = 0
    out = []
    for item in shape:
        if item is None or item == -1:
            unknown += 1
            if unknown > 1:
                raise ValueError("Option input_size only the dim of batch_size can be None or -1.")
            item = 1
        elif isinstance(item, numbers.Number) and item <= 0:
            raise ValueError(f"Expected element in input size greater than zero, but got {item}")
        out.append(item)
    return tuple(out)


def _check_input(input_size):
    if isinstance(input_size, (list, tuple)) and _is_shape(input_size):
        return _check_shape(input_size)
    return [_check_input(i) for i in input_size]


def _all_numbers(items):
    return all(isinstance(item, numbers.Number) for item in items)


def _build_dtypes(input_size, dtype):
    dtype = "float32" if dtype is None else dtype
    if isinstance(input_size, (list, tuple)) and _all_numbers(input_size):
        return [dtype]
    return [_build_dtypes(i, dtype) for i in input_size]


def _build_input(input_size, dtypes):
    if isinstance(input_size, (list, tuple)) and _all_numbers(input_size):
        dtype = dtypes[0] if isinstance(dtypes, (list, tuple)) else dtypes
        return cast(rand(list(input_size)), dtype)
    return [_build_input(i, d) for i, d in zip(input_size, dtypes)]


def _input_shapes(x):
    if isinstance(x, Tensor):
        return list(x.shape)
    if isinstance(x, (list, tuple)):
        return [_input_shapes(item) for item in x]
    return None


def _output_shapes(output):
    if isinstance(output, (list, tuple)):
        return [_output_shapes(o) for o in output]
    if hasattr(output, "shape"):
        return list(output.shape)
    return []


def _layer_record(layer, inputs, output):
    record = OrderedDict(input_shape=_input_shapes(inputs), output_shape=_output_shapes(output))
    params = 0
    record["trainable_params"] = 0
    any_trainable = False
    for name, p in layer._parameters.items():
        if p is None:
            continue
        numel = np.prod(p.shape)
        params += numel
        if p.trainable and not p.stop_gradient:
            record["trainable_params"] += numel
            record["trainable"] = any_trainable = True
        elif not any_trainable:
            record["trainable"] = False
    record["nb_params"] = params
    return record


def _output_count(shapes):
    """Number of output values of one layer, as Paddle counts them (an empty shape counts as 1)."""
    try:
        return np.sum(np.prod(shapes, axis=-1))
    except (ValueError, TypeError):
        return sum(np.sum(np.prod(s, axis=-1)) for s in shapes)


def _input_megabytes(input_size):
    if isinstance(input_size, (list, tuple)) and _all_numbers(input_size):
        return abs(np.prod(input_size) * 4.0 / _MB)
    return sum(_input_megabytes(i) for i in input_size)


@no_grad()
def summary_string(model, input_size=None, dtypes=None, input=None):
    """``(table text, {'total_params', 'trainable_params'})`` for ``model`` run on ``input_size``."""
    if not isinstance(dtypes, (list, tuple)):
        dtypes = _build_dtypes(input_size, dtypes)
    depth = len(model.sublayers())
    records = OrderedDict()
    handles = []

    def hook(layer, inputs, output):
        try:
            index = int(layer._full_name.split("_")[-1])
        except (AttributeError, ValueError):
            index = len(records)
        records[f"{type(layer).__name__}-{index + 1}"] = _layer_record(layer, inputs, output)

    hidden = inside_fused_rnns(model)

    def register(layer):
        if id(layer) in hidden:
            return
        # containers are not rows; Paddle's RNNBase is a LayerList: a row only when it runs fused
        container = isinstance(layer, (Sequential, LayerList, RNNBase))
        if (not container and (layer is not model or depth < 1)) or is_fused_rnn(layer):
            handles.append(layer.register_forward_post_hook(hook))

    if isinstance(input_size, tuple):
        input_size = [input_size]
    model.apply(register)
    try:
        if input is not None:
            model(input)
        else:
            model(*_build_input(input_size, dtypes))
    finally:
        for h in handles:
            h.remove()
    return _format_table(records, input_size)


def _column_widths(records):
    widths = {"layer_width": 15, "input_shape_width": 20, "output_shape_width": 20, "params_width": 15,
              "table_width": 75}
    for name, rec in records.items():
        widths["output_shape_width"] = max(widths["output_shape_width"], len(str(rec["output_shape"])))
        widths["input_shape_width"] = max(widths["input_shape_width"], len(str(rec["input_shape"])))
        widths["layer_width"] = max(widths["layer_width"], len(str(name)))
        widths["params_width"] = max(widths["params_width"], len(str(rec["nb_params"])))
    columns = sum(v for k, v in widths.items() if k != "table_width")
    widths["table_width"] = max(widths["table_width"], columns + 5)
    return widths


def _format_table(records, input_size):
    w = _column_widths(records)

    def row(a, b, c, d):
        return (f"{a:^{w['layer_width']}} {b:^{w['input_shape_width']}} {c:^{w['output_shape_width']}} "
                f"{d:^{w['params_width']}}\n")

    rule, double = "-" * w["table_width"] + "\n", "=" * w["table_width"] + "\n"
    text = rule + row("Layer (type)", "Input Shape", "Output Shape", "Param #") + double
    total_params = total_output = trainable_params = 0
    for name, rec in records.items():
        text += row(name, str(rec["input_shape"]), str(rec["output_shape"]), f"{rec['nb_params']:,}")
        total_params += rec["nb_params"]
        total_output += _output_count(rec["output_shape"])
        if rec.get("trainable"):
            trainable_params += rec["trainable_params"]
    input_mb = _input_megabytes(input_size)
    output_mb = abs(2.0 * total_output * 4.0 / _MB)   # x2 for the gradients
    params_mb = abs(total_params * 4.0 / _MB)
    text += double
    text += f"Total params: {total_params:,}\n"
    text += f"Trainable params: {trainable_params:,}\n"
    text += f"Non-trainable params: {total_params - trainable_params:,}\n"
    text += rule
    text += f"Input size (MB): {input_mb:0.2f}\n"
    text += f"Forward/backward pass size (MB): {output_mb:0.2f}\n"
    text += f"Params size (MB): {params_mb:0.2f}\n"
    text += f"Estimated Total Size (MB): {params_mb + output_mb + input_mb:0.2f}\n"
    text += rule
    return text, {"total_params": total_params, "trainable_params": trainable_params}
