"""paddle.static.save_inference_model / load_inference_model: pruning to the fetches, parameter
values from the scope or eager bindings, Paddle's argument handling, and failed loads that
leave the scope untouched."""
import os

import numpy as np
import pytest

import runtime as paddle
from runtime import static
from runtime.formats import proto
from runtime.formats.errors import ModelFormatError
from runtime.static.inference_io import normalize_program


@pytest.fixture(autouse=True)
def static_mode():
    paddle.enable_static()
    scope = static.Scope()
    try:
        with static.scope_guard(scope):
            yield scope
    finally:
        paddle.disable_static()


def build_training_program():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        label = static.data("label", [None, 1], "int64")
        h = static.nn.fc(x, 8, activation="relu")
        logits = static.nn.fc(h, 3)
        unused = static.nn.cond(paddle.mean(h) > 0, lambda: h * 2.0, lambda: h)   # not needed by logits
        loss = paddle.mean(paddle.nn.functional.cross_entropy(logits, label))
        paddle.optimizer.SGD(0.1).minimize(loss)
    return main, startup, x, logits, unused


def test_save_load_run(tmp_path, static_mode):
    main, startup, x, logits, _ = build_training_program()
    exe = static.Executor()
    exe.run(startup)
    xv = np.random.default_rng(1).random((3, 4)).astype(np.float32)
    want = exe.run(main.clone(for_test=True), feed={"x": xv, "label": np.zeros((3, 1), np.int64)},
                   fetch_list=[logits])[0]
    prefix = str(tmp_path / "infer")
    static.save_inference_model(prefix, [x], [logits], exe, program=main)
    assert sorted(os.listdir(tmp_path)) == ["infer.pdiparams", "infer.pdmodel"]   # no .info, as Paddle
    pd = proto.ProgramDesc()
    pd.ParseFromString(open(prefix + ".pdmodel", "rb").read())
    types = [od.type for od in pd.blocks[0].ops]
    assert types[0] == "feed" and types[-1] == "fetch"
    assert not {"sgd", "conditional_block", "cross_entropy2", "reduce_mean"} & set(types)
    assert len(pd.blocks) == 1   # the unused cond's sub-blocks are gone
    assert "label" not in [v.name for v in pd.blocks[0].vars]

    static_mode.vars.clear()
    program, feed_names, fetch_targets = static.load_inference_model(prefix, exe)
    assert feed_names == ["x"] and [v.name for v in fetch_targets] == [logits.name]
    assert len(static_mode.vars) == 4   # two fc layers' weights and biases, in the global scope
    program.verify()
    got = exe.run(program, feed={"x": xv}, fetch_list=fetch_targets)[0]
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_normalize_program_keeps_and_renumbers_needed_sub_blocks():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [2], "float32")
        dead = static.nn.cond(paddle.sum(x) > 0, lambda: x + 1.0, lambda: x - 1.0)   # blocks 1, 2
        live = static.nn.cond(paddle.sum(x) > 5, lambda: x * 3.0, lambda: x * 0.5)   # blocks 3, 4
    p, fetch = normalize_program(main, ["x"], [live.name])
    assert fetch == [live.name]
    p.verify()
    assert p.num_blocks == 3
    subs = [op.attrs["sub_block"] for op in p.global_block().ops if op.type == "conditional_block"]
    assert subs == [1, 2] and all(p.blocks[i].parent_idx == 0 for i in (1, 2))
    assert dead.name not in p.global_block().vars
    exe = static.Executor()
    for xv, want in ((np.array([3, 4], np.float32), [9, 12]), (np.array([1, 1], np.float32), [0.5, 0.5])):
        np.testing.assert_allclose(exe.run(p, feed={"x": xv}, fetch_list=[live.name])[0], want)


def test_params_from_eager_bindings(tmp_path):
    paddle.disable_static()
    lin = paddle.nn.Linear(3, 2)
    paddle.enable_static()
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [None, 3], "float32")
        y = lin(x)
    assert main._eager_bindings
    exe = static.Executor()
    static.save_inference_model(str(tmp_path / "m"), x, y, exe, program=main)
    program, feeds, fetches = static.load_inference_model(str(tmp_path / "m"), exe)
    xv = np.ones((2, 3), np.float32)
    want = xv @ lin.weight.numpy() + lin.bias.numpy()
    np.testing.assert_allclose(exe.run(program, feed={"x": xv}, fetch_list=fetches)[0], want, rtol=1e-6)


def test_two_inputs_and_old_style_kwargs(tmp_path):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        a = static.data("a", [2], "float32")
        b = static.data("b", [2], "float32")
        out = a * 2.0 - b
    exe = static.Executor()
    static.save_inference_model(str(tmp_path / "m"), [a, b], [out], exe, program=main)
    assert (tmp_path / "m.pdiparams").read_bytes() == b""
    prog, feeds, fetches = static.load_inference_model(str(tmp_path), exe, model_filename="m",
                                                       params_filename="m")
    assert feeds == ["a", "b"]
    res = exe.run(prog, feed={"a": np.array([1, 2], np.float32), "b": np.array([1, 1], np.float32)},
                  fetch_list=fetches)[0]
    np.testing.assert_array_equal(res, [1, 3])
    # the deprecated in-memory form
    prog, feeds, _ = static.load_inference_model(None, exe, model_filename=(tmp_path / "m.pdmodel").read_bytes(),
                                                 params_filename=b"")
    assert feeds == ["a", "b"]


def test_an_input_the_program_overwrites_gets_a_copy(tmp_path):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2], "float32")
        _, y = static.nn.while_loop(lambda i, y: i < 3, lambda i, y: [i + 1, y * 2.0],
                                    [paddle.zeros([1], "int64"), x])
    assert y is x   # the loop writes the fed variable itself
    exe = static.Executor()
    static.save_inference_model(str(tmp_path / "m"), [x], [y], exe, program=main)
    prog, feeds, fetches = static.load_inference_model(str(tmp_path / "m"), exe)
    gb = prog.global_block()
    assert feeds == ["x"] and fetches[0].name != "x"
    assert gb.ops[0].type == "assign" and gb.ops[0].inputs["X"] == ["x"]
    assert all("x" not in op.output_arg_names for blk in prog.blocks for op in blk.ops)
    np.testing.assert_array_equal(exe.run(prog, feed={"x": np.array([1, 2], np.float32)}, fetch_list=fetches)[0],
                                  [8, 16])


def test_argument_errors(tmp_path):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2], "float32")
        y = x + 1.0
    exe = static.Executor()
    with pytest.raises(ValueError, match="'feed_vars' should be a Variable or a list of Variable"):
        static.save_inference_model(str(tmp_path / "m"), "x", [y], exe, program=main)
    with pytest.raises(ValueError, match="'fetch_vars' should be"):
        static.save_inference_model(str(tmp_path / "m"), [x], [], exe, program=main)
    with pytest.raises(ValueError, match="is a directory"):
        static.save_inference_model(str(tmp_path), [x], [y], exe, program=main)
    with pytest.raises(ValueError, match="unsupported keyword argument"):
        static.save_inference_model(str(tmp_path / "m"), [x], [y], exe, program=main, nonsense=1)
    with pytest.raises(ValueError, match="There is no directory named"):
        static.load_inference_model(str(tmp_path / "nodir" / "m"), exe)
    with pytest.raises(ModelFormatError, match="file not found"):
        static.load_inference_model(str(tmp_path / "m"), exe)
    with pytest.raises(ValueError, match="params_filename cannot be None"):
        static.load_inference_model(None, exe, model_filename=b"")


def test_missing_startup_run_is_reported(tmp_path):
    main, startup, x, logits, _ = build_training_program()
    with pytest.raises(RuntimeError, match="has no value in the scope; run the startup program"):
        static.save_inference_model(str(tmp_path / "m"), [x], [logits], static.Executor(), program=main)
    assert not list(tmp_path.iterdir())


def test_failed_load_leaves_the_scope_untouched(tmp_path, static_mode):
    main, startup, x, logits, _ = build_training_program()
    exe = static.Executor()
    exe.run(startup)
    prefix = str(tmp_path / "m")
    static.save_inference_model(prefix, [x], [logits], exe, program=main)
    data = open(prefix + ".pdiparams", "rb").read()
    with open(prefix + ".pdiparams", "wb") as f:
        f.write(data[:-1])
    before = {k: v.copy() for k, v in static_mode.vars.items()}
    static_mode.vars["sentinel"] = np.zeros(1)
    with pytest.raises(ModelFormatError, match="m.pdiparams: .*truncated"):
        static.load_inference_model(prefix, exe)
    assert set(static_mode.vars) == set(before) | {"sentinel"}
    for k, v in before.items():
        np.testing.assert_array_equal(static_mode.vars[k], v)


def test_loaded_model_checks_its_inputs(tmp_path):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [None, 3], "float32")
        y = x * 2.0
    exe = static.Executor()
    static.save_inference_model(str(tmp_path / "m"), [x], [y], exe, program=main)
    prog, feeds, fetches = static.load_inference_model(str(tmp_path / "m"), exe)
    with pytest.raises(ValueError, match="'x'.*float32"):
        exe.run(prog, feed={"x": np.ones((2, 3), np.float64)}, fetch_list=fetches)
    with pytest.raises(ValueError, match="'x'.*shape"):
        exe.run(prog, feed={"x": np.ones((2, 4), np.float32)}, fetch_list=fetches)
