"""The code load of an ingest (frames for :func:`graphdb.load_code`) and the counts an
ingest reports afterwards."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from graphdb import STRUCTURAL, CodeLoad, Store
from ingest.changes import Changes, touched_frame
from ingest.extract.rows import FileExtract
from ingest.frames import edge_frames, external_frame, file_frame, ref_frame, symbol_frame
from ingest.resolve.python import module_names
from schema import (
    CODE_REF,
    EXTERNAL,
    FILE,
    REPOSITORY,
    SYMBOL,
    Source,
    current_code_files,
    file_id,
    repo_id,
)

if TYPE_CHECKING:
    from ingest.pipeline import IngestSummary

__all__ = ["build_load", "count_repository", "scalar"]


def _modules(repo: str, extracts: Mapping[str, FileExtract]) -> dict[str, str]:
    """Module names of every file: the resolver's Python dotted names, the path without its
    suffix otherwise. A function of the paths alone: the last answer is kept, for the next
    update of a server, whose files are nearly always the same (~10 ms of pathlib on the
    standard library's 734 files, against ~0.1 ms to compare the paths)."""
    key = (repo, tuple(extracts))
    last = _LAST_MODULES[0]  # one read: another thread may replace it meanwhile
    if last is not None and last[0] == key:
        return dict(last[1])
    python = module_names(extracts, root_package=repo)
    out = {p: python.get(p, p.rsplit(".", 1)[0]) for p in extracts}
    _LAST_MODULES[0] = (key, out)
    return dict(out)


#: ((repository, its paths), their module names) of the last :func:`_modules`
_LAST_MODULES: list[tuple[tuple[str, tuple[str, ...]], dict[str, str]] | None] = [None]


def _file_rows(plan: Changes, modules: dict[str, str]) -> list[dict]:
    from ingest.extract.python import is_test_path

    rows = []
    for path, r in sorted({**plan.parsed, **plan.skipped_rows}.items()):
        fx = r.extract
        rows.append({
            "path": path, "language": r.language, "module": modules.get(path, ""),
            "package": fx.package if fx else "", "size": r.size, "sha": r.sha,
            "mtime_ns": plan.mtimes.get(path, 0), "loc": fx.loc if fx else 0,
            "parse_status": str(r.status), "parse_error": r.error,
            "is_test": bool(fx and any(s.is_test for s in fx.symbols)) or is_test_path(path),
        })
    return rows


def build_load(repo: str, root: Path, plan: Changes, extracts: Mapping[str, FileExtract],
                result: Any, only: set[str] | None) -> CodeLoad:
    now = datetime.now(UTC).replace(tzinfo=None)
    modules = _modules(repo, extracts)
    parsed = {p: extracts[p] for p in plan.parsed}
    columns = {p: r.columns for p, r in plan.parsed.items()}  # made by the parse workers
    resolved = sorted(only if only is not None else extracts)
    repository = pl.DataFrame({
        "id": [repo_id(repo)], "name": [repo], "root": [str(root)],
        "ingested_at": [now], "source": [Source.AST.value], "confidence": [1.0]})
    stored_modules = dict(zip(plan.stored["path"], plan.stored["module"], strict=True))
    moved = {p: m for p, m in modules.items()
             if p in plan.same and stored_modules.get(p) not in (None, m)}
    renamed_modules = pl.DataFrame({"id": [file_id(repo, p) for p in sorted(moved)],
                                    "module": [moved[p] for p in sorted(moved)]},
                                   schema={"id": pl.Utf8, "module": pl.Utf8})
    return CodeLoad(
        repo=repo, now=now, repository=repository,
        files=file_frame(repo, _file_rows(plan, modules)),
        symbols=symbol_frame(repo, parsed, columns),
        refs=ref_frame(repo, parsed, columns),
        externals=external_frame(result.externals),
        edges=edge_frames(repo, result.edges, parsed, plan.added, columns),
        reparsed=[file_id(repo, p) for p in sorted(plan.changed)],
        resolved=[file_id(repo, p) for p in resolved],
        removed=[file_id(repo, p) for p in sorted(plan.removed)],
        touched=touched_frame(plan),
        modules=renamed_modules,
        fresh=plan.stored.is_empty(),
    )


def count_repository(store: Store, repo: str, summary: IngestSummary) -> None:
    """Current nodes and edges of the repository, per table (what ``--json`` reports).

    One statement (a ``UNION ALL`` of counts): it is planned anew after every write, and
    nine statements cost ~19 ms cold on the standard library against ~14 ms for one; the
    edges are counted from each source table the rel connects (a Repository by name)."""
    parts = [(f"MATCH (f:{FILE.name}) WHERE {current_code_files()} RETURN 'File' AS k, "
              "count(*) AS n"),
             (f"MATCH (s:{SYMBOL.name}) WHERE s.repo = $r AND s.valid_to IS NULL "
              "RETURN 'Symbol' AS k, count(*) AS n"),
             f"MATCH (e:{EXTERNAL.name}) RETURN 'External' AS k, count(*) AS n",
             (f"MATCH (c:{CODE_REF.name}) WHERE c.file STARTS WITH $p "
              "RETURN 'references' AS k, CAST(coalesce(sum(c.count), 0) AS INT64) AS n")]
    for rel in STRUCTURAL:
        for src in sorted({a.name for a, _ in rel.pairs}):
            named = "a.name" if src == REPOSITORY.name else "a.repo"
            parts.append(f"MATCH (a:{src})-[:{rel.name}]->() WHERE {named} = $r "
                         f"RETURN '{rel.name}' AS k, count(*) AS n")
    rows = store.cypher(" UNION ALL ".join(parts), {"r": repo, "p": file_id(repo, "")})
    counts: dict[str, int] = {}
    for key, n in rows.iter_rows():  # a constant key over no rows gives no row: 0
        counts[key] = counts.get(key, 0) + int(n or 0)
    summary.nodes = {t: counts.get(t, 0) for t in ("File", "Symbol", "External")}
    summary.references = counts.get("references", 0)
    summary.edges = {rel.name: counts.get(rel.name, 0) for rel in STRUCTURAL}


def scalar(store: Store, query: str, params: dict) -> int:
    return int(store.cypher(query, params).item())
