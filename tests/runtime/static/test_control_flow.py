"""static.nn.cond / while_loop / case / switch_case, Print and Assert (static and eager)."""
import numpy as np
import pytest

import runtime as paddle
from runtime import static
from runtime.static import nn
from runtime.static.control_flow import Print, Assert


@pytest.fixture
def prog():
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    try:
        with static.program_guard(main, startup):
            yield main
    finally:
        paddle.disable_static()


def run(main, feed, fetch):
    main.verify()
    return static.Executor().run(main, feed=feed, fetch_list=fetch)


def _x():
    return static.data("x", [2, 3], "float32")


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_cond_both_branches(prog, sign):
    x = _x()
    out = nn.cond(paddle.mean(x) > 0, lambda: x * 2, lambda: x - 1)
    xv = np.full((2, 3), sign, np.float32)
    (r,) = run(prog, {"x": xv}, [out])
    np.testing.assert_allclose(r, xv * 2 if sign > 0 else xv - 1)
    assert r.dtype == np.float32


def test_cond_pattern_matches_formats_7_1(prog):
    x = _x()
    pred = paddle.mean(x) > 0
    out = nn.cond(pred, lambda: x * 2, lambda: x - 1)
    prog.verify()
    ops = prog.global_block().ops
    types = [op.type for op in ops]
    k = types.index("conditional_block")
    assert types[k:] == ["conditional_block", "logical_not", "conditional_block", "cast", "select_input"]
    cb1, ln, cb2, cast, sel = ops[k:]
    assert cb1.input("Cond") == [pred.name] and cb1.attr("is_scalar_condition") is True
    assert ln.input("X") == [pred.name] and cb2.input("Cond") == ln.output("Out")
    assert cb1.input("Input") == ["x"] and cb2.input("Input") == ["x"]
    assert cast.attr("in_dtype") == 0 and cast.attr("out_dtype") == 2 and cast.input("X") == [pred.name]
    assert sel.input("Mask") == cast.output("Out")
    # X = [false value, true value]; each sub-block ends by assigning into the parent-block output
    assert sel.input("X") == [cb2.output("Out")[0], cb1.output("Out")[0]] and sel.output("Out") == [out.name]
    for cb in (cb1, cb2):
        blk = prog.block(cb.attr("sub_block"))
        assert blk.parent_idx == 0 and blk.ops[-1].type == "assign"
        assert blk.ops[-1].output("Out") == cb.output("Out")
        assert cb.output("Out")[0] in prog.global_block().vars
        scope = prog.global_block().var(cb.output("Scope")[0])
        assert scope.type == static.VarType.STEP_SCOPES


@pytest.mark.parametrize("v", [-2.0, 0.5, 2.0])
def test_nested_cond(prog, v):
    x = _x()
    m = paddle.mean(x)
    out = nn.cond(m > 0, lambda: nn.cond(m > 1, lambda: x * 10, lambda: x * 2), lambda: x - 1)
    xv = np.full((2, 3), v, np.float32)
    (r,) = run(prog, {"x": xv}, [out])
    np.testing.assert_allclose(r, xv * 10 if v > 1 else (xv * 2 if v > 0 else xv - 1))


@pytest.mark.parametrize("v", [1.0, -1.0])
def test_cond_tuple_dict_and_constant_outputs(prog, v):
    x = _x()
    a, d = nn.cond(paddle.mean(x) > 0, lambda: (x + 1, {"k": x, "c": 3}),
                   lambda: (x - 1, {"k": x * 3, "c": 4}))
    assert set(d) == {"k", "c"}
    xv = np.full((2, 3), v, np.float32)
    ra, rk, rc = run(prog, {"x": xv}, [a, d["k"], d["c"]])
    np.testing.assert_allclose(ra, xv + 1 if v > 0 else xv - 1)
    np.testing.assert_allclose(rk, xv if v > 0 else xv * 3)
    assert int(rc) == (3 if v > 0 else 4)
    # the constants became fill_constant ops inside the branches
    for blk in prog.blocks[1:]:
        assert "fill_constant" in [op.type for op in blk.ops]


def test_cond_structure_mismatch_names_both(prog):
    x = _x()
    with pytest.raises(ValueError, match=r"true_fn returns \(Variable, Variable\) and false_fn returns Variable"):
        nn.cond(paddle.mean(x) > 0, lambda: (x + 1, x), lambda: x - 1)


def test_cond_dict_key_mismatch(prog):
    x = _x()
    with pytest.raises(ValueError, match=r"\{'a': Variable\}.*\{'b': Variable\}"):
        nn.cond(paddle.mean(x) > 0, lambda: {"a": x}, lambda: {"b": x})


def test_cond_python_bool_calls_branch(prog):
    x = _x()
    n = len(prog.global_block().ops)
    assert nn.cond(True, lambda: "t", lambda: "f") == "t"
    assert nn.cond(False, lambda: "t", lambda: "f") == "f"
    assert len(prog.global_block().ops) == n


def test_cond_without_else(prog):
    x = _x()
    pred = paddle.mean(x) > 0
    nn.cond(pred, lambda: None)
    assert [op.type for op in prog.global_block().ops][-1] == "conditional_block"
    run(prog, {"x": np.ones((2, 3), np.float32)}, [])
    with pytest.raises(ValueError, match="false_fn is None"):
        nn.cond(pred, lambda: x)


def test_cond_bad_pred(prog):
    x = _x()
    with pytest.raises(TypeError, match="dtype bool"):
        nn.cond(paddle.mean(x), lambda: x, lambda: x)


def test_cond_eager():
    x = paddle.to_tensor(np.array([1.0, 2.0], np.float32))
    assert nn.cond(paddle.mean(x) > 0, lambda: x * 2, lambda: x).numpy().tolist() == [2.0, 4.0]
    assert nn.cond(paddle.mean(x) < 0, lambda: x * 2, lambda: x - 1).numpy().tolist() == [0.0, 1.0]


# -- while_loop ----------------------------------------------------------------------------------

def test_while_loop_data_dependent_trip_count(prog):
    n = static.data("n", [1], "int64")
    i = paddle.full([1], 0, "int64")
    s = paddle.full([1], 0.0, "float32")
    i_out, s_out = nn.while_loop(lambda i, s: i < n, lambda i, s: [i + 1, s + i.astype("float32")], [i, s])
    assert i_out.name == i.name and s_out.name == s.name   # loop vars keep their names
    for nv in (0, 1, 5):
        ri, rs = run(prog, {"n": np.array([nv], np.int64)}, [i_out, s_out])
        assert ri.tolist() == [nv] and rs.tolist() == [sum(range(nv))]


def test_while_pattern_matches_formats_7_2(prog):
    n = static.data("n", [1], "int64")
    i = paddle.full([1], 0, "int64")
    y = paddle.full([2], 1.0, "float32")
    nn.while_loop(lambda i, y: i < n, lambda i, y: [i + 1, y * 2], [i, y], is_test=True)
    prog.verify()
    w = prog.global_block().ops[-1]
    assert w.type == "while" and w.attr("is_test") is True
    cond = w.input("Condition")[0]
    body = prog.block(w.attr("sub_block"))
    tail = body.ops[-3:]
    assert [op.type for op in tail] == ["assign"] * 3
    assert [op.output("Out")[0] for op in tail] == [i.name, y.name, cond]
    assert set(w.output("Out")) == {i.name, y.name, cond}
    assert {"n", i.name, y.name} <= set(w.input("X"))
    assert prog.global_block().var(w.output("StepScopes")[0]).type == static.VarType.STEP_SCOPES


def test_while_loop_shape_change(prog):
    i = paddle.full([1], 0, "int64")
    x = paddle.full([1], 1.0, "float32")
    _, out = nn.while_loop(lambda i, x: i < 3, lambda i, x: [i + 1, paddle.concat([x, x * 2])], [i, x])
    assert out.shape == [-1]
    (r,) = run(prog, {}, [out])
    assert r.tolist() == [1, 2, 2, 4, 2, 4, 4, 8]


def test_while_loop_errors(prog):
    i = paddle.full([1], 0, "int64")
    with pytest.raises(ValueError, match="same structure as loop_vars"):
        nn.while_loop(lambda i: i < 3, lambda i: [i + 1, i], [i])
    with pytest.raises(TypeError, match="cond must return a boolean"):
        nn.while_loop(lambda i: i, lambda i: [i + 1], [i])
    with pytest.raises(ValueError, match="non-empty"):
        nn.while_loop(lambda: True, lambda: [], [])


def test_cond_inside_while(prog):
    i = paddle.full([1], 0, "int64")
    s = paddle.full([1], 0.0, "float32")

    def body(i, s):
        s2 = nn.cond((i % 2 == 0).reshape([]), lambda: s + 1.0, lambda: s + 10.0)
        return [i + 1, s2]
    _, s_out = nn.while_loop(lambda i, s: i < 5, body, [i, s])
    (r,) = run(prog, {}, [s_out])
    assert r.tolist() == [3 * 1 + 2 * 10]


def test_while_loop_eager():
    i = paddle.to_tensor(np.array([0], np.int64))
    s = paddle.to_tensor(np.array([0.0], np.float32))
    i, s = nn.while_loop(lambda i, s: i < 4, lambda i, s: [i + 1, s + 2.0], [i, s])
    assert i.numpy().tolist() == [4] and s.numpy().tolist() == [8.0]


# -- case / switch_case ---------------------------------------------------------------------------

@pytest.mark.parametrize("v,expected", [(0.5, 1.0), (1.5, 2.0), (5.0, 3.0)])
def test_case(prog, v, expected):
    x = static.data("x", [], "float32")
    out = nn.case([(x < 1.0, lambda: paddle.full([], 1.0)), (x < 2.0, lambda: paddle.full([], 2.0))],
                  default=lambda: paddle.full([], 3.0))
    (r,) = run(prog, {"x": np.array(v, np.float32)}, [out])
    assert float(r) == expected


@pytest.mark.parametrize("v,expected", [(0.5, 1.0), (5.0, 2.0)])
def test_case_without_default_uses_last(prog, v, expected):
    x = static.data("x", [], "float32")
    out = nn.case([(x < 1.0, lambda: paddle.full([], 1.0)), (x < 2.0, lambda: paddle.full([], 2.0))])
    (r,) = run(prog, {"x": np.array(v, np.float32)}, [out])
    assert float(r) == expected


@pytest.mark.parametrize("k,expected", [(0, 10.0), (2, 12.0), (7, 99.0)])
def test_switch_case(prog, k, expected):
    idx = static.data("idx", [1], "int64")
    fns = {0: lambda: paddle.full([1], 10.0), 2: lambda: paddle.full([1], 12.0)}
    out = nn.switch_case(idx, fns, default=lambda: paddle.full([1], 99.0))
    (r,) = run(prog, {"idx": np.array([k], np.int64)}, [out])
    assert r.tolist() == [expected]


def test_switch_case_list_and_eager():
    fns = [lambda: paddle.full([1], 1.0), lambda: paddle.full([1], 2.0)]
    assert nn.switch_case(paddle.to_tensor(np.array([1], np.int64)), fns).numpy().tolist() == [2.0]
    assert nn.case([(paddle.to_tensor(False), lambda: 1)], default=lambda: 2) == 2
    with pytest.raises(TypeError, match="branch_fns"):
        nn.switch_case(paddle.to_tensor(np.array([1], np.int64)), 3)


# -- Print / Assert -------------------------------------------------------------------------------

def test_print_static(prog, capsys):
    x = _x()
    y = Print(x, message="hello", summarize=4)
    z = y * 2
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    (r,) = run(prog, {"x": xv}, [z])
    np.testing.assert_allclose(r, xv * 2)
    out = capsys.readouterr().out
    assert "hello" in out and "Variable: x" in out and "shape: [2, 3]" in out and "dtype: float32" in out
    assert "data: [0.0 1.0 2.0 3.0]" in out


def test_print_first_n_and_inside_cond(prog, capsys):
    x = _x()
    Print(x, first_n=1, message="once")
    out = nn.cond(paddle.mean(x) > 0, lambda: Print(x, message="in-true") + 0, lambda: x)
    exe = static.Executor()
    prog.verify()
    for v in (1.0, 1.0, -1.0):
        exe.run(prog, feed={"x": np.full((2, 3), v, np.float32)}, fetch_list=[out])
    text = capsys.readouterr().out
    assert text.count("once") == 1 and text.count("in-true") == 2


def test_print_eager(capsys):
    x = paddle.to_tensor(np.array([1.0, 2.0], np.float32))
    y = Print(x, message="eager-msg")
    assert y.numpy().tolist() == [1.0, 2.0]
    assert "eager-msg" in capsys.readouterr().out


def test_assert_static(prog):
    x = _x()
    Assert(paddle.mean(x) > 0, data=[x], summarize=2)
    prog.verify()
    exe = static.Executor()
    exe.run(prog, feed={"x": np.ones((2, 3), np.float32)})
    with pytest.raises(ValueError, match=r"must be true, but received false(.|\n)*x: \[-1.0 -1.0\]"):
        exe.run(prog, feed={"x": -np.ones((2, 3), np.float32)})


def test_assert_inside_while(prog):
    i = paddle.full([1], 0, "int64")

    def body(i):
        Assert((i < 2).reshape([]))
        return [i + 1]
    nn.while_loop(lambda i: i < 5, body, [i])
    prog.verify()
    with pytest.raises(ValueError, match="AssertOp must be true"):
        static.Executor().run(prog)


def test_assert_eager():
    Assert(paddle.to_tensor(True))
    with pytest.raises(ValueError, match="must be true"):
        Assert(paddle.to_tensor(False), data=[paddle.to_tensor([1.0])])


def test_print_first_n_counts_each_op_not_a_reused_id(capsys):
    # the counter was keyed by id(op): a new Print op at the address of a collected one started exhausted
    import gc
    paddle.enable_static()
    try:
        for k in range(20):
            main = static.Program()
            with static.program_guard(main, static.Program()):
                x = static.data("x", [2, 3], "float32")
                Print(x, first_n=1, message=f"round{k}")
                y = x + 0
            exe = static.Executor()
            for _ in range(2):
                exe.run(main, feed={"x": np.ones((2, 3), np.float32)}, fetch_list=[y])
            del main, x, y, exe
            gc.collect()
    finally:
        paddle.disable_static()
    text = capsys.readouterr().out
    assert all(text.count(f"round{k}\n") == 1 for k in range(20)), text[:2000]
