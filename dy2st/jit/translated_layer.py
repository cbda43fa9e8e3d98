"""``paddle.jit.translated_layer``: TranslatedLayer (a loaded jit.save model) and the file suffixes of
a saved model."""
from __future__ import annotations

from ..translated_layer import TranslatedLayer  # noqa: F401

__all__ = ["TranslatedLayer", "INFER_MODEL_SUFFIX", "INFER_PARAMS_SUFFIX", "INFER_PARAMS_INFO_SUFFIX",
           "INFER_PROPERTY_SUFFIX"]

INFER_MODEL_SUFFIX = ".pdmodel"
INFER_PARAMS_SUFFIX = ".pdiparams"
INFER_PARAMS_INFO_SUFFIX = ".pdiparams.info"
INFER_PROPERTY_SUFFIX = ".meta"
