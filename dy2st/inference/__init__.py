"""``paddle.inference``: run a saved inference model with ``Config`` -> ``create_predictor`` -> ``Predictor``.

Models are ``.pdmodel`` or Paddle 3's PIR ``.json`` files with their ``.pdiparams``, written by this
package or by real Paddle; they run on our executor (CPU, numpy). See `config` for the switches
that act here and the accelerator switches that are accepted and reported as unavailable.
"""
from __future__ import annotations

from .config import AnalysisConfig, Config, PassStrategy, XpuConfig  # noqa: F401  (Paddle's class names too)
from .enums import DataType, PlaceType, PrecisionType, get_num_bytes_of_data_type
from .predictor import PaddleInferPredictor, Predictor, PredictorPool, create_predictor  # noqa: F401
from .tensor import PaddleInferTensor, Tensor  # noqa: F401
from .utils import (_get_phi_kernel_name, convert_to_mixed_precision, get_trt_compile_version,
                    get_trt_runtime_version, get_version)

__all__ = ["Config", "DataType", "PlaceType", "PrecisionType", "Tensor", "Predictor", "create_predictor",
           "get_version", "_get_phi_kernel_name", "get_trt_compile_version", "convert_to_mixed_precision",
           "get_trt_runtime_version", "get_num_bytes_of_data_type", "PredictorPool", "XpuConfig"]
