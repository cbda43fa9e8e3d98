"""MovieLens 1M (``ml-1m.zip``): user, movie and rating features per rating."""
from __future__ import annotations

import re
import zipfile

import numpy as np

from ...io.dataset import Dataset
from ...vision.datasets._cache import check_exists_and_download, check_mode

__all__ = ["Movielens", "MovieInfo", "UserInfo"]

age_table = [1, 18, 25, 35, 45, 50, 56]
URL = "https://dataset.bj.bcebos.com/movielens%2Fml-1m.zip"
MD5 = "c4d9eecfca2ab87c1945afe126590906"


class MovieInfo:
    """A movie: id, categories and title (without the year)."""

    def __init__(self, index, categories, title):
        self.index = int(index)
        self.categories = categories
        self.title = title

    def value(self, categories_dict, movie_title_dict):
        return [[self.index], [categories_dict[c] for c in self.categories],
                [movie_title_dict[w.lower()] for w in self.title.split()]]

    def __str__(self):
        return f"<MovieInfo id({self.index}), title({self.title}), categories({self.categories})>"

    __repr__ = __str__


class UserInfo:
    """A user: id, gender, age bucket (index into ``age_table``) and job id."""

    def __init__(self, index, gender, age, job_id):
        self.index = int(index)
        self.is_male = gender == "M"
        self.age = age_table.index(int(age))
        self.job_id = int(job_id)

    def value(self):
        return [[self.index], [0 if self.is_male else 1], [self.age], [self.job_id]]

    def __str__(self):
        return (f"<UserInfo id({self.index}), gender({'M' if self.is_male else 'F'}), "
                f"age({age_table[self.age]}), job({self.job_id})>")

    __repr__ = __str__


class Movielens(Dataset):
    """``dataset[i]`` is 8 arrays: user id, gender (0 male, 1 female), age bucket, job, movie id,
    category ids, title word ids, and the rating mapped to ``2 * stars - 5``.

    Each rating goes to 'test' when ``np.random.random() < test_ratio`` after
    ``np.random.seed(rand_seed)`` (the global numpy generator is reseeded, as in Paddle). Category
    and title-word ids enumerate Python sets, as Paddle does, so they depend on the process's
    string-hash seed (``PYTHONHASHSEED``)."""

    def __init__(self, data_file=None, mode="train", test_ratio=0.1, rand_seed=0, download=True):
        self.mode = check_mode(mode, ("train", "test"), "Movielens")
        self.data_file = check_exists_and_download(data_file, URL, MD5, "sentiment", download, "Movielens")
        self.test_ratio = test_ratio
        self.rand_seed = rand_seed
        np.random.seed(rand_seed)
        self._load_meta_info()
        self._load_data()

    def _open(self, package, name):
        try:
            return package.open(name)
        except KeyError:
            raise ValueError(f"Movielens: {self.data_file} has no member {name!r}; is it ml-1m.zip?") from None

    def _load_meta_info(self):
        pattern = re.compile(r"^(.*)\((\d+)\)$")
        self.movie_info, self.movie_title_dict, self.categories_dict, self.user_info = {}, {}, {}, {}
        title_words, categories_set = set(), set()
        with zipfile.ZipFile(self.data_file) as package:
            with self._open(package, "ml-1m/movies.dat") as movie_file:
                for line in movie_file:
                    movie_id, title, categories = line.decode("latin").strip().split("::")
                    categories = categories.split("|")
                    categories_set.update(categories)
                    match = pattern.match(title)
                    if match is None:
                        raise ValueError(f"Movielens: movie title {title!r} does not end with '(year)'")
                    title = match.group(1)
                    self.movie_info[int(movie_id)] = MovieInfo(movie_id, categories, title)
                    title_words.update(w.lower() for w in title.split())
            self.movie_title_dict = {w: i for i, w in enumerate(title_words)}
            self.categories_dict = {c: i for i, c in enumerate(categories_set)}
            with self._open(package, "ml-1m/users.dat") as user_file:
                for line in user_file:
                    uid, gender, age, job, _ = line.decode("latin").strip().split("::")
                    self.user_info[int(uid)] = UserInfo(uid, gender, age, job)

    def _load_data(self):
        self.data = []
        is_test = self.mode == "test"
        with zipfile.ZipFile(self.data_file) as package, self._open(package, "ml-1m/ratings.dat") as rating:
            for line in rating:
                line = line.decode("latin")
                if (np.random.random() < self.test_ratio) == is_test:
                    uid, mov_id, stars, _ = line.strip().split("::")
                    usr = self.user_info[int(uid)]
                    mov = self.movie_info[int(mov_id)]
                    self.data.append(usr.value() + mov.value(self.categories_dict, self.movie_title_dict)
                                     + [[float(stars) * 2 - 5.0]])

    def __getitem__(self, idx):
        return tuple(np.array(d) for d in self.data[idx])

    def __len__(self):
        return len(self.data)
