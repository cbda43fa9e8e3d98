"""paddle.nn.initializer: objects that fill parameters (Constant, Normal, Xavier*, Kaiming* ...)."""
from .initializer import Initializer, calculate_gain, set_global_initializer  # noqa: F401
from .constant import Constant, ConstantInitializer  # noqa: F401
from .normal import Normal, TruncatedNormal, NormalInitializer, TruncatedNormalInitializer  # noqa: F401
from .uniform import Uniform, UniformInitializer  # noqa: F401
from .xavier import XavierUniform, XavierNormal, XavierInitializer  # noqa: F401
from .kaiming import KaimingUniform, KaimingNormal, MSRAInitializer  # noqa: F401
from .assign import Assign, NumpyArrayInitializer  # noqa: F401
from .orthogonal import Orthogonal  # noqa: F401
from .bilinear_dirac import Bilinear, BilinearInitializer, Dirac  # noqa: F401

__all__ = ["Initializer", "Constant", "Normal", "TruncatedNormal", "Uniform", "XavierUniform",
           "XavierNormal", "KaimingUniform", "KaimingNormal", "Assign", "Orthogonal",
           "calculate_gain", "set_global_initializer", "Bilinear", "Dirac"]
