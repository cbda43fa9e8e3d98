"""``paddle.base.unique_name``: ``generate``, ``guard``, ``switch`` and the generator class."""
from __future__ import annotations

from runtime.unique_name import UniqueNameGenerator, generate, generate_with_ignorable_key, guard, switch  # noqa: F401

__all__ = ["generate", "generate_with_ignorable_key", "guard", "switch", "UniqueNameGenerator"]
