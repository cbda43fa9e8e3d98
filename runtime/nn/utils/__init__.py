"""``paddle.nn.utils``: weight and spectral normalisation hooks, parameter <-> vector transforms, gradient
clipping of parameter lists (the functional counterparts of the ClipGrad* classes)."""
from .weight_norm_hook import weight_norm, remove_weight_norm  # noqa: F401
from .spectral_norm_hook import spectral_norm  # noqa: F401
from .transform_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .clip_grad import clip_grad_norm_, clip_grad_value_  # noqa: F401

__all__ = ["weight_norm", "remove_weight_norm", "spectral_norm", "parameters_to_vector", "vector_to_parameters",
           "clip_grad_norm_", "clip_grad_value_"]
