"""Differential test of the rest of paddle.nn / nn.functional and paddle.text's Viterbi decoding against
real Paddle 3.3.1 (one subprocess for the module).

``CODE`` runs once in real Paddle and once with ``import dy2st as paddle``: fractional max pooling
(functional and layers, masks, gradients), SpectralNorm (state_dict keys, values, gradient, u/v left
unchanged), temporal_shift, swiglu, dropout1d, the in-place activations, flash_attn_qkvpacked (Paddle's
CPU "math" path), the torch-style names, ParameterDict, viterbi_decode / ViterbiDecoder, and
BeamSearchDecoder + dynamic_decode over a GRU cell with shared weights. The GPU-only entry points
(flash_attn_varlen_qkvpacked, flashmask_attention, flash_attention_v3_varlen, sparse_attention,
moe_permute, moe_unpermute) and rms_norm are compared by the exception Paddle raises on CPU.
The op schemas (slots, attribute types and defaults) are compared with Paddle's registered op protos,
and real Paddle runs models we saved (the new op types; a to_static beam search through jit.load).
"""
import textwrap

import numpy as np
import pytest

from .diff_prelude import assert_same_as_paddle, with_helpers

CODE = with_helpers(textwrap.dedent('''
    import numpy as np

    def compute(paddle):
        F = paddle.nn.functional
        nn = paddle.nn
        rng = np.random.default_rng(5)
        def r(*s, lo=-1.0, hi=1.0):
            return rng.uniform(lo, hi, s)
        out = {}
        T, put, grad, err, _ = diff_helpers(paddle, out, err_prefix="err.", grad="weighted")

        def init(layer, seed):
            g = np.random.default_rng(seed)
            for k, v in sorted(layer.state_dict().items()):
                v.set_value(g.uniform(-0.5, 0.5, v.shape).astype(str(v.dtype).replace("paddle.", "")))

        # -- fractional max pooling: Paddle's windows for a given random_u, masks, grads
        for dt in ("float32", "float64"):
            for i, (shape, osz, ks, u) in enumerate([((2, 3, 7, 9), (3, 4), None, 0.3), ((1, 2, 10, 10), 4, None, 0.71),
                                                     ((1, 1, 9, 6), (5, 5), None, 0.05), ((2, 1, 8, 7), (3, 3), 2, 0.5),
                                                     ((1, 2, 11, 5), (4, None), [3, 1], 0.93),
                                                     ((1, 1, 16, 13), (7, 6), None, 0.999)]):
                put(f"fmp2d.{dt}.{i}", F.fractional_max_pool2d(T(r(*shape), dt), osz, ks, u, return_mask=True))
            for i, (shape, osz, ks, u) in enumerate([((1, 2, 5, 6, 7), (2, 3, 4), None, 0.4),
                                                     ((1, 1, 6, 6, 6), 3, 2, 0.25),
                                                     ((2, 1, 7, 5, 6), (None, 2, 3), None, 0.8)]):
                put(f"fmp3d.{dt}.{i}", F.fractional_max_pool3d(T(r(*shape), dt), osz, ks, u, return_mask=True))
        grad("grad.fmp2d", lambda x: F.fractional_max_pool2d(x, [3, 4], random_u=0.6), r(2, 2, 7, 9))
        grad("grad.fmp3d", lambda x: F.fractional_max_pool3d(x, [2, 3, 2], kernel_size=2, random_u=0.3),
             r(1, 2, 5, 6, 4))
        put("layer.FractionalMaxPool2D",
            nn.FractionalMaxPool2D([3, 3], random_u=0.45, return_mask=True)(T(r(1, 2, 8, 8))))
        put("layer.FractionalMaxPool3D",
            nn.FractionalMaxPool3D(2, kernel_size=[2, 2, 3], random_u=0.65)(T(r(1, 1, 5, 5, 6))))
        put("repr.FractionalMaxPool2D", repr(nn.FractionalMaxPool2D(3, random_u=0.5)))
        put("fmp2d.drawn_u.shape", np.array(F.fractional_max_pool2d(T(r(1, 1, 9, 9)), 4).shape))
        put("fmp2d.one_window", F.fractional_max_pool2d(T(r(1, 1, 6, 6)), [1, 3], kernel_size=2, random_u=0.5,
                                                        return_mask=True))
        for dt in ("float32", "float64"):     # a window left empty by Paddle's rounding: -FLT_MAX, mask -1
            put(f"fmp2d.empty_window.{dt}", F.fractional_max_pool2d(T(r(1, 1, 11, 11), dt), 4, kernel_size=1,
                                                                    random_u=0.9, return_mask=True))
        err("fmp2d.too_small", lambda: F.fractional_max_pool2d(T(r(1, 1, 4, 4)), 6, random_u=0.5))
        err("fmp3d.too_small", lambda: F.fractional_max_pool3d(T(r(1, 1, 6, 6, 5)), 3, kernel_size=4, random_u=0.5))
        err("fmp2d.u_range", lambda: F.fractional_max_pool2d(T(r(1, 1, 5, 5)), 2, random_u=1.5))
        err("fmp2d.rank", lambda: F.fractional_max_pool2d(T(r(1, 5, 5)), 2, random_u=0.5))

        # -- SpectralNorm: parameters, state_dict names, values, grad; u and v are never updated
        for i, (shape, dim, iters) in enumerate([((4, 6), 0, 1), ((3, 4, 2), 1, 3), ((2, 3, 2, 2), 0, 2)]):
            sn = nn.SpectralNorm(list(shape), dim=dim, power_iters=iters, dtype="float64")
            put(f"sn.{i}.keys", np.array(sorted(sn.state_dict())))
            put(f"sn.{i}.trainable", np.array([p.trainable for p in sn.parameters()]))
            init(sn, i)
            u0 = sn.weight_u.numpy().copy()
            grad(f"sn.{i}", lambda w: sn(w), r(*shape))
            put(f"sn.{i}.u_changed", np.array(float(np.abs(sn.weight_u.numpy() - u0).max())))
        sn32 = nn.SpectralNorm([3, 5], power_iters=2)
        init(sn32, 9)
        put("sn.float32", sn32(T(r(3, 5), "float32")))

        # -- temporal_shift
        for dt in ("float32", "float64"):
            put(f"tshift.{dt}", F.temporal_shift(T(r(6, 8, 2, 2), dt), 3))
        put("tshift.ratio", F.temporal_shift(T(r(4, 10, 1, 2)), 2, 0.3))
        put("tshift.nhwc", F.temporal_shift(T(r(4, 2, 2, 7)), 4, 0.2, data_format="NHWC"))
        grad("grad.tshift", lambda x: F.temporal_shift(x, 2, 0.25), r(4, 8, 2, 1))
        err("tshift.format", lambda: F.temporal_shift(T(r(4, 2, 2, 2)), 2, data_format="NCL"))

        # -- swiglu
        for dt in ("float32", "float64"):
            put(f"swiglu.xy.{dt}", F.swiglu(T(r(3, 4), dt), T(r(3, 4), dt)))
            put(f"swiglu.split.{dt}", F.swiglu(T(r(2, 3, 6), dt)))
        grad("grad.swiglu.xy", lambda x, y: F.swiglu(x, y), r(3, 4), r(3, 4))
        grad("grad.swiglu.split", lambda x: F.swiglu(x), r(2, 6))
        err("swiglu.odd", lambda: F.swiglu(T(r(2, 5))))

        # -- rms_norm: Paddle 3.3.1 has no CPU kernel (compared by its error below)
        # -- dropout1d: eval mode, p = 0 / 1, whole channels dropped and scaled
        x = T(r(2, 6, 5) + 2.0)
        put("dropout1d.eval", F.dropout1d(x, 0.5, training=False))
        put("dropout1d.p0", F.dropout1d(x, 0.0))
        put("dropout1d.p1", F.dropout1d(x, 1.0))
        d = F.dropout1d(x, 0.5).numpy()
        kept = np.abs(d).sum(-1) > 0
        rows_ok = np.all(np.isclose(d, x.numpy() * 2).all(-1) == kept)
        put("dropout1d.channels", np.array(bool(np.all((d == 0) | np.isclose(d, x.numpy() * 2))) and bool(rows_ok)))
        put("dropout1d.2d", np.array(F.dropout1d(T(r(4, 5)), 0.3).shape))
        err("dropout1d.rank", lambda: F.dropout1d(T(r(1, 2, 3, 4)), 0.5))
        err("dropout1d.p", lambda: F.dropout1d(x, 1.5))

        # -- in-place activations: value, identity, gradient through a non-leaf, Paddle's errors
        cases = [("elu_", F.elu_, (0.7,)), ("hardtanh_", F.hardtanh_, (-0.3, 0.4)),
                 ("leaky_relu_", F.leaky_relu_, (0.1,)), ("softmax_", F.softmax_, (0,)),
                 ("tanh_", F.tanh_, ()), ("thresholded_relu_", F.thresholded_relu_, (0.2, 0.5))]
        for name, fn, args in cases:
            a = r(3, 4)
            x = T(a, grad=True)
            y = x * 2.0
            z = fn(y, *args)
            put(f"inplace.{name}", z)
            put(f"inplace.{name}.is_self", np.array(z is y))
            put(f"inplace.{name}.y", y)
            (z * T(np.arange(12.0).reshape(3, 4))).sum().backward()
            put(f"inplace.{name}.grad", x.grad)
            leaf = T(a, grad=True)
            err(f"inplace.{name}.leaf", lambda: fn(leaf, *args))
        err("inplace.elu_.alpha", lambda: F.elu_(T(r(2)), -1.0))
        xs = T(r(2, 3), "float32")
        ys = F.softmax_(xs, dtype="float64")
        put("inplace.softmax_.dtype", ys)
        put("inplace.softmax_.dtype.x", xs)

        # -- flash_attn_qkvpacked: Paddle's CPU path is plain attention
        qkv = r(2, 5, 3, 2, 4)
        put("flash_qkv", F.flash_attn_qkvpacked(T(qkv), return_softmax=True))
        put("flash_qkv.causal", F.flash_attn_qkvpacked(T(qkv), causal=True))
        put("flash_qkv.float32", F.flash_attn_qkvpacked(T(qkv, "float32"))[0])
        put("flash_qkv.gqa", F.flash_attn_qkvpacked(T(r(1, 4, 4, 1, 8)), causal=True)[0])
        put("flash_qkv.eval_dropout", F.flash_attn_qkvpacked(T(qkv), dropout=0.5, training=False)[0])
        grad("grad.flash_qkv", lambda q: F.flash_attn_qkvpacked(q, causal=True)[0], qkv)
        # -- flash_attention module (the import path LLM code uses): CPU math path
        import importlib
        flash_attention = importlib.import_module(paddle.__name__ + ".nn.functional.flash_attention").flash_attention
        q4, k4, v4 = r(2, 5, 3, 4), r(2, 6, 3, 4), r(2, 6, 3, 4)
        put("flash_attention", flash_attention(T(q4), T(k4), T(v4), return_softmax=True))
        put("flash_attention.causal", flash_attention(T(q4), T(r(2, 5, 3, 4)), T(r(2, 5, 3, 4)), causal=True)[0])
        put("flash_attention.float32", flash_attention(T(q4, "float32"), T(k4, "float32"), T(v4, "float32"))[0])
        put("flash_attention.eval_dropout", flash_attention(T(q4), T(k4), T(v4), dropout=0.3, training=False)[0])
        grad("grad.flash_attention", lambda q: flash_attention(q, T(k4), T(v4))[0], q4)
        # the GPU-only ones
        q3 = T(r(8, 2, 16), "float32")
        cu = paddle.to_tensor(np.array([0, 8], "int32"))
        err("gpu.flash_attn_varlen_qkvpacked",
            lambda: F.flash_attn_varlen_qkvpacked(T(r(8, 3, 2, 16), "float32"), cu, cu, 8, 8, 0.25))
        q4 = T(r(1, 8, 2, 16), "float32")
        err("gpu.flashmask_attention", lambda: F.flashmask_attention(q4, q4, q4, causal=True))
        err("gpu.flashmask_attention.rows", lambda: F.flashmask_attention(
            q4, q4, q4, startend_row_indices=paddle.to_tensor(np.full([1, 2, 8, 1], 8, "int32")), causal=True))
        err("gpu.flash_attention_v3_varlen", lambda: F.flash_attention_v3_varlen(q3, q3, q3, cu, cu, 8, 8))
        qs = T(r(1, 1, 4, 8), "float32")
        err("gpu.sparse_attention", lambda: F.sparse_attention(
            qs, qs, qs, paddle.to_tensor(np.array([[[0, 2, 4, 6, 8]]], "int32")),
            paddle.to_tensor(np.array([[[0, 1, 0, 1, 2, 3, 2, 3]]], "int32"))))
        rm = paddle.to_tensor(np.array([[0, 1], [1, -1], [0, -1], [1, 0]], "int32"))
        pr = T(r(4, 2), "float32")
        err("gpu.moe_permute", lambda: F.moe_permute(T(r(4, 8), "float32"), None, rm, pr, 2, [2, 2], 0))
        err("gpu.moe_unpermute", lambda: F.moe_unpermute(T(r(4, 8), "float32"), rm, rm, pr, 4, 2))

        # -- torch-style names are Paddle's own classes
        for alias, orig in [("Conv1d", "Conv1D"), ("Conv2d", "Conv2D"), ("Conv3d", "Conv3D"), ("SiLU", "Silu"),
                            ("AdaptiveMaxPool1d", "AdaptiveMaxPool1D"), ("AdaptiveMaxPool2d", "AdaptiveMaxPool2D"),
                            ("AdaptiveMaxPool3d", "AdaptiveMaxPool3D"), ("Module", "Layer"),
                            ("ModuleDict", "LayerDict"), ("ModuleList", "LayerList")]:
            put(f"alias.{alias}", np.array(getattr(nn, alias) is getattr(nn, orig)))
        c = nn.Conv1d(2, 3, 3)
        put("alias.Conv1d.keys", np.array(sorted(c.state_dict())))
        put("alias.SiLU", nn.SiLU()(T(r(5))))
        put("alias.AdaptiveMaxPool2d", nn.AdaptiveMaxPool2d(2)(T(r(1, 2, 5, 5))))

        # -- ParameterDict
        pd = nn.ParameterDict({"b": paddle.create_parameter([2, 3], "float32"),
                               "a": paddle.create_parameter([3], "float32")})
        pd.update([("c", paddle.create_parameter([1], "float32"))])
        pd["a"] = paddle.create_parameter([4], "float32")
        put("pdict.keys", np.array(list(pd)))
        put("pdict.len", np.array(len(pd)))
        put("pdict.state", np.array(sorted(pd.state_dict())))
        put("pdict.shape_a", np.array(pd["a"].shape))
        put("pdict.nparams", np.array(len(pd.parameters())))
        err("pdict.pair", lambda: nn.ParameterDict([("x", paddle.create_parameter([1], "float32"), 3)]))

        # -- viterbi_decode / ViterbiDecoder
        for dt in ("float32", "float64"):
            pot, tr = T(r(3, 6, 5), dt), T(r(5, 5), dt)
            ln = paddle.to_tensor(np.array([6, 2, 4], "int64"))
            for tag in (True, False):
                put(f"viterbi.{dt}.{int(tag)}", paddle.text.viterbi_decode(pot, tr, ln, tag))
        pot, tr = T(r(4, 7, 4)), T(r(4, 4))
        ln = paddle.to_tensor(np.array([1, 7, 3, 5], "int64"))
        put("viterbi.len1", paddle.text.viterbi_decode(pot, tr, ln))
        put("viterbi.layer", paddle.text.ViterbiDecoder(tr, include_bos_eos_tag=False)(pot, ln))
        err("viterbi.int32_len",
            lambda: paddle.text.viterbi_decode(pot, tr, paddle.to_tensor(np.array([1, 2, 3, 4], "int32"))))

        # -- BeamSearchDecoder + dynamic_decode over a GRU cell with shared weights
        vocab, hid, B = 9, 6, 3
        emb, cell, proj = nn.Embedding(vocab, 5), nn.GRUCell(5, hid), nn.Linear(hid, vocab)
        for i, l in enumerate((emb, cell, proj)):
            init(l, 100 + i)
            put(f"beam.keys.{i}", np.array(sorted(l.state_dict())))
        dec = nn.BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=4, embedding_fn=emb, output_fn=proj)
        h0 = T(r(B, hid), "float32")
        outs, states, lens = nn.dynamic_decode(dec, inits=h0, max_step_num=6, return_length=True)
        put("beam.ids", outs)
        put("beam.log_probs", states.log_probs)
        put("beam.finished", states.finished)
        put("beam.lengths", states.lengths)
        put("beam.cell", states.cell_states)
        put("beam.seq_len", lens)
        outs_tm, _ = nn.dynamic_decode(dec, inits=h0, max_step_num=3, output_time_major=True)
        put("beam.time_major", outs_tm)
        put("beam.tile", nn.BeamSearchDecoder.tile_beam_merge_with_batch(T(r(2, 3)), 3))

        # a greedy decoder that does not track its own finished flags: impute_finished keeps final states
        class Greedy(paddle.nn.decode.Decoder):
            def initialize(self, inits):
                return (emb(paddle.full([B], 0, "int64")), inits, paddle.full([B], False, "bool"))

            def step(self, time, inputs, states, **kwargs):
                o, s = cell(inputs, states)
                ids = paddle.argmax(proj(o), axis=-1)
                return ids, s, emb(ids), paddle.equal(ids, paddle.full([1], 2, "int64"))

        for imp in (False, True):
            o, s, ln = nn.dynamic_decode(Greedy(), inits=h0, max_step_num=5, impute_finished=imp, return_length=True)
            put(f"greedy.{int(imp)}", (o, s, ln))
        return out
'''))

PADDLE_MAIN = textwrap.dedent('''
    import json
    paddle.set_device("cpu")
    res = compute(paddle)
    res2 = {}
    F = paddle.nn.functional
    def err2(name, fn):
        try:
            fn()
            res2["err." + name] = np.array("no error")
        except Exception as e:
            res2["err." + name] = np.array(",".join(c.__name__ for c in type(e).__mro__))
    x = paddle.to_tensor(np.ones([2, 3], "float32"))
    err2("rms_norm.cpu", lambda: F.rms_norm(x, [3]))
    np.savez("paddle_rms.npz", **res2)
    np.savez("paddle_out.npz", **{k: v for k, v in res.items()})
    json.dump({k: str(v.dtype) for k, v in res.items()}, open("dtypes.json", "w"))
    # the op schemas, for the schema comparison
    from paddle.base import core, framework
    names = ["fractional_max_pool2d", "fractional_max_pool3d", "spectral_norm", "temporal_shift", "rms_norm",
             "swiglu", "viterbi_decode"]
    protos = {p.type: p for p in framework.get_all_op_protos() if p.type in names}
    schema = {}
    for n in names:
        p = protos[n]
        defaults = core.get_op_attrs_default_value(n.encode())
        schema[n] = {"inputs": [i.name for i in p.inputs], "outputs": [o.name for o in p.outputs],
                     "attrs": {a.name: [int(a.type), defaults.get(a.name)] for a in p.attrs if not a.extra}}
    json.dump(schema, open("schema.json", "w"))
    # a legacy inference model written by Paddle with the new op types, for us to load and run
    paddle.enable_static()
    rng = np.random.default_rng(8)
    feeds = {"x4": rng.uniform(-1, 1, (2, 2, 7, 9)), "ts": rng.uniform(-1, 1, (6, 8, 2, 2)),
             "w": rng.uniform(-1, 1, (4, 6))}
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        d = {k: paddle.static.data(k, list(v.shape), "float64") for k, v in feeds.items()}
        fm, mask = F.fractional_max_pool2d(d["x4"], [3, 4], random_u=0.4, return_mask=True)
        fm3 = F.fractional_max_pool3d(paddle.reshape(d["x4"], [1, 2, 2, 7, 9]), [2, 3, 4], kernel_size=[1, 2, 2],
                                      random_u=0.7)
        sn = paddle.nn.SpectralNorm([4, 6], power_iters=3, dtype="float64")(d["w"])
        outs = [fm, mask, fm3, F.temporal_shift(d["ts"], 3, 0.3), sn]
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    got = exe.run(main, feed=feeds, fetch_list=outs)
    paddle.static.save_inference_model("paddle_ops", [d[k] for k in feeds], outs, exe, program=main)
    np.savez("paddle_ops_io.npz", **{"in." + k: v for k, v in feeds.items()},
             **{f"out.{i}": v for i, v in enumerate(got)})
    paddle.disable_static()
''')

# no per-result tolerances needed: float64 results agree with Paddle to 1e-9, float32 ones to 1e-4
TOLERANT = {}


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    from .paddle_runner import differential
    workdir = tmp_path_factory.mktemp("nn_rest")
    ours, theirs, dtypes = differential(CODE, PADDLE_MAIN, workdir, "nn_rest")
    return ours, theirs, dtypes, workdir


def test_same_results(both):
    ours, theirs, dtypes, _ = both
    assert_same_as_paddle(ours, theirs, dtypes, TOLERANT, double_tol=1e-9)


def test_rms_norm_paddle_has_no_cpu_kernel(both):
    """Paddle 3.3.1 cannot run rms_norm on CPU; ours computes the documented formula (checked by the op table)."""
    *_, workdir = both
    theirs = dict(np.load(workdir / "paddle_rms.npz", allow_pickle=False))
    assert str(theirs["err.rms_norm.cpu"]).startswith("RuntimeError")
    import dy2st as paddle
    x = np.random.default_rng(1).standard_normal((2, 3, 4)).astype("float32")
    w = np.linspace(0.5, 1.5, 4).astype("float32")
    y, inv = paddle.nn.functional.rms_norm(paddle.to_tensor(x), [4], paddle.to_tensor(w), 1e-6)
    ref_inv = 1 / np.sqrt((x.astype(np.float64) ** 2).mean(-1) + 1e-6)
    np.testing.assert_allclose(inv.numpy(), ref_inv.reshape(-1), rtol=1e-6)
    np.testing.assert_allclose(y.numpy(), x * ref_inv[..., None] * w, rtol=1e-5, atol=1e-6)
    assert inv.dtype == paddle.float32 and list(inv.shape) == [6]


_TYPES = {0: "INT", 1: "FLOAT", 2: "STRING", 3: "INTS", 6: "BOOLEAN", 11: "LONGS", 15: "FLOAT64"}


def test_op_schemas_match_paddle(both):
    import json

    from runtime.ops.registry import lookup
    *_, workdir = both
    schema = json.loads((workdir / "schema.json").read_text())
    for op, theirs in schema.items():
        ours = lookup(op)
        assert list(ours.input_names) == theirs["inputs"], op
        assert list(ours.output_names) == theirs["outputs"], op
        assert sorted(ours.attrs) == sorted(theirs["attrs"]), op
        for name, (typ, default) in theirs["attrs"].items():
            assert ours.attrs[name][0] == _TYPES[typ], f"{op}.{name}"
            mine = ours.attrs[name][1]
            if default is None or (name in ("output_size", "seg_num")):
                continue     # required attributes: no default in Paddle
            if isinstance(default, float):
                assert abs(mine - default) <= 1e-12 * max(1.0, abs(default)), f"{op}.{name}: {mine} vs {default}"
            else:
                assert (list(mine) if isinstance(mine, (list, tuple)) else mine) == default, f"{op}.{name}"


def test_we_run_paddles_saved_model(both):
    """A legacy .pdmodel written by real Paddle with the new op types (its attributes as Paddle writes
    them) loads into our executor and computes Paddle's outputs. (Not viterbi_decode: Paddle's legacy
    static graph records its Scores as int64 and Path as 0-D, which our loader's verifier rejects; and
    Paddle's F.swiglu has no legacy static path, it returns None.)"""
    import dy2st as paddle
    *_, workdir = both
    io = dict(np.load(workdir / "paddle_ops_io.npz", allow_pickle=False))
    paddle.enable_static()
    try:
        exe = paddle.static.Executor()
        prog, feed_names, fetches = paddle.static.load_inference_model(str(workdir / "paddle_ops"), exe)
        assert {op.type for op in prog.global_block().ops} >= {
            "fractional_max_pool2d", "fractional_max_pool3d", "spectral_norm", "temporal_shift"}
        got = exe.run(prog, feed={k: io["in." + k] for k in feed_names}, fetch_list=fetches)
    finally:
        paddle.disable_static()
    for i, g in enumerate(got):
        want = io[f"out.{i}"]
        assert g.dtype == want.dtype and g.shape == want.shape, i
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12, err_msg=f"output {i}")


def _functional_program(x4, ts, w, pot):
    """One use of each new op type, for a static Program real Paddle runs."""
    import dy2st
    from runtime.dispatch import run_op
    F = dy2st.nn.functional
    fm, mask = F.fractional_max_pool2d(x4, [3, 4], random_u=0.4, return_mask=True)
    fm3 = F.fractional_max_pool3d(dy2st.reshape(x4, [1, 2, 2, 7, 9]), [2, 3, 4], random_u=0.7)
    sn = run_op("spectral_norm", w, dy2st.full([4], 0.5, "float64"), dy2st.full([6], -0.3, "float64"),
                dim=0, power_iters=3, eps=1e-12)
    tr = dy2st.full([4, 4], 0.1, "float64") + dy2st.reshape(dy2st.arange(16, dtype="float64") / 16, [4, 4])
    scores, path = dy2st.text.viterbi_decode(pot, tr, dy2st.full([2], 4, "int64"))
    return [fm, mask, fm3, F.temporal_shift(ts, 3), F.swiglu(ts), sn, scores, path]


def test_paddle_runs_our_saved_models(tmp_path):
    """Saved by us, run by real Paddle 3.3.1 (one subprocess): a static Program using every new op type
    (its legacy .pdmodel, through the static loader and the predictor), and a beam-search model made with
    to_static + jit.save (a while op over tensor arrays, then gather_tree) through paddle.jit.load."""
    import dy2st as paddle
    from runtime import static
    from .paddle_runner import assert_outputs_match, check_models
    rng = np.random.default_rng(4)
    vals = [rng.uniform(-1, 1, (2, 2, 7, 9)), rng.uniform(-1, 1, (6, 8, 2, 2)), rng.uniform(-1, 1, (4, 6)),
            rng.uniform(-1, 1, (2, 5, 4))]
    names = ["x4", "ts", "w", "pot"]
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            data = [static.data(n, list(v.shape), "float64") for n, v in zip(names, vals)]
            outs = _functional_program(*data)
        exe = static.Executor()
        ours = exe.run(main, feed=dict(zip(names, vals)), fetch_list=outs)
        static.save_inference_model(str(tmp_path / "ops"), data, outs, exe, program=main)
    finally:
        paddle.disable_static()
    eager = _functional_program(*[paddle.to_tensor(v) for v in vals])
    for a, b in zip(ours, eager):
        np.testing.assert_allclose(a, b.numpy(), rtol=1e-12, atol=1e-12)

    class Searcher(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb, self.cell, self.proj = paddle.nn.Embedding(9, 5), paddle.nn.GRUCell(5, 6), paddle.nn.Linear(6, 9)
            self.dec = paddle.nn.BeamSearchDecoder(self.cell, 0, 1, 3, embedding_fn=self.emb, output_fn=self.proj)

        def forward(self, h):
            ids, states = paddle.nn.dynamic_decode(self.dec, inits=h, max_step_num=5, is_test=True)
            return ids, states.log_probs

    paddle.seed(3)
    net = Searcher()
    h0 = rng.uniform(-1, 1, (3, 6)).astype("float32")
    eager_ids, eager_lp = net(paddle.to_tensor(h0))
    static_net = paddle.jit.to_static(net, input_spec=[paddle.static.InputSpec([None, 6], "float32", "h")])
    paddle.jit.save(static_net, str(tmp_path / "beam"))
    got = check_models([{"name": "ops", "prefix": tmp_path / "ops", "inputs": vals, "feed_names": names,
                         "loaders": ("static", "predictor")},
                        {"name": "beam", "prefix": tmp_path / "beam", "inputs": [h0], "feed_names": ["h"],
                         "loaders": ("jit",)}], tmp_path)
    for loader in ("static", "predictor"):
        assert f"{loader}_error" not in got["ops"], got["ops"].get(f"{loader}_error")
        assert_outputs_match(got["ops"][loader], ours, f"new ops via Paddle's {loader}", rtol=1e-9, atol=1e-10)
    assert "jit_error" not in got["beam"], got["beam"].get("jit_error")
    np.testing.assert_array_equal(np.asarray(got["beam"]["jit"][0]), eager_ids.numpy())
    np.testing.assert_allclose(np.asarray(got["beam"]["jit"][1], "float32"), eager_lp.numpy(), rtol=1e-5, atol=1e-5)
