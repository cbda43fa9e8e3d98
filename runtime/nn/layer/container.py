"""Container layers: Sequential, LayerList, LayerDict, ParameterList."""
from __future__ import annotations

import collections
from collections.abc import Mapping

from ...tensor import Parameter
from .layers import Layer
from ...api.param_alias import param_alias

__all__ = ["Sequential", "LayerList", "LayerDict", "ParameterList"]


def _norm_index(idx, n, where):
    if not isinstance(idx, int):
        idx = getattr(idx, "__index__", lambda: None)()
        if idx is None:
            raise TypeError(f"{where}: index must be an int or a slice")
    if idx < -n or idx >= n:
        raise IndexError(f"index {idx} is out of range, should be an integer in range [{-n}, {n})")
    return idx + n if idx < 0 else idx


class Sequential(Layer):
    """Runs its sublayers one after another. Build it from layers (named "0", "1" ...),
    from ``(name, layer)`` pairs, or from an OrderedDict."""

    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], (collections.OrderedDict, dict)):
            for name, layer in layers[0].items():
                self.add_sublayer(name, layer)
        elif len(layers) > 0 and isinstance(layers[0], (list, tuple)):
            for item in layers:
                if not (isinstance(item, (list, tuple)) and len(item) == 2):
                    raise TypeError("Sequential: when the first argument is a (name, layer) pair, every argument "
                                    f"must be one; got {type(item).__name__}")
                self.add_sublayer(str(item[0]), item[1])
        else:
            for idx, layer in enumerate(layers):
                if not isinstance(layer, Layer):
                    raise TypeError(f"Sequential: argument {idx} must be a paddle.nn.Layer, got {type(layer).__name__}")
                self.add_sublayer(str(idx), layer)

    def __getitem__(self, name):
        if isinstance(name, slice):
            return self.__class__(*(list(self._sub_layers.values())[name]))
        if isinstance(name, str):
            return self._sub_layers[name]
        idx = _norm_index(name, len(self._sub_layers), "Sequential")
        return list(self._sub_layers.values())[idx]

    def __setitem__(self, name, layer):
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential: can only hold Layers, got {type(layer).__name__}")
        if isinstance(name, str):
            self.add_sublayer(name, layer)
            return
        idx = _norm_index(name, len(self._sub_layers), "Sequential")
        key = list(self._sub_layers.keys())[idx]
        self._sub_layers[key] = layer

    def __delitem__(self, name):
        if isinstance(name, slice):
            for key in list(self._sub_layers.keys())[name]:
                del self._sub_layers[key]
            return
        if isinstance(name, str):
            del self._sub_layers[name]
            return
        idx = _norm_index(name, len(self._sub_layers), "Sequential")
        del self._sub_layers[list(self._sub_layers.keys())[idx]]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, layer):
        self.add_sublayer(str(len(self._sub_layers)), layer)
        return self

    def insert(self, index, layer):
        if not isinstance(layer, Layer):     # Paddle raises AssertionError here
            raise AssertionError(f"Sequential.insert: the layer must be a paddle.nn.Layer, got {type(layer).__name__}")
        n = len(self._sub_layers)
        if not -n <= index <= n:
            raise IndexError(f"index {index} is out of range, should be an integer in range [{-n}, {n}]")
        if index < 0:
            index += n
        items = list(self._sub_layers.values())
        items.insert(index, layer)
        self._sub_layers.clear()
        for i, item in enumerate(items):
            self.add_sublayer(str(i), item)
        return self

    def extend(self, layers):
        for layer in layers:
            self.append(layer)
        return self

    def forward(self, input):
        for layer in self._sub_layers.values():
            input = layer(input)
        return input


class LayerList(Layer):
    """A list of sublayers (registered as "0", "1" ...), indexable and iterable."""

    @param_alias(sublayers="modules")
    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            for idx, layer in enumerate(sublayers):
                self.add_sublayer(str(idx), layer)

    def _reindex(self, layers):
        self._sub_layers.clear()
        for i, layer in enumerate(layers):
            self.add_sublayer(str(i), layer)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._sub_layers.values())[idx])
        idx = _norm_index(idx, len(self), "LayerList")
        return self._sub_layers[str(idx)]

    def __setitem__(self, idx, sublayer):
        idx = _norm_index(idx, len(self), "LayerList")
        self.add_sublayer(str(idx), sublayer)

    def __delitem__(self, idx):
        layers = list(self._sub_layers.values())
        if isinstance(idx, slice):
            del layers[idx]
        else:
            del layers[_norm_index(idx, len(self), "LayerList")]
        self._reindex(layers)

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def __iadd__(self, sublayers):
        return self.extend(sublayers)

    def __add__(self, other):
        return self.__class__(list(self) + list(other))

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    @param_alias(sublayer="module")
    def append(self, sublayer):
        """Add ``sublayer`` at the end; returns this list."""
        self.add_sublayer(str(len(self)), sublayer)
        return self

    @param_alias(sublayer="module")
    def insert(self, index, sublayer):
        """Insert ``sublayer`` before position ``index`` (negative counts from the end)."""
        n = len(self)
        if not isinstance(index, int) or not -n <= index <= n:
            raise IndexError(f"index {index} is out of range, should be an integer in range [{-n}, {n}]")
        if index < 0:
            index += n
        layers = list(self._sub_layers.values())
        layers.insert(index, sublayer)
        self._reindex(layers)

    @param_alias(sublayers="modules")
    def extend(self, sublayers):
        """Append every layer of ``sublayers``; returns this list."""
        offset = len(self)
        for i, layer in enumerate(sublayers):
            self.add_sublayer(str(offset + i), layer)
        return self

    def pop(self, index=-1):
        layers = list(self._sub_layers.values())
        item = layers.pop(_norm_index(index, len(layers), "LayerList"))
        self._reindex(layers)
        return item


class LayerDict(Layer):
    """An ordered dict of sublayers (``ld["name"]``, keys/values/items, update, pop)."""

    @param_alias(sublayers="modules")
    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, sublayer):
        self.add_sublayer(key, sublayer)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key):
        return key in self._sub_layers

    def clear(self):
        self._sub_layers.clear()

    def pop(self, key):
        value = self._sub_layers[key]
        del self._sub_layers[key]
        return value

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()

    @param_alias(sublayers="modules")
    def update(self, sublayers):
        """Add layers from a mapping or an iterable of ``(name, layer)`` pairs."""
        if not isinstance(sublayers, collections.abc.Iterable):     # Paddle asserts this
            raise AssertionError("LayerDict.update: sublayers must be a mapping or an iterable of (name, layer) "
                                 f"pairs, got {type(sublayers).__name__}")
        if isinstance(sublayers, (collections.OrderedDict, LayerDict, Mapping)):
            for key, layer in sublayers.items():
                self.add_sublayer(key, layer)
            return
        for i, kv in enumerate(sublayers):
            if not isinstance(kv, (list, tuple)) or len(kv) != 2:
                raise ValueError(f"LayerDict.update: element {i} must be a (name, layer) pair, got {kv!r}")
            self.add_sublayer(kv[0], kv[1])


class ParameterList(Layer):
    """A list of Parameters registered as "0", "1" ..., seen by ``parameters()``."""

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            for idx, p in enumerate(parameters):
                self.add_parameter(str(idx), p)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return list(self._parameters.values())[idx]
        idx = _norm_index(idx, len(self), "ParameterList")
        return self._parameters[str(idx)]

    def __setitem__(self, idx, param):
        if not isinstance(param, Parameter):
            raise TypeError(f"ParameterList: can only hold Parameters, got {type(param).__name__}")
        idx = _norm_index(idx, len(self), "ParameterList")
        self._parameters[str(idx)] = param

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, parameter):
        """Add ``parameter`` at the end; returns this list."""
        self.add_parameter(str(len(self._parameters)), parameter)
        return self

    def extend(self, parameters):
        for p in parameters:
            self.append(p)
        return self
