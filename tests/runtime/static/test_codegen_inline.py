"""Cheaper generated code for small inference (issue 17): guarded inline ufunc calls
(codegen_patterns.inline_call) and counted loops whose start value and first condition are constants
(codegen_loops.match_init). The converted function equals eager bit for bit (dtype and shape too) on
the fast path and on every fallback (mixed dtypes, integer inputs), and the compiled source shows
which path was taken."""
import os

import numpy as np
import pytest

import dy2st as paddle
from runtime.static.executor import Executor

needs_codegen = pytest.mark.skipif(os.environ.get("DY2ST_EXECUTOR") == "interpreter",
                                   reason="reads the compiled source; the interpreter back end compiles nothing")


def elementwise(x, y):
    s = x * 3 + y            # scale (integers: truncated factors) and add (mixed floats: promotion)
    return paddle.tanh(s) * 0.5, s - y, paddle.tanh(s) + paddle.tanh(y) * 2.0


def count_to_three(x):
    i = paddle.zeros([1], dtype="int64")
    while i < 3:
        x = paddle.tanh(x) + x * 0.5
        i = i + 1
    return x


def start_above_bound(x):
    i = paddle.full([1], 4, dtype="int32")
    while i < 2:
        x = x * 3.0
        i = i + 1
    return x, i, i < 2


def start_read_before_loop(x):
    i = paddle.full([1], 1, dtype="int64")
    x = x + i.astype("float32")          # the start value is read outside the loop: keeps its op
    while i <= 3:
        x = x * 0.5
        i = i + 1
    return x, i


def _sources(fn, *args):
    seen = []
    import dy2st.partial_program as pp
    orig = pp._compile_program

    def spy(*a, **k):
        c = orig(*a, **k)
        seen.append(c.source)
        return c
    pp._compile_program = spy
    try:
        out = paddle.jit.to_static(fn)(*args)
    finally:
        pp._compile_program = orig
    return "\n".join(seen), out


def _check_same(got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for a, b in zip(got, want):
        a, b = a.numpy(), b.numpy()
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


DTYPES = [("float32", "float32"), ("float64", "float64"), ("float32", "float64"), ("int64", "int64"),
          ("int32", "int32")]


@pytest.mark.parametrize("dx, dy", DTYPES, ids=[f"{a}-{b}" for a, b in DTYPES])
def test_inline_elementwise_equals_eager(dx, dy, monkeypatch):
    monkeypatch.delenv("DY2ST_PASSES", raising=False)     # the default passes (no elementwise fusion)
    rng = np.random.default_rng(1)
    x = paddle.to_tensor((rng.standard_normal((3, 4)) * 3).astype(dx))
    y = paddle.to_tensor((rng.standard_normal((3, 4)) * 3).astype(dy))
    want = elementwise(x, y)
    src, got = _sources(elementwise, x, y)
    _check_same(got, want)
    if os.environ.get("DY2ST_EXECUTOR") != "interpreter":
        assert "_uf_tanh(" in src and "_uf_add(" in src and "_uf_mul(" in src, src


@pytest.mark.parametrize("fn", [count_to_three, start_above_bound, start_read_before_loop],
                         ids=lambda f: f.__name__)
def test_counted_loops_equal_eager(fn):
    x = paddle.to_tensor(np.linspace(-2, 2, 6, dtype="float32").reshape(2, 3))
    _check_same(paddle.jit.to_static(fn)(x), fn(x))


@needs_codegen
def test_constant_start_leaves_out_the_start_ops(monkeypatch):
    monkeypatch.delenv("DY2ST_PASSES", raising=False)
    x = paddle.to_tensor(np.ones((2, 3), "float32"))
    src, _ = _sources(count_to_three, x)
    assert "counter = 0" in src and "less_than(" not in src and ".item()" not in src, src
    src, _ = _sources(start_above_bound, x)
    assert "counter = 4" in src and "= False" in src and "_int_array(" in src, src
    src, _ = _sources(start_read_before_loop, x)
    assert "counter = int(" in src and "less_equal(" in src, src


def test_ufunc_global_names_do_not_clash_with_variables():
    """Variables named like the inline ufunc globals get other identifiers (compiled == interpreter)."""
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            a = paddle.static.data("_uf_add", [2, 3], "float32")
            b = paddle.static.data("_uf_tanh", [2, 3], "float32")
            out = paddle.tanh(a) + b * 2.0
        feed = {"_uf_add": np.arange(6, dtype="float32").reshape(2, 3) / 3,
                "_uf_tanh": np.full((2, 3), 0.25, "float32")}
        res = {}
        for backend in ("compiled", "interpreter"):
            scope = paddle.static.Scope()
            with paddle.static.scope_guard(scope):
                exe = Executor(backend=backend)
                exe.run(startup)
                res[backend] = exe.run(main, feed=feed, fetch_list=[out])[0]
        np.testing.assert_array_equal(res["compiled"], res["interpreter"])
        np.testing.assert_array_equal(res["compiled"], np.tanh(feed["_uf_add"]) + feed["_uf_tanh"] * 2.0)
    finally:
        paddle.disable_static()


def test_inline_call_refuses_what_it_cannot_do_exactly():
    from runtime.static.codegen_patterns import inline_call

    class Op:
        def __init__(self, type, attrs):
            self.type, self.attrs = type, attrs
    no_tensors = ["a", "None", "None"]
    assert inline_call(Op("elementwise_add", {"axis": 1}), ["a", "b"], "k(a, b)") is None     # legacy axis
    assert inline_call(Op("less_than", {"axis": 0}), ["a", "b"], "k(a, b)") is None
    assert inline_call(Op("scale", {"scale": 2.0, "bias": 1.0}), no_tensors, "k()") is None   # x * s + b: kernel
    assert "_uf_add(a, -1.0)" in inline_call(Op("scale", {"scale": 1.0, "bias": -1.0}), no_tensors, "k()")
    assert inline_call(Op("scale", {"scale": 2.0, "bias_after_scale": False}), no_tensors, "k()") is None
    assert inline_call(Op("scale", {"scale": 2.0}), ["a", "s", "None"], "k()") is None    # ScaleTensor
    assert inline_call(Op("scale", {"scale": float("nan")}), no_tensors, "k()") is None
    assert inline_call(Op("gelu", {}), ["a"], "k(a)") is None
    src = inline_call(Op("equal", {"axis": -1, "force_cpu": True}), ["a", "b"], "k(a, b, force_cpu=True)")
    assert src.endswith("else k(a, b, force_cpu=True)")     # the fallback is the kernel call as it was
    assert "_uf_mul(a, 2.0)" in inline_call(Op("scale", {"scale": 2.0}), no_tensors, "k()")


INLINE_CASES = [("elementwise_add", {}), ("elementwise_sub", {}), ("elementwise_mul", {}), ("tanh", {}),
                ("sigmoid", {}), ("relu", {}), ("scale", {"scale": 2.5}), ("scale", {"scale": -0.5, "bias": 0.0}),
                ("scale", {"scale": 1.0, "bias": -1.0}), ("scale", {"scale": 1.0, "bias": 0.375}),
                ("less_than", {}), ("less_equal", {}), ("greater_than", {}), ("greater_equal", {}), ("equal", {}),
                ("not_equal", {})]


@pytest.mark.parametrize("typ, attrs", INLINE_CASES, ids=[f"{t}-{i}" for i, (t, _) in enumerate(INLINE_CASES)])
def test_inline_expression_equals_the_registered_kernel(typ, attrs):
    """The generated expression against the op's own (bound) kernel, on every dtype pairing: same
    values, dtype and shape, or the same error type (a changed kernel must change the inline table)."""
    from runtime.ops.registry import lookup
    from runtime.static.codegen_patterns import INLINE_GLOBALS, inline_call

    class Op:
        def __init__(self, type, attrs):
            self.type, self.attrs = type, attrs
    opdef = lookup(typ)
    full = opdef.full_attrs(attrs)
    binary = len([s for s in opdef.inputs if not s.dispensable]) == 2
    args = ["a", "b"] if binary else (["a", "None", "None"] if typ == "scale" else ["a"])
    src = inline_call(Op(typ, full), args, f"k({', '.join(args)})")
    assert src is not None
    code = compile(src, "<inline>", "eval")
    rng = np.random.default_rng(3)
    dtypes = ["float32", "float64", "float16", "int32", "int64", "bool"]
    cases = [(da, db, sa, sb) for da in dtypes for db in (dtypes if binary else [None])
             for sa, sb in (((2, 5), (5,)), ((), ()), (None, None))]   # 0-D arrays; None: numpy scalars
    for da, db, sa, sb in cases:
        def make(shape, dtype, k):
            v = np.asarray(rng.standard_normal(shape or ()) * k).astype(dtype)
            if v.ndim == 2 and v.dtype.kind == "f":
                v.flat[:4] = [np.nan, np.inf, -np.inf, -0.0]     # special values go through unchanged
            return v[()] if shape is None else v
        a = make(sa, da, 50)
        env = {"a": a, "b": None if db is None else make(sb, db, 3),
               "k": opdef.bind(full), **INLINE_GLOBALS}
        call = [env["a"], env["b"]] if binary else ([a, None, None] if typ == "scale" else [a])
        try:
            want = opdef.bind(full)(*call)
        except Exception as e:
            with pytest.raises(type(e)):
                eval(code, env)
            continue
        got = eval(code, env)
        assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape, (da, db)
        # bit for bit (signed zeros, NaN payloads)
        assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (da, db, got, want)
