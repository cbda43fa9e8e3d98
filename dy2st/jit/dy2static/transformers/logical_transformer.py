"""``paddle.jit.dy2static.transformers.logical_transformer``: ``cmpop_node_to_str``.

dy2st lowers ``and`` / ``or`` / ``not`` with its own pass (`dy2st.transformers.logical`); this
module offers the helper Paddle's tests import from Paddle's pass: the source text of a comparison
operator node.
"""
from __future__ import annotations

import gast

__all__ = ["cmpop_node_to_str"]

_CMPOP_TEXT = {
    gast.Eq: "==", gast.NotEq: "!=", gast.Lt: "<", gast.LtE: "<=", gast.Gt: ">", gast.GtE: ">=",
    gast.Is: "is", gast.IsNot: "is not", gast.In: "in", gast.NotIn: "not in",
}


def cmpop_node_to_str(node):
    """The operator text of a gast comparison-operator node (``gast.Lt()`` -> ``"<"``); a node that
    is not a comparison operator (``gast.Or()``) raises KeyError, as in Paddle."""
    return _CMPOP_TEXT[type(node)]
