"""Tests for the kernel speed-ups: the pool2d geometry cache, the float32 erf used by exact gelu,
and the BLAS thread-count switch (runtime/ops/blas_threads.py)."""
import math

import numpy as np
import pytest

import runtime  # noqa: F401  (registers every op)
from runtime.ops import blas_threads, pool
from runtime.ops.activation import erf_fast
from runtime.ops.registry import lookup

from .cases_pool import pool_ref


def _pool(x, **attrs):
    return lookup("pool2d").kernel(x, **attrs)


# -- pool2d geometry cache -------------------------------------------------------------------

def test_pool_cache_never_reuses_a_geometry_across_shapes_or_attrs():
    rng = np.random.default_rng(0)
    configs = [
        dict(ksize=[2, 2], strides=[2, 2], pooling_type="max"),
        dict(ksize=[2, 2], strides=[2, 2], pooling_type="avg"),
        dict(ksize=[2, 2], strides=[1, 1], pooling_type="max"),
        dict(ksize=[2, 2], strides=[2, 2], paddings=[1, 1], pooling_type="max"),
        dict(ksize=[2, 2], strides=[2, 2], paddings=[1, 1], pooling_type="avg", exclusive=False),
        dict(ksize=[2, 2], strides=[2, 2], paddings=[1, 1], pooling_type="avg", exclusive=True),
        dict(ksize=[3, 3], strides=[2, 2], ceil_mode=True, pooling_type="max"),
        dict(ksize=[3, 3], strides=[2, 2], ceil_mode=False, pooling_type="max"),
        dict(ksize=[2, 3], adaptive=True, pooling_type="avg"),
        dict(ksize=[1, 1], global_pooling=True, pooling_type="avg"),
        dict(ksize=[3, 3], strides=[2, 2], padding_algorithm="SAME", pooling_type="max"),
    ]
    shapes = [(1, 2, 6, 6), (1, 2, 7, 6), (2, 1, 6, 7)]
    # two passes: the second runs every config on a warm cache, interleaved with the others
    for _ in range(2):
        for shape in shapes:
            x = rng.permutation(math.prod(shape)).reshape(shape).astype(np.float64)
            for attrs in configs:
                np.testing.assert_allclose(_pool(x, **attrs), pool_ref(x, **attrs), rtol=1e-12,
                                           err_msg=f"{shape} {attrs}")


def test_pool_cache_key_separates_configs_and_is_bounded(monkeypatch):
    monkeypatch.setattr(pool, "_GEOM_CACHE", {})
    monkeypatch.setattr(pool, "_GEOM_CACHE_MAX", 4)
    x = np.zeros((1, 1, 8, 8))
    a = pool._geom(x, [2, 2], [2, 2], [0, 0], False, False, False, "EXPLICIT")
    assert pool._geom(x, [2, 2], [2, 2], [0, 0], False, False, False, "EXPLICIT") is a
    b = pool._geom(x, [2, 2], [2, 2], [0, 0], True, False, False, "EXPLICIT")
    c = pool._geom(np.zeros((1, 1, 8, 9)), [2, 2], [2, 2], [0, 0], False, False, False, "EXPLICIT")
    assert a is not b and a is not c
    for k in range(1, 20):
        pool._geom(np.zeros((1, 1, 8, 8 + k)), [2, 2], [2, 2], [0, 0], False, False, False, "EXPLICIT")
        assert len(pool._GEOM_CACHE) <= 4


def test_pool_divisor_cache_is_read_only_and_per_dtype():
    x32 = np.arange(36, dtype=np.float32).reshape(1, 1, 6, 6)
    attrs = dict(ksize=[2, 2], strides=[2, 2], paddings=[1, 1], pooling_type="avg", exclusive=True)
    out32 = _pool(x32, **attrs)
    out64 = _pool(x32.astype(np.float64), **attrs)
    assert out32.dtype == np.float32 and out64.dtype == np.float64
    np.testing.assert_allclose(out32, out64, rtol=1e-6)
    g = pool._geom(x32, [2, 2], [2, 2], [1, 1], False, False, False, "EXPLICIT")
    d = pool._avg_divisor(g, True, np.float32)
    with pytest.raises(ValueError):
        d[...] = 0


def test_pool_bad_ksize_still_raises():
    with pytest.raises(ValueError, match="ksize must have 2 values"):
        _pool(np.zeros((1, 1, 4, 4)), ksize=None, pooling_type="max")


# -- exact gelu's float32 erf ----------------------------------------------------------------

def test_erf_fast_matches_math_erf():
    z = np.concatenate([np.linspace(-6, 6, 20001), [0.0, -0.0, 1e-30, -1e-30, 9.0, -40.0, 40.0]]).astype(np.float32)
    exact = np.array([math.erf(float(v)) for v in z], dtype=np.float32)
    got = erf_fast(z)
    assert got.dtype == np.float32 and got.shape == z.shape
    err = np.abs(got.astype(np.float64) - exact)
    # absolute accuracy (erf = 1 - erfc): enough for gelu's 1 + erf, not for tiny erf values
    assert err.max() <= 2 * np.spacing(np.float32(1))
    big = np.abs(exact) >= 0.5   # there it is within an ulp or two of the correctly rounded value
    assert np.all(err[big] <= 2 * np.spacing(np.abs(exact[big])))
    assert erf_fast(np.float32(0.5)).shape == ()


def test_gelu_float32_matches_float64_reference():
    x = np.linspace(-9, 9, 4001).astype(np.float32)
    ref = 0.5 * x.astype(np.float64) * (1 + np.array([math.erf(v / math.sqrt(2)) for v in x.astype(np.float64)]))
    got = lookup("gelu").kernel(x)
    assert got.dtype == np.float32
    # Paddle's float32 form 0.5*x*(1+erf) cancels for very negative x: bound the absolute error
    assert np.max(np.abs(got - ref) / np.maximum(np.abs(x), 1)) < 2e-7
    d = np.ones_like(x)
    h = 1e-3
    xs = x.astype(np.float64)
    cdf = lambda v: 0.5 * v * (1 + np.array([math.erf(t / math.sqrt(2)) for t in v]))  # noqa: E731
    num = (cdf(xs + h) - cdf(xs - h)) / (2 * h)
    g = lookup("gelu_grad").kernel(x, d)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, num, atol=2e-6)


# -- BLAS threads ----------------------------------------------------------------------------

def test_apply_policy_rejects_bad_values():
    with pytest.raises(ValueError, match="DY2ST_BLAS_THREADS"):
        blas_threads.apply_policy("two")
    with pytest.raises(ValueError, match="DY2ST_BLAS_THREADS"):
        blas_threads.apply_policy("0")
    try:
        blas_threads.apply_policy("blas")   # leaves the count alone
        blas_threads.apply_policy("auto")   # the contention policy (tests/runtime/ops/test_blas_threads.py)
        blas_threads.apply_policy("")
    finally:
        blas_threads.apply_policy()         # back to the suite's setting (tests/conftest.py)


@pytest.mark.skipif(not blas_threads.available(), reason="numpy's BLAS thread count is not controllable here")
def test_set_threads_and_limit_restore():
    before = blas_threads.get_threads()
    try:
        with blas_threads.limit(1):
            assert blas_threads.get_threads() == 1
            assert blas_threads._ensure()[1]() == 1       # the library's own answer, not our cache
            a = np.arange(12, dtype=np.float32).reshape(3, 4)
            np.testing.assert_array_equal(a @ a.T, np.dot(a, a.T))
        assert blas_threads.get_threads() == before
        blas_threads.set_threads(before)   # unchanged: a no-op
        assert blas_threads.get_threads() == before
    finally:
        blas_threads.set_threads(before)
