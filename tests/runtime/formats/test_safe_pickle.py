"""The restricted unpickler: plain data and numpy arrays load; everything else is refused unexecuted."""
import collections
import io
import os
import pathlib
import pickle

import numpy as np
import pytest

from runtime.errors import UnsafePickleError
from runtime.formats.safe_pickle import safe_load, safe_loads


class _RunsShell:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


class _CallsEval:
    def __reduce__(self):
        return (eval, ("1 + 1",))


class _Custom:
    pass


def test_malicious_reduce_is_refused_and_not_executed(tmp_path):
    marker = tmp_path / "pwned"
    data = pickle.dumps({"weights": np.ones(2), "x": _RunsShell(marker)}, protocol=4)
    assert pickle.loads(pickle.dumps(1)) == 1          # sanity: plain pickle works
    with pytest.raises(UnsafePickleError, match=r"'(posix|os|nt)\.system'"):
        safe_loads(data)
    assert not marker.exists()


@pytest.mark.parametrize("obj, name", [(_CallsEval(), "builtins.eval"),
                                       (_Custom(), "_Custom"),
                                       (getattr, "builtins.getattr")])
def test_other_globals_are_refused(obj, name):
    with pytest.raises(UnsafePickleError, match=name):
        safe_loads(pickle.dumps(obj, protocol=4))


def test_object_array_with_malicious_element(tmp_path):
    marker = tmp_path / "pwned2"
    arr = np.empty(2, dtype=object)
    arr[0], arr[1] = 1, _RunsShell(marker)
    # refused at its dtype, before the elements (and the global they name) are read
    with pytest.raises(UnsafePickleError, match="'O8'.*object"):
        safe_loads(pickle.dumps(arr))
    assert not marker.exists()


def test_persistent_ids_are_refused():
    # PROTO 2, BINPERSID on the string "x", STOP
    data = b"\x80\x02X\x01\x00\x00\x00xQ."
    with pytest.raises(UnsafePickleError, match="persistent"):
        safe_loads(data)


def test_codecs_encode_only_latin1():
    data = pickle.dumps(bytearray(b"ab"), protocol=2).replace(b"latin1", b"rot_13")
    with pytest.raises(UnsafePickleError, match="rot_13"):
        safe_loads(data)


PLAIN = {
    "f32": np.arange(6, dtype=np.float32).reshape(2, 3),
    "f16": np.array([1.5, -2.0], dtype=np.float16),
    "i8": np.array([-1, 2], dtype=np.int8),
    "bool": np.array([True, False]),
    "c64": np.array([1 + 2j], dtype=np.complex64),
    "zero_d": np.array(3.0),
    "fortran": np.asfortranarray(np.arange(6.0).reshape(2, 3)),
    "scalar": np.float32(2.5),
    "i64scalar": np.int64(7),
    "dtype": np.dtype("float64"),
    "ordered": collections.OrderedDict([("b", 1), ("a", 2)]),
    "containers": [(1, 2.5, None, True), {3, 4}, frozenset({5}), b"raw", bytearray(b"ba"), 1 + 2j, "s"],
}


@pytest.mark.parametrize("protocol", [0, 1, 2, 3, 4, 5])
def test_plain_data_loads_under_every_protocol(protocol):
    got = safe_loads(pickle.dumps(PLAIN, protocol=protocol))
    assert got.keys() == PLAIN.keys()
    for k, v in PLAIN.items():
        if isinstance(v, np.ndarray):
            assert got[k].dtype == v.dtype
            np.testing.assert_array_equal(got[k], v)
        else:
            assert got[k] == v and type(got[k]) is type(v)


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_object_arrays_are_refused_even_with_plain_elements(protocol):
    # an object array's elements are references: with numpy's own unpickling a crafted state can
    # make them raw pointer values; a Paddle file never holds one
    arr = np.array([1, "a", None], dtype=object)
    with pytest.raises(UnsafePickleError, match="object"):
        safe_loads(pickle.dumps(arr, protocol=protocol))


def test_safe_load_path_and_file_object(tmp_path):
    path = tmp_path / "d.pkl"
    path.write_bytes(pickle.dumps({"a": np.ones(2)}))
    assert safe_load(str(path))["a"].tolist() == [1.0, 1.0]
    assert safe_load(path)["a"].tolist() == [1.0, 1.0]
    with open(path, "rb") as f:
        assert safe_load(f)["a"].tolist() == [1.0, 1.0]
    assert safe_load(io.BytesIO(path.read_bytes()))["a"].tolist() == [1.0, 1.0]


SEEDS = sorted((pathlib.Path(__file__).resolve().parent / "fuzz_seeds").iterdir())


def _same(a, b):
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    if isinstance(a, dict):
        return type(a) is type(b) and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("path", SEEDS, ids=[p.name for p in SEEDS])
def test_files_real_paddle_wrote_unpickle_as_pickle_does(path):
    # fuzz_seeds/ holds .pdparams/.pdopt files written by PaddlePaddle 3.3.1 (protocols 2 and 4); they are
    # trusted, so Python's own unpickler is the oracle here
    data = path.read_bytes()
    assert _same(safe_loads(data, encoding="latin1"), pickle.loads(data, encoding="latin1"))
