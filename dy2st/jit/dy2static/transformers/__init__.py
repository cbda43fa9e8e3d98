"""``paddle.jit.dy2static.transformers``: Paddle's AST transformer pipeline, ``DygraphToStaticAst``.

dy2st converts with its own passes (`dy2st.transformers`), whose output calls `dy2st.convert_ops`
with other signatures than Paddle's converted code; running Paddle's pipeline on an AST is not
offered: ``DygraphToStaticAst`` raises, naming what to use instead.
"""
from __future__ import annotations

__all__ = ["DygraphToStaticAst"]


class DygraphToStaticAst:
    """Paddle's whole-AST transformer; raises NotImplementedError when created."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("paddle.jit.dy2static.DygraphToStaticAst (Paddle's AST transformer pipeline) is "
                                  "not implemented in dy2st, which converts with its own passes: use "
                                  "paddle.jit.to_static(fn).code for the converted source of a function, or "
                                  "paddle.jit.dy2static.convert_to_static(fn) for the converted function")
