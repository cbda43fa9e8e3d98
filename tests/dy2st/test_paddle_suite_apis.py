"""APIs Paddle's own dy2st tests use (issue 14), compared with real Paddle in one subprocess.

``paddle.jit.dy2static.transformers.logical_transformer.cmpop_node_to_str``, the loop-variable
analysis ``transformers.loop_transformer.NameVisitor``, ``Tensor.item`` with Paddle's errors,
``paddle.to_tensor`` of a dict, ``Place._equals``, ``Variable.clear_gradient`` in converted code,
``program_cache.last()`` and the AMP state in the program cache key.
"""
import json
import re
import textwrap
import warnings

import numpy as np
import pytest

import dy2st as paddle
from tests.interop.paddle_runner import run_paddle

LOOPS = '''
def while_loop(x):
    i = x + 0
    while x < 10:
        i = i + x
        x = x + 1
    return i


def for_loop(max_len):
    for i in range(max_len):
        ret = max_len * 0
        ret = ret + 2
    return ret


def listcomp_loop(array):
    a = 1
    for j in range(array):
        res = [x + a for x in array]
        res = [i for i in array]
        x = 1
    b = [i for i in array]
    print(x)
    return res


def nested(two, three):
    for j in range(two):
        for i in range(10):
            a = 2 + j
    for i in range(three):
        b = three * 0
    return b


def carried_but_unused_after(n):
    s = 0
    t = 5
    for k in range(n):
        s = s + k
        u = s * 2
        t = u
    return s
'''

PROPS = [("set_float", "a", 1.1), ("set_floats", "b", [1.02, 2.3, 4.23]), ("set_int", "i", -5),
         ("set_ints", "is", [1, 2, 3]), ("set_string", "s", "hello"), ("set_strings", "ss", ["1", "2"])]

ITEM_CASES = [([1], ()), ([9], (6,)), ([2, 3, 4], (0, 2, 1)), ([8, 8, 8], ()), ([8, 8, 8], (10000,)),
              ([8, 8, 8], (6, 7)), ([8, 8, 8], (6.0, 7.0, 1.0)), ([8, 8, 8], (9, 9, 9)), ([3, 5], (-1,))]


def _loop_vars(gast, visitor_cls, src):
    root = gast.parse(src)
    v = visitor_cls(root)
    return [sorted(map(sorted, v.get_loop_var_names(n))) for n in gast.walk(root)
            if isinstance(n, (gast.While, gast.For))]


def _item_outcome(paddle_mod, shape, args):
    t = paddle_mod.to_tensor(np.arange(int(np.prod(shape)), dtype="float32").reshape(shape))
    try:
        return ["ok", float(t.item(*args))]
    except Exception as e:     # noqa: BLE001  (the error type and text are what we compare)
        return [type(e).__name__, str(e).split("\n")[0][:60]]


@pytest.fixture(scope="module")
def paddle_results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("suite_apis")
    code = "import json\nimport numpy as np\n" + textwrap.dedent(f'''
        from paddle.utils import gast
        from paddle.jit.dy2static.transformers.logical_transformer import cmpop_node_to_str
        from paddle.jit.dy2static.transformers.loop_transformer import NameVisitor
        LOOPS = {LOOPS!r}
        out = {{}}
        ops = [gast.Eq(), gast.NotEq(), gast.Lt(), gast.LtE(), gast.Gt(), gast.GtE(), gast.Is(), gast.IsNot(),
               gast.In(), gast.NotIn()]
        out["cmpop"] = [cmpop_node_to_str(o) for o in ops]
        try:
            cmpop_node_to_str(gast.Or())
            out["cmpop_or"] = "no error"
        except Exception as e:
            out["cmpop_or"] = type(e).__name__
        out["loops"] = {{}}
        import ast
        tree = ast.parse(LOOPS)
        for fn in tree.body:
            src = ast.get_source_segment(LOOPS, fn)
            r = gast.parse(src)
            v = NameVisitor(r)
            out["loops"][fn.name] = [sorted(map(sorted, v.get_loop_var_names(n))) for n in gast.walk(r)
                                     if isinstance(n, (gast.While, gast.For))]
        def item_outcome(shape, args):
            t = paddle.to_tensor(np.arange(int(np.prod(shape)), dtype="float32").reshape(shape))
            try:
                return ["ok", float(t.item(*args))]
            except Exception as e:
                return [type(e).__name__, str(e).split("\\n")[0][:60]]
        out["item"] = [item_outcome(s, a) for s, a in {ITEM_CASES!r}]
        try:
            paddle.to_tensor({{1: 1}})
        except Exception as e:
            out["dict_eager"] = [type(e).__name__, str(e)]
        prop = paddle.framework.core.Property()
        for setter, name, val in {PROPS!r}:
            getattr(prop, setter)(name, val)
        out["property_hex"] = prop.serialize_to_string().hex()
        out["property_reads"] = [prop.size(), prop.get_float("a"), prop.get_float(0)]
        p = paddle.to_tensor([1.0]).place
        out["place_equals"] = [p._equals(paddle.CPUPlace()), paddle.CPUPlace()._equals(p)]
        print(json.dumps(out))
    ''')
    proc = run_paddle(code, tmp, default_flags=True)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_cmpop_node_to_str_matches_paddle(paddle_results):
    from dy2st.jit.dy2static.transformers.logical_transformer import cmpop_node_to_str
    from dy2st.utils import gast
    ops = [gast.Eq(), gast.NotEq(), gast.Lt(), gast.LtE(), gast.Gt(), gast.GtE(), gast.Is(), gast.IsNot(),
           gast.In(), gast.NotIn()]
    assert [cmpop_node_to_str(o) for o in ops] == paddle_results["cmpop"]
    with pytest.raises(KeyError):
        cmpop_node_to_str(gast.Or())
    assert paddle_results["cmpop_or"] == "KeyError"


def test_name_visitor_matches_paddle(paddle_results):
    import ast

    from dy2st.jit.dy2static.transformers.loop_transformer import NameVisitor
    from dy2st.utils import gast
    tree = ast.parse(LOOPS)
    ours = {fn.name: _loop_vars(gast, NameVisitor, ast.get_source_segment(LOOPS, fn)) for fn in tree.body}
    assert ours == paddle_results["loops"]


def test_item_and_its_errors_match_paddle(paddle_results):
    ours = [_item_outcome(paddle, s, a) for s, a in ITEM_CASES]
    for (s, a), o, p in zip(ITEM_CASES, ours, paddle_results["item"]):
        assert o[0] == p[0], (s, a, o, p)
        if o[0] == "ok":
            assert o[1] == p[1], (s, a, o, p)
        else:   # the same message (Paddle's C++ errors start with their category)
            # (numbers masked: Paddle prints a negative offset as the unsigned number it read)
            want = re.sub(r"-?\d+", "#", re.sub(r"^\(\w+\) ", "", p[1]))[:30]
            assert re.sub(r"-?\d+", "#", o[1]).startswith(want), (s, a, o, p)


def test_item_in_converted_code_matches_eager():
    t = paddle.to_tensor(np.arange(24, dtype="float32").reshape([2, 3, 4]))
    for args in [(6,), (0, 2, 1), (23,)]:
        def f(x, idx=args):
            return x.item(*idx)
        assert float(paddle.jit.to_static(f)(t)) == t.item(*args)
    def g(x):
        return x.item(0, 1)
    with pytest.raises(ValueError, match="incorrect number of indices"):
        paddle.jit.to_static(g)(t)


def test_to_tensor_of_a_dict(paddle_results):
    with pytest.raises(TypeError) as e:
        paddle.to_tensor({1: 1})
    assert [type(e.value).__name__, str(e.value)] == paddle_results["dict_eager"]

    def f(x):
        return paddle.to_tensor({1: 1})
    with pytest.raises(RuntimeError, match="Do not support transform type `<class 'dict'>` to tensor"):
        paddle.jit.to_static(f)(paddle.ones([1]))


def test_place_equals(paddle_results):
    p = paddle.to_tensor([1.0]).place
    assert [p._equals(paddle.CPUPlace()), paddle.CPUPlace()._equals(p)] == paddle_results["place_equals"]


def test_dygraph_only_methods_raise_assertion_in_converted_code():
    def f(x):
        x = paddle.to_tensor(x)
        x.clear_gradient()
        return x
    assert paddle.jit.to_static(f, full_graph=True) is not None
    with pytest.raises(AssertionError, match="'clear_gradient' only can be called by `paddle.Tensor` in dynamic"):
        paddle.jit.to_static(f)(paddle.zeros([2]))


class _Linear(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x)


def test_program_cache_last_gives_the_partial_program():
    net = paddle.jit.to_static(_Linear())
    x = paddle.rand([4, 3])
    net(x)
    key, (cp, part) = net.forward.program_cache.last()
    assert cp is net.forward.concrete_program
    assert part.program is part.train_program
    net.eval()
    net(x)
    _, (cp2, part2) = net.forward.program_cache.last()
    assert cp2 is not cp and not cp2.training
    assert part2.program is part2.infer_program
    assert all(op.role == 0 for op in part2.infer_program.global_block().ops)
    with pytest.raises(AssertionError, match="No valid cache item"):
        paddle.jit.to_static(lambda y: y).program_cache.last()


def _matmul_fn(w):
    def f(x):
        return paddle.matmul(x, w)
    return f


def test_amp_state_is_part_of_the_cache_key():
    w = paddle.rand([4, 4])
    f = _matmul_fn(w)
    sf = paddle.jit.to_static(f)
    x = paddle.rand([2, 4])
    assert sf(x).dtype == paddle.float32
    with paddle.amp.auto_cast():                 # O1 float16: matmul is on the white list
        eager, static = f(x), sf(x)
    assert eager.dtype == static.dtype == paddle.float16
    np.testing.assert_allclose(static.numpy(), eager.numpy(), rtol=1e-3)
    assert sf(x).dtype == paddle.float32 and len(sf.program_cache) == 2


def test_bfloat16_auto_cast_while_tracing_is_refused():
    w = paddle.rand([4, 4])
    sf = paddle.jit.to_static(_matmul_fn(w))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with paddle.amp.auto_cast(dtype="bfloat16"):
            with pytest.raises(NotImplementedError, match="bfloat16"):
                sf(paddle.rand([2, 4]))


def test_property_matches_paddle(paddle_results):
    prop = paddle.framework.core.Property()
    for setter, name, val in PROPS:
        getattr(prop, setter)(name, val)
    assert prop.serialize_to_string().hex() == paddle_results["property_hex"]
    assert [prop.size(), prop.get_float("a"), prop.get_float(0)] == paddle_results["property_reads"]
    back = paddle.framework.core.Property()
    back.parse_from_string(bytes.fromhex(paddle_results["property_hex"]))
    assert back.size() == len(PROPS) and back.get_float("a") == prop.get_float("a")
    with pytest.raises(ValueError, match="element is not a float"):
        back.get_float(1)
    with pytest.raises(IndexError):
        back.get_float(10)
    with pytest.raises(RuntimeError, match="not found"):
        back.get_float("missing")
    with pytest.raises(ValueError, match="malformed property"):
        back.parse_from_string(b"\x0a\x05ab")
