"""PIR ``.json`` op coverage over Paddle's layer set, both ways, against real PaddlePaddle 3.3.1.

Every case below is one layer (or a small functional composition) that both packages build from
the same source (``CASES`` runs with ``P`` = paddle there and dy2st here).

* Paddle -> dy2st: real Paddle with its default flags converts each case with ``to_static`` and
  ``jit.save`` (PIR: ``case.json`` + ``case.pdiparams``) and records its own outputs; dy2st's
  ``jit.load`` must reproduce them. A case whose program holds a PIR op we do not map fails with the
  op's name (that is the point of the sweep: it finds the ops).
* dy2st -> Paddle: dy2st saves the same cases with ``legacy_format=False``; real Paddle's
  ``jit.load`` (default flags) must reproduce our eager outputs.

All Paddle work happens in one subprocess per direction."""
import json
import os
import subprocess
import textwrap

import numpy as np
import pytest

from . import paddle_runner

# name -> (factory source taking P, [(shape, dtype)], input kind). Shapes are what we feed; the
# saved InputSpec makes dim 0 dynamic (None) wherever the layer allows it.
CASES = textwrap.dedent('''
    import numpy as np

    def cases(P):
        nn, F = P.nn, P.nn.functional

        class Fn1(nn.Layer):             # to_static wants named parameters, not *args
            def __init__(self, fn):
                super().__init__()
                self.fn = fn

            def forward(self, x):
                return self.fn(None, x)

        class Fn2(Fn1):
            def forward(self, x, y):
                return self.fn(None, x, y)

        def Fn(fn):
            return (Fn2 if fn.__code__.co_argcount == 3 else Fn1)(fn)

        f32 = "float32"
        img = ([2, 3, 8, 8], f32)
        seq = ([2, 5, 8], f32)
        vec = ([4, 6], f32)
        return {
            "linear": (lambda: nn.Linear(6, 3), [vec]),
            "conv1d": (lambda: nn.Conv1D(3, 4, 3, padding=1), [([2, 3, 9], f32)]),
            "conv2d_stride_groups": (lambda: nn.Conv2D(3, 6, 3, stride=2, padding=1, groups=3), [img]),
            "conv2d_dilation": (lambda: nn.Conv2D(3, 4, 3, dilation=2, padding="SAME"), [img]),
            "conv3d": (lambda: nn.Conv3D(2, 3, 3, padding=1), [([1, 2, 4, 5, 5], f32)]),
            "conv3d_transpose": (lambda: nn.Conv3DTranspose(2, 3, 3, stride=2), [([1, 2, 3, 4, 4], f32)]),
            "avg_pool3d": (lambda: nn.AvgPool3D(2, 2), [([1, 2, 4, 6, 6], f32)]),
            "max_pool3d": (lambda: nn.MaxPool3D(3, 2, padding=1), [([1, 2, 4, 6, 6], f32)]),
            "adaptive_max_pool3d": (lambda: nn.AdaptiveMaxPool3D(2), [([1, 2, 4, 6, 6], f32)]),
            "conv2d_transpose": (lambda: nn.Conv2DTranspose(3, 2, 3, stride=2, padding=1, output_padding=1), [img]),
            "conv1d_transpose": (lambda: nn.Conv1DTranspose(3, 2, 3, stride=2), [([2, 3, 7], f32)]),
            "depthwise_conv": (lambda: nn.Conv2D(4, 4, 3, groups=4, padding=1), [([2, 4, 6, 6], f32)]),
            "batch_norm2d": (lambda: nn.BatchNorm2D(3), [img]),
            "batch_norm1d": (lambda: nn.BatchNorm1D(6), [vec]),
            "layer_norm": (lambda: nn.LayerNorm(8), [seq]),
            "group_norm": (lambda: nn.GroupNorm(2, 4), [([2, 4, 5, 5], f32)]),
            "instance_norm": (lambda: nn.InstanceNorm2D(3), [img]),
            "local_response_norm": (lambda: nn.LocalResponseNorm(3), [img]),
            "max_pool2d": (lambda: nn.MaxPool2D(2, 2), [img]),
            "max_pool2d_ceil": (lambda: nn.MaxPool2D(3, 2, ceil_mode=True), [img]),
            "avg_pool2d": (lambda: nn.AvgPool2D(3, 2, padding=1, exclusive=False), [img]),
            "max_pool1d": (lambda: nn.MaxPool1D(2), [([2, 3, 8], f32)]),
            "avg_pool1d": (lambda: nn.AvgPool1D(2), [([2, 3, 8], f32)]),
            "adaptive_avg_pool2d": (lambda: nn.AdaptiveAvgPool2D(3), [img]),
            "adaptive_max_pool2d": (lambda: nn.AdaptiveMaxPool2D(2), [img]),
            "adaptive_avg_pool1d": (lambda: nn.AdaptiveAvgPool1D(4), [([2, 3, 8], f32)]),
            "embedding": (lambda: nn.Embedding(10, 4, padding_idx=0), [([3, 5], "int64")]),
            "flatten": (lambda: nn.Flatten(), [img]),
            "upsample_nearest": (lambda: nn.Upsample(scale_factor=2, mode="nearest"), [img]),
            "upsample_bilinear": (lambda: nn.Upsample(size=[5, 7], mode="bilinear", align_corners=True), [img]),
            "pixel_shuffle": (lambda: nn.PixelShuffle(2), [([1, 8, 3, 3], f32)]),
            "pixel_unshuffle": (lambda: nn.PixelUnshuffle(2), [([1, 2, 4, 4], f32)]),
            "channel_shuffle": (lambda: nn.ChannelShuffle(2), [([1, 4, 3, 3], f32)]),
            "unfold": (lambda: nn.Unfold([2, 2], strides=1), [([1, 2, 4, 4], f32)]),
            "fold": (lambda: nn.Fold([4, 4], [2, 2]), [([1, 8, 9], f32)]),
            "bilinear": (lambda: nn.Bilinear(6, 6, 3), [vec, vec]),
            "upsample_bicubic": (lambda: nn.Upsample(scale_factor=2, mode="bicubic"), [img]),
            "upsample_trilinear": (lambda: nn.Upsample(scale_factor=2, mode="trilinear"), [([1, 2, 3, 4, 4], f32)]),
            "upsample_linear": (lambda: nn.Upsample(size=[7], mode="linear", data_format="NCW"), [([1, 2, 5], f32)]),
            "rrelu_eval": (lambda: nn.RReLU(), [vec]),
            "lp_pool2d": (lambda: nn.LPPool2D(2, 2), [img]),
            "grid_sample": (lambda: Fn(lambda _, a: F.grid_sample(a, P.tanh(a[:, :2].transpose([0, 2, 3, 1])),
                                                                 align_corners=False)), [img]),
            "pad2d": (lambda: nn.Pad2D([1, 2, 0, 1], mode="reflect"), [img]),
            "zero_pad2d": (lambda: nn.ZeroPad2D(1), [img]),
            "dropout_eval": (lambda: nn.Dropout(0.5), [vec]),
            "relu": (lambda: nn.ReLU(), [vec]), "relu6": (lambda: nn.ReLU6(), [vec]),
            "gelu": (lambda: nn.GELU(), [vec]), "gelu_tanh": (lambda: nn.GELU(approximate=True), [vec]),
            "sigmoid": (lambda: nn.Sigmoid(), [vec]), "tanh": (lambda: nn.Tanh(), [vec]),
            "softmax": (lambda: nn.Softmax(axis=-1), [vec]), "log_softmax": (lambda: nn.LogSoftmax(), [vec]),
            "leaky_relu": (lambda: nn.LeakyReLU(0.1), [vec]), "elu": (lambda: nn.ELU(0.5), [vec]),
            "selu": (lambda: nn.SELU(), [vec]), "celu": (lambda: nn.CELU(), [vec]),
            "silu": (lambda: nn.Silu(), [vec]), "swish": (lambda: nn.Swish(), [vec]),
            "hardswish": (lambda: nn.Hardswish(), [vec]), "hardsigmoid": (lambda: nn.Hardsigmoid(), [vec]),
            "hardtanh": (lambda: nn.Hardtanh(), [vec]), "hardshrink": (lambda: nn.Hardshrink(), [vec]),
            "softshrink": (lambda: nn.Softshrink(), [vec]), "tanhshrink": (lambda: nn.Tanhshrink(), [vec]),
            "mish": (lambda: nn.Mish(), [vec]), "softplus": (lambda: nn.Softplus(), [vec]),
            "softsign": (lambda: nn.Softsign(), [vec]), "log_sigmoid": (lambda: nn.LogSigmoid(), [vec]),
            "thresholded_relu": (lambda: nn.ThresholdedReLU(0.2), [vec]),
            "prelu": (lambda: nn.PReLU(3), [img]),
            "maxout": (lambda: nn.Maxout(2), [([2, 4, 3, 3], f32)]),
            "lstm": (lambda: nn.LSTM(8, 6), [seq]),
            "gru_bidirect": (lambda: nn.GRU(8, 4, direction="bidirect"), [seq]),
            "simple_rnn_2layers": (lambda: nn.SimpleRNN(8, 5, num_layers=2), [seq]),
            "multi_head_attention": (lambda: nn.MultiHeadAttention(8, 2), [seq]),
            "transformer_encoder": (lambda: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), [seq]),
            "transformer_decoder": (lambda: nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), [seq, seq]),
            "cosine_similarity": (lambda: Fn(lambda _, a, b: F.cosine_similarity(a, b, axis=1)), [vec, vec]),
            "math_mix": (lambda: Fn(lambda _, a: P.exp(a).sum(axis=1) + P.log(P.abs(a) + 1).mean()
                                    - P.sqrt(a * a).max(axis=1) + P.pow(a, 2).min(axis=1)), [vec]),
            "manipulation": (lambda: Fn(lambda _, a: P.concat([P.transpose(a, [1, 0]).reshape([-1, 2]),
                                                               P.flip(a, [0]).reshape([-1, 2])], axis=0)), [vec]),
            "split_stack": (lambda: Fn(lambda _, a: P.stack(P.split(a, 3, axis=1), axis=0).sum(0)), [vec]),
            "cumsum_argmax": (lambda: Fn(lambda _, a: (P.cumsum(a, axis=1),
                                                     P.argmax(a, axis=1), P.topk(a, 2)[0])), [vec]),
            "where_clip": (lambda: Fn(lambda _, a: P.where(a > 0, P.clip(a, -0.5, 0.5), a * 0.1)), [vec]),
            "gather_index": (lambda: Fn(lambda _, a: P.gather(a, P.to_tensor([2, 0]), axis=1)
                                        + P.index_select(a, P.to_tensor([1, 1]), axis=1)), [vec]),
            "slice_unsqueeze": (lambda: Fn(lambda _, a: P.unsqueeze(a[:, 1:4], 1).squeeze(1) * 2), [vec]),
            "matmul_bmm": (lambda: Fn(lambda _, a, b: P.bmm(a, b.transpose([0, 2, 1]))), [seq, seq]),
            "expand_tile": (lambda: Fn(lambda _, a: P.tile(a[:, :1], [1, 3]) + a[:, :1].expand([4, 3])), [vec]),
            "compare_logic": (lambda: Fn(lambda _, a: P.logical_and(a > 0, a < 0.5).astype("float32")
                                         + P.logical_not(a >= 0.2).astype("float32")), [vec]),
            "norms": (lambda: Fn(lambda _, a: F.normalize(a, axis=1) + P.linalg.norm(a, axis=1, keepdim=True)),
                      [vec]),
            "losses": (lambda: Fn(lambda _, a, b: F.mse_loss(a, b) + F.l1_loss(a, b)
                                  + F.smooth_l1_loss(a, b)), [vec, vec]),
            "cross_entropy": (lambda: Fn(lambda _, a: F.cross_entropy(a, P.argmax(a, axis=1, keepdim=True))),
                              [vec]),
        }
''')

# input values: floats in [-1, 1), int64 indices in [0, 10)
MAKE_INPUTS = textwrap.dedent('''
    def make_inputs(name, specs):
        rng = np.random.default_rng(sum(map(ord, name)))
        out = []
        for shape, dtype in specs:
            if dtype == "int64":
                out.append(rng.integers(0, 10, shape).astype("int64"))
            else:
                out.append(rng.uniform(-1, 1, shape).astype(dtype))
        return out

    def as_list(o):
        """The tensors of a (nested) list/tuple output, in order: an LSTM returns (out, (h, c))."""
        if isinstance(o, (list, tuple)):
            return [t for item in o for t in as_list(item)]
        return [o]
''')

PADDLE_SAVES = textwrap.dedent('''
    import json, sys, traceback
    import paddle
    from paddle.static import InputSpec
    assert paddle.get_flags("FLAGS_enable_pir_api")["FLAGS_enable_pir_api"]
    out_dir = sys.argv[1]
    report = {}
    for name, (make, specs) in cases(paddle).items():
        try:
            paddle.seed(7)
            layer = make()
            layer.eval()
            ins = make_inputs(name, specs)
            want = [o.numpy() for o in as_list(layer(*[paddle.to_tensor(a) for a in ins]))]
            spec = [InputSpec([None] + list(s[1:]), d, f"x{k}") for k, (s, d) in enumerate(specs)]
            paddle.jit.save(paddle.jit.to_static(layer, input_spec=spec, full_graph=True), f"{out_dir}/{name}")
            np.savez(f"{out_dir}/{name}.want.npz", *want)
            report[name] = "ok"
        except Exception:
            report[name] = traceback.format_exc()[-1500:]
    json.dump(report, open(f"{out_dir}/report.json", "w"))
''')

PADDLE_LOADS = textwrap.dedent('''
    import json, sys, traceback
    import paddle
    assert paddle.get_flags("FLAGS_enable_pir_api")["FLAGS_enable_pir_api"]
    out_dir = sys.argv[1]
    report = {}
    for name, (make, specs) in cases(paddle).items():
        try:
            layer = paddle.jit.load(f"{out_dir}/{name}")
            layer.eval()
            got = [o.numpy() for o in as_list(layer(*[paddle.to_tensor(a) for a in make_inputs(name, specs)]))]
            np.savez(f"{out_dir}/{name}.paddle.npz", *got)
            report[name] = "ok"
        except Exception:
            report[name] = traceback.format_exc()[-1500:]
    json.dump(report, open(f"{out_dir}/report.json", "w"))
''')

# cases that real Paddle 3.3.1 itself cannot to_static + jit.save with default flags, with the reason
PADDLE_CANNOT_SAVE = {
    "fold": "paddle.nn.Fold under to_static with a None batch dim: 'The number of elements must greater or equal "
            "than zero' (Paddle 3.3.1)",
}

# Known gaps, each with what is missing. A case listed here must fail and every other case must pass:
# the test fails both ways, so the lists stay exact (remove an entry when its op lands).
KNOWN_READ_GAPS = {}
KNOWN_WRITE_GAPS = {}


def _check_gaps(failures, known, total, what):
    """``failures``: case -> message. Unknown failures and known gaps that now pass both fail the test."""
    unexpected = {k: v for k, v in failures.items() if k not in known}
    fixed = sorted(set(known) - set(failures))
    lines = [f"{k}: {v}" for k, v in sorted(unexpected.items())]
    if fixed:
        lines.append(f"now pass, remove from the known gaps: {fixed}")
    assert not lines, f"{len(unexpected)} of {total} {what}:\n" + "\n".join(lines)


def _run_paddle(script, tmp_path):
    path = tmp_path / "paddle_sweep.py"
    path.write_text(CASES + MAKE_INPUTS + script)
    env = {k: v for k, v in os.environ.items() if k != "FLAGS_enable_pir_api"}
    env["GLOG_minloglevel"] = "3"
    for py in paddle_runner.candidates():
        if subprocess.run([py, "-c", "import paddle"], capture_output=True, env=env).returncode != 0:
            continue
        proc = subprocess.run([py, str(path), str(tmp_path)], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=1200)
        assert proc.returncode == 0, proc.stderr[-4000:]
        return json.loads((tmp_path / "report.json").read_text())
    pytest.skip("real PaddlePaddle 3.3.1 is not installed here (it is in the test extra)")


def _ours(tmp_path):
    """The cases built with dy2st, from a real module file (to_static reads the forwards' source)."""
    import importlib.util
    import dy2st
    path = tmp_path / "pir_sweep_cases.py"
    path.write_text(CASES + MAKE_INPUTS)
    spec = importlib.util.spec_from_file_location("pir_sweep_cases", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    ns = vars(mod)
    return ns, ns["cases"](dy2st)


def _last_line(text):
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    return lines[-1][:300] if lines else repr(text)


def _close(got, want):
    if len(got) != len(want):
        return f"{len(got)} outputs, expected {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        if g.shape != w.shape:
            return f"output {k}: shape {g.shape}, expected {w.shape}"
        if w.dtype.kind == "f" and not np.allclose(g, w, rtol=1e-4, atol=1e-5):
            return f"output {k}: max |diff| {np.abs(g - w).max():.3g}"
        if w.dtype.kind != "f" and not np.array_equal(g, w):
            return f"output {k}: values differ"
    return None


def test_paddle_pir_files_of_every_layer_load_in_dy2st(tmp_path):
    import dy2st as paddle
    report = _run_paddle(PADDLE_SAVES, tmp_path)
    ns, cases = _ours(tmp_path)
    bad = {}
    for name, (_, specs) in cases.items():
        if report.get(name) != "ok":
            if name not in PADDLE_CANNOT_SAVE:
                bad[name] = f"real Paddle could not save it: {_last_line(report.get(name))}"
            continue
        want = list(np.load(tmp_path / f"{name}.want.npz").values())
        try:
            layer = paddle.jit.load(str(tmp_path / name))
            layer.eval()
            got = [o.numpy() for o in ns["as_list"](layer(*[paddle.to_tensor(a)
                                                             for a in ns["make_inputs"](name, specs)]))]
        except Exception as e:      # noqa: BLE001 — the sweep reports every case, not the first
            bad[name] = f"{type(e).__name__}: {str(e)[:400]}"
            continue
        problem = _close(got, want)
        if problem:
            bad[name] = problem
    _check_gaps(bad, KNOWN_READ_GAPS, len(cases), "Paddle-written PIR files")


def test_dy2st_pir_files_of_every_layer_load_in_paddle(tmp_path):
    import dy2st as paddle
    from dy2st.static import InputSpec
    ns, cases = _ours(tmp_path)
    expected, bad = {}, {}
    for name, (make, specs) in cases.items():
        try:
            paddle.seed(7)
            layer = make()
            layer.eval()
            ins = ns["make_inputs"](name, specs)
            expected[name] = [o.numpy() for o in ns["as_list"](layer(*[paddle.to_tensor(a) for a in ins]))]
            spec = [InputSpec([None] + list(s[1:]), d, f"x{k}") for k, (s, d) in enumerate(specs)]
            paddle.jit.save(paddle.jit.to_static(layer, input_spec=spec), str(tmp_path / name),
                            legacy_format=False)
        except Exception as e:      # noqa: BLE001
            bad[name] = f"dy2st could not save it: {type(e).__name__}: {str(e)[:400]}"
    report = _run_paddle(PADDLE_LOADS, tmp_path)
    for name in expected:
        if name in bad:
            continue
        if report.get(name) != "ok":
            bad[name] = f"real Paddle's jit.load failed: {_last_line(report.get(name))}"
            continue
        problem = _close(list(np.load(tmp_path / f"{name}.paddle.npz").values()), expected[name])
        if problem:
            bad[name] = problem
    _check_gaps(bad, KNOWN_WRITE_GAPS, len(cases), "dy2st-written PIR files")
