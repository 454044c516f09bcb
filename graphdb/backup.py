"""``vgdb backup DIR`` / ``vgdb restore DIR``: a consistent copy of a database directory.

A backup is a file copy taken while nothing writes: the graph file, its write-ahead log (a
committed write may still live there: the copy replays it on its first open, as the engine
does after a kill), the graph checksum record, the keyword index (tantivy), the vectors
(hnswlib indexes and stored vectors), the API tokens and the manifest. No writer can run
during the copy because the caller holds the database's writer:

- the ``vgdb backup`` command opens the database itself (read-only: the directory lock keeps
  writers out while it copies), when no server holds it;
- a ``vgdb serve --writable`` takes it through the GraphQL ``backup`` mutation (admin scope),
  which runs :func:`backup_database` under the server's write lock: its readers go on
  answering during the copy (they never write a file), its writes wait.

LadybugDB 0.22 offers ``EXPORT DATABASE`` too, but it writes CSV/Parquet of the graph alone
(no tantivy index, no vectors) and costs a full re-import: the file copy is exact and as fast
as the disk. ``backup.json``, written last, lists every file with its size and BLAKE2b digest
and the graph's content digest (``graphdb.health.content_digest``), so a restore verifies
both the bytes and the graph they hold.

A restore goes into a directory that holds no database (or, with ``replace``, moves the
one there aside, keeping it): files are checked against ``backup.json``, copied, the copy is
opened read-write (replaying the log) and its content digest compared with the recorded one.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from graphdb.integrity import file_digest
from graphdb.lock import DirectoryLock
from graphdb.store import Store
from schema import SCHEMA_VERSION, CorruptDatabaseError, StoreError

__all__ = ["BACKUP_MANIFEST", "BackupInfo", "backup_database", "restore_database"]

BACKUP_MANIFEST = "backup.json"
_FORMAT = "vgdb-backup"
_FORMAT_VERSION = 1
#: what a database directory holds that a backup copies (the lock file is the process's)
_FILES = ("graph.lbug", "graph.lbug.wal", "graph.sum", "manifest.json", "tokens.json",
          "embed-pending.json")
_DIRS = ("keyword", "vectors")


@dataclass(frozen=True)
class BackupInfo:
    """A backup (as ``backup.json`` records it), or what a restore brought back."""

    path: str
    created_at: str
    schema_version: int
    graph_version: int
    digest: str
    rows: int
    files: dict[str, dict[str, Any]]
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def backup_database(store: Store, out: str | os.PathLike[str]) -> BackupInfo:
    """Copy the database ``store`` holds into the new directory ``out``.

    The caller keeps writers out for the duration (see the module docstring); ``store`` may
    be read-only. ``out`` must not exist or be empty.
    """
    from graphdb.health import content_digest

    started = time.perf_counter()
    target = _empty_dir(out)
    src = store.path
    files: dict[str, dict[str, Any]] = {}
    for rel in _members(src):
        dst = target / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / rel, dst)
        files[rel] = {"size": dst.stat().st_size, "blake2b": file_digest(dst)}
    rows, digest = content_digest(store)
    info = BackupInfo(
        path=str(target), created_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        schema_version=SCHEMA_VERSION, graph_version=store.graph_version(), digest=digest,
        rows=sum(rows.values()), files=files, seconds=round(time.perf_counter() - started, 3))
    data = {"format": _FORMAT, "format_version": _FORMAT_VERSION, **info.to_dict()}
    tmp = target / f".{BACKUP_MANIFEST}.tmp"
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, target / BACKUP_MANIFEST)
    return info


def _members(src: Path) -> list[str]:
    out = [name for name in _FILES if (src / name).is_file()]
    for name in _DIRS:
        base = src / name
        if base.is_dir():
            out += sorted(str(p.relative_to(src)) for p in base.rglob("*")
                          if p.is_file() and not p.name.startswith(".") and
                          not p.name.endswith(".tmp"))
    return out


def _empty_dir(out: str | os.PathLike[str]) -> Path:
    target = Path(out).expanduser().absolute()
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise StoreError(f"{target} exists and is not an empty directory",
                         suggestion="back up into a new directory")
    target.mkdir(parents=True, exist_ok=True)
    return target


def read_backup(path: str | os.PathLike[str]) -> BackupInfo:
    """The manifest of the backup at ``path``; every file is checked against it."""
    source = Path(path).expanduser().absolute()
    manifest = source / BACKUP_MANIFEST
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise CorruptDatabaseError(
            f"{source} holds no {BACKUP_MANIFEST}: not a backup, or an unfinished one",
            suggestion="restore from a directory `vgdb backup` completed") from exc
    except (OSError, ValueError) as exc:
        raise CorruptDatabaseError(f"unreadable {manifest}: {exc}") from exc
    if data.get("format") != _FORMAT or data.get("format_version") != _FORMAT_VERSION:
        raise CorruptDatabaseError(f"{manifest} is not a vgdb backup of format "
                                   f"{_FORMAT_VERSION}")
    if data["schema_version"] > SCHEMA_VERSION:
        raise CorruptDatabaseError(
            f"the backup has schema version {data['schema_version']}, newer than this vgdb "
            f"({SCHEMA_VERSION})", suggestion="restore it with a newer vgdb")
    for rel, record in data["files"].items():
        file = source / rel
        if not file.is_file() or file.stat().st_size != record["size"] or \
                file_digest(file) != record["blake2b"]:
            raise CorruptDatabaseError(f"the backup's {rel} is missing or does not match "
                                       f"{BACKUP_MANIFEST}",
                                       suggestion="use another backup; nothing was restored")
    fields = BackupInfo.__dataclass_fields__
    return BackupInfo(**{k: v for k, v in data.items() if k in fields})


def restore_database(backup: str | os.PathLike[str], db: str | os.PathLike[str], *,
                     replace: bool = False) -> BackupInfo:
    """Restore the backup at ``backup`` into the database directory ``db``.

    ``db`` must hold no database unless ``replace``: then the one there is moved aside to
    ``<db>.replaced-<time>`` (kept). Raises :class:`~schema.StoreLockedError` when a process
    has ``db`` open, :class:`~schema.CorruptDatabaseError` when the backup is damaged or the
    restored graph's content digest differs from the recorded one.
    """
    from graphdb.health import content_digest

    started = time.perf_counter()
    info = read_backup(backup)
    source = Path(backup).expanduser().absolute()
    target = Path(db).expanduser().absolute()
    if (target / "graph.lbug").exists() or (target / "manifest.json").exists():
        if not replace:
            raise StoreError(f"{target} already holds a database",
                             suggestion="restore into a new --db directory, or pass --replace "
                                        "(the database there is moved aside, not deleted)")
        lock = DirectoryLock(target, exclusive=True)
        lock.acquire()  # StoreLockedError while a server or an ingest has it
        lock.release()
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        os.replace(target, target.with_name(f"{target.name}.replaced-{stamp}"))
    target.mkdir(parents=True, exist_ok=True)
    lock = DirectoryLock(target, exclusive=True)
    lock.acquire()
    try:
        for rel in info.files:
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / rel, target / rel)
    finally:
        lock.release()
    with Store.open(target) as store:  # replays the copied log; checks the graph checksum
        rows, digest = content_digest(store)
    if digest != info.digest:
        raise CorruptDatabaseError(
            f"the restored graph's content digest {digest} differs from the backup's "
            f"{info.digest}", suggestion="use another backup")
    return BackupInfo(path=str(target), created_at=info.created_at,
                      schema_version=info.schema_version, graph_version=info.graph_version,
                      digest=digest, rows=sum(rows.values()), files=info.files,
                      seconds=round(time.perf_counter() - started, 3))
