"""``paddle.flops``: FLOPs of a network run once on a random input, counted per leaf layer by type with
Paddle's rules (conv, linear, batch norm, pooling, activations), or of a static Program."""
from __future__ import annotations

import warnings

import numpy as np

from runtime import nn
from runtime.api.creation import to_tensor, zeros
from runtime.api.random import randn
from runtime.framework import no_grad
from runtime.static.program import Program

from .model_summary import inside_fused_rnns
from .static_flops import Table, static_flops

__all__ = []

_COUNTERS = ("total_ops", "total_params", "input_shape", "output_shape")


def flops(net, input_size, custom_ops=None, print_detail=False):
    """FLOPs of ``net`` (a Layer, run on ``paddle.randn(input_size)``, or a static Program).

    ``custom_ops`` maps a Layer class to ``fn(layer, inputs, output)`` adding its count to
    ``layer.total_ops``; other layer types without a rule count as zero. Prints the total (and a
    per-layer table with ``print_detail``) and returns the total as an int."""
    if isinstance(net, nn.Layer):
        from ..static_function import StaticFunction   # a to_static forward is counted eagerly
        forward = net.forward
        own = net.__dict__.get("forward", None)
        if isinstance(forward, StaticFunction):
            net.__dict__["forward"] = forward.dygraph_function
        try:
            return dynamic_flops(net, inputs=randn(input_size), custom_ops=custom_ops, print_detail=print_detail)
        finally:
            if isinstance(forward, StaticFunction):   # unlike Paddle, give the model its to_static back
                if own is None:
                    del net.__dict__["forward"]
                else:
                    net.__dict__["forward"] = own
    if isinstance(net, Program):
        return static_flops(net, print_detail=print_detail)
    warnings.warn("Your model must be an instance of paddle.nn.Layer or paddle.static.Program.")
    return -1


# -- per-type rules: fn(layer, inputs, output) adds to layer.total_ops ----------------------------------
def count_convNd(m, x, y):
    x = x[0]
    kernel_ops = np.prod(m.weight.shape[2:])
    bias_ops = 1 if m.bias is not None else 0
    total = int(y.numel()) * (x.shape[1] / m._groups * kernel_ops + bias_ops)
    m.total_ops += abs(int(total))


def count_leaky_relu(m, x, y):
    m.total_ops += int(x[0].numel())


def count_bn(m, x, y):
    m.total_ops += abs(int(2 * x[0].numel()))   # counted in eval mode: scale and shift


def count_linear(m, x, y):
    m.total_ops += abs(int(m.weight.shape[0] * int(y.numel())))


def count_avgpool(m, x, y):
    m.total_ops += int(y.numel())


def count_adap_avgpool(m, x, y):
    kernel = np.array(x[0].shape[2:]) // np.array(y.shape[2:])
    m.total_ops += abs(int((np.prod(kernel) + 1) * int(y.numel())))


def count_zero_ops(m, x, y):
    m.total_ops += 0


def _count_parameters(m, x, y):
    m.total_params[0] = abs(int(sum(int(np.prod(p.shape)) for p in m.parameters())))


def _count_io_info(m, x, y):
    m.register_buffer("input_shape", to_tensor(list(x[0].shape), dtype="int64"))
    out = y[0] if isinstance(y, (list, tuple)) else y
    m.register_buffer("output_shape", to_tensor(list(out.shape), dtype="int64"))


register_hooks = {
    nn.Conv1D: count_convNd, nn.Conv2D: count_convNd, nn.Conv3D: count_convNd,
    nn.Conv1DTranspose: count_convNd, nn.Conv2DTranspose: count_convNd, nn.Conv3DTranspose: count_convNd,
    nn.BatchNorm2D: count_bn, nn.BatchNorm: count_bn,
    nn.ReLU: count_zero_ops, nn.ReLU6: count_zero_ops, nn.Dropout: count_zero_ops,
    nn.LeakyReLU: count_leaky_relu,
    nn.Linear: count_linear,
    nn.AvgPool1D: count_avgpool, nn.AvgPool2D: count_avgpool, nn.AvgPool3D: count_avgpool,
    nn.AdaptiveAvgPool1D: count_adap_avgpool, nn.AdaptiveAvgPool2D: count_adap_avgpool,
    nn.AdaptiveAvgPool3D: count_adap_avgpool,
}


def _is_leaf(m):
    return next(iter(m.children()), None) is None


def _counted(m):
    return all(name in m._buffers for name in _COUNTERS)


def dynamic_flops(model, inputs, custom_ops=None, print_detail=False):
    """Run ``model(inputs)`` in eval mode with counting hooks on every leaf layer; the total over the
    leaves that ran."""
    custom_ops = custom_ops or {}
    handles, seen_types = [], set()
    hidden = inside_fused_rnns(model)    # never run in Paddle: never counted

    def add_hooks(m):
        if not _is_leaf(m):
            return
        kind = type(m)
        if id(m) not in hidden:
            m.register_buffer("total_ops", zeros([1], dtype="int64"))
            m.register_buffer("total_params", zeros([1], dtype="int64"))
        first = kind not in seen_types
        if kind in custom_ops:
            fn = custom_ops[kind]
            if first:
                print(f"Customize Function has been applied to {kind}")
        elif kind in register_hooks:
            fn = register_hooks[kind]
            if first:
                print(f"{kind}'s flops has been counted")
        else:
            fn = None
            if first:
                print(f"Cannot find suitable count function for {kind}. Treat it as zero FLOPs.")
        seen_types.add(kind)
        if id(m) in hidden:
            return
        if fn is not None:
            handles.append(m.register_forward_post_hook(fn))
        handles.append(m.register_forward_post_hook(_count_parameters))
        handles.append(m.register_forward_post_hook(_count_io_info))

    training = model.training
    model.eval()
    model.apply(add_hooks)
    try:
        with no_grad():
            model(inputs)
        total_ops = total_params = 0
        table = Table(["Layer Name", "Input Shape", "Output Shape", "Params", "Flops"])
        for m in model.sublayers():
            if _is_leaf(m) and _counted(m):
                total_ops += int(m.total_ops)
                total_params += int(m.total_params)
                table.add_row([m.full_name(), m.input_shape.numpy().tolist(), m.output_shape.numpy().tolist(),
                               int(m.total_params), int(m.total_ops)])
    finally:
        if training:
            model.train()
        for h in handles:
            h.remove()
        for m in model.sublayers(include_self=True):   # leave no counter behind in the state_dict
            for name in _COUNTERS:
                m._buffers.pop(name, None)
                m._non_persistable_buffer_names_set.discard(name)
    if print_detail:
        table.print_table()
    print(f"Total Flops: {int(total_ops)}     Total Params: {int(total_params)}")
    return int(total_ops)
