"""``paddle.jit.pir_translated_layer``: the file suffix of a PIR-format saved model (``.json``, written
by ``jit.save`` when ``FLAGS_enable_pir_api`` is on) and its loaded-layer class (our TranslatedLayer,
which loads either format)."""
from __future__ import annotations

from ..translated_layer import TranslatedLayer as PirTranslatedLayer  # noqa: F401

__all__ = ["PirTranslatedLayer", "PIR_INFER_MODEL_SUFFIX"]

PIR_INFER_MODEL_SUFFIX = ".json"
