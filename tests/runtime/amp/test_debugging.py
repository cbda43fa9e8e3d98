"""paddle.amp.debugging: check_numerics, the tensor checker (run_op hook), operator stats, layer checks.

Expected values are computed here with numpy; the printed formats are Paddle's (the interop test in
tests/interop/test_amp_debugging_interop.py compares them with real Paddle's output).
"""
import os

import numpy as np
import pytest

import dy2st as paddle
from runtime.amp import accuracy_compare
from runtime.framework import state

d = paddle.amp.debugging
M = d.DebugMode


@pytest.fixture(autouse=True)
def _checker_off():
    yield
    d.disable_tensor_checker()
    d.disable_operator_stats_collection()
    d._settings["checked"].clear()     # Paddle's lists only grow; reset between tests
    d._settings["skipped"].clear()
    d._settings["output_dir"] = None
    d._settings["level"] = 0


def test_check_numerics_stats_values_and_abort(capsys):
    vals = np.array([1.0, 0.0, 3.0, np.nan, np.inf, -2.0], "float32")
    s, v = d.check_numerics(paddle.to_tensor(vals), "op", "x", M.CHECK_NAN_INF)
    assert s.dtype == paddle.int64 and v.dtype == paddle.float32 and s.shape == [3] and v.shape == [3]
    assert s.numpy().tolist() == [1, 1, 1]
    finite = vals[~np.isnan(vals)]
    np.testing.assert_array_equal(v.numpy()[:2], [finite.max(), finite.min()])
    assert np.isnan(v.numpy()[2])
    line = capsys.readouterr().out.strip()
    assert line.startswith("[PRECISION] [ERROR] in [device=cpu, op=op, tensor=x, dtype=fp32], numel=6, num_nan=1")
    with pytest.raises(RuntimeError, match=r"There are NAN or INF \(num_nan=1, num_inf=1, num_zero=1\)"):
        d.check_numerics(paddle.to_tensor(vals), "op", "x")
    assert capsys.readouterr().out.startswith("[PRECISION] [ERROR]")    # printed before aborting
    # float64 input: values are float32; a clean tensor prints only in CHECK_ALL
    x = np.array([1.0, 0.0, 3.0])
    s, v = d.check_numerics(paddle.to_tensor(x), "op", "y", M.CHECK_NAN_INF)
    np.testing.assert_allclose(v.numpy(), [3.0, 0.0, x.mean()], rtol=1e-7)
    assert capsys.readouterr().out == ""
    d.check_numerics(paddle.to_tensor(x), "op", "y", M.CHECK_ALL)
    assert "dtype=fp64], numel=3, num_zero=1, max=3.000000e+00" in capsys.readouterr().out
    # overflow mode: float32 beyond float16's range only
    d.check_numerics(paddle.to_tensor(np.array([7e4], "float64")), "op", "z", M.CHECK_ALL_FOR_OVERFLOW)
    assert capsys.readouterr().out == ""
    d.check_numerics(paddle.to_tensor(np.array([-7e4], "float32")), "op", "z", M.CHECK_ALL_FOR_OVERFLOW)
    assert "max=-7.000000e+04" in capsys.readouterr().out


def test_check_numerics_errors():
    with pytest.raises(RuntimeError, match="not registered for dtype int64"):
        d.check_numerics(paddle.to_tensor([1, 2]), "op", "x")
    with pytest.raises(TypeError, match="must be a paddle.Tensor"):
        d.check_numerics(np.ones(2), "op", "x")
    s, v = d.check_numerics(paddle.to_tensor(np.zeros(0, "float32")), "op", "e", M.CHECK_ALL)
    assert s.numpy().tolist() == [0, 0, 0] and v.numpy().tolist() == [0.0, 0.0, 0.0]


def test_tensor_checker_hook_lists_and_abort(capsys):
    a = paddle.to_tensor([1.0, 0.0])
    assert state.op_debug is None     # off by default: run_op pays one attribute read
    paddle.seed(7)     # the config re-seeds with the last paddle.seed, as Paddle's initial_seed()
    d.enable_tensor_checker(d.TensorCheckerConfig(True, M.CHECK_NAN_INF))
    assert state.op_debug is not None
    paddle.log(a)
    a / paddle.to_tensor([0.0, 0.0])
    out = capsys.readouterr().out
    assert "op=log," in out and "op=divide," in out and "AMP Debugging TensorCheckerConfig: seed  7\n" in out
    d.disable_tensor_checker()
    assert state.op_debug is None
    paddle.log(a)
    assert capsys.readouterr().out == ""
    # checked list (fluid op types) and abort mode
    d.enable_tensor_checker(d.TensorCheckerConfig(True, checked_op_list=["elementwise_div"]))
    paddle.log(a)
    with pytest.raises(RuntimeError, match="op=divide"):
        a / paddle.to_tensor([0.0, 0.0])
    d.disable_tensor_checker()
    with pytest.raises(ValueError, match="checked_op_list must be list or tuple"):
        d.TensorCheckerConfig(True, checked_op_list="log")
    with pytest.raises(ValueError, match="debug_step must be list or tuple"):
        d.TensorCheckerConfig(True, debug_step=2)
    with pytest.raises(AssertionError):
        d.TensorCheckerConfig(True, debug_step=[2, 1])


def test_tensor_checker_debug_step_and_output_dir(tmp_path, capsys):
    a = paddle.to_tensor([1.0, 0.0])
    cfg = d.TensorCheckerConfig(True, M.CHECK_NAN_INF, output_dir=str(tmp_path), checked_op_list=[],
                                debug_step=[0, 2])
    d.TensorCheckerConfig.current_step_id = 0
    for _ in range(4):
        d.enable_tensor_checker(cfg)
        paddle.log(a)
        d.disable_tensor_checker()
    assert d.TensorCheckerConfig.current_step_id == 2
    lines = (tmp_path / "worker_cpu").read_text().splitlines()
    assert len(lines) == 2 and all("op=log" in x for x in lines)
    assert "[PRECISION]" not in capsys.readouterr().out
    # the dump reads back with accuracy_compare's parser
    infos, _ = accuracy_compare.parse_log(str(tmp_path), "worker_cpu")
    assert [(i.op_type, i.dtype, i.numel, i.has_inf, i.num_zero) for i in infos] == [("log", "fp32", 2, 1, 1)] * 2
    assert infos[0].min_value == -np.inf and infos[0].max_value == 0.0
    with pytest.raises(ImportError, match="xlsxwriter"):
        d.compare_accuracy(str(tmp_path), str(tmp_path), os.path.join(str(tmp_path), "out.xlsx"))


def test_operator_stats_table(capsys):
    lin = paddle.nn.Linear(2, 3)
    x = paddle.to_tensor([[1.0, 2.0]])
    with d.collect_operator_stats():
        paddle.nn.functional.relu(lin(x)).sum()
        paddle.to_tensor([1, 2]) + paddle.to_tensor([3, 4])
        x.astype("float16") * 2.0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "<" + " op list ".center(120, "-") + ">"
    rows = {r.split("|")[0].strip(): [c.strip() for c in r.split("|")[1:]] for r in out[2:-2]}
    assert rows["matmul_v2"] == ["0", "0", "1", "0"] and rows["relu"] == ["0", "0", "1", "0"]
    assert rows["elementwise_add"] == ["0", "0", "1", "1"]
    assert rows["cast"] == ["0", "0", "1", "0"] and rows["scale"] == ["1", "0", "0", "0"]
    assert out[-2] == "<" + f" op count: {len(rows)} ".center(120, "-") + ">"
    assert state.op_debug is None


def test_check_layer_numerics():
    class L(paddle.nn.Layer):
        @d.check_layer_numerics
        def forward(self, x):
            return paddle.log(x)
    x = paddle.to_tensor([1.0, 2.0])
    np.testing.assert_allclose(L()(x).numpy(), np.log([1.0, 2.0]), rtol=1e-6)
    assert x.stop_gradient is False
    with pytest.raises(RuntimeError, match="op=log"):
        L()(paddle.to_tensor([0.0]))
    assert state.op_debug is None
    with pytest.raises(RuntimeError, match="First input of this layer must be tensor"):
        L()(np.ones(1))
