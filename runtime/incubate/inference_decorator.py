"""``paddle.incubate.inference`` (``paddle.incubate.jit.inference``): a decorator for inference-only functions and
layers. Paddle converts the function to a static program and runs it through its inference predictor; the
results are those of the function run without gradients, which is what this package does (eagerly, no tape).
Options that change the numbers (reduced precision, TensorRT, CINN) are refused rather than ignored.
"""
from __future__ import annotations

import functools

__all__ = ["inference"]

_MARK = "__dy2st_inference__"


def _check_options(precision_mode, with_trt, enable_cinn, trt_precision_mode, exp_enable_use_cutlass):
    if precision_mode not in ("float32", "fp32"):
        raise NotImplementedError(f"paddle.incubate.inference: precision_mode={precision_mode!r} is not supported "
                                  "here (CPU inference runs in float32); use precision_mode='float32'")
    if with_trt or enable_cinn or exp_enable_use_cutlass:
        raise NotImplementedError("paddle.incubate.inference: TensorRT, CINN and CUTLASS need a GPU build; pass "
                                  "with_trt=False, enable_cinn=False, exp_enable_use_cutlass=False")


def inference(function=None, cache_static_model=False, save_model_dir=None, memory_pool_init_size_mb=1000,
              precision_mode="float32", switch_ir_optim=True, switch_ir_debug=False, enable_cinn=False,
              with_trt=False, trt_precision_mode="float32", trt_use_static=False, collect_shape=False,
              enable_new_ir=False, exp_enable_use_cutlass=False, delete_pass_lists=None, skip_prune_program=False):
    """Decorate ``function`` (a function or a Layer, whose forward is wrapped) to run as inference: no gradients
    are recorded. Usable as ``@inference`` or ``@inference(...)``."""
    if function is not None and getattr(function, _MARK, False):
        return function
    _check_options(precision_mode, with_trt, enable_cinn, trt_precision_mode, exp_enable_use_cutlass)

    def decorator(func):
        from ..nn.layer.layers import Layer
        from ..framework import no_grad
        layer = func if isinstance(func, Layer) else None
        target = layer.forward if layer is not None else func

        @functools.wraps(target)
        def run(*args, **kwargs):
            with no_grad():
                return target(*args, **kwargs)
        setattr(run, _MARK, True)
        if layer is not None:
            layer.forward = run
            return layer
        return run

    if function is None:
        return decorator
    return decorator(function)
