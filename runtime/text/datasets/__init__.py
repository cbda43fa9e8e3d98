"""paddle.text.datasets: UCIHousing, Imdb, Imikolov and Movielens from their published archives."""
from .imdb import Imdb  # noqa: F401
from .imikolov import Imikolov  # noqa: F401
from .movielens import Movielens  # noqa: F401
from .uci_housing import UCIHousing  # noqa: F401

__all__ = ["Imdb", "Imikolov", "Movielens", "UCIHousing"]
