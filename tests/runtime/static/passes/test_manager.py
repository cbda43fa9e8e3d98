"""The pass manager: selection by argument / DY2ST_PASSES, clones, the verifier after each pass,
and the hook in compile_program (Executor and to_static run optimized code; the user's Program
and what concrete_program shows are unchanged)."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from runtime import static
from runtime.static.passes import ALL, DEFAULT, enabled_passes, manager, optimize
from runtime.static.verify import ProgramVerifyError

from .util import build, op_types


def mlp():
    x = static.data("x", [-1, 8], "float32")
    w = static.create_parameter([8, 4], "float32", name="w_m")
    b = static.create_parameter([4], "float32", name="b_m")
    return F.relu(paddle.matmul(x, w) + b)


def test_selection(monkeypatch):
    assert enabled_passes() == DEFAULT
    monkeypatch.setenv("DY2ST_PASSES", "0")
    assert enabled_passes() == ()
    monkeypatch.setenv("DY2ST_PASSES", "all")
    assert enabled_passes() == ALL
    monkeypatch.setenv("DY2ST_PASSES", "cse, dce")
    assert enabled_passes() == ("dce", "cse")            # always in pipeline order
    monkeypatch.setenv("DY2ST_PASSES", "dce,nope")
    with pytest.raises(ValueError, match="unknown pass.*nope"):
        enabled_passes()


def test_optimize_returns_a_clone_or_the_program(monkeypatch):
    main, _, out = build(mlp)
    before = str(main)
    prog = optimize(main, ["x"], [out.name])
    assert prog is not main and op_types(prog) == ["fused_gemm_epilogue"] and str(main) == before
    monkeypatch.setenv("DY2ST_PASSES", "none")
    assert optimize(main, ["x"], [out.name]) is main
    stats = {}
    optimize(main, ["x"], [out.name], passes=["fuse_gemm"], stats=stats)
    assert stats == {"fuse_gemm": 1}


def test_verifier_names_the_pass_that_broke_the_program(monkeypatch):
    def bad(program, feeds, fetches):
        program.global_block().ops[0].attrs["trans_x"] = 3     # not a BOOLEAN
        return 1
    monkeypatch.setitem(manager.PASSES, "bad", bad)
    main, _, out = build(mlp)
    with pytest.raises(ProgramVerifyError, match="(?s)after graph pass 'bad'.*trans_x"):
        optimize(main, ["x"], [out.name], passes=["bad"])
    monkeypatch.setenv("DY2ST_VERIFY_PASSES", "0")
    optimize(main, ["x"], [out.name], passes=["bad"])         # unchecked outside tests/debug


def test_executor_and_to_static_run_optimized_code():
    main, startup, out = build(mlp)
    exe = static.Executor()
    assert "fused_gemm_epilogue(" in exe.code(main, ["x"], [out])
    scope = static.Scope()
    exe.run(startup, scope=scope)
    x = np.random.default_rng(0).standard_normal((3, 8)).astype(np.float32)
    got, = exe.run(main, feed={"x": x}, fetch_list=[out], scope=scope)
    want = np.maximum(x @ scope.vars["w_m"] + scope.vars["b_m"], 0)
    np.testing.assert_allclose(got, want, rtol=1e-6)

    lin = paddle.nn.Linear(8, 4)

    def fwd(t):
        return F.relu(lin(t))
    f = paddle.jit.to_static(fwd)
    y = f(paddle.to_tensor(x))
    np.testing.assert_allclose(y.numpy(), np.maximum(x @ lin.weight.numpy() + lin.bias.numpy(), 0), rtol=1e-6)
    cp = f.concrete_program
    assert [op.type for op in cp.main_program.global_block().ops] == ["matmul_v2", "elementwise_add", "relu"]
