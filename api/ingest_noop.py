"""A no-op ``vgdb ingest`` answered before anything heavy is imported or opened.

An ingest of a tree that did not change still paid ~0.5 s on the standard library (quiet
machine), nearly all of it importing polars, click, the engine and opening the database;
its own work (walk, stat comparison, counts) took ~0.1 s. So a run whose graph version did
not move (nothing written: a real no-op) records, in ``<db>/noop.json``, a fingerprint of
everything its result depends on, and its output. The next identical command from a shell
recomputes the fingerprint with the standard library alone and, when it matches, prints
that output again (``seconds`` replaced by the check's own) without opening the database.

The fingerprint (:func:`fingerprint`), taken *before* the recorded run walked the tree, so
a file changed during that run is seen as changed by the next one:

- the command line (after ``ingest``), the working directory and the ``VGDB_*`` variables;
- every file under the tree (git's own directory aside): path, size, mtime, as the
  ingest's own stat check uses them — a new, removed, edited or touched file fails it;
- the repository's git state: ``HEAD``, the ref it names (loose or packed), the index's
  stat — a new commit, a checkout or a staged file fails it;
- the database directory's files (graph, WAL, manifest, indexes), taken at the end of the
  recorded run: any write since (another ingest, a recorded decision) fails it;
- this installation's source files (a new vgdb may answer differently).

Only ``--db`` given on the command line, no running server (``server.json``) and no option
outside :data:`_ALLOWED` take this path; anything else, or any doubt, runs the real
ingest, which writes a new record or removes the stale one.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["NOOP_FILE", "answer_unchanged", "fingerprint", "forget", "record"]

NOOP_FILE = "noop.json"
#: database files whose change does not change an ingest's result
_DB_IGNORED = frozenset({NOOP_FILE, "server.json", "vgdb.lock"})
#: options this path understands (with a value: the ones in _VALUED)
_ALLOWED = frozenset({"--db", "--name", "--exclude", "--no-default-excludes",
                      "--no-gitignore", "--max-file-size", "--language", "--workers",
                      "--no-history", "--no-communities", "--no-papers", "--no-embed", "--json"})
_VALUED = frozenset({"--db", "--name", "--exclude", "--max-file-size", "--language",
                     "--workers"})
_PACKAGES = ("api", "graphdb", "ingest", "queries", "schema")


def _parse(args: list[str]) -> tuple[Path, Path, bool] | None:
    """(tree, database, --json) of ``vgdb ingest`` arguments, or None when this path does
    not apply (an option it does not know, no --db, no PATH)."""
    path = db = None
    as_json = False
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, _ = arg.partition("=")
        if arg.startswith("-"):
            if name not in _ALLOWED:
                return None
            if name in _VALUED and not eq:
                if i + 1 >= len(args):
                    return None
                if name == "--db":
                    db = args[i + 1]
                i += 2
                continue
            if name == "--db":
                db = arg.partition("=")[2]
            as_json = as_json or name == "--json"
        elif path is None:
            path = arg
        else:
            return None
        i += 1
    if path is None or not db:
        return None
    return Path(path).expanduser().absolute(), Path(db).expanduser().absolute(), as_json


def _tree_state(root: Path, digest: Any) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != ".git")
        digest.update(f"d{dirpath}\0".encode(errors="surrogateescape"))
        for name in sorted(filenames):
            try:
                st = os.lstat(os.path.join(dirpath, name))
            except OSError:
                digest.update(b"?")
                continue
            digest.update(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_mode}\n"
                          .encode(errors="surrogateescape"))


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b"-"


def _stat(path: Path) -> str:
    try:
        st = path.stat()
    except OSError:
        return "-"
    return f"{st.st_size}:{st.st_mtime_ns}"


def _git_state(root: Path, digest: Any) -> None:
    """HEAD, the ref it names, packed refs and the index of the repository holding
    ``root`` (a worktree's ``.git`` file followed to its git directory)."""
    for top in (root, *root.parents):
        dot = top / ".git"
        if dot.exists():
            break
    else:
        digest.update(b"no git")
        return
    gitdir = dot
    if dot.is_file():
        text = _read(dot).decode(errors="replace").strip()
        if not text.startswith("gitdir:"):
            digest.update(b"odd .git")
            return
        gitdir = (top / text.partition(":")[2].strip()).resolve()
    common = gitdir
    if (gitdir / "commondir").exists():
        common = (gitdir / _read(gitdir / "commondir").decode().strip()).resolve()
    head = _read(gitdir / "HEAD")
    digest.update(str(top).encode(errors="surrogateescape") + b"\0" + head)
    if head.startswith(b"ref:"):
        ref = head[4:].decode(errors="replace").strip()
        digest.update(_read(gitdir / ref) + _read(common / ref))
    for path in (common / "packed-refs", gitdir / "index"):
        digest.update(_stat(path).encode())


def _db_state(db: Path, digest: Any) -> None:
    for dirpath, dirnames, filenames in os.walk(db):
        dirnames.sort()
        for name in sorted(filenames):
            if name in _DB_IGNORED or name.startswith("."):
                continue
            digest.update(f"{dirpath}/{name}\0{_stat(Path(dirpath, name))}\n"
                          .encode(errors="surrogateescape"))


def _install_state(digest: Any) -> None:
    here = Path(__file__).resolve().parent.parent
    digest.update(f"{sys.executable}\0{here}\n".encode())
    for package in _PACKAGES:
        for dirpath, dirnames, filenames in os.walk(here / package):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith(".py"):
                    digest.update(f"{dirpath}/{name}\0{_stat(Path(dirpath, name))}\n".encode())


#: fingerprints computed in this process (the check, then the real ingest it fell back to)
_computed: dict[tuple[str, ...], str | None] = {}


def fingerprint(args: list[str]) -> str | None:
    """The tree, git and installation part of the fingerprint of ``vgdb ingest ARGS``
    (the database part is added by :func:`record` / :func:`answer_unchanged`); None when
    the fast path does not apply to these arguments. Computed once per process: the first
    time is before the ingest walks the tree."""
    key = tuple(args)
    if key not in _computed:
        _computed[key] = _fingerprint(args)
    return _computed[key]


def _fingerprint(args: list[str]) -> str | None:
    parsed = _parse(args)
    if parsed is None:
        return None
    root, _, _ = parsed
    if not root.is_dir():
        return None
    digest = hashlib.blake2b(digest_size=20)
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith("VGDB_"))
    digest.update(json.dumps([args, os.getcwd(), env]).encode(errors="surrogateescape"))
    _tree_state(root, digest)
    _git_state(root, digest)
    _install_state(digest)
    return digest.hexdigest()


def _with_db(before: str, db: Path) -> str:
    digest = hashlib.blake2b(before.encode(), digest_size=20)
    _db_state(db, digest)
    return digest.hexdigest()


def record(args: list[str], before: str | None, db: Path, data: dict[str, Any]) -> None:
    """After a run that wrote nothing: remember its fingerprint (``before``: taken before it
    walked the tree) and its result, for the next identical command."""
    if before is None:
        return
    tmp = db / f".{NOOP_FILE}.tmp"
    tmp.write_text(json.dumps({"fingerprint": _with_db(before, db), "args": args,
                               "data": data}), encoding="utf-8")
    tmp.replace(db / NOOP_FILE)


def forget(db: Path) -> None:
    """After a run that wrote: the recorded no-op no longer holds."""
    (db / NOOP_FILE).unlink(missing_ok=True)


def answer_unchanged(args: list[str]) -> int | None:
    """Answer ``vgdb ingest ARGS`` from the record when nothing it depends on changed: print
    the recorded result and return the exit code (0); None to run the real ingest."""
    started = time.perf_counter()
    parsed = _parse(args)
    if parsed is None:
        return None
    _, db, as_json = parsed
    try:
        saved = json.loads((db / NOOP_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (db / "server.json").exists() or saved.get("args") != args:
        return None
    now = fingerprint(args)
    if now is None or _with_db(now, db) != saved.get("fingerprint"):
        return None
    data = dict(saved["data"])
    data["seconds"] = {"unchanged-check": round(time.perf_counter() - started, 3)}
    if as_json:
        sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")
    else:
        files = data.get("files", {})
        sys.stdout.write(f"{data.get('repo')} ({data.get('root')})\n  unchanged since the "
                         f"last ingest: {files.get('seen', 0)} files seen, nothing read, "
                         f"nothing written ({data['seconds']['unchanged-check']} s)\n")
    sys.stdout.flush()
    return 0
