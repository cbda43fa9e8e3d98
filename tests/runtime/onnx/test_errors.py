"""Export errors: an op without a lowering names the op type and the user's file:line; bad arguments."""
import os

import pytest

import runtime as paddle
from runtime import static
from runtime.onnx import UnsupportedOpError, export_program
from runtime.onnx.lowering import LOWERINGS
from runtime.ops.registry import all_ops

from .helpers import build, static_mode  # noqa: F401

pytestmark = pytest.mark.usefixtures("static_mode")
THIS = os.path.abspath(__file__)


def _line_of(text):
    with open(THIS) as f:
        for i, line in enumerate(f, 1):
            if text in line and "_line_of" not in line:
                return i
    raise AssertionError(text)


def test_unsupported_op_names_type_and_user_line():
    def fn():
        x = static.data("x", [None, 3])
        noise = paddle.rand([2, 3])  # the op without an ONNX lowering
        return x + noise
    b = build(fn)
    with pytest.raises(UnsupportedOpError) as ei:
        b.export()
    msg = str(ei.value)
    assert "'uniform_random'" in msg and "no ONNX lowering" in msg
    assert f"{THIS}:{_line_of('# the op without an ONNX lowering')}" in msg
    assert "paddle.rand([2, 3])" in msg
    assert ei.value.op_type == "uniform_random"


def test_unsupported_op_inside_a_branch_is_reported():
    from runtime.static import nn as snn

    def fn():
        x = static.data("x", [2, 3])
        return snn.cond(paddle.mean(x) > 0, lambda: x + paddle.rand([2, 3]), lambda: x)  # random in a branch
    with pytest.raises(UnsupportedOpError, match=r"'uniform_random'.*test_errors.py:\d+"):
        build(fn).export()


def test_unused_unsupported_op_is_pruned():
    def fn():
        x = static.data("x", [None, 3])
        paddle.rand([2, 3])
        return x * 2.0
    model = build(fn).export()
    assert "RandomUniform" not in [n.op_type for n in model.graph.node]


def test_training_dropout_is_rejected():
    def fn():
        x = static.data("x", [None, 3])
        return paddle.nn.functional.dropout(x, 0.5, training=True)
    with pytest.raises(UnsupportedOpError, match=r"'dropout' in training mode.*eval"):
        build(fn).export()


def test_bad_arguments():
    def fn():
        return static.data("x", [None, 3]) * 2.0
    b = build(fn)
    with pytest.raises(ValueError, match=r"opset_version must be an int in \[13, \d+\], got 9"):
        b.export(opset=9)
    with pytest.raises(ValueError, match="feed 'nope' is not a variable"):
        export_program(b.main, ["nope"], b.fetch)
    with pytest.raises(ValueError, match="fetch_vars is empty"):
        export_program(b.main, ["x"], [])
    with pytest.raises(ValueError, match="fetch 'missing' is not a variable"):
        export_program(b.main, ["x"], ["missing"])


def test_missing_input_value_names_variable():
    def fn():
        x = static.data("x", [None, 3])
        y = static.data("y", [None, 3])
        return x + y
    b = build(fn)
    with pytest.raises(ValueError, match=r"variable 'y' is read by op 'elementwise_add'.*not fed"):
        export_program(b.main, ["x"], b.fetch)


def test_parameter_without_value():
    def fn():
        x = static.data("x", [None, 3])
        return paddle.nn.Linear(3, 2)(x)
    b = build(fn)
    with paddle.static.scope_guard(static.Scope()):
        with pytest.raises(ValueError, match=r"persistable variable 'linear_\d+\.w_0' has no value.*startup"):
            export_program(b.main, ["x"], b.fetch)


def test_failed_write_leaves_previous_file(tmp_path, monkeypatch):
    def fn():
        return static.data("x", [None, 3]) * 2.0
    b = build(fn)
    path = tmp_path / "m.onnx"
    path.write_bytes(b"old model")

    def boom(*a, **k):
        raise OSError("disk full")
    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        b.export(path=str(path))
    assert path.read_bytes() == b"old model"
    assert [p.name for p in tmp_path.iterdir()] == ["m.onnx"]


def test_lowerings_name_registered_ops_and_fill_opdef():
    ops = all_ops()
    for t, fn in LOWERINGS.items():
        assert t in ops, t
        assert ops[t].onnx is fn
