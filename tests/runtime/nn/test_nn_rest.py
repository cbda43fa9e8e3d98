"""The rest of paddle.nn / nn.functional (runtime/nn/functional/nn_rest.py, runtime/nn/layer/nn_rest.py):
argument handling, in-place rules, SpectralNorm's (Paddle-formula) gradient, ParameterDict, static
Programs and to_static, and the GPU-only entry points' errors. Values against Paddle: tests/interop."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st import nn

rng = np.random.default_rng(12)


def T(a, dt="float64", grad=False):
    return paddle.to_tensor(np.asarray(a, dtype=dt), stop_gradient=not grad)


# -- fractional max pooling ------------------------------------------------------------------------

def test_fractional_pool_arguments_and_mask():
    x = T(rng.standard_normal((2, 3, 9, 8)))
    out, mask = F.fractional_max_pool2d(x, [4, None], random_u=0.3, return_mask=True)
    assert out.shape == [2, 3, 4, 8] and mask.dtype == paddle.int32
    # the mask indexes the maximum in each input plane
    flat = x.numpy().reshape(2, 3, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, mask.numpy().reshape(2, 3, -1).astype(int), -1),
                                  out.numpy().reshape(2, 3, -1))
    assert F.fractional_max_pool3d(T(rng.standard_normal((1, 1, 5, 5, 5))), 2, kernel_size=2,
                                   random_u=0.5).shape == [1, 1, 2, 2, 2]
    with pytest.raises(ValueError, match="random_u"):
        F.fractional_max_pool2d(x, 2, random_u=0.0)
    with pytest.raises(ValueError, match="4-D"):
        F.fractional_max_pool2d(T(np.ones((3, 9, 8))), 2, random_u=0.5)
    with pytest.raises(ValueError, match="kernel_size"):
        F.fractional_max_pool2d(x, 2, kernel_size=[2, 2, 2], random_u=0.5)


def test_fractional_pool_drawn_u_follows_paddle_seed():
    x = T(rng.standard_normal((1, 1, 23, 23)))
    paddle.seed(7)
    a = [F.fractional_max_pool2d(x, 7, return_mask=True)[1].numpy() for _ in range(6)]
    paddle.seed(7)
    b = [F.fractional_max_pool2d(x, 7, return_mask=True)[1].numpy() for _ in range(6)]
    for p, q in zip(a, b):
        np.testing.assert_array_equal(p, q)
    assert len({m.tobytes() for m in a}) > 1     # u is drawn per call: the windows change


def test_fractional_pool_layers_and_grad():
    pool = nn.FractionalMaxPool2D([3, 3], random_u=0.4, return_mask=True)
    assert repr(pool) == "FractionalMaxPool2D(output_size=[3, 3], return_mask=True)"
    x = T(rng.standard_normal((1, 2, 7, 7)), grad=True)
    out, mask = pool(x)
    out.sum().backward()
    g = x.grad.numpy().reshape(2, -1)
    # each output's gradient lands on its own maximum (windows do not overlap: one 1 per window)
    assert g.sum() == 18 and set(np.unique(g)) <= {0.0, 1.0}
    np.testing.assert_array_equal(np.sort(np.nonzero(g[0])[0]), np.sort(mask.numpy()[0, 0].ravel()))
    assert nn.FractionalMaxPool3D(2, random_u=0.5)(T(np.ones((1, 1, 4, 4, 4)))).shape == [1, 1, 2, 2, 2]


# -- SpectralNorm ----------------------------------------------------------------------------------

def _paddle_sn_grad(w, u, v, g, dim, iters, eps=1e-12):
    """Paddle's spectral_norm_grad formula, written out in numpy."""
    perm = [dim] + [i for i in range(w.ndim) if i != dim]
    mat = w.transpose(perm).reshape(w.shape[dim], -1)
    gm = g.transpose(perm).reshape(mat.shape)
    for _ in range(iters):
        v = mat.T @ u
        v = v / (np.linalg.norm(v) + eps)
        u = mat @ v
        u = u / (np.linalg.norm(u) + eps)
    sigma = u @ mat @ v
    dmat = gm * (1 - np.outer(u, v) * np.sum(mat / sigma)) / sigma
    return dmat.reshape([w.shape[i] for i in perm]).transpose(np.argsort(perm))


@pytest.mark.parametrize("shape,dim,iters", [((4, 6), 0, 1), ((3, 4, 2), 1, 2), ((2, 3, 2, 2), 0, 3)])
def test_spectral_norm_layer(shape, dim, iters):
    sn = nn.SpectralNorm(list(shape), dim=dim, power_iters=iters, dtype="float64")
    assert sorted(sn.state_dict()) == ["weight_u", "weight_v"]
    assert all(p.stop_gradient and not p.trainable for p in sn.parameters())
    u0, v0 = sn.weight_u.numpy().copy(), sn.weight_v.numpy().copy()
    w = rng.standard_normal(shape)
    x = T(w, grad=True)
    out = sn(x)
    g = rng.standard_normal(shape)
    (out * T(g)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), _paddle_sn_grad(w, u0, v0, g, dim, iters), rtol=1e-10, atol=1e-12)
    # the forward divides by the estimated top singular value; u, v stay as they were (Paddle)
    np.testing.assert_array_equal(sn.weight_u.numpy(), u0)
    sn60 = nn.SpectralNorm(list(shape), dim=dim, power_iters=60, dtype="float64")
    mat = np.moveaxis(w, dim, 0).reshape(shape[dim], -1)
    np.testing.assert_allclose(sn60(T(w)).numpy(), w / np.linalg.svd(mat, compute_uv=False)[0], rtol=1e-8)


def test_spectral_norm_errors():
    with pytest.raises(AssertionError):
        nn.SpectralNorm([3, 0])
    with pytest.raises(AssertionError):
        nn.SpectralNorm([3, 4], dim=2)
    sn = nn.SpectralNorm([3, 4])
    with pytest.raises(ValueError, match="U must have shape"):
        sn(T(np.ones((4, 3)), "float32"))


# -- temporal_shift / swiglu / rms_norm / dropout1d ------------------------------------------------

def test_temporal_shift_and_swiglu_errors():
    with pytest.raises(ValueError, match="data_format"):
        F.temporal_shift(T(np.ones((4, 2, 2, 2))), 2, data_format="NCL")
    with pytest.raises(ValueError, match="multiple of seg_num"):
        F.temporal_shift(T(np.ones((5, 2, 2, 2))), 2)
    with pytest.raises(TypeError, match="seg_num"):
        F.temporal_shift(T(np.ones((4, 2, 2, 2))), 2.0)
    with pytest.raises(ValueError, match="even"):
        F.swiglu(T(np.ones((2, 5))))
    with pytest.raises(ValueError, match="same shape"):
        F.swiglu(T(np.ones((2, 4))), T(np.ones((2, 3))))


def test_rms_norm_values_and_grad_through_both_outputs():
    x = rng.standard_normal((2, 3, 4))
    w = rng.standard_normal((3, 4))
    xt, wt = T(x, grad=True), T(w, grad=True)
    y, inv = F.rms_norm(xt, [3, 4], wt, eps=1e-6)
    rows = x.reshape(2, -1)
    r = 1 / np.sqrt((rows ** 2).mean(1) + 1e-6)
    np.testing.assert_allclose(inv.numpy(), r, rtol=1e-12)
    np.testing.assert_allclose(y.numpy(), (rows * r[:, None]).reshape(x.shape) * w, rtol=1e-12)
    (y.sum() + inv.sum()).backward()
    eps = 1e-6

    def f(a):
        rr = 1 / np.sqrt((a.reshape(2, -1) ** 2).mean(1) + 1e-6)
        return ((a.reshape(2, -1) * rr[:, None]).reshape(x.shape) * w).sum() + rr.sum()
    num = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        num[i] = (f(x + d) - f(x - d)) / (2 * eps)
    np.testing.assert_allclose(xt.grad.numpy(), num, rtol=1e-5, atol=1e-8)
    with pytest.raises(ValueError, match="normalized_shape"):
        F.rms_norm(T(x), [5])


def test_dropout1d():
    x = T(rng.uniform(1, 2, (3, 8, 5)))
    np.testing.assert_array_equal(F.dropout1d(x, 0.4, training=False).numpy(), x.numpy())
    paddle.seed(3)
    d = F.dropout1d(x, 0.5).numpy()
    dropped = np.all(d == 0, axis=-1)
    assert dropped.any() and not dropped.all()
    np.testing.assert_allclose(d[~dropped], 2 * x.numpy()[~dropped])
    assert F.dropout1d(T(np.ones((4, 6))), 0.5).shape == [4, 6]
    with pytest.raises(RuntimeError, match="2D or 3D"):
        F.dropout1d(T(np.ones((1, 2, 3, 4))))
    with pytest.raises(ValueError, match="probability"):
        F.dropout1d(x, -0.1)
    with pytest.warns(UserWarning, match="inplace"):
        F.dropout1d(x, 0.5, inplace=True)


# -- in-place activations --------------------------------------------------------------------------

@pytest.mark.parametrize("name,args,ref", [
    ("elu_", (0.5,), lambda a: np.where(a > 0, a, np.float32(0.5) * np.expm1(a))),
    ("hardtanh_", (-0.25, 0.5), lambda a: np.clip(a, -0.25, 0.5)),
    ("leaky_relu_", (0.1,), lambda a: np.where(a > 0, a, 0.1 * a)),
    ("softmax_", (0,), lambda a: np.exp(a) / np.exp(a).sum(0)),
    ("tanh_", (), np.tanh),
    ("thresholded_relu_", (0.3, 0.5), lambda a: np.where(a > 0.3, a, 0.5)),
])
def test_inplace_activation(name, args, ref):
    fn = getattr(F, name)
    a = rng.standard_normal((3, 4))
    x = T(a)
    assert fn(x, *args) is x
    np.testing.assert_allclose(x.numpy(), ref(a), rtol=1e-6, atol=1e-7)
    leaf = T(a, grad=True)
    with pytest.raises(ValueError, match="inplace"):
        fn(leaf, *args)
    # the gradient flows through the in-place result of a non-leaf
    y = leaf * 1.0
    fn(y, *args).sum().backward()
    assert leaf.grad is not None and leaf.grad.shape == [3, 4]


def test_inplace_special_cases():
    with pytest.raises(AssertionError, match="alpha >= 0"):
        F.elu_(T(np.ones(2)), -1.0)
    x = T(np.array([1.0, 2.0]), "float32")
    y = F.softmax_(x, dtype="float64")
    assert y is not x and y.dtype == paddle.float64
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])      # Paddle works on the cast copy


# -- attention -------------------------------------------------------------------------------------

def test_flash_attn_qkvpacked_is_plain_attention():
    qkv = rng.standard_normal((2, 5, 3, 2, 4))
    out, sm = F.flash_attn_qkvpacked(T(qkv), causal=True, return_softmax=True)
    q, k, v = (np.transpose(qkv[:, :, i], (0, 2, 1, 3)) for i in range(3))
    s = q @ np.swapaxes(k, -1, -2) / 2.0 + np.triu(np.full((5, 5), -1e4), 1)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    np.testing.assert_allclose(sm.numpy(), p, rtol=1e-12)
    np.testing.assert_allclose(out.numpy(), np.transpose(p @ v, (0, 2, 1, 3)), rtol=1e-12)
    assert F.flash_attn_qkvpacked(T(qkv))[1] is None
    with pytest.raises(ValueError, match="5-D"):
        F.flash_attn_qkvpacked(T(np.ones((2, 3, 4))))


@pytest.mark.parametrize("call,error", [
    (lambda q: F.flash_attn_varlen_qkvpacked(q, None, None, 8, 8, 0.25), RuntimeError),
    (lambda q: F.flashmask_attention(q, q, q), RuntimeError),
    (lambda q: F.flashmask_attention(q, q, q, startend_row_indices=q), ValueError),
    (lambda q: F.flash_attention_v3_varlen(q, q, q, None, None, 8, 8), ValueError),
    (lambda q: F.sparse_attention(q, q, q, None, None), RuntimeError),
    (lambda q: F.moe_permute(q, None, q, q, 2, [1, 1], 0), RuntimeError),
    (lambda q: F.moe_unpermute(q, q, q, q, 4, 2), RuntimeError),
])
def test_gpu_only_entry_points_raise_like_paddle(call, error):
    with pytest.raises(error, match="CUDA kernel"):
        call(T(np.ones((1, 2, 2, 4)), "float32"))


# -- torch-style names and ParameterDict -----------------------------------------------------------

def test_torch_style_names_are_aliases():
    for alias, orig in [("Conv1d", "Conv1D"), ("Conv2d", "Conv2D"), ("Conv3d", "Conv3D"), ("SiLU", "Silu"),
                        ("AdaptiveMaxPool1d", "AdaptiveMaxPool1D"), ("AdaptiveMaxPool2d", "AdaptiveMaxPool2D"),
                        ("AdaptiveMaxPool3d", "AdaptiveMaxPool3D"), ("Module", "Layer"), ("ModuleDict", "LayerDict"),
                        ("ModuleList", "LayerList"), ("HuberLoss", "SmoothL1Loss")]:
        assert getattr(nn, alias) is getattr(nn, orig), alias


def test_parameter_dict():
    a, b = paddle.create_parameter([2], "float32"), paddle.create_parameter([3], "float32")
    pd = nn.ParameterDict({"b": b})
    pd.update([("a", a)])
    assert list(pd) == ["b", "a"] and len(pd) == 2 and pd["a"] is a and "a" in pd

    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.params = pd

    net = Net()
    assert sorted(net.state_dict()) == ["params.a", "params.b"]
    assert len(net.parameters()) == 2
    with pytest.raises(TypeError, match="Parameters"):
        pd["c"] = paddle.ones([2])
    with pytest.raises(ValueError, match="must be 2"):
        nn.ParameterDict([("x", a, 1)])


# -- static Programs and to_static ----------------------------------------------------------------

def test_new_ops_in_static_program_and_to_static():
    x4 = rng.standard_normal((2, 2, 7, 9)).astype("float32")
    ts = rng.standard_normal((6, 8, 2, 2)).astype("float32")
    qkv = rng.standard_normal((1, 4, 3, 2, 8)).astype("float32")

    def f(a, b, q):
        return (F.fractional_max_pool2d(a, [3, 4], random_u=0.4), F.temporal_shift(b, 3), F.swiglu(b),
                F.rms_norm(b, [2, 2])[0], F.flash_attn_qkvpacked(q, causal=True)[0])

    eager = f(paddle.to_tensor(x4), paddle.to_tensor(ts), paddle.to_tensor(qkv))
    static_f = paddle.jit.to_static(f)
    compiled = static_f(paddle.to_tensor(x4), paddle.to_tensor(ts), paddle.to_tensor(qkv))
    for e, c in zip(eager, compiled):
        np.testing.assert_allclose(c.numpy(), e.numpy(), rtol=1e-6, atol=1e-6)
