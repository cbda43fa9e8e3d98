"""``paddle.onnx.export``: a Layer or function -> an ONNX model file.

The Layer is converted and traced exactly as for ``paddle.jit.save`` (eval mode, pruned to its
outputs); `runtime.onnx.export_program` lowers that Program (If / Loop for control flow,
symbolic dims for ``None`` in the InputSpec, parameters as initializers).
"""
from __future__ import annotations

import os

__all__ = ["export"]


def export(layer, path, input_spec=None, opset_version=17, **configs):
    """Write ``path + '.onnx'`` (or ``path`` when it already ends in .onnx); returns the ModelProto."""
    from runtime.onnx import export_program

    from .jit_io import inference_program
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"onnx.export: path must be a string, got {type(path).__name__}")
    path = os.fspath(path)
    if not path.endswith(".onnx"):
        path += ".onnx"
    output_spec = configs.pop("output_spec", None)
    if configs:
        raise TypeError(f"onnx.export() got unexpected keyword arguments {sorted(configs)}")
    program, feeds, fetches, values, _ = inference_program(layer, input_spec, output_spec, "onnx.export")
    return export_program(program, feeds, fetches, path, opset_version=opset_version, params=values)
