"""Scope: where persistable values (parameters, optimizer state) live between executor runs."""
from __future__ import annotations

import numpy as np


class _TensorHolder:
    """What ``scope.find_var(name).get_tensor()`` returns (Paddle's LoDTensor face)."""

    def __init__(self, scope, name):
        self._scope, self._name = scope, name

    def __array__(self, dtype=None, copy=None):
        arr = self._scope.vars[self._name]
        return arr if dtype is None else arr.astype(dtype)

    def set(self, value, place=None):
        self._scope.vars[self._name] = np.array(value, copy=True)

    def shape(self):
        return list(self._scope.vars[self._name].shape)

    def _dtype(self):
        return self._scope.vars[self._name].dtype


class _VarHolder:
    def __init__(self, scope, name):
        self._scope, self._name = scope, name

    def get_tensor(self):
        return _TensorHolder(self._scope, self._name)


class Scope:
    """Name -> numpy array, shared by every run of every program given this scope."""

    def __init__(self):
        self.vars: dict[str, np.ndarray] = {}

    def find_var(self, name):
        return _VarHolder(self, name) if name in self.vars else None

    def var(self, name):
        self.vars.setdefault(name, np.zeros((0,), np.float32))
        return _VarHolder(self, name)

    def __contains__(self, name):
        return name in self.vars

    def __getitem__(self, name):
        return self.vars[name]

    def __setitem__(self, name, value):
        self.vars[name] = value

    def get(self, name, default=None):
        return self.vars.get(name, default)

    def local_var_names(self):
        return list(self.vars)

    def drop_kids(self):
        pass


_global_scope = [Scope()]


def global_scope() -> Scope:
    return _global_scope[0]


class scope_guard:
    """Run with ``scope`` as the global scope (``paddle.static.scope_guard``)."""

    def __init__(self, scope):
        self.scope = scope

    def __enter__(self):
        self.old = _global_scope[0]
        _global_scope[0] = self.scope

    def __exit__(self, *exc):
        _global_scope[0] = self.old
        return False
