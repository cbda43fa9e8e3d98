"""Unit tests of the analyses (cfg, activity, liveness, reaching definitions) on source snippets:
which names are loop variables, branch outputs, possibly undefined."""
import textwrap

import gast
import pytest

from dy2st.analysis import annotate, info
from dy2st.analysis import cfg, liveness, reaching_definitions
from dy2st.analysis.activity import activity, declared_scopes, local_names


def fn(src):
    return gast.parse(textwrap.dedent(src)).body[0]


def stmts(node, kind):
    return [n for n in gast.walk(node) if isinstance(n, kind)]


def annotated(src, kind, k=0):
    f = fn(src)
    annotate(f)
    return info(stmts(f, kind)[k])


def loop_vars(a):
    return a.modified & a.live_in


def branch_outputs(a):
    return a.modified & a.live_out


# -- activity -------------------------------------------------------------------------------------------

def test_activity_reads_binds_mutates():
    f = fn("""
    def f(x, xs, obj):
        y = x + 1
        xs.append(y)
        obj.a = 3
        d[0] = y
        z += 1
    """)
    act = activity(f.body)
    assert {"y", "z"} <= act.binds
    assert {"xs", "obj", "d"} <= act.mutates
    assert {"x", "y", "z", "xs", "obj", "d"} <= act.reads
    assert "x" not in act.modified


def test_activity_nested_scopes_only_bind_their_name():
    f = fn("""
    def f(x):
        def g(a):
            b = a + x
            return b
        h = lambda q: q + w
        ys = [k * x for k in range(3)]
    """)
    act = activity(f.body)
    assert act.binds == {"g", "h", "ys"}
    assert {"x", "w"} <= act.reads
    assert not {"a", "b", "q", "k"} & act.binds


def test_activity_sees_append_through_call_wrapper():
    # after the calls pass: _jst.Call(xs.append)(v) still mutates xs
    f = fn("""
    def f(v):
        _jst.Call(xs.append)(v)
    """)
    assert "xs" in activity(f.body).mutates


def test_local_names_and_declared_scopes():
    f = fn("""
    def f(a, *args, b=1, **kw):
        global G
        nonlocal_like = 1
        G = 2
        for i in range(3):
            t = i
    """)
    locs, params = local_names(f)
    assert params == {"a", "args", "b", "kw"}
    assert {"nonlocal_like", "i", "t"} <= locs and "G" not in locs
    assert declared_scopes(f) == ({"G"}, set())


# -- cfg ------------------------------------------------------------------------------------------------

def test_cfg_if_has_test_and_join():
    f = fn("""
    def f(x):
        if x:
            y = 1
        else:
            y = 2
        return y
    """)
    g = cfg.build(f, ["x"])
    s = stmts(f, gast.If)[0]
    t, j = g.test[s], g.join[s]
    assert len(t.next) == 2 and len(j.prev) == 2
    assert any(n.kind == "stmt" and isinstance(n.ast, gast.Return) and g.exit in n.next for n in g.nodes)


def test_cfg_while_back_edge_and_break():
    f = fn("""
    def f(x):
        while x:
            if x > 3:
                break
            x = x - 1
        return x
    """)
    g = cfg.build(f, ["x"])
    w = stmts(f, gast.While)[0]
    t, j = g.test[w], g.join[w]
    brk = next(n for n in g.nodes if isinstance(n.ast, gast.Break))
    assert j in brk.next
    assert any(p.index > t.index for p in t.prev)       # the back edge


def test_cfg_continue_goes_to_loop_header():
    f = fn("""
    def f(xs):
        for v in xs:
            if v:
                continue
            w = v
    """)
    g = cfg.build(f, ["xs"])
    loop = stmts(f, gast.For)[0]
    cont = next(n for n in g.nodes if isinstance(n.ast, gast.Continue))
    assert cont.next == [g.test[loop]]


# -- liveness / reaching definitions ----------------------------------------------------------------------

def test_liveness_simple():
    f = fn("""
    def f(x):
        a = x + 1
        b = 2
        return a
    """)
    g = cfg.build(f, ["x"])
    live_in, _ = liveness.analyse(g)
    first = next(n for n in g.nodes if n.kind == "stmt")
    assert live_in[first.index] == {"x"}
    b_node = g.nodes[first.index + 1]
    assert "a" in live_in[b_node.index] and "b" not in live_in[b_node.index]


def test_reaching_definitions_if_one_branch():
    f = fn("""
    def f(x):
        if x:
            y = 1
        z = 0
        return y
    """)
    g = cfg.build(f, ["x"])
    d_in, _ = reaching_definitions.analyse(g)
    ret = next(n for n in g.nodes if isinstance(n.ast, gast.Return))
    assert "z" in d_in[ret.index] and "y" not in d_in[ret.index] and "x" in d_in[ret.index]


# -- annotations: loop vars / branch outputs / undefined ---------------------------------------------------

def test_loop_vars_of_while():
    a = annotated("""
    def f(x, n):
        i = 0
        s = 0
        while i < n:
            t = x * i
            s = s + t
            i += 1
        return s
    """, gast.While)
    assert loop_vars(a) == {"i", "s"}
    assert "t" in a.modified and "t" not in loop_vars(a)


def test_loop_var_read_before_written_in_body():
    a = annotated("""
    def f(x, n):
        h = x
        for k in range(n):
            h = h * 2
        return x
    """, gast.For)
    assert "h" in loop_vars(a)          # read by the next iteration although dead after the loop
    assert "h" not in a.live_out


def test_for_target_is_modified_not_a_loop_var():
    a = annotated("""
    def f(xs):
        s = 0
        for v in xs:
            s = s + v
        return s
    """, gast.For)
    assert "v" in a.modified and loop_vars(a) == {"s"}


def test_branch_outputs():
    a = annotated("""
    def f(x):
        if x > 0:
            y = x
            tmp = 1
        else:
            y = -x
        return y
    """, gast.If)
    assert branch_outputs(a) == {"y"}
    assert "tmp" in a.modified and "tmp" not in a.live_out


def test_undefined_at_statement_start():
    f = fn("""
    def f(x):
        if x > 0:
            y = x
        while x < 3:
            y = y + 1
            x = x + 1
        return y
    """)
    annotate(f)
    i, w = stmts(f, gast.If)[0], stmts(f, gast.While)[0]
    assert "y" not in info(i).defined_in and "x" in info(i).defined_in
    assert "y" not in info(w).defined_in     # defined on one path only
    assert loop_vars(info(w)) == {"x", "y"}


def test_break_flag_read_by_for_extra_test_is_live():
    # the break transformer hangs `not flag` on the loop as an extra test; it reads the flag
    f = fn("""
    def f(x):
        flag = False
        for w in [1, 2]:
            x = x * w
            if x > 5:
                flag = True
        return x
    """)
    loop = stmts(f, gast.For)[0]
    loop.dy2st_extra_tests = [gast.UnaryOp(op=gast.Not(), operand=gast.Name(id="flag", ctx=gast.Load(),
                                                                          annotation=None, type_comment=None))]
    annotate(f)
    inner_if = stmts(f, gast.If)[0]
    assert "flag" in branch_outputs(info(inner_if))
    assert "flag" in loop_vars(info(loop))


def test_nested_loop_inner_vars():
    f = fn("""
    def f(x, n):
        s = 0
        for i in range(n):
            j = 0
            while j < i:
                s = s + j
                j += 1
        return s
    """)
    annotate(f)
    outer, inner = stmts(f, gast.For)[0], stmts(f, gast.While)[0]
    assert loop_vars(info(inner)) == {"s", "j"}
    assert loop_vars(info(outer)) == {"s"}
    assert "j" in info(outer).modified


@pytest.mark.parametrize("src,expected", [
    ("def f(x):\n    if x:\n        return 1\n    return 2\n", set()),
    ("def f(x):\n    y = 1\n    if x:\n        y = 2\n    return y\n", {"y"}),
])
def test_branch_outputs_table(src, expected):
    f = fn(src)
    annotate(f)
    assert branch_outputs(info(stmts(f, gast.If)[0])) == expected
