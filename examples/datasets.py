"""Load the bundled 8x8 handwritten digits (examples/data/digits.csv.gz) with numpy only.

    from datasets import load_digits
    x_train, y_train, x_test, y_test = load_digits()

The split is fixed: the 1797 samples are shuffled once with ``numpy.random.default_rng(0)``
(independent of ``paddle.seed``) and the first 1437 go to training, the last 360 to test.
Pixels are scaled from 0..16 to float32 in [0, 1]; labels are int64.
"""
from __future__ import annotations

import gzip
import os

import numpy as np

DATA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "digits.csv.gz")
N_SAMPLES = 1797
N_TRAIN = 1437
SPLIT_SEED = 0


def load_digits_raw(path=DATA_FILE):
    """All samples in file order: pixels as int64 ``[1797, 64]`` (0..16) and labels int64 ``[1797]``."""
    with gzip.open(path, "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.int64)
    if table.shape != (N_SAMPLES, 65):
        raise ValueError(f"{path}: expected {N_SAMPLES} rows of 64 pixels + 1 label, got shape {table.shape}")
    return table[:, :64], table[:, 64]


def load_digits(path=DATA_FILE, image_shape=None):
    """The fixed train/test split: ``(x_train, y_train, x_test, y_test)``.

    ``x`` is float32 ``[N, 64]`` in [0, 1] (or ``[N, *image_shape]``, e.g. ``(1, 8, 8)``);
    ``y`` is int64 ``[N]``. Train has 1437 samples, test 360.
    """
    pixels, labels = load_digits_raw(path)
    x = (pixels / 16.0).astype(np.float32)
    if image_shape is not None:
        x = x.reshape((-1,) + tuple(image_shape))
    perm = np.random.default_rng(SPLIT_SEED).permutation(N_SAMPLES)
    tr, te = perm[:N_TRAIN], perm[N_TRAIN:]
    return x[tr], labels[tr], x[te], labels[te]


if __name__ == "__main__":
    xtr, ytr, xte, yte = load_digits()
    print(f"train: x {xtr.shape} {xtr.dtype}, y {ytr.shape} {ytr.dtype}")
    print(f"test:  x {xte.shape} {xte.dtype}, y {yte.shape} {yte.dtype}")
    print("train class counts:", np.bincount(ytr, minlength=10).tolist())
    print("test class counts: ", np.bincount(yte, minlength=10).tolist())
