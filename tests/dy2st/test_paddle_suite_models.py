"""APIs Paddle's own dy2st MODEL tests use (issue 14: test_sentiment, test_seq2seq, test_resnet, test_bert,
test_save_inference_model ...), compared with real Paddle in one subprocess.

``paddle.base.io.DataLoader.from_generator`` (the legacy generator-fed loader),
``paddle.tensor.math._add/_subtract/_multiply/_divide_with_axis``, ``paddle.base.core.AnalysisConfig`` /
``create_paddle_predictor`` (the legacy ZeroCopy predictor, on a model real Paddle also runs),
``paddle.jit.dy2static.partial_program.partial_program_from`` (and its pir twin),
``paddle.jit.pir_translated_layer.PIR_INFER_MODEL_SUFFIX``, ``jit.save``'s ``output_spec`` rule (Paddle 3.3.1's
default, PIR, one) and ``paddle._legacy_C_ops``. Paddle runs with its default flags (PIR), in one subprocess.
"""
import json
import textwrap
import warnings

import numpy as np
import pytest

import dy2st as paddle
from tests.interop.paddle_runner import run_paddle

# (x shape, y shape, axis) for the _X_with_axis helpers
AXIS_CASES = [((2, 3, 4), (3,), 1), ((2, 3, 4), (2, 3), 0), ((4, 3, 2), (4,), 0), ((2, 3), (2, 3), 0),
              ((2, 3, 4), (4,), -1)]
AXIS_OPS = ["add", "subtract", "multiply", "divide"]


def _axis_inputs(xs, ys, k):
    rng = np.random.RandomState(k)
    return rng.uniform(0.5, 2.0, xs).astype("float32"), rng.uniform(0.5, 2.0, ys).astype("float32")


def _samples():
    for i in range(5):
        yield [([i, i + 1, i + 2], [i % 2], float(i)), ([7, 8, 9], [1], 0.5)]


PADDLE_CODE = '''
import paddle.base.core as core
from paddle import base
out = {}

# _X_with_axis
out["axis"] = []
for k, (xs, ys, axis) in enumerate(AXIS_CASES):
    rng = np.random.RandomState(k)
    x = rng.uniform(0.5, 2.0, xs).astype("float32")
    y = rng.uniform(0.5, 2.0, ys).astype("float32")
    row = {}
    for op in AXIS_OPS:
        fn = getattr(paddle.tensor.math, "_%s_with_axis" % op)
        r = fn(paddle.to_tensor(x), paddle.to_tensor(y), axis=axis)
        row[op] = [r.numpy().tolist(), str(r.dtype), list(r.shape)]
    tx = paddle.to_tensor(x, stop_gradient=False)
    ty = paddle.to_tensor(y, stop_gradient=False)
    paddle.tensor.math._multiply_with_axis(tx, ty, axis=axis).sum().backward()
    row["grads"] = [tx.grad.numpy().tolist(), ty.grad.numpy().tolist()]
    out["axis"].append(row)
try:
    paddle.tensor.math._elementwise_op_with_axis(paddle.ones([2]), paddle.ones([2]), op_type="pow")
    out["axis_bad_op"] = "no error"
except Exception as e:
    out["axis_bad_op"] = type(e).__name__

# DataLoader.from_generator in dynamic mode
def samples():
    for i in range(5):
        yield [([i, i + 1, i + 2], [i % 2], float(i)), ([7, 8, 9], [1], 0.5)]
def describe(loader):
    return [[[t.numpy().tolist(), str(t.dtype), list(t.shape), t.stop_gradient] for t in batch]
            for batch in loader()]
ld = base.io.DataLoader.from_generator(capacity=4)
ld.set_sample_list_generator(samples)
out["list_gen"] = describe(ld)
out["list_gen_again"] = describe(ld)
def flat():
    for b in samples():
        for s in b:
            yield s
ld = base.io.DataLoader.from_generator(capacity=4, return_list=True)
ld.set_sample_generator(flat, batch_size=3, drop_last=True)
out["sample_gen"] = describe(ld)
ld = base.io.DataLoader.from_generator(capacity=4, return_list=True)
ld.set_sample_generator(flat, batch_size=3, drop_last=False)
out["sample_gen_keep"] = describe(ld)
def batches():
    for i in range(3):
        yield np.full([2, 3], i, "float32"), np.arange(2, dtype="int64").reshape(2, 1) + i
ld = base.io.DataLoader.from_generator(capacity=2, return_list=True)
ld.set_batch_generator(batches)
out["batch_gen"] = describe(ld)
try:
    base.io.DataLoader.from_generator()
    out["no_capacity"] = "no error"
except Exception as e:
    out["no_capacity"] = type(e).__name__
try:
    base.io.DataLoader.from_generator(capacity=2).set_sample_generator(flat, batch_size=0)
    out["bad_batch"] = "no error"
except Exception as e:
    out["bad_batch"] = type(e).__name__

# the legacy predictor on the model our test saved (legacy .pdmodel)
cfg = core.AnalysisConfig("model/fc.pdmodel", "model/fc.pdiparams")
cfg.disable_gpu()
cfg.switch_use_feed_fetch_ops(False)
cfg.switch_specify_input_names(True)
pred = core.create_paddle_predictor(cfg)
x = np.load("model/x.npy")
t = pred.get_input_tensor(pred.get_input_names()[0])
t.copy_from_cpu(x)
pred.zero_copy_run()
out["predictor"] = [pred.get_output_tensor(n).copy_to_cpu().tolist() for n in pred.get_output_names()]

from paddle.jit.pir_translated_layer import PIR_INFER_MODEL_SUFFIX
out["pir_suffix"] = PIR_INFER_MODEL_SUFFIX
from paddle import _legacy_C_ops
try:
    _legacy_C_ops.linear_chain_crf
    out["legacy_missing"] = "no error"
except Exception as e:
    out["legacy_missing"] = type(e).__name__

# jit.save's output_spec (Paddle 3.3.1's default, PIR, rule)
import warnings
from spec_model import TwoOut
paddle.seed(1)
m = paddle.jit.to_static(TwoOut())
x = paddle.to_tensor(np.load("model/x.npy"))
first, second = m(x)
spec = [paddle.static.InputSpec([None, 4], "float32", "x")]
out["output_spec"] = {}
for name, os_ in [("eq_ints", [1, 0]), ("sub_int", [1]), ("eq_tensor", [second, first]), ("sub_tensor", [second]),
                  ("bad_int", [5])]:
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            paddle.jit.save(m, "spec/" + name, input_spec=spec, output_spec=os_)
            got = paddle.jit.load("spec/" + name)(x)
            got = got if isinstance(got, (list, tuple)) else [got]
            warned = any("is not support in pir mode" in str(i.message) for i in w)
            out["output_spec"][name] = ["ok", [o.numpy().tolist() for o in got], warned]
        except Exception as e:
            out["output_spec"][name] = [type(e).__name__]
print(json.dumps(out))
'''


SPEC_MODEL = textwrap.dedent('''
    import paddle


    class TwoOut(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(4, 4)

        def forward(self, x):
            y = self.fc(x)
            return paddle.mean(y), y
''')


class _Fc(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)

    def forward(self, x):
        return paddle.nn.functional.softmax(self.fc(x))


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("suite_models")
    paddle.seed(7)
    layer = _Fc()
    layer.eval()
    x = np.random.RandomState(3).uniform(-1, 1, (2, 4)).astype("float32")
    (tmp / "model").mkdir()
    np.save(tmp / "model" / "x.npy", x)
    paddle.jit.save(layer, str(tmp / "model" / "fc"),
                    input_spec=[paddle.static.InputSpec([None, 4], "float32", "x")])
    return tmp, layer(paddle.to_tensor(x)).numpy(), x


@pytest.fixture(scope="module")
def paddle_results(saved_model):
    tmp = saved_model[0]
    code = "import json\nimport numpy as np\n" + f"AXIS_CASES = {AXIS_CASES!r}\nAXIS_OPS = {AXIS_OPS!r}\n" + \
        textwrap.dedent(PADDLE_CODE)
    (tmp / "spec_model.py").write_text(SPEC_MODEL)
    proc = run_paddle(code, tmp, default_flags=True)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_with_axis_helpers_match_paddle(paddle_results):
    for k, ((xs, ys, axis), want) in enumerate(zip(AXIS_CASES, paddle_results["axis"])):
        x, y = _axis_inputs(xs, ys, k)
        for op in AXIS_OPS:
            fn = getattr(paddle.tensor.math, f"_{op}_with_axis")
            r = fn(paddle.to_tensor(x), paddle.to_tensor(y), axis=axis)
            np.testing.assert_allclose(r.numpy(), np.array(want[op][0], "float32"), rtol=1e-6, err_msg=f"{op} {k}")
            assert [str(r.dtype), list(r.shape)] == want[op][1:]
        tx = paddle.to_tensor(x, stop_gradient=False)
        ty = paddle.to_tensor(y, stop_gradient=False)
        paddle.tensor.math._multiply_with_axis(tx, ty, axis=axis).sum().backward()
        np.testing.assert_allclose(tx.grad.numpy(), np.array(want["grads"][0], "float32"), rtol=1e-6)
        np.testing.assert_allclose(ty.grad.numpy(), np.array(want["grads"][1], "float32"), rtol=1e-6)


def test_with_axis_bad_op_type_matches_paddle(paddle_results):
    with pytest.raises(AssertionError) as e:
        paddle.tensor.math._elementwise_op_with_axis(paddle.ones([2]), paddle.ones([2]), op_type="pow")
    assert type(e.value).__name__ == paddle_results["axis_bad_op"]


def test_with_axis_in_to_static_matches_eager():
    def f(x, y):
        return paddle.tensor.math._multiply_with_axis(x, y, axis=0) - paddle.tensor.math._add_with_axis(x, y, axis=0)
    x, y = _axis_inputs((4, 3, 2), (4,), 0)
    eager = f(paddle.to_tensor(x), paddle.to_tensor(y)).numpy()
    static = paddle.jit.to_static(f, full_graph=True)(paddle.to_tensor(x), paddle.to_tensor(y)).numpy()
    np.testing.assert_allclose(static, eager, rtol=1e-6)


def _describe(loader):
    return [[[t.numpy().tolist(), str(t.dtype), list(t.shape), t.stop_gradient] for t in batch] for batch in loader()]


def _flat():
    for b in _samples():
        yield from b


def _batches():
    for i in range(3):
        yield np.full([2, 3], i, "float32"), np.arange(2, dtype="int64").reshape(2, 1) + i


def test_from_generator_dynamic_matches_paddle(paddle_results):
    from dy2st import base
    with pytest.warns(UserWarning, match="returning as list only"):
        ld = base.io.DataLoader.from_generator(capacity=4)
    ld.set_sample_list_generator(_samples)
    assert _describe(ld) == paddle_results["list_gen"]
    assert _describe(ld) == paddle_results["list_gen_again"]     # a new pass each time it is iterated
    ld = base.io.DataLoader.from_generator(capacity=4, return_list=True)
    ld.set_sample_generator(_flat, batch_size=3, drop_last=True)
    assert _describe(ld) == paddle_results["sample_gen"]
    ld = base.io.DataLoader.from_generator(capacity=4, return_list=True)
    ld.set_sample_generator(_flat, batch_size=3, drop_last=False)
    assert _describe(ld) == paddle_results["sample_gen_keep"]
    ld = base.io.DataLoader.from_generator(capacity=2, return_list=True)
    ld.set_batch_generator(_batches)
    assert _describe(ld) == paddle_results["batch_gen"]
    with pytest.raises(ValueError, match="capacity"):
        base.io.DataLoader.from_generator()
    with pytest.raises(AssertionError, match="larger than 0"):
        base.io.DataLoader.from_generator(capacity=2, return_list=True).set_sample_generator(_flat, batch_size=0)
    assert paddle_results["bad_batch"] == "AssertionError"
    assert paddle_results["no_capacity"] == "ValueError"


def test_from_generator_static_feeds_executor():
    from dy2st import base
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 3], "float32")
            lab = paddle.static.data("lab", [None, 1], "int64")
            y = paddle.sum(x, axis=1) + paddle.cast(lab, "float32").reshape([-1])
        ld = base.io.DataLoader.from_generator(feed_list=[x, lab], capacity=2)
        with pytest.raises(AssertionError, match="Places cannot be None"):
            ld.set_batch_generator(_batches)
        ld.set_batch_generator(_batches, places=paddle.CPUPlace())
        assert [type(t).__name__ for t in next(iter(ld()))[0].values()] == ["Tensor", "Tensor"]
        exe = paddle.static.Executor(paddle.CPUPlace())
        got = [exe.run(main, feed=feed[0], fetch_list=[y])[0].tolist() for feed in ld()]
        with pytest.raises(NotImplementedError, match="iterable=True"):
            base.io.DataLoader.from_generator(feed_list=[x], capacity=2, iterable=False)
        with pytest.raises(Exception, match="Feed list must be given"):
            base.io.DataLoader.from_generator(capacity=2)
    finally:
        paddle.disable_static()
    assert got == [[3.0 * i + i, 3.0 * i + i + 1] for i in range(3)]


def test_legacy_predictor_matches_paddle(saved_model, paddle_results):
    import dy2st.base.core as core
    tmp, want, x = saved_model
    cfg = core.AnalysisConfig(str(tmp / "model" / "fc.pdmodel"), str(tmp / "model" / "fc.pdiparams"))
    cfg.disable_gpu()
    pred = core.create_paddle_predictor(cfg)
    t = pred.get_input_tensor(pred.get_input_names()[0])
    t.copy_from_cpu(x)
    assert pred.zero_copy_run() is True
    outs = [pred.get_output_tensor(n).copy_to_cpu() for n in pred.get_output_names()]
    np.testing.assert_allclose(outs[0], want, rtol=1e-6)
    np.testing.assert_allclose(outs[0], np.array(paddle_results["predictor"][0], "float32"), rtol=1e-5)
    with pytest.raises(TypeError, match="AnalysisConfig"):
        core.create_paddle_predictor("model")


def test_partial_program_from_checks_parameters():
    from dy2st.jit.dy2static.partial_program import partial_program_from
    from dy2st.jit.dy2static.pir_partial_program import partial_program_from as pir_from
    net = paddle.jit.to_static(_Fc())
    x = paddle.to_tensor(np.ones([2, 4], "float32"))
    want = net(x).numpy()
    _, (cp, _) = net.forward.program_cache.last()
    runner = partial_program_from(cp)
    np.testing.assert_allclose(runner([x])[0].numpy(), want, rtol=1e-6)
    params = cp.parameters
    cp.parameters = params[0]
    with pytest.raises(TypeError, match="should be list or tuple"):
        pir_from(cp)
    cp.parameters = ["linear.w.0"] + list(params[1:])
    with pytest.raises(TypeError, match=r"self._params\[0\]"):
        partial_program_from(cp)
    cp.parameters = params


def test_pir_suffix_matches_paddle(paddle_results):
    from dy2st.jit.pir_translated_layer import PIR_INFER_MODEL_SUFFIX, PirTranslatedLayer
    assert PIR_INFER_MODEL_SUFFIX == paddle_results["pir_suffix"]
    assert paddle.jit.pir_translated_layer.PIR_INFER_MODEL_SUFFIX == PIR_INFER_MODEL_SUFFIX
    assert PirTranslatedLayer is paddle.jit.TranslatedLayer


class _TwoOut(paddle.nn.Layer):     # SPEC_MODEL's TwoOut, for dy2st
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        return paddle.mean(y), y


def test_jit_save_output_spec_matches_paddle(saved_model, paddle_results, tmp_path):
    """jit.save's output_spec: as many entries as outputs saves all of them (unknown ones only warn, positions
    are a TypeError); fewer pick by position or by the output itself; anything else is a ValueError."""
    tmp = saved_model[0]
    paddle.seed(1)
    m = paddle.jit.to_static(_TwoOut())
    x = paddle.to_tensor(np.load(tmp / "model" / "x.npy"))
    first, second = m(x)
    spec = [paddle.static.InputSpec([None, 4], "float32", "x")]
    want = paddle_results["output_spec"]
    for name, os_ in [("eq_ints", [1, 0]), ("sub_int", [1]), ("eq_tensor", [second, first]),
                      ("sub_tensor", [second]), ("bad_int", [5])]:
        exp = want[name]
        if exp[0] != "ok":
            with pytest.raises(Exception) as e:
                paddle.jit.save(m, str(tmp_path / name), input_spec=spec, output_spec=os_)
            assert type(e.value).__name__ == exp[0], name
            continue
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            paddle.jit.save(m, str(tmp_path / name), input_spec=spec, output_spec=os_)
        assert any("is not support in pir mode" in str(i.message) for i in w) == exp[2], name
        got = paddle.jit.load(str(tmp_path / name))(x)
        got = got if isinstance(got, (list, tuple)) else [got]
        assert [list(np.shape(g.numpy())) for g in got] == [list(np.shape(v)) for v in exp[1]], name
        # same layer, same input: the saved outputs are the eager call's, in the model's order
        eager = {"eq_tensor": [first, second], "sub_int": [second]}[name]
        for g, e in zip(got, eager):
            np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-6)


def test_legacy_c_ops_module_imports_and_refuses_ops(paddle_results):
    from dy2st import _legacy_C_ops
    with pytest.raises(AttributeError, match="public API") as e:
        _legacy_C_ops.linear_chain_crf
    assert type(e.value).__name__ == paddle_results["legacy_missing"]
