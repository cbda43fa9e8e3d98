"""``paddle.jit.utils``: ``OrderedSet``, a set that keeps insertion order (as Paddle's)."""
from __future__ import annotations

__all__ = ["OrderedSet"]


class OrderedSet:
    """A set whose iteration order is the order items were first added; ``|``, ``&``, ``-``, ``^``
    and their in-place forms keep the left operand's order, then the right one's."""

    def __init__(self, items=None):
        self._data = dict.fromkeys(items) if items is not None else {}

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def __bool__(self):
        return bool(self._data)

    def __contains__(self, item):
        return item in self._data

    def add(self, item):
        self._data[item] = None

    def remove(self, item):
        del self._data[item]

    def __or__(self, other):
        return OrderedSet([*self, *other])

    def __and__(self, other):
        return OrderedSet(x for x in self if x in other)

    def __sub__(self, other):
        return OrderedSet(x for x in self if x not in other)

    def __xor__(self, other):
        return OrderedSet([*(x for x in self if x not in other), *(x for x in other if x not in self)])

    def __ior__(self, other):
        self._data = (self | other)._data
        return self

    def __iand__(self, other):
        self._data = (self & other)._data
        return self

    def __isub__(self, other):
        self._data = (self - other)._data
        return self

    def __ixor__(self, other):
        self._data = (self ^ other)._data
        return self

    def __eq__(self, other):
        if not isinstance(other, OrderedSet):
            return NotImplemented
        return list(self) == list(other)

    __hash__ = None

    def __repr__(self):
        return f"OrderedSet({', '.join(map(repr, self))})"
