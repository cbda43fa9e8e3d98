"""``paddle.static`` compile-time names: BuildStrategy, CompiledProgram, the device place lists and the IPU API.

This build runs on the CPU only: ``CompiledProgram`` wraps a Program for ``Executor.run`` (our executor
compiles every Program to Python already, so the wrapper adds nothing but Paddle's interface), the
``BuildStrategy`` options are recorded and have no effect (they steer Paddle's multi-device graph passes),
and the CUDA / XPU / IPU functions fail as Paddle's do on a build without those devices.
"""
from __future__ import annotations

import enum

from runtime.static import Program

__all__ = ["BuildStrategy", "CompiledProgram", "IpuCompiledProgram", "IpuStrategy", "ipu_shard_guard",
           "set_ipu_shard", "cuda_places", "xpu_places"]

_NO_IPU = "Can not use this function since PaddlePaddle is not compiled with IPU"


class _ReduceStrategy(enum.IntEnum):
    AllReduce = 0
    Reduce = 1
    _NoReduce = 2


# name -> default, as Paddle 3.3.1's BuildStrategy reports them
_OPTIONS = {
    "allow_cuda_graph_capture": False, "async_mode": False, "bkcl_comm_num": 1, "build_cinn_pass": False,
    "cache_runtime_context": False, "debug_graphviz_path": "", "enable_addto": False,
    "enable_auto_fusion": False, "enable_backward_optimizer_op_deps": True, "enable_inplace": True,
    "fuse_adamw": False, "fuse_all_optimizer_ops": False, "fuse_all_reduce_ops": True, "fuse_bn_act_ops": False,
    "fuse_bn_add_act_ops": True, "fuse_broadcast_ops": True, "fuse_dot_product_attention": False,
    "fuse_elewise_add_act_ops": False, "fuse_gemm_epilogue": False, "fuse_relu_depthwise_conv": False,
    "fuse_resunit": False, "fused_attention": False, "fused_feedforward": False,
    "hierarchical_allreduce_inter_nranks": 0, "memory_optimize": None, "mkldnn_enabled_op_types": set(),
    "nccl_comm_num": 1, "num_trainers": 1, "onednn_enabled_op_types": set(),
    "reduce_strategy": _ReduceStrategy.AllReduce, "sequential_run": False, "sync_batch_norm": False,
    "trainer_id": 0, "trainers_endpoints": [], "use_hierarchical_allreduce": False,
}


class BuildStrategy:
    """Options of Paddle's graph build (fusions, in-place reuse, multi-device reduction). Every option of
    Paddle 3.3.1 can be read and set; none changes how this CPU executor runs (its own passes always run),
    so they only travel with the program. Unknown option names raise AttributeError, as in Paddle."""

    ReduceStrategy = _ReduceStrategy

    def __init__(self):
        for k, v in _OPTIONS.items():
            object.__setattr__(self, k, v.copy() if isinstance(v, (set, list)) else v)

    def __setattr__(self, name, value):
        if name not in _OPTIONS:
            raise AttributeError(f"'BuildStrategy' object has no attribute '{name}'; its options are "
                                 f"{', '.join(sorted(_OPTIONS))}")
        if name == "reduce_strategy":
            value = _ReduceStrategy(value)
        object.__setattr__(self, name, value)

    def __repr__(self):
        changed = {k: getattr(self, k) for k in _OPTIONS if getattr(self, k) != _OPTIONS[k]}
        return f"BuildStrategy({', '.join(f'{k}={v!r}' for k, v in changed.items())})"


class CompiledProgram:
    """``CompiledProgram(program, build_strategy=None)``: a Program prepared for ``Executor.run``.
    ``exe.run(compiled, feed=..., fetch_list=...)`` runs the wrapped program (same scope, same cache)."""

    def __init__(self, program_or_graph, build_strategy=None):
        if not isinstance(program_or_graph, Program):
            raise TypeError("The type of program_to_graph parameter is wrong, expected Graph or Program, but "
                            f"received {type(program_or_graph)}")
        if build_strategy is not None and not isinstance(build_strategy, BuildStrategy):
            raise TypeError(f"build_strategy must be a paddle.static.BuildStrategy, got {type(build_strategy)}")
        self._program = program_or_graph
        self._build_strategy = build_strategy
        self._places = None
        self._compiled = False

    @property
    def program(self):
        return self._program

    def __repr__(self):
        return f"CompiledProgram({len(self._program.blocks)} block(s), build_strategy={self._build_strategy!r})"


class IpuStrategy:
    """Paddle's IPU configuration: raises RuntimeError on this build, which has no IPU support."""

    def __init__(self):
        raise RuntimeError("Can not use IpuStrategy in non IPU compiled environment, please re-compile with "
                           "WITH_IPU=ON.")


class IpuCompiledProgram:
    """Paddle's IPU program compiler: raises ValueError on this build, which has no IPU support."""

    def __init__(self, program=None, scope=None, ipu_strategy=None):
        raise ValueError(_NO_IPU)


class ipu_shard_guard:
    """``with ipu_shard_guard(index, stage):`` marks ops for an IPU shard; raises ValueError here (no IPU),
    like Paddle on a build without IPU."""

    def __init__(self, index=-1, stage=-1):
        self.index, self.stage = index, stage

    def __enter__(self):
        raise ValueError(_NO_IPU)

    def __exit__(self, *exc):
        return False


def set_ipu_shard(call_func, index=-1, stage=-1):
    """Wrap a Layer (its class is patched, as Paddle does) or a function so that each call runs inside
    ``ipu_shard_guard(index, stage)``; calling the result raises ValueError on this build (no IPU)."""
    from runtime.nn import Layer

    if not isinstance(call_func, Layer):
        if not callable(call_func):
            raise TypeError("Unsupported type. Only accept paddle.nn.Layer or function.")

        def wrapper(*args, **kwargs):
            with ipu_shard_guard(index=index, stage=stage):
                return call_func(*args, **kwargs)
        return wrapper

    class BlockFn(type(call_func)):
        def __call__(self, *args, **kwargs):
            with ipu_shard_guard(index=index, stage=stage):
                return super().__call__(*args, **kwargs)

    BlockFn.__name__ = type(call_func).__name__
    call_func.__class__ = BlockFn
    return call_func


def cuda_places(device_ids=None):
    """Paddle asserts a CUDA build; this build has none (AssertionError, Paddle's message)."""
    raise AssertionError("Not compiled with CUDA")


def xpu_places(device_ids=None):
    """Paddle asserts an XPU build; this build has none (AssertionError, Paddle's message)."""
    raise AssertionError("Not compiled with XPU")
