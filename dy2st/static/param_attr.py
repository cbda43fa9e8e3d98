"""``paddle.static.WeightNormParamAttr``: the parameter attribute of Paddle's static weight normalization.

It carries Paddle's fields (``dim`` plus those of ParamAttr). Creating a parameter from it would need
the weight-norm reparameterisation (``w = g * v / ||v||``) in the layer's parameter creation, which
Paddle 3.3.1 itself no longer performs (its layers fail on this attribute in both modes); so a layer given
one raises a clear error instead of silently building an unnormalised weight.
Use ``paddle.nn.utils.weight_norm(layer)`` for weight normalization.
"""
from __future__ import annotations

from runtime.nn.param_attr import ParamAttr

__all__ = ["WeightNormParamAttr"]


class WeightNormParamAttr(ParamAttr):
    """``WeightNormParamAttr(dim=None, name=None, initializer=None, learning_rate=1.0, regularizer=None,
    trainable=True, do_model_average=False, need_clip=True)``."""

    # Paddle records every parameter created with weight normalization here
    params_with_weight_norm: list = []

    def __init__(self, dim=None, name=None, initializer=None, learning_rate=1.0, regularizer=None, trainable=True,
                 do_model_average=False, need_clip=True):
        if dim is not None and (isinstance(dim, bool) or not isinstance(dim, int)):
            raise TypeError(f"WeightNormParamAttr: dim must be an int or None, got {type(dim).__name__}")
        super().__init__(name=name, initializer=initializer, learning_rate=learning_rate, regularizer=regularizer,
                         trainable=trainable, do_model_average=do_model_average, need_clip=need_clip)
        self.dim = dim

    def __getattribute__(self, key):
        # a layer creating its parameter reads the initializer first: stop there with the reason
        if key == "initializer":
            import inspect
            caller = inspect.currentframe().f_back
            if caller is not None and caller.f_code.co_name == "_make_parameter":
                raise NotImplementedError(
                    "WeightNormParamAttr: layers cannot create weight-normalized parameters from it (Paddle 3.3.1 "
                    "fails here as well); use paddle.nn.utils.weight_norm(layer) instead")
        return super().__getattribute__(key)

    def __repr__(self):
        return f"WeightNormParamAttr(dim={self.dim!r}, name={self.name!r}, learning_rate={self.learning_rate})"
