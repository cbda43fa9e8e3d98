"""ONNX export of the Program lowerings of advanced indexing (runtime/api/indexing_advanced.py):
gather_nd / where_index / transpose2 reads, index_put writes (duplicates included: the last writer wins,
as in our executor), and slice / strided_slice / set_value whose bounds, steps or values are tensors.
Every model runs in onnxruntime against our executor on feeds of several sizes."""
import numpy as np
import pytest

import runtime as paddle
from runtime import static
from runtime.onnx import UnsupportedOpError

from .helpers import build, needs_ort, parity, static_mode  # noqa: F401

pytestmark = [pytest.mark.usefixtures("static_mode"), needs_ort]

_R = np.random.RandomState(7)
X = _R.randn(5, 4, 3).astype("float32")


def _x():
    return static.data("x", [None, 4, 3], "float32")


def _feeds(**extra):
    """Feeds with x of 5 and of 6 rows and the given extra inputs (name -> list of two arrays)."""
    xs = [X, _R.randn(6, 4, 3).astype("float32")]
    return [dict(x=xs[k], **{n: v[k] for n, v in extra.items()}) for k in range(2)]


def _i64(*vals):
    return [np.array(v, dtype=np.int64) for v in vals]


# -- reads -------------------------------------------------------------------------------------------

def test_two_int_tensor_indices_gather_nd():
    def fn():
        i, j = static.data("i", [None], "int64"), static.data("j", [None], "int64")
        return _x()[i, j] * 2.0
    parity(build(fn), _feeds(i=_i64([0, 4, 4], [1, -1]), j=_i64([3, 0, 1], [2, 2])))


def test_non_adjacent_indices_transpose_the_result():
    def fn():
        i, j = static.data("i", [2], "int64"), static.data("j", [2], "int64")
        return _x()[i, :, j] + 1.0
    parity(build(fn), _feeds(i=_i64([0, 4], [-1, 2]), j=_i64([2, 0], [1, 1])))


def test_indices_after_a_slice_keep_their_place():
    def fn():
        j, k = static.data("j", [None], "int64"), static.data("k", [None], "int64")
        return _x()[1:, j, k]
    parity(build(fn), _feeds(j=_i64([0, 3], [1]), k=_i64([2, 1], [0])))


def test_bool_mask_and_int_index_use_where_index():
    def fn():
        m = static.data("m", [4], "bool")
        j = static.data("j", [1], "int64")
        return _x()[:, m, j]
    parity(build(fn), _feeds(m=[np.array([True, False, True, True]), np.array([False, True, False, False])],
                             j=_i64([2], [0])))


def test_zero_d_tensor_index_and_tensor_slice_bounds():
    def fn():
        i = static.data("i", [], "int64")
        a, b = static.data("a", [], "int32"), static.data("b", [], "int64")
        x = _x()
        return x[i] + x[a:b].sum(axis=0)
    parity(build(fn), _feeds(i=_i64(-1, 2), a=[np.array(1, np.int32), np.array(-4, np.int32)],
                             b=_i64(3, 100)))


def test_tensor_step():
    def fn():
        s = static.data("s", [], "int64")
        return _x()[4:0:s]
    parity(build(fn), _feeds(s=_i64(-2, -1)))


# -- writes ------------------------------------------------------------------------------------------

def test_assign_a_tensor_at_a_zero_d_index():
    def fn():
        i = static.data("i", [], "int64")
        v = static.data("v", [4, 3], "float32")
        return static.setitem(_x() * 1.0, i, v) * 2.0
    parity(build(fn), _feeds(i=_i64(1, -1), v=[_R.randn(4, 3).astype("float32")] * 2))


def test_assign_into_tensor_slice_bounds_with_a_broadcast_value():
    def fn():
        a, b = static.data("a", [], "int64"), static.data("b", [], "int64")
        v = static.data("v", [3], "float32")
        return static.setitem(_x() * 1.0, (slice(a, b), 2), v)
    parity(build(fn), _feeds(a=_i64(1, -3), b=_i64(4, 100), v=[np.arange(3, dtype="float32")] * 2))


def test_assign_with_a_tensor_step():
    def fn():
        s = static.data("s", [], "int64")
        return static.setitem(_x() * 1.0, slice(4, None, s) if False else slice(4, 0, s), 9.0)
    parity(build(fn), _feeds(s=_i64(-2, -3)))


def test_assign_a_tensor_region_with_constant_bounds():
    def fn():
        v = static.data("v", [2, 1, 3], "float32")
        return static.setitem(_x() * 1.0, (slice(1, 3), slice(None, None, 2)), v)
    parity(build(fn), _feeds(v=[_R.randn(2, 1, 3).astype("float32")] * 2))


def test_index_put_with_duplicate_positions_takes_the_last_value():
    def fn():
        i, j = static.data("i", [None], "int64"), static.data("j", [None], "int64")
        v = static.data("v", [None], "float32")
        return static.setitem(_x() * 1.0, (i, j), v[:, None] * 1.0)
    feeds = _feeds(i=_i64([0, 2, 0, 0], [1, 1, 1]), j=_i64([1, 3, 1, -3], [0, 0, 2]),
                   v=[np.array([1, 2, 3, 4], "float32"), np.array([5, 6, 7], "float32")])
    parity(build(fn), feeds)


def test_index_put_after_a_slice_writes_back_with_set_value():
    def fn():
        j = static.data("j", [None], "int64")
        v = static.data("v", [3], "float32")
        return static.setitem(_x() * 1.0, (slice(1, None), j), v)
    parity(build(fn), _feeds(j=_i64([0, 3], [2]), v=[np.array([1, 2, 3], "float32")] * 2))


def test_index_put_with_a_bool_mask_and_an_int_index():
    def fn():
        m = static.data("m", [4], "bool")
        j = static.data("j", [1], "int64")
        return static.setitem(_x() * 1.0, (slice(None), m, j), -1.0)
    parity(build(fn), _feeds(m=[np.array([True, False, True, True]), np.array([False, True, False, False])],
                             j=_i64([2], [0])))


def test_index_put_duplicates_give_every_duplicate_the_last_update():
    # onnxruntime happens to scatter in order; ONNX does not promise it, so the exported graph must
    # hand ScatterND equal updates for equal positions. Read ScatterND's inputs back to check that.
    import onnx
    import onnxruntime as ort

    def fn():
        i, j = static.data("i", [None], "int64"), static.data("j", [None], "int64")
        v = static.data("v", [None], "float32")
        return static.setitem(_x() * 1.0, (i, j), v[:, None] * 1.0)
    model = build(fn).export(13)
    scatter = [n for n in model.graph.node if n.op_type == "ScatterND"]
    assert len(scatter) == 1
    coords, updates = scatter[0].input[1], scatter[0].input[2]
    model.graph.output.extend([onnx.helper.make_tensor_value_info(coords, onnx.TensorProto.INT64, None),
                               onnx.helper.make_tensor_value_info(updates, onnx.TensorProto.FLOAT, None)])
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feed = dict(x=X, i=np.array([0, 2, 0, 0, 2], np.int64), j=np.array([1, 3, 1, 1, -1], np.int64),
                v=np.array([1, 2, 3, 4, 5], np.float32))
    _, c, u = sess.run(None, feed)
    assert c.reshape(-1, 2).tolist() == [[0, 1], [2, 3], [0, 1], [0, 1], [2, 3]]
    assert u.reshape(5, -1)[:, 0].tolist() == [4, 5, 4, 4, 5]


def test_index_put_accumulate_exports_from_opset_16_and_is_refused_before():
    def fn():
        i = static.data("i", [None], "int64")
        v = static.data("v", [None], "float32")
        return paddle.index_put(_x() * 1.0, (i, paddle.zeros_like(i)), v[:, None] * 1.0, accumulate=True)
    feeds = _feeds(i=_i64([0, 2, 0], [1, 1]), v=[np.array([1, 2, 3], "float32"), np.array([5, 6], "float32")])
    b = build(fn)
    parity(b, feeds, opset=16)
    with pytest.raises(UnsupportedOpError, match="'index_put'.*opset"):
        b.export(13)
