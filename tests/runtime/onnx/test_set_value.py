"""set_value (``x[index] = scalar``, what converted item assignment builds) lowers to Where over a
slice mask; dynamic batch dims stay symbolic. Tensor values (and tensor bounds, negative steps) lower to
ScatterND over the region (ops_index_write.py)."""
import numpy as np
import pytest

import runtime as paddle
from runtime import static

from .helpers import build, parity, static_mode  # noqa: F401

pytestmark = pytest.mark.usefixtures("static_mode")
FEEDS = [{"x": np.random.RandomState(s).randn(n, 6).astype("float32")} for s, n in ((0, 5), (1, 2), (2, 9))]


def _assign(index, value):
    def fn():
        x = static.data("x", [None, 6], "float32")
        return paddle.static.setitem(x * 1.0, index, value) * 2.0
    return fn


@pytest.mark.parametrize("index,value", [
    (0, 5.0),                                  # a row
    (-1, -2.0),                                # the last row (dynamic length)
    ((slice(None), 0), 3.0),                   # a column
    ((slice(1, 4), slice(2, None)), 0.5),      # a block
    ((slice(None, None, 2), slice(1, 6, 3)), 7.0),   # steps
    ((slice(-3, None), slice(None, -2)), 1.5),       # negative bounds
], ids=["row", "last_row", "column", "block", "steps", "negative"])
def test_set_value_scalar_matches_executor(index, value):
    parity(build(_assign(index, value)), FEEDS)


def test_set_value_with_a_tensor_region_exports_as_scatter_nd():
    # (once refused; test_index_lowerings.py covers tensor bounds, steps and regions more widely)
    def fn():
        x = static.data("x", [None, 6], "float32")
        v = static.data("v", [6], "float32")
        return paddle.static.setitem(x * 1.0, 0, v)
    v = np.arange(6, dtype="float32")
    model = parity(build(fn), [dict(f, v=v) for f in FEEDS])
    assert "ScatterND" in {n.op_type for n in model.graph.node}
