"""Paddle's legacy inference entry points, ``paddle.base.core.AnalysisConfig`` and
``paddle.base.core.create_paddle_predictor(config)``: the older (ZeroCopy) predictor interface that
Paddle's model tests and older deployment scripts use.

The predictor is our `PaddleInferPredictor` (paddle.inference.create_predictor) with the legacy method
names: ``get_input_tensor(name)`` / ``get_output_tensor(name)`` (the handles, whose ``copy_from_cpu``,
``set_lod``, ``copy_to_cpu``, ``reshape`` and ``shape`` are the same), ``zero_copy_run()`` (run on the
inputs copied into the handles). ``run(list of paddle.Tensor)`` is the new interface's.
"""
from __future__ import annotations

from .config import AnalysisConfig
from .predictor import PaddleInferPredictor, create_predictor

__all__ = ["AnalysisConfig", "create_paddle_predictor", "PaddlePredictor"]


class PaddlePredictor:
    """``create_paddle_predictor(config)``'s result (see the module doc)."""

    def __init__(self, predictor):
        if not isinstance(predictor, PaddleInferPredictor):
            raise TypeError("a PaddlePredictor is made by paddle.base.core.create_paddle_predictor(config)")
        self._p = predictor

    def get_input_names(self):
        return self._p.get_input_names()

    def get_output_names(self):
        return self._p.get_output_names()

    def get_input_tensor(self, name):
        return self._p.get_input_handle(name)

    def get_output_tensor(self, name):
        return self._p.get_output_handle(name)

    def zero_copy_run(self):
        """Run the model on the inputs copied into the input tensors; read the outputs from the output
        tensors."""
        self._p.run()
        return True

    def run(self, inputs):
        return self._p.run(inputs)

    def clone(self):
        return PaddlePredictor(self._p.clone())

    def clear_intermediate_tensor(self):
        self._p.clear_intermediate_tensor()

    def try_shrink_memory(self):
        return self._p.try_shrink_memory()


def create_paddle_predictor(config):
    """The legacy predictor of ``config`` (an AnalysisConfig naming a saved inference model)."""
    if not isinstance(config, AnalysisConfig):
        raise TypeError(f"create_paddle_predictor(): config must be an AnalysisConfig, got {type(config).__name__}")
    return PaddlePredictor(create_predictor(config))
