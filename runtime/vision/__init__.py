"""paddle.vision: datasets read from local files, image transforms, and the model zoo (models, ops)."""
from . import datasets, transforms  # noqa: F401
from . import models, ops  # noqa: F401
from .models import *  # noqa: F401,F403  (paddle.vision.resnet18 etc., as Paddle re-exports them)
from .datasets import MNIST, FashionMNIST  # noqa: F401
from .image import set_image_backend, get_image_backend, image_load  # noqa: F401


__all__ = ["datasets", "transforms", "models", "ops", "MNIST", "FashionMNIST", "set_image_backend", "get_image_backend", "image_load"]
__all__ += models.__all__
