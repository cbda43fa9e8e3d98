"""paddle.vision: datasets read from local files, image transforms, and the model zoo (models, ops)."""
from . import datasets, transforms  # noqa: F401
from . import models, ops  # noqa: F401
from .models import *  # noqa: F401,F403  (paddle.vision.resnet18 etc., as Paddle re-exports them)
from .datasets import MNIST, FashionMNIST  # noqa: F401


def _default_backend():
    try:
        import PIL  # noqa: F401
        return "pil"
    except ImportError:
        # dy2st's 'cv2' backend means "numpy arrays"; it does not need OpenCV.
        return "cv2"


_image_backend = [_default_backend()]


def set_image_backend(backend):
    """Choose how datasets return images: 'pil' (PIL images, needs Pillow) or 'cv2' (numpy arrays)."""
    if backend not in ("pil", "cv2"):
        raise ValueError(f"set_image_backend: expected backend is one of ['pil', 'cv2'], but got {backend!r}")
    _image_backend[0] = backend


def get_image_backend():
    """The image backend datasets use when given ``backend=None``."""
    return _image_backend[0]


__all__ = ["datasets", "transforms", "models", "ops", "MNIST", "FashionMNIST", "set_image_backend", "get_image_backend"]
__all__ += models.__all__
