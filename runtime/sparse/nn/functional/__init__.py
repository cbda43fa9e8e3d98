"""paddle.sparse.nn.functional: activations, softmax, convolutions, pooling and attention on sparse tensors."""
from .activation import leaky_relu, relu, relu6, softmax  # noqa: F401
from .conv import conv2d, conv3d, subm_conv2d, subm_conv2d_igemm, subm_conv3d, subm_conv3d_igemm  # noqa: F401
from .pooling import max_pool3d  # noqa: F401
from .transformer import attention  # noqa: F401

__all__ = ["conv2d", "conv3d", "subm_conv2d", "subm_conv2d_igemm", "subm_conv3d", "subm_conv3d_igemm",
           "max_pool3d", "relu", "relu6", "leaky_relu", "softmax", "attention"]
