"""paddle.sparse.nn layers over sparse COO/CSR tensors (Paddle's module paths: activation, conv, norm, pooling)."""
from .activation import LeakyReLU, ReLU, ReLU6, Softmax  # noqa: F401
from .conv import Conv2D, Conv3D, SubmConv2D, SubmConv3D  # noqa: F401
from .norm import BatchNorm, SyncBatchNorm  # noqa: F401
from .pooling import MaxPool3D  # noqa: F401
