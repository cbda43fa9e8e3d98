"""write_files_atomically and its pieces: complete files with the usual permissions, nothing left on
failure, orphaned temporaries of the same path cleaned, a live writer's temporaries and user files
never touched."""
import os
import threading

import pytest

from runtime.utils import atomic_write
from runtime.utils.atomic_write import (DirLock, TempFile, remove_stale_temps, temp_path, temp_pattern,
                                        write_file_atomically, write_files_atomically)


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


def test_failing_rename_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "m.pdparams"
    target.write_bytes(b"old")

    def boom(*a, **k):
        raise OSError("disk full")
    monkeypatch.setattr(atomic_write.os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        write_file_atomically(target, b"new")
    monkeypatch.undo()
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["m.pdparams"]


def test_temp_pattern_matches_only_our_temporaries_of_that_file():
    pat = temp_pattern("a.pdiparams")
    ours = os.path.basename(temp_path("/x/a.pdiparams"))
    assert pat.match(ours)
    for other in [os.path.basename(temp_path("/x/a.pdiparams.info")),     # another member of the same prefix
                  os.path.basename(temp_path("/x/a.pdiparams.pdmodel")),  # a member of prefix "a.pdiparams"
                  os.path.basename(temp_path("/x/b.pdiparams")),
                  ".a.pdiparams.0123456789abcdef.tmp", ".a.pdiparams.0123456789ABCDEF.dy2st-tmp",
                  ".a.pdiparams.0123456789abcdef.dy2st-tmp.bak", "a.pdiparams", ".a.pdiparams.abc.dy2st-tmp"]:
        assert not pat.match(other), other


def test_an_orphan_is_cleaned_by_the_next_write_of_that_path_only(tmp_path):
    target = tmp_path / "m.pdparams"
    orphan = TempFile(target)          # a writer that died: its descriptor closed, its lock gone
    orphan.write(b"half")
    orphan.close()
    other = TempFile(tmp_path / "n.pdparams")
    other.close()
    user_files = [".m.pdparams.tmp", "m.pdparams.bak", ".m.pdparams.0123456789abcdef.tmp"]
    for n in user_files:
        (tmp_path / n).write_bytes(b"user data")
    write_file_atomically(target, b"new")
    assert target.read_bytes() == b"new"
    assert not os.path.exists(orphan.path)
    assert os.path.exists(other.path)                  # a temporary of another path waits for that path's write
    for n in user_files:
        assert (tmp_path / n).read_bytes() == b"user data"


def test_a_live_writers_temporary_is_not_removed(tmp_path):
    live = TempFile(tmp_path / "m.pdparams")           # still open: its flock is held
    try:
        with DirLock(str(tmp_path), exclusive=True):
            assert remove_stale_temps(str(tmp_path), ["m.pdparams"]) == 0
        assert os.path.exists(live.path)
    finally:
        live.discard()
    assert os.listdir(tmp_path) == []


def test_concurrent_writers_of_one_path_all_succeed(tmp_path):
    # each writer's cleanup must skip the others' live temporaries, or their renames would fail
    target = tmp_path / "m.pdparams"
    errors = []

    def writer(k):
        try:
            for i in range(30):
                write_file_atomically(target, bytes([k]) * 1000)
        except Exception as e:             # collected: an exception in a thread would not fail the test
            errors.append(e)
    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    data = target.read_bytes()
    assert len(data) == 1000 and len(set(data)) == 1
    assert os.listdir(tmp_path) == ["m.pdparams"]
