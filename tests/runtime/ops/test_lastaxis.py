"""Tests for the short-last-axis reductions (runtime/ops/lastaxis.py) and the kernels built on them:
reduce_max/min/sum/mean, softmax/log_softmax and layer_norm, against numpy's own reductions and
float64 references, over shapes on both sides of every method's thresholds."""
import numpy as np
import pytest

import runtime  # noqa: F401  (registers every op)
from runtime.ops import lastaxis
from runtime.ops.registry import lookup

# widths around the transpose / fold limits (24, 64, 128) and odd widths; rows around 32 / 128 / 256
_WIDTHS = (2, 3, 5, 8, 10, 16, 24, 25, 32, 33, 48, 63, 64, 65, 96, 100, 127, 128, 129)
_ROWS = (1, 31, 32, 127, 128, 300, 1100)


def _specials(x, rng):
    """``x`` with NaN (both signs), +-inf and +-0 sprinkled in (float dtypes)."""
    x = x.copy()
    flat = x.reshape(-1)
    for v in (np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0):
        flat[rng.integers(0, flat.size, size=max(1, flat.size // 50))] = v
    return x


def _same_bits(a, b):
    """Equal values, dtype and shape, and the same sign of every zero and NaN."""
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)
    if a.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(a), np.signbit(b))


def _all_methods_shapes():
    for n in _WIDTHS:
        for rows in _ROWS:
            yield (rows, n)


def test_every_method_is_chosen_somewhere():
    chosen = {lastaxis._method(np.zeros(s, np.float32)) for s in _all_methods_shapes()}
    assert chosen == {None, lastaxis._transposed, lastaxis._fold}


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32, np.int64, np.uint8, np.bool_])
def test_row_extreme_is_numpy_bit_for_bit(dtype):
    rng = np.random.default_rng(1)
    for shape in _all_methods_shapes():
        x = (rng.standard_normal(shape) * 50).astype(dtype)
        if np.dtype(dtype).kind == "f":
            x = _specials(x, rng)
        if not lastaxis.extreme_ok(x):
            continue
        for uf in (np.maximum, np.minimum):
            _same_bits(lastaxis.row_extreme(uf, x, False), uf.reduce(x, axis=-1))
            _same_bits(lastaxis.row_extreme(uf, x, True), uf.reduce(x, axis=-1, keepdims=True))


def test_row_extreme_signed_zero_and_nan_ties_follow_numpy():
    # rows made only of zeros of both signs, or NaNs of both signs: the fix-up takes numpy's pick
    x = np.zeros((512, 8), np.float32)
    x[::2, ::3] = -0.0
    x[1::4] = np.nan
    x[3::8, 1::2] = -np.nan
    for method in (lastaxis._transposed, lastaxis._fold):
        for uf in (np.maximum, np.minimum):
            raw = method(uf, x)
            np.testing.assert_array_equal(raw, uf.reduce(x, axis=-1))   # values always agree
    for uf in (np.maximum, np.minimum):
        _same_bits(lastaxis.row_extreme(uf, x, False), uf.reduce(x, axis=-1))


def test_row_max_shift_values_and_fallbacks():
    rng = np.random.default_rng(2)
    for shape in [(4, 3), (1100, 10), (300, 64), (1100, 100), (8, 2, 700), (5, 1)]:
        x = rng.standard_normal(shape).astype(np.float32)
        np.testing.assert_array_equal(lastaxis.row_max_shift(x), np.maximum.reduce(x, axis=-1, keepdims=True))
    x = rng.standard_normal((1100, 40)).astype(np.float32)[:, ::2]      # not C-contiguous: numpy's path
    assert not lastaxis.extreme_ok(x)
    np.testing.assert_array_equal(lastaxis.row_max_shift(x), np.maximum.reduce(x, axis=-1, keepdims=True))


# -- reduce kernels ----------------------------------------------------------------------------

def _kernel(op):
    return lookup(op).kernel


_CASES = [((1100, 10), [-1]), ((8, 4, 32, 32), [-1]), ((8, 4, 32, 32), [2, 3]), ((300, 64), [1]),
          ((40, 7, 9), [1, 2]), ((129, 127), [-1]), ((1100, 3), [1]), ((64, 1), [-1]), ((3, 4), [-1]),
          ((8, 4, 32, 32), [1]), ((8, 4, 32, 32), [1, 3])]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_reduce_max_min_bitwise(dtype):
    rng = np.random.default_rng(3)
    for shape, dim in _CASES:
        x = (rng.standard_normal(shape) * 100).astype(dtype)
        if np.dtype(dtype).kind == "f":
            x = _specials(x, rng)
        axes = tuple(d % len(shape) for d in dim)
        for op, ref in (("reduce_max", np.max), ("reduce_min", np.min)):
            for keep in (False, True):
                got = _kernel(op)(x, dim=dim, keep_dim=keep)
                _same_bits(got, np.asarray(ref(x, axis=axes, keepdims=keep)))


def test_reduce_max_non_contiguous_and_broadcast_views():
    rng = np.random.default_rng(4)
    base = rng.standard_normal((1100, 64)).astype(np.float32)
    for x in (base[:, ::2], base.T, base[::3], np.broadcast_to(base[:1], (600, 64))):
        for keep in (False, True):
            _same_bits(_kernel("reduce_max")(x, dim=[-1], keep_dim=keep),
                       np.max(x, axis=-1, keepdims=keep))


def test_reduce_max_empty_axis_still_raises_and_empty_rows_work():
    x = np.zeros((1100, 0), np.float32)
    with pytest.raises(ValueError, match="size 0"):
        _kernel("reduce_max")(x, dim=[-1])
    y = np.zeros((0, 32), np.float32)
    assert _kernel("reduce_max")(y, dim=[-1]).shape == (0,)
    assert _kernel("reduce_min")(y, dim=[-1], keep_dim=True).shape == (0, 1)
    assert _kernel("reduce_sum")(x, dim=[-1]).shape == (1100,)
    np.testing.assert_array_equal(_kernel("reduce_sum")(x, dim=[-1]), np.zeros(1100, np.float32))


def test_reduce_max_out_dtype_and_bool():
    x = np.random.default_rng(5).standard_normal((1100, 16)).astype(np.float32)
    out = _kernel("reduce_max")(x, dim=[-1], out_dtype=6)          # FP64
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, x.max(-1).astype(np.float64))
    b = x > 0.5
    _same_bits(_kernel("reduce_max")(b, dim=[-1]), b.max(-1))


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-6), (np.float64, 1e-12)])
def test_reduce_sum_mean_match_numpy_to_rounding(dtype, tol):
    rng = np.random.default_rng(6)
    for shape, dim in _CASES:
        x = rng.standard_normal(shape).astype(dtype)
        axes = tuple(d % len(shape) for d in dim)
        scale = np.sum(np.abs(x.astype(np.float64)), axis=axes, keepdims=True)
        n = x.size // max(scale.size, 1)
        for keep in (False, True):
            s = _kernel("reduce_sum")(x, dim=dim, keep_dim=keep)
            m = _kernel("reduce_mean")(x, dim=dim, keep_dim=keep)
            ref_s = np.sum(x, axis=axes, keepdims=keep)
            assert s.dtype == dtype and s.shape == ref_s.shape and m.dtype == dtype and m.shape == ref_s.shape
            sc = scale if keep else scale.reshape(ref_s.shape)
            assert np.all(np.abs(s - ref_s) <= tol * sc + 1e-30)
            assert np.all(np.abs(m - np.mean(x, axis=axes, keepdims=keep)) <= tol * sc / n + 1e-30)
    # inf and NaN propagate as numpy's
    x = rng.standard_normal((1100, 10)).astype(dtype)
    x[3, 2], x[7, 1], x[9, 0], x[9, 5] = np.nan, np.inf, np.inf, -np.inf
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(np.isnan(_kernel("reduce_sum")(x, dim=[-1])), np.isnan(x.sum(-1)))
    assert _kernel("reduce_sum")(x, dim=[-1])[7] == np.inf


def test_reduce_sum_integer_and_half_keep_numpy_paths():
    rng = np.random.default_rng(7)
    xi = rng.integers(-1000, 1000, (1100, 10)).astype(np.int32)
    got = _kernel("reduce_sum")(xi, dim=[-1])
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, xi.sum(-1, dtype=np.int64))
    xh = rng.standard_normal((1100, 10)).astype(np.float16)
    np.testing.assert_array_equal(_kernel("reduce_sum")(xh, dim=[-1]),
                                  xh.sum(-1, dtype=np.float32).astype(np.float16))


# -- softmax family ----------------------------------------------------------------------------

def _softmax_ref(x, axis):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


_SM_SHAPES = [(8, 4, 32, 32), (1100, 10), (300, 64), (40, 100), (3, 5), (64, 3), (7,), (5000,), (2, 3, 129),
              (300, 2), (100, 24), (2, 40, 7), (1024, 16)]


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-6), (np.float64, 1e-12)])
def test_softmax_log_softmax_and_grads(dtype, tol):
    rng = np.random.default_rng(8)
    sm, lsm = _kernel("softmax"), _kernel("log_softmax")
    sm_g, lsm_g = lookup("softmax_grad").kernel, lookup("log_softmax_grad").kernel
    for shape in _SM_SHAPES:
        for axis in sorted({-1, len(shape) - 1, 0}):
            x = (rng.standard_normal(shape) * 4).astype(dtype)
            ref = _softmax_ref(x, axis)
            out = sm(x, axis=axis)
            assert out.dtype == dtype and out.shape == x.shape and out.flags.c_contiguous
            np.testing.assert_allclose(out, ref, rtol=tol * 4, atol=tol * 1e-3)
            lo = lsm(x, axis=axis)
            assert lo.dtype == dtype and lo.shape == x.shape and lo.flags.c_contiguous
            np.testing.assert_allclose(lo, np.log(ref), rtol=tol * 4, atol=tol * 10)
            d = rng.standard_normal(shape).astype(dtype)
            r64 = ref
            g_ref = r64 * (d - np.sum(d * r64, axis=axis, keepdims=True))
            np.testing.assert_allclose(sm_g(out, d, axis=axis), g_ref, rtol=tol * 10, atol=tol * 10)
            lg_ref = d - r64 * np.sum(d, axis=axis, keepdims=True)
            np.testing.assert_allclose(lsm_g(lo, d, axis=axis), lg_ref, rtol=tol * 10, atol=tol * 100)


def test_softmax_special_values_match_the_numpy_form():
    # rows of -inf, a +inf, a NaN: the fast path gives what the plain numpy formula gives
    x = np.random.default_rng(9).standard_normal((1100, 10)).astype(np.float32)
    x[0] = -np.inf
    x[1, 3] = np.inf
    x[2, 4] = np.nan
    x[3, :5] = -np.inf
    with np.errstate(invalid="ignore"):
        e = np.exp(x - np.maximum.reduce(x, axis=-1, keepdims=True))
        ref = e / e.sum(-1, keepdims=True)
        got = _kernel("softmax")(x, axis=-1)
        lo = _kernel("log_softmax")(x, axis=-1)
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-12)
    assert np.isnan(got[:3]).sum() == np.isnan(ref[:3]).sum() > 0
    np.testing.assert_array_equal(got[3, :5], 0)
    np.testing.assert_array_equal(np.isnan(lo[:3]), np.isnan(got[:3]))
    assert np.all(lo[3, :5] == -np.inf)


def test_softmax_half_takes_the_fast_maximum_and_numpy_sum():
    x = np.random.default_rng(11).standard_normal((1100, 10)).astype(np.float16)
    e = np.exp(x - x.max(-1, keepdims=True))
    ref = e / e.sum(-1, keepdims=True)
    got = _kernel("softmax")(x, axis=-1)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, ref)


def test_softmax_integer_input_is_float32_and_0d():
    x = np.arange(640).reshape(64, 10) % 7
    out = _kernel("softmax")(x, axis=-1)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, _softmax_ref(x, -1), rtol=1e-6)
    assert _kernel("softmax")(np.float32(3.0) * np.ones((), np.float32), axis=-1) == 1


# -- layer_norm --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype,tol", [(np.float32, 2e-6), (np.float64, 1e-12)])
def test_layer_norm_forward_backward(dtype, tol):
    rng = np.random.default_rng(10)
    ln, ln_g = _kernel("layer_norm"), lookup("layer_norm_grad").kernel
    for shape, bna in [((8, 32, 64), 2), ((256, 64), 1), ((4, 10), 1), ((16, 8, 8), 1), ((3, 300), 1)]:
        x = rng.standard_normal(shape).astype(dtype) * 3 + 1
        n = int(np.prod(shape[bna:]))
        w, b = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
        dy = rng.standard_normal(shape).astype(dtype)
        x2 = x.reshape(-1, n).astype(np.float64)
        mu = x2.mean(1, keepdims=True)
        inv = 1 / np.sqrt(((x2 - mu) ** 2).mean(1, keepdims=True) + 9.999999747378752e-06)
        xhat = (x2 - mu) * inv
        y_ref = (xhat * w + b).reshape(shape)
        y = ln(x, w, b, begin_norm_axis=bna)
        y = y[0] if isinstance(y, tuple) else y
        assert y.dtype == dtype
        np.testing.assert_allclose(y, y_ref, rtol=tol, atol=tol * 10)
        g = dy.reshape(-1, n).astype(np.float64) * w
        dx_ref = inv * (g - g.mean(1, keepdims=True) - xhat * (g * xhat).mean(1, keepdims=True))
        dx, dw, db = ln_g(x, w, b, dy, begin_norm_axis=bna)
        np.testing.assert_allclose(dx, dx_ref.reshape(shape), rtol=tol * 10, atol=tol * 10)
        np.testing.assert_allclose(dw, (dy.reshape(-1, n) * xhat).sum(0), rtol=tol * 10, atol=tol * 10)
        np.testing.assert_allclose(db, dy.reshape(-1, n).sum(0, dtype=np.float64), rtol=tol * 10, atol=tol * 10)
        dx0, dw0, db0 = ln_g(x, None, None, dy, begin_norm_axis=bna)
        assert dw0 is None and db0 is None
        g0 = dy.reshape(-1, n).astype(np.float64)
        dx0_ref = inv * (g0 - g0.mean(1, keepdims=True) - xhat * (g0 * xhat).mean(1, keepdims=True))
        np.testing.assert_allclose(dx0, dx0_ref.reshape(shape), rtol=tol * 10, atol=tol * 10)


def test_softmax_views_and_empty_tensors():
    rng = np.random.default_rng(12)
    base = rng.standard_normal((1100, 20)).astype(np.float32)
    for x in (base[:, ::2], base[::2], base.T, np.broadcast_to(base[:1], (500, 20))):
        for axis in (-1, 0):
            # against the plain numpy form in float32 (what the kernel computed before the fast paths)
            s = x - np.maximum.reduce(x, axis=axis, keepdims=True)
            e = np.exp(s)
            np.testing.assert_allclose(_kernel("softmax")(x, axis=axis), e / e.sum(axis, keepdims=True),
                                       rtol=1e-6, atol=1e-12)
            np.testing.assert_allclose(_kernel("log_softmax")(x, axis=axis),
                                       s - np.log(e.sum(axis, keepdims=True)), rtol=1e-6, atol=1e-6)
    assert _kernel("softmax")(np.zeros((0, 10), np.float32), axis=-1).shape == (0, 10)
    with pytest.raises(ValueError):
        _kernel("softmax")(np.zeros((300, 0), np.float32), axis=-1)     # as numpy's empty maximum
    with pytest.raises(ValueError, match="out of range"):
        _kernel("softmax")(base, axis=2)


def test_long_rows_keep_numpys_pairwise_sum():
    # einsum's sequential accumulation loses accuracy on long float32 rows: those keep add.reduce
    from runtime.ops import lastaxis
    from runtime.ops.reduce import _reduce_sum
    rng = np.random.default_rng(3)
    x = rng.random((2, 200_000)).astype(np.float32)
    assert not lastaxis.sum_ok(x)
    got = _reduce_sum(x, dim=[-1])
    np.testing.assert_array_equal(got, np.add.reduce(x, axis=-1))
    ref = x.astype(np.float64).sum(-1)
    assert (np.abs(got - ref) / ref).max() < 1e-7
