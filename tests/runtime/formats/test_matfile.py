"""runtime.formats.matfile reads MATLAB level-5 files: numeric classes, a stored type smaller than the
class, zlib-compressed variables, small data elements, both byte orders, char and complex arrays; and
refuses what it cannot read (cells, structs, truncated or lying lengths, v7.3 HDF5) with MatFileError."""
import struct
import zlib

import numpy as np
import pytest

from runtime.formats.matfile import MatFileError, loadmat
from tests.runtime.formats import matwriter

RS = np.random.RandomState(0)
VARIABLES = {
    "labels": RS.randint(1, 103, size=(1, 37)).astype("f8"),
    "x": RS.standard_normal((3, 4, 2)),
    "ids": np.arange(12, dtype="u2").reshape(3, 4),
    "single": RS.standard_normal((2, 5)).astype("f4"),
    "i64": np.array([[-5, 7, 1 << 40]], dtype="i8"),
    "z": (RS.standard_normal((2, 2)) + 1j * RS.standard_normal((2, 2))),
    "empty": np.zeros((0, 3)),
}


@pytest.mark.parametrize("endian", ["<", ">"])
@pytest.mark.parametrize("compress", [False, True])
def test_round_trip(tmp_path, endian, compress):
    path = tmp_path / "v.mat"
    matwriter.write(path, VARIABLES, endian=endian, compress=compress, store={"labels": "u1"})
    got = loadmat(path)
    assert sorted(got) == sorted(VARIABLES)
    for name, want in VARIABLES.items():
        assert got[name].dtype == want.dtype, name
        assert got[name].shape == want.shape, name
        np.testing.assert_array_equal(got[name], want)


def test_char_arrays_are_one_string_per_row(tmp_path):
    path = tmp_path / "c.mat"
    matwriter.write(path, {"names": np.array(["abc", "xyz"])})
    np.testing.assert_array_equal(loadmat(path)["names"], ["abc", "xyz"])


def _cell(tmp_path):
    body = matwriter.element(6, struct.pack("<II", 1, 0), "<", small_ok=False)      # class 1: cell
    body += matwriter.element(5, struct.pack("<2i", 1, 1), "<", small_ok=False)
    body += matwriter.element(1, b"c", "<")
    path = tmp_path / "cell.mat"
    path.write_bytes(b"MATLAB 5.0".ljust(124, b" ") + struct.pack("<H", 0x0100) + b"IM"
                     + struct.pack("<II", 14, len(body)) + body)
    return path


def test_refusals(tmp_path):
    with pytest.raises(MatFileError, match="cell array"):
        loadmat(_cell(tmp_path))
    good = tmp_path / "g.mat"
    matwriter.write(good, {"labels": VARIABLES["labels"]})
    raw = good.read_bytes()
    for cut in (3, 100, 130, len(raw) - 9):
        bad = tmp_path / f"cut{cut}.mat"
        bad.write_bytes(raw[:cut])
        with pytest.raises(MatFileError):
            loadmat(bad)
    lying = bytearray(raw)
    struct.pack_into("<I", lying, 132, 1 << 30)              # the matrix claims 1 GiB
    (tmp_path / "lying.mat").write_bytes(bytes(lying))
    with pytest.raises(MatFileError, match="claims"):
        loadmat(tmp_path / "lying.mat")
    (tmp_path / "h5.mat").write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 600)
    with pytest.raises(MatFileError, match="HDF5"):
        loadmat(tmp_path / "h5.mat")


def test_decompression_is_bounded(tmp_path, monkeypatch):
    from runtime.formats import matfile
    good = tmp_path / "g.mat"
    matwriter.write(good, {"labels": VARIABLES["labels"]})
    bomb = zlib.compress(b"\0" * (1 << 20))
    (tmp_path / "z.mat").write_bytes(good.read_bytes()[:128] + struct.pack("<II", 15, len(bomb)) + bomb)
    assert loadmat(tmp_path / "z.mat") == {}          # zeros inflate to an empty element: no variable
    monkeypatch.setattr(matfile, "_MAX_INFLATE", 1 << 16)
    with pytest.raises(MatFileError, match="inflates past"):
        loadmat(tmp_path / "z.mat")


def test_hostile_bytes_only_raise_matfileerror(tmp_path):
    good = tmp_path / "g.mat"
    matwriter.write(good, VARIABLES, compress=True)
    raw = bytearray(good.read_bytes())
    rng = np.random.RandomState(5)
    for i in range(300):
        mutant = bytearray(raw)
        for _ in range(rng.randint(1, 6)):
            mutant[rng.randint(128, len(mutant))] = rng.randint(256)
        path = tmp_path / "m.mat"
        path.write_bytes(bytes(mutant))
        try:
            loadmat(path)
        except MatFileError:
            pass
