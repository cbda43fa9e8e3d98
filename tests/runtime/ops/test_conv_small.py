"""The whole-batch small-channel convolution kernels (runtime/ops/conv_small.py: batch-inner and rows
layouts), the relu epilogue and the 2x2 tiled max pool agree with the paths they replaced: the
same values (within float rounding where the GEMM sums in another layout, else the same bits) at odd
sizes, strides, dilations, asymmetric padding, non-contiguous inputs, non-finite values and whatever the
scratch memory held."""
import numpy as np
import pytest

from runtime.ops import conv, conv_small, pool

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")     # non-finite inputs on purpose

rng = np.random.default_rng(17)

SHAPES = [     # (x shape, filter shape, attrs)
    ((4, 1, 28, 28), (6, 1, 5, 5), {"paddings": [2, 2]}),                           # LeNet conv1
    ((3, 6, 14, 14), (16, 6, 5, 5), {}),                                            # LeNet conv2
    ((2, 3, 9, 7), (5, 3, 3, 2), {"paddings": [1, 0, 2, 1]}),
    ((5, 2, 11, 10), (3, 2, 3, 3), {"strides": [2, 1], "paddings": [1, 1]}),
    ((2, 4, 12, 13), (4, 4, 3, 3), {"strides": [2, 3], "dilations": [2, 1], "paddings": [2, 1]}),
    ((3, 5, 6, 8), (7, 5, 2, 4), {"dilations": [1, 2], "padding_algorithm": "SAME"}),
    ((2, 3, 8, 8), (4, 3, 3, 3), {"paddings": [1, 1], "data_format": "NHWC"}),       # strided input view
    ((2, 16, 7, 7), (8, 16, 3, 3), {"paddings": [1, 1]}),                          # 16 channels
    ((3, 1, 1, 6), (2, 1, 3, 3), {"paddings": [1, 1]}),      # one row: the input gradient is contiguous
    ((2, 3, 12, 37), (4, 3, 3, 3), {"strides": [1, 2], "dilations": [2, 1], "paddings": [1, 2]}),   # rows, 20 wide
    ((3, 2, 9, 23), (5, 2, 2, 3), {"strides": [2, 1], "paddings": [0, 1, 2, 0]}),                  # rows, 23 wide
]


def _data(shape, w, attrs, dtype, special=False):
    x = rng.standard_normal(shape).astype(dtype)
    if attrs.get("data_format") == "NHWC":
        x = x.transpose(0, 2, 3, 1).copy()
    f = rng.standard_normal(w).astype(dtype)
    if special:
        x.flat[3] = np.inf
        x.flat[-5] = np.nan
        x.flat[7] = -0.0
    return x, f


def _close(got, want, dtype):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    fin = np.isfinite(want)
    np.testing.assert_array_equal(got[~fin], want[~fin])
    scale = max(float(np.abs(want[fin]).max(initial=0)), 1.0)
    tol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got[fin], want[fin], rtol=tol, atol=tol * scale)


def _old_paths(monkeypatch):
    monkeypatch.setattr(conv_small, "wanted", lambda *a, **k: False)


def _force_layouts(monkeypatch):
    """conv_small's kernels for every shape they can run (the choice itself: test_layouts_chosen_...)."""
    monkeypatch.setattr(conv_small, "wanted", lambda n, c, kh, kw, oh, ow, groups, **k: groups == 1 and n > 1)


def _grads(x, f, d, attrs, want_x=True):
    a = {"strides": [1, 1], "paddings": [0, 0], "padding_algorithm": "EXPLICIT", "dilations": [1, 1],
         "groups": 1, "data_format": "NCHW", **attrs}
    return conv.conv2d_grads(x, f, d, a["strides"], a["paddings"], a["padding_algorithm"], a["dilations"],
                             a["groups"], a["data_format"], want_x=want_x)


@pytest.mark.parametrize("shape,w,attrs", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_small_channel_forward_equals_old_paths(monkeypatch, shape, w, attrs, dtype):
    x, f = _data(shape, w, attrs, dtype, special=True)
    b = rng.standard_normal(w[0]).astype(dtype)
    scale, bias, mean, var = (rng.uniform(0.5, 1.5, w[0]).astype(dtype), rng.standard_normal(w[0]).astype(dtype),
                              rng.standard_normal(w[0]).astype(dtype), rng.uniform(0.5, 2.0, w[0]).astype(dtype))
    calls = []
    real = conv_small.forward
    monkeypatch.setattr(conv_small, "forward", lambda *a: calls.append(1) or real(*a))
    _force_layouts(monkeypatch)

    def run():
        return (conv._conv2d(x, f, **attrs), conv._conv2d_bias_act(x, f, b, activation="relu", **attrs),
                conv._conv2d_bn(x, f, scale, bias, mean, var, activation="relu6", **attrs))
    got = run()
    assert len(calls) == 3
    for key in ("cols", "cols_E", "cols_xt", "gemm"):         # garbage a previous call left changes nothing
        conv.scratch(key, (1 << 16,), np.float64)[...] = np.nan
    np.testing.assert_array_equal(run()[0], got[0])
    _old_paths(monkeypatch)
    for g, e in zip(got, run()):
        assert g.flags.c_contiguous
        _close(g, e, dtype)


@pytest.mark.parametrize("shape,w,attrs", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("want_x", [True, False])
def test_small_channel_grads_equal_old_paths(monkeypatch, shape, w, attrs, dtype, want_x):
    x, f = _data(shape, w, attrs, dtype, special=dtype == np.float64)
    out = conv._conv2d(x, f, **attrs)
    d = rng.standard_normal(out.shape).astype(dtype)
    if dtype == np.float32:
        d.flat[2] = np.inf
    calls = []
    real = conv_small.grads
    monkeypatch.setattr(conv_small, "grads", lambda *a: calls.append(1) or real(*a))
    _force_layouts(monkeypatch)
    got = _grads(x, f, d, attrs, want_x)
    assert calls == [1]
    for key in ("cols", "cols_E", "cols_xt", "cols_dout", "cols_F", "dcols"):
        conv.scratch(key, (1 << 16,), np.float64)[...] = np.nan
    again = _grads(x, f, d, attrs, want_x)
    np.testing.assert_array_equal(again[1], got[1])
    np.testing.assert_array_equal(_grads(x, f, d, attrs, not want_x)[1], got[1])    # pruned dx: same dW bits
    _old_paths(monkeypatch)
    want = _grads(x, f, d, attrs, want_x)
    assert (got[0] is None) == (want[0] is None) == (not want_x)
    if want_x:
        assert got[0].flags.c_contiguous and got[0].shape == x.shape
        _close(got[0], want[0], dtype)
        np.testing.assert_array_equal(again[0], got[0])
    _close(got[1], want[1], dtype)


def test_both_layouts_covered():
    assert {conv_small.batch_inner(ow) for ow in (10, 28)} == {True, False}


def test_layouts_chosen_where_they_measured_faster():
    w = conv_small.wanted
    assert w(32, 6, 5, 5, 10, 10, 1)                                  # LeNet conv2 forward: batch inner
    assert w(32, 6, 5, 5, 10, 10, 1, grad=True)
    assert w(32, 1, 5, 5, 28, 28, 1, grad=True)                       # LeNet conv1 gradients: rows
    assert not w(32, 1, 5, 5, 28, 28, 1)                              # ... but not its forward
    assert not w(4, 1, 5, 5, 28, 28, 1, grad=True)                    # rows: batch >= 8
    assert not w(2, 6, 5, 5, 10, 10, 1)                               # forward at batch < 4
    assert w(2, 6, 5, 5, 10, 10, 1, grad=True)
    assert not w(1, 6, 5, 5, 10, 10, 1, grad=True)                    # one sample: the per-sample GEMM
    assert not w(8, 6, 5, 5, 10, 10, 2, grad=True)                    # groups
    assert not w(8, 6, 1, 1, 10, 10, 1, grad=True)                    # 1x1: the input is the columns
    assert not w(8, 3, 3, 3, 112, 112, 1, grad=True)                  # large maps
    assert not w(2, 64, 3, 3, 56, 56, 1, grad=True)                   # ResNet layers
    assert not w(8, 16, 3, 3, 14, 14, 1)                              # forward: at most 8 channels
    assert not w(32, 6, 3, 3, 14, 14, 1)                              # ... and 16 taps or more
    assert w(8, 16, 3, 3, 14, 14, 1, grad=True)


def test_lenet_shapes_take_the_chosen_paths(monkeypatch):
    seen = []
    for name in ("forward", "grads"):
        real = getattr(conv_small, name)
        monkeypatch.setattr(conv_small, name, (lambda n, r: lambda *a: seen.append(n) or r(*a))(name, real))
    x2, w2 = rng.standard_normal((8, 6, 14, 14)), rng.standard_normal((16, 6, 5, 5))
    conv._conv2d(x2, w2)
    _grads(x2, w2, np.ones((8, 16, 10, 10)), {})
    x1, w1 = rng.standard_normal((8, 1, 28, 28)), rng.standard_normal((6, 1, 5, 5))
    conv._conv2d(x1, w1, paddings=[2, 2])
    _grads(x1, w1, np.ones((8, 6, 28, 28)), {"paddings": [2, 2]}, want_x=False)
    _grads(x1, w1, np.ones((8, 6, 28, 28)), {"paddings": [2, 2]})
    assert seen == ["forward", "grads", "grads", "grads"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("shape", [(3, 4, 5, 6), (0, 3), (7,)])
def test_relu_epilogue_same_bits_as_maximum(dtype, shape):
    a = (rng.standard_normal(shape) * 4).astype(dtype)
    if a.size >= 9:
        a.flat[:9] = [-0.0, 0.0, np.nan, -np.inf, np.inf, -np.nan, 6.0, -6.0, 7.0]
    u = f"u{a.itemsize}"
    got = conv.relu_inplace(a.copy())
    np.testing.assert_array_equal(got.view(u), np.maximum(a, 0).view(u))
    assert got.dtype == dtype


def test_relu_inplace_non_contiguous_and_constants_stay_read_only():
    t = rng.standard_normal((4, 5)).astype(np.float32).T
    want = np.maximum(t, 0)
    assert conv.relu_inplace(t) is t
    np.testing.assert_array_equal(t, want)
    z = conv.zeros_readonly((2, 3), np.float32)
    assert not z.flags.writeable and not z.any()
    big = conv.zeros_readonly((conv._SCRATCH_MAX // 4 + 1,), np.float32)    # too large to keep: the scalar
    assert np.ndim(big) == 0 and big == 0


def _pool_general(monkeypatch, x, **attrs):
    with monkeypatch.context() as m:
        m.setattr(pool, "_max_2x2_tiled", None)
        m.setattr(pool, "_tiled", lambda g: False)
        return pool._pool2d(x, **attrs)


@pytest.mark.parametrize("shape", [(32, 6, 28, 28), (3, 16, 10, 10), (2, 3, 4, 6), (0, 2, 4, 4), (2, 1, 2, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_max_pool_2x2_tiled_same_bits(monkeypatch, shape, dtype, layout):
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    if dtype != np.int32 and x.size >= 12:
        flat = x.reshape(-1)
        flat[:8] = [-0.0, 0.0, 0.0, -0.0, np.nan, 1.0, -np.inf, np.inf]
        flat[8:12] = [0.0, -0.0, -0.0, -1.0]
    if layout == "NHWC":
        x = x.transpose(0, 2, 3, 1).copy()
    attrs = dict(ksize=[2, 2], strides=[2, 2], paddings=[0, 0], pooling_type="max", data_format=layout)
    calls = []
    real = pool._max_2x2_tiled
    monkeypatch.setattr(pool, "_max_2x2_tiled", lambda a: calls.append(1) or real(a))
    got = pool._pool2d(x, **attrs)
    assert calls == [1]
    want = _pool_general(monkeypatch, x, **attrs)
    assert got.dtype == want.dtype and got.shape == want.shape and got.flags.c_contiguous
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))


def test_max_pool_2x2_only_when_windows_tile(monkeypatch):
    calls = []
    real = pool._max_2x2_tiled
    monkeypatch.setattr(pool, "_max_2x2_tiled", lambda a: calls.append(1) or real(a))
    x = rng.standard_normal((2, 3, 7, 6)).astype(np.float32)
    pool._pool2d(x, ksize=[2, 2], strides=[2, 2], paddings=[0, 0], pooling_type="max")              # odd height
    pool._pool2d(x[:, :, :6], ksize=[2, 2], strides=[2, 2], paddings=[1, 1], pooling_type="max")    # padded
    pool._pool2d(x[:, :, :6], ksize=[2, 2], strides=[1, 1], paddings=[0, 0], pooling_type="max")    # overlapping
    assert calls == []


@pytest.mark.parametrize("x_shape,w_shape,pad", [((4, 1, 28, 28), (6, 1, 5, 5), 2),    # per-sample wide
                                                 ((1, 6, 14, 14), (16, 6, 5, 5), 0),    # per-sample wide
                                                 ((8, 6, 14, 14), (16, 6, 5, 5), 0),    # batch inner
                                                 ((3, 4, 6, 6), (5, 4, 3, 3), 1)])      # whole batch
@pytest.mark.parametrize("dtypes", [("float32",) * 3, ("float64",) * 3, ("float32", "float64", "float32"),
                                    ("float32", "float32", "float64")])
def test_fused_bias_act_same_bits_as_separate_ops(x_shape, w_shape, pad, dtypes):
    """The bias added in the product's own layout (or after the crop) is the same addition as the
    elementwise_add op after conv2d, and relu the same maximum: the same bits, non-finite values, a
    float64 filter on float32 data and a promoting bias included."""
    x = rng.standard_normal(x_shape).astype(dtypes[0])
    x.flat[5] = np.inf
    w = rng.standard_normal(w_shape).astype(dtypes[1])
    b = rng.standard_normal(w_shape[0]).astype(dtypes[2])
    y = conv._conv2d(x, w, paddings=[pad, pad])
    y = y + b.reshape(1, -1, 1, 1)
    for act, want in (("none", y), ("relu", np.maximum(y, 0))):
        got = conv._conv2d_bias_act(x, w, b, paddings=[pad, pad], activation=act)
        assert got.dtype == want.dtype and got.flags.c_contiguous
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape", [(32, 6, 28, 28), (3, 4, 5, 6), (1, 6, 4, 4), (0, 3, 2, 2), (2, 5, 1, 1)])
@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float64", "float64"), ("float32", "float64"),
                                    ("float32", "float16")])
@pytest.mark.parametrize("ufunc", [np.add, np.multiply])
def test_per_channel_epilogue_same_bits_as_broadcast(shape, dtypes, ufunc):
    out = rng.standard_normal(shape).astype(dtypes[0])
    v = rng.standard_normal(shape[1]).astype(dtypes[1])
    if out.size:
        out.flat[:3] = [np.inf, -0.0, np.nan]
    want = ufunc(out, v.reshape(1, -1, 1, 1), out=out.copy(), casting="unsafe")
    got = out.copy()
    assert conv._per_channel(ufunc, got, v) is not None
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))
    t = out.transpose(0, 1, 3, 2)                        # not contiguous: the broadcast operand
    want_t = ufunc(t, v.reshape(1, -1, 1, 1), casting="unsafe", dtype=None).astype(t.dtype)
    conv._per_channel(ufunc, t, v)
    np.testing.assert_array_equal(t, want_t)
