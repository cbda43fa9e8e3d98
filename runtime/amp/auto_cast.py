"""``paddle.amp.auto_cast`` / ``amp_guard`` / ``decorate``: mixed precision regions and pure-fp16 models.

dy2st behaves as Paddle does on a device with AMP kernels (a GPU): inside ``auto_cast`` the ops follow
Paddle's O1/O2/OD rules (`runtime.amp.op_rules`), computing in numpy float16. (Paddle's own CPU build
warns and ignores ``auto_cast`` and ``GradScaler``; dy2st runs the AMP semantics so that scripts written
for GPUs behave as they do there.) bfloat16 is emulated in float32 storage, see `runtime.amp.op_rules`.
"""
from __future__ import annotations

import contextlib

from ..framework import state
from .amp_lists import update_list
from .op_rules import AmpState

_LEVELS = ("O0", "OD", "O1", "O2")


class AMPGlobalState:
    """Process-wide AMP facts Paddle keeps: the dtype of the last ``auto_cast`` entered (GradScaler reads it)."""

    def __init__(self):
        self.model_parameters = []
        self.use_master_grad = False
        self.amp_dtype = "float32"


_amp_global_state = AMPGlobalState()


def amp_global_state():
    return _amp_global_state


def _dtype_name(dtype):
    name = getattr(dtype, "name", dtype)
    if not isinstance(name, str):
        raise TypeError(f"auto_cast: dtype must be 'float16' or 'bfloat16', got {dtype!r}")
    return name.lower()


@contextlib.contextmanager
def amp_guard(enable=True, custom_white_list=None, custom_black_list=None, level="O1", dtype="float16",
              use_promote=True):
    """Ops run inside follow the AMP rules of ``level`` in ``dtype`` (a no-op when ``enable`` is False)."""
    level = level.upper()
    if level not in _LEVELS:
        raise ValueError("level should be O0, OD, O1 or O2.")
    dtype = _dtype_name(dtype)
    if enable and dtype not in ("float16", "bfloat16"):
        raise ValueError("If enable amp, dtype should be 'float16' or 'bfloat16'.")
    _amp_global_state.amp_dtype = dtype
    white, black = update_list(custom_white_list, custom_black_list, level, dtype)
    new = AmpState(level, dtype, white, black, use_promote, custom_white_list, custom_black_list) if enable and level != "O0" else None
    prev = state.amp
    state.amp = new
    try:
        yield
    finally:
        state.amp = prev


def auto_cast(enable=True, custom_white_list=None, custom_black_list=None, level="O1", dtype="float16",
              use_promote=True):
    """``paddle.amp.auto_cast``: a context manager for mixed precision (see `amp_guard`)."""
    return amp_guard(enable, custom_white_list, custom_black_list, level, dtype, use_promote)


def autocast(device_type=None, dtype="float16", enabled=True, cache_enabled=True):
    """The torch-style spelling Paddle accepts; ``device_type`` and ``cache_enabled`` are ignored as in Paddle."""
    return auto_cast(enable=enabled, dtype=dtype)


def is_autocast_enabled(device_type=None) -> bool:
    return state.amp is not None


def get_autocast_dtype(device_type=None) -> str:
    """The AMP dtype of the current region, 'float16' outside one."""
    return state.amp.dtype if state.amp is not None else "float16"


# -- decorate -------------------------------------------------------------------------------------------

def _keep_fp32(layer, dtype):
    from .. import nn
    if not getattr(layer, "_cast_to_low_precision", True):
        return True
    norms = tuple(getattr(nn, n) for n in ("BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "SyncBatchNorm")
                  if hasattr(nn, n))
    if isinstance(layer, norms):
        return True
    fp16_norms = tuple(getattr(nn, n) for n in ("LayerNorm", "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D")
                       if hasattr(nn, n))
    return getattr(layer, "_dtype", None) == "float16" or (dtype == "float16" and isinstance(layer, fp16_norms))


def _set_excluded(models, excluded_layers):
    from ..nn import Layer
    message = "excluded_layers must be either a nn.Layer instance/type or a list of nn.Layer instances/types."
    if excluded_layers is None:
        items = []
    elif isinstance(excluded_layers, (Layer, type)):
        items = [excluded_layers]
    elif isinstance(excluded_layers, list):
        items = excluded_layers
    else:
        raise TypeError(message)
    instances = [i for i in items if isinstance(i, Layer)]
    types = []
    for i in items:
        if isinstance(i, Layer):
            continue
        if isinstance(i, type) and issubclass(i, Layer):
            types.append(i)
        else:
            raise TypeError(message)
    for inst in instances:
        for layer in inst.sublayers(include_self=True):
            layer._cast_to_low_precision = False
    for model in models:
        for layer in model.sublayers(include_self=True):
            if types and isinstance(layer, tuple(types)):
                layer._cast_to_low_precision = False


def _cast_layer_params(layer, dtype):
    from ..dtype import float16
    from .op_rules import round_to_bfloat16
    for t in list(layer._parameters.values()) + list(layer._buffers.values()):
        if t is None or t._data.dtype.kind != "f":
            continue
        if dtype == "float16":
            t._data = t._data.astype(float16.np)
        else:      # bfloat16: float32 storage holding bfloat16-representable values
            t._data = round_to_bfloat16(t._data)
    if dtype == "float16":
        layer._dtype = "float16"


class StateDictHook:
    """Casts a state_dict's floating tensors to ``save_dtype`` (``decorate(save_dtype=...)``)."""

    def __init__(self, save_dtype):
        self._save_dtype = save_dtype

    def __call__(self, state_dict):
        from ..tensor import Tensor
        dt = "float32" if self._save_dtype == "bfloat16" else self._save_dtype
        for key in list(state_dict):
            v = state_dict[key]
            if isinstance(v, Tensor) and v._data.dtype.kind == "f":
                c = Tensor._wrap(v._data.astype(dt))
                c._name = v.name
                state_dict[key] = c


def amp_decorate(models, optimizers=None, level="O1", dtype="float16", master_weight=None, save_dtype=None,
                 master_grad=False, excluded_layers=None):
    """``paddle.amp.decorate`` in dynamic mode: O2 casts the models' parameters to ``dtype`` (norm layers kept)."""
    from ..nn import Layer
    from ..optimizer import Optimizer
    if level not in ("O1", "O2"):
        raise ValueError("level should be O1 or O2, O1 represent AMP train mode, O2 represent Pure fp16 train mode.")
    if dtype not in ("float16", "bfloat16"):
        raise ValueError("dtype only support float16 or bfloat16.")
    if level == "O1":
        return models if optimizers is None else (models, optimizers)
    models_is_list = isinstance(models, list)
    if isinstance(models, Layer):
        model_list = [models]
    elif models_is_list:
        model_list = models
    else:
        raise TypeError("models must be either a single model or a list of models.")
    for m in model_list:
        if not isinstance(m, Layer):
            raise RuntimeError(f"Current train mode is pure fp16, models should be paddle.nn.Layer, but receive "
                               f"{type(m)}.")
    _set_excluded(model_list, excluded_layers)
    for m in model_list:
        for layer in m.sublayers(include_self=True):
            if not _keep_fp32(layer, dtype):
                _cast_layer_params(layer, dtype)
    opt_is_list = isinstance(optimizers, list)
    if optimizers is not None:
        opt_list = optimizers if opt_is_list else [optimizers]
        for opt in opt_list:
            if not isinstance(opt, Optimizer):
                raise RuntimeError(f"Current train mode is pure fp16, optimizers should be paddle.optimizer.Optimizer "
                                   f"or DygraphShardingOptimizer, but receive {type(opt)}.")
            opt._multi_precision = master_weight is not False
    if master_grad:
        _amp_global_state.use_master_grad = True
        for m in model_list:
            _amp_global_state.model_parameters.extend(m.parameters())
    if save_dtype is not None:
        if save_dtype not in ("float16", "bfloat16", "float32", "float64"):
            raise ValueError(f"save_dtype can only be float16 float32 or float64, but your input save_dtype is "
                             f"{save_dtype}.")
        for m in model_list:
            for layer in m.sublayers(include_self=True):
                layer.register_state_dict_hook(StateDictHook(save_dtype))
    out_models = model_list if models_is_list else model_list[0]
    if optimizers is None:
        return out_models
    return out_models, (opt_list if opt_is_list else opt_list[0])


def decorate(models, optimizers=None, level="O1", dtype="float16", master_weight=None, save_dtype=None,
             master_grad=False, excluded_layers=None):
    """``paddle.amp.decorate``: see `amp_decorate`."""
    return amp_decorate(models, optimizers, level, dtype, master_weight, save_dtype, master_grad, excluded_layers)
