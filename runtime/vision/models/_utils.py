"""Helpers shared by the model files: channel rounding, and IntermediateLayerGetter."""
from __future__ import annotations

from collections import OrderedDict

from ...api.manipulation import flatten
from ...nn import LayerDict, Linear


def _make_divisible(v, divisor=8, min_value=None):
    """Round ``v`` to a multiple of ``divisor`` (at least ``min_value``), never more than 10% below ``v``.

    MobileNet v2/v3 scale every channel count with this, so the exact rounding decides the
    parameter shapes that pretrained weights must match."""
    if min_value is None:
        min_value = divisor
    rounded = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if rounded < 0.9 * v:
        rounded += divisor
    return rounded


class IntermediateLayerGetter(LayerDict):
    """Run ``model``'s direct children in order up to the last one named in ``return_layers``
    and return ``{return_layers[name]: output}`` for those children (an OrderedDict)."""

    def __init__(self, model, return_layers):
        names = [name for name, _ in model.named_children()]
        if not set(return_layers).issubset(names):
            raise ValueError("return_layers are not present in model")
        wanted = {str(k): str(v) for k, v in return_layers.items()}
        kept = OrderedDict()
        for name, child in model.named_children():
            kept[name] = child
            wanted.pop(name, None)
            if not wanted:
                break
        super().__init__(kept)
        self.return_layers = return_layers

    def forward(self, x):
        out = OrderedDict()
        for name, child in self.items():
            # a classifier head (a Linear, or a container starting with one) needs flat features
            subs = child.sublayers()
            head = isinstance(child, Linear) or (len(subs) > 0 and isinstance(subs[0], Linear))
            if head and x.ndim == 4:
                x = flatten(x, 1)
            x = child(x)
            if name in self.return_layers:
                out[self.return_layers[name]] = x
        return out
