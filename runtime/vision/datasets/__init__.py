"""paddle.vision.datasets: datasets read from local files (dy2st never downloads)."""
from .mnist import MNIST, FashionMNIST  # noqa: F401

__all__ = ["MNIST", "FashionMNIST"]
