"""``paddle.base.param_attr``: ParamAttr (the one in `runtime.nn.param_attr`)."""
from runtime.nn.param_attr import ParamAttr  # noqa: F401

__all__ = ["ParamAttr"]
