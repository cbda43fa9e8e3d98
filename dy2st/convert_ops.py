"""Runtime helpers that converted code calls (imported there as ``_jst``).

Each helper looks at its operands when it runs: a static `Variable` (we are tracing a
Program) builds static control flow or ops; anything else runs plain Python, so converted
code also runs eagerly and on Python values. See `dy2st.transformers` for the code that
calls these.
"""
from __future__ import annotations

import builtins
import contextlib
import operator
import threading

import numpy as np

from runtime import unique_name
from runtime.dispatch import run_op
from runtime.framework import state
from runtime.static.builder import as_variable
from runtime.static.program import Variable, default_main_program
from runtime.tensor import Tensor

from . import cond_lowering, loop_lowering, mutation_log
from .call_conversion import Call  # noqa: F401  (used by converted code)
from .errors import where_text
from .loop_lowering import StaticEnumerate, StaticRange, StaticZip, TensorArrayList
from .undefined import UndefinedVar, UndefinedVariableError, is_maybe_unbound, is_undefined  # noqa: F401

__all__ = ["convert_ifelse", "convert_ifexp", "convert_while_loop", "convert_for_loop", "convert_logical_and",
           "convert_logical_or", "convert_logical_not", "convert_assert", "convert_print", "convert_len",
           "convert_int", "convert_float", "convert_bool", "convert_complex", "convert_inplace_call", "convert_shape",
           "convert_range", "convert_enumerate",
           "convert_zip",
           "return_value", "python_bool", "UndefinedVar", "Call", "convert_setitem", "convert_attr_setitem",
           "convert_container_setitem", "load_attr", "store_attr", "read_maybe_unbound"]


def _is_var(x):
    return isinstance(x, Variable)


def _py_truth(pred, where):
    if isinstance(pred, Tensor):
        return bool(pred)
    if isinstance(pred, TensorArrayList):
        raise TypeError(f"the truth value of a list built in a tensor loop is not known while tracing "
                        f"({where_text(where)})")
    return bool(pred)


# -- if / ternary ---------------------------------------------------------------------------------------------

def convert_ifelse(pred, true_fn, false_fn, get, set_, names, outputs, where=None):
    """``if pred: true_fn() else: false_fn()``; the branches change the caller's state."""
    if _is_var(pred):
        pred = _scalar_bool(pred, "if", where)
        cond_lowering.static_ifelse(pred, true_fn, false_fn, get, set_, names, outputs, where)
        return
    if _py_truth(pred, where):
        true_fn()
    elif false_fn is not None:
        false_fn()


def convert_ifexp(pred, true_fn, false_fn, where=None):
    """``true_fn() if pred else false_fn()``."""
    if not _is_var(pred):
        return true_fn() if _py_truth(pred, where) else false_fn()
    box = [UndefinedVar("<ternary>")]

    def get():
        return (box[0],)

    def set_(v):
        box[0] = v[0]

    def t():
        box[0] = true_fn()

    def f():
        box[0] = false_fn()
    cond_lowering.static_ifelse(_scalar_bool(pred, "conditional expression", where), t, f, get, set_,
                                ("_dy2st_retval_ternary",), (True,), where)
    return box[0]


def _scalar_bool(pred, what, where):
    if pred.dtype.name != "bool":
        pred = run_op("cast", pred, in_dtype=pred.dtype.proto, out_dtype=0)
    if any(d > 1 for d in pred.shape) or any(d < 0 for d in pred.shape):
        if any(d < 0 for d in pred.shape) and len(pred.shape) == 1:
            return pred   # [-1] may hold one element; checked when the op runs
        # as in eager code, this is an error only if the condition is evaluated: an assert op that always
        # fails stands in its place (a branch that never runs, as Paddle's code often has, is fine)
        from runtime.static.control_flow import Assert
        block = default_main_program().current_block()
        Assert(as_variable(block, np.array([False])))
        block.ops[-1].note = (f"the condition of the {what} at {where_text(where)} is a tensor of shape "
                              f"{pred.shape} when it runs; it must hold exactly one element (use paddle.all(x) "
                              "or paddle.any(x))")
        flat = run_op("reshape2", pred, shape=[-1])
        return run_op("slice", flat, axes=[0], starts=[0], ends=[1], infer_flags=[1], decrease_axis=[])
    return pred


# -- loops ----------------------------------------------------------------------------------------------------

def convert_while_loop(cond_fn, body_fn, get, set_, names, loop_mask, where=None, push_pop=()):
    """``while cond_fn(): body_fn()``: Python while the condition is a Python value; a while op
    from the first time it is a Variable. ``push_pop``: names whose list methods the body calls."""
    while True:
        c = cond_fn()
        if _is_var(c):
            loop_lowering.static_while(cond_fn, body_fn, get, set_, names, loop_mask, where, first_cond=c,
                                       push_pop=push_pop)
            return
        if not _py_truth(c, where):
            return
        body_fn()


def convert_for_loop(iterable, body_fn, get, set_, names, loop_mask, where=None, extra_test=None, push_pop=()):
    """``for item in iterable: body_fn(item)`` with an optional ``extra_test`` (break/return flags)."""
    if isinstance(iterable, (StaticRange, StaticEnumerate, StaticZip)) or _is_var(iterable):
        loop_lowering.static_for(iterable, body_fn, get, set_, names, loop_mask, where, extra_test, push_pop)
        return
    if isinstance(iterable, TensorArrayList):
        # its length is known only when the Program runs: a while op over its items
        loop_lowering.static_for(iterable, body_fn, get, set_, names, loop_mask, where, extra_test, push_pop)
        return
    for item in iterable:
        if extra_test is not None:
            t = extra_test()
            if _is_var(t):
                # a break under a tensor condition in an unrolled loop: guard the remaining iterations
                convert_ifelse(t, lambda item=item: body_fn(item), None, get, set_, names, loop_mask, where)
                continue
            if not _py_truth(t, where):
                break
        body_fn(item)


def convert_range(*args):
    if any(_is_var(a) for a in args):
        if len(args) == 1:
            return StaticRange(0, args[0], 1)
        return StaticRange(args[0], args[1], args[2] if len(args) > 2 else 1)
    return builtins.range(*[a.__index__() if isinstance(a, Tensor) else a for a in args])


def convert_enumerate(iterable, start=0):
    if _is_var(iterable) or isinstance(iterable, (StaticRange, StaticZip, TensorArrayList)):
        return StaticEnumerate(iterable, start)
    return builtins.enumerate(iterable, start)


def convert_zip(*iterables, **kwargs):
    """``zip``: a tensor whose first dim is unknown while tracing (a ``None`` batch dim) or a ``range``
    with a tensor bound is iterated by a while op up to the shortest length (Paddle refuses this case;
    iterating the Variable in Python would never end). Anything else is Python's zip."""
    if not kwargs and any((_is_var(a) and (not a.shape or a.shape[0] < 0)) or isinstance(a, (StaticRange,
                                                                                           TensorArrayList))
                          for a in iterables):
        return StaticZip(list(iterables))
    return builtins.zip(*iterables, **kwargs)


# -- logic ----------------------------------------------------------------------------------------------------

def _as_bool_var(x):
    if _is_var(x):
        return x if x.dtype.name == "bool" else run_op("cast", x, in_dtype=x.dtype.proto, out_dtype=0)
    return as_variable(default_main_program().current_block(), np.array(bool(x)))


_guards = threading.local()


@contextlib.contextmanager
def _evaluated_only_if(cond):
    """While the right side of a tensor ``and`` / ``or`` is traced: it runs in every Program run, but eager
    Python evaluates it only when ``cond`` (a bool Variable) holds, so its unbound-name checks apply then."""
    stack = getattr(_guards, "stack", None)
    if stack is None:
        stack = _guards.stack = []
    stack.append(cond)
    try:
        yield
    finally:
        stack.pop()


def convert_logical_and(lhs_fn, rhs_fn):
    """``lhs and rhs``: logical_and when a side is a Variable, Python short-circuit otherwise."""
    lhs = lhs_fn()
    if not _is_var(lhs):
        return rhs_fn() if lhs else lhs
    lhs = _as_bool_var(lhs)
    with _evaluated_only_if(lhs):
        rhs = rhs_fn()
    return run_op("logical_and", lhs, _as_bool_var(rhs))


def convert_logical_or(lhs_fn, rhs_fn):
    lhs = lhs_fn()
    if not _is_var(lhs):
        return lhs if lhs else rhs_fn()
    lhs = _as_bool_var(lhs)
    with _evaluated_only_if(run_op("logical_not", lhs)):
        rhs = rhs_fn()
    return run_op("logical_or", lhs, _as_bool_var(rhs))


def convert_logical_not(x):
    if _is_var(x):
        return run_op("logical_not", _as_bool_var(x))
    return not x


def python_bool(x, what, where=None):
    """A condition where only Python values can work (inside a generator)."""
    if _is_var(x):
        raise TypeError(f"a tensor-dependent {what} at {where_text(where)} cannot be converted: the function is a "
                        "generator (it uses yield), and yield cannot be staged into a Program. Move the "
                        "tensor-dependent control flow into a separate function")
    return x


# -- assert / print -------------------------------------------------------------------------------------------

def convert_assert(cond, message_fn=None, where=None):
    if _is_var(cond):
        from runtime.static.control_flow import Assert
        Assert(_as_bool_var(cond) if cond.dtype.name != "bool" else cond)
        # the message is evaluated now (at trace time, as the rest of the user's Python) and shown
        # when the assert op fails at run time, with the user's line
        note = f"AssertionError at {where_text(where)}" if where else "AssertionError"
        if message_fn is not None:
            try:
                msg = message_fn()
            except Exception as e:      # a message built from run-time values cannot be shown
                msg = f"<the assert message could not be computed while tracing: {type(e).__name__}>"
            if not _is_var(msg):
                note += f": {msg}"
        default_main_program().current_block().ops[-1].note = note
        return
    if isinstance(cond, Tensor):
        cond = bool(cond.all()) if cond.size > 1 else bool(cond)
    if not cond:
        raise AssertionError(message_fn() if message_fn is not None else "")


def read_maybe_unbound(value, name, where=None):
    """A read of ``name``, which may be unbound where it is read. A `MaybeUnbound` (bound on some paths
    through tensor control flow only) gives its value, after an assert op that fails when the Program
    runs a path that did not bind it (eager Python would raise UnboundLocalError there); anything else
    is returned as it is."""
    if not is_maybe_unbound(value):
        if value.__class__ is UndefinedVar:
            # bound on no path that reaches this read (e.g. assigned only after a ``break``): Python's
            # UnboundLocalError here, rather than a confusing error from whatever the placeholder is handed to
            if not state.static or default_main_program().current_block().idx == 0:
                if object.__getattribute__(value, "_why"):
                    value._fail()   # the placeholder knows why (e.g. assigned in one branch of a tensor if)
                raise UndefinedVariableError(
                    f"UnboundLocalError at {where_text(where)}: local variable '{name}' is read here but is not "
                    "assigned on any path that reaches this line; assign it before this line")
            # in a tensor-dependent branch or loop body, which may not run when the Program does: the
            # placeholder goes on (eager Python fails only if the path runs; a use that needs a value fails
            # while converting, naming the placeholder)
        return value
    from runtime.static.control_flow import Assert
    note = (f"UnboundLocalError at {where_text(where)}: local variable '{name}' is read here but "
            f"was not assigned on the path this run took: it is assigned only on some paths through "
            f"the tensor-dependent control flow at {', '.join(value.sites)}. Assign it before that "
            "control flow (or on every path) so it is always bound here")
    box = [value.value]

    def unbound():
        # the condition is named after the variable: a saved model (which keeps no notes) still says which
        block = default_main_program().current_block()
        flag = block.create_var(name=unique_name.generate(f"{name}_is_assigned"), shape=value.flag.shape,
                                dtype=value.flag.dtype, stop_gradient=True)
        block.append_op("assign", {"X": [value.flag]}, {"Out": [flag]})
        Assert(flag)      # (false here: this side runs only when the read is not ok)
        block.ops[-1].note = note

    def get():
        return (box[0],)

    def set_(vals):
        box[0] = vals[0]
    ok = value.flag
    for guard in getattr(_guards, "stack", None) or ():
        # read on the right of a tensor ``and`` / ``or``: only a run that eager Python would evaluate it in
        ok = run_op("logical_or", ok, run_op("logical_not", guard))
    # the value is handed on through a cond whose unbound side holds the failing assert, so the check
    # stays in every Program that uses the value (pruning for jit.save keeps what the outputs need)
    cond_lowering.static_ifelse(ok, lambda: None, unbound, get, set_, (name,), (True,), where)
    return box[0]


def convert_print(*args, **kwargs):
    """``print``: tensors being traced are printed by a print op each time the Program runs."""
    if not any(_is_var(a) for a in args):
        return builtins.print(*args, **kwargs)
    from runtime.static.control_flow import Print
    for a in args:
        if _is_var(a):
            Print(a)
        else:
            builtins.print(a, **{k: v for k, v in kwargs.items() if k in ("sep", "end", "file", "flush")})


# -- casts, len, shape -------------------------------------------------------------------------------------

def _cast(x, dtype_code):
    # int()/float()/bool() give Python numbers eagerly: no gradient flows through them
    out = run_op("cast", x, in_dtype=x.dtype.proto, out_dtype=dtype_code)
    out.stop_gradient = True
    return out


def convert_int(x=0, *args):
    # Paddle's to_static turns int(t) into cast(t, "int32") and float(t) into cast(t, "float32")
    if _is_var(x):
        return _cast(x, 2)
    return builtins.int(x, *args)


def convert_float(x=0.0):
    if _is_var(x):
        return _cast(x, 5)
    return builtins.float(x)


def convert_inplace_call(func, target, *args, **kwargs):
    """``func(target, ...)`` as a statement whose ``target`` the call may update in place: what the name
    holds afterwards (the call's result for Paddle's ``increment``, ``target`` itself otherwise)."""
    from runtime.api.tensor_extra import increment
    if func is increment and _is_var(target):
        # the name is rebound to the result: no in-place write into the Variable (a loop body that
        # overwrote its loop variable in place would hand the while gradient stale values)
        value = args[0] if args else kwargs.get("value", 1.0)
        if any(d > 1 for d in target.shape):
            raise ValueError(f"increment: x must hold exactly one element, got shape {list(target.shape)}")
        return run_op("increment", target, step=float(value))
    result = Call(func)(target, *args, **kwargs)
    return result if func is increment and isinstance(result, Tensor) else target


def convert_complex(real=0, imag=None):
    # Paddle's to_static turns complex(t) into cast(t, "complex64")
    if _is_var(real) and imag is None:
        from runtime.dtype import convert_dtype
        return _cast(real, convert_dtype("complex64").proto)
    if _is_var(real) or _is_var(imag):
        raise TypeError("complex(real, imag) of static tensors is not supported in converted code; use "
                        "paddle.complex(real, imag)")
    return builtins.complex(real) if imag is None else builtins.complex(real, imag)


def convert_bool(x=False):
    if _is_var(x):
        return _cast(x, 0)
    return builtins.bool(x)


def convert_len(x):
    if _is_var(x):
        if x.type == 7 and x.shape and x.shape[0] >= 0:   # LOD_TENSOR with a known first dim
            return x.shape[0]
        if not x.shape and x.type == 7:
            raise TypeError(f"len() of a 0-D tensor '{x.name}'")
        from runtime.static.program import VarType
        if x.type == VarType.LOD_TENSOR_ARRAY:
            return run_op("lod_array_length", x)
        return run_op("slice", _shape64(x), axes=[0], starts=[0], ends=[1], infer_flags=[1], decrease_axis=[0])
    if isinstance(x, TensorArrayList):
        return x.length()
    return builtins.len(x)


_AUG_OPS = {"+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv,
            "//": operator.ifloordiv, "%": operator.imod, "**": operator.ipow, "@": operator.imatmul,
            "&": operator.iand, "|": operator.ior, "^": operator.ixor, "<<": operator.ilshift, ">>": operator.irshift}


def convert_setitem(target, index, value, aug=None):
    """``target[index] = value`` (or ``target[index] <aug>= value``); returns what the name holding
    ``target`` must hold afterwards: a new Variable (a ``set_value`` op) for a static Variable, the same
    object otherwise."""
    if state.static:
        # while tracing, an eager tensor (a buffer the Program reads) is not changed in place at trace
        # time: the assignment becomes an op on its Variable, and the result is written back later
        if isinstance(index, Tensor):
            index = as_variable(default_main_program().current_block(), index)
        if isinstance(target, Tensor):
            target = as_variable(default_main_program().current_block(), target)
    if aug is not None:
        value = _AUG_OPS[aug](target[index], value)
    if _is_var(target):
        from runtime.api.indexing import setitem_value
        return setitem_value(target, index, value)
    mutation_log.record(target)
    target[index] = value
    return target


def convert_free_setitem(target, name, index, value, aug=None):
    """``target[index] = value`` where ``target`` is a free variable of the converted function (a
    closure's dict or list): assigned in place; a static Variable cannot be (its item assignment
    makes a new Variable, and rebinding a free variable would make it local)."""
    new = convert_setitem(target, index, value, aug)
    if new is not target:
        raise TypeError(f"cannot assign an item of '{name}' here: it is a variable of an enclosing function "
                        "and a static tensor while the Program is built, whose item assignment makes a new "
                        f"tensor. Pass '{name}' in as an argument and return the new value, or assign it in the "
                        "function that defines it")


def convert_attr_setitem(obj, attr, index, value, aug=None):
    """``obj.attr[index] = value``: the attribute is set again only when the item assignment made a new
    value (a static Variable), so ordinary objects see a plain item assignment."""
    old = getattr(obj, attr)
    new = convert_setitem(old, index, value, aug)
    if new is not old:
        setattr(obj, attr, new)


def convert_container_setitem(container, key, index, value, aug=None):
    """``container[key][index] = value``; returns ``container`` (a local one is rebound to it)."""
    old = container[key]
    new = convert_setitem(old, index, value, aug)
    if new is not old:
        if _is_var(container):
            raise TypeError(f"cannot assign into an element of an element of a static Variable "
                            f"(x[{key!r}][...] = v); index it once instead: x[{key!r}, ...] = v")
        mutation_log.record(container)
        container[key] = new
    return container


def load_attr(obj, path):
    """``obj.<path>`` for branch/loop state, or an UndefinedVar naming it when it does not exist yet."""
    for part in path.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            return UndefinedVar(path)
    return obj


def store_attr(obj, path, value):
    """``obj.<path> = value`` after a converted branch or loop (a value left undefined is not set)."""
    if is_undefined(value):
        return
    *parents, last = path.split(".")
    for part in parents:
        obj = getattr(obj, part)
    if getattr(obj, last, None) is not value:
        setattr(obj, last, value)


def _shape64(x):
    """shape(x) as int64, what Paddle 3.x's x.shape / len(x) give for unknown dims (the legacy op is int32)."""
    from runtime.api.manipulation import shape
    return shape(x)


def convert_shape(x):
    """``x.shape``: for a Variable, a list of ints for known dims and int64 tensors for unknown ones."""
    if _is_var(x) and any(d < 0 for d in x.shape):
        shp = None
        out = []
        for k, d in enumerate(x.shape):
            if d >= 0:
                out.append(d)
            else:
                shp = _shape64(x) if shp is None else shp
                out.append(run_op("slice", shp, axes=[0], starts=[k], ends=[k + 1], infer_flags=[1],
                                  decrease_axis=[0]))
        return out
    return x.shape


def return_value(v):
    """The final ``return``: None when no return statement ran; a variable of the user's that is unbound
    here (``return p`` where nothing bound ``p``) fails as in eager Python."""
    if is_undefined(v):
        from .undefined import undefined_name
        if not undefined_name(v).startswith(cond_lowering.RETVAL_PREFIX):
            v._fail()
        return None
    return v

