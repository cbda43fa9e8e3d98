"""`Layer`: the base class of every model and layer (``paddle.nn.Layer``).

A Layer owns parameters, buffers and sublayers in three ordered dicts (`_parameters`,
`_buffers`, `_sub_layers`, the names Paddle code reaches into). Assigning a Parameter,
a Layer or a Tensor to an attribute registers it there; `state_dict` walks them with
dotted structured names (``fc.weight``, ``bn._mean``) in registration order.
"""
from __future__ import annotations

import collections
import itertools
import re
import warnings
from typing import NamedTuple

import numpy as np

from ...dtype import DType, convert_dtype, default_float, from_numpy_dtype
from ...dtype import float16 as _float16, float32 as _float32, float64 as _float64
from ... import unique_name
from ...tensor import Tensor, Parameter, TensorMethods
from ..param_attr import _make_parameter
from ...api.param_alias import param_alias, rename_kwargs


def _is_parameter(value):
    """Eager Parameters, and the static-mode Parameters layers create inside a Program."""
    return isinstance(value, Parameter) or getattr(type(value), "is_static_parameter", False)

__all__ = ["Layer"]


def _snake_name(class_name: str) -> str:
    """Paddle's layer name scope from a class name: ``BatchNorm2D`` -> ``batch_norm2d``,
    ``LSTMCell`` -> ``lstm_cell``, ``ReLU6`` -> ``re_lu6``."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", class_name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


def _add_indent(text: str, n: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    pad = " " * n
    return lines[0] + "\n" + "\n".join(pad + line for line in lines[1:])


class HookRemoveHelper:
    """Handle returned by ``register_forward_*_hook``; ``remove()`` unregisters the hook."""

    _next_id = itertools.count()

    def __init__(self, hooks, extra_dicts=()):
        self._hooks = hooks
        self._extra = tuple(extra_dicts)
        self._hook_id = next(HookRemoveHelper._next_id)

    def remove(self):
        self._hooks.pop(self._hook_id, None)
        for d in self._extra:
            d.pop(self._hook_id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False


class _IncompatibleKeys(NamedTuple):
    missing_keys: list
    unexpected_keys: list

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys}, unexpected_keys={self.unexpected_keys})"


def _is_var(value):
    """A static-mode Variable: carries tensor methods but is not an eager Tensor."""
    return isinstance(value, TensorMethods) and not isinstance(value, Tensor)


def _check_device(device, where):
    if device is None:
        return
    from ...device import CPUPlace
    if isinstance(device, CPUPlace):
        return
    if isinstance(device, str) and device.lower().split(":")[0] == "cpu":
        return
    raise ValueError(f"{where}: the device should be 'cpu' (dy2st runs on the CPU only), got {device!r}")


class Layer:
    """Base class of layers and models: subclass it, create sublayers and parameters in
    ``__init__`` and write ``forward``; call the layer to run it (with hooks)."""

    def __init__(self, name_scope=None, dtype="float32"):
        self.training = True
        if name_scope is None:
            name_scope = _snake_name(type(self).__name__)
        self._full_name = unique_name.generate(name_scope)
        self._name_scope = name_scope
        self._dtype = dtype.name if isinstance(dtype, DType) else dtype
        self._parameters = collections.OrderedDict()
        self._buffers = collections.OrderedDict()
        self._non_persistable_buffer_names_set = set()
        self._sub_layers = collections.OrderedDict()
        self._loaddict_holder = collections.OrderedDict()
        self._forward_pre_hooks = collections.OrderedDict()
        self._forward_post_hooks = collections.OrderedDict()
        self._forward_pre_hooks_with_kwargs_flag = {}
        self._forward_post_hooks_with_kwargs_flag = {}
        self._forward_post_hooks_always_called = {}
        self._state_dict_hooks = collections.OrderedDict()
        self._built = False
        self._casted_by_pure_fp16 = False

    # -- running ---------------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def _build_once(self, *args, **kwargs):
        pass

    def __call__(self, *inputs, **kwargs):
        if kwargs:
            kwargs = rename_kwargs(self, kwargs)   # Paddle 3's keyword aliases of forward (x -> input ...)
        if not self._built:
            self._build_once(*inputs, **kwargs)
            self._built = True
        if not self._forward_pre_hooks and not self._forward_post_hooks:
            # (without ``**{}``: merging an empty dict costs a converted model's call ~5 % of its overhead)
            return self.forward(*inputs, **kwargs) if kwargs else self.forward(*inputs)
        return self._call_with_hooks(inputs, kwargs)

    def _call_with_forward(self, forward, inputs, kwargs):
        """``__call__`` (build, hooks) running ``forward`` in place of ``self.forward``: how to_static runs
        a sublayer's converted forward without assigning it on the instance, which other threads may be
        calling or tracing at the same time."""
        if kwargs:
            kwargs = rename_kwargs(self, kwargs)
        if not self._built:
            self._build_once(*inputs, **kwargs)
            self._built = True
        if not self._forward_pre_hooks and not self._forward_post_hooks:
            return forward(*inputs, **kwargs)
        return self._call_with_hooks(inputs, kwargs, forward)

    def _call_with_hooks(self, inputs, kwargs, forward=None):
        called = set()
        outputs = None
        try:    # as Paddle: an always_call post-hook also runs when a pre-hook raises
            for hook_id, hook in list(self._forward_pre_hooks.items()):
                if self._forward_pre_hooks_with_kwargs_flag.get(hook_id):
                    result = hook(self, inputs, kwargs)
                    if result is not None:
                        if not (isinstance(result, tuple) and len(result) == 2):
                            raise RuntimeError("a forward pre-hook registered with with_kwargs=True must return None "
                                               f"or a tuple (new_args, new_kwargs), got {type(result).__name__}")
                        inputs, kwargs = result
                        inputs = inputs if isinstance(inputs, tuple) else (inputs,)
                else:
                    result = hook(self, inputs)
                    if result is not None:
                        inputs = result if isinstance(result, tuple) else (result,)
            outputs = (self.forward if forward is None else forward)(*inputs, **kwargs)
            for hook_id, hook in list(self._forward_post_hooks.items()):
                called.add(hook_id)
                if self._forward_post_hooks_with_kwargs_flag.get(hook_id):
                    result = hook(self, inputs, kwargs, outputs)
                else:
                    result = hook(self, inputs, outputs)
                if result is not None:
                    outputs = result
        except Exception:
            for hook_id, hook in list(self._forward_post_hooks.items()):
                if self._forward_post_hooks_always_called.get(hook_id) and hook_id not in called:
                    try:
                        if self._forward_post_hooks_with_kwargs_flag.get(hook_id):
                            hook(self, inputs, kwargs, outputs)
                        else:
                            hook(self, inputs, outputs)
                    except Exception as e:
                        import warnings
                        warnings.warn("forward hook with ``always_call=True`` raised an exception that was silenced "
                                      f"as another error was raised in forward: {e!s}")
            raise
        return outputs

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Call ``hook(layer, inputs)`` before forward; a returned value replaces the inputs
        (a non-tuple is wrapped in a 1-tuple). With ``with_kwargs`` the hook is
        ``hook(layer, args, kwargs)`` and returns ``(args, kwargs)``. Returns a removable handle."""
        handle = HookRemoveHelper(self._forward_pre_hooks, (self._forward_pre_hooks_with_kwargs_flag,))
        _insert_hook(self._forward_pre_hooks, handle._hook_id, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs_flag[handle._hook_id] = True
        return handle

    def register_forward_post_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """Call ``hook(layer, inputs, output)`` after forward; a returned value replaces the
        output. Returns a removable handle."""
        handle = HookRemoveHelper(self._forward_post_hooks, (self._forward_post_hooks_with_kwargs_flag,
                                                              self._forward_post_hooks_always_called))
        _insert_hook(self._forward_post_hooks, handle._hook_id, hook, prepend)
        if with_kwargs:
            self._forward_post_hooks_with_kwargs_flag[handle._hook_id] = True
        if always_call:
            self._forward_post_hooks_always_called[handle._hook_id] = True
        return handle

    register_forward_hook = register_forward_post_hook

    def _set_op_attrs(self, attrs):
        """Add the attributes ``attrs`` (a dict; later calls overwrite the same names) to every op this
        layer's forward appends to a static Program, the next time it runs in static mode (inside
        to_static, or under paddle.enable_static). A pre-hook marks where the layer's ops start, a
        post-hook sets the attributes on them and then removes both hooks, as Paddle's does."""
        if not isinstance(attrs, dict):
            raise TypeError(f"attrs should be type(dict), but received {type(attrs).__name__}")
        recorder = self.__dict__.get("_op_attr_recorder")
        if recorder is None:
            recorder = {"attrs": {}, "start": -1, "valid": False, "hooks": []}
            object.__setattr__(self, "_op_attr_recorder", recorder)
        recorder["attrs"].update(attrs)
        if not recorder["hooks"]:
            recorder["hooks"] = [self.register_forward_pre_hook(_record_op_start_hook),
                                 self.register_forward_post_hook(_set_recorded_op_attrs_hook)]

    @property
    def _customized_attrs(self):
        recorder = self.__dict__.get("_op_attr_recorder")
        return recorder["attrs"] if recorder else {}

    # -- modes -----------------------------------------------------------------------------
    def train(self, mode=True):
        """Put this layer and every sublayer in training mode (``mode=False``: eval)."""
        if not isinstance(mode, (bool, np.bool_)):
            raise TypeError(f"train: mode must be a bool, got {type(mode).__name__}")
        for layer in self.sublayers(include_self=True):
            layer.training = bool(mode)
        return self

    def eval(self):
        """Put this layer and every sublayer in evaluation mode (dropout off, running BN stats)."""
        return self.train(False)

    # -- names -----------------------------------------------------------------------------
    def full_name(self):
        """The layer's unique name, e.g. ``linear_0``."""
        return self._full_name

    def _get_name(self):
        return type(self).__name__

    # -- sublayers -------------------------------------------------------------------------
    def add_sublayer(self, name, sublayer):
        """Register ``sublayer`` under ``name`` (accessible as ``self.<name>``); returns it."""
        if "_sub_layers" not in self.__dict__:
            raise ValueError("super().__init__() should be called first")
        if not isinstance(name, str):
            raise TypeError(f"add_sublayer: name must be a str, got {type(name).__name__}")
        if sublayer is not None and not isinstance(sublayer, Layer):
            raise TypeError(f"add_sublayer: sublayer must be a paddle.nn.Layer or None, got {type(sublayer).__name__}")
        self._sub_layers[name] = sublayer
        return sublayer

    def add_module(self, name, module):
        self.add_sublayer(name, module)

    register_module = add_module

    def children(self):
        """Iterate over the direct sublayers, in registration order."""
        for _, layer in self.named_children():
            yield layer

    def named_children(self):
        """Iterate over ``(name, sublayer)`` for the direct sublayers."""
        seen = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    def named_sublayers(self, prefix="", include_self=False, layers_set=None, remove_duplicate=True):
        """Iterate over ``(dotted_name, layer)`` for every sublayer, depth first, pre-order."""
        if layers_set is None:
            layers_set = set()
        if include_self:
            if not remove_duplicate or id(self) not in layers_set:
                layers_set.add(id(self))
                yield prefix, self
        for key, layer in self._sub_layers.items():
            if layer is None:
                continue
            layer_prefix = prefix + ("." if prefix else "") + key
            yield from layer.named_sublayers(prefix=layer_prefix, include_self=True, layers_set=layers_set,
                                             remove_duplicate=remove_duplicate)

    def sublayers(self, include_self=False):
        """Every sublayer (recursively) as a list, optionally starting with this layer."""
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        layers_set = None if memo is None else memo
        return self.named_sublayers(prefix=prefix, include_self=True, layers_set=layers_set,
                                    remove_duplicate=remove_duplicate)

    def modules(self):
        for _, layer in self.named_modules():
            yield layer

    def apply(self, fn):
        """Call ``fn(layer)`` on every sublayer (children first) and then on this layer."""
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    def get_sublayer(self, target):
        """The sublayer at dotted path ``target`` (``""`` is this layer)."""
        if target == "":
            return self
        layer = self
        for item in target.split("."):
            sub = layer._sub_layers.get(item) if isinstance(layer, Layer) else None
            if sub is None:
                raise AttributeError(f"{type(layer).__name__} has no sublayer `{item}` (looking up {target!r})")
            layer = sub
        return layer

    get_submodule = get_sublayer

    @param_alias(layer="module")
    def set_sublayer(self, target, layer, strict=False):
        """Replace the sublayer at dotted path ``target`` by ``layer``."""
        if not isinstance(layer, Layer):
            raise TypeError(f"set_sublayer: layer must be a paddle.nn.Layer, got {type(layer).__name__}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_sublayer(parent_path)
        if strict and name not in parent._sub_layers:
            raise AttributeError(f"{type(parent).__name__} has no sublayer `{name}` (strict=True)")
        setattr(parent, name, layer)

    set_submodule = set_sublayer

    # -- parameters ------------------------------------------------------------------------
    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False, default_initializer=None,
                         device=None):
        """Create a Parameter named after this layer (``<full_name>.w_N`` / ``.b_N``).

        ``attr`` is a ParamAttr (or name / Initializer / False); ``False`` returns None.
        Does not register it: assign it to an attribute or call `add_parameter`."""
        if isinstance(attr, str) and attr == "":
            attr = None
        return _make_parameter(shape, dtype, attr, is_bias, default_initializer, name_prefix=self._full_name,
                               where=f"{type(self).__name__}.create_parameter")

    def add_parameter(self, name, parameter):
        """Register ``parameter`` (a Parameter or None) as ``self.<name>``; returns it."""
        if "_parameters" not in self.__dict__:
            raise RuntimeError("super().__init__() should be called first")
        if not isinstance(name, str):
            raise TypeError(f"The name of parameter should be a string, but received {type(name).__name__}.")
        if "." in name:
            raise KeyError("The name of parameter can not contain `.`, because when you access the newly added "
                           "parameter in the form of `self.**.**`, it will cause AttributeError.")
        if name == "":
            raise KeyError("The name of parameter can not be empty.")
        if name not in self._parameters and _has_attr(self, name):
            raise KeyError(f"The parameter '{name}' already exists.")
        if parameter is not None and not _is_parameter(parameter):
            raise TypeError(f"The parameter to be added should be a Parameter, but received "
                            f"{type(parameter).__name__}.")
        if parameter is not None and self._loaddict_holder:
            value = self._loaddict_holder.get(parameter.name)
            if value is not None:
                parameter.set_value(value)
        self._parameters[name] = parameter
        return parameter

    def register_parameter(self, name, param):
        self.add_parameter(name, param)

    @param_alias(include_sublayers="recurse")
    def named_parameters(self, prefix="", include_sublayers=True, remove_duplicate=True):
        """Iterate over ``(dotted_name, parameter)``: this layer's own first, then each sublayer's."""
        return self._named_members("_parameters", prefix, include_sublayers, remove_duplicate)

    def _named_members(self, table, prefix, include_sublayers, remove_duplicate):
        """``(dotted_name, value)`` for the entries of each layer's ``table`` dict (parameters or buffers)."""
        seen = set()
        if include_sublayers:
            layers = self.named_sublayers(prefix=prefix, include_self=True, remove_duplicate=remove_duplicate)
        else:
            layers = [(prefix, self)]
        for layer_prefix, layer in layers:
            for key, value in getattr(layer, table).items():
                if value is None:
                    continue
                if remove_duplicate:
                    if id(value) in seen:
                        continue
                    seen.add(id(value))
                yield layer_prefix + ("." if layer_prefix else "") + key, value

    @param_alias(include_sublayers="recurse")
    def parameters(self, include_sublayers=True):
        """Every parameter as a list, in registration order (each shared parameter once)."""
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def get_parameter(self, target):
        path, _, name = target.rpartition(".")
        layer = self.get_sublayer(path)
        if name not in layer._parameters:
            raise AttributeError(f"{type(layer).__name__} has no parameter `{name}`")
        return layer._parameters[name]

    def clear_gradients(self, set_to_zero=True):
        """Reset the gradients of every trainable parameter (zeros, or None when not ``set_to_zero``)."""
        for p in self.parameters():
            if p.trainable:
                p.clear_gradient(set_to_zero)

    def zero_grad(self, set_to_none=True):
        self.clear_gradients(set_to_zero=not set_to_none)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.stop_gradient = not requires_grad
        return self

    # -- tensors and buffers ---------------------------------------------------------------
    def create_tensor(self, name=None, persistable=None, dtype=None):
        """An empty (not yet initialised) tensor named after this layer, e.g. to hold state."""
        if name is not None:
            var_name = self._full_name + "." + name
        else:
            var_name = unique_name.generate_with_ignorable_key(self._full_name + "._generated_var")
        dt = default_float() if dtype is None else convert_dtype(dtype)
        t = Tensor._wrap(np.zeros((0,), dtype=dt.np))
        t._name = var_name
        t.persistable = bool(persistable)
        return t

    create_variable = create_tensor

    @param_alias(persistable="persistent")
    def register_buffer(self, name, tensor, persistable=True):
        """Register ``tensor`` as buffer ``name``: saved in `state_dict` when ``persistable``,
        converted by `to`, recorded in static programs; not a parameter."""
        if "_buffers" not in self.__dict__:
            raise ValueError("super().__init__() should be called first")
        if not isinstance(name, str):
            raise TypeError(f"The name of buffer should be a string, but received {type(name).__name__}.")
        if "." in name:
            raise KeyError("The name of buffer can not contain `.`, because when you access the newly added "
                           "buffer in the form of `self.**.**`, it will cause AttributeError.")
        if name == "":
            raise KeyError("The name of buffer can not be empty.")
        if name not in self._buffers and _has_attr(self, name):
            raise KeyError(f"attribute '{name}' already exists.")
        if tensor is not None and (isinstance(tensor, Parameter) or not isinstance(tensor, TensorMethods)):
            raise TypeError(f"The registered buffer should be a Paddle.Tensor, but received {type(tensor).__name__}.")
        if isinstance(tensor, Tensor) and tensor._name is None:
            tensor._name = unique_name.generate("_buffers_" + name)
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable_buffer_names_set.discard(name)
        else:
            self._non_persistable_buffer_names_set.add(name)

    @param_alias(include_sublayers="recurse")
    def named_buffers(self, prefix="", include_sublayers=True, remove_duplicate=True):
        """Iterate over ``(dotted_name, buffer)`` (persistable or not)."""
        return self._named_members("_buffers", prefix, include_sublayers, remove_duplicate)

    @param_alias(include_sublayers="recurse")
    def buffers(self, include_sublayers=True):
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def get_buffer(self, target):
        path, _, name = target.rpartition(".")
        layer = self.get_sublayer(path)
        if name not in layer._buffers:
            raise AttributeError(f"{type(layer).__name__} has no buffer `{name}`")
        return layer._buffers[name]

    # -- state dict ------------------------------------------------------------------------
    def register_state_dict_hook(self, hook):
        """Call ``hook(state_dict)`` at the end of `state_dict`; a returned dict replaces it."""
        handle = HookRemoveHelper(self._state_dict_hooks)
        self._state_dict_hooks[handle._hook_id] = hook
        return handle

    def _state_dict_impl(self, destination=None, include_sublayers=True, structured_name_prefix="",
                         include_non_persistable_buffer=False, use_hook=True, keep_vars=True):
        if destination is None:
            destination = collections.OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                destination[structured_name_prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if not include_non_persistable_buffer and name in self._non_persistable_buffer_names_set:
                continue
            if b is not None:
                destination[structured_name_prefix + name] = b if keep_vars or not isinstance(b, Tensor) \
                    else b.detach()
        if include_sublayers:
            for layer_name, layer in self._sub_layers.items():
                if layer is not None:
                    layer._state_dict_impl(destination, include_sublayers,
                                           structured_name_prefix + layer_name + ".",
                                           include_non_persistable_buffer, use_hook, keep_vars)
        if use_hook:
            for hook in self._state_dict_hooks.values():
                result = hook(destination)
                if result is not None:
                    destination = result
        return destination

    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="", use_hook=True,
                   keep_vars=True):
        """An OrderedDict of every parameter and persistable buffer under its structured name
        (``fc.weight``, ``bn._mean`` ...); the values are the layer's own tensors."""
        return self._state_dict_impl(destination, include_sublayers, structured_name_prefix,
                                     include_non_persistable_buffer=False, use_hook=use_hook, keep_vars=keep_vars)

    def to_static_state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="",
                             use_hook=True, keep_vars=True):
        """Like `state_dict` but with non-persistable buffers too (what a static program holds)."""
        return self._state_dict_impl(destination, include_sublayers, structured_name_prefix,
                                     include_non_persistable_buffer=True, use_hook=use_hook, keep_vars=keep_vars)

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Load values from ``state_dict`` (Tensors or ndarrays) into the parameters and
        persistable buffers, matched by structured name (or by tensor name when
        ``use_structured_name=False``). Entries whose shape does not match are skipped with a
        warning. Returns ``(missing_keys, unexpected_keys)``."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"set_state_dict: state_dict must be a dict, got {type(state_dict).__name__}")
        missing, matched = [], set()
        for key, target in self._state_dict_impl(use_hook=False).items():
            key_name = key if use_structured_name else target.name
            if key_name not in state_dict:
                missing.append(key_name)
                warnings.warn(f"Skip loading for {key}. {key} is not found in the provided dict.")
                continue
            value = state_dict[key_name]
            arr = _state_value(value, key)
            if list(arr.shape) != list(target.shape) and not (target.size == 0 and _uninitialised(target)):
                missing.append(key_name)
                warnings.warn(f"Skip loading for {key}. {key} receives a shape {list(arr.shape)}, but the "
                              f"expected shape is {list(target.shape)}.")
                continue
            tdtype = target._data.dtype
            if arr.dtype != tdtype and not (target.size == 0 and _uninitialised(target)):
                if arr.dtype.kind == tdtype.kind == "f" or (arr.dtype.kind in "iu" and tdtype.kind in "iu"):
                    raise TypeError(f"set_state_dict: {key!r} has dtype {arr.dtype} but {target.name} is "
                                    f"{from_numpy_dtype(tdtype).name}; cast it first (e.g. .astype('{tdtype}'))")
                raise TypeError(f"set_state_dict: {key!r} has dtype {arr.dtype}, which cannot be loaded into "
                                f"{target.name} of dtype {from_numpy_dtype(tdtype).name}")
            matched.add(key_name)
            if target.size == 0 and _uninitialised(target):
                target._data = np.array(arr, copy=True)
            else:
                target._data = np.array(arr, dtype=tdtype, copy=True)
        unexpected = [k for k in state_dict if k not in matched]
        return missing, unexpected

    set_dict = set_state_dict
    load_dict = set_state_dict

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Torch-style loading: raises when ``strict`` and keys are missing or unexpected."""
        missing, unexpected = self.set_state_dict(state_dict)
        if strict and (missing or unexpected):
            msg = [f"Error(s) in loading state_dict for {type(self).__name__}:"]
            if missing:
                msg.append("\tMissing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
            if unexpected:
                msg.append("\tUnexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            raise RuntimeError("\n".join(msg))
        return _IncompatibleKeys(missing, unexpected)

    # -- dtype / device --------------------------------------------------------------------
    def to(self, device=None, dtype=None, blocking=None, non_blocking=None):
        """Move to ``device`` (CPU only) and/or cast every parameter and buffer to ``dtype``, in place."""
        _check_device(device, "to")
        if dtype is not None:
            self._cast(convert_dtype(dtype), floating_only=False)
        return self

    def _cast(self, dtype, floating_only=True, excluded_layers=()):
        excluded = {id(layer) for layer in excluded_layers}
        for layer in self.sublayers(include_self=True):
            if id(layer) in excluded:
                continue
            for t in itertools.chain(layer._parameters.values(), layer._buffers.values()):
                if not isinstance(t, Tensor):
                    continue
                if floating_only and t._data.dtype.kind != "f":
                    continue
                if t._data.dtype != dtype.np:
                    t._data = t._data.astype(dtype.np)
                    if t._grad is not None:
                        t._grad._data = t._grad._data.astype(dtype.np)
            layer._dtype = dtype.name
        return self

    def astype(self, dtype=None):
        if dtype is None:
            return self
        return self._cast(convert_dtype(dtype), floating_only=True)

    def float(self, excluded_layers=None):
        return self._cast(_float32, True, _as_layers(excluded_layers))

    def double(self):
        return self._cast(_float64, True)

    def float16(self, excluded_layers=None):
        return self._cast(_float16, True, _as_layers(excluded_layers))

    def half(self):
        return self._cast(_float16, True)

    def cpu(self):
        return self

    def cuda(self, device=None):
        raise RuntimeError("dy2st runs on the CPU only; there is no CUDA device")

    # -- attribute protocol ----------------------------------------------------------------
    def __getattr__(self, name):
        d = self.__dict__
        if "_parameters" in d:
            params = d["_parameters"]
            if name in params:
                return params[name]
            layers = d["_sub_layers"]
            if name in layers:
                return layers[name]
            buffers = d["_buffers"]
            if name in buffers:
                return buffers[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if _is_parameter(value):
            if params is None:
                raise ValueError("super().__init__() should be called first")
            _remove_from(self, name, d.get("_buffers"), d.get("_sub_layers"))
            params[name] = value
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"assignment to parameter '{name}' should be of type Parameter or None, "
                                f"but got '{type(value).__name__}'")
            params[name] = None
            return
        layers = d.get("_sub_layers")
        if isinstance(value, Layer):
            if layers is None:
                raise ValueError("super().__init__() should be called first")
            _remove_from(self, name, params, d.get("_buffers"))
            layers[name] = value
            return
        if layers is not None and name in layers:
            if value is not None:
                raise TypeError(f"assignment to sublayer '{name}' should be of type Layer or None, "
                                f"but got '{type(value).__name__}'")
            layers[name] = None
            return
        buffers = d.get("_buffers")
        if isinstance(value, Tensor):
            # Paddle keeps every tensor attribute as a (non-persistable unless registered) buffer,
            # so `to()`, `named_buffers()` and static programs see it.
            if buffers is None:
                raise ValueError("super().__init__() should be called first")
            _remove_from(self, name, params, layers)
            if name not in buffers:
                self._non_persistable_buffer_names_set.add(name)
            if value._name is None:
                value._name = unique_name.generate("_buffers_" + name)
            buffers[name] = value
            return
        if buffers is not None and name in buffers:
            if value is None or _is_var(value):
                buffers[name] = value
                return
            raise TypeError(f"assignment to buffers '{name}' should be of type Tensor or None, "
                            f"but got '{type(value).__name__}'")
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        d = self.__dict__
        if name in d.get("_parameters", ()):
            del d["_parameters"][name]
        elif name in d.get("_sub_layers", ()):
            del d["_sub_layers"][name]
        elif name in d.get("_buffers", ()):
            del d["_buffers"][name]
            self._non_persistable_buffer_names_set.discard(name)
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = set(super().__dir__())
        for attr in ("_parameters", "_sub_layers", "_buffers"):
            keys.update(self.__dict__.get(attr, ()))
        return sorted(keys)

    def __getstate__(self):
        return dict(self.__dict__)

    def __setstate__(self, state):
        self.__dict__.update(state)

    # -- printing --------------------------------------------------------------------------
    def extra_repr(self):
        """The text inside this layer's parentheses in ``repr`` (override in layers)."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = []
        for name, layer in self._sub_layers.items():
            if layer is None:
                continue
            child_lines.append("(" + name + "): " + _add_indent(repr(layer), 2))
        main = type(self).__name__ + "("
        if extra_lines:
            if len(extra_lines) > 1:
                main += "\n  " + "\n  ".join(extra_lines) + "\n"
            else:
                main += extra_lines[0]
        if child_lines:
            main += "\n  " + "\n  ".join(child_lines) + "\n"
        return main + ")"


def _record_op_start_hook(layer, inputs):
    """Pre-hook of ``Layer._set_op_attrs``: in static mode, remember where the layer's ops will start."""
    from ...framework import state
    if not state.static:
        return
    from ...static import default_main_program
    recorder = layer._op_attr_recorder
    if recorder["start"] < 0:
        recorder["start"] = len(default_main_program().current_block().ops)
        recorder["valid"] = True
    else:
        recorder["valid"] = False
        warnings.warn(f"{type(layer).__name__} has recorded the op information before. Please check whether "
                      "you call this layer twice.")


def _set_recorded_op_attrs_hook(layer, inputs, outputs):
    """Post-hook of ``Layer._set_op_attrs``: set the attributes on the ops the forward appended, then
    remove both hooks."""
    from ...framework import state
    recorder = layer._op_attr_recorder
    if not state.static or not recorder["valid"]:
        return
    from ...static import default_main_program
    for op in default_main_program().current_block().ops[recorder["start"]:]:
        for name, value in recorder["attrs"].items():
            op._set_attr(name, value)
    for handle in recorder["hooks"]:
        handle.remove()
    recorder["hooks"] = []


def _insert_hook(hooks, hook_id, hook, prepend):
    if not prepend:
        hooks[hook_id] = hook
        return
    old = list(hooks.items())
    hooks.clear()
    hooks[hook_id] = hook
    hooks.update(old)


def _has_attr(layer, name):
    try:
        object.__getattribute__(layer, name)
        return True
    except AttributeError:
        return name in layer._parameters or name in layer._sub_layers or name in layer._buffers


def _remove_from(layer, name, *dicts):
    layer.__dict__.pop(name, None)
    for d in dicts:
        if d is not None and name in d:
            del d[name]
    nps = layer.__dict__.get("_non_persistable_buffer_names_set")
    if nps is not None and name not in layer.__dict__.get("_buffers", ()):
        nps.discard(name)


def _as_layers(excluded):
    if excluded is None:
        return ()
    if isinstance(excluded, Layer):
        return (excluded,)
    return tuple(excluded)


def _uninitialised(t):
    # create_tensor() makes an empty placeholder; loading into it adopts the saved value
    return t._data.ndim == 1 and t._data.shape[0] == 0 and not isinstance(t, Parameter)


def _state_value(value, key):
    if isinstance(value, Tensor):
        return value._data
    from ...static.program import Variable
    if isinstance(value, Variable):
        # a value computed inside a to_static forward: it has no data while the Program is built
        raise ValueError("This error might happens in dy2static, while calling 'set_state_dict' dynamically in "
                         "'forward', which is not supported. If you only need call 'set_state_dict' once, move it "
                         f"to '__init__'. (the value of {key!r} is the static variable '{value.name}', computed in "
                         "the converted function, which has no data until the Program runs)")
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, np.generic):
        return np.asarray(value)
    raise TypeError(f"set_state_dict: the value of {key!r} must be a Tensor or a numpy ndarray, "
                    f"got {type(value).__name__}")
