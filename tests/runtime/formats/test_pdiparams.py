"""The .pdiparams tensor stream and the .pdiparams.info pickle (FORMATS.md §5, §6)."""
import os
import pathlib
import pickle
import struct

import numpy as np
import pytest

from runtime.errors import UnsafePickleError
from runtime.formats.errors import ModelFormatError, UnsafeInfoError
from runtime.formats.pdiparams import (code_of_dtype, info_to_bytes, params_to_bytes, read_info, read_params,
                                       tensor_to_bytes)
from runtime.formats.proto import TensorDesc

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "paddle-3.3.1"
LR = FIXTURES / "linear_relu"
LR_SPECS = [("linear_0.w_0", 5, [4, 3]), ("linear_0.b_0", 5, [3])]


def header(desc: bytes) -> bytes:
    return struct.pack("<IQIi", 0, 0, 0, len(desc)) + desc


def test_real_params_file_reads_and_rewrites_byte_identical():
    data = (LR / "model.pdiparams").read_bytes()
    params = read_params(data, LR_SPECS, "model.pdiparams")
    assert sorted(params) == ["linear_0.b_0", "linear_0.w_0"]
    assert params["linear_0.w_0"].shape == (4, 3) and params["linear_0.w_0"].dtype == np.float32
    np.testing.assert_allclose(params["linear_0.w_0"][0, :2], [-0.3474888, -0.6912584], rtol=1e-6)
    np.testing.assert_array_equal(params["linear_0.b_0"], np.zeros(3, np.float32))
    assert params_to_bytes(params) == data
    assert params["linear_0.w_0"].flags.writeable   # a copy, not a view of the file's bytes


def test_tensor_layout():
    b = tensor_to_bytes(np.arange(6, dtype=np.float32).reshape(2, 3))
    desc = bytes.fromhex("080510021003")
    assert b[:26] == header(desc)
    assert b[26:] == np.arange(6, dtype="<f4").tobytes()


def test_params_are_written_in_sorted_name_order():
    b = params_to_bytes({"b": np.zeros(1, np.float32), "a": np.ones(2, np.float32), "B": np.full(3, 2, np.float32)})
    got = read_params(b, [("a", 5, [2]), ("b", 5, [1]), ("B", 5, [3])])
    # byte order: "B" < "a" < "b"
    assert b.index(np.full(3, 2, "<f4").tobytes()) < b.index(np.ones(2, "<f4").tobytes())
    np.testing.assert_array_equal(got["B"], [2, 2, 2])


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "float32",
                                   "float64", "complex64", "complex128", "uint16", "uint32", "uint64"])
def test_every_dtype_round_trips(dtype):
    rng = np.random.default_rng(0)
    a = (rng.random((2, 3)) * 100).astype(dtype)
    got = read_params(tensor_to_bytes(a), [("x", code_of_dtype(a.dtype), [2, 3])])["x"]
    assert got.dtype == a.dtype
    np.testing.assert_array_equal(got, a)


def test_zero_d_and_empty_tensors():
    b = tensor_to_bytes(np.float64(2.5)) + tensor_to_bytes(np.zeros((0, 3), np.float32))
    got = read_params(b, [("a", 6, []), ("b", 5, [0, 3])])
    assert got["a"].shape == () and got["a"] == 2.5
    assert got["b"].shape == (0, 3)


def test_big_endian_input_is_stored_little_endian():
    a = np.arange(3, dtype=">i4")
    assert tensor_to_bytes(a)[-12:] == np.arange(3, dtype="<i4").tobytes()


def test_lod_levels_are_skipped():
    desc = bytes.fromhex("08051002")
    lod = struct.pack("<Q", 16) + struct.pack("<QQ", 0, 2)
    b = struct.pack("<IQ", 0, 1) + lod + struct.pack("<Ii", 0, len(desc)) + desc + np.ones(2, "<f4").tobytes()
    np.testing.assert_array_equal(read_params(b, [("x", 5, [2])])["x"], [1, 1])


def test_empty_file_for_no_params():
    assert params_to_bytes({}) == b""
    assert read_params(b"", []) == {}


@pytest.mark.parametrize("mutate,match", [
    (lambda b: b[:-1], "truncated"),
    (lambda b: b[:10], "truncated"),
    (lambda b: b + b"\0", "trailing bytes"),
    (lambda b: b"\1" + b[1:], "DenseTensor version"),
    (lambda b: b[:12] + b"\1" + b[13:], "tensor version"),
    (lambda b: b[:16] + struct.pack("<i", -5) + b[20:], "negative TensorDesc size"),
    (lambda b: b[:20] + b"\xff" + b[21:], "bad TensorDesc"),
    (lambda b: b[:21] + b"\x06" + b[22:], "stored data type FP64 does not match the program's FP32"),
    (lambda b: b[:4] + struct.pack("<Q", 2 ** 40) + b[12:], "lod level"),
])
def test_bad_streams_raise_model_format_error(mutate, match):
    good = tensor_to_bytes(np.ones((2, 3), np.float32))
    with pytest.raises(ModelFormatError, match=match) as e:
        read_params(mutate(good), [("w", 5, [2, 3])], "m.pdiparams")
    assert str(e.value).startswith("m.pdiparams: ")


def test_shape_mismatch_and_missing_tensor():
    good = tensor_to_bytes(np.ones((2, 3), np.float32))
    with pytest.raises(ModelFormatError, match=r"stored shape \[2, 3\] does not match the program's \[3, 2\]"):
        read_params(good, [("w", 5, [3, 2])])
    read_params(good, [("w", 5, [-1, 3])])   # -1 matches any size
    with pytest.raises(ModelFormatError, match="parameter 'w2'.*truncated|truncated.*w2"):
        read_params(good, [("w", 5, [2, 3]), ("w2", 5, [1])])


# -- .pdiparams.info ----------------------------------------------------------------------------------

def test_real_info_file():
    info = read_info((LR / "model.pdiparams.info").read_bytes())
    assert info == {"linear_0.b_0": {"stop_gradient": False, "structured_name": "fc.bias", "trainable": True},
                    "linear_0.w_0": {"stop_gradient": False, "structured_name": "fc.weight", "trainable": True}}


def test_info_is_a_protocol_2_pickle():
    b = info_to_bytes({"w": {"stop_gradient": False, "structured_name": "fc.weight", "trainable": True}})
    assert b[:3] == bytes.fromhex("80027d")
    assert read_info(b)["w"]["structured_name"] == "fc.weight"


class _Evil:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


def test_crafted_info_pickle_runs_nothing(tmp_path):
    marker = tmp_path / "pwned"
    data = pickle.dumps({"w": {"stop_gradient": _Evil(marker)}}, protocol=2)
    with pytest.raises(UnsafeInfoError, match="refusing to load the global") as e:
        read_info(data, "m.pdiparams.info")
    assert isinstance(e.value, ModelFormatError) and isinstance(e.value, UnsafePickleError)
    assert "m.pdiparams.info" in str(e.value)
    assert not marker.exists()


@pytest.mark.parametrize("obj", [np.ones(2), {"w": {"x": np.float32(1)}}, {"w": {1, 2}}, {"w": b"bytes"}])
def test_info_refuses_non_plain_data(obj):
    with pytest.raises(UnsafeInfoError):
        read_info(pickle.dumps(obj, protocol=2))


@pytest.mark.parametrize("obj,match", [([1, 2], "must hold a dict"), ({"w": 1}, "map a variable name to a dict"),
                                       ({1: {}}, "map a variable name to a dict")])
def test_info_structure_is_checked(obj, match):
    with pytest.raises(ModelFormatError, match=match):
        read_info(pickle.dumps(obj, protocol=2))


def test_malformed_info_pickles():
    for data in (b"", b"\x80\x02", b"\x80\x02}q\x00(", b"garbage", b"\x80\x02\x8e" + b"\xff" * 8):
        with pytest.raises(ModelFormatError, match="not a valid .pdiparams.info pickle"):
            read_info(data)


def test_deeply_nested_info_is_refused_without_recursion():
    n = 200000   # hand-made pickle: n nested lists under key "w" (far deeper than the recursion limit)
    data = b"\x80\x02}X\x01\x00\x00\x00w" + b"]" * n + b"a" * (n - 1) + b"s."
    with pytest.raises(ModelFormatError, match="m.pdiparams.info: .*nested more than 100 levels"):
        read_info(data, "m.pdiparams.info")


@pytest.mark.parametrize("data", [
    b"\x80\x02]q\x00h\x00a.",                                        # [L] where L is the list itself
    b"\x80\x02}q\x00X\x01\x00\x00\x00wq\x01]q\x02h\x02as.",         # {"w": L}, L = [L]
    b"\x80\x02}q\x00X\x01\x00\x00\x00wh\x00s.",                       # {"w": <the dict itself>}
])
def test_self_referencing_info_is_refused(data):
    # regression: walking a list that contains itself looped forever (jit.load, dy2st inspect and
    # load_inference_model hung on a 17-byte file)
    with pytest.raises(ModelFormatError, match="m.pdiparams.info: .*contains itself"):
        read_info(data, "m.pdiparams.info")


@pytest.mark.parametrize("entry,match", [({"stop_gradient": [1]}, "stop_gradient of type list"),
                                         ({"stop_gradient": True, "structured_name": 3}, "structured_name of type int"),
                                         ({"stop_gradient": True, "trainable": "yes"}, "trainable of type str")])
def test_info_entry_types_are_checked(entry, match):
    with pytest.raises(ModelFormatError, match=match):
        read_info(pickle.dumps({"w": entry}, protocol=2), "m.pdiparams.info")


def test_params_with_huge_dims_and_no_elements():
    # regression: dims [0, 2**62] need no bytes, and numpy's reshape then raised a bare ValueError
    desc = TensorDesc(data_type=5, dims=[0, 2 ** 62]).SerializeToString()
    data = b"".join((struct.pack("<I", 0), struct.pack("<Q", 0), struct.pack("<I", 0),
                     struct.pack("<i", len(desc)), desc))
    with pytest.raises(ModelFormatError, match=r"p.pdiparams: parameter 'w': stored shape .*dimension above"):
        read_params(data, [("w", 5, [-1, -1])], "p.pdiparams")


def test_params_bool_bytes_must_be_0_or_1():
    data = bytearray(tensor_to_bytes(np.array([True, False])))
    data[-1] = 7
    with pytest.raises(ModelFormatError, match="bool tensor holds bytes other than 0 and 1"):
        read_params(bytes(data), [("b", 0, [2])], "p.pdiparams")
