"""paddle.inference predictors on real Paddle's files (legacy .pdmodel and PIR .json) and on ours:
outputs against the stored references or numpy, the handle API, clones and threads, the graph-pass
switch, hooks, the old ``__model__`` layout, models from memory, and clear errors."""
import os
import shutil
import threading

import numpy as np
import pytest

import dy2st as paddle
from dy2st import inference
from runtime.formats.model_io import load_model
from runtime.formats.pdiparams import params_to_bytes
from runtime.static.passes import DEFAULT, PASSES

from .models import LEGACY, PIR, paddle_fixtures, save_two_heads, two_heads_inputs, two_heads_numpy

FIXTURES = paddle_fixtures()


def make(prefix, model_ext=".pdmodel"):
    params = prefix + ".pdiparams"
    if not os.path.exists(params):
        params = ""
    return inference.create_predictor(inference.Config(prefix + model_ext, params))


def feed(pred, arrays):
    for name, a in zip(pred.get_input_names(), arrays):
        h = pred.get_input_handle(name)
        h.reshape(list(a.shape))
        h.copy_from_cpu(a)


@pytest.mark.parametrize("passes", ["default", "all"])
@pytest.mark.parametrize("name,prefix,ins,outs", FIXTURES, ids=[f[0] for f in FIXTURES])
def test_paddle_files_give_paddle_outputs(name, prefix, ins, outs, passes):
    ext = ".json" if name.startswith("pir_") else ".pdmodel"
    params = prefix + ".pdiparams" if os.path.exists(prefix + ".pdiparams") else ""
    cfg = inference.Config(prefix + ext, params)
    if passes == "all":      # every graph pass, buffer reuse included
        cfg.pass_builder().set_passes(list(PASSES))
        cfg.enable_memory_optim()
        assert cfg._passes() == tuple(PASSES)
    pred = inference.create_predictor(cfg)
    assert len(pred.get_input_names()) == len(ins) and len(pred.get_output_names()) == len(outs)
    if name.startswith("pir_"):
        assert pred.get_output_names() == [f"fetch_name_{k}" for k in range(len(outs))]   # the fetch ops' names
    feed(pred, ins)
    assert pred.run() is None
    for n, want in zip(pred.get_output_names(), outs):
        h = pred.get_output_handle(n)
        got = h.copy_to_cpu()
        assert h.shape() == list(want.shape) and got.dtype == want.dtype
        assert h.type() == inference.DataType.FLOAT32 if want.dtype == np.float32 else True
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("pir", [False, True], ids=["pdmodel", "pir_json"])
def test_our_files(tmp_path, pir):
    prefix = str(tmp_path / "net")
    net = save_two_heads(prefix, pir=pir)
    pred = make(prefix, ".json" if pir else ".pdmodel")
    assert pred.get_input_names() == ["x", "y"]
    if pir:
        assert pred.get_output_names() == ["fetch_name_0", "fetch_name_1"]
    x, y = two_heads_inputs(5)
    feed(pred, [x, y])
    pred.run()
    want = two_heads_numpy(net, x, y)
    for n, w in zip(pred.get_output_names(), want):
        np.testing.assert_allclose(pred.get_output_handle(n).copy_to_cpu(), w, rtol=1e-5, atol=1e-6)
    # the list form: paddle.Tensor in, paddle.Tensor out
    got = pred.run([paddle.to_tensor(x), paddle.to_tensor(y)])
    assert all(isinstance(t, paddle.Tensor) for t in got)
    for t, w in zip(got, want):
        np.testing.assert_allclose(t.numpy(), w, rtol=1e-5, atol=1e-6)
    # Config(model_dir, prefix) and the prefix convenience name the same files
    for cfg in (inference.Config(str(tmp_path), "net"), inference.Config(prefix)):
        p2 = inference.create_predictor(cfg)
        np.testing.assert_allclose(p2.run([paddle.to_tensor(x), paddle.to_tensor(y)])[1].numpy(), want[1],
                                   rtol=1e-5, atol=1e-6)


def test_handles(tmp_path):
    prefix = str(tmp_path / "net")
    save_two_heads(prefix)
    pred = make(prefix)
    hx = pred.get_input_handle("x")
    assert hx.shape() == [0] and hx.type() == inference.DataType.FLOAT32 and hx.lod() == []
    hx.reshape([3, 4])
    assert hx.shape() == [3, 4]
    hx.reshape(7)
    assert hx.shape() == [7]
    x, y = two_heads_inputs(3)
    hx.copy_from_cpu(x)
    assert hx.shape() == [3, 4]                     # the data decides
    x[0, 0] = 100.0                                  # copy_from_cpu copied
    assert hx.copy_to_cpu()[0, 0] != 100.0
    hy = pred.get_input_handle("y")
    hy.share_external_data(paddle.to_tensor(y))
    out = pred.get_output_handle(pred.get_output_names()[0])   # taken before run: sees the result after
    assert out.shape() == [0]
    with pytest.raises(RuntimeError, match="call predictor.run"):
        out.copy_to_cpu()
    pred.run()
    assert out.shape() == [3, 3] and out.type() == inference.DataType.FLOAT32
    hx.set_lod([[0, 1, 3]])
    assert hx.lod() == [[0, 1, 3]] and hx.name() == "x"
    with pytest.raises(RuntimeError, match="is an output"):
        out.copy_from_cpu(x)
    assert pred.clear_intermediate_tensor() is None and pred.try_shrink_memory() == 0


def test_errors_are_clear(tmp_path):
    prefix = str(tmp_path / "net")
    save_two_heads(prefix)
    with pytest.raises(RuntimeError, match="model file .*nope.pdmodel does not exist"):
        inference.create_predictor(inference.Config(str(tmp_path / "nope.pdmodel"), str(tmp_path / "nope.pdiparams")))
    with pytest.raises(RuntimeError, match="does not exist"):
        inference.create_predictor(inference.Config(str(tmp_path / "nowhere")))
    # a directory without __model__: the error names the files there and the Config that reads them
    with pytest.raises(RuntimeError, match=r"__model__ does not exist; it holds net.pdmodel: use Config\("):
        inference.create_predictor(inference.Config(str(tmp_path)))
    pred = make(prefix)
    with pytest.raises(RuntimeError, match=r"no input named 'nope'; its inputs are \['x', 'y'\]"):
        pred.get_input_handle("nope")
    with pytest.raises(RuntimeError, match="no output named 'nope'"):
        pred.get_output_handle("nope")
    hx = pred.get_input_handle("x")
    with pytest.raises(TypeError, match="only support numpy ndarray"):
        hx.copy_from_cpu([[1.0, 2.0, 3.0, 4.0]])
    with pytest.raises(TypeError, match="not an inference data type"):
        hx.copy_from_cpu(np.zeros((1, 4), np.complex64))
    with pytest.raises(RuntimeError, match=r"input 'x' has no data; give it data with .*copy_from_cpu"):
        pred.run()
    x, y = two_heads_inputs(2)
    hx.copy_from_cpu(x.astype("float64"))
    assert hx.type() == inference.DataType.FLOAT64       # as Paddle: the handle takes the data's type
    pred.get_input_handle("y").copy_from_cpu(y)
    with pytest.raises(ValueError, match=r"input 'x' holds float64 data, but the model declares it float32.*astype"):
        pred.run()
    hx.copy_from_cpu(np.zeros((2, 5), np.float32))
    with pytest.raises(ValueError, match=r"input 'x' has shape \[2, 5\], but the model declares \[-1, 4\]"):
        pred.run()
    with pytest.raises(TypeError, match="list of paddle.Tensor"):
        pred.run([x, y])
    with pytest.raises(ValueError, match="takes 2 input"):
        pred.run([paddle.to_tensor(x)])
    with pytest.raises(TypeError, match="list of ints"):
        hx.reshape("ab")
    cfg = inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    inference.create_predictor(cfg)
    with pytest.raises(ValueError, match="Each config can only be used for one predictor"):
        inference.create_predictor(cfg)
    with pytest.raises(TypeError, match="expected a paddle.inference.Config"):
        inference.create_predictor(prefix)


def test_clones_share_the_model_and_run_in_threads(tmp_path):
    prefix = str(tmp_path / "net")
    net = save_two_heads(prefix)
    pred = make(prefix)
    clones = [pred] + [pred.clone() for _ in range(3)]
    assert all(c._model is pred._model for c in clones)
    results, errors = {}, []

    def work(k, p):
        try:
            x, y = two_heads_inputs(k + 1)
            for _ in range(5):
                feed(p, [x, y])
                p.run()
            results[k] = (p.get_output_handle(p.get_output_names()[1]).copy_to_cpu(), two_heads_numpy(net, x, y)[1])
        except Exception as e:   # reported below
            errors.append(e)
    threads = [threading.Thread(target=work, args=(k, p)) for k, p in enumerate(clones)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k, (got, want) in results.items():
        assert got.shape == (k + 1, 2)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    pool = inference.PredictorPool(inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"), 3)
    assert pool.retrieve(2)._model is pool.retrieve(0)._model
    with pytest.raises(IndexError):
        pool.retrieve(3)


def test_switch_ir_optim_chooses_the_passes(tmp_path, monkeypatch):
    import runtime.static.codegen as codegen
    monkeypatch.delenv("DY2ST_PASSES", raising=False)
    seen = []
    real = codegen.compile_program

    def spy(program, feed_names=(), fetch_names=(), *args, **kwargs):
        seen.append(kwargs.get("passes"))
        return real(program, feed_names, fetch_names, *args, **kwargs)
    monkeypatch.setattr(codegen, "compile_program", spy)
    prefix = str(tmp_path / "net")
    save_two_heads(prefix)
    x, y = two_heads_inputs(2)
    outs = []
    for ir in (True, False):
        cfg = inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
        cfg.switch_ir_optim(ir)
        outs.append(inference.create_predictor(cfg).run([paddle.to_tensor(x), paddle.to_tensor(y)])[1].numpy())
    assert seen == [DEFAULT, ()]
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-6)


def test_interpreter_backend_gives_the_same(tmp_path, monkeypatch):
    name, prefix, ins, outs = next(f for f in FIXTURES if f[0] == "pir_tensor_while")
    monkeypatch.setenv("DY2ST_EXECUTOR", "interpreter")
    got = make(prefix, ".json").run([paddle.to_tensor(a) for a in ins])
    np.testing.assert_allclose(got[0].numpy(), outs[0], rtol=1e-5, atol=1e-6)


def test_hooks_see_every_op(tmp_path):
    prefix = str(tmp_path / "net")
    net = save_two_heads(prefix)
    pred = make(prefix)
    seen_in, seen_out = [], []
    pred.register_input_hook(lambda op_type, var, t: seen_in.append((op_type, var)))
    pred.register_output_hook(lambda op_type, var, t: seen_out.append((op_type, var, t.shape)))
    x, y = two_heads_inputs(2)
    got = pred.run([paddle.to_tensor(x), paddle.to_tensor(y)])
    np.testing.assert_allclose(got[1].numpy(), two_heads_numpy(net, x, y)[1], rtol=1e-5, atol=1e-6)
    types = [t for t, _, _ in seen_out]
    assert "softmax" in types and "relu" in types
    assert ("matmul_v2", "x") in seen_in
    assert seen_out[-1][2] in ([2, 2], [2, 3])
    with pytest.raises(TypeError, match="callable"):
        pred.register_output_hook(3)


def test_old_model_dir_layout(tmp_path):
    src = LEGACY / "two_inputs_bn"
    x, y = np.load(src / "model.ref_in0.npy"), np.load(src / "model.ref_in1.npy")
    want = np.load(src / "model.ref_out.npy")
    combined = tmp_path / "combined"
    combined.mkdir()
    shutil.copy(src / "model.pdmodel", combined / "__model__")
    shutil.copy(src / "model.pdiparams", combined / "__params__")
    separate = tmp_path / "separate"      # one file per persistable variable, named after it
    separate.mkdir()
    shutil.copy(src / "model.pdmodel", separate / "__model__")
    for name, arr in load_model(str(src / "model")).params.items():
        (separate / name).write_bytes(params_to_bytes({name: arr}))
    for d in (combined, separate):
        pred = inference.create_predictor(inference.Config(str(d)))
        got = pred.run([paddle.to_tensor(x), paddle.to_tensor(y)])
        np.testing.assert_allclose(got[0].numpy(), want, rtol=1e-5, atol=1e-6)
    victim = sorted(p for p in os.listdir(separate) if p != "__model__")[0]
    os.remove(separate / victim)
    with pytest.raises(RuntimeError, match=f"no parameter file for the persistable variable '{victim}'"):
        inference.create_predictor(inference.Config(str(separate)))


@pytest.mark.parametrize("ext", [".pdmodel", ".json"])
def test_model_from_memory(ext):
    d = (LEGACY / "linear_relu") if ext == ".pdmodel" else (PIR / "mlp")
    prog = (d / ("model" + ext)).read_bytes()
    params = (d / "model.pdiparams").read_bytes()
    cfg = inference.Config()
    cfg.set_model_buffer(prog, len(prog), params, len(params))
    assert cfg.model_from_memory()
    pred = inference.create_predictor(cfg)
    assert pred.get_output_names() == (["relu_0.tmp_0"] if ext == ".pdmodel" else ["fetch_name_0"])
    x = np.load(d / "model.ref_in.npy") if ext == ".pdmodel" else np.load(d / "case0_in0.npy")
    want = np.load(d / "model.ref_out.npy") if ext == ".pdmodel" else np.load(d / "case0_out0.npy")
    np.testing.assert_allclose(pred.run([paddle.to_tensor(x)])[0].numpy(), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="size is given as"):
        cfg.set_model_buffer(prog, len(prog) + 1, params, len(params))


def test_pir_output_names_come_from_the_fetch_ops(tmp_path):
    src = PIR / "two_io"
    text = (src / "model.json").read_text()
    assert text.count('"fetch_name_0"') == 1 and text.count('"fetch_name_1"') == 1
    (tmp_path / "m.json").write_text(text.replace('"fetch_name_0"', '"logits"').replace('"fetch_name_1"', '"feat"'))
    shutil.copy(src / "model.pdiparams", tmp_path / "m.pdiparams")
    pred = inference.create_predictor(inference.Config(str(tmp_path / "m.json"), str(tmp_path / "m.pdiparams")))
    assert pred.get_output_names() == ["logits", "feat"]
    ins = [np.load(src / "case0_in0.npy"), np.load(src / "case0_in1.npy")]
    feed(pred, ins)
    pred.run()
    np.testing.assert_allclose(pred.get_output_handle("feat").copy_to_cpu(), np.load(src / "case0_out1.npy"),
                               rtol=1e-5, atol=1e-6)
