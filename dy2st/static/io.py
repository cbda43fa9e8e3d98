"""``paddle.static.io``: saving and loading inference models (``.pdmodel`` + ``.pdiparams``)."""
from __future__ import annotations

from runtime.static import load_inference_model, save_inference_model  # noqa: F401

__all__ = ["save_inference_model", "load_inference_model"]
