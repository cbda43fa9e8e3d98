"""Atomic file writes shared by every saver (paddle.save, ONNX export, and the model file sets).

A file is written to a temporary file beside it, flushed to disk (``fsync``), then renamed into
place (``os.replace``), so a reader never sees a half-written file and a failed or killed write
leaves the old file untouched. This module holds that primitive plus the pieces
`runtime.utils.file_set` builds its crash-safe multi-file protocol from:

* **Temporary names.** The temporary of ``dir/NAME`` is ``dir/.NAME.<16 hex>.dy2st-tmp``. The
  exact pattern (`temp_pattern`) lets a cleaner recognise our temporaries of one target and
  nothing else: a user file never matches by accident, and ``a.pdiparams``'s temporaries do not
  match ``a.pdiparams.info``'s.
* **Liveness locks.** A writer holds an exclusive ``flock`` on each temporary's descriptor until it
  has renamed or removed it. A process killed with SIGKILL loses its locks, so a temporary whose
  lock can be taken is an orphan and may be deleted; one whose lock is held belongs to a save in
  progress (in this or another process) and is left alone.
* **Directory locks.** `DirLock` is an ``flock`` on the directory itself (no lock file is created,
  so it works in read-only directories). Writers hold it shared while they create and lock their
  temporaries and exclusive while they commit; cleaners hold it exclusive. This closes the gap
  between creating a temporary and locking it, in which a cleaner could otherwise delete it.
  Where ``flock`` is unavailable (no ``fcntl``, or a filesystem that refuses it) the locks are
  no-ops: writes stay atomic, but a concurrent reader or cleaner may then disturb a save in
  progress (it fails with an error; it never produces a mixed file).

Files get the permissions a plain ``open(path, "w")`` gives (0o666 minus the umask), because the
temporary is created with that mode rather than ``mkstemp``'s 0o600.
"""
from __future__ import annotations

import errno
import os
import re
import secrets

try:
    import fcntl
except ImportError:          # pragma: no cover - Windows: no flock, locks become no-ops
    fcntl = None

__all__ = ["write_files_atomically", "write_file_atomically", "temp_path", "temp_pattern", "TempFile",
           "DirLock", "fsync_dir", "remove_stale_temps"]

TEMP_SUFFIX = ".dy2st-tmp"

# os.open(directory) fails with these where the directory is missing, unreadable or (Windows) not openable;
# any other error (EIO, ...) is a real failure and propagates
_CANNOT_OPEN_DIR = (errno.ENOENT, errno.ENOTDIR, errno.EACCES, errno.EPERM, errno.EISDIR)


def temp_path(path):
    """A fresh temporary name beside ``path``: ``.NAME.<16 hex>.dy2st-tmp``."""
    d, base = os.path.split(os.fspath(path))
    return os.path.join(d, f".{base}.{secrets.token_hex(8)}{TEMP_SUFFIX}")


def temp_pattern(base):
    """The compiled pattern matching exactly the temporaries `temp_path` makes for basename ``base``."""
    return re.compile(r"\." + re.escape(base) + r"\.[0-9a-f]{16}" + re.escape(TEMP_SUFFIX) + r"\Z")


def _flock(fd, op):
    """``flock(fd, op)``; False when this platform or filesystem has no flock (the lock is then a no-op)."""
    if fcntl is None:
        return False
    try:
        fcntl.flock(fd, op)
        return True
    except OSError as e:
        if e.errno in (errno.ENOLCK, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EBADF):
            return False
        raise


class DirLock:
    """``with DirLock(directory, exclusive)``: an flock on the directory (see the module docstring)."""

    def __init__(self, directory, exclusive):
        self.directory = directory or "."
        self.exclusive = exclusive
        self.fd = None

    def __enter__(self):
        try:
            self.fd = os.open(self.directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
        except OSError as e:
            if e.errno not in _CANNOT_OPEN_DIR:
                raise
            # a missing or unreadable directory (or Windows): nothing to lock; the operation reports any problem
            return self
        if fcntl is not None:
            try:
                _flock(self.fd, fcntl.LOCK_EX if self.exclusive else fcntl.LOCK_SH)
            except BaseException:
                os.close(self.fd)
                self.fd = None
                raise
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)      # closing the descriptor releases the flock
            self.fd = None
        return False


def fsync_dir(directory):
    """Make renames and unlinks in ``directory`` durable; a filesystem that cannot fsync directories is skipped."""
    try:
        fd = os.open(directory or ".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as e:
        if e.errno not in _CANNOT_OPEN_DIR:
            raise
        return                     # e.g. Windows, where directories cannot be opened
    try:
        os.fsync(fd)
    except OSError as e:
        if e.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EBADF):
            raise
    finally:
        os.close(fd)


class TempFile:
    """A temporary beside ``target``, created empty and locked; `write` fills and fsyncs it; `close` unlocks.

    Create it while holding ``DirLock(directory, exclusive=False)`` so no cleaner runs between the
    creation and the lock."""

    def __init__(self, target):
        self.target = os.fspath(target)
        self.path = temp_path(self.target)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
        # mode 0o666 is reduced by the umask, as open(path, "w") does; no os.umask() call, which is not thread safe
        self.fd = os.open(self.path, flags, 0o666)
        try:
            if fcntl is not None:
                _flock(self.fd, fcntl.LOCK_EX)
        except BaseException:
            self.discard()
            raise

    def write(self, data):
        view = memoryview(data)
        while view:
            n = os.write(self.fd, view)
            view = view[n:]
        os.fsync(self.fd)

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def discard(self):
        """Close and delete the temporary (when it has not been renamed into place)."""
        self.close()
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def _is_orphan(path):
    """True when no live writer holds ``path``'s lock (its writer finished, failed or was killed)."""
    if fcntl is None:
        return True
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return False
    except OSError:
        return False               # cannot tell (e.g. another user's file): leave it
    try:
        _flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)     # a filesystem without flock cannot tell: treat as orphan
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def remove_stale_temps(directory, bases, keep=()):
    """Delete our orphaned temporaries of the files named ``bases`` in ``directory``; return how many.

    Hold ``DirLock(directory, exclusive=True)``. Temporaries a live writer holds, and the paths in
    ``keep``, are left alone; any other file is never touched."""
    try:
        names = os.listdir(directory or ".")
    except OSError:
        return 0
    patterns = [temp_pattern(b) for b in bases]
    keep = {os.path.basename(k) for k in keep}
    removed = 0
    for name in names:
        if name in keep or not any(p.match(name) for p in patterns):
            continue
        path = os.path.join(directory, name)
        if _is_orphan(path):
            try:
                os.unlink(path)
                removed += 1
            except FileNotFoundError:
                pass
    return removed


def write_files_atomically(contents):
    """Write every ``(path, bytes)`` of ``contents``; every file is complete on disk before any is renamed.

    Each file on its own is atomic; the set is not (use `runtime.utils.file_set` for that).
    Orphaned temporaries an earlier killed write of these paths left are removed first."""
    contents = [(os.fspath(p), data) for p, data in contents]
    temps = []
    try:
        for path, _ in contents:
            d = os.path.dirname(os.path.abspath(path))
            os.makedirs(d, exist_ok=True)
            with DirLock(d, exclusive=False):
                temps.append(TempFile(path))
        for tmp, (_, data) in zip(temps, contents):
            tmp.write(data)
        for tmp in temps:
            d = os.path.dirname(os.path.abspath(tmp.target))
            with DirLock(d, exclusive=True):
                remove_stale_temps(d, [os.path.basename(tmp.target)])
            os.replace(tmp.path, tmp.target)
            tmp.close()
    finally:
        for tmp in temps:
            if tmp.fd is not None:
                tmp.discard()


def write_file_atomically(path, data):
    """Write ``data`` to ``path`` atomically (see `write_files_atomically`)."""
    write_files_atomically([(path, data)])
