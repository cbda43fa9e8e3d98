"""Built-in layers: forward against numpy references, gradients reaching the parameters, reprs, errors."""
import numpy as np
import pytest

import runtime as paddle
from runtime.nn import initializer as I

nn = paddle.nn
rng = np.random.default_rng(0)


def T(a, grad=False):
    return paddle.to_tensor(np.asarray(a), stop_gradient=not grad)


def randn(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def backward_with(out, g):
    """Backpropagate sum(out * g) so each grad is checked against a hand-derived formula."""
    (out * T(g)).sum().backward()


# -- Linear / Embedding / Flatten / Identity -------------------------------------------------------

def test_linear_forward_and_grads():
    lin = nn.Linear(4, 3)
    assert lin.weight.shape == [4, 3] and lin.bias.shape == [3]
    x, g = randn(5, 4), randn(5, 3)
    w, b = lin.weight.numpy().copy(), rng.standard_normal(3).astype(np.float32)
    lin.bias.set_value(b)
    out = lin(T(x))
    np.testing.assert_allclose(out.numpy(), x @ w + b, rtol=1e-5, atol=1e-6)
    backward_with(out, g)
    np.testing.assert_allclose(lin.weight.grad.numpy(), x.T @ g, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(lin.bias.grad.numpy(), g.sum(0), rtol=1e-5, atol=1e-5)
    nb = nn.Linear(4, 3, bias_attr=False)
    np.testing.assert_allclose(nb(T(x)).numpy(), x @ nb.weight.numpy(), rtol=1e-5, atol=1e-6)
    assert repr(nn.Linear(4, 3, name="fc")) == "Linear(in_features=4, out_features=3, dtype=float32, name=fc)"
    with pytest.raises(ValueError, match="Linear: in_features must be a positive int, got 0"):
        nn.Linear(0, 3)


def test_embedding_lookup_padding_and_grad():
    emb = nn.Embedding(6, 3, padding_idx=2)
    w = emb.weight.numpy().copy()
    assert not w[2].any()                                   # the padding row starts at zero
    ids = np.array([[0, 2, 5], [5, 1, 2]], np.int64)
    out = emb(T(ids))
    np.testing.assert_allclose(out.numpy(), w[ids])
    g = randn(2, 3, 3)
    backward_with(out, g)
    ref = np.zeros_like(w)
    for idx, row in zip(ids.ravel(), g.reshape(-1, 3)):
        if idx != 2:
            ref[idx] += row
    np.testing.assert_allclose(emb.weight.grad.numpy(), ref, rtol=1e-5, atol=1e-6)
    assert repr(emb) == "Embedding(6, 3, padding_idx=2, sparse=False, scale_grad_by_freq=False)"
    assert repr(nn.Embedding(10, 4)) == "Embedding(10, 4, sparse=False, scale_grad_by_freq=False)"
    neg = nn.Embedding(5, 2, padding_idx=-1)
    assert not neg.weight.numpy()[4].any()
    with pytest.raises(ValueError, match=r"padding_idx must be within \[-5, 5\)"):
        nn.Embedding(5, 2, padding_idx=5)


def test_flatten_identity():
    x = randn(2, 3, 4, 5)
    np.testing.assert_array_equal(nn.Flatten()(T(x)).numpy(), x.reshape(2, 60))
    np.testing.assert_array_equal(nn.Flatten(0, 1)(T(x)).numpy(), x.reshape(6, 4, 5))
    np.testing.assert_array_equal(nn.Flatten(start_axis=2)(T(x)).numpy(), x.reshape(2, 3, 20))
    ident = nn.Identity(54, unused="x")
    t = T(x)
    assert ident(t) is t
    assert repr(ident) == "Identity()" and repr(nn.Flatten()) == "Flatten()"


# -- Dropout -------------------------------------------------------------------------------------

def test_dropout_modes():
    x = np.ones([200, 100], np.float32)
    d = nn.Dropout(0.3)
    out = d(T(x)).numpy()
    kept = out != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(out[kept], 1 / 0.7, rtol=1e-6)
    d.eval()
    np.testing.assert_array_equal(d(T(x)).numpy(), x)
    down = nn.Dropout(0.3, mode="downscale_in_infer")
    out = down(T(x)).numpy()
    assert set(np.unique(out)) <= {0.0, 1.0}
    down.eval()
    np.testing.assert_allclose(down(T(x)).numpy(), x * 0.7, rtol=1e-6)
    np.testing.assert_array_equal(nn.Dropout(0.0)(T(x)).numpy(), x)
    xg = T(x, grad=True)
    y = nn.Dropout(0.5)(xg)
    y.sum().backward()
    np.testing.assert_allclose(xg.grad.numpy(), (y.numpy() != 0) * 2.0)
    with pytest.raises(ValueError, match="p must be between 0 and 1"):
        nn.Dropout(1.5)
    with pytest.raises(ValueError, match="mode must be 'upscale_in_train' or 'downscale_in_infer'"):
        nn.Dropout(0.5, mode="bad")


# -- convolutions --------------------------------------------------------------------------------

def conv2d_ref(x, w, b, stride, pad, dil, groups):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros([n, o, oh, ow], np.float64)
    og = o // groups
    for oc in range(o):
        gi = oc // og
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, gi * cg:(gi + 1) * cg,
                           i * stride[0]: i * stride[0] + dil[0] * (kh - 1) + 1: dil[0],
                           j * stride[1]: j * stride[1] + dil[1] * (kw - 1) + 1: dil[1]]
                out[:, oc, i, j] = (patch * w[oc]).sum(axis=(1, 2, 3))
    if b is not None:
        out += b[None, :, None, None]
    return out, xp


def conv2d_weight_grad_ref(xp, g, wshape, stride, dil, groups):
    o, cg, kh, kw = wshape
    og = o // groups
    dw = np.zeros(wshape, np.float64)
    _, _, oh, ow = g.shape
    for oc in range(o):
        gi = oc // og
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, gi * cg:(gi + 1) * cg,
                           i * stride[0]: i * stride[0] + dil[0] * (kh - 1) + 1: dil[0],
                           j * stride[1]: j * stride[1] + dil[1] * (kw - 1) + 1: dil[1]]
                dw[oc] += (patch * g[:, oc, i, j][:, None, None, None]).sum(0)
    return dw


@pytest.mark.parametrize("stride,pad,dil,groups", [(1, 0, 1, 1), (2, 1, 1, 2), (1, 2, 2, 1)])
def test_conv2d_forward_and_grads(stride, pad, dil, groups):
    conv = nn.Conv2D(4, 6, 3, stride=stride, padding=pad, dilation=dil, groups=groups)
    assert conv.weight.shape == [6, 4 // groups, 3, 3] and conv.bias.shape == [6]
    conv.bias.set_value(randn(6))
    x = randn(2, 4, 7, 7)
    out = conv(T(x))
    ref, xp = conv2d_ref(x.astype(np.float64), conv.weight.numpy().astype(np.float64), conv.bias.numpy(),
                         [stride] * 2, [pad] * 2, [dil] * 2, groups)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-4)
    g = randn(*ref.shape)
    backward_with(out, g)
    np.testing.assert_allclose(conv.bias.grad.numpy(), g.sum((0, 2, 3)), rtol=1e-4, atol=1e-4)
    dw = conv2d_weight_grad_ref(xp, g.astype(np.float64), conv.weight.shape, [stride] * 2, [dil] * 2, groups)
    np.testing.assert_allclose(conv.weight.grad.numpy(), dw, rtol=1e-4, atol=1e-4)


def test_conv2d_padding_mode_and_options():
    conv = nn.Conv2D(2, 3, (3, 2), padding=1, padding_mode="reflect", bias_attr=False)
    assert conv.bias is None
    x = randn(1, 2, 5, 6)
    xr = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="reflect")
    ref, _ = conv2d_ref(xr.astype(np.float64), conv.weight.numpy().astype(np.float64), None, [1, 1], [0, 0],
                        [1, 1], 1)
    np.testing.assert_allclose(conv(T(x)).numpy(), ref, rtol=1e-4, atol=1e-4)
    nobias = nn.Conv2D(2, 3, 3, bias=False)
    assert nobias.bias is None
    assert repr(nn.Conv2D(1, 6, 5)) == "Conv2D(1, 6, kernel_size=[5, 5], data_format=NCHW)"
    assert repr(nn.Conv2D(3, 4, (3, 2), stride=2, padding=1, dilation=2, padding_mode="reflect")) == \
        "Conv2D(3, 4, kernel_size=[3, 2], stride=[2, 2], padding=1, padding_mode=reflect, dilation=[2, 2], " \
        "data_format=NCHW)"
    assert repr(nn.Conv2D(4, 4, 1, groups=2)) == "Conv2D(4, 4, kernel_size=[1, 1], groups=2, data_format=NCHW)"
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2D(3, 6, 3, groups=2)
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2D(3, 6, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match="data_format must be one of"):
        nn.Conv2D(3, 6, 3, data_format="NCL")


def test_conv2d_nhwc():
    conv = nn.Conv2D(3, 4, 3, padding=1, data_format="NHWC")
    x = randn(2, 5, 5, 3)
    ref, _ = conv2d_ref(x.transpose(0, 3, 1, 2).astype(np.float64), conv.weight.numpy().astype(np.float64),
                        conv.bias.numpy(), [1, 1], [1, 1], [1, 1], 1)
    np.testing.assert_allclose(conv(T(x)).numpy(), ref.transpose(0, 2, 3, 1), rtol=1e-4, atol=1e-4)


def conv2d_transpose_ref(x, w, b, stride, pad, out_pad):
    n, c, h, wd = x.shape
    _, o, kh, kw = w.shape
    full_h = (h - 1) * stride + kh + out_pad
    full_w = (wd - 1) * stride + kw + out_pad
    full = np.zeros([n, o, full_h, full_w], np.float64)
    for i in range(h):
        for j in range(wd):
            full[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw] += \
                np.einsum("nc,cokl->nokl", x[:, :, i, j], w)
    out = full[:, :, pad:full_h - pad, pad:full_w - pad]
    return out + b[None, :, None, None]


def test_conv2d_transpose_forward_and_grads():
    conv = nn.Conv2DTranspose(3, 2, 3, stride=2, padding=1, output_padding=1)
    assert conv.weight.shape == [3, 2, 3, 3]
    conv.bias.set_value(randn(2))
    x = randn(2, 3, 4, 4)
    out = conv(T(x))
    ref = conv2d_transpose_ref(x.astype(np.float64), conv.weight.numpy().astype(np.float64), conv.bias.numpy(),
                               2, 1, 1)
    assert out.shape == [2, 2, 8, 8]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-4)
    g = randn(*ref.shape)
    backward_with(out, g)
    np.testing.assert_allclose(conv.bias.grad.numpy(), g.sum((0, 2, 3)), rtol=1e-4, atol=1e-4)
    # d/dW of sum(g * out) is linear in g: compare with the forward applied to unit weights
    w0 = conv.weight.numpy().astype(np.float64)
    eps = np.zeros_like(w0)
    eps[1, 0, 2, 1] = 1.0
    delta = conv2d_transpose_ref(x.astype(np.float64), eps, np.zeros(2), 2, 1, 1)
    assert conv.weight.grad.numpy()[1, 0, 2, 1] == pytest.approx((delta * g).sum(), rel=1e-4, abs=1e-4)
    assert repr(conv) == "Conv2DTranspose(3, 2, kernel_size=[3, 3], stride=[2, 2], padding=1, output_padding=1, " \
                         "data_format=NCHW)"


# -- pooling -------------------------------------------------------------------------------------

def pool_ref(x, k, s, p, fn, pad_value):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=pad_value)
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    out = np.zeros([n, c, oh, ow], x.dtype)
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = fn(xp[:, :, i * s:i * s + k, j * s:j * s + k], axis=(2, 3))
    return out


def test_max_pool2d_forward_and_grad():
    x = rng.permutation(2 * 3 * 6 * 6).reshape(2, 3, 6, 6).astype(np.float32)   # no ties
    xt = T(x, grad=True)
    out = nn.MaxPool2D(2, 2)(xt)
    ref = pool_ref(x, 2, 2, 0, np.max, -np.inf)
    np.testing.assert_array_equal(out.numpy(), ref)
    out.sum().backward()
    expected = np.isin(x, ref).astype(np.float32)
    np.testing.assert_array_equal(xt.grad.numpy(), expected)
    np.testing.assert_array_equal(nn.MaxPool2D(3, 1, 1)(T(x)).numpy(), pool_ref(x, 3, 1, 1, np.max, -np.inf))
    assert repr(nn.MaxPool2D(2, 2)) == "MaxPool2D(kernel_size=2, stride=2, padding=0)"
    assert repr(nn.MaxPool2D(2)) == "MaxPool2D(kernel_size=2, stride=None, padding=0)"


def test_avg_pool2d_forward_and_grad():
    x = randn(2, 3, 6, 6)
    xt = T(x, grad=True)
    out = nn.AvgPool2D(2)(xt)
    np.testing.assert_allclose(out.numpy(), pool_ref(x, 2, 2, 0, np.mean, 0), rtol=1e-5, atol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(xt.grad.numpy(), np.full(x.shape, 0.25), rtol=1e-6)
    # exclusive=False divides by the full window, padding included
    inc = nn.AvgPool2D(3, 1, 1, exclusive=False)(T(x)).numpy()
    np.testing.assert_allclose(inc, pool_ref(x, 3, 1, 1, np.sum, 0) / 9, rtol=1e-5, atol=1e-6)
    assert repr(nn.AvgPool2D(3, 2, 1, ceil_mode=True, exclusive=False)) == \
        "AvgPool2D(kernel_size=3, stride=2, padding=1)"


def test_adaptive_pools():
    x = randn(2, 3, 6, 4)
    np.testing.assert_allclose(nn.AdaptiveAvgPool2D(1)(T(x)).numpy(), x.mean((2, 3), keepdims=True),
                               rtol=1e-5, atol=1e-6)
    out = nn.AdaptiveAvgPool2D((3, 2))(T(x)).numpy()
    np.testing.assert_allclose(out, pool_ref(x, 2, 2, 0, np.mean, 0), rtol=1e-5, atol=1e-6)
    out = nn.AdaptiveMaxPool2D((3, 2))(T(x)).numpy()
    np.testing.assert_allclose(out, pool_ref(x, 2, 2, 0, np.max, 0))
    assert repr(nn.AdaptiveAvgPool2D(1)) == "AdaptiveAvgPool2D(output_size=1)"
    assert repr(nn.AdaptiveMaxPool2D((2, 3))) == "AdaptiveMaxPool2D(output_size=(2, 3), return_mask=False)"
    xt = T(x, grad=True)
    nn.AdaptiveAvgPool2D(1)(xt).sum().backward()
    np.testing.assert_allclose(xt.grad.numpy(), np.full(x.shape, 1 / 24), rtol=1e-6)


# -- normalisation -------------------------------------------------------------------------------

def test_batch_norm2d_train_eval_and_grads():
    bn = nn.BatchNorm2D(3)
    w, b = randn(3), randn(3)
    bn.weight.set_value(w)
    bn.bias.set_value(b)
    x = randn(4, 3, 2, 2)
    out = bn(T(x))
    mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    xhat = (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(out.numpy(), xhat * w[None, :, None, None] + b[None, :, None, None],
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn._mean.numpy(), 0.1 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn._variance.numpy(), 0.9 + 0.1 * var, rtol=1e-5)
    g = randn(*x.shape)
    backward_with(out, g)
    np.testing.assert_allclose(bn.weight.grad.numpy(), (g * xhat).sum((0, 2, 3)), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(bn.bias.grad.numpy(), g.sum((0, 2, 3)), rtol=1e-4, atol=1e-4)
    assert bn._mean.grad is None
    bn.eval()
    rm, rv = bn._mean.numpy().copy(), bn._variance.numpy().copy()
    out = bn(T(x))
    ref = (x - rm[None, :, None, None]) / np.sqrt(rv[None, :, None, None] + 1e-5) * w[None, :, None, None] + \
        b[None, :, None, None]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(bn._mean.numpy(), rm)     # eval leaves running stats alone
    with pytest.raises(ValueError, match=r"expected 4D input \(got 2D input\)"):
        bn(T(randn(2, 3)))


def test_batch_norm1d_and_repr():
    bn = nn.BatchNorm1D(3, momentum=0.8, epsilon=1e-3)
    x = randn(6, 3)
    out = bn(T(x))
    ref = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn._mean.numpy(), 0.2 * x.mean(0), rtol=1e-5, atol=1e-6)
    x3 = randn(4, 3, 5)
    out = bn(T(x3))
    m, v = x3.mean((0, 2)), x3.var((0, 2))
    np.testing.assert_allclose(out.numpy(), (x3 - m[:, None]) / np.sqrt(v[:, None] + 1e-3), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        bn(T(randn(2, 3, 4, 5)))
    assert repr(bn) == "BatchNorm1D(num_features=3, momentum=0.8, epsilon=0.001, data_format=NCL)"
    assert repr(nn.BatchNorm2D(6)) == "BatchNorm2D(num_features=6, momentum=0.9, epsilon=1e-05)"
    assert list(nn.BatchNorm2D(2).state_dict()) == ["weight", "bias", "_mean", "_variance"]
    none = nn.BatchNorm2D(2, weight_attr=False, bias_attr=False)
    assert none.weight is None and none.bias is None
    assert [n for n, _ in none.named_parameters()] == ["_mean", "_variance"]
    np.testing.assert_allclose(none(T(x3.reshape(4, 3, 5, 1)[:, :2])).numpy().mean(), 0.0, atol=1e-5)


def test_legacy_batch_norm_with_act():
    bn = nn.BatchNorm(3, act="relu")
    x = randn(4, 3, 2, 2)
    ref = (x - x.mean((0, 2, 3))[None, :, None, None]) / np.sqrt(x.var((0, 2, 3))[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(bn(T(x)).numpy(), np.maximum(ref, 0), rtol=1e-4, atol=1e-5)
    assert repr(bn) == "BatchNorm()"
    assert [n for n, _ in bn.named_parameters()] == ["weight", "bias", "_mean", "_variance"]


def test_legacy_batch_norm_eval_uses_running_statistics():
    # Paddle's legacy layer runs the op with is_test = not training and trainable_statistics=False:
    # eval normalises with _mean/_variance (and leaves them alone), train with the batch's statistics
    bn = nn.BatchNorm(3)
    mean, var = randn(3), np.abs(randn(3)) + 0.5
    bn._mean.set_value(mean)
    bn._variance.set_value(var)
    x = randn(4, 3, 2, 2)
    bn.eval()
    ref = (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(bn(T(x)).numpy(), ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(bn._mean.numpy(), mean)
    bn.train()
    batch = (x - x.mean((0, 2, 3))[None, :, None, None]) / np.sqrt(x.var((0, 2, 3))[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(bn(T(x)).numpy(), batch, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn._mean.numpy(), 0.9 * mean + 0.1 * x.mean((0, 2, 3)), rtol=1e-5, atol=1e-6)
    # trainable_statistics=True keeps batch statistics in eval, as Paddle's op does
    bn_t = nn.BatchNorm(3, trainable_statistics=True)
    bn_t.eval()
    np.testing.assert_allclose(bn_t(T(x)).numpy(), batch, rtol=1e-4, atol=1e-5)


def test_legacy_batch_norm_static_op_attrs():
    # the saved op must carry trainable_statistics=False (Paddle's predictor refuses True with is_test)
    bn = nn.BatchNorm(3)
    bn.eval()
    main = paddle.static.Program()
    paddle.enable_static()
    try:
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data("x", [None, 3, 2, 2], "float32")
            bn(x)
    finally:
        paddle.disable_static()
    op = [o for o in main.global_block().ops if o.type == "batch_norm"][0]
    assert op.attr("is_test") is True and op.attr("trainable_statistics") is False
    # in a static program the constructor's is_test counts too (Paddle's static branch reads it)
    for is_test, training, want in ((True, True, True), (False, True, False)):
        bn = nn.BatchNorm(3, is_test=is_test)
        bn.train() if training else bn.eval()
        main = paddle.static.Program()
        paddle.enable_static()
        try:
            with paddle.static.program_guard(main, paddle.static.Program()):
                bn(paddle.static.data("x", [None, 3, 2, 2], "float32"))
        finally:
            paddle.disable_static()
        op = [o for o in main.global_block().ops if o.type == "batch_norm"][0]
        assert op.attr("is_test") is want


def test_layer_norm_forward_and_grads():
    ln = nn.LayerNorm([3, 4])
    w, b = randn(12), randn(12)
    ln.weight.set_value(w)
    ln.bias.set_value(b)
    x = randn(2, 5, 3, 4)
    out = ln(T(x))
    flat = x.reshape(2, 5, 12)
    xhat = (flat - flat.mean(-1, keepdims=True)) / np.sqrt(flat.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out.numpy(), (xhat * w + b).reshape(x.shape), rtol=1e-4, atol=1e-5)
    g = randn(*x.shape)
    backward_with(out, g)
    gf = g.reshape(2, 5, 12)
    np.testing.assert_allclose(ln.weight.grad.numpy(), (gf * xhat).sum((0, 1)), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ln.bias.grad.numpy(), gf.sum((0, 1)), rtol=1e-4, atol=1e-4)
    assert repr(nn.LayerNorm(4, 1e-6)) == "LayerNorm(normalized_shape=[4], epsilon=1e-06)"
    assert nn.LayerNorm(4, weight_attr=False).weight is None
    assert nn.LayerNorm(4, elementwise_affine=False).bias is None


def test_group_norm_forward_and_grads():
    gn = nn.GroupNorm(2, 4)
    w, b = randn(4), randn(4)
    gn.weight.set_value(w)
    gn.bias.set_value(b)
    x = randn(3, 4, 2, 3)
    out = gn(T(x))
    grp = x.reshape(3, 2, -1)
    xhat = ((grp - grp.mean(-1, keepdims=True)) / np.sqrt(grp.var(-1, keepdims=True) + 1e-5)).reshape(x.shape)
    np.testing.assert_allclose(out.numpy(), xhat * w[None, :, None, None] + b[None, :, None, None],
                               rtol=1e-4, atol=1e-5)
    g = randn(*x.shape)
    backward_with(out, g)
    np.testing.assert_allclose(gn.weight.grad.numpy(), (g * xhat).sum((0, 2, 3)), rtol=1e-4, atol=1e-4)
    assert repr(gn) == "GroupNorm(num_groups=2, num_channels=4, epsilon=1e-05)"
    with pytest.raises(ValueError, match="num_channels \\(4\\) must be divisible by num_groups \\(3\\)"):
        nn.GroupNorm(3, 4)


def test_instance_norm2d():
    inn = nn.InstanceNorm2D(3)
    x = randn(2, 3, 4, 4)
    ref = (x - x.mean((2, 3), keepdims=True)) / np.sqrt(x.var((2, 3), keepdims=True) + 1e-5)
    np.testing.assert_allclose(inn(T(x)).numpy(), ref, rtol=1e-4, atol=1e-5)
    assert [n for n, _ in inn.named_parameters()] == ["scale", "bias"]
    assert repr(inn) == "InstanceNorm2D(num_features=3, epsilon=1e-05)"


# -- activations ---------------------------------------------------------------------------------

def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _erf(x):
    from math import erf
    return np.vectorize(erf)(x)


ACTIVATIONS = [
    (nn.ReLU(), lambda x: np.maximum(x, 0), "ReLU()"),
    (nn.ReLU6(), lambda x: np.clip(x, 0, 6), "ReLU6()"),
    (nn.LeakyReLU(), lambda x: np.where(x >= 0, x, 0.01 * x), "LeakyReLU(negative_slope=0.01)"),
    (nn.LeakyReLU(0.2), lambda x: np.where(x >= 0, x, 0.2 * x), "LeakyReLU(negative_slope=0.2)"),
    (nn.GELU(), lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2))), "GELU(approximate=False)"),
    (nn.GELU(True), lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
     "GELU(approximate=True)"),
    (nn.Sigmoid(), _sigmoid, "Sigmoid()"),
    (nn.Tanh(), np.tanh, "Tanh()"),
    (nn.Softmax(), lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True), "Softmax(axis=-1)"),
    (nn.Softmax(0), lambda x: np.exp(x) / np.exp(x).sum(0, keepdims=True), "Softmax(axis=0)"),
    (nn.LogSoftmax(), lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True)), "LogSoftmax(axis=-1)"),
    (nn.Silu(), lambda x: x * _sigmoid(x), "Silu(inplace=False)"),
    (nn.Hardswish(), lambda x: x * np.clip(x + 3, 0, 6) / 6, "Hardswish()"),
    (nn.Hardsigmoid(), lambda x: np.clip(x / 6 + 0.5, 0, 1), "Hardsigmoid()"),
    (nn.Softplus(), lambda x: np.log1p(np.exp(x)), "Softplus(beta=1, threshold=20)"),
    (nn.Softplus(2, 10), lambda x: np.log1p(np.exp(2 * x)) / 2, "Softplus(beta=2, threshold=10)"),
    (nn.ELU(0.5), lambda x: np.where(x > 0, x, 0.5 * (np.exp(x) - 1)), "ELU(alpha=0.5)"),
    (nn.Hardtanh(), lambda x: np.clip(x, -1, 1), "Hardtanh(min=-1.0, max=1.0)"),
    (nn.LogSigmoid(), lambda x: np.log(_sigmoid(x)), "LogSigmoid()"),
    (nn.Softsign(), lambda x: x / (1 + np.abs(x)), "Softsign()"),
    (nn.Mish(), lambda x: x * np.tanh(np.log1p(np.exp(x))), "Mish()"),
]


@pytest.mark.parametrize("layer,ref,text", ACTIVATIONS, ids=[a[2] for a in ACTIVATIONS])
def test_activation_forward_and_repr(layer, ref, text):
    x = randn(3, 5) * 2
    x[np.abs(x) < 1e-3] = 0.5     # keep away from kinks
    np.testing.assert_allclose(layer(T(x)).numpy(), ref(x.astype(np.float64)), rtol=1e-4, atol=1e-5)
    assert repr(layer) == text


@pytest.mark.parametrize("layer,ref,text", ACTIVATIONS, ids=[a[2] for a in ACTIVATIONS])
def test_activation_input_gradient(layer, ref, text):
    x = randn(2, 3).astype(np.float64) * 2
    x[np.abs(x) < 1e-2] = 0.5
    x[np.abs(np.abs(x) - 6) < 1e-2] = 5.0
    x[np.abs(np.abs(x) - 3) < 1e-2] = 2.0
    x[np.abs(np.abs(x) - 1) < 1e-2] = 0.7
    xt = T(x, grad=True)
    g = rng.standard_normal(x.shape)
    (layer(xt) * T(g)).sum().backward()
    eps = 1e-6
    num = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        xp, xm = x.copy(), x.copy()
        xp[idx] += eps
        xm[idx] -= eps
        num[idx] = ((ref(xp) - ref(xm)) * g).sum() / (2 * eps)
    np.testing.assert_allclose(xt.grad.numpy(), num, rtol=1e-4, atol=1e-6)


def test_prelu_forward_and_param_grad():
    pr = nn.PReLU(3, 0.25)
    x = randn(2, 3, 4)
    x[np.abs(x) < 1e-3] = 0.5
    out = pr(T(x))
    np.testing.assert_allclose(out.numpy(), np.where(x > 0, x, 0.25 * x), rtol=1e-6)
    g = randn(*x.shape)
    backward_with(out, g)
    np.testing.assert_allclose(pr._weight.grad.numpy(), (np.where(x > 0, 0, x) * g).sum((0, 2)), rtol=1e-4,
                               atol=1e-5)
    assert repr(pr) == "PReLU(num_parameters=3, data_format=NCHW, init=0.25, dtype=float32)"


def test_activation_name_in_repr():
    assert repr(nn.ReLU(name="r")) == "ReLU(name=r)"
    assert repr(nn.Softmax(name="s")) == "Softmax(axis=-1, name=s)"
    assert repr(nn.LeakyReLU(name="l")) == "LeakyReLU(negative_slope=0.01, name=l)"


# -- resizing / padding --------------------------------------------------------------------------

def test_upsample_and_pad():
    x = randn(1, 2, 3, 4)
    np.testing.assert_array_equal(nn.Upsample(scale_factor=2)(T(x)).numpy(), x.repeat(2, 2).repeat(2, 3))
    np.testing.assert_array_equal(nn.Upsample(size=[6, 8])(T(x)).numpy(), x.repeat(2, 2).repeat(2, 3))
    assert repr(nn.Upsample(scale_factor=2)) == \
        "Upsample(scale_factor=2, mode=nearest, align_corners=False, align_mode=0, data_format=None)"
    assert repr(nn.Upsample(size=[4, 4], mode="bilinear")) == \
        "Upsample(size=[4, 4], mode=bilinear, align_corners=False, align_mode=0, data_format=None)"
    np.testing.assert_array_equal(nn.Pad2D(1)(T(x)).numpy(), np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))))
    np.testing.assert_array_equal(nn.Pad2D([1, 0, 2, 1], mode="reflect")(T(x)).numpy(),
                                  np.pad(x, ((0, 0), (0, 0), (2, 1), (1, 0)), mode="reflect"))
    assert repr(nn.Pad2D(1)) == "Pad2D(padding=[1, 1, 1, 1], mode=constant, value=0.0, data_format=NCHW)"
    assert repr(nn.ZeroPad2D(1)) == "ZeroPad2D(padding=[1, 1, 1, 1], mode=constant, value=0.0, data_format=NCHW)"


# -- losses --------------------------------------------------------------------------------------

def _log_softmax(x, axis=-1):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def test_cross_entropy_loss_variants_and_grad():
    logits = randn(5, 4)
    labels = np.array([0, 3, 1, 1, 2], np.int64)
    lsm = _log_softmax(logits.astype(np.float64))
    nll = -lsm[np.arange(5), labels]
    xt = T(logits, grad=True)
    loss = nn.CrossEntropyLoss()(xt, T(labels))
    np.testing.assert_allclose(loss.numpy(), nll.mean(), rtol=1e-5)
    loss.backward()
    onehot = np.eye(4)[labels]
    np.testing.assert_allclose(xt.grad.numpy(), (np.exp(lsm) - onehot) / 5, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(nn.CrossEntropyLoss()(T(logits), T(labels[:, None])).numpy(), nll.mean(), rtol=1e-5)
    np.testing.assert_allclose(nn.CrossEntropyLoss(reduction="sum")(T(logits), T(labels)).numpy(), nll.sum(),
                               rtol=1e-5)
    np.testing.assert_allclose(nn.CrossEntropyLoss(reduction="none")(T(logits), T(labels)).numpy().ravel(), nll,
                               rtol=1e-5)
    ign = labels.copy()
    ign[1] = -100
    keep = ign != -100
    # Paddle's hard-label mean divides by the batch size, ignored rows included
    np.testing.assert_allclose(nn.CrossEntropyLoss()(T(logits), T(ign)).numpy(), nll[keep].sum() / 5, rtol=1e-5)
    w = np.array([1.0, 2.0, 0.5, 1.5], np.float32)
    ref = (w[labels] * nll).sum() / w[labels].sum()
    np.testing.assert_allclose(nn.CrossEntropyLoss(weight=T(w))(T(logits), T(labels)).numpy(), ref, rtol=1e-5)
    soft = np.exp(_log_softmax(randn(5, 4).astype(np.float64)))
    ref = -(soft * lsm).sum(-1).mean()
    np.testing.assert_allclose(nn.CrossEntropyLoss(soft_label=True)(T(logits), T(soft.astype(np.float32))).numpy(),
                               ref, rtol=1e-5)
    probs = np.exp(lsm).astype(np.float32)
    np.testing.assert_allclose(nn.CrossEntropyLoss(use_softmax=False)(T(probs), T(labels)).numpy(), nll.mean(),
                               rtol=1e-4)
    with pytest.raises(ValueError, match="The value of 'reduction' in CrossEntropyLoss should be 'sum', 'mean' or "
                                         "'none', but received avg"):
        nn.CrossEntropyLoss(reduction="avg")


def test_regression_losses():
    x, y = randn(4, 3), randn(4, 3)
    xt = T(x, grad=True)
    loss = nn.MSELoss()(xt, T(y))
    np.testing.assert_allclose(loss.numpy(), ((x - y) ** 2).mean(), rtol=1e-5)
    loss.backward()
    np.testing.assert_allclose(xt.grad.numpy(), 2 * (x - y) / x.size, rtol=1e-5)
    np.testing.assert_allclose(nn.MSELoss("sum")(T(x), T(y)).numpy(), ((x - y) ** 2).sum(), rtol=1e-5)
    np.testing.assert_allclose(nn.L1Loss()(T(x), T(y)).numpy(), np.abs(x - y).mean(), rtol=1e-5)
    np.testing.assert_allclose(nn.L1Loss("none")(T(x), T(y)).numpy(), np.abs(x - y), rtol=1e-5)
    d = np.abs(x - y)
    huber = np.where(d < 1.0, 0.5 * d ** 2, d - 0.5)
    np.testing.assert_allclose(nn.SmoothL1Loss()(T(x), T(y)).numpy(), huber.mean(), rtol=1e-5)
    with pytest.raises(ValueError, match="The value of 'reduction' in MSELoss"):
        nn.MSELoss("bad")


def test_binary_losses():
    logit = randn(6, 2)
    label = (rng.random((6, 2)) > 0.5).astype(np.float32)
    p = _sigmoid(logit.astype(np.float64))
    bce = -(label * np.log(p) + (1 - label) * np.log(1 - p))
    xt = T(logit, grad=True)
    loss = nn.BCEWithLogitsLoss()(xt, T(label))
    np.testing.assert_allclose(loss.numpy(), bce.mean(), rtol=1e-5)
    loss.backward()
    np.testing.assert_allclose(xt.grad.numpy(), (p - label) / label.size, rtol=1e-4, atol=1e-6)
    pw = np.array([2.0, 0.5], np.float32)
    ref = -(pw * label * np.log(p) + (1 - label) * np.log(1 - p))
    np.testing.assert_allclose(nn.BCEWithLogitsLoss(pos_weight=T(pw))(T(logit), T(label)).numpy(), ref.mean(),
                               rtol=1e-5)
    np.testing.assert_allclose(nn.BCELoss()(T(p.astype(np.float32)), T(label)).numpy(), bce.mean(), rtol=1e-4)
    w = np.array([1.0, 3.0], np.float32)
    np.testing.assert_allclose(nn.BCELoss(weight=T(w), reduction="sum")(T(p.astype(np.float32)), T(label)).numpy(),
                               (bce * w).sum(), rtol=1e-4)


def test_nll_loss():
    logp = _log_softmax(randn(5, 3).astype(np.float64)).astype(np.float32)
    labels = np.array([2, 0, 1, 1, 0], np.int64)
    np.testing.assert_allclose(nn.NLLLoss()(T(logp), T(labels)).numpy(), -logp[np.arange(5), labels].mean(),
                               rtol=1e-5)
    w = np.array([0.5, 1.0, 2.0], np.float32)
    ref = -(w[labels] * logp[np.arange(5), labels]).sum() / w[labels].sum()
    np.testing.assert_allclose(nn.NLLLoss(weight=T(w))(T(logp), T(labels)).numpy(), ref, rtol=1e-5)
    assert repr(nn.NLLLoss()) == "NLLLoss()" and repr(nn.CrossEntropyLoss()) == "CrossEntropyLoss()"


# -- a small model end to end --------------------------------------------------------------------

def test_lenet_style_model_trains_one_step():
    class LeNet(nn.Layer):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2D(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
                                          nn.BatchNorm2D(4))
            self.fc = nn.Linear(4 * 4 * 4, 3)

        def forward(self, x):
            return self.fc(paddle.flatten(self.features(x), 1))

    net = LeNet()
    x = T(randn(2, 1, 8, 8))
    loss = nn.CrossEntropyLoss()(net(x), T(np.array([0, 2], np.int64)))
    loss.backward()
    for name, p in net.named_parameters():
        if p.stop_gradient:
            assert p.grad is None, name
        else:
            assert p.grad is not None and p.grad.shape == p.shape, name
            assert np.isfinite(p.grad.numpy()).all()
    assert [n for n, p in net.named_parameters() if p.stop_gradient] == ["features.3._mean", "features.3._variance"]
