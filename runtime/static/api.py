"""Static-graph entry points that create variables: data, create_parameter, create_global_var."""
from __future__ import annotations

import contextlib

from .. import unique_name
from ..device import CPUPlace
from ..dtype import convert_dtype
from .program import default_main_program, default_startup_program

__all__ = ["data", "create_parameter", "create_global_var", "cpu_places", "device_guard", "name_scope"]


def data(name, shape, dtype=None, lod_level=0):
    """An input variable of the default main program, fed by name (``None``/-1 dims are dynamic)."""
    from ..framework import state
    # as Paddle: an assertion outside static mode (dygraph has no program to add an input to)
    assert state.static, ("In PaddlePaddle 2.x, we turn on dynamic graph mode by default, and 'data()' is only "
                          "supported in static graph mode. So if you want to use this api, please call "
                          "'paddle.enable_static()' before this api to enter static graph mode.")
    if not isinstance(name, str) or not name:
        raise ValueError(f"static.data: name must be a non-empty string, got {name!r}")
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"static.data: shape must be a list or tuple, got {type(shape).__name__}")
    shape = [-1 if d is None else int(d) for d in shape]
    gb = default_main_program().global_block()
    v = gb.create_var(name=name, shape=shape, dtype=convert_dtype(dtype or "float32"),
                      stop_gradient=True, is_data=True, need_check_feed=True)
    return v


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False, default_initializer=None):
    """A parameter in the main program with its initializer op in the startup program."""
    from ..nn.param_attr import ParamAttr
    from ..nn import initializer as init
    attr = ParamAttr._to_attr(attr) if hasattr(ParamAttr, "_to_attr") else (attr or ParamAttr())
    name = name or (attr.name if attr is not None and attr.name else unique_name.generate("create_parameter") + ".w_0")
    initializer = (attr.initializer if attr is not None and attr.initializer is not None else
                   default_initializer or (init.Constant(0.0) if is_bias else init.XavierUniform()))
    return make_static_parameter(name, shape, dtype, initializer,
                                 trainable=attr.trainable if attr is not None else True,
                                 learning_rate=attr.learning_rate if attr is not None else 1.0,
                                 regularizer=attr.regularizer if attr is not None else None,
                                 need_clip=attr.need_clip if attr is not None else True)


def make_static_parameter(name, shape, dtype, initializer, trainable=True, learning_rate=1.0,
                          regularizer=None, need_clip=True):
    """Declare the parameter in main and startup programs and append its initializer to startup."""
    main, startup = default_main_program(), default_startup_program()
    p = main.global_block().create_parameter(name, shape, convert_dtype(dtype), trainable=trainable,
                                             initializer=initializer,
                                             optimize_attr={"learning_rate": learning_rate},
                                             regularizer=regularizer, need_clip=need_clip)
    sp = startup.global_block().vars.get(name)
    if sp is None:
        from .program import program_guard
        sp = startup.global_block().create_parameter(name, shape, convert_dtype(dtype), trainable=trainable)
        with program_guard(startup, startup):   # initializer ops belong to the startup program
            initializer(sp, startup.global_block())
    return p


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """A global variable filled with ``value`` by the startup program."""
    from ..dispatch import run_op
    from .program import program_guard
    name = name or unique_name.generate("global_var")
    d = convert_dtype(dtype)
    main, startup = default_main_program(), default_startup_program()
    v = main.global_block().create_var(name=name, shape=shape, dtype=d, persistable=persistable)
    sv = startup.global_block().create_var(name=name, shape=shape, dtype=d, persistable=persistable)
    with program_guard(startup):
        out = run_op("fill_constant", dtype=d.proto, shape=list(shape), value=float(value),
                     str_value=str(int(value)) if d.np.kind in "biu" else str(float(value)))
    startup.global_block()._rename_var(out.name, name) if out.name != name and name not in \
        startup.global_block().vars else _assign_into(startup, out, sv)
    return v


def _assign_into(program, src, dst):
    op = program.global_block().ops[-1]
    op._rename_output(src.name, dst.name)
    del program.global_block().vars[src.name]


def cpu_places(device_count=None):
    return [CPUPlace() for _ in range(device_count or 1)]


@contextlib.contextmanager
def device_guard(device=None):
    yield


@contextlib.contextmanager
def name_scope(prefix=None):
    yield
