"""Parquet shards: the pure output of walking and parsing one repository, written by any worker
and bulk-loaded by the single writer (docs/shards.md describes the format).

A shard is a directory: six Parquet tables (``files``, ``symbols``, ``imports``, ``calls``,
``inherits``, ``assigns``) and ``shard.json``, written last (temporary name, then rename), so a
directory without a valid ``shard.json`` is an unfinished shard. Nothing in a shard depends on
the database or on the repository's graph name: ids are built when the writer loads it, so the
same shard loads under any name, on any machine.

:func:`extract_shards` is a module-level function of one picklable argument returning a
picklable result: it runs in a local process, on a Dask or Ray worker alike. It writes to a
local path; on a cluster that path must be on a filesystem the writer also sees (NFS, a
mounted bucket), as must the repository's tree.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ingest.extract.rows import (
    AssignRow,
    CallRow,
    FileExtract,
    ImportRow,
    InheritRow,
    SymbolRow,
)
from ingest.walk import Candidate, Skipped, walk
from ingest.worker import FileResult, ParseTask, parse_file
from schema import SCHEMA_VERSION, IngestError, ParseStatus

__all__ = [
    "FORMAT", "FORMAT_VERSION", "MANIFEST", "TABLES", "CorruptShardError", "ExtractRequest",
    "Shard", "ShardError", "ShardInfo", "ShardVersionError", "extract_shards", "read_shards",
    "shard_info",
]

FORMAT = "vgdb-shard"
#: Bumped on any change a reader of an older version would misread (a column renamed,
#: retyped or given a new meaning). Adding a column keeps the version: readers select theirs.
FORMAT_VERSION = 1
MANIFEST = "shard.json"
_META_KEY = b"vgdb.shard.format_version"

_S, _I64, _I32, _B = pa.string(), pa.int64(), pa.int32(), pa.bool_()

#: table name -> Arrow schema. Every table but ``files`` has ``path`` (the file's path relative
#: to the root, '/'-separated) first; rows of one file keep the extractor's order.
TABLES: dict[str, pa.Schema] = {
    "files": pa.schema([
        ("path", _S), ("language", _S),
        ("stage", _S),  # 'parse': walked and read; 'walk': skipped by the walk, never read
        ("size", _I64), ("mtime_ns", _I64),  # from the walk's stat
        ("bytes", _I64), ("sha", _S),  # bytes read and their blake2b-128 hex ('' unread)
        ("status", _S), ("error", _S),  # schema.ParseStatus value and the reason
        ("extracted", _B),  # False when no rows were extracted (skipped, error)
        ("package", _S), ("module_doc", _S), ("loc", _I64),
        ("error_lines", pa.list_(_I32)),
    ]),
    "symbols": pa.schema([
        ("path", _S), ("qualname", _S), ("name", _S), ("kind", _S), ("start_line", _I64),
        ("end_line", _I64), ("parent", _S), ("signature", _S), ("docstring", _S),
        ("visibility", _S), ("is_test", _B),
    ]),
    "imports": pa.schema([
        ("path", _S), ("module", _S), ("name", _S), ("alias", _S), ("level", _I64),
        ("line", _I64), ("scope", _S),
    ]),
    "calls": pa.schema([("path", _S), ("scope", _S), ("callee", _S), ("line", _I64)]),
    "inherits": pa.schema([
        ("path", _S), ("cls", _S), ("base", _S), ("line", _I64), ("kind", _S),
    ]),
    "assigns": pa.schema([
        ("path", _S), ("scope", _S), ("target", _S), ("value", _S), ("line", _I64),
        ("kind", _S),
    ]),
}
#: the extract's list field and row type of each row table
_ROWS: dict[str, tuple[str, Any]] = {
    "symbols": ("symbols", SymbolRow), "imports": ("imports", ImportRow),
    "calls": ("calls", CallRow), "inherits": ("inherits", InheritRow),
    "assigns": ("assigns", AssignRow),
}


class ShardError(IngestError):
    """A shard directory cannot be used: missing, unfinished, corrupt or of another version."""

    code = "SHARD_ERROR"

    def __init__(self, message: str, *, path: str = "", suggestion: str = "") -> None:
        super().__init__(message, suggestion=suggestion or
                         "extract the shard again (vgdb extract-shards REPO OUT)")
        self.path = path


class ShardVersionError(ShardError):
    """Written by another shard format version than this reader's."""

    code = "SHARD_VERSION"

    def __init__(self, message: str, *, path: str = "", found: object = None,
                 expected: object = FORMAT_VERSION) -> None:
        super().__init__(message, path=path,
                         suggestion=f"extract it again with this version (format "
                                    f"{expected}), or load it with a vgdb that reads "
                                    f"format {found}")
        self.found = found
        self.expected = expected


class CorruptShardError(ShardError):
    """A table is missing, unreadable, or does not match the checksum in ``shard.json``."""

    code = "SHARD_CORRUPT"


@dataclass(frozen=True)
class ExtractRequest:
    """What to extract: the tree at ``root``, into the shard directory ``out`` (created or
    replaced). The walk options are :class:`ingest.pipeline.IngestOptions`' own."""

    root: str
    out: str
    repo: str = ""  # default: the root's directory name
    excludes: tuple[str, ...] = ()
    default_excludes: bool = True
    gitignore: bool = True
    max_file_size: int = 2_000_000


@dataclass(frozen=True)
class ShardInfo:
    """A written shard, as ``shard.json`` describes it (picklable, small)."""

    path: str  # the shard directory
    repo: str
    root: str
    commit: str | None  # HEAD of the tree's git repository, None outside one
    format_version: int
    schema_version: int
    tool_version: str
    created_at: str  # ISO 8601, UTC
    counts: dict[str, int] = field(default_factory=dict)  # rows per table
    walk: dict[str, Any] = field(default_factory=dict)  # the walk options used
    seconds: float = 0.0  # extraction wall time


@dataclass
class Shard:
    """A shard read back: the walk and parse results exactly as the worker produced them."""

    info: ShardInfo
    candidates: list[Candidate]
    skipped: list[Skipped]
    results: dict[str, FileResult]  # by path, one per candidate

    def result_for(self, task: ParseTask) -> FileResult:
        """What :func:`ingest.worker.parse_file` returns for ``task``: the shard's result, or
        an unchanged marker when the content hash is the one the graph holds."""
        r = self.results.get(task.path)
        if r is None:
            raise CorruptShardError(f"shard {self.info.path} has no result for {task.path}",
                                    path=self.info.path)
        if r.sha and r.sha == task.old_sha:
            return FileResult(r.path, r.language, r.size, r.sha, ParseStatus.OK, "", None,
                              unchanged=True)
        return r

    def parse(self, tasks: list[ParseTask]) -> list[FileResult]:
        return [self.result_for(t) for t in tasks]


# ------------------------------------------------------------------------------ writing
def extract_shards(request: ExtractRequest) -> ShardInfo:
    """Walk and parse the tree of ``request.root`` and write its shard to ``request.out``.

    One bad file never fails the shard (it becomes a file row with its status and reason);
    a missing root raises :class:`schema.IngestError`.
    """
    start = time.perf_counter()
    root = Path(request.root).expanduser()
    if not root.is_dir():
        raise IngestError(f"not a directory: {root}", suggestion="check the repository path")
    root = root.resolve()
    candidates, skipped = walk(root, excludes=request.excludes,
                               default_excludes=request.default_excludes,
                               gitignore=request.gitignore,
                               max_file_size=request.max_file_size)
    results = [parse_file(ParseTask(str(root / c.path), c.path, c.language))
               for c in candidates]
    walk_options = {"excludes": list(request.excludes),
                    "default_excludes": request.default_excludes,
                    "gitignore": request.gitignore, "max_file_size": request.max_file_size}
    return write_shards(request.out, repo=request.repo or root.name, root=str(root),
                        candidates=candidates, skipped=skipped, results=results,
                        walk_options=walk_options, commit=_head_commit(root), started=start)


def write_shards(out: str | os.PathLike[str], *, repo: str, root: str,
                 candidates: list[Candidate], skipped: list[Skipped],
                 results: list[FileResult], walk_options: dict[str, Any],
                 commit: str | None = None, started: float | None = None) -> ShardInfo:
    """Write walk and parse results as a shard in ``out`` (replacing an older shard there)."""
    started = time.perf_counter() if started is None else started
    directory = Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / MANIFEST).unlink(missing_ok=True)  # unfinished until the new one is renamed
    tables = _tables(candidates, skipped, results)
    checksums = {}
    for name, table in tables.items():
        target = directory / f"{name}.parquet"
        pq.write_table(table, target, compression="zstd")
        checksums[f"{name}.parquet"] = _digest(target)
    info = ShardInfo(
        path=str(directory), repo=repo, root=root, commit=commit,
        format_version=FORMAT_VERSION, schema_version=SCHEMA_VERSION,
        tool_version=_tool_version(), created_at=datetime.now(UTC).isoformat(),
        counts={name: t.num_rows for name, t in tables.items()}, walk=walk_options,
        seconds=round(time.perf_counter() - started, 3))
    manifest = {"format": FORMAT, **{k: v for k, v in asdict(info).items() if k != "path"},
                "checksums": checksums}
    tmp = directory / f".{MANIFEST}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(directory / MANIFEST)
    return info


def _tables(candidates: list[Candidate], skipped: list[Skipped],
            results: list[FileResult]) -> dict[str, pa.Table]:
    by_path = {r.path: r for r in results}
    files: dict[str, list] = {f.name: [] for f in TABLES["files"]}

    def add_file(path: str, language: str, stage: str, size: int, mtime_ns: int,
                 r: FileResult | None, status: str, error: str) -> None:
        fx = r.extract if r else None
        for key, value in (("path", path), ("language", language), ("stage", stage),
                           ("size", size), ("mtime_ns", mtime_ns),
                           ("bytes", r.size if r else 0), ("sha", r.sha if r else ""),
                           ("status", status), ("error", error),
                           ("extracted", fx is not None),
                           ("package", fx.package if fx else ""),
                           ("module_doc", fx.module_doc if fx else ""),
                           ("loc", fx.loc if fx else 0),
                           ("error_lines", list(fx.error_lines) if fx else [])):
            files[key].append(value)

    for c in candidates:
        r = by_path[c.path]
        add_file(c.path, c.language, "parse", c.size, c.mtime_ns, r, str(r.status), r.error)
    for s in skipped:
        add_file(s.path, s.language, "walk", 0, 0, None, ParseStatus.SKIPPED.value, s.reason)
    out = {"files": _table("files", files)}
    for name, (attr, _) in _ROWS.items():
        columns: dict[str, list] = {f.name: [] for f in TABLES[name]}
        fields = list(columns)[1:]
        for c in candidates:
            fx = by_path[c.path].extract
            if fx is None:
                continue
            for row in getattr(fx, attr):
                columns["path"].append(c.path)
                for key in fields:
                    columns[key].append(getattr(row, key))
        out[name] = _table(name, columns)
    return out


def _table(name: str, columns: dict[str, list]) -> pa.Table:
    schema = TABLES[name].with_metadata({_META_KEY: str(FORMAT_VERSION).encode()})
    return pa.Table.from_pydict(columns, schema=schema)


def _digest(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _tool_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("vectorgraphdb")
    except PackageNotFoundError:
        return "unknown"


def _head_commit(root: Path) -> str | None:
    """HEAD's commit id of the git repository holding ``root``, or None (none, no commit
    yet, or ``root`` ignored by it, as a site-packages inside a checkout is)."""
    import pygit2

    from ingest.history.gitlog import NotARepository, open_repository

    try:
        repo, _ = open_repository(root)
        return str(repo.head.target)
    except (NotARepository, pygit2.GitError):
        return None


# ------------------------------------------------------------------------------ reading
def shard_info(path: str | os.PathLike[str]) -> ShardInfo:
    """The manifest of the shard in ``path``, its format version checked (tables unread)."""
    return _manifest(Path(path))[0]


def read_shards(shard: str | os.PathLike[str] | ShardInfo, *, verify: bool = True) -> Shard:
    """Read a shard back, checking its format version and (with ``verify``) each table's
    checksum; :class:`ShardVersionError` or :class:`CorruptShardError` say what is wrong."""
    directory = Path(shard.path if isinstance(shard, ShardInfo) else shard)
    info, checksums = _manifest(directory)
    tables: dict[str, dict[str, list]] = {}
    for name, schema in TABLES.items():
        target = directory / f"{name}.parquet"
        if verify and checksums.get(target.name) != _digest_or_none(target):
            raise CorruptShardError(f"{target} does not match the checksum in its "
                                    f"{MANIFEST} (changed or truncated)", path=str(directory))
        try:
            table = pq.read_table(target, columns=schema.names)
        except (OSError, pa.ArrowException) as exc:
            raise CorruptShardError(f"{target} cannot be read: {exc}",
                                    path=str(directory)) from exc
        found = (table.schema.metadata or {}).get(_META_KEY, b"").decode()
        if found != str(FORMAT_VERSION):
            raise ShardVersionError(f"{target} is shard format {found or 'unknown'}; this "
                                    f"vgdb reads format {FORMAT_VERSION}",
                                    path=str(directory), found=found,
                                    expected=FORMAT_VERSION)
        if table.num_rows != info.counts.get(name):
            raise CorruptShardError(f"{target} has {table.num_rows} rows, {MANIFEST} says "
                                    f"{info.counts.get(name)}", path=str(directory))
        tables[name] = table.cast(schema).to_pydict()
    return _rebuild(info, tables)


def _digest_or_none(path: Path) -> str | None:
    try:
        return _digest(path)
    except OSError:
        return None


def _manifest(directory: Path) -> tuple[ShardInfo, dict[str, str]]:
    target = directory / MANIFEST
    if not directory.is_dir():
        raise ShardError(f"no shard directory at {directory}", path=str(directory))
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ShardError(f"{directory} has no {MANIFEST}: not a shard, or its extraction "
                         "did not finish", path=str(directory)) from exc
    except (OSError, ValueError) as exc:
        raise CorruptShardError(f"{target} cannot be read: {exc}",
                                path=str(directory)) from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CorruptShardError(f"{target} is not a {FORMAT} manifest", path=str(directory))
    if data.get("format_version") != FORMAT_VERSION:
        raise ShardVersionError(
            f"{directory} is shard format {data.get('format_version')}; this vgdb reads "
            f"format {FORMAT_VERSION}", path=str(directory),
            found=data.get("format_version"), expected=FORMAT_VERSION)
    try:
        info = ShardInfo(path=str(directory), **{
            k: data[k] for k in ShardInfo.__dataclass_fields__ if k != "path"})
    except KeyError as exc:
        raise CorruptShardError(f"{target} lacks {exc}", path=str(directory)) from exc
    return info, dict(data.get("checksums") or {})


def _rebuild(info: ShardInfo, tables: dict[str, dict[str, list]]) -> Shard:
    files = tables["files"]
    names = list(files)
    extracts: dict[str, FileExtract] = {}
    candidates: list[Candidate] = []
    skipped: list[Skipped] = []
    results: dict[str, FileResult] = {}
    for values in zip(*files.values(), strict=True):
        f = dict(zip(names, values, strict=True))
        if f["stage"] == "walk":
            skipped.append(Skipped(f["path"], f["error"], f["language"]))
            continue
        candidates.append(Candidate(f["path"], f["language"], f["size"], f["mtime_ns"]))
        fx = None
        if f["extracted"]:
            fx = FileExtract(language=f["language"], package=f["package"],
                             module_doc=f["module_doc"], error_lines=list(f["error_lines"]),
                             loc=f["loc"])
            extracts[f["path"]] = fx
        results[f["path"]] = FileResult(f["path"], f["language"], f["bytes"], f["sha"],
                                        ParseStatus(f["status"]), f["error"], fx)
    for name, (attr, row_type) in _ROWS.items():
        columns = tables[name]
        fields = [c for c in columns if c != "path"]
        for path, *values in zip(columns["path"], *(columns[c] for c in fields),
                                 strict=True):
            fx = extracts.get(path)
            if fx is None:
                raise CorruptShardError(f"{name}.parquet has rows of {path}, which has no "
                                        "extract in files.parquet", path=info.path)
            getattr(fx, attr).append(row_type(*values))
    return Shard(info=info, candidates=candidates, skipped=skipped, results=results)
