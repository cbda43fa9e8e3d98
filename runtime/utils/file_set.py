"""Crash-safe sets of files: a save of several files that readers see whole, old or new, never mixed.

``paddle.jit.save`` writes ``prefix.pdmodel``, ``prefix.pdiparams`` and ``prefix.pdiparams.info``;
only the three together make a model. Renaming three temporaries into place is three steps, and a
process killed between them leaves a new ``.pdmodel`` beside an old ``.pdiparams``. This module
makes the set change in one step: a small *commit journal* beside the files is the single atomic
rename that decides old or new, and every reader understands it.

The protocol (`FileSet.write`), for the members ``M1 .. Mn`` (in a fixed rename order) of a set
named ``NAME`` in directory ``D``:

1. Write every new member to a temporary ``D/.Mi.<hex>.dy2st-tmp`` and fsync it. The writer holds
   an flock on each temporary, so others can tell it is alive (`runtime.utils.atomic_write`).
2. Take the directory's exclusive lock. Finish an earlier interrupted save of the set (step R
   below) and delete orphaned temporaries of its members.
3. Write the journal ``D/.NAME.dy2st-commit`` to a temporary, fsync it and the directory, and
   rename it into place. **This rename is the commit point**: before it the old set is the valid
   one (every final file is untouched); after it the new set is, even though no member has been
   renamed yet. The journal is JSON naming, for each member, the temporary that holds its new
   content, and the members the save removes (``save_inference_model`` drops a stale ``.info``).
4. Rename the temporaries over the members in order, remove the removed members, fsync the
   directory, delete the journal, release the lock.

A SIGKILL needs none of the fsyncs (the kernel keeps what was written); they are for power loss:
each file is fsynced before the journal names it, and the directory before the commit, after it
and after the renames, so no filesystem can make a later step durable before an earlier one. The
journal's deletion needs no fsync (a journal whose temporaries are all gone rolls forward to a
no-op). The cost is a few milliseconds per save (measured: about 20 ms more than three plain
atomic files on ext4, whatever the model size).

Reading (`FileSet.reading`) starts with recovery:

R. If the journal exists, its save was committed and then interrupted (a live save holds the
   directory lock for its whole commit, and readers take that lock too, so a journal a reader sees
   is never one being written). *Roll forward*: each temporary the journal names that still
   exists is renamed over its member (a missing one was renamed already), the removed members are
   removed, the journal is deleted. Then orphaned temporaries of the set (uncommitted saves whose
   writer died; a live writer's are locked and skipped) are deleted. *Roll back* needs no step: an
   uncommitted save never touched a final file.

Concurrency: readers hold the directory's shared lock while they read the files and a save holds
it exclusive for steps 2-4, so a load running during a save in another thread or process also
reads one complete set. Where ``flock`` does not work (no ``fcntl``; some network filesystems) the
locks are no-ops: crash safety is unchanged, but a load concurrent with a save may then fail.

Recovery writes only when the directory is writable. When it is not (a read-only mount, another
user's files) or a write fails, the reader resolves the same answer without writing: under the
directory's shared lock it reads each member from the temporary the journal names when that still
exists, from the final file otherwise, and treats removed members as absent. Either way the files
read are exactly the old set or exactly the new one.

Only files of the exact forms ``.MEMBER.<16 hex>.dy2st-tmp`` and ``.NAME.dy2st-commit`` (and the
journal's own temporary) are ever deleted, and only by a save or load of that set. The final files
keep their names and formats: other programs (real PaddlePaddle) read them as usual and ignore
the hidden journal. Only while an interrupted save awaits its roll-forward can such a program see
a mixed set; the next load or save through this module repairs it.

A journal that cannot be read or does not have the expected form (someone edited it) raises
`FileSetError` naming it: the files cannot then be known to belong together. A save that covers
every member replaces such a journal, since none of the old files matter any more.
"""
from __future__ import annotations

import contextlib
import json
import os
from typing import NamedTuple

from .atomic_write import DirLock, TempFile, fsync_dir, remove_stale_temps, temp_pattern

__all__ = ["FileSet", "FileSetError", "JOURNAL_SUFFIX"]

JOURNAL_SUFFIX = ".dy2st-commit"
_JOURNAL_FORMAT = "dy2st-file-set"
_JOURNAL_VERSION = 1
_MAX_JOURNAL_BYTES = 64 * 1024     # a journal names a few files; anything larger was not written by us


class FileSetError(ValueError):
    """The commit journal of a file set is unreadable or malformed; the message names the journal."""

    def __init__(self, message, path):
        self.message, self.path = message, path
        super().__init__(f"{path}: {message}")


class _Plan(NamedTuple):
    replace: list      # [(member basename, temporary basename)] in rename order
    remove: list       # [member basename]


class FileSet:
    """The files ``members`` (paths in one directory, listed in rename order) saved and read as one.

    ``name`` names the set's journal, ``.NAME.dy2st-commit`` beside the members."""

    def __init__(self, members, name):
        self.members = [os.fspath(m) for m in members]
        dirs = {os.path.dirname(os.path.abspath(m)) for m in self.members}
        if len(dirs) != 1:
            raise ValueError(f"FileSet: the members must share one directory, got {self.members}")
        self.directory = dirs.pop()
        self.names = [os.path.basename(m) for m in self.members]
        if len(set(self.names)) != len(self.names) or not all(self.names):
            raise ValueError(f"FileSet: the members must be distinct file names, got {self.members}")
        self.journal = os.path.join(self.directory, "." + os.fspath(name) + JOURNAL_SUFFIX)
        self._by_name = dict(zip(self.names, self.members))

    def _path(self, name):
        return os.path.join(self.directory, name)

    # -- the journal ---------------------------------------------------------------------------------

    def _journal_error(self, what):
        return FileSetError(f"the commit journal of an interrupted save is {what}, so it cannot be told whether "
                            f"{', '.join(self.names)} belong together; saving the set again replaces it (or "
                            "delete the journal to read the files as they are)", self.journal)

    def _read_journal(self):
        """The pending save's `_Plan`, or None when no save is pending."""
        try:
            with open(self.journal, "rb") as f:
                data = f.read(_MAX_JOURNAL_BYTES + 1)
        except FileNotFoundError:
            return None
        except OSError as e:
            raise self._journal_error(f"unreadable ({type(e).__name__}: {e.strerror or e})") from None
        if len(data) > _MAX_JOURNAL_BYTES:
            raise self._journal_error(f"larger than {_MAX_JOURNAL_BYTES} bytes")
        try:
            obj = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise self._journal_error("not valid JSON (truncated or edited)") from None
        # checked strictly: the journal drives renames and removals, so it may name nothing but our
        # own temporaries of this set's members
        if not isinstance(obj, dict) or obj.get("format") != _JOURNAL_FORMAT:
            raise self._journal_error("not a dy2st commit journal")
        if obj.get("version") != _JOURNAL_VERSION:
            raise self._journal_error(f"of an unknown version {obj.get('version')!r}")
        replace, remove = obj.get("replace"), obj.get("remove")
        if not isinstance(replace, list) or not isinstance(remove, list):
            raise self._journal_error("missing its 'replace' or 'remove' list")
        seen, plan = set(), _Plan([], [])
        for entry in replace:
            if (not isinstance(entry, list) or len(entry) != 2 or entry[0] not in self.names
                    or not isinstance(entry[1], str) or not temp_pattern(entry[0]).match(entry[1])
                    or entry[0] in seen):
                raise self._journal_error(f"naming an unexpected replacement {entry!r}")
            seen.add(entry[0])
            plan.replace.append((entry[0], entry[1]))
        for entry in remove:
            if entry not in self.names or entry in seen:
                raise self._journal_error(f"naming an unexpected removal {entry!r}")
            seen.add(entry)
            plan.remove.append(entry)
        return plan

    # -- recovery ------------------------------------------------------------------------------------

    def _roll_forward(self, plan):
        """Complete the committed save ``plan`` (hold the exclusive directory lock)."""
        for member, temp in plan.replace:
            if os.path.lexists(self._path(temp)):
                os.replace(self._path(temp), self._path(member))
        for member in plan.remove:
            try:
                os.unlink(self._path(member))
            except FileNotFoundError:
                pass
        fsync_dir(self.directory)
        os.unlink(self.journal)
        fsync_dir(self.directory)

    def _clean(self):
        """Delete the orphaned temporaries of the members and of the journal (hold the exclusive lock)."""
        return remove_stale_temps(self.directory, self.names + [os.path.basename(self.journal)])

    def _needs_recovery(self):
        try:
            names = os.listdir(self.directory)
        except OSError:
            return os.path.lexists(self.journal)
        patterns = [temp_pattern(n) for n in self.names + [os.path.basename(self.journal)]]
        journal = os.path.basename(self.journal)
        return any(n == journal or any(p.match(n) for p in patterns) for n in names)

    def recover(self):
        """Roll a committed, interrupted save forward and delete orphaned temporaries; return True when
        the directory is now clean. Never raises OSError: a directory that cannot be written is left
        as it is (`reading` still reads the right set)."""
        if not self._needs_recovery():
            return True
        if not os.access(self.directory, os.W_OK):
            return False           # read-only: never attempt a write
        try:
            with DirLock(self.directory, exclusive=True):
                plan = self._read_journal()
                if plan is not None:
                    self._roll_forward(plan)
                self._clean()
        except OSError:
            return False
        return not self._needs_recovery()

    # -- reading -------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def reading(self):
        """``with fs.reading() as view``: ``view[member]`` is the path holding that member's current
        content, or None when the current set has no such file. Read the files inside the block:
        the shared directory lock keeps a concurrent save from committing meanwhile."""
        self.recover()
        with DirLock(self.directory, exclusive=False):
            plan = self._read_journal()
            view = {m: m for m in self.members}
            if plan is not None:
                # recovery could not write: the journal's temporaries that still exist hold the new content
                for member, temp in plan.replace:
                    if os.path.lexists(self._path(temp)):
                        view[self._by_name[member]] = self._path(temp)
                for member in plan.remove:
                    view[self._by_name[member]] = None
            yield view

    def pending(self):
        """True when a committed save awaits its roll-forward (the journal exists)."""
        return os.path.lexists(self.journal)

    # -- writing -------------------------------------------------------------------------------------

    def write(self, contents, remove=()):
        """Replace the members in ``contents`` (member path -> bytes) and delete those in ``remove``, as one step.

        If this raises before the commit point, the old set is intact and no temporary is left. If it
        raises after (the error carries a note saying so), the new set is committed: every reader
        sees it, and the next load or save finishes the renames."""
        member_of = {os.path.abspath(m): n for m, n in zip(self.members, self.names)}
        unknown = [os.fspath(m) for m in list(contents) + list(remove) if os.path.abspath(m) not in member_of]
        names = {member_of.get(os.path.abspath(m)): data for m, data in contents.items()}
        removed = [member_of.get(os.path.abspath(m)) for m in remove]
        if unknown or set(names) & set(removed) or len(set(removed)) != len(removed):
            raise ValueError(f"FileSet.write: {unknown or removed} are not members to write or remove exactly once "
                             f"({self.members})")
        order = [n for n in self.names if n in names]
        os.makedirs(self.directory, exist_ok=True)
        temps, journal_tmp, committed = [], None, False
        try:
            with DirLock(self.directory, exclusive=False):
                for n in order:
                    temps.append(TempFile(self._path(n)))
            for tmp, n in zip(temps, order):
                tmp.write(names[n])
            with DirLock(self.directory, exclusive=True):
                self._prepare(covers_all=set(order) | set(removed) == set(self.names))
                journal = {"format": _JOURNAL_FORMAT, "version": _JOURNAL_VERSION,
                           "replace": [[n, os.path.basename(t.path)] for n, t in zip(order, temps)],
                           "remove": removed}
                journal_tmp = TempFile(self.journal)
                journal_tmp.write(json.dumps(journal, indent=1).encode("utf-8"))
                fsync_dir(self.directory)          # the temporaries' names are durable before the journal naming them
                os.replace(journal_tmp.path, self.journal)
                committed = True                   # the commit point
                fsync_dir(self.directory)          # the commit is durable before any final file changes
                for tmp in temps:
                    os.replace(tmp.path, tmp.target)
                for n in removed:
                    try:
                        os.unlink(self._path(n))
                    except FileNotFoundError:
                        pass
                fsync_dir(self.directory)          # the renames are durable before the journal goes
                # no fsync after this unlink: if a power cut undoes it, the journal's temporaries are all
                # gone and the next reader's roll-forward only deletes the journal
                os.unlink(self.journal)
        except BaseException as e:
            if committed and hasattr(e, "add_note"):
                e.add_note(f"the save of {', '.join(self.names)} was committed before this error: readers see the "
                           f"new files, and the next load or save completes it ({self.journal})")
            raise
        finally:
            for tmp in temps + ([journal_tmp] if journal_tmp else []):
                if committed:
                    tmp.close()            # renamed into place, or named by the journal for the roll-forward
                else:
                    tmp.discard()

    def _prepare(self, covers_all):
        """Before committing (exclusive lock held): finish an older interrupted save, drop orphans."""
        try:
            plan = self._read_journal()
        except FileSetError:
            if not covers_all:
                raise
            plan = None            # this save rewrites every member; the unreadable journal is simply replaced
        if plan is not None:
            self._roll_forward(plan)
        self._clean()
