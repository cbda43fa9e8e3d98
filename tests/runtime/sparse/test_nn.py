"""paddle.sparse.nn: activations, softmax, convolutions, max pooling and batch norm against dense
numpy references, gradients (values, weights, bias) by float64 finite differences, and the layers."""
import itertools

import numpy as np
import pytest

import dy2st as paddle
from .helpers import check_values_grad, coo, csr

sp = paddle.sparse
F = sp.nn.functional
U = np.array([[0., 0.5, 0, -0.25], [0.75, 0, 0, 0], [0, -0.5, 0.3, 0]])
MASK = U != 0
IDX = np.array([[0, 0, 0, 0, 0, 1], [0, 1, 1, 2, 3, 2], [1, 0, 2, 3, 3, 2], [2, 1, 3, 0, 3, 1]])
rng = np.random.default_rng(0)
VALS = rng.uniform(-1, 1, (6, 2))
W3 = rng.uniform(-1, 1, (3, 3, 3, 2, 3))
BIAS = rng.uniform(-1, 1, 3)


def x5(dims=3, vals=VALS):
    return sp.sparse_coo_tensor(IDX[:dims + 1], vals, [2] + [4] * dims + [2])


def dense_conv(x, w, stride, pad, dil):
    """Plain correlation of channel-last ``x`` [N, *S, C] with ``w`` [*K, C, O]."""
    dims = x.ndim - 2
    k = w.shape[:dims]
    xp = np.pad(x, [(0, 0)] + [(p, p) for p in pad] + [(0, 0)])
    out_s = [(xp.shape[1 + i] - dil[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(dims)]
    out = np.zeros([x.shape[0]] + out_s + [w.shape[-1]])
    for o in itertools.product(*[range(s) for s in out_s]):
        for kk in itertools.product(*[range(s) for s in k]):
            pos = tuple(o[i] * stride[i] + kk[i] * dil[i] for i in range(dims))
            out[(slice(None),) + o] += xp[(slice(None),) + pos] @ w[kk]
    return out


@pytest.mark.parametrize("fn, ref, scale", [
    (F.relu, lambda a: np.maximum(a, 0), 1), (F.relu6, lambda a: np.clip(a, 0, 6), 19),
    (lambda x: F.leaky_relu(x, 0.25), lambda a: np.where(a > 0, a, 0.25 * a), 1)])
def test_activations(fn, ref, scale):
    a = U * scale
    for fmt in (coo, csr):
        np.testing.assert_allclose(fn(fmt(a)).to_dense().numpy(), np.where(MASK, ref(a), 0))
    check_values_grad(lambda: coo(a), fn)


def _masked_softmax(a, mask, axis):
    e = np.where(mask, np.exp(a - np.where(mask, a, -np.inf).max(axis, keepdims=True)), 0)
    return np.where(mask, e / np.where(mask, e, 0).sum(axis, keepdims=True), 0)


@pytest.mark.parametrize("axis", [-1, 0])
def test_softmax_over_stored_entries(axis):
    with np.errstate(invalid="ignore"):
        ref = np.nan_to_num(_masked_softmax(U, MASK, axis))
    np.testing.assert_allclose(F.softmax(coo(U), axis).to_dense().numpy(), ref, rtol=1e-12)
    if axis == -1:
        np.testing.assert_allclose(F.softmax(csr(U)).to_dense().numpy(), ref, rtol=1e-12)
        check_values_grad(lambda: csr(U), F.softmax)
    check_values_grad(lambda: coo(U), lambda x: F.softmax(x, axis))


def test_softmax_dense_axis():
    a = rng.uniform(-1, 1, (3, 4))
    a[1] = 0
    out = F.softmax(coo(a, 1), -1)
    e = np.exp(a[[0, 2]])
    np.testing.assert_allclose(out.values().numpy(), e / e.sum(1, keepdims=True))


@pytest.mark.parametrize("stride, pad, dil", [(1, 0, 1), (1, 1, 1), (2, 1, 1), (1, 1, 2)])
def test_conv3d_against_dense(stride, pad, dil):
    s, p, d = [stride] * 3, [pad] * 3, [dil] * 3
    w = W3[:2, :2, :2] if dil == 2 else W3
    out = F.conv3d(x5(), paddle.to_tensor(w), paddle.to_tensor(BIAS), stride=stride, padding=pad, dilation=dil)
    dense = x5().to_dense().numpy()
    reach = dense_conv((dense != 0).any(-1, keepdims=True).astype(float), np.ones(w.shape[:3] + (1, 1)), s, p, d)
    sites = reach[..., 0] > 0
    ref = np.where(sites[..., None], dense_conv(dense, w, s, p, d) + BIAS, 0)
    assert out.shape == list(ref.shape) and out.nnz() == int(sites.sum()) and out.is_coalesced()
    np.testing.assert_array_equal(out.indices().numpy(), np.stack(np.nonzero(sites)))
    np.testing.assert_allclose(out.to_dense().numpy(), ref, rtol=1e-12, atol=1e-12)


def test_subm_conv3d_only_at_input_sites():
    out = F.subm_conv3d(x5(), paddle.to_tensor(W3), paddle.to_tensor(BIAS), padding=1)
    np.testing.assert_array_equal(out.indices().numpy(), IDX)
    dense = x5().to_dense().numpy()
    full = dense_conv(dense, W3, [1] * 3, [1] * 3, [1] * 3) + BIAS
    np.testing.assert_allclose(out.values().numpy(), full[tuple(IDX)], rtol=1e-12)
    nopad = F.subm_conv3d(x5(), paddle.to_tensor(W3), paddle.to_tensor(BIAS))   # Paddle centres the kernel
    np.testing.assert_allclose(nopad.values().numpy(), out.values().numpy())


def test_conv2d_and_subm_conv2d():
    w = rng.uniform(-1, 1, (3, 3, 2, 4))
    dense = x5(2).to_dense().numpy()
    out = F.conv2d(x5(2), paddle.to_tensor(w), padding=1)
    np.testing.assert_allclose(out.to_dense().numpy(), dense_conv(dense, w, [1, 1], [1, 1], [1, 1]) *
                               (out.to_dense().numpy() != 0), rtol=1e-12)
    ref = dense_conv(dense, w, [1, 1], [1, 1], [1, 1])
    sub = F.subm_conv2d(x5(2), paddle.to_tensor(w), padding=1)
    np.testing.assert_allclose(sub.values().numpy(), ref[tuple(IDX[:3])], rtol=1e-12)


def test_conv_gradients():
    wt, bt = paddle.to_tensor(W3[:2, :2, :2, :, :2]), paddle.to_tensor(BIAS[:2])
    wt.stop_gradient = bt.stop_gradient = False
    check_values_grad(x5, lambda x: F.conv3d(x, wt, bt, stride=2, padding=1), params=(wt, bt))
    ws = paddle.to_tensor(W3[:, :, :, :, :1])
    ws.stop_gradient = False
    check_values_grad(x5, lambda x: F.subm_conv3d(x, ws, padding=1), params=(ws,))


def test_max_pool3d():
    out = F.max_pool3d(x5(), 3, 1, 1)
    dense = x5().to_dense().numpy()
    active = (dense != 0).any(-1)
    ref = np.full(dense.shape, -np.inf)
    for o in itertools.product(range(4), range(4), range(4)):
        lo = [max(c - 1, 0) for c in o]
        win = (slice(None),) + tuple(slice(a, c + 2) for a, c in zip(lo, o))
        vals = np.where(active[win][..., None], dense[win], -np.inf)
        ref[(slice(None),) + o] = vals.reshape(2, -1, 2).max(1)
    sites = np.isfinite(ref).all(-1)
    np.testing.assert_array_equal(out.indices().numpy(), np.stack(np.nonzero(sites)))
    np.testing.assert_allclose(out.values().numpy(), ref[sites])
    check_values_grad(x5, lambda x: F.max_pool3d(x, 2))
    layer = sp.nn.MaxPool3D(2)
    assert layer(x5()).shape == [2, 2, 2, 2, 2]


def test_batch_norm_layer_follows_paddle():
    vals = VALS.astype(np.float32)
    bn = sp.nn.BatchNorm(2)
    with pytest.warns(UserWarning):
        out = bn(x5(vals=vals))
    mean, var = vals.mean(0), vals.var(0)
    np.testing.assert_allclose(out.values().numpy(), (vals - mean) / np.sqrt(var + 1e-5), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn._mean.numpy(), 0.1 * mean, rtol=1e-5)
    bn.eval()                      # Paddle's quirk: the first call fixed use_global_stats=False
    np.testing.assert_allclose(bn(x5(vals=vals)).values().numpy(), out.values().numpy(), rtol=1e-6)
    fresh = sp.nn.BatchNorm(2)
    fresh.eval()
    np.testing.assert_allclose(fresh(x5(vals=vals)).values().numpy(), vals / np.sqrt(1 + 1e-5), rtol=1e-6)
    sync = sp.nn.SyncBatchNorm(2)
    sync(x5(vals=vals))
    sync.eval()
    np.testing.assert_allclose(sync(x5(vals=vals)).values().numpy(),
                               (vals - sync._mean.numpy()) / np.sqrt(sync._variance.numpy() + 1e-5), rtol=1e-5)


def test_conv_layers():
    paddle.seed(1)
    for cls, dims in ((sp.nn.Conv3D, 3), (sp.nn.SubmConv3D, 3), (sp.nn.Conv2D, 2), (sp.nn.SubmConv2D, 2)):
        layer = cls(2, 3, 3, padding=1)
        assert layer.weight.shape == [3] * dims + [2, 3] and layer.bias.shape == [3]
        x = x5(dims, VALS.astype(np.float32))
        out = layer(x)
        assert out.shape == [2] + [4] * dims + [3]
        out.values().sum().backward()
        assert layer.weight.grad is not None
    assert repr(sp.nn.SubmConv3D(2, 3, 3, padding=1)) == "SubmConv3D(2, 3, kernel_size=[3, 3, 3], padding=1, " \
                                                          "data_format=NDHWC)"
    assert repr(sp.nn.BatchNorm(2)) == "BatchNorm(num_features=2, momentum=0.9, epsilon=1e-05, data_format=NDHWC)"
    with pytest.raises(ValueError):
        F.conv3d(x5(), paddle.to_tensor(W3), data_format="NCDHW")


def test_activation_layers_and_attention():
    assert [repr(m) for m in (sp.nn.ReLU(), sp.nn.ReLU6(), sp.nn.LeakyReLU(0.2), sp.nn.Softmax())] == \
        ["ReLU()", "ReLU6()", "LeakyReLU()", "Softmax()"]
    np.testing.assert_allclose(sp.nn.LeakyReLU(0.25)(coo(U)).to_dense().numpy(), np.where(U > 0, U, 0.25 * U))
    with pytest.raises(RuntimeError):
        F.attention(paddle.ones([1, 1, 4, 2]), paddle.ones([1, 1, 4, 2]), paddle.ones([1, 1, 4, 2]),
                    paddle.ones([1, 4, 4]).to_sparse_csr())


def test_paddle_cpu_quirks_of_conv_and_pool():
    with pytest.raises(RuntimeError, match="implicit"):
        F.subm_conv3d_igemm(x5(), paddle.to_tensor(W3), padding=1)
    with pytest.raises(RuntimeError, match="implicit"):
        sp.nn.SubmConv3D(2, 3, 3, backend="igemm")(x5(vals=VALS.astype(np.float32)))
    # subm ignores the stride; 'same' pads nothing; ceil_mode leaves the pooled size alone
    assert F.subm_conv3d(x5(), paddle.to_tensor(W3), stride=2).shape == [2, 4, 4, 4, 3]
    assert F.conv3d(x5(), paddle.to_tensor(W3), padding="same").shape == [2, 2, 2, 2, 3]
    assert F.max_pool3d(x5(), 3, 2, 0, ceil_mode=True).shape == [2, 1, 1, 1, 2]
