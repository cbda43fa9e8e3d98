"""Model files both ways with real Paddle 3.3.1 (one subprocess for the module), for defects of issues 14/16:

* a Layer holding ``paddle.nn.SpectralNorm``, saved by dy2st's ``jit.save``: Paddle's jit.load, inference
  predictor and load_inference_model reproduce our numbers;
* ``F.pad`` in constant mode with a tensor ``pad`` for every dim (concat / fill_constant ops, as Paddle's pad
  op has no tensor input): Paddle's three loaders give numpy's padding;
* ``paddle.binomial`` in a dy2st ``.pdmodel``: its op reads ``count`` in ``prob``'s dtype, as Paddle's, so
  Paddle runs it (probabilities 0 and 1 make the draw exact);
* ``viterbi_decode`` in a ``.pdmodel`` Paddle saved with ``InputSpec([None, ...])`` (Paddle's compile-time
  meta declares Scores int64 and Path 0-D): dy2st loads and runs it for two batch sizes, also when an op
  reads Scores;
* ProgramDesc bytes without feed ops (``program.desc.serialize_to_string()``) whose inputs no op writes
  (plain variables, as in Paddle's test_program.py, or ``static.data``): ``Program.parse_from_string``
  accepts them and our executor reproduces Paddle's results with the same feed.
"""
import json
import textwrap

import numpy as np
import pytest

from .paddle_runner import assert_outputs_match, run_paddle

X_VIT = np.random.default_rng(4).uniform(-1, 1, (3, 4, 5)).astype("float32")
LEN_VIT = np.array([4, 2, 3], "int64")
TRANS2 = np.random.default_rng(5).uniform(-1, 1, (5, 5)).astype("float32")
SN_X = np.random.default_rng(6).uniform(-1, 1, (3, 6)).astype("float32")
COUNT = np.array([5, 7, 0, 3, 9], "int64")
PROB = np.array([1.0, 0.0, 1.0, 1.0, 0.0], "float32")
PAD_X = np.arange(24, dtype="float32").reshape(2, 3, 4)
PAD_P = np.array([1, 0, 0, 2, 1, 1], "int32")

PADDLE_SIDE = textwrap.dedent('''
    import json, traceback
    import numpy as np
    from paddle.static import InputSpec
    res, report = {}, {}

    def as_list(o):
        return list(o) if isinstance(o, (list, tuple)) else [o]

    def attempt(name, fn):
        try:
            fn()
            report[name] = "ok"
        except Exception:
            report[name] = traceback.format_exc()[-2000:]

    ins = np.load("inputs.npz")

    # -- our files: SpectralNorm (jit.load, predictor, static loader) and binomial
    def load_ours(tag, prefix, feeds):
        layer = paddle.jit.load(prefix)
        layer.eval()
        res[f"{tag}.jit"] = [o.numpy() for o in as_list(layer(*[paddle.to_tensor(ins[f]) for f in feeds]))]
        cfg = paddle.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
        cfg.disable_gpu()
        cfg.disable_glog_info()
        pred = paddle.inference.create_predictor(cfg)
        for name, f in zip(pred.get_input_names(), feeds):
            h = pred.get_input_handle(name)
            h.reshape(list(ins[f].shape))
            h.copy_from_cpu(ins[f])
        pred.run()
        res[f"{tag}.predictor"] = [pred.get_output_handle(n).copy_to_cpu() for n in pred.get_output_names()]
        paddle.enable_static()
        try:
            exe = paddle.static.Executor(paddle.CPUPlace())
            with paddle.static.scope_guard(paddle.static.Scope()):
                prog, feed_names, fetches = paddle.static.load_inference_model(prefix, exe)
                res[f"{tag}.static"] = exe.run(prog, feed={n: ins[f] for n, f in zip(feed_names, feeds)},
                                               fetch_list=fetches)
                if tag == "binomial":
                    op = [o for o in prog.global_block().ops if o.type == "binomial"][0]
                    blk = prog.global_block()
                    res["binomial.count_dtype"] = str(blk.var(op.input("count")[0]).dtype)
                    res["binomial.prob_dtype"] = str(blk.var(op.input("prob")[0]).dtype)
        finally:
            paddle.disable_static()

    attempt("spectral_norm", lambda: load_ours("spectral_norm", "ours/spectral_norm/model", ["sn_x"]))
    attempt("binomial", lambda: load_ours("binomial", "ours/binomial/model", ["count", "prob"]))
    attempt("pad", lambda: load_ours("pad", "ours/pad/model", ["pad_x", "pad_p"]))

    # -- Paddle's files: viterbi_decode with dynamic dims (legacy ProgramDesc)
    class Held(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.trans = self.create_parameter([5, 5])

        def forward(self, x, length):
            s, p = paddle.text.viterbi_decode(x, self.trans, length, True)
            return s * 2.0 + 1.0, p

    class Fed(paddle.nn.Layer):
        def forward(self, x, t, length):
            return paddle.text.viterbi_decode(x, t, length, False)

    def save_viterbi():
        paddle.seed(0)
        held = Held()
        spec = [InputSpec([None, None, 5], "float32", "x"), InputSpec([None], "int64", "length")]
        paddle.jit.save(paddle.jit.to_static(held, input_spec=spec, full_graph=True), "paddle/viterbi_held/model")
        spec = [InputSpec([None, None, None], "float32", "x"), InputSpec([None, None], "float32", "t"),
                InputSpec([None], "int64", "length")]
        paddle.jit.save(paddle.jit.to_static(Fed(), input_spec=spec, full_graph=True), "paddle/viterbi_fed/model")
        for b in (3, 2):
            x, n = paddle.to_tensor(ins["x_vit"][:b]), paddle.to_tensor(ins["len_vit"][:b])
            res[f"viterbi_held.{b}"] = [o.numpy() for o in held(x, n)]
            res[f"viterbi_fed.{b}"] = [o.numpy() for o in Fed()(x, paddle.to_tensor(ins["trans2"]), n)]

    attempt("viterbi", save_viterbi)

    # -- ProgramDesc bytes without feed ops, run by Paddle's executor with a feed
    def free_inputs():
        paddle.enable_static()
        try:
            prog = paddle.static.Program()
            gb = prog.global_block()
            x = gb.create_var(name="X", shape=[3, 4], dtype="float32")
            y = gb.create_var(name="Y", shape=[4, 2], dtype="float32")
            out = gb.create_var(name="Out", dtype="float32")
            gb.append_op(type="mul", inputs={"X": [x], "Y": [y]}, outputs={"Out": [out]})
            open("paddle/free_vars.bin", "wb").write(prog.desc.serialize_to_string())
            exe = paddle.static.Executor(paddle.CPUPlace())
            res["free_vars"] = exe.run(prog, feed={"X": ins["fx"], "Y": ins["fy"]}, fetch_list=[out])
            main = paddle.static.Program()
            with paddle.static.program_guard(main, paddle.static.Program()):
                d = paddle.static.data("d", [None, 4], "float32")
                o = paddle.nn.functional.relu(d) * 2.0 - d
            open("paddle/data_vars.bin", "wb").write(main.desc.serialize_to_string())
            json.dump([o.name], open("paddle/data_vars.json", "w"))
            res["data_vars"] = exe.run(main, feed={"d": ins["fx"]}, fetch_list=[o])
        finally:
            paddle.disable_static()

    attempt("free_inputs", free_inputs)
    np.savez("paddle_out.npz", **{f"{k}.{i}": np.asarray(v) for k, vs in res.items()
                                  for i, v in enumerate(vs if isinstance(vs, list) else [vs])})
    json.dump(report, open("report.json", "w"))
''')


class _HeldSpectralNorm:
    """A Layer holding SpectralNorm, the normalised weight used by a matmul."""

    @staticmethod
    def build():
        import dy2st as paddle

        class Net(paddle.nn.Layer):
            def __init__(self):
                super().__init__()
                self.sn = paddle.nn.SpectralNorm([4, 6], dim=1, power_iters=2)
                self.w = self.create_parameter([4, 6])

            def forward(self, x):
                return paddle.matmul(x, self.sn(self.w), transpose_y=True)
        paddle.seed(11)
        net = Net()
        net.eval()
        return net


def _save_ours(work):
    """Save our SpectralNorm and binomial models; return our outputs for them."""
    import dy2st as paddle
    from dy2st.static import InputSpec
    ours = {}
    net = _HeldSpectralNorm.build()
    ours["spectral_norm"] = [net(paddle.to_tensor(SN_X)).numpy()]
    paddle.jit.save(net, str(work / "ours" / "spectral_norm" / "model"),
                    input_spec=[InputSpec([None, 6], "float32", "x")])

    class Binomial(paddle.nn.Layer):
        def forward(self, count, prob):
            return paddle.binomial(count, prob)
    layer = Binomial()
    ours["binomial"] = [paddle.binomial(paddle.to_tensor(COUNT), paddle.to_tensor(PROB)).numpy()]
    paddle.jit.save(paddle.jit.to_static(layer), str(work / "ours" / "binomial" / "model"),
                    input_spec=[InputSpec([None], "int64", "count"), InputSpec([None], "float32", "prob")])

    class PadAllDims(paddle.nn.Layer):
        def forward(self, x, p):
            return paddle.nn.functional.pad(x, p, value=0.5) * 2.0
    pad = PadAllDims()
    ours["pad"] = [pad(paddle.to_tensor(PAD_X), paddle.to_tensor(PAD_P)).numpy()]
    paddle.jit.save(paddle.jit.to_static(pad), str(work / "ours" / "pad" / "model"),
                    input_spec=[InputSpec([None, 3, 4], "float32", "x"), InputSpec([6], "int32", "p")])
    return ours


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    work = tmp_path_factory.mktemp("saved_files_misc")
    (work / "paddle").mkdir()
    ours = _save_ours(work)
    fx = np.random.default_rng(8).uniform(-1, 1, (3, 4)).astype("float32")
    fy = np.random.default_rng(9).uniform(-1, 1, (4, 2)).astype("float32")
    np.savez(work / "inputs.npz", x_vit=X_VIT, len_vit=LEN_VIT, trans2=TRANS2, sn_x=SN_X, count=COUNT, prob=PROB,
             pad_x=PAD_X, pad_p=PAD_P, fx=fx, fy=fy)
    proc = run_paddle(PADDLE_SIDE, work)
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = json.loads((work / "report.json").read_text())
    theirs = dict(np.load(work / "paddle_out.npz", allow_pickle=False))
    return work, ours, report, theirs, {"fx": fx, "fy": fy}


def _theirs(theirs, key):
    return [theirs[k] for k in sorted((k for k in theirs if k.rsplit(".", 1)[0] == key),
                                      key=lambda k: int(k.rsplit(".", 1)[1]))]


def test_paddle_runs_our_spectral_norm_layer(runs):
    _, ours, report, theirs, _ = runs
    assert report["spectral_norm"] == "ok", report["spectral_norm"]
    for loader in ("jit", "predictor", "static"):
        assert_outputs_match(_theirs(theirs, f"spectral_norm.{loader}"), ours["spectral_norm"],
                             f"SpectralNorm layer via Paddle's {loader}", rtol=1e-5, atol=1e-6)


def test_paddle_runs_our_binomial_with_count_in_prob_dtype(runs):
    _, ours, report, theirs, _ = runs
    assert report["binomial"] == "ok", report["binomial"]
    assert theirs["binomial.count_dtype.0"] == theirs["binomial.prob_dtype.0"] == "paddle.float32"
    np.testing.assert_array_equal(ours["binomial"][0], COUNT * (PROB == 1))
    for loader in ("jit", "predictor", "static"):
        got = _theirs(theirs, f"binomial.{loader}")
        assert got[0].dtype == np.int64
        np.testing.assert_array_equal(got[0], COUNT * (PROB == 1), err_msg=f"binomial via Paddle's {loader}")


def test_paddle_runs_our_constant_pad_by_tensor(runs):
    _, ours, report, theirs, _ = runs
    assert report["pad"] == "ok", report["pad"]
    want = np.pad(PAD_X, [[1, 0], [0, 2], [1, 1]], constant_values=0.5) * 2.0
    np.testing.assert_array_equal(ours["pad"][0], want)
    for loader in ("jit", "predictor", "static"):
        assert_outputs_match(_theirs(theirs, f"pad.{loader}"), [want], f"tensor pad via Paddle's {loader}")


@pytest.mark.parametrize("name", ["viterbi_held", "viterbi_fed"])
def test_paddle_viterbi_file_with_dynamic_dims_runs_here(runs, name):
    import dy2st as paddle
    work, _, report, theirs, _ = runs
    assert report["viterbi"] == "ok", report["viterbi"]
    layer = paddle.jit.load(str(work / "paddle" / name / "model"))
    for b in (3, 2):
        args = [X_VIT[:b]] + ([TRANS2] if name == "viterbi_fed" else []) + [LEN_VIT[:b]]
        got = [o.numpy() for o in layer(*[paddle.to_tensor(a) for a in args])]
        want = _theirs(theirs, f"{name}.{b}")
        assert [g.dtype for g in got] == [w.dtype for w in want], f"{name} batch {b}"
        assert_outputs_match(got, want, f"{name} batch {b}")


@pytest.mark.parametrize("name, feed_names, fetch", [("free_vars", ("X", "Y"), "Out"), ("data_vars", ("d",), None)])
def test_program_bytes_without_feed_ops_parse_and_run(runs, name, feed_names, fetch):
    import dy2st as paddle
    work, _, report, theirs, arrays = runs
    assert report["free_inputs"] == "ok", report["free_inputs"]
    prog = paddle.static.Program.parse_from_string((work / "paddle" / f"{name}.bin").read_bytes())
    fetch = fetch or json.loads((work / "paddle" / "data_vars.json").read_text())[0]
    feed = dict(zip(feed_names, (arrays["fx"], arrays["fy"])))
    paddle.enable_static()
    try:
        got = paddle.static.Executor().run(prog, feed=feed, fetch_list=[fetch])
    finally:
        paddle.disable_static()
    assert_outputs_match(got, _theirs(theirs, name), f"{name} program")
