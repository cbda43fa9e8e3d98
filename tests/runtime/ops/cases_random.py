"""Table rows for the random ops: shapes, dtypes, ranges, rough moments and reproducibility.

Each row's ``compare`` receives the sampled outputs; `_reproducible` re-runs the op after
``paddle.seed(n)`` twice and checks the values repeat (and with a fixed ``seed`` attr, that
they repeat without reseeding).
"""
import numpy as np

import runtime
from runtime.dispatch import run_op

from .op_harness import OpCase, _ordered_inputs, _to_tensors


def _draw(case):
    out = run_op(case.op, *_to_tensors(_ordered_inputs(case)), **case.attrs)
    return out.numpy()


def _reproducible(case):
    runtime.seed(1234)
    a = _draw(case)
    runtime.seed(1234)
    b = _draw(case)
    np.testing.assert_array_equal(a, b, err_msg=f"{case.id}: paddle.seed does not reproduce the values")
    if case.attrs.get("seed"):
        np.testing.assert_array_equal(_draw(case), _draw(case), err_msg=f"{case.id}: fixed seed attr")


def check(shape, dtype, lo=None, hi=None, mean=None, std=None, tol=0.05):
    """A compare function: exact shape and dtype, values within [lo, hi], moments near mean/std."""
    def compare(actual, case):
        (out,) = actual
        assert out.shape == tuple(shape), f"{case.id}: shape {out.shape}, expected {tuple(shape)}"
        assert out.dtype == np.dtype(dtype), f"{case.id}: dtype {out.dtype}, expected {np.dtype(dtype)}"
        if lo is not None:
            assert out.min() >= lo, f"{case.id}: min {out.min()} < {lo}"
        if hi is not None:
            assert out.max() <= hi, f"{case.id}: max {out.max()} > {hi}"
        if mean is not None:
            assert abs(out.mean() - mean) < tol, f"{case.id}: mean {out.mean()} vs {mean}"
        if std is not None:
            assert abs(out.std() - std) < tol, f"{case.id}: std {out.std()} vs {std}"
        _reproducible(case)
    return compare


def check_randint(actual, case):
    check((4000,), np.int64, -3, 4, mean=0.5, tol=0.15)(actual, case)
    assert set(np.unique(actual[0]).tolist()) == set(range(-3, 5))


def check_randperm(actual, case):
    (out,) = actual
    assert out.dtype == np.int64 and sorted(out.tolist()) == list(range(50))
    _reproducible(case)


P = np.tile(np.array([0.0, 1.0, 0.3]), 2000)


def check_bernoulli(actual, case):
    (out,) = actual
    assert out.dtype == np.float64 and out.shape == P.shape
    assert set(np.unique(out).tolist()) <= {0.0, 1.0}
    assert np.all(out[0::3] == 0) and np.all(out[1::3] == 1)
    assert abs(out[2::3].mean() - 0.3) < 0.05
    _reproducible(case)


def check_multinomial(actual, case):
    (out,) = actual
    assert out.shape == (2, 3000) and out.dtype == np.int64
    counts = np.bincount(out[0], minlength=3) / 3000
    np.testing.assert_allclose(counts, [0.2, 0.0, 0.8], atol=0.04)
    assert set(out[1].tolist()) == {1}
    _reproducible(case)


def check_no_replacement(actual, case):
    (out,) = actual
    assert out.shape == (3,) and sorted(out.tolist()) == [0, 2, 3]   # category 1 has probability 0
    _reproducible(case)


# truncated N(0, 1) on [-2, 2] has standard deviation ~0.880
CASES = [
    OpCase("uniform_random", {}, None, attrs={"shape": [100, 50], "min": -2.0, "max": 3.0},
           compare=check((100, 50), np.float32, -2.0, 3.0, mean=0.5, std=5 / 12 ** 0.5, tol=0.1)),
    OpCase("uniform_random", {}, None, attrs={"shape": [4000], "dtype": 6, "seed": 7},
           compare=check((4000,), np.float64, -1.0, 1.0, mean=0.0, std=2 / 12 ** 0.5), name="f64_seed"),
    OpCase("uniform_random", {"ShapeTensor": np.array([3, 2])}, None, attrs={},
           compare=check((3, 2), np.float32, -1.0, 1.0), name="shape_tensor"),
    OpCase("uniform_random", {}, None, attrs={"shape": [3, 3], "diag_num": 3, "diag_step": 3, "diag_val": 5.0},
           compare=lambda a, c: (check((3, 3), np.float32, -1.0, 5.0)(a, c),
                                 np.testing.assert_array_equal(np.diag(a[0]), [5.0, 5.0, 5.0])),
           name="diag"),
    OpCase("gaussian_random", {}, None, attrs={"shape": [5000], "mean": 2.0, "std": 0.5},
           compare=check((5000,), np.float32, mean=2.0, std=0.5)),
    OpCase("gaussian_random", {"ShapeTensorList": [np.array([2]), np.array([3])]}, None,
           attrs={"dtype": 6, "seed": 3}, compare=check((2, 3), np.float64), name="shape_list_seed"),
    OpCase("truncated_gaussian_random", {}, None, attrs={"shape": [5000]},
           compare=check((5000,), np.float32, -2.0, 2.0, mean=0.0, std=0.880)),
    OpCase("truncated_gaussian_random", {}, None,
           attrs={"shape": [50, 40], "mean": 1.0, "std": 0.5, "a": 0.5, "b": 1.5, "dtype": 6},
           compare=check((50, 40), np.float64, 0.5, 1.5, mean=1.0), name="window"),
    OpCase("randint", {}, None, attrs={"low": -3, "high": 5, "shape": [4000]}, compare=check_randint),
    OpCase("randint", {}, None, attrs={"low": 0, "high": 2, "shape": [2, 2], "dtype": 2},
           compare=check((2, 2), np.int32, 0, 1), name="int32"),
    OpCase("randperm", {}, None, attrs={"n": 50}, compare=check_randperm),
    OpCase("bernoulli", {"X": P}, None, compare=check_bernoulli),
    OpCase("multinomial", {"X": np.array([[2.0, 0.0, 8.0], [0.0, 1.0, 0.0]])}, None,
           attrs={"num_samples": 3000, "replacement": True}, compare=check_multinomial),
    OpCase("multinomial", {"X": np.array([0.3, 0.0, 0.5, 0.2])}, None, attrs={"num_samples": 3},
           compare=check_no_replacement, name="no_replacement"),
]
