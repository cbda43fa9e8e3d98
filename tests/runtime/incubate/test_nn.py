"""paddle.incubate.nn(.functional): the CPU-computable fused ops against numpy, the GPU-only ones' errors, and the
fused layers' parameter layout."""
import numpy as np
import pytest

import dy2st as paddle
from ._fd import numeric_grad

IF = paddle.incubate.nn.functional
nn = paddle.incubate.nn
RNG = np.random.default_rng(4)
X, R = RNG.standard_normal((3, 8)).astype(np.float32), RNG.standard_normal((3, 8)).astype(np.float32)
W, B, BB = (RNG.standard_normal(8).astype(np.float32) for _ in range(3))


def T(a):
    return paddle.to_tensor(a)


def test_fused_layer_norm_with_residual():
    out, res, mean, inv_std = IF.fused_layer_norm(T(X), T(W), T(B), 1e-5, residual_alpha=0.5, bias=T(BB),
                                                  residual=T(R))
    h = X + BB + 0.5 * R
    mu, var = h.mean(1, keepdims=True), h.var(1, keepdims=True)
    np.testing.assert_allclose(res.numpy(), h, rtol=1e-6)
    np.testing.assert_allclose(out.numpy(), (h - mu) / np.sqrt(var + 1e-5) * W + B, atol=2e-5)
    np.testing.assert_allclose(mean.numpy(), mu.ravel(), atol=1e-6)
    np.testing.assert_allclose(inv_std.numpy(), 1 / np.sqrt(var.ravel() + 1e-5), rtol=1e-5)
    assert all(t.stop_gradient for t in (out, res, mean, inv_std))
    # without a residual the bias is not added (Paddle's CPU kernel)
    out2 = IF.fused_layer_norm(T(X), T(W), T(B), 1e-5, bias=T(BB))[0]
    mu, var = X.mean(1, keepdims=True), X.var(1, keepdims=True)
    np.testing.assert_allclose(out2.numpy(), (X - mu) / np.sqrt(var + 1e-5) * W + B, atol=2e-5)


def test_fused_layer_norm_refusals():
    with pytest.raises(RuntimeError, match="float64"):
        IF.fused_layer_norm(T(X.astype(np.float64)), T(W), T(B), 1e-5)
    with pytest.raises(OSError, match="quant int8"):
        IF.fused_layer_norm(T(X), T(W), T(B), 1e-5, quant_scale=0.5)
    with pytest.raises(NotImplementedError, match="norm_weight"):
        IF.fused_layer_norm(T(X), None, None, 1e-5)
    with pytest.raises(ValueError, match="size of Weight"):
        IF.fused_layer_norm(T(X), T(W[:5]), T(B), 1e-5)


def test_fused_rms_norm():
    out, res = IF.fused_rms_norm(T(X), T(W), T(B), 1e-6, 1, bias=T(BB), residual=T(R))
    h = X + BB + R
    np.testing.assert_allclose(out.numpy(), h / np.sqrt((h * h).mean(1, keepdims=True) + 1e-6) * W + B, atol=2e-5)
    np.testing.assert_allclose(res.numpy(), h, rtol=1e-6)
    out, res = IF.fused_rms_norm(T(X), T(W), None, 1e-6, -1)
    assert res.shape == [0]
    x = T(X)
    x.stop_gradient = False
    out, _ = IF.fused_rms_norm(x, T(W), None, 1e-6, 1)
    assert not out.stop_gradient
    with pytest.raises(RuntimeError, match="fused_rms_norm_quant_grad"):
        out.sum().backward()
    with pytest.raises(ValueError, match="begin_norm_axis"):
        IF.fused_rms_norm(T(X), T(W), None, 1e-6, 2)


def test_fused_dropout_add_and_swiglu():
    x = paddle.to_tensor(X.astype(np.float64), stop_gradient=False)
    out = IF.fused_dropout_add(x, T(R.astype(np.float64)), p=0.3, training=False)
    np.testing.assert_allclose(out.numpy(), X + R, rtol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones_like(X))
    layer = nn.FusedDropoutAdd(0.5)
    paddle.seed(2)
    y = layer(paddle.ones([40, 50]), paddle.zeros([40, 50])).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and abs((y == 0).mean() - 0.5) < 0.06
    layer.eval()
    np.testing.assert_allclose(layer(paddle.ones([2]), paddle.ones([2])).numpy(), [2.0, 2.0])
    s = IF.swiglu(T(X.astype(np.float64)))
    a, b = X[:, :4].astype(np.float64), X[:, 4:].astype(np.float64)
    np.testing.assert_allclose(s.numpy(), a / (1 + np.exp(-a)) * b, rtol=1e-12)


def test_fused_matmul_bias_without_bias_is_matmul():
    a, w = RNG.standard_normal((4, 3)), RNG.standard_normal((3, 5))
    at = paddle.to_tensor(a, stop_gradient=False)
    out = IF.fused_linear(at, paddle.to_tensor(w.T.copy()), transpose_weight=True)
    np.testing.assert_allclose(out.numpy(), a @ w, rtol=1e-12)
    (out * out).sum().backward()
    np.testing.assert_allclose(at.grad.numpy(), numeric_grad(lambda v: ((v @ w) ** 2).sum(), a), atol=1e-6)
    with pytest.raises(RuntimeError, match="fused_gemm_epilogue"):
        IF.fused_matmul_bias(at, paddle.to_tensor(w), paddle.ones([5], dtype="float64"))


@pytest.mark.parametrize("name", sorted(IF.CPU_UNSUPPORTED))
def test_gpu_only_ops_raise_as_paddle_cpu(name):
    err, kernel, _ = IF.CPU_UNSUPPORTED[name]
    fn = getattr(IF, name)
    args = (paddle.ones([2, 4]),) * 3
    if name in ("fused_matmul_bias", "fused_linear"):
        args = (paddle.ones([2, 4]), paddle.ones([4, 3]), paddle.ones([3]))
    with pytest.raises(err, match=kernel):
        fn(*args)


def test_layers_have_paddles_parameters():
    def layout(m):
        return [(k, list(v.shape)) for k, v in m.state_dict().items()]
    assert layout(nn.FusedLinear(3, 5, transpose_weight=True)) == [("weight", [5, 3]), ("bias", [5])]
    assert layout(nn.FusedMultiHeadAttention(8, 2)) == [
        ("qkv_weight", [3, 2, 4, 8]), ("qkv_bias", [3, 2, 4]), ("linear_weight", [8, 8]), ("linear_bias", [8]),
        ("ln_scale", [8]), ("ln_bias", [8])]
    assert [k for k, _ in layout(nn.FusedTransformerEncoderLayer(8, 2, 16, normalize_before=True))] == [
        "fused_attn.qkv_weight", "fused_attn.qkv_bias", "fused_attn.linear_weight", "fused_attn.linear_bias",
        "fused_attn.pre_ln_scale", "fused_attn.pre_ln_bias", "ffn._linear1_weight", "ffn._linear1_bias",
        "ffn._linear2_weight", "ffn._linear2_bias", "ffn._ln1_scale", "ffn._ln1_bias"]
    mt = nn.FusedMultiTransformer(8, 2, 16, num_layers=2)
    assert len(mt.state_dict()) == 12 and mt.ln_biases is None and len(mt.qkv_weights) == 2
    src = nn.FusedFeedForward(8, 16)
    dst = nn.FusedFeedForward(8, 16)
    dst.set_state_dict(src.state_dict())
    np.testing.assert_array_equal(dst._linear1_weight.numpy(), src._linear1_weight.numpy())
    np.testing.assert_array_equal(src._ln2_scale.numpy(), np.ones(8, np.float32))
    with pytest.raises(AttributeError, match="fused_attention"):
        nn.FusedTransformerEncoderLayer(8, 2, 16)(paddle.ones([2, 3, 8]))
    with pytest.raises(AssertionError, match="divisible"):
        nn.FusedMultiHeadAttention(8, 3)


def test_fused_dropout_layer():
    layer = nn.FusedDropout(0.25)
    paddle.seed(3)
    y = layer(paddle.ones([40, 50])).numpy()
    assert np.allclose(np.unique(y), [0.0, 4.0 / 3.0]) and abs((y == 0).mean() - 0.25) < 0.05
    layer.eval()
    np.testing.assert_array_equal(layer(T(X)).numpy(), X)
    with pytest.raises(AttributeError, match="dropout_nd"):
        nn.FusedDropout(0.5, axis=1)(T(X))
    with pytest.raises(ValueError, match="mode"):
        nn.FusedDropout(0.5, mode="downscale_in_infer")


def test_autotune_records_switches():
    at = paddle.incubate.autotune
    at.set_config({"kernel": {"enable": True, "tuning_range": [2, 4]}, "dataloader": {"tuning_steps": 7}})
    assert at.config()["kernel"] == {"enable": True, "tuning_range": [2, 4]}
    assert at.config()["dataloader"]["tuning_steps"] == 7
    with pytest.warns(UserWarning, match="should be bool"):
        at.set_config({"layout": {"enable": "yes"}})
    at.set_config({"kernel": {"enable": False, "tuning_range": [1, 10]}, "dataloader": {"tuning_steps": 500}})
