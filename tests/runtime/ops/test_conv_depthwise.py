"""The direct depthwise kernels (runtime/ops/conv_depthwise.py) against the nested-loop reference and
the im2col path they replace, and through the op table harness (eager vs static vs compiled, float64
finite-difference gradients) with the direct forward forced on small shapes."""
import numpy as np
import pytest

from runtime.ops import conv, conv_depthwise
from .cases_conv import conv_ref
from .op_harness import OpCase, check_forward, check_grad

rng = np.random.default_rng(11)

# (x shape, filter shape, attrs): multipliers 1 and 3, strides 1/2/3, 4-value paddings, dilation, SAME,
# VALID, 1x1 and 5x5 filters, NHWC
GEOMETRIES = [
    ((2, 3, 7, 6), (3, 1, 3, 3), {"paddings": [1, 1]}),
    ((2, 3, 9, 8), (6, 1, 3, 2), {"strides": [2, 1], "paddings": [1, 0, 2, 1], "dilations": [2, 1]}),
    ((1, 4, 10, 11), (4, 1, 3, 3), {"strides": [2, 2], "paddings": [1, 1]}),
    ((3, 2, 5, 7), (6, 1, 1, 1), {}),
    ((2, 2, 8, 9), (2, 1, 5, 5), {"strides": [3, 2], "paddings": [2, 2], "dilations": [1, 2]}),
    ((1, 2, 4, 4), (2, 1, 3, 3), {}),
    ((2, 3, 7, 5), (3, 1, 3, 3), {"strides": [2, 2], "padding_algorithm": "SAME"}),
    ((1, 2, 6, 6), (4, 1, 2, 2), {"padding_algorithm": "VALID", "strides": [2, 2]}),
    ((2, 5, 6, 3), (3, 1, 3, 3), {"strides": [2, 1], "paddings": [1, 1], "data_format": "NHWC"}),
]


def _channels(x_shape, attrs):
    return x_shape[3] if attrs.get("data_format") == "NHWC" else x_shape[1]


def _always_direct(monkeypatch):
    """The direct forward at every size (``direct_wanted`` keeps it for outputs of 32x32 and more)."""
    real = conv_depthwise.is_depthwise
    monkeypatch.setattr(conv_depthwise, "direct_wanted", lambda x, w, groups, *_: real(x, w, groups))


@pytest.fixture
def direct_forward(monkeypatch):
    _always_direct(monkeypatch)


@pytest.mark.parametrize("x_shape,w_shape,attrs", GEOMETRIES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_direct_equals_reference_and_im2col(monkeypatch, x_shape, w_shape, attrs, dtype):
    attrs = dict(attrs, groups=_channels(x_shape, attrs))
    x = rng.standard_normal(x_shape).astype(dtype)
    w = rng.standard_normal(w_shape).astype(dtype)
    _always_direct(monkeypatch)
    out = conv._conv2d(x, w, **attrs)
    dout = rng.standard_normal(out.shape).astype(dtype)
    dx, dw = conv._conv2d_grad(x, w, dout, **attrs)
    monkeypatch.setattr(conv_depthwise, "is_depthwise", lambda *a: False)      # the im2col path
    monkeypatch.setattr(conv_depthwise, "direct_wanted", lambda *a: False)
    old = conv._conv2d(x, w, **attrs)
    odx, odw = conv._conv2d_grad(x, w, dout, **attrs)
    tol = dict(rtol=2e-5, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    for got, want in ((out, old), (dx, odx), (dw, odw)):
        assert got.dtype == want.dtype == dtype and got.shape == want.shape and got.flags.c_contiguous
        np.testing.assert_allclose(got, want, **tol)
    np.testing.assert_allclose(out, conv_ref(x.astype(np.float64), w.astype(np.float64), **attrs), **tol)


def test_direct_forward_chosen_by_output_size():
    w = (8, 1, 3, 3)
    assert conv_depthwise.direct_wanted((2, 8, 56, 56), w, 8, 56, 56)
    assert not conv_depthwise.direct_wanted((2, 8, 14, 14), w, 8, 14, 14)
    assert not conv_depthwise.direct_wanted((2, 8, 56, 56), (8, 2, 3, 3), 4, 56, 56)     # grouped, not depthwise
    assert not conv_depthwise.is_depthwise((2, 1, 5, 5), (1, 1, 3, 3), 1)


def test_scratch_garbage_does_not_leak(direct_forward):
    x = rng.standard_normal((2, 3, 9, 9))
    w = rng.standard_normal((3, 1, 3, 3))
    for stride in (1, 2):
        attrs = {"groups": 3, "strides": [stride, stride], "paddings": [1, 1]}
        want = conv._conv2d(x, w, **attrs)
        dout = rng.standard_normal(want.shape)
        want_dx, want_dw = conv._conv2d_grad(x, w, dout, **attrs)
        for key in ("pad", "dw_phase", "dw_acc", "dw_tmp", "dw_dwide"):
            conv.scratch(key, (1 << 14,), np.float64)[...] = np.nan
        np.testing.assert_array_equal(conv._conv2d(x, w, **attrs), want)
        got_dx, got_dw = conv._conv2d_grad(x, w, dout, **attrs)
        np.testing.assert_array_equal(got_dx, want_dx)
        np.testing.assert_array_equal(got_dw, want_dw)


def test_partial_filter_grad_equals_full(direct_forward):
    from runtime.static.partial_grads import partial_kernel
    x = rng.standard_normal((2, 4, 8, 7))
    w = rng.standard_normal((8, 1, 3, 3))
    attrs = {"groups": 4, "strides": [2, 1], "paddings": [1, 1], "dilations": [1, 1], "padding_algorithm": "EXPLICIT",
             "data_format": "NCHW"}
    dout = rng.standard_normal(conv._conv2d(x, w, **attrs).shape)
    kernel = partial_kernel("depthwise_conv2d_grad", (False, True), attrs)
    dx, dw = kernel(x, w, dout)
    assert dx is None
    np.testing.assert_array_equal(dw, conv._conv2d_grad(x, w, dout, **attrs)[1])


def _r(*shape):
    return rng.uniform(-1.0, 1.0, shape)


HARNESS_CASES = [
    OpCase("depthwise_conv2d", {"Input": _r(2, 3, 5, 6), "Filter": _r(3, 1, 3, 3)}, conv_ref, name="direct",
           attrs={"groups": 3, "paddings": [1, 1]}),
    OpCase("depthwise_conv2d", {"Input": _r(1, 2, 7, 6), "Filter": _r(4, 1, 3, 2)}, conv_ref, name="direct_mult2",
           attrs={"groups": 2, "strides": [2, 3], "paddings": [1, 0, 1, 1], "dilations": [1, 2]}),
    OpCase("conv2d", {"Input": _r(1, 3, 6, 5), "Filter": _r(5, 1, 3, 3)}, conv_ref, name="direct_nhwc",
           attrs={"groups": 5, "strides": [2, 2], "padding_algorithm": "SAME", "data_format": "NHWC"}),
]


@pytest.mark.parametrize("case", HARNESS_CASES, ids=[c.id for c in HARNESS_CASES])
def test_harness_with_direct_forward(direct_forward, case):
    check_forward(case)
    check_grad(case)


def test_random_geometries_equal_im2col(monkeypatch):
    """30 fixed-seed geometries (batch 0-3, multiplier 1-3, filters 1-4, strides 1-3, dilations 1-2,
    asymmetric paddings up to 4): the direct kernels equal the im2col path."""
    g = np.random.default_rng(1234)
    cases = []
    for _ in range(30):
        n, c, k = int(g.integers(0, 4)), int(g.integers(1, 5)), int(g.integers(1, 4))
        kh, kw, sh, sw, dh, dw = (int(v) for v in g.integers(1, [5, 5, 4, 4, 3, 3]))
        pads = [int(v) for v in g.integers(0, 5, 4)]
        h = int(g.integers(max(1, dh * (kh - 1) + 1 - pads[0] - pads[1]), 12))
        w = int(g.integers(max(1, dw * (kw - 1) + 1 - pads[2] - pads[3]), 12))
        attrs = {"strides": [sh, sw], "paddings": pads, "dilations": [dh, dw], "groups": c}
        cases.append((g.standard_normal((n, c, h, w)), g.standard_normal((c * k, 1, kh, kw)), attrs))
    results = []
    _always_direct(monkeypatch)
    for x, f, attrs in cases:
        out = conv._conv2d(x, f, **attrs)
        dout = g.standard_normal(out.shape)
        results.append((out, dout) + conv._conv2d_grad(x, f, dout, **attrs))
    monkeypatch.setattr(conv_depthwise, "is_depthwise", lambda *a: False)
    monkeypatch.setattr(conv_depthwise, "direct_wanted", lambda *a: False)
    for (x, f, attrs), (out, dout, dx, dw) in zip(cases, results):
        want = (conv._conv2d(x, f, **attrs),) + conv._conv2d_grad(x, f, dout, **attrs)
        for got, exp in zip((out, dx, dw), want):
            assert got.shape == exp.shape, attrs
            np.testing.assert_allclose(got, exp, rtol=1e-11, atol=1e-11, err_msg=str((x.shape, f.shape, attrs)))
