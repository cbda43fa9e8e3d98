"""The ProgramDesc reader on programs Paddle parses but that hold no feed ops, and on Paddle's compile-time
metadata it re-infers at run time: inputs no op writes become data; a variable read before the op that
writes it, or a variable never declared, is still a ModelFormatError; viterbi_decode's outputs (declared
int64 Scores / 0-D Path by Paddle) take the kernel's meta, and so do the ops reading them."""
import pathlib

import numpy as np
import pytest

import runtime
from runtime import static
from runtime.formats import proto
from runtime.formats.errors import ModelFormatError
from runtime.formats.pdmodel import desc_to_program, program_to_desc

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "paddle-3.3.1"


def _linear_relu(drop_feed_fetch=False):
    pd = proto.ProgramDesc()
    pd.ParseFromString((FIXTURES / "linear_relu" / "model.pdmodel").read_bytes())
    if drop_feed_fetch:
        keep = [od for od in pd.blocks[0].ops if od.type not in ("feed", "fetch")]
        del pd.blocks[0].ops[:]
        pd.blocks[0].ops.extend(keep)
    return pd


def _op(pd, type_):
    return [od for od in pd.blocks[0].ops if od.type == type_][0]


def _run(program, feed, fetch):
    runtime.enable_static()
    try:
        scope = static.Scope()
        rng = np.random.default_rng(0)
        for v in program.global_block().vars.values():
            if v.persistable:
                scope[v.name] = rng.uniform(-1, 1, v.shape).astype(v.dtype.np)
        return static.Executor().run(program, feed=feed, fetch_list=[fetch], scope=scope)[0]
    finally:
        runtime.disable_static()


def test_an_input_no_op_writes_is_data():
    program, feeds, fetches = desc_to_program(_linear_relu(drop_feed_fetch=True), "m.pdmodel")
    assert feeds == [] and fetches == []
    assert program.global_block().vars["x"].is_data
    assert not program.global_block().vars["linear_0.tmp_0"].is_data
    x = np.random.default_rng(1).uniform(-1, 1, (2, 4)).astype("float32")
    with_feed_ops, _, _ = desc_to_program(_linear_relu(), "m.pdmodel")
    np.testing.assert_array_equal(_run(program, {"x": x}, "relu_0.tmp_0"), _run(with_feed_ops, {"x": x},
                                                                                  "relu_0.tmp_0"))


def test_a_variable_read_before_its_writer_is_refused():
    pd = _linear_relu(drop_feed_fetch=True)
    _op(pd, "matmul_v2").inputs[0].arguments[0] = "relu_0.tmp_0"     # written by the last op
    with pytest.raises(ModelFormatError, match="'relu_0.tmp_0' is read before any op writes it"):
        desc_to_program(pd, "m.pdmodel")
    pd = _linear_relu()
    _op(pd, "elementwise_add").inputs[0].arguments[0] = "linear_0.tmp_1"   # its own output
    with pytest.raises(ModelFormatError, match="'linear_0.tmp_1' is read before any op writes it"):
        desc_to_program(pd, "m.pdmodel")


def test_an_undeclared_input_is_refused():
    pd = _linear_relu(drop_feed_fetch=True)
    _op(pd, "relu").inputs[0].arguments[0] = "ghost"
    with pytest.raises(ModelFormatError, match="'ghost'"):
        desc_to_program(pd, "m.pdmodel")


def _viterbi_desc(declare_paddle_way):
    """A program viterbi_decode(x, t, n) -> scores * 2, path, written by us; with ``declare_paddle_way`` its
    Scores / Path / scale output are declared as Paddle's compile-time InferMeta leaves them."""
    runtime.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data("x", [-1, -1, 5], "float32")
            t = static.data("t", [-1, -1], "float32")
            n = static.data("n", [-1], "int64")
            s, p = runtime.text.viterbi_decode(x, t, n, False)
            s2 = s * 2.0
            r = runtime.nn.functional.relu(t)
        pd = program_to_desc(main, ["x", "t", "n"], [s2.name, p.name, r.name])
    finally:
        runtime.disable_static()
    if declare_paddle_way:
        for v in pd.blocks[0].vars:
            tensor = v.type.dense_tensor.tensor
            if v.name in (s.name, s2.name):
                tensor.data_type = proto.VAR_TYPE["INT64"]
            if v.name == p.name:
                del tensor.dims[:]
    return pd, s2.name, p.name, r.name


def test_viterbi_outputs_declared_as_paddle_does_take_the_kernel_meta():
    pd, s2, p, _ = _viterbi_desc(True)
    program, feeds, fetches = desc_to_program(pd, "m.pdmodel")
    gb = program.global_block()
    assert gb.vars[s2].dtype.name == "float32" and list(gb.vars[p].shape) == [-1, -1]
    rng = np.random.default_rng(2)
    feed = {"x": rng.uniform(-1, 1, (2, 3, 5)).astype("float32"),
            "t": rng.uniform(-1, 1, (5, 5)).astype("float32"), "n": np.array([3, 1], "int64")}
    want = runtime.text.viterbi_decode(*[runtime.to_tensor(feed[k]) for k in ("x", "t", "n")], False)
    np.testing.assert_allclose(_run(program, feed, s2), want[0].numpy() * 2.0, rtol=1e-6)
    np.testing.assert_array_equal(_run(program, feed, p), want[1].numpy())


def test_other_ops_keep_their_declared_meta():
    pd, _, _, r = _viterbi_desc(True)
    for v in pd.blocks[0].vars:
        if v.name == r:
            v.type.dense_tensor.tensor.dims.append(7)      # relu's output: now 3-D, a real inconsistency
    with pytest.raises(ModelFormatError, match="(?s)inconsistent.*relu"):
        desc_to_program(pd, "m.pdmodel")
