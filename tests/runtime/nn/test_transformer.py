"""nn.MultiHeadAttention / TransformerEncoder(Layer) / TransformerDecoder(Layer) / Transformer.

Outputs are compared with real PaddlePaddle 3.3.1 on the same weights (one subprocess runs every
case; skipped when Paddle is not installed); gradients with finite differences in float64;
to_static against eager; jit.save against real Paddle's jit.load.
"""
import json
import textwrap

import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn
from tests.interop.paddle_runner import check_models, run_paddle

RNG = np.random.default_rng(0)


def _inputs():
    r = np.random.default_rng(1)
    f = lambda *s: r.standard_normal(s).astype("float32")  # noqa: E731
    causal = np.triu(np.full((4, 4), -np.inf, "float32"), 1)
    keep = r.random((2, 1, 4, 5)) > 0.3
    keep[..., 0] = True          # every query keeps at least one key
    imask = (r.random((4, 5)) > 0.3).astype("int64")
    imask[:, 0] = 1
    return {"q": f(2, 4, 8), "kv": f(2, 5, 8), "k6": f(2, 5, 6), "v10": f(2, 5, 10), "src": f(2, 5, 8),
            "tgt": f(2, 4, 8), "bmask": keep, "fmask": f(2, 2, 4, 5), "imask": imask, "causal": causal,
            "src_bmask": np.ones((2, 1, 1, 5), bool) & (np.arange(5) < np.array([[5], [3]]))[:, None, None, :],
            "step1": f(2, 1, 8), "step2": f(2, 1, 8)}


# name -> (constructor, call); both are evaluated with `nn`, `paddle`, `m` (the layer) and `x` (inputs)
CASES = {
    "mha_self": ("nn.MultiHeadAttention(8, 2)", "m(x['q'])"),
    "mha_kdim_vdim_bool_weights": ("nn.MultiHeadAttention(8, 2, kdim=6, vdim=10, need_weights=True)",
                                   "m(x['q'], x['k6'], x['v10'], attn_mask=x['bmask'])"),
    "mha_float_mask": ("nn.MultiHeadAttention(8, 2)", "m(x['q'], x['kv'], x['kv'], attn_mask=x['fmask'])"),
    "mha_int_mask": ("nn.MultiHeadAttention(8, 2)", "m(x['q'], x['kv'], x['kv'], x['imask'])"),
    "mha_cache": ("nn.MultiHeadAttention(8, 2)",
                  "(lambda c0: (lambda r1: (r1[0],) + tuple(m(x['step2'], cache=r1[1])))(m(x['step1'], cache=c0)))"
                  "(m.gen_cache(x['step1']))"),
    "mha_static_cache": ("nn.MultiHeadAttention(8, 2)",
                         "m(x['q'], x['kv'], x['kv'], cache=m.gen_cache(x['kv'], x['kv'], type=m.StaticCache))"),
    "enc_layer_post": ("nn.TransformerEncoderLayer(8, 2, 16)", "m(x['src'], x['src_bmask'])"),
    "enc_layer_pre_gelu": ("nn.TransformerEncoderLayer(8, 2, 16, normalize_before=True, activation='gelu')",
                           "m(x['src'], src_mask=x['src_bmask'])"),
    "encoder": ("nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, nn.LayerNorm(8))",
                "m(x['src'], x['src_bmask'])"),
    "dec_layer_post": ("nn.TransformerDecoderLayer(8, 2, 16)",
                       "m(x['tgt'], x['src'], tgt_mask=x['causal'], memory_mask=x['bmask'])"),
    "dec_layer_pre": ("nn.TransformerDecoderLayer(8, 4, 12, normalize_before=True)",
                      "m(x['tgt'], x['src'], x['causal'], x['imask'])"),
    "decoder": ("nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, normalize_before=True), 2, "
                "nn.LayerNorm(8))", "m(x['tgt'], x['src'], tgt_mask=x['causal'])"),
    "decoder_incremental": ("nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2)",
                            "(lambda c: (lambda r: (r[0],) + tuple(m(x['step2'], x['src'], None, None, r[1])[:1]))"
                            "(m(x['step1'], x['src'], None, None, c)))(m.gen_cache(x['src']))"),
    "transformer": ("nn.Transformer(8, 2, 2, 2, 16)",
                    "m(x['src'], x['tgt'], src_mask=x['src_bmask'], tgt_mask=m.generate_square_subsequent_mask(4), "
                    "memory_mask=x['src_bmask'])"),
    "transformer_pre": ("nn.Transformer(8, 2, 1, 1, 16, normalize_before=True, activation='gelu')",
                        "m(x['src'], x['tgt'], None, x['causal'])"),
}


def _flat(o):
    if isinstance(o, (list, tuple)):
        return [a for e in o for a in _flat(e)]
    return [o.numpy()]


def _ours(name):
    ctor, call = CASES[name]
    paddle.seed(3)
    m = eval(ctor, {"nn": nn, "paddle": paddle})
    m.eval()
    x = {k: paddle.to_tensor(v) for k, v in _inputs().items()}
    outs = _flat(eval(call, {"nn": nn, "paddle": paddle, "m": m, "x": x}))
    return m, outs


PADDLE_SCRIPT = textwrap.dedent("""
    import json
    import numpy as np
    from paddle import nn
    cases = json.load(open("cases.json"))
    x = {k: paddle.to_tensor(v) for k, v in np.load("inputs.npz").items()}
    def flat(o):
        if isinstance(o, (list, tuple)):
            return [a for e in o for a in flat(e)]
        return [o.numpy()]
    report = {}
    for name, (ctor, call) in cases.items():
        m = eval(ctor)
        m.eval()
        ours = dict(np.load(name + ".state.npz"))
        theirs = m.state_dict()
        assert sorted(ours) == sorted(theirs), (name, sorted(set(ours) ^ set(theirs)))
        for k, v in theirs.items():
            assert list(v.shape) == list(ours[k].shape), (name, k, v.shape, ours[k].shape)
        m.set_state_dict({k: paddle.to_tensor(v) for k, v in ours.items()})
        outs = flat(eval(call))
        np.savez(name + ".out.npz", *outs)
        report[name] = len(outs)
    print(json.dumps(report))
""")


@pytest.fixture(scope="module")
def paddle_outputs(tmp_path_factory):
    work = tmp_path_factory.mktemp("transformer")
    np.savez(work / "inputs.npz", **_inputs())
    ours = {}
    for name in CASES:
        m, outs = _ours(name)
        np.savez(work / f"{name}.state.npz", **{k: v.numpy() for k, v in m.state_dict().items()})
        ours[name] = outs
    (work / "cases.json").write_text(json.dumps(CASES))
    res = run_paddle(PADDLE_SCRIPT, work)
    assert res.returncode == 0, res.stderr[-4000:]
    theirs = {}
    for name in CASES:
        z = np.load(work / f"{name}.out.npz")
        theirs[name] = [z[f"arr_{i}"] for i in range(len(z.files))]
    return ours, theirs


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_real_paddle(name, paddle_outputs):
    ours, theirs = paddle_outputs
    assert len(ours[name]) == len(theirs[name])
    for a, b in zip(ours[name], theirs[name]):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_state_dict_keys_and_shapes():
    m = nn.Transformer(8, 2, 1, 1, 16)
    sd = m.state_dict()
    assert len(sd) == 46   # as in Paddle 3.3.1
    assert sd["encoder.layers.0.self_attn.q_proj.weight"].shape == [8, 8]
    assert sd["encoder.layers.0.linear1.weight"].shape == [8, 16]
    assert sd["decoder.layers.0.cross_attn.out_proj.bias"].shape == [8]
    assert sd["decoder.layers.0.norm3.weight"].shape == [8] and "decoder.norm.bias" in sd
    assert nn.MultiHeadAttention(8, 2, kdim=6).k_proj.weight.shape == [6, 8]


def test_constructor_errors_and_defaults():
    with pytest.raises(ValueError, match="divisible by num_heads"):
        nn.MultiHeadAttention(10, 3)
    with pytest.raises(ValueError, match="activation"):
        nn.TransformerEncoderLayer(8, 2, 16, activation="nope")
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.2, attn_dropout=0.3)
    assert layer.self_attn.dropout == 0.3 and layer.dropout.p == 0.2 and layer.dropout1.p == 0.2
    enc = nn.TransformerEncoder(layer, 3)
    assert len(enc.layers) == 3 and enc.layers[0] is layer
    assert not np.array_equal(enc.layers[1].linear1.weight.numpy(), layer.linear1.weight.numpy())
    t = nn.Transformer()
    assert len(t.encoder.layers) == 6 and t.encoder.layers[0].linear1.weight.shape == [512, 2048]


def test_bool_mask_equals_additive_mask():
    paddle.seed(0)
    m = nn.MultiHeadAttention(8, 2)
    x = paddle.to_tensor(_inputs()["q"])
    keep = np.tril(np.ones((4, 4), bool))
    a = m(x, attn_mask=paddle.to_tensor(keep))
    b = m(x, attn_mask=paddle.to_tensor(np.where(keep, 0.0, -1e9).astype("float32")))
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-6)


def test_incremental_decoding_equals_causal_decoding():
    paddle.seed(0)
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2)
    dec.eval()
    ins = _inputs()
    tgt, mem = paddle.to_tensor(ins["tgt"]), paddle.to_tensor(ins["src"])
    full = dec(tgt, mem, tgt_mask=paddle.to_tensor(ins["causal"])).numpy()
    cache = dec.gen_cache(mem)
    steps = []
    for t in range(4):
        out, cache = dec(tgt[:, t:t + 1], mem, cache=cache)
        steps.append(out.numpy())
    assert cache[0][0].k.shape == [2, 2, 4, 4]
    np.testing.assert_allclose(np.concatenate(steps, axis=1), full, rtol=1e-5, atol=1e-5)


def _numeric_grad(f, arr, eps=1e-6):
    g = np.zeros_like(arr)
    for i in np.ndindex(arr.shape):
        old = arr[i]
        arr[i] = old + eps
        hi = f()
        arr[i] = old - eps
        lo = f()
        arr[i] = old
        g[i] = (hi - lo) / (2 * eps)
    return g


@pytest.mark.parametrize("pre", [False, True])
def test_gradients_match_finite_differences(pre):
    paddle.set_default_dtype("float64")
    try:
        paddle.seed(5)
        layer = nn.TransformerDecoderLayer(4, 2, 6, dropout=0.0, normalize_before=pre)
    finally:
        paddle.set_default_dtype("float32")
    r = np.random.default_rng(2)
    tgt, mem, w = r.standard_normal((1, 3, 4)), r.standard_normal((1, 2, 4)), r.standard_normal((1, 3, 4))
    keep = paddle.to_tensor(np.array([[True, True], [True, False], [False, True]]))
    causal = paddle.to_tensor(np.triu(np.full((3, 3), -1e9), 1))
    params = {"q": layer.self_attn.q_proj.weight, "kb": layer.cross_attn.k_proj.bias,
              "l1": layer.linear1.weight, "n2": layer.norm2.weight}

    def loss(t):
        return (layer(t, paddle.to_tensor(mem), causal, keep) * paddle.to_tensor(w)).sum()

    t = paddle.to_tensor(tgt, stop_gradient=False)
    loss(t).backward()
    num = _numeric_grad(lambda: float(loss(paddle.to_tensor(tgt)).numpy()), tgt)
    np.testing.assert_allclose(t.grad.numpy(), num, rtol=1e-5, atol=1e-7)
    for name, p in params.items():
        arr = p.numpy().copy()

        def f():
            p.set_value(arr)
            return float(loss(paddle.to_tensor(tgt)).numpy())
        num = _numeric_grad(f, arr)
        p.set_value(arr)
        np.testing.assert_allclose(p.grad.numpy(), num, rtol=1e-5, atol=1e-7, err_msg=name)


def _loss_and_grads(model, src, tgt, mask):
    model.clear_gradients()
    out = model(src, tgt, tgt_mask=mask)
    (out * out).sum().backward()
    return out.numpy(), {n: p.grad.numpy().copy() for n, p in model.named_parameters() if p.grad is not None}


def test_to_static_matches_eager():
    paddle.seed(11)
    model = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0)
    ins = _inputs()
    src, tgt, mask = (paddle.to_tensor(ins[k]) for k in ("src", "tgt", "causal"))
    eager_out, eager_grads = _loss_and_grads(model, src, tgt, mask)
    static_model = paddle.jit.to_static(model)
    out, grads = _loss_and_grads(static_model, src, tgt, mask)
    np.testing.assert_allclose(out, eager_out, rtol=1e-5, atol=1e-6)
    assert sorted(grads) == sorted(eager_grads) and len(grads) == 46
    for n in grads:
        np.testing.assert_allclose(grads[n], eager_grads[n], rtol=1e-4, atol=1e-6, err_msg=n)


def test_jit_save_loads_in_real_paddle(tmp_path):
    from dy2st.static import InputSpec
    paddle.seed(4)
    model = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, normalize_before=True), 2, nn.LayerNorm(8))
    model.eval()
    prefix = tmp_path / "enc" / "model"
    paddle.jit.save(model, str(prefix), input_spec=[InputSpec([None, 5, 8], "float32", "src")])
    src = _inputs()["src"]
    with paddle.no_grad():
        ours = model(paddle.to_tensor(src)).numpy()
    res = check_models([{"name": "enc", "prefix": prefix, "inputs": [src], "feed_names": ["src"],
                         "loaders": ("jit",)}], tmp_path)["enc"]
    assert "jit_error" not in res, res.get("jit_error")
    np.testing.assert_allclose(np.asarray(res["jit"][0], dtype="float32"), ours, rtol=1e-5, atol=1e-5)
