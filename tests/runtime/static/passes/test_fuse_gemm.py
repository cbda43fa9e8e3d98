"""fuse_gemm: matmul + bias add [+ relu / gelu] -> fused_gemm_epilogue (when nothing else reads the
product or the sum)."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from runtime import static

from .util import assert_same_on_off, build, op_types, optimized

FEED = {"x": np.random.default_rng(0).standard_normal((5, 8)).astype(np.float32)}
PASSES = ["dce", "fuse_gemm"]


def layer(act=None, fetch_product=False, bias_left=False):
    def f():
        x = static.data("x", [-1, 8], "float32")
        w = static.create_parameter([8, 4], "float32", name="w_g")
        b = static.create_parameter([4], "float32", name="b_g", is_bias=False)
        p = paddle.matmul(x, w)
        h = b + p if bias_left else p + b
        out = act(h) if act else h
        return (out, p) if fetch_product else (out,)
    return build(f)


@pytest.mark.parametrize("act,expected", [(None, "none"), (F.relu, "relu"), (F.gelu, "gelu")])
def test_fused(act, expected):
    main, startup, fetch = layer(act)
    prog = optimized(main, ["x"], fetch, PASSES)
    assert op_types(prog) == ["fused_gemm_epilogue"]
    assert prog.global_block().ops[0].attrs["activation"] == expected
    assert_same_on_off(main, FEED, fetch, PASSES, startup=startup)


def test_tanh_gelu_and_fetched_product_and_left_bias_not_fused():
    main, startup, fetch = layer(lambda h: F.gelu(h, approximate=True))
    assert op_types(optimized(main, ["x"], fetch, PASSES)) == ["fused_gemm_epilogue", "gelu"]
    main, startup, fetch = layer(F.relu, fetch_product=True)
    assert op_types(optimized(main, ["x"], fetch, PASSES)) == ["matmul_v2", "elementwise_add", "relu"]
    assert_same_on_off(main, FEED, fetch, PASSES, startup=startup)
    main, startup, fetch = layer(None, bias_left=True)
    assert op_types(optimized(main, ["x"], fetch, PASSES)) == ["matmul_v2", "elementwise_add"]


def test_static_fc_mul_fuses():
    def f():
        x = static.data("x", [-1, 8], "float32")
        return static.nn.fc(x, 4, activation="relu")
    main, startup, out = build(f)
    before = op_types(main)
    prog = optimized(main, ["x"], [out], PASSES)
    assert "fused_gemm_epilogue" in op_types(prog) and len(op_types(prog)) < len(before)
    assert_same_on_off(main, FEED, [out], PASSES, startup=startup)
