"""The database directory's lock file: one writer, or any number of readers.

This mirrors what Kuzu itself allows across processes, but fails fast with a message that names
the holder (pid, command, since when) instead of Kuzu's generic IO error.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time
from pathlib import Path
from typing import IO

from schema import StoreError, StoreLockedError

__all__ = ["DirectoryLock"]


class DirectoryLock:
    """An ``flock`` on ``<db>/vgdb.lock``: exclusive for a writer, shared for readers."""

    def __init__(self, directory: Path, *, exclusive: bool) -> None:
        self.path = directory / "vgdb.lock"
        self.exclusive = exclusive
        self._file: IO[str] | None = None

    def acquire(self) -> None:
        try:
            handle = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 (held until release)
        except (IsADirectoryError, NotADirectoryError, PermissionError) as exc:
            what = "is a directory" if isinstance(exc, IsADirectoryError) else \
                exc.strerror or str(exc)
            raise StoreError(
                f"cannot use {self.path} as the database's lock file: {what}",
                suggestion=f"remove or rename {self.path} (vgdb creates it as a file); "
                           "nothing was changed") from exc
        mode = fcntl.LOCK_EX if self.exclusive else fcntl.LOCK_SH
        try:
            fcntl.flock(handle.fileno(), mode | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            holder = _read_holder(handle)
            handle.close()
            raise _locked_error(self.path.parent, holder, self.exclusive) from exc
        self._file = handle
        if self.exclusive:
            handle.seek(0)
            handle.truncate()
            json.dump({"pid": os.getpid(), "command": " ".join(sys.argv)[:200],
                       "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, handle)
            handle.flush()

    def release(self) -> None:
        if self._file is None:
            return
        if self.exclusive:
            self._file.seek(0)
            self._file.truncate()
            self._file.flush()
        fcntl.flock(self._file.fileno(), fcntl.LOCK_UN)
        self._file.close()
        self._file = None


def _read_holder(handle: IO[str]) -> dict:
    try:
        handle.seek(0)
        data = json.loads(handle.read() or "{}")
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _alive(pid: object) -> bool:
    """Whether process ``pid`` exists. A writer that ended without releasing (killed, or
    the CLI's fast exit) leaves its record behind; readers never write one."""
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _locked_error(directory: Path, holder: dict, exclusive: bool) -> StoreLockedError:
    if not _alive(holder.get("pid")):
        holder = {}  # a stale record: whoever holds the lock now is a reader
    if holder.get("pid"):
        who = (f"process {holder['pid']} ({holder.get('command', '?')}, "
               f"since {holder.get('since', '?')})")
        message = f"database {directory} is locked for writing by {who}"
    elif exclusive:
        message = f"database {directory} is open in another process (read-only)"
    else:
        message = f"database {directory} is locked by another process"
    return StoreLockedError(
        message, path=str(directory), holder=holder,
        suggestion="wait for that process to finish, or use another --db directory",
    )
