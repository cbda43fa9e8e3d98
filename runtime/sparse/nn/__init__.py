"""paddle.sparse.nn: layers over sparse COO/CSR tensors (activations, norms, convolutions, pooling)."""
from . import functional  # noqa: F401
from .layer import (BatchNorm, Conv2D, Conv3D, LeakyReLU, MaxPool3D, ReLU, ReLU6, Softmax,  # noqa: F401
                    SubmConv2D, SubmConv3D, SyncBatchNorm)

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax", "BatchNorm", "SyncBatchNorm", "Conv2D", "Conv3D",
           "SubmConv2D", "SubmConv3D", "MaxPool3D"]
