"""The gradient kernels' internal paths agree with independent references: conv2d's whole-batch GEMM
and wide col2im (stride 1) and per-sample paths against a direct einsum / np.add.at adjoint, the
filter-only partial kernel against the full one, and max pooling's tiled fast path against the
general canvas path (ties: the first maximum in window order gets the gradient)."""
import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

from runtime.ops import conv, pool

rng = np.random.default_rng(5)


def _reference_grads(x, w, dout, strides, pads, dil, groups):
    """dX, dW of an NCHW convolution by direct einsum over the window view and np.add.at (float64)."""
    x, w, dout = (a.astype(np.float64) for a in (x, w, dout))
    N, C, H, W = x.shape
    M, Cg, kh, kw = w.shape
    pt, pb, pl, pr = pads
    xp = np.zeros((N, C, H + pt + pb, W + pl + pr))
    xp[:, :, pt:pt + H, pl:pl + W] = x
    oh, ow = dout.shape[2:]
    sn, sc, sh, sw = xp.strides
    view = as_strided(xp, (N, C, kh, kw, oh, ow),
                      (sn, sc, sh * dil[0], sw * dil[1], sh * strides[0], sw * strides[1]))
    g, Mg = groups, M // groups
    vg = view.reshape(N, g, Cg, kh, kw, oh, ow)
    dg = dout.reshape(N, g, Mg, oh, ow)
    dw = np.einsum("ngmij,ngckhij->gmckh", dg, vg).reshape(w.shape)
    dcols = np.einsum("ngmij,gmckh->ngckhij", dg, w.reshape(g, Mg, Cg, kh, kw)).reshape(N, C, kh, kw, oh, ow)
    dxp = np.zeros_like(xp)
    for a in range(kh):
        for b in range(kw):
            rows = a * dil[0] + strides[0] * np.arange(oh)
            cols = b * dil[1] + strides[1] * np.arange(ow)
            np.add.at(dxp, (slice(None), slice(None), rows[:, None], cols[None, :]), dcols[:, :, a, b])
    return dxp[:, :, pt:pt + H, pl:pl + W], dw


# (x shape, filter shape, strides, 4-value pads, dilations, groups): whole batch (small outputs, batch > 1,
# groups 1) with stride 1 (wide col2im) and 2, per-sample with stride 1 (wide) and 2, groups, 1x1
GEOMETRIES = [
    ((4, 3, 9, 8), (5, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    ((3, 2, 11, 10), (4, 2, 5, 5), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ((2, 3, 9, 9), (4, 3, 3, 2), (2, 1), (1, 0, 2, 1), (1, 2), 1),
    ((1, 3, 20, 18), (4, 3, 3, 3), (1, 1), (2, 1, 0, 1), (2, 1), 1),
    ((1, 2, 19, 19), (3, 2, 5, 5), (2, 2), (2, 2, 2, 2), (1, 1), 1),
    ((2, 4, 19, 18), (6, 2, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 2),
    ((3, 4, 5, 5), (6, 4, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ((0, 3, 9, 8), (5, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),                    # an empty batch
]


@pytest.mark.parametrize("x_shape,w_shape,strides,pads,dil,groups", GEOMETRIES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d_grads_match_reference(x_shape, w_shape, strides, pads, dil, groups, dtype):
    x = rng.standard_normal(x_shape).astype(dtype)
    w = rng.standard_normal(w_shape).astype(dtype)
    attrs = dict(strides=list(strides), paddings=list(pads), dilations=list(dil), groups=groups)
    out = conv._conv2d(x, w, **attrs)
    dout = rng.standard_normal(out.shape).astype(dtype)
    dx, dw = conv._conv2d_grad(x, w, dout, **attrs)
    rdx, rdw = _reference_grads(x, w, dout, strides, pads, dil, groups)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-11, atol=1e-11)
    assert dx.dtype == dw.dtype == dtype and dx.flags.c_contiguous
    np.testing.assert_allclose(dx, rdx, **tol)
    np.testing.assert_allclose(dw, rdw, **tol)
    # the compiled backward's filter-only kernel performs the same operations: the same bits
    none, dw_only = conv.conv2d_grads(x, w, dout, list(strides), list(pads), "EXPLICIT", list(dil), groups, "NCHW",
                                      want_x=False)
    assert none is None
    np.testing.assert_array_equal(dw_only, dw)


def test_conv2d_grads_nhwc_equals_nchw():
    x = rng.standard_normal((3, 4, 8, 8))
    w = rng.standard_normal((5, 4, 3, 3))
    dout = rng.standard_normal((3, 5, 8, 8))
    dx, dw = conv._conv2d_grad(x, w, dout, paddings=[1, 1])
    hdx, hdw = conv._conv2d_grad(x.transpose(0, 2, 3, 1), w, dout.transpose(0, 2, 3, 1), paddings=[1, 1],
                                 data_format="NHWC")
    np.testing.assert_allclose(hdx, dx.transpose(0, 2, 3, 1), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(hdw, dw, rtol=1e-12, atol=1e-12)


def test_wide_scratch_garbage_does_not_leak():
    x = rng.standard_normal((4, 3, 9, 8))
    w = rng.standard_normal((5, 3, 3, 3))
    dout = rng.standard_normal((4, 5, 9, 8))
    want = conv._conv2d_grad(x, w, dout, paddings=[1, 1])
    for key in ("dwide", "dcols", "dT", "cols"):
        conv.scratch(key, (1 << 14,), np.float64)[...] = np.nan
    got = conv._conv2d_grad(x, w, dout, paddings=[1, 1])
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def _general_max_grad(x, out, dout, attrs, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(pool, "_tiled", lambda g: False)
        return pool._pool2d_grad(x, out, dout, **attrs)


@pytest.mark.parametrize("shape,k", [((3, 4, 8, 6), 2), ((2, 3, 9, 6), 3), ((2, 2, 4, 6), (2, 3))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool_tiled_grad_equals_general(monkeypatch, shape, k, dtype):
    k = [k, k] if isinstance(k, int) else list(k)
    x = rng.standard_normal(shape).astype(dtype)
    x[0, 0, :k[0], :k[1]] = 1.5                   # a window of ties: only its first element gets the gradient
    x[1, 1, :k[0], :k[1]] = -np.inf
    attrs = dict(ksize=k, strides=k, paddings=[0, 0], pooling_type="max")
    out = pool._pool2d(x, **attrs)
    dout = rng.standard_normal(out.shape).astype(dtype)
    fast = pool._pool2d_grad(x, out, dout, **attrs)
    assert pool._tiled(pool._geom(x, k, k, [0, 0], False, False, False, "EXPLICIT"))
    assert fast.dtype == dtype and fast.shape == x.shape
    np.testing.assert_array_equal(fast, _general_max_grad(x, out, dout, attrs, monkeypatch))
    assert fast[0, 0, 0, 0] == dout[0, 0, 0, 0] and not fast[0, 0, :k[0], :k[1]].ravel()[1:].any()


def test_max_pool_tiled_grad_nhwc():
    x = rng.standard_normal((2, 6, 4, 3))
    attrs = dict(ksize=[2, 2], strides=[2, 2], paddings=[0, 0], pooling_type="max", data_format="NHWC")
    out = pool._pool2d(x, **attrs)
    dout = rng.standard_normal(out.shape)
    got = pool._pool2d_grad(x, out, dout, **attrs)
    nchw = dict(attrs, data_format="NCHW")
    want = pool._pool2d_grad(x.transpose(0, 3, 1, 2), out.transpose(0, 3, 1, 2), dout.transpose(0, 3, 1, 2), **nchw)
    np.testing.assert_array_equal(got, want.transpose(0, 2, 3, 1))
