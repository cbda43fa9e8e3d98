"""How layers and initializers build static Programs: parameters go to the main program's
global block, their initializer ops to the startup program (which runs once; main runs per batch).

`install()` registers the two hooks the nn package consults while static mode is on
(`set_static_parameter_creator`, `set_static_writer`).
"""
from __future__ import annotations

from .program import Parameter, Variable, default_main_program, default_startup_program, program_guard

__all__ = ["create_static_parameter", "write_initializer_output", "install"]


def create_static_parameter(shape, dtype, attr, is_bias, initializer, name):
    """Static counterpart of nn's parameter creation: a Parameter in main, initialised by startup."""
    from .api import make_static_parameter
    main, startup = default_main_program(), default_startup_program()
    existing = main.global_block().vars.get(name)
    if isinstance(existing, Parameter):
        # a second layer built with the same ParamAttr name shares the parameter, as in Paddle
        return existing
    sgb = startup.global_block()
    if name not in sgb.vars:
        # declare and initialise in startup ourselves so the initializer's ops are built there
        sp = sgb.create_parameter(name, list(shape), dtype, trainable=attr.trainable)
        with program_guard(startup, startup):
            initializer(sp, sgb)
    p = make_static_parameter(name, list(shape), dtype, initializer, trainable=attr.trainable,
                              learning_rate=attr.learning_rate, regularizer=attr.regularizer,
                              need_clip=attr.need_clip)
    p.do_model_average = attr.do_model_average
    return p


def write_initializer_output(param, value, block=None):
    """Make the initializer's result ``value`` be ``param``: the op that produced it writes ``param``.

    The ops computing ``value`` are the trailing ops of ``value``'s block; when that block is not in
    ``param``'s program (an initializer called while another program is the default), they move.
    """
    target = block if block is not None else param.block
    if not isinstance(value, Variable):
        raise TypeError(f"initializer for '{param.name}' produced {type(value).__name__}, expected a Variable")
    src = value.block
    chain = _producing_ops(src, value.name)
    if not chain:
        raise RuntimeError(f"initializer for '{param.name}': no op computes '{value.name}'")
    if src.program is not target.program:
        first = src.ops.index(chain[0])
        moved = src.ops[first:]
        del src.ops[first:]
        names = {n for op in moved for n in op.input_arg_names + op.output_arg_names}
        for op in moved:
            op.block = target
            target.ops.append(op)
        for n in names:
            v = src.vars.get(n)
            if v is not None and n not in target.vars and n != param.name:
                del src.vars[n]
                v.block = target
                target.vars[n] = v
        src.program._bump()
    tb = target
    last = chain[-1]
    if value.name != param.name:
        last._rename_output(value.name, param.name)
        tb.vars.pop(value.name, None)
    if param.name not in tb.program.global_block().vars:
        gb = tb.program.global_block()
        gb.vars[param.name] = param
    tb.program._bump()
    return param


def _producing_ops(block, name):
    """The trailing ops of ``block`` that (transitively) compute ``name``, in program order."""
    needed = {name}
    chain = []
    for op in reversed(block.ops):
        if needed & set(op.output_arg_names):
            chain.append(op)
            needed |= set(op.input_arg_names)
        else:
            break
    return chain[::-1]


def install():
    from ..nn.param_attr import set_static_parameter_creator
    from ..nn.initializer.initializer import set_static_writer
    set_static_parameter_creator(create_static_parameter)
    set_static_writer(write_initializer_output)


install()
