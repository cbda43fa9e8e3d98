"""write_files_atomically: complete files with the usual permissions, nothing left on failure."""
import os

import pytest

from runtime.utils.atomic_write import write_files_atomically


def test_files_get_umask_permissions_not_mkstemp_0600(tmp_path):
    old = os.umask(0o022)
    try:
        write_files_atomically([(str(tmp_path / "a.bin"), b"abc"), (str(tmp_path / "sub" / "b.bin"), b"")])
    finally:
        os.umask(old)
    assert (tmp_path / "a.bin").read_bytes() == b"abc"
    assert (tmp_path / "sub" / "b.bin").read_bytes() == b""
    assert os.stat(tmp_path / "a.bin").st_mode & 0o777 == 0o644


def test_failure_leaves_old_files_and_no_temporaries(tmp_path):
    target = tmp_path / "m.pdmodel"
    target.write_bytes(b"old")


    with pytest.raises(TypeError):
        write_files_atomically([(str(target), b"new"), (str(tmp_path / "x"), object())])
    assert target.read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["m.pdmodel"]
