"""``paddle.base.layers``: the legacy layers namespace. Paddle 3.x keeps it as a package with no public
names (only reader/monkey-patch internals), so code that references it (``alias = paddle.base.layers``)
imports; every layer lives in ``paddle.nn`` / ``paddle.static.nn``.
"""

__all__ = []
