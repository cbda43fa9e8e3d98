"""``paddle.inference.Config`` (Paddle's ``AnalysisConfig``): where the model is and how to run it.

The model is named as Paddle names it: ``Config(model_file, params_file)`` (a ``.pdmodel`` or
Paddle 3's PIR ``.json``, and its ``.pdiparams``), ``Config(model_dir, prefix)`` (the files
``model_dir/prefix.pdmodel`` or ``.json``), ``Config(model_dir)`` (the old ``__model__`` layout), or
``set_model_buffer`` (the files' bytes). As a convenience Paddle does not offer, ``Config(prefix)``
also finds ``prefix.pdmodel`` / ``prefix.json`` when ``prefix`` is not a directory.

CPU switches act on our executor: ``switch_ir_optim`` turns our graph passes
(`runtime.static.passes`, ``DY2ST_PASSES``) on or off, ``delete_pass`` removes one and
``enable_memory_optim`` adds the buffer-reuse pass (``inplace``); the other switches (threads,
oneDNN, feed/fetch ops, logging) are kept and reported by ``summary()``: numpy decides its own
threads and kernels. Accelerator switches (GPU, TensorRT, XPU, IPU, ONNX
Runtime, OpenVINO, custom devices) are accepted and reported once per process as unavailable (a
``UserWarning``): the model then runs on the CPU and ``use_gpu()`` stays ``False``. (Paddle's own CPU
build accepts ``enable_use_gpu`` silently but raises ``RuntimeError`` for TensorRT and XPU; a GPU script
runs here unchanged instead.)
"""
from __future__ import annotations

import os
import warnings

from .enums import Precision

__all__ = ["AnalysisConfig", "Config", "PassStrategy", "XpuConfig"]

_warned = set()     # accelerator features already reported as unavailable in this process


def _unavailable(feature):
    if feature in _warned:
        return
    _warned.add(feature)
    warnings.warn(f"paddle.inference.Config: {feature} is not available in this package (it runs models on "
                  "the CPU with numpy); the switch is accepted and the model runs on the CPU.",
                  UserWarning, stacklevel=3)


def _text(value, what):
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise TypeError(f"paddle.inference.Config: {what} must be a str (a path), got {type(value).__name__}")
    return value


class PassStrategy:
    """``config.pass_builder()``: the graph passes the predictor runs (our passes' names, see
    `runtime.static.passes.PASSES`), editable before ``create_predictor``."""

    def __init__(self, config):
        self._config = config

    def all_passes(self):
        return list(self._config._passes())

    def analysis_passes(self):
        return []

    def delete_pass(self, name):
        self._config.delete_pass(name)

    def append_pass(self, name):
        self._config._add_pass(name)

    def insert_pass(self, idx, name):
        # our passes run in one fixed order (runtime.static.passes.PASSES), so the position is not kept
        self._config._add_pass(name)

    def set_passes(self, names):
        from runtime.static.passes import PASSES
        self._check_names(names)
        self._config._deleted = {n for n in PASSES if n not in names}
        self._config._added = set(names)

    def append_analysis_pass(self, name):
        raise ValueError(f"append_analysis_pass({name!r}): this package has no analysis passes; its graph passes "
                         "are listed by all_passes()")

    def turn_on_debug(self):
        self._config.switch_ir_debug(True)

    def debug_string(self):
        return "\n".join(self.all_passes())

    @staticmethod
    def _check_names(names):
        from runtime.static.passes import PASSES
        unknown = [n for n in names if n not in PASSES]
        if unknown:
            raise ValueError(f"unknown graph pass(es) {unknown}; this package's passes are {list(PASSES)}")


class XpuConfig:
    """``paddle.inference.XpuConfig``: the XPU settings (kept; there is no XPU here)."""

    def __init__(self):
        self.device_id = 0
        self.l3_size = 0
        self.l3_ptr = None
        self.l3_autotune_size = 0
        self.context_gm_size = 0
        self.context = None
        self.stream = None
        self.conv_autotune_level = 0
        self.conv_autotune_file = ""
        self.conv_autotune_file_writeback = False
        self.fc_autotune_level = 0
        self.fc_autotune_file = ""
        self.fc_autotune_file_writeback = False
        self.gemm_compute_precision = 1
        self.transformer_softmax_optimize_level = 0
        self.transformer_encoder_adaptive_seqlen = True
        self.quant_post_static_gelu_out_threshold = 10.0
        self.quant_post_dynamic_activation_method = 0
        self.quant_post_dynamic_weight_precision = 1
        self.quant_post_dynamic_op_types = []


class AnalysisConfig:
    """``paddle.inference.Config``: ``Config()``, ``Config(other_config)``, ``Config(model_dir_or_prefix)``,
    ``Config(model_file, params_file)`` or ``Config(model_dir, prefix)``."""

    Precision = Precision
    Float32 = Precision.Float32
    Int8 = Precision.Int8
    Half = Precision.Half
    Bfloat16 = Precision.Bfloat16

    def __init__(self, *args):
        self._model_dir = ""
        self._prog_file = ""
        self._params_file = ""
        self._buffers = None               # (program bytes, params bytes) from set_model_buffer
        self._threads = 1
        self._ir_optim = True
        self._ir_debug = False
        self._glog_off = False
        self._memory_optim = False
        self._feed_fetch_ops = False
        self._specify_input_name = False
        self._mkldnn = True
        self._mkldnn_cache = 10
        self._profile = False
        self._deleted, self._added = set(), set()
        self._optim_cache_dir = ""
        self._new_ir = False
        self._new_executor = False
        self._optimization_level = 2
        self._save_optim_model = False
        self._use_optimized_model = False
        self._collect_shape = False
        self._shape_range_info_path = ""
        self._gpu = {"memory_pool_init_size_mb": 0, "device_id": 0, "precision": Precision.Float32}
        self._xpu = XpuConfig()
        self._trt_precision = Precision.Float32
        self._used = False                 # a config serves one predictor, as in Paddle
        if len(args) == 1 and isinstance(args[0], AnalysisConfig):
            self.__dict__.update({k: (dict(v) if isinstance(v, dict) else set(v) if isinstance(v, set) else v)
                                  for k, v in vars(args[0]).items()})
            self._used = False
        elif len(args) == 1:
            self.set_model(args[0])
        elif len(args) == 2:
            self.set_model(args[0], args[1])
        elif args:
            raise TypeError(f"Config() takes a model directory, (model_file, params_file), (model_dir, prefix) or "
                            f"another Config; got {len(args)} arguments")

    # -- the model --------------------------------------------------------------------------------

    def set_model(self, *args):
        """``set_model(model_dir)`` or ``set_model(model_file_or_dir, params_file_or_prefix)``."""
        if len(args) == 1:
            self._model_dir = _text(args[0], "model_dir")
            self._prog_file = self._params_file = ""
        elif len(args) == 2:
            first, second = _text(args[0], "model_file"), _text(args[1], "params_file")
            if os.path.isdir(first):
                # Paddle 3's Config(model_dir, prefix): the prefix's program (.json or .pdmodel) and .pdiparams
                # (both programs present, as Paddle-written directories may hold: the newer one, as load_model)
                from runtime.formats.model_io import program_path
                prefix = os.path.join(first, second)
                self._prog_file = program_path(prefix)
                self._params_file = prefix + ".pdiparams"
            else:
                self._prog_file, self._params_file = first, second
            self._model_dir = ""
        else:
            raise TypeError(f"set_model() takes 1 or 2 arguments, got {len(args)}")
        self._buffers = None

    def set_prog_file(self, path):
        self._prog_file = _text(path, "prog_file")

    def set_params_file(self, path):
        self._params_file = _text(path, "params_file")

    def set_model_buffer(self, prog_buffer, prog_buffer_size, params_buffer, params_buffer_size):
        """The model from memory: the program file's bytes and the parameters file's bytes."""
        def as_bytes(b, n, what):
            b = b.encode("latin-1") if isinstance(b, str) else bytes(b)
            if n is not None and n != len(b):
                raise ValueError(f"set_model_buffer: {what} has {len(b)} bytes but its size is given as {n}")
            return b
        self._buffers = (as_bytes(prog_buffer, prog_buffer_size, "prog_buffer"),
                         as_bytes(params_buffer, params_buffer_size, "params_buffer"))

    def model_from_memory(self):
        return self._buffers is not None

    def model_dir(self):
        return self._model_dir

    def prog_file(self):
        return self._prog_file

    def params_file(self):
        return self._params_file

    # -- CPU switches -----------------------------------------------------------------------------

    def set_cpu_math_library_num_threads(self, n):
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"set_cpu_math_library_num_threads: expected a positive int, got {n!r}")
        self._threads = n

    def cpu_math_library_num_threads(self):
        return self._threads

    def switch_ir_optim(self, x=True):
        """On (default): the predictor runs our graph passes (the default set, or ``DY2ST_PASSES``);
        off: the program runs as loaded."""
        self._ir_optim = bool(x)

    def ir_optim(self):
        return self._ir_optim

    def switch_ir_debug(self, x=True, passes=None):
        self._ir_debug = bool(x)

    def delete_pass(self, name):
        """Do not run graph pass ``name`` (our names: `runtime.static.passes.PASSES`; other names, such as
        Paddle's fusion passes, are not passes here and are ignored, as Paddle ignores a missing pass)."""
        self._deleted.add(_text(name, "pass name"))
        self._added.discard(name)

    def _add_pass(self, name):
        PassStrategy._check_names([name])
        self._added.add(name)
        self._deleted.discard(name)

    def _passes(self):
        """The graph passes a predictor of this config runs, in their order."""
        from runtime.static.passes import PASSES, enabled_passes
        if not self._ir_optim:
            return ()
        chosen = set(enabled_passes()) | self._added
        if self._memory_optim:
            chosen.add("inplace")          # buffer reuse: results written into inputs that die there
        chosen -= self._deleted
        return tuple(n for n in PASSES if n in chosen)

    def pass_builder(self):
        return PassStrategy(self)

    def disable_glog_info(self):
        self._glog_off = True

    def glog_info_disabled(self):
        return self._glog_off

    def enable_memory_optim(self, x=True):
        """Also run the buffer-reuse graph pass (``inplace``) when ``ir_optim`` is on."""
        self._memory_optim = bool(x)

    def switch_use_feed_fetch_ops(self, x=True):
        self._feed_fetch_ops = bool(x)

    def use_feed_fetch_ops_enabled(self):
        return self._feed_fetch_ops

    def switch_specify_input_names(self, x=True):
        self._specify_input_name = bool(x)

    def specify_input_name(self):
        return self._specify_input_name

    def enable_mkldnn(self):
        self._mkldnn = True

    def disable_mkldnn(self):
        self._mkldnn = False

    def mkldnn_enabled(self):
        return self._mkldnn

    enable_onednn, disable_onednn, onednn_enabled = enable_mkldnn, disable_mkldnn, mkldnn_enabled

    def set_mkldnn_cache_capacity(self, capacity=0):
        self._mkldnn_cache = int(capacity)

    set_onednn_cache_capacity = set_mkldnn_cache_capacity

    def set_mkldnn_op(self, op_list):
        pass    # oneDNN kernels do not exist here: numpy runs every op

    set_onednn_op = set_mkldnn_op

    def disable_mkldnn_fc_passes(self):
        pass

    disable_onednn_fc_passes = disable_mkldnn_fc_passes

    def mkldnn_int8_enabled(self):
        return False

    onednn_int8_enabled = mkldnn_int8_enabled

    def enable_profile(self):
        self._profile = True

    def set_optim_cache_dir(self, path):
        self._optim_cache_dir = _text(path, "optim_cache_dir")

    def enable_save_optim_model(self, save_optimized_model=False):
        self._save_optim_model = bool(save_optimized_model)

    def use_optimized_model(self, x=False):
        self._use_optimized_model = bool(x)

    def set_optimization_level(self, opt_level=2):
        self._optimization_level = int(opt_level)

    def enable_new_ir(self, x=True):
        self._new_ir = bool(x)

    def new_ir_enabled(self):
        return self._new_ir

    def enable_new_executor(self, x=True):
        self._new_executor = bool(x)

    def to_native_config(self):
        return AnalysisConfig(self)

    def is_valid(self):
        return not self._used

    # -- accelerators: accepted, reported once, the model runs on the CPU -----------------------------

    def enable_use_gpu(self, memory_pool_init_size_mb, device_id=0, precision_mode=Precision.Float32):
        _unavailable("GPU (CUDA)")
        self._gpu = {"memory_pool_init_size_mb": int(memory_pool_init_size_mb), "device_id": int(device_id),
                     "precision": precision_mode}

    def disable_gpu(self):
        pass

    def use_gpu(self):
        return False

    def gpu_device_id(self):
        return self._gpu["device_id"]

    def memory_pool_init_size_mb(self):
        return self._gpu["memory_pool_init_size_mb"]

    def fraction_of_gpu_memory_for_pool(self):
        return 0.0

    def enable_tensorrt_engine(self, workspace_size=1 << 30, max_batch_size=1, min_subgraph_size=3,
                               precision_mode=Precision.Float32, use_static=False, use_calib_mode=True,
                               use_cuda_graph=False):
        _unavailable("TensorRT")
        self._trt_precision = precision_mode

    def tensorrt_engine_enabled(self):
        return False

    def tensorrt_precision_mode(self):
        return self._trt_precision

    def enable_xpu(self, l3_size=16777216, l3_locked=False, conv_autotune=False, conv_autotune_file="",
                   transformer_encoder_precision="int16", transformer_encoder_adaptive_seqlen=False,
                   enable_multi_stream=False):
        _unavailable("XPU")

    def set_xpu_device_id(self, device_id=0):
        _unavailable("XPU")
        self._xpu.device_id = int(device_id)

    def set_xpu_config(self, config):
        _unavailable("XPU")
        self._xpu = config

    def xpu_config(self):
        return self._xpu

    def use_xpu(self):
        return False

    def xpu_device_id(self):
        return self._xpu.device_id

    def enable_ipu(self, *args, **kwargs):
        _unavailable("IPU")

    def set_ipu_config(self, *args, **kwargs):
        _unavailable("IPU")

    def set_ipu_custom_info(self, *args, **kwargs):
        _unavailable("IPU")

    def load_ipu_config(self, path):
        _unavailable("IPU")

    def enable_custom_device(self, device_type, device_id=0, precision=Precision.Float32):
        _unavailable(f"the custom device {device_type!r}")

    def enable_onnxruntime(self):
        _unavailable("ONNX Runtime")

    def disable_onnxruntime(self):
        pass

    def onnxruntime_enabled(self):
        return False

    def enable_ort_optimization(self):
        _unavailable("ONNX Runtime")

    def enable_openvino_engine(self, inference_precision=Precision.Float32):
        _unavailable("OpenVINO")

    def openvino_engine_enabled(self):
        return False

    def enable_cinn(self):
        _unavailable("CINN")

    def enable_low_precision_io(self, x=True):
        _unavailable("low-precision (fp16/bf16) inputs and outputs")

    def enable_mkldnn_bfloat16(self):
        _unavailable("oneDNN bfloat16")

    enable_onednn_bfloat16 = enable_mkldnn_bfloat16

    def enable_mkldnn_int8(self, *args):
        _unavailable("oneDNN int8")

    enable_onednn_int8 = enable_mkldnn_int8

    def set_bfloat16_op(self, op_list):
        _unavailable("oneDNN bfloat16")

    def collect_shape_range_info(self, shape_range_info_path):
        _unavailable("TensorRT (shape range collection)")
        self._shape_range_info_path = _text(shape_range_info_path, "shape_range_info_path")

    def shape_range_info_collected(self):
        return False

    def shape_range_info_path(self):
        return self._shape_range_info_path

    def _trt_switch(self, *args, **kwargs):
        _unavailable("TensorRT")

    (set_trt_dynamic_shape_info, enable_tuned_tensorrt_dynamic_shape, enable_tensorrt_dla,
     enable_tensorrt_explicit_quantization, enable_tensorrt_inspector, enable_tensorrt_memory_optim,
     enable_tensorrt_varseqlen, exp_disable_tensorrt_ops, exp_disable_tensorrt_subgraph,
     exp_disable_tensorrt_dynamic_shape_ops, exp_specify_tensorrt_subgraph_precision, mark_trt_engine_outputs,
     set_tensorrt_optimization_level, exp_enable_use_cutlass, exp_sparse_conv_using_buffer,
     exp_disable_mixed_precision_ops, exp_enable_mixed_precision_ops) = (_trt_switch,) * 17

    def _off(self):
        return False

    (tensorrt_dla_enabled, tensorrt_dynamic_shape_enabled, tensorrt_explicit_quantization_enabled,
     tensorrt_inspector_enabled, tensorrt_varseqlen_enabled, tuned_tensorrt_dynamic_shape,
     trt_allow_build_at_runtime) = (_off,) * 7

    def tensorrt_optimization_level(self):
        return 0

    def enable_custom_passes(self, passes, custom_pass_only=False):
        for name in passes:
            self._add_pass(name)
        if custom_pass_only:
            self._deleted |= {n for n in self._passes() if n not in passes}

    # -- report ---------------------------------------------------------------------------------

    def summary(self):
        """The settings as Paddle's table (a string)."""
        on = lambda b: "true" if b else "false"   # noqa: E731
        if self._model_dir:
            model = [("model_dir", self._model_dir)]
        elif self._prog_file:
            model = [("model_file", self._prog_file), ("params_file", self._params_file)]
        else:
            model = []
        groups = [
            model,
            [("cpu_math_thread", str(self._threads)), ("enable_mkldnn", on(self._mkldnn)),
             ("mkldnn_cache_capacity", str(self._mkldnn_cache)), ("use_openvino", "false"),
             ("openvino_inference_precision", "fp32")],
            [("use_gpu", "false")],
            [("use_xpu", "false")],
            [("use_cinn_compiler", "false"), ("save_optimized_model", on(self._save_optim_model)),
             ("ir_optim", on(self._ir_optim)), ("ir_debug", on(self._ir_debug)),
             ("use_optimized_model", on(self._use_optimized_model)), ("memory_optim", on(self._memory_optim)),
             ("enable_profile", on(self._profile)), ("enable_log", on(not self._glog_off)),
             ("collect_shape_range_info", on(self._collect_shape))],
        ]
        rows = [r for g in groups for r in g]
        w0 = max(len("Option"), *(len(k) for k, _ in rows))
        w1 = max(len("Value"), *(len(v) for _, v in rows))
        sep = f"+{'-' * (w0 + 2)}+{'-' * (w1 + 2)}+"
        line = lambda k, v: f"| {k.ljust(w0)} | {v.ljust(w1)} |"   # noqa: E731
        out = ["", sep, line("Option", "Value"), sep]
        for g in groups:
            out.extend(line(k, v) for k, v in g)
            out.append(sep)
        return "\n".join(out) + "\n"

    def __repr__(self):
        where = self._model_dir or self._prog_file or ("<model in memory>" if self._buffers else "<no model>")
        return f"<paddle.inference.Config {where}>"


Config = AnalysisConfig
