"""paddle.text: text datasets read from local files or Paddle's dataset cache (never downloaded)."""
from . import datasets  # noqa: F401
from .datasets import Imdb, Imikolov, Movielens, UCIHousing  # noqa: F401

__all__ = ["Imdb", "Imikolov", "Movielens", "UCIHousing"]
