"""``paddle._legacy_C_ops``: Paddle's legacy (fluid-era) operator functions, called as
``_legacy_C_ops.<op_type>(inputs..., "attr", value, ...)``.

None is provided: model code imports the module (``from paddle import _legacy_C_ops``) and calls it only
on paths that have a public API equivalent here (``paddle.vision.ops.multiclass_nms`` / ``nms``,
``paddle.text.viterbi_decode`` ...). Any ``_legacy_C_ops.<name>`` raises AttributeError naming that way
out, as Paddle 3.3.1 itself does for the legacy ops it has dropped (``linear_chain_crf``).
"""
from __future__ import annotations

__all__ = []


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(f"paddle._legacy_C_ops.{name} is not provided by dy2st: Paddle's legacy operator functions "
                         f"(inputs followed by 'attr', value pairs) are not implemented; call the public API "
                         f"(paddle.{name}, paddle.nn.functional.{name}, paddle.vision.ops.{name} ...) instead")
