"""``paddle.utils`` nested-structure helpers (``flatten``, ``pack_sequence_as``, ``map_structure``,
``assert_same_structure`` ...) and argument converters (``convert_to_list``, ``is_same_shape`` ...),
with Paddle's rules: a dict is a structure whose values are visited in sorted-key order, a string is
a leaf, a namedtuple is rebuilt field by field."""
from __future__ import annotations

import copy
from collections.abc import Sequence

__all__ = ["NotSupportedTensorArgumentError", "convert_to_list", "is_sequence", "to_sequence", "flatten",
           "pack_sequence_as", "map_structure", "hold_mutable_vars", "copy_mutable_vars", "assert_same_structure",
           "padding_to_same_structure", "is_same_shape", "convert_shape_to_list", "check_shape"]


class NotSupportedTensorArgumentError(TypeError):
    """A Tensor was given where a Python number is required; ``name`` is the argument."""

    def __init__(self, msg, name):
        super().__init__(msg)
        self.name = name


def _is_tensor(x):
    from runtime.static.program import Variable
    from runtime.tensor import Tensor
    return isinstance(x, (Tensor, Variable))


def convert_to_list(value, n, name, dtype=int):
    """``value`` (one ``dtype`` number or an iterable of ``n``) as a list of ``n``; errors name ``name``."""
    if isinstance(value, dtype):
        return [value] * n
    if _is_tensor(value):
        raise NotSupportedTensorArgumentError(f"`{name}` required numerical type with `{dtype}`, but received Tensor.",
                                              name)
    try:
        value_list = list(value)
    except TypeError:
        raise ValueError(f"The {name}'s type must be list or tuple. Received: {value}") from None
    if len(value_list) != n:
        raise ValueError(f"The {name}'s length must be {n}. Received: {value}")
    for single in value_list:
        if _is_tensor(single):
            raise NotSupportedTensorArgumentError(
                f"`{name}` required numerical type with `{dtype}`, but received Tensor.", name)
        try:
            dtype(single)
        except (ValueError, TypeError):
            raise ValueError(f"The {name}'s type must be a list or tuple of {n} {dtype}. Received: {value} including "
                             f"element {single} of type {type(single)}") from None
    return value_list


def is_sequence(seq):
    """Whether ``seq`` is a structure (a dict, or a sequence that is not a string) rather than a leaf."""
    if isinstance(seq, dict):
        return True
    return isinstance(seq, Sequence) and not isinstance(seq, str)


def to_sequence(nest):
    return nest if is_sequence(nest) else [nest]


def _sorted_keys(d):
    try:
        return sorted(d.keys())
    except TypeError:
        raise TypeError("nest only supports dicts with sortable keys.") from None


def _values(nest):
    if isinstance(nest, dict):
        return [nest[k] for k in _sorted_keys(nest)]
    return list(nest)


def flatten(nest):
    """The leaves of ``nest`` in order (dict values by sorted key); a leaf gives ``[leaf]``."""
    if not is_sequence(nest):
        return [nest]
    out = []
    for item in _values(nest):
        if is_sequence(item):
            out.extend(flatten(item))
        else:
            out.append(item)
    return out


def _sequence_like(instance, items):
    """``items`` as a container of ``instance``'s type (dict: keyed back in its order; namedtuple: by field)."""
    if isinstance(instance, dict):
        by_key = dict(zip(_sorted_keys(instance), items))
        return type(instance)((k, by_key[k]) for k in instance.keys())
    fields = getattr(instance, "_fields", None)
    if isinstance(instance, tuple) and isinstance(fields, Sequence) and all(isinstance(f, str) for f in fields):
        return type(instance)(*items)
    return type(instance)(items)


def _pack(structure, flat, index):
    packed = []
    for s in _values(structure):
        if is_sequence(s):
            index, child = _pack(s, flat, index)
            packed.append(_sequence_like(s, child))
        else:
            packed.append(flat[index])
            index += 1
    return index, packed


def pack_sequence_as(structure, flat_sequence):
    """``structure`` with its leaves replaced, in order, by ``flat_sequence``."""
    if not is_sequence(flat_sequence):
        raise TypeError("flat_sequence must be a sequence")
    flat = list(flat_sequence.values()) if isinstance(flat_sequence, dict) else list(flat_sequence)
    if not is_sequence(structure):
        if len(flat) != 1:
            raise ValueError(f"Structure is a scalar but len(flat_sequence) == {len(flat)} > 1")
        return flat[0]
    n = len(flatten(structure))
    if n != len(flat):
        raise ValueError(f"Could not pack sequence. Structure had {n} elements, but flat_sequence had {len(flat)} "
                         f"elements. Structure: {structure}, flat_sequence: {flat_sequence}.")
    return _sequence_like(structure, _pack(structure, flat, 0)[1])


def map_structure(func, *structure):
    """``func`` applied leaf by leaf to the structures (zipped), packed as the first one."""
    flats = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flats)])


def hold_mutable_vars(structure):
    """Whether any item of ``structure`` is itself a structure (a list/dict that could change)."""
    return any(is_sequence(s) for s in structure)


def copy_mutable_vars(structure):
    """A copy of the containers of ``structure`` (the leaves are shared)."""
    return pack_sequence_as(structure, copy.copy(flatten(structure)))


def _assert_same(nest1, nest2, check_types, skip_if):
    if skip_if is not None and (skip_if(nest1) or skip_if(nest2)):
        return
    seq1 = is_sequence(nest1)
    if seq1 != is_sequence(nest2):
        raise ValueError("The two structures don't have the same nested structure.\n\n"
                         f"First structure: {nest1}\n\nSecond structure: {nest2}.")
    if not seq1:
        return
    if check_types:
        if type(nest1) is not type(nest2):
            raise TypeError("The two structures don't have the same sequence type. First structure has type "
                            f"{type(nest1)}, while second structure has type {type(nest2)}.")
        if isinstance(nest1, dict) and set(nest1) != set(nest2):
            raise ValueError("The two dictionaries don't have the same set of keys. First structure has keys "
                             f"{set(nest1)}, while second structure has keys {set(nest2)}.")
    items1, items2 = _values(nest1), _values(nest2)
    if len(items1) != len(items2):
        raise ValueError("The two structures don't have the same number of elements.\n\n"
                         f"First structure ({len(items1)} elements): {nest1}\n\n"
                         f"Second structure ({len(items2)} elements): {nest2}")
    for a, b in zip(items1, items2):
        _assert_same(a, b, check_types, skip_if)


def assert_same_structure(nest1, nest2, check_types=True, skip_if=None):
    """Raise (ValueError / TypeError) unless the two structures nest the same way."""
    if skip_if is not None and (skip_if(nest1) or skip_if(nest2)):
        return
    n1 = len(flatten(nest1)) if is_sequence(nest1) else 1
    n2 = len(flatten(nest2)) if is_sequence(nest2) else 1
    if n1 != n2 and skip_if is None:
        raise ValueError("The two structures don't have the same number of elements.\n\n"
                         f"First structure ({n1} elements): {nest1}\n\nSecond structure ({n2} elements): {nest2}")
    _assert_same(nest1, nest2, check_types, skip_if)


def padding_to_same_structure(nest1, nest2, obj=None):
    """Both structures with every ``None`` leaf replaced by ``obj``."""
    def pad(value):
        if is_sequence(value):
            return pack_sequence_as(value, [obj if x is None else x for x in flatten(value)])
        return obj if value is None else value
    return pad(nest1), pad(nest2)


def is_same_shape(shape1, shape2):
    """Whether two shapes agree; in static mode -1 (or a Tensor) matches any size."""
    from runtime.framework import in_dynamic_mode
    if in_dynamic_mode():
        return shape1 == shape2
    if _is_tensor(shape1) or _is_tensor(shape2):
        return True
    if len(shape1) != len(shape2):
        return False
    return all(_is_tensor(a) or _is_tensor(b) or a == -1 or b == -1 or a == b for a, b in zip(shape1, shape2))


def convert_shape_to_list(shape):
    """A shape given as a list/tuple (of ints or 1-element Tensors) or as a Tensor, as a list of ints."""
    if isinstance(shape, (list, tuple)):
        out = []
        for x in shape:
            if _is_tensor(x):
                if int(x.size) > 0:
                    out.append(x.item(0))
            else:
                out.append(x)
        return out
    if _is_tensor(shape) and hasattr(shape, "numpy"):
        return shape.numpy().astype(int).tolist()
    return shape


def check_shape(shape):
    """Raise unless ``shape`` is an int32/int64 Tensor or a list/tuple of non-negative ints (or such Tensors)."""
    def check_dtype(t, what):
        if str(t.dtype).replace("paddle.", "") not in ("int32", "int64"):
            raise TypeError(f"The data type of '{what}' in fill_constant must be int32 or int64, but received "
                            f"{str(t.dtype).replace('paddle.', '')}.")
    if _is_tensor(shape):
        check_dtype(shape, "shape")
    elif isinstance(shape, (list, tuple)):
        for ele in shape:
            if _is_tensor(ele):
                check_dtype(ele, "element of shape")
                continue
            if ele < 0:
                raise ValueError("All elements in ``shape`` must be positive when it's a list or tuple")
            if not isinstance(ele, int):
                raise TypeError("All elements in ``shape`` must be integers when it's a list or tuple")
