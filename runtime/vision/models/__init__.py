"""paddle.vision.models: the image classification networks Paddle ships, with its names.

Each architecture family is one module named as Paddle's (``resnet``, ``vgg``, ``mobilenetv1``,
...), with Paddle's sublayer names and parameter order, so a state_dict saved by real Paddle
loads here unchanged and the reverse. ``pretrained=True`` reads the weight file from Paddle's
local cache (see `runtime.utils.download`); nothing is downloaded.
"""
from . import (alexnet, densenet, googlenet, inceptionv3, lenet, mobilenetv1, mobilenetv2,  # noqa: F401
               mobilenetv3, resnet, shufflenetv2, squeezenet, vgg)
from .alexnet import AlexNet, alexnet as _alexnet_fn  # noqa: F401
from .densenet import DenseNet, densenet121, densenet161, densenet169, densenet201, densenet264  # noqa: F401
from .googlenet import GoogLeNet, googlenet as _googlenet_fn  # noqa: F401
from .inceptionv3 import InceptionV3, inception_v3  # noqa: F401
from .lenet import LeNet  # noqa: F401
from .mobilenetv1 import MobileNetV1, mobilenet_v1  # noqa: F401
from .mobilenetv2 import MobileNetV2, mobilenet_v2  # noqa: F401
from .mobilenetv3 import MobileNetV3Large, MobileNetV3Small, mobilenet_v3_large, mobilenet_v3_small  # noqa: F401
from .resnet import (ResNet, resnet18, resnet34, resnet50, resnet101, resnet152, resnext50_32x4d,  # noqa: F401
                     resnext50_64x4d, resnext101_32x4d, resnext101_64x4d, resnext152_32x4d, resnext152_64x4d,
                     wide_resnet50_2, wide_resnet101_2)
from .shufflenetv2 import (ShuffleNetV2, shufflenet_v2_swish, shufflenet_v2_x0_5, shufflenet_v2_x0_25,  # noqa: F401
                           shufflenet_v2_x0_33, shufflenet_v2_x1_0, shufflenet_v2_x1_5, shufflenet_v2_x2_0)
from .squeezenet import SqueezeNet, squeezenet1_0, squeezenet1_1  # noqa: F401
from .vgg import VGG, vgg11, vgg13, vgg16, vgg19  # noqa: F401

# Paddle's package attribute `alexnet` / `googlenet` is the constructor function (the function
# import shadows the submodule of the same name); the submodules stay importable by path.
alexnet = _alexnet_fn
googlenet = _googlenet_fn

__all__ = ["ResNet", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnext50_32x4d",
           "resnext50_64x4d", "resnext101_32x4d", "resnext101_64x4d", "resnext152_32x4d", "resnext152_64x4d",
           "wide_resnet50_2", "wide_resnet101_2", "VGG", "vgg11", "vgg13", "vgg16", "vgg19", "MobileNetV1",
           "mobilenet_v1", "MobileNetV2", "mobilenet_v2", "MobileNetV3Small", "MobileNetV3Large",
           "mobilenet_v3_small", "mobilenet_v3_large", "LeNet", "DenseNet", "densenet121", "densenet161",
           "densenet169", "densenet201", "densenet264", "AlexNet", "alexnet", "InceptionV3", "inception_v3",
           "SqueezeNet", "squeezenet1_0", "squeezenet1_1", "GoogLeNet", "googlenet", "ShuffleNetV2",
           "shufflenet_v2_x0_25", "shufflenet_v2_x0_33", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0",
           "shufflenet_v2_x1_5", "shufflenet_v2_x2_0", "shufflenet_v2_swish"]
