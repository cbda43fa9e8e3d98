"""``paddle.amp.debugging``: nan/inf checks of tensors and op outputs, and per-dtype operator counts.

Behaves as Paddle 3.3.1's CPU build:

- `check_numerics(tensor, op_type, var_name, debug_mode)` returns ``stats`` (int64 ``[num_nan,
  num_inf, num_zero]``) and ``values`` (float32 ``[max, min, mean]``; max/min skip NaNs) and prints
  Paddle's ``[PRECISION]`` line: always when the tensor holds NaN/Inf (then raising RuntimeError in
  ``CHECK_NAN_INF_AND_ABORT``), for every tensor in ``CHECK_ALL``, and for float32 tensors outside
  float16's range in ``CHECK_ALL_FOR_OVERFLOW``.
- `enable_tensor_checker(config)` / `disable_tensor_checker()`: while on, the outputs of every eager
  op are checked the same way (printed under Paddle's op names, e.g. ``divide``), restricted by the
  process-wide checked/skipped op lists (fluid op types, as Paddle matches them; each config adds
  to them, as Paddle's do), written to
  ``<output_dir>/worker_cpu`` instead of stdout when an output dir is set, and only inside
  ``debug_step``.
- `enable_operator_stats_collection` / `disable_operator_stats_collection` / `collect_operator_stats`
  count eager ops by dtype (FP16 / BF16 / FP32 / other) and print Paddle's table at the end.

Both features hook `runtime.dispatch.run_op` through ``state.op_debug`` (None when both are off, so
the hot path pays one attribute read). Only eager ops are observed; static programs are not.
"""
from __future__ import annotations

import contextlib
import functools
import os
import random as _pyrandom
from enum import Enum

import numpy as np

from ..framework import state
from .op_rules import PADDLE_NAMES

__all__ = ["DebugMode", "TensorCheckerConfig", "check_numerics", "enable_operator_stats_collection",
           "disable_operator_stats_collection", "collect_operator_stats", "enable_tensor_checker",
           "disable_tensor_checker", "compare_accuracy", "check_layer_numerics"]


class DebugMode(Enum):
    """What the checker does: abort on NaN/Inf, only report them, also report fp16 overflow, report all."""
    CHECK_NAN_INF_AND_ABORT = 0
    CHECK_NAN_INF = 1
    CHECK_ALL_FOR_OVERFLOW = 2
    CHECK_ALL = 3


_FP16_MAX = 65504.0
_DTYPE_TAG = {"float32": "fp32", "float64": "fp64", "float16": "fp16", "bfloat16": "bf16"}

# fluid op type -> the name Paddle's checker prints (its phi kernel name) where they differ
_CHECKER_NAMES = dict(PADDLE_NAMES, elementwise_max="maximum", elementwise_min="minimum",
                      elementwise_floordiv="floor_divide", elementwise_mod="remainder",
                      uniform_random="uniform", gaussian_random="gaussian", reshape2="reshape",
                      transpose2="transpose", squeeze2="squeeze", unsqueeze2="unsqueeze",
                      flatten_contiguous_range="flatten", arg_max="argmax", arg_min="argmin",
                      top_k_v2="topk", hard_swish="hardswish", isnan_v2="isnan", isinf_v2="isinf",
                      isfinite_v2="isfinite", expand_v2="expand", layer_norm="layer_norm_intermediate")
# fluid op type -> the name Paddle's operator-stats table prints where they differ
# (squeeze2, transpose2, flatten_contiguous_range ... keep their fluid names there)
_STATS_NAMES = {"reshape2": "reshape"}

# process-wide settings, as Paddle keeps them in C++ globals (a later config does not reset them)
_settings = {"checked": set(), "skipped": set(), "output_dir": None, "stack_limit": 1,
             "level": 0, "checker_on": False, "stats": None}


# ---------------------------------------------------------------- statistics of one array

def _fmt(v) -> str:
    v = float(v)
    if v != v:
        return "-nan" if np.signbit(v) else "nan"
    return f"{v:e}"


def _numerics(arr):
    """(num_nan, num_inf, num_zero, max, min, mean) of a float array, as Paddle's kernel counts them."""
    if arr.size == 0:
        return 0, 0, 0, 0.0, 0.0, 0.0
    a = arr.astype(np.float64) if arr.dtype == np.float16 else arr
    nan = np.isnan(a)
    n_nan = int(nan.sum())
    n_inf = int(np.isinf(a).sum())
    n_zero = int((a == 0).sum())
    if n_nan == a.size:     # all NaN: Paddle's max/min keep a NaN element (with its sign bit)
        mx = mn = a.reshape(-1)[0]
    else:
        rest = a[~nan] if n_nan else a
        mx, mn = float(rest.max()), float(rest.min())
    with np.errstate(all="ignore"):
        mean = a.mean(dtype=np.float64)
        if arr.dtype != np.float64:   # Paddle's kernel computes in float for 16/32-bit types, double for 64
            mx, mn, mean = np.float32(mx), np.float32(mn), np.float32(mean)
    return n_nan, n_inf, n_zero, mx, mn, mean


def _where(op, name, dtype_name):
    return f"[device=cpu, op={op}, tensor={name}, dtype={_DTYPE_TAG.get(dtype_name, dtype_name)}]"


def _report(arr, op, name, level, output_dir):
    """Print (or append to ``output_dir/worker_cpu``) Paddle's [PRECISION] line; raise when aborting."""
    n_nan, n_inf, n_zero, mx, mn, mean = _numerics(arr)
    if arr.size == 0:
        return n_nan, n_inf, n_zero, mx, mn, mean
    where = _where(op, name, arr.dtype.name)
    line = None
    if n_nan or n_inf:
        line = (f"[PRECISION] [ERROR] in {where}, numel={arr.size}, num_nan={n_nan}, num_inf={n_inf}, "
                f"num_zero={n_zero}, max={_fmt(mx)}, min={_fmt(mn)}, mean={_fmt(mean)}")
    elif level >= 3 or (level == 2 and arr.dtype == np.float32 and (mx > _FP16_MAX or mn < -_FP16_MAX)):
        line = (f"[PRECISION] in {where}, numel={arr.size}, num_zero={n_zero}, max={_fmt(mx)}, "
                f"min={_fmt(mn)}, mean={_fmt(mean)}")
    if line is not None:
        if output_dir:
            os.makedirs(output_dir, exist_ok=True)
            with open(os.path.join(output_dir, "worker_cpu"), "a") as f:
                f.write(line + "\n")
        else:
            print(line, flush=True)
    if (n_nan or n_inf) and level == 0:
        raise RuntimeError(f"(PreconditionNotMet) There are NAN or INF (num_nan={n_nan}, num_inf={n_inf}, "
                           f"num_zero={n_zero}) in {where}.")
    return n_nan, n_inf, n_zero, mx, mn, mean


def check_numerics(tensor, op_type, var_name, debug_mode=DebugMode.CHECK_NAN_INF_AND_ABORT):
    """Count NaNs/Infs/zeros of ``tensor`` and return ``(stats int64[3], values float32[3])``."""
    from ..tensor import Tensor
    if state.static:
        raise NotImplementedError(
            "paddle.amp.debugging.check_numerics in static mode appends Paddle's 'check_numerics' op, which "
            "dy2st's op registry does not have (it is not in Paddle's op protos); call it in dynamic mode")
    if not isinstance(tensor, Tensor):
        raise TypeError(f"check_numerics: tensor must be a paddle.Tensor, but received {type(tensor).__name__}")
    if not isinstance(debug_mode, DebugMode):
        raise AttributeError(f"check_numerics: debug_mode must be a paddle.amp.debugging.DebugMode, "
                             f"but received {debug_mode!r}")
    arr = tensor._data
    if arr.dtype.kind != "f":
        raise RuntimeError(
            f"(NotFound) The kernel of `check_numerics` is not registered for dtype {arr.dtype.name} on CPU: "
            "Paddle supports float16, bfloat16, float32, float64 (and complex types, which dy2st does not "
            "check); cast the tensor to a float type first")
    n_nan, n_inf, n_zero, mx, mn, mean = _report(arr, op_type, var_name, debug_mode.value, "")
    stats = Tensor(np.array([n_nan, n_inf, n_zero], dtype=np.int64))
    values = Tensor(np.array([mx, mn, mean], dtype=np.float32))
    return stats, values


# ---------------------------------------------------------------- the run_op hook

def _op_debug(opdef, inputs, attrs):
    """`run_op`'s eager path while the checker or the stats collection is on."""
    from ..dispatch import run_eager
    from ..tensor import Tensor
    out = run_eager(opdef, inputs, attrs)
    counts = _settings["stats"]
    if counts is not None:
        _count(counts, opdef, inputs, attrs, out)
    if _settings["checker_on"]:
        t = opdef.type
        checked, skipped = _settings["checked"], _settings["skipped"]
        if (not checked or t in checked) and t not in skipped:
            name = _checker_name(t)
            if t == "split" and attrs.get("num", 0):
                name = "split_with_num"
            level, out_dir = _settings["level"], _settings["output_dir"]
            for o in (out if isinstance(out, (tuple, list)) else (out,)):
                for x in (o if isinstance(o, list) else (o,)):
                    if isinstance(x, Tensor) and x._data.dtype.kind == "f":
                        _report(x._data, name, "", level, out_dir)
    return out


def _checker_name(op_type):
    """The name Paddle's checker prints for our op type (``reduce_sum_grad`` -> ``sum_grad``)."""
    name = _CHECKER_NAMES.get(op_type)
    if name is None and op_type.endswith("_grad") and op_type[:-5] in _CHECKER_NAMES:
        return _CHECKER_NAMES[op_type[:-5]] + "_grad"
    return name or op_type


def _set_flag_checker(on, level):
    """``paddle.set_flags`` of FLAGS_check_nan_inf / FLAGS_check_nan_inf_level: the checker's switch and level."""
    _settings["checker_on"] = bool(on)
    _settings["level"] = int(level)
    _install()


def _install():
    on = _settings["checker_on"] or _settings["stats"] is not None
    state.op_debug = _op_debug if on else None


def _first_dtype(values):
    """The dtype an op's kernel is chosen by: its first non-bool input's (``where``'s ``x``, not its
    condition), else its first input's."""
    first = None
    for x in values:
        if isinstance(x, (list, tuple)):
            x = x[0] if x else None
        arr = getattr(x, "_data", x)
        if isinstance(arr, np.ndarray):
            if arr.dtype != np.bool_:
                return arr.dtype
            first = first if first is not None else arr.dtype
    return first


def _count(counts, opdef, inputs, attrs, out):
    # the kernel's dtype: its first input's, or for creation ops (fill_constant ...) its output's
    dtype = _first_dtype(inputs)
    if dtype is None:
        dtype = _first_dtype(out if isinstance(out, tuple) else (out,))
    col = {"float16": 0, "bfloat16": 1, "float32": 2}.get(getattr(dtype, "name", ""), 3)
    name = _STATS_NAMES.get(opdef.type, opdef.type)
    if opdef.type == "split" and attrs.get("num", 0):
        name = "split_with_num"
    counts.setdefault(name, [0, 0, 0, 0])[col] += 1


def _print_operator_stats(op_count_dict):
    """Print Paddle's operator-stats table for ``{op: [fp16, bf16, fp32, other]}``."""
    print("<{:-^120}>".format(" op list "))
    print("<{:-^40}".format(" Op Name "), "|", "{:-^17}".format(" FP16 Calls "), "|",
          "{:-^17}".format(" BF16 Calls "), "|", "{:-^17}".format(" FP32 Calls"), "|",
          "{:-^17}>".format(" Other Calls "))
    total = 0
    if isinstance(op_count_dict, dict):
        for op_type in sorted(op_count_dict):
            value = op_count_dict[op_type]
            if isinstance(value, str):
                value = value.split(",")
            elif not isinstance(value, list):
                raise ValueError(f"Input {value} is expected to be a list of str, but received {type(value)}.")
            print(f"  {op_type:<40}|  {value[0]:<17}|  {value[1]:<17}|  {value[2]:<17}|  {value[3]:<17}")
            total += 1
    print("<{:-^120}>\n".format(" op count: " + str(total) + " "))


def enable_operator_stats_collection():
    """Start counting eager ops by dtype (cleared on every enable)."""
    _settings["stats"] = {}
    _install()


def disable_operator_stats_collection():
    """Stop counting and print the table (nothing when collection was not on, as in Paddle)."""
    counts = _settings["stats"]
    if counts is None:
        return
    _settings["stats"] = None
    _install()
    _print_operator_stats(counts)


@contextlib.contextmanager
def collect_operator_stats():
    """Count the ops of the ``with`` body by dtype and print the table on exit."""
    enable_operator_stats_collection()
    yield
    disable_operator_stats_collection()


# ---------------------------------------------------------------- the tensor checker

def _set_op_list(key, ops, what):
    if ops is not None:
        if not isinstance(ops, (list, tuple)):
            raise ValueError(f"{what} must be list or tuple")
        _settings[key] |= {str(v) for v in ops}     # Paddle adds to its process-wide lists, never clears


def _initial_seed():
    """The seed of the global generator (Paddle's ``default_cpu_generator().initial_seed()``): the value of
    the last ``paddle.seed``, else numpy's random 128-bit entropy (out of uint32 range, as Paddle's is)."""
    from .. import random as _random
    entropy = getattr(getattr(_random._gen[0].bit_generator, "seed_seq", None), "entropy", None)
    return int(entropy) if isinstance(entropy, (int, np.integer)) else 2 ** 64


class TensorCheckerConfig:
    """Settings of the tensor checker (Paddle's arguments, defaults and checks)."""

    current_step_id = 0

    def __init__(self, enable, debug_mode=DebugMode.CHECK_NAN_INF_AND_ABORT, output_dir=None,
                 checked_op_list=None, skipped_op_list=None, debug_step=None, stack_height_limit=1):
        self.enable = enable
        self.debug_mode = debug_mode
        self.output_dir = output_dir
        self.checked_op_list = checked_op_list
        self.skipped_op_list = skipped_op_list
        self.debug_step = debug_step
        self.stack_height_limit = stack_height_limit
        self.start_step = None
        self.end_step = None
        self.seed = 123
        self.initial_seed = _initial_seed()
        if debug_step is not None:
            if not isinstance(debug_step, (tuple, list)):
                raise ValueError("debug_step must be list or tuple")
            assert len(debug_step) == 2 and debug_step[1] > debug_step[0], \
                f"debug_step must be [start, end] with end > start, but received {debug_step}"
            self.start_step, self.end_step = max(debug_step[0], 0), debug_step[1]
        if not isinstance(debug_mode, DebugMode):
            raise AttributeError(f"debug_mode must be a paddle.amp.debugging.DebugMode, but received {debug_mode!r}")
        _set_op_list("checked", checked_op_list, "checked_op_list")
        _set_op_list("skipped", skipped_op_list, "skipped_op_list")
        if self.enable:
            self._set_seed(self.enable)

    def _set_seed(self, flag):
        from ..random import seed as paddle_seed
        if self.initial_seed != self.seed:
            self.seed = self.initial_seed
        if self.seed > np.iinfo(np.uint32).max or self.seed < 0:
            print("[Warning: Seed must be between 0 and 2**32 - 1")
            self.seed = 123
        paddle_seed(self.seed)
        np.random.seed(self.seed)
        _pyrandom.seed(self.seed)
        print("AMP Debugging TensorCheckerConfig: seed ", self.seed)

    def _set_env(self, check_flag):
        # as in Paddle, the checker is the FLAGS_check_nan_inf / FLAGS_check_nan_inf_level flags
        from ..flags import set_flags
        if check_flag:
            if self.output_dir is not None:
                _settings["output_dir"] = self.output_dir
            if not isinstance(self.stack_height_limit, int):
                raise ValueError("stack_height_limit must be int")
            _settings["stack_limit"] = self.stack_height_limit
            set_flags({"FLAGS_check_nan_inf": True, "FLAGS_check_nan_inf_level": self.debug_mode.value})
        else:
            set_flags({"FLAGS_check_nan_inf": False})

    def update_and_check_step_id(self):
        """Whether this step is checked (counting steps inside ``debug_step`` as Paddle does)."""
        if self.enable:
            if self.start_step is not None and self.end_step is not None:
                if self.start_step > TensorCheckerConfig.current_step_id or \
                        TensorCheckerConfig.current_step_id >= self.end_step:
                    return False
                TensorCheckerConfig.current_step_id += 1
            return True
        return False

    def start_check_nan_inf(self):
        if self.enable:
            self._set_env(self.enable)

    def stop_check_nan_inf(self):
        self._set_env(False)


def enable_tensor_checker(checker_config):
    """Check every eager op's float outputs for NaN/Inf (per ``checker_config``) until disabled."""
    if checker_config.update_and_check_step_id():
        checker_config.start_check_nan_inf()
    else:
        checker_config.stop_check_nan_inf()


def disable_tensor_checker():
    """Stop checking op outputs."""
    from ..flags import set_flags
    set_flags({"FLAGS_check_nan_inf": False})


def check_layer_numerics(func):
    """Decorator for a Layer's ``forward``: its first argument must be a Tensor (made to require grad).

    Paddle wraps the call in its ``enable_check_model_nan_inf`` / ``disable_check_model_nan_inf`` ops,
    which switch its nan/inf flag on for the layer's ops; here the tensor checker is turned on for the
    call, at the level the last `TensorCheckerConfig` set (``CHECK_NAN_INF_AND_ABORT`` before any, as
    in Paddle), with the op lists and output dir in force, and restored afterwards (also when the call
    raises; Paddle leaves its flag on then).
    """
    @functools.wraps(func)
    def wrapper(self, *args, **kwargs):
        from ..tensor import Tensor
        if not args:
            raise RuntimeError("No elements found in args.")
        if not isinstance(args[0], Tensor):
            raise RuntimeError("First input of this layer must be tensor.")
        args[0].stop_gradient = False
        saved = _settings["checker_on"]
        _settings["checker_on"] = True
        _install()
        try:
            return func(self, *args, **kwargs)
        finally:
            _settings["checker_on"] = saved
            _install()
    return wrapper


def compare_accuracy(dump_path, another_dump_path, output_filename, loss_scale=1, dump_all_tensors=False):
    """Compare two checker dumps (``worker_*`` files of [PRECISION] lines) into an Excel workbook."""
    assert dump_all_tensors is False, "It is currently not supported."
    from .accuracy_compare import compare_accuracy as _compare
    _compare(dump_path, another_dump_path, output_filename, loss_scale)
