"""runtime/ops/zeros.py: relu against shared zero arrays gives numpy's np.maximum(x, 0) bit for bit."""
import numpy as np
import pytest

import runtime  # noqa: F401  (registers every op)
from runtime.ops import zeros
from runtime.ops.registry import lookup


def _bits(a):
    a = np.asarray(a)
    return a.view(f"u{a.itemsize}") if a.dtype.kind == "f" else a


SPECIAL = [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -1e-40, 3.5, -2.0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32, np.int64, np.uint8, np.bool_])
@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 5), (2, 3, 4, 5), (0, 4), (64, 256)])
def test_relu_equals_maximum_with_zero(dtype, shape):
    rng = np.random.default_rng(len(shape))
    x = np.asarray((rng.standard_normal(shape) * 5).astype(dtype))
    if x.dtype.kind == "f" and x.size >= len(SPECIAL):
        x.reshape(-1)[:len(SPECIAL)] = np.array(SPECIAL).astype(dtype)
    want = np.maximum(x, 0)
    got = zeros.relu(x)
    assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(_bits(got), _bits(want))
    buf = x.copy()
    if buf.dtype != np.bool_:
        assert zeros.relu_inplace(buf) is buf
        np.testing.assert_array_equal(_bits(buf), _bits(want))


def test_non_contiguous_and_views_stay_read_only():
    x = np.random.default_rng(1).standard_normal((6, 8)).astype(np.float32)[:, ::2]
    np.testing.assert_array_equal(_bits(zeros.relu(x)), _bits(np.maximum(x, 0)))
    z = zeros.zeros_readonly((3, 4), np.float32)
    assert not z.flags.writeable and z.shape == (3, 4) and not z.any()
    with pytest.raises(ValueError):
        z[0, 0] = 1.0
    # a zero view of a smaller shape after a larger one: still zeros, right shape
    zeros.zeros_readonly((100, 100), np.float64)
    assert zeros.zeros_readonly((2, 2), np.float64).shape == (2, 2)
    big = zeros.zeros_readonly((zeros.ZEROS_MAX_BYTES // 4 + 1,), np.float32)
    assert np.ndim(big) == 0 and big == 0


def test_relu_kernel_and_fused_gemm_use_it_with_numpys_bits():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 7)).astype(np.float32)
    w = rng.standard_normal((7, 3)).astype(np.float32)
    b = rng.standard_normal((3,)).astype(np.float32)
    np.testing.assert_array_equal(_bits(lookup("relu").kernel(x)), _bits(np.maximum(x, 0)))
    gemm = lookup("fused_gemm_epilogue").bind({"activation": "relu"})
    want = np.dot(x, w)
    want += b
    np.testing.assert_array_equal(_bits(gemm(x, w, b)), _bits(np.maximum(want, 0)))
    # integer operands keep the general path
    xi = rng.integers(-5, 5, (5, 7)).astype(np.int64)
    wi = rng.integers(-5, 5, (7, 3)).astype(np.int64)
    bi = rng.integers(-5, 5, (3,)).astype(np.int64)
    np.testing.assert_array_equal(gemm(xi, wi, bi), np.maximum(xi @ wi + bi, 0))
