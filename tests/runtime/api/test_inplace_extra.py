"""In-place variants (runtime/api/inplace_extra.py) against real Paddle 3.3.1: value, dtype, shape, that ``x``
itself is updated and returned, the broadcast-shape error and the leaf-tensor error; gradients through them."""
import json

import numpy as np
import pytest

import dy2st as paddle
from runtime.api import inplace_extra

# (method, x, args): x and args are lists (tensors) or scalars/strings (passed as they are)
CASES = [
    ("acos_", [0.1, 0.5, -0.3], []), ("asin_", [0.1, 0.5, -0.3], []), ("atan_", [0.1, 2.5, -3.0], []),
    ("acosh_", [1.5, 2.0, 3.0], []), ("asinh_", [0.1, 2.5, -3.0], []), ("atanh_", [0.1, 0.5, -0.3], []),
    ("cosh_", [0.1, 2.5, -3.0], []), ("sinh_", [0.1, 2.5, -3.0], []), ("log2_", [0.5, 2.0, 8.0], []),
    ("log10_", [0.5, 10.0, 1000.0], []), ("cumprod_", [1.0, 2.0, 3.0], [0]),
    ("tril_", [[1.0, 2.0], [3.0, 4.0]], []), ("triu_", [[1.0, 2.0], [3.0, 4.0]], [1]),
    ("t_", [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], []), ("transpose_", [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[1, 0]]),
    ("cast_", [1.5, 2.5, -3.5], ["int64"]),
    ("add_", [1.0, 2.0, 3.0], [[0.5, 0.5, 0.5]]), ("subtract_", [1.0, 2.0, 3.0], [[0.5, 1.5, 0.5]]),
    ("sub_", [1.0, 2.0, 3.0], [[0.5, 1.5, 0.5]]), ("multiply_", [1.0, 2.0, 3.0], [[2.0, 3.0, 4.0]]),
    ("mul_", [1.0, 2.0, 3.0], [[2.0, 3.0, 4.0]]), ("divide_", [1.0, 2.0, 3.0], [[2.0, 4.0, 8.0]]),
    ("div_", [1, 2, 3], [[2, 2, 2]]), ("floor_divide_", [7, 8, 9], [[2, 3, 4]]),
    ("remainder_", [7.0, -8.0, 9.0], [[2.0, 3.0, 4.0]]), ("mod_", [7, 8, 9], [[2, 3, 4]]),
    ("floor_mod_", [7, -8, 9], [[2, 3, 4]]), ("bitwise_and_", [1, 2, 3], [[3, 3, 3]]),
    ("bitwise_or_", [1, 2, 4], [[3, 3, 3]]), ("bitwise_xor_", [1, 2, 4], [[3, 3, 3]]),
    ("bitwise_not_", [1, 2, 4], []), ("logical_not_", [True, False], []),
    ("logical_and_", [True, False, True], [[True, True, False]]),
    ("logical_or_", [True, False, False], [[False, False, True]]),
    ("logical_xor_", [True, False, True], [[True, True, False]]),
    ("equal_", [1.0, 2.0, 3.0], [[1.0, 0.0, 3.0]]), ("not_equal_", [1.0, 2.0, 3.0], [[1.0, 0.0, 3.0]]),
    ("greater_than_", [1.0, 2.0, 3.0], [[1.0, 0.0, 4.0]]), ("greater_equal_", [1.0, 2.0, 3.0], [[1.0, 0.0, 4.0]]),
    ("less_than_", [1.0, 2.0, 3.0], [[1.0, 0.0, 4.0]]), ("less_equal_", [1.0, 2.0, 3.0], [[1.0, 0.0, 4.0]]),
    ("less_", [1.0, 2.0, 3.0], [[1.0, 0.0, 4.0]]),
    ("add_", [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[10.0, 20.0, 30.0]]),          # y broadcast into x: fine
    ("add_", [1.0, 2.0, 3.0], [[[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]]),              # x would grow: error
]

CODE = '''
import json, numpy as np

def run(paddle, cases):
    out = []
    for name, x, args in cases:
        try:
            t = paddle.to_tensor(np.array(x))
            a = [paddle.to_tensor(np.array(v)) if isinstance(v, list) and v and not isinstance(v[0], int) or
                 (isinstance(v, list) and name not in ("transpose_",)) else v for v in args]
            r = getattr(t, name)(*a)
            out.append({"value": np.asarray(r.numpy()).tolist(), "dtype": str(r.dtype).replace("paddle.", ""),
                        "shape": list(r.shape), "same": r is t, "x": np.asarray(t.numpy()).tolist()})
        except Exception as e:
            out.append({"error": type(e).__name__})
    return out
'''


def test_inplace_variants_match_paddle(tmp_path):
    from tests.interop.paddle_runner import run_paddle
    proc = run_paddle(CODE + f"json.dump(run(paddle, {CASES!r}), open('r.json', 'w'))\n", tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = json.loads((tmp_path / "r.json").read_text())
    ns = {}
    exec(CODE, ns)
    ours = ns["run"](paddle, CASES)
    bad = []
    for case, a, b in zip(CASES, ours, theirs):
        if "error" in b or "error" in a:
            if a.get("error") != b.get("error"):
                bad.append(f"{case}: ours {a}, Paddle {b}")
            continue
        if (a["dtype"], a["shape"], a["same"]) != (b["dtype"], b["shape"], b["same"]) or \
                not np.allclose(np.asarray(a["value"], float), np.asarray(b["value"], float), rtol=1e-6, equal_nan=True) \
                or not np.allclose(np.asarray(a["x"], float), np.asarray(b["x"], float), rtol=1e-6, equal_nan=True):
            bad.append(f"{case}: ours {a}, Paddle {b}")
    assert not bad, "\n".join(bad)


def test_top_level_names_are_paddles():
    assert "add_" not in inplace_extra.__all__ and hasattr(paddle.Tensor, "add_")
    assert callable(paddle.acos_) and callable(paddle.where_) and callable(paddle.sub_)


def test_gradient_flows_through_an_in_place_update():
    a = paddle.to_tensor(np.array([1.0, 2.0]), stop_gradient=False)
    b = a * 1.0
    b.mul_(paddle.to_tensor(np.array([3.0, 4.0])))
    b.sinh_()
    b.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.cosh(np.array([3.0, 8.0])) * np.array([3.0, 4.0]))


def test_leaf_that_needs_a_gradient_is_refused():
    a = paddle.to_tensor(np.array([1.0, 2.0]), stop_gradient=False)
    with pytest.raises(ValueError, match="add_: leaf Tensor"):
        a.add_(paddle.ones([2], dtype="float64"))


def test_where_in_place_writes_into_x():
    c = paddle.to_tensor(np.array([True, False, True]))
    x = paddle.to_tensor(np.array([1.0, 2.0, 3.0]))
    assert paddle.where_(c, x, paddle.zeros([3], dtype="float64")) is x
    np.testing.assert_array_equal(x.numpy(), [1.0, 0.0, 3.0])
