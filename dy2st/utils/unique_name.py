"""``paddle.utils.unique_name``: ``generate``, ``guard``, ``switch`` (the same generator as
``paddle.base.unique_name``)."""
from __future__ import annotations

from runtime.unique_name import UniqueNameGenerator, generate, generate_with_ignorable_key, guard, switch  # noqa: F401

__all__ = ["generate", "generate_with_ignorable_key", "guard", "switch", "UniqueNameGenerator"]
