"""FileSet: a multi-file save that readers see old or new, never mixed, whatever step fails.

Faults are injected deterministically: every os call the protocol makes (open, write, fsync,
replace, unlink) is counted, and the k-th raises, for every k until a save runs through. The
kill-at-random-moments test with real models is tests/runtime/formats/test_save_crash.py."""
import json
import os
import pathlib
import shutil
import tempfile
import threading

import pytest

from runtime.utils import file_set as file_set_mod
from runtime.utils.atomic_write import TempFile
from runtime.utils.file_set import FileSet, FileSetError

OLD = {"m.info": b"old info", "m.params": b"old params" * 10, "m.model": b"old model"}
NEW = {"m.params": b"new params" * 20, "m.model": b"new model"}      # and m.info removed
FAULTY = ("open", "write", "fsync", "replace", "unlink")


def make_set(d):
    return FileSet([str(d / "m.info"), str(d / "m.params"), str(d / "m.model")], "m")


def files(d):
    return {n: (d / n).read_bytes() for n in sorted(os.listdir(d)) if (d / n).is_file()}


def read_set(fs):
    with fs.reading() as view:
        return {os.path.basename(m): open(p, "rb").read() for m, p in view.items()
                if p is not None and os.path.exists(p)}


def write_old(d):
    fs = make_set(d)
    fs.write({str(d / n): b for n, b in OLD.items()})
    return fs


def write_new(fs, d):
    fs.write({str(d / n): b for n, b in NEW.items()}, remove=[str(d / "m.info")])


class Faults:
    """Count the os calls named in FAULTY; the ``fail_at``-th raises ``exc``."""

    def __init__(self, monkeypatch, fail_at, exc=lambda: OSError(5, "injected I/O error")):
        self.calls, self.fail_at, self.fired, self.exc = 0, fail_at, None, exc
        for name in FAULTY:
            real = getattr(os, name)
            monkeypatch.setattr(os, name, self._wrap(name, real))

    def _wrap(self, name, real):
        def call(*a, **k):
            self.calls += 1
            if self.calls == self.fail_at:
                self.fired = name
                raise self.exc()
            return real(*a, **k)
        return call


def read_only(monkeypatch):
    """Make the directory look read-only (as a read-only mount does) and fail the test on any write."""
    monkeypatch.setattr(os, "access", lambda p, mode, **k: not (mode & os.W_OK))

    def no_write(name):
        def call(*a, **k):
            raise AssertionError(f"os.{name} called while reading a read-only directory")
        return call
    for name in ("replace", "rename", "unlink", "remove", "mkdir", "makedirs", "write"):
        monkeypatch.setattr(os, name, no_write(name))


def test_write_then_read(tmp_path):
    fs = write_old(tmp_path)
    assert files(tmp_path) == OLD
    write_new(fs, tmp_path)
    assert files(tmp_path) == NEW and read_set(fs) == NEW


@pytest.mark.parametrize("exc", [lambda: OSError(5, "injected I/O error"), lambda: KeyboardInterrupt()],
                         ids=["OSError", "KeyboardInterrupt"])
def test_a_fault_at_every_step_leaves_old_or_new_and_the_next_read_cleans_up(tmp_path, monkeypatch, exc):
    outcomes = []
    k = 1
    while True:
        d = tmp_path / f"k{k}"
        d.mkdir()
        fs = write_old(d)
        with monkeypatch.context() as mp:
            faults = Faults(mp, k, exc)
            try:
                write_new(fs, d)
                error = None
            except (OSError, KeyboardInterrupt) as e:
                error = e
        if faults.fired is None:
            assert error is None and files(d) == NEW
            break
        # a fault in a best-effort step (checking whether a temporary is orphaned) may pass silently;
        # then the save must have completed
        committed = error is None or any("was committed" in n for n in getattr(error, "__notes__", []))
        expected = NEW if committed else OLD
        # read-only first: the right set, and the directory left exactly as it was
        before = files(d)
        with monkeypatch.context() as mp:
            read_only(mp)
            assert read_set(fs) == expected, f"step {k} ({faults.fired})"
        assert files(d) == before
        # then a normal read: the same set, and nothing of ours left beside it
        assert read_set(fs) == expected
        assert files(d) == expected, f"step {k} ({faults.fired}) left {sorted(set(os.listdir(d)) - set(expected))}"
        outcomes.append((faults.fired, committed))
        k += 1
    # both sides of the commit point were reached, and every kind of call failed somewhere
    assert {c for _, c in outcomes} == {False, True}
    assert {f for f, _ in outcomes} == set(FAULTY)


def test_a_fault_during_recovery_still_reads_the_right_set(tmp_path, monkeypatch):
    d = tmp_path
    fs = write_old(d)

    def fail_after_commit(src, dst):
        if not os.path.basename(dst).endswith(".dy2st-commit"):
            raise OSError(5, "injected")
        return real_replace(src, dst)
    real_replace = os.replace
    with monkeypatch.context() as mp:
        mp.setattr(os, "replace", fail_after_commit)
        with pytest.raises(OSError):
            write_new(fs, d)
    assert fs.pending()
    k = 1
    while True:            # recovery failing at each of its steps: each read still gives the new set
        with monkeypatch.context() as mp:
            faults = Faults(mp, k)
            got = read_set(fs)
        assert got == NEW, f"recovery step {k} ({faults.fired})"
        if faults.fired is None:
            break
        k += 1
    assert files(d) == NEW and k > 3


def test_the_next_save_also_cleans_up(tmp_path):
    fs = write_old(tmp_path)
    # what a save killed before its commit leaves: unlocked temporaries of members and of the journal
    for n in ("m.model", "m.params", "m.info", ".m.dy2st-commit"):
        t = TempFile(tmp_path / n)
        t.write(b"half written")
        t.close()
    assert len(os.listdir(tmp_path)) == len(OLD) + 4
    write_new(fs, tmp_path)
    assert files(tmp_path) == NEW


def _read_as_nobody(fs):
    """read_set(fs) in a child process running as uid/gid 65534 (for root, who can write anywhere)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:   # pragma: no cover - child
        try:
            try:
                os.setgid(65534)
                os.setuid(65534)
            except OSError as e:
                out = {"skip": f"cannot drop privileges: {e}"}
            else:
                try:
                    out = {"ok": {k: v.decode() for k, v in read_set(fs).items()}}
                except BaseException as e:
                    out = {"error": f"{type(e).__name__}: {e}"}
            os.write(w, json.dumps(out).encode())
        finally:
            os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    out = json.loads(data)
    if "skip" in out:
        pytest.skip(out["skip"])
    assert "error" not in out, out["error"]
    return {k: v.encode() for k, v in out["ok"].items()}


def test_a_real_read_only_directory(tmp_path):
    # as root the directory must be reachable by the unprivileged reader: not under pytest's 0700 tmp_path
    base = tempfile.mkdtemp() if os.geteuid() == 0 else str(tmp_path)
    os.chmod(base, 0o755)
    d = pathlib.Path(base) / "ro"
    d.mkdir()
    try:
        fs = write_old(d)
        # a save killed after its commit: the journal names temporaries still to be renamed
        with pytest.MonkeyPatch.context() as mp:
            real = os.replace
            mp.setattr(os, "replace",
                       lambda s, t: real(s, t) if t.endswith(".dy2st-commit") else _raise(OSError(5, "killed")))
            with pytest.raises(OSError):
                write_new(fs, d)
        before = files(d)
        assert len(before) > len(NEW)
        os.chmod(d, 0o555)
        try:
            got = _read_as_nobody(fs) if os.geteuid() == 0 else read_set(fs)
        finally:
            os.chmod(d, 0o755)
        assert got == NEW
        assert files(d) == before                  # nothing written
        assert read_set(fs) == NEW and files(d) == NEW
    finally:
        if base != str(tmp_path):
            shutil.rmtree(base)


def _raise(e):
    raise e


def test_a_live_writers_temporaries_survive_a_concurrent_read(tmp_path):
    fs = write_old(tmp_path)
    live = TempFile(tmp_path / "m.model")      # open and locked, as during a save in progress
    dead = TempFile(tmp_path / "m.params")
    dead.close()                               # its writer is gone
    try:
        assert read_set(fs) == OLD
        assert os.path.exists(live.path) and not os.path.exists(dead.path)
    finally:
        live.discard()


def test_user_files_beside_the_set_are_never_touched(tmp_path):
    fs = write_old(tmp_path)
    user = {".m.model.tmp": b"u1", "m.model.bak": b"u2", ".m.dy2st-commit.bak": b"u3", ".m.model.12345678.tmp": b"u4",
            ".m.model.0123456789ABCDEF.dy2st-tmp": b"u5", ".n.dy2st-commit": b"u6"}
    for n, b in user.items():
        (tmp_path / n).write_bytes(b)
    write_new(fs, tmp_path)
    assert read_set(fs) == NEW
    assert files(tmp_path) == {**NEW, **user}


@pytest.mark.parametrize("journal", [b"{not json", b"\xff\xfe", b"[]", json.dumps({"format": "other"}).encode(),
                                     json.dumps({"format": "dy2st-file-set", "version": 99}).encode(),
                                     b" " * (70 * 1024)])
def test_an_unreadable_journal_is_an_error_naming_it(tmp_path, journal):
    fs = write_old(tmp_path)
    (tmp_path / ".m.dy2st-commit").write_bytes(journal)
    with pytest.raises(FileSetError, match=r"\.m\.dy2st-commit.*commit journal"):
        read_set(fs)
    with pytest.raises(FileSetError):        # a save that leaves a member alone cannot know it is current
        fs.write({str(tmp_path / "m.model"): b"x"})
    write_new(fs, tmp_path)                  # one that rewrites every member replaces the journal
    assert files(tmp_path) == NEW


@pytest.mark.parametrize("entry", [["m.model", "../outside"], ["m.model", "/etc/passwd"], ["m.model", "victim.txt"],
                                   ["victim.txt", ".victim.txt.0123456789abcdef.dy2st-tmp"],
                                   ["m.model", ".m.params.0123456789abcdef.dy2st-tmp"]])
def test_a_journal_cannot_direct_renames_to_other_files(tmp_path, entry):
    fs = write_old(tmp_path)
    (tmp_path / "victim.txt").write_bytes(b"keep")
    (tmp_path / ".m.params.0123456789abcdef.dy2st-tmp").write_bytes(b"keep too")
    (tmp_path / ".m.dy2st-commit").write_text(json.dumps({"format": "dy2st-file-set", "version": 1,
                                                          "replace": [entry], "remove": []}))
    before = files(tmp_path)
    with pytest.raises(FileSetError, match="unexpected replacement"):
        read_set(fs)
    assert files(tmp_path) == before


def test_readers_never_see_a_mixed_set_while_a_writer_runs(tmp_path):
    sets = [{"m.info": b"A" * 10, "m.params": b"A" * 5000, "m.model": b"A" * 50},
            {"m.info": b"B" * 11, "m.params": b"B" * 7000, "m.model": b"B" * 70}]
    fs = make_set(tmp_path)
    fs.write({str(tmp_path / n): b for n, b in sets[0].items()})
    bad, errors, done = [], [], threading.Event()

    def reader():
        try:
            while not done.is_set():
                got = read_set(fs)
                if got not in sets:
                    bad.append({k: v[:1] for k, v in got.items()})
        except Exception as e:
            errors.append(e)
    readers = [threading.Thread(target=reader) for _ in range(3)]
    for t in readers:
        t.start()
    try:
        for i in range(150):
            fs.write({str(tmp_path / n): b for n, b in sets[i % 2].items()})
    finally:
        done.set()
        for t in readers:
            t.join()
    assert errors == [] and bad == []
    assert files(tmp_path) == sets[1]


def test_members_must_share_a_directory(tmp_path):
    with pytest.raises(ValueError, match="one directory"):
        FileSet([str(tmp_path / "a"), str(tmp_path / "sub" / "b")], "x")
    fs = make_set(tmp_path)
    with pytest.raises(ValueError, match="not members"):
        fs.write({str(tmp_path / "other"): b""})


def test_module_constant_names_the_journal(tmp_path):
    assert make_set(tmp_path).journal == str(tmp_path / (".m" + file_set_mod.JOURNAL_SUFFIX))
