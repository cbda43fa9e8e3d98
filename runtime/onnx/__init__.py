"""ONNX export of static Programs: ``export_program`` lowers a Program to an ``onnx.ModelProto``.

Each op type is lowered by a function in the table of lowering.py (``@lowers("relu")``), grouped
by family in ops_*.py; control flow (if/else, while) becomes ONNX If / Loop.
"""
from .lowering import LOWERINGS, UnsupportedOpError, lowers, lowering_for  # noqa: F401
from .export import export_program, build_model, save_model  # noqa: F401
from . import ops_elementwise, ops_activation, ops_reduce, ops_shape, ops_nn, ops_control_flow  # noqa: F401
from . import ops_activation_extra  # noqa: F401
from . import ops_math_extra, ops_vision_extra, ops_linalg_extra, ops_gather_extra  # noqa: F401
from . import ops_models_extra  # noqa: F401  (after ops_nn / ops_vision_extra: wraps some of their lowerings)

__all__ = ["export_program", "UnsupportedOpError", "lowers", "LOWERINGS"]
