"""The module functions of ``paddle.inference``: versions, kernel names, and mixed-precision conversion
(which this package does not do: it says so)."""
from __future__ import annotations

__all__ = ["get_version", "get_trt_compile_version", "get_trt_runtime_version", "_get_phi_kernel_name",
           "convert_to_mixed_precision"]

# legacy (fluid) op types whose phi kernel has another name; every other op's kernel has the op's name
_PHI_NAMES = {
    "elementwise_add": "add", "elementwise_sub": "subtract", "elementwise_mul": "multiply",
    "elementwise_div": "divide", "elementwise_max": "maximum", "elementwise_min": "minimum",
    "elementwise_pow": "elementwise_pow", "elementwise_floordiv": "floor_divide", "elementwise_mod": "remainder",
    "elementwise_fmax": "fmax", "elementwise_fmin": "fmin", "elementwise_heaviside": "heaviside",
    "matmul_v2": "matmul", "reshape2": "reshape", "transpose2": "transpose", "squeeze2": "squeeze",
    "unsqueeze2": "unsqueeze", "flatten_contiguous_range": "flatten", "lookup_table_v2": "embedding",
    "fill_constant": "full", "fill_any_like": "full_like", "reduce_sum": "sum", "reduce_mean": "mean",
    "reduce_max": "max", "reduce_min": "min", "reduce_prod": "prod", "reduce_all": "all", "reduce_any": "any",
    "arg_max": "argmax", "arg_min": "argmin", "top_k_v2": "topk", "expand_v2": "expand", "expand_as_v2": "expand_as",
    "hard_swish": "hardswish", "hard_sigmoid": "hardsigmoid", "hard_shrink": "hardshrink",
    "soft_relu": "softrelu", "size": "numel", "isnan_v2": "isnan", "isinf_v2": "isinf", "isfinite_v2": "isfinite",
    "gaussian_random": "gaussian", "uniform_random": "uniform", "sync_batch_norm": "sync_batch_norm",
    "yolov3_loss": "yolo_loss", "deformable_conv_v1": "deformable_conv", "generate_proposals_v2": "generate_proposals",
    "fill_any": "fill", "hierarchical_sigmoid": "hsigmoid_loss",
    "depthwise_conv2d": "depthwise_conv2d", "conv2d_transpose": "conv2d_transpose", "pool2d": "pool2d",
    "bilinear_interp_v2": "bilinear_interp", "nearest_interp_v2": "nearest_interp",
    "one_hot_v2": "one_hot", "where_index": "nonzero", "crop_tensor": "crop", "strided_slice": "strided_slice",
    "softmax_with_cross_entropy": "cross_entropy_with_softmax", "tril_triu": "tril_triu",
    "merged_momentum": "merged_momentum", "lerp": "lerp", "reshape2": "reshape_with_xshape",
    "bicubic_interp_v2": "bicubic_interp", "linear_interp_v2": "linear_interp",
    "trilinear_interp_v2": "trilinear_interp",
    "brelu": "hardtanh", "determinant": "det", "slogdeterminant": "slogdet", "diag_v2": "diag",
    "grid_sampler": "grid_sample", "mean": "mean_all", "mul": "matmul_with_flatten", "range": "arange", "sum": "add_n",
    "bilinear_tensor_product": "bilinear",
}
# a gradient op's kernel is its forward kernel's name + "_grad", except where the forward name differs
_PHI_GRAD_NAMES = {"reshape2_grad": "reshape_grad",
                   "flatten_contiguous_range_grad": "flatten_contiguous_range_grad"}


def _get_phi_kernel_name(op_type):
    """The phi kernel name of a legacy op type (``elementwise_add`` -> ``add``, ``matmul_v2`` -> ``matmul``)."""
    if not isinstance(op_type, str):
        raise TypeError(f"_get_phi_kernel_name(): expected an op type (str), got {type(op_type).__name__}")
    if op_type in _PHI_GRAD_NAMES:
        return _PHI_GRAD_NAMES[op_type]
    if op_type.endswith("_grad") and op_type[:-len("_grad")] in _PHI_NAMES:
        return _PHI_NAMES[op_type[:-len("_grad")]] + "_grad"
    return _PHI_NAMES.get(op_type, op_type)


def get_version():
    """The version text of the inference library: this package's version (see ``paddle.version``)."""
    from .. import version
    return f"version: {version.full_version}\ncommit: {version.commit[:7]}\nbranch: {version.branch}"


def get_trt_compile_version():
    """``(0, 0, 0)``: built without TensorRT (as Paddle's CPU build answers)."""
    return (0, 0, 0)


def get_trt_runtime_version():
    """``(0, 0, 0)``: no TensorRT at run time (as Paddle's CPU build answers)."""
    return (0, 0, 0)


def convert_to_mixed_precision(model_file, params_file, mixed_model_file, mixed_params_file, mixed_precision,
                               backend, keep_io_types=True, black_list=set(), **kwargs):
    """Not supported: this package runs models in the precision they were saved in, on the CPU."""
    unknown = sorted(set(kwargs) - {"white_list"})
    if unknown:
        raise TypeError(f"convert_to_mixed_precision() got unexpected keyword argument(s) {unknown}")
    raise NotImplementedError(
        "convert_to_mixed_precision() is not supported by this package: it converts fp32 models to fp16/bf16 for "
        "GPU/XPU back ends, and models here run on the CPU in the precision they were saved in (Paddle's own "
        "CPU build refuses it too). Convert the model with real PaddlePaddle on a GPU machine, or keep the "
        f"fp32 files ({model_file}, {params_file}).")
