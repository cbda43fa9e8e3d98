"""``paddle.jit.dy2static.convert_operators``: the operator functions with Paddle's signatures.

Code converted by dy2st calls `dy2st.convert_ops`, whose signatures carry more (source locations,
which names are branch outputs). The functions here take exactly Paddle's arguments, so code
written against Paddle's converted form (``_jst.IfElse(pred, true_fn, false_fn, get_args, set_args,
names)``, ``_jst.Len(x)``, ...) runs on our implementation. ``convert_auto_cast`` (AMP regions inside
a Program) has no meaning here and raises.
"""
from __future__ import annotations

import builtins

from runtime.static.program import Variable

from ... import convert_ops as _ops
from ...call_conversion import Call as convert_call  # noqa: F401
from ...static_function import in_to_static_mode  # noqa: F401  (Paddle imports it from here too)
from ...undefined import UndefinedVar

__all__ = ["convert_attr", "convert_load", "indexable", "unpack_by_structure", "convert_while_loop",
           "convert_logical_and", "convert_logical_or", "convert_logical_not", "convert_ifelse", "convert_len",
           "convert_zip", "convert_super", "convert_enumerate", "convert_range", "convert_shape", "convert_var_dtype",
           "convert_assert", "convert_print", "convert_auto_cast", "create_bool_as_type", "to_static_variable",
           "cast_bool_if_necessary", "convert_call"]


def _names(return_name_ids):
    if return_name_ids is None:
        return ()
    return (return_name_ids,) if isinstance(return_name_ids, str) else tuple(return_name_ids)


def _state(get_args, names):
    """Paddle's get_args returns one value per name (a tuple, or None when there are none)."""
    vals = get_args() if names else ()
    return tuple(vals) if isinstance(vals, (tuple, list)) else (vals,)


def convert_ifelse(pred, true_fn, false_fn, get_args, set_args, return_name_ids, push_pop_names=None):
    """``if pred: true_fn() else: false_fn()``. The branches change the names in ``return_name_ids``
    (read with ``get_args()``, written with ``set_args(values)``) and may also return a value, which is
    returned: a tensor ``pred`` builds a conditional block whose outputs are those names and that value."""
    names = _names(return_name_ids)
    if not isinstance(pred, Variable):
        return true_fn() if _ops._py_truth(pred, None) else false_fn()
    box = [None]

    def get():
        return _state(get_args, names) + (box[0],)

    def set_(vals):
        vals = tuple(vals)
        if names:
            set_args(vals[:-1])
        box[0] = vals[-1]

    def branch(fn):
        def run():
            box[0] = fn()
        return run
    _ops.convert_ifelse(pred, branch(true_fn), branch(false_fn), get, set_, names + ("__return_value",),
                        (True,) * (len(names) + 1))
    return box[0]


def convert_while_loop(cond, body, getter, setter, return_name_ids=None, push_pop_names=None):
    """``while cond(): body()``; the loop state is the names in ``return_name_ids`` (read with
    ``getter()``, written with ``setter(values)``). A tensor condition builds a while op."""
    names = _names(return_name_ids)
    _ops.convert_while_loop(cond, body, lambda: _state(getter, names), setter, names, (True,) * len(names))


def convert_logical_and(x_func, y_func):
    """``x and y`` with both operands as functions: Python short-circuit, or logical_and of tensors."""
    return _ops.convert_logical_and(x_func, y_func)


def convert_logical_or(x_func, y_func):
    """``x or y`` with both operands as functions: Python short-circuit, or logical_or of tensors."""
    return _ops.convert_logical_or(x_func, y_func)


def convert_logical_not(x):
    """``not x``: logical_not of a tensor being traced, Python ``not`` otherwise."""
    return _ops.convert_logical_not(x)


def convert_len(var):
    """``len(var)``: the known first dim of a traced tensor, else a tensor holding it (the length of a
    tensor array for an array); Python ``len`` otherwise."""
    return _ops.convert_len(var)


def convert_shape(x):
    """``x.shape``: for a traced tensor, its dims as a list, unknown dims as int64 tensors."""
    return _ops.convert_shape(x)


def convert_assert(cond, message=""):
    """``assert cond, message``: an assert op for a traced tensor (it fails when the Program runs)."""
    return _ops.convert_assert(cond, (lambda: message) if message else None)


def convert_print(*objects, sep=" ", end="\n", file=None, flush=False):
    """``print``: traced tensors are printed by a print op each time the Program runs."""
    return _ops.convert_print(*objects, sep=sep, end=end, file=file, flush=flush)


def convert_zip(*args):
    """``zip``; a traced tensor whose first dim is unknown cannot be zipped (as in Paddle)."""
    for i, arg in enumerate(args):
        if isinstance(arg, Variable) and arg.shape and arg.shape[0] < 0:
            raise RuntimeError("Not support zip(tensor, ...) when tensor.shape[0] == -1, "
                               f"but found args[{i}].shape[0] == -1 in 'zip'")
    return builtins.zip(*args)


def convert_enumerate(*args):
    """``enumerate``, over a traced tensor too."""
    return _ops.convert_enumerate(*args)


def convert_range(*args):
    """``range``, with traced-tensor bounds too."""
    return _ops.convert_range(*args)


def convert_super(super_fn):
    """``super``: the builtin is returned as it is; another ``super`` callable is called for the object."""
    if super_fn is builtins.super:
        return super_fn
    return lambda cls, instance: super_fn()


def convert_attr(x, attr):
    """``x.attr``."""
    return getattr(x, attr)


def convert_load(x):
    """A name's value as converted code reads it: the value itself here."""
    return x


def indexable(x, code=None):
    """``x`` as something indexable: a traced tensor as it is, an iterable as a list."""
    if isinstance(x, Variable):
        return x
    if hasattr(x, "__iter__"):
        return list(x)
    if hasattr(x, "__len__") and hasattr(x, "__getitem__"):
        return x
    raise RuntimeError("X can't be convert into indexable.")


def unpack_by_structure(target, structure):
    """Unpack ``target`` by ``structure`` (1 for a leaf, a list for a nested level)."""
    if structure == 1:
        return target
    out = []
    for i, ele in enumerate(structure):
        if ele == 1:
            out.append(target[i])
        elif isinstance(ele, list):
            out.append(unpack_by_structure(target[i], ele))
        else:
            raise AssertionError("structure element must be 1 or list")
    return out


_CASTS = {"bool": "bool", "int": "int32", "float": "float32", "complex": "complex64"}


def convert_var_dtype(var, dtype):
    """``bool(x)`` / ``int(x)`` / ``float(x)`` / ``complex(x)`` (``dtype`` names the builtin): a cast
    of a traced tensor (to bool, int32, float32, complex64, as Paddle's), the builtin otherwise."""
    if dtype not in _CASTS:
        raise AssertionError(f"The casted target dtype is {dtype}, which is not supported in type casting.")
    if isinstance(var, Variable):
        from runtime.api.manipulation import cast
        return cast(var, _CASTS[dtype])
    return getattr(builtins, dtype)(var)


def cast_bool_if_necessary(var):
    """A traced tensor as bool (cast unless it is bool already)."""
    if not isinstance(var, Variable):
        raise TypeError(f"cast_bool_if_necessary: expected a static Variable, got {type(var).__name__}")
    if var.dtype.name == "bool":
        return var
    from runtime.api.manipulation import cast
    return cast(var, "bool")


def create_bool_as_type(x, value=True):
    """``value`` as a 0-D bool tensor when ``x`` is a traced tensor, the Python bool otherwise."""
    if isinstance(x, Variable):
        from runtime.api.creation import full
        return full([], value, "bool")
    return value


def to_static_variable(x, dtype=None):
    """Python bool/float/int as a 0-D tensor (bool, float64, int64 unless ``dtype``), containers item by
    item; tensors as they are."""
    from runtime.api.creation import full
    if isinstance(x, bool):
        return full([], x, dtype or "bool")
    if isinstance(x, float):
        return full([], x, dtype or "float64")
    if isinstance(x, int):
        return full([], x, dtype or "int64")
    if isinstance(x, UndefinedVar) or x is None:
        return x
    if isinstance(x, (list, tuple)):
        return type(x)(to_static_variable(v) for v in x)
    if isinstance(x, dict):
        return {k: to_static_variable(v) for k, v in x.items()}
    return x


def convert_auto_cast(enable=True, custom_white_list=None, custom_black_list=None, level="O1", dtype="float16",
                      use_promote=True):
    """Paddle's AMP region inside a legacy Program (auto parallel only): not available here."""
    raise NotImplementedError("paddle.jit.dy2static.convert_operators.convert_auto_cast (paddle.amp.auto_cast "
                              "regions recorded inside a static Program, for auto parallel) is not implemented in "
                              "dy2st; Programs here run in the dtype they were built in")
