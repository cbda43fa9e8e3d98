"""Tensor basics: construction dtype rules, metadata, data access, printing, Parameter."""
import copy
import pickle

import numpy as np
import pytest

import runtime as paddle
from runtime.tensor import Tensor, Parameter


def test_python_scalars_follow_paddle_dtypes():
    assert Tensor(1.5).dtype == paddle.float32
    assert Tensor(3).dtype == paddle.int64
    assert Tensor(True).dtype == paddle.bool
    assert Tensor([[1.0, 2.0]]).dtype == paddle.float32
    assert Tensor(np.zeros(2, np.float64)).dtype == paddle.float64   # numpy dtype is kept
    assert Tensor([1, 2], dtype="float64").dtype == paddle.float64


def test_metadata():
    t = Tensor(np.zeros((2, 3, 4), np.float32))
    assert t.shape == [2, 3, 4] and isinstance(t.shape, list)
    assert t.ndim == 3 and t.size == 24 and t.numel() == 24
    assert t.stop_gradient is True and t.grad is None and t.is_leaf
    assert str(t.place) == "Place(cpu)"


def test_item_tolist_numpy():
    t = Tensor([[1.0, 2.0], [3.0, 4.0]])
    assert t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert Tensor(2.5).item() == 2.5
    with pytest.raises(ValueError, match="exactly one element"):
        t.item()
    arr = t.numpy()
    assert isinstance(arr, np.ndarray) and arr.dtype == np.float32


def test_bool_int_float_conversions():
    assert bool(Tensor([1.0])) and not bool(Tensor(0))
    assert int(Tensor(3.7)) == 3 and float(Tensor(2)) == 2.0
    with pytest.raises(ValueError, match="ambiguous"):
        bool(Tensor([1.0, 2.0]))
    assert [10, 20, 30][Tensor(1)] == 20
    assert [1][Tensor(0.0)] == 1            # Paddle 3.3.1 converts any 0-D tensor (float too)
    assert [1, 2][Tensor([1])] == 2         # a one-element 1-D tensor: Paddle refuses, dy2st accepts (range(n))
    with pytest.raises(AssertionError):
        [1][Tensor([0, 1])]


def test_ragged_and_string_data_rejected():
    with pytest.raises(TypeError, match="ragged"):
        Tensor([[1, 2], [3]])
    with pytest.raises(TypeError, match="strings"):
        Tensor(["a"])


def test_set_value_detach_clone_independent():
    t = Tensor([1.0, 2.0])
    t.set_value(np.array([5, 6]))
    assert t.dtype == paddle.float32 and t.tolist() == [5.0, 6.0]
    with pytest.raises(ValueError, match="does not match"):
        t.set_value(np.zeros(3))
    d = t.detach()
    assert d._data is t._data          # detach shares the data
    a = t.numpy()
    a[0] = 9.0                         # numpy() is a copy, as Paddle's
    assert t.tolist() == [5.0, 6.0]


def test_repr_matches_paddle_layout():
    # Layouts observed from real Paddle 3.3.1 (see the issue note on printing).
    assert repr(Tensor([[1.0, 2, 3], [4, 5, 6]])) == (
        "Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,\n"
        "       [[1., 2., 3.],\n        [4., 5., 6.]])")
    assert repr(Tensor(1.5)).endswith("\n       1.50000000)")
    assert repr(Tensor([True, False])).endswith("[True , False])")
    assert repr(Tensor([-1.0, 2.0])).endswith("[-1.,  2.])")
    assert repr(Tensor([1.5, -2.0, 3.0])).endswith("[1.50000000, -2.       ,  3.       ])")
    assert repr(Tensor([1, 10, -3])).endswith("[ 1, 10, -3])")
    assert repr(Tensor([float("nan"), float("inf"), -2.5])).endswith("[ nan       ,  inf.      , -2.50000000])")
    long = repr(Tensor(np.arange(30.0, dtype=np.float32)))
    assert long.splitlines()[1] == "       [0. , 1. , 2. , 3. , 4. , 5. , 6. , 7. , 8. , 9. , 10., 11., 12., 13.,"
    big = repr(Tensor(np.arange(2000).reshape(2, 1000)))
    assert "[[0   , 1   , 2   , ..., 997 , 998 , 999 ]," in big
    assert repr(Tensor(np.zeros((2, 0), np.float32))).endswith("[[],\n        []])")


def test_parameter_defaults_and_repr():
    p = Parameter(np.ones(2, np.float32), name="w")
    assert p.stop_gradient is False and p.trainable and p.persistable
    p.trainable = False
    assert p.stop_gradient is True
    p.stop_gradient = False
    assert p.trainable
    assert repr(p).startswith("Parameter containing:\nTensor(shape=[2], dtype=float32")


def test_deepcopy_and_pickle_keep_values():
    p = Parameter(np.arange(3, dtype=np.float32), name="w")
    q = copy.deepcopy(p)
    assert isinstance(q, Parameter) and q.numpy() is not p.numpy() and q.tolist() == p.tolist()
    t = pickle.loads(pickle.dumps(Tensor([1.0, 2.0])))
    assert t.tolist() == [1.0, 2.0]


def test_dtype_objects():
    assert str(paddle.float32) == "paddle.float32"
    assert paddle.float32 == "float32" and paddle.float32 != paddle.float64
    from runtime.dtype import convert_dtype
    assert convert_dtype(np.int32) is paddle.int32 and convert_dtype("paddle.int64") is paddle.int64
    with pytest.raises(ValueError, match="unknown dtype"):
        convert_dtype("float33")


def test_shared_methods_work_on_tensors_and_static_variables():
    # Paddle: x.numel() is a 0-D int64 tensor; x.T, numel, ndimension... also exist under to_static
    t = paddle.ones([2, 3])
    n = t.numel()
    assert isinstance(n, paddle.Tensor) and n.shape == [] and n.dtype == paddle.int64 and int(n) == 6
    assert t.T.shape == [3, 2] and t.ndimension() == 2 and t.is_floating_point() and t.element_size() == 4
    from runtime import static
    paddle.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            v = static.data("v", [None, 3], "int32")
            assert v.T.shape == [3, -1] and v.numel().shape == [] and v.ndimension() == 2
            assert v.is_integer() and not v.is_floating_point() and v.element_size() == 4
    finally:
        paddle.disable_static()


INPLACE_VERSION_CODE = '''
def versions(paddle):
    x = paddle.ones([3])
    out = [x.inplace_version]
    x.add_(paddle.ones([3])); out.append(x.inplace_version)
    x[0] = 5; out.append(x.inplace_version)
    x.zero_(); out.append(x.inplace_version)
    x.set_value(paddle.zeros([3])); out.append(x.inplace_version)
    y = x.detach(); out.append(y.inplace_version)
    x.scale_(2.0); out.append(x.inplace_version)
    out.append(paddle.create_parameter([2], "float32").inplace_version)
    return out
'''


def test_inplace_version_counts_as_paddles(tmp_path):
    from tests.interop.paddle_runner import run_paddle
    proc = run_paddle(INPLACE_VERSION_CODE + "import json, paddle\njson.dump(versions(paddle), open('v.json', 'w'))\n",
                      tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    import json
    import dy2st
    ns = {}
    exec(INPLACE_VERSION_CODE, ns)
    assert ns["versions"](dy2st) == json.loads((tmp_path / "v.json").read_text())


SHAPE_CODE = '''
def shapes(paddle):
    s = paddle.ones([2, 3]).shape
    return [repr(s), str(s), s == (2, 3), (2, 3) == s, s == [2, 3], s != (2, 3), repr(s[1:]), repr(s + [4]),
            s.numel(), type(s[0]).__name__, isinstance(s, list), repr(paddle.to_tensor(1.0).shape)]
'''


def test_shape_is_a_size_as_paddles(tmp_path):
    from tests.interop.paddle_runner import run_paddle
    proc = run_paddle(SHAPE_CODE + "import json, paddle\njson.dump(shapes(paddle), open('s.json', 'w'))\n", tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    import json
    import dy2st
    ns = {}
    exec(SHAPE_CODE, ns)
    assert ns["shapes"](dy2st) == json.loads((tmp_path / "s.json").read_text())
