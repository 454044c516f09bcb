"""Rows <-> polars frames: extracts to node/rel tables, and stored rows back to extracts.

The way back is what makes incremental ingest cheap: an unchanged file's symbols and
references are read from the graph (CodeRef rows) instead of being parsed again.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable

import polars as pl

from ingest.extract.rows import (
    AssignRow,
    CallRow,
    FileExtract,
    ImportRow,
    InheritRow,
    SymbolRow,
)
from ingest.resolve.rows import EdgeRow, ExternalRow
from schema import (
    CALLS,
    CODE_REF,
    CONTAINS,
    EXTERNAL,
    FILE,
    IMPORTS,
    INHERITS,
    MODULE_QUALNAME,
    REPOSITORY,
    SYMBOL,
    TESTS,
    RefKind,
    Source,
    SymbolKind,
    file_id,
    frame_schema,
    ref_id,
    repo_id,
    symbol_id,
)

__all__ = [
    "SYMBOL_COLUMNS", "build_extract", "edge_frames", "external_frame", "extracts_from_rows",
    "file_frame", "module_short_name", "ref_frame", "symbol_frame",
]


def _frame(rows: dict[str, list], table: object) -> pl.DataFrame:
    schema = frame_schema(table)  # type: ignore[arg-type]
    return pl.DataFrame({k: v for k, v in rows.items()},
                        schema={k: schema[k] for k in rows})


def file_frame(repo: str, files: list[dict]) -> pl.DataFrame:
    """File rows; each dict has path, language, module, package, size, sha, mtime_ns, loc,
    parse_status, parse_error, is_test."""
    cols: dict[str, list] = defaultdict(list)
    for f in files:
        cols["id"].append(file_id(repo, f["path"]))
        cols["repo"].append(repo)
        for key in ("path", "language", "module", "package", "size", "sha", "mtime_ns", "loc",
                    "parse_status", "parse_error", "is_test"):
            cols[key].append(f[key])
        cols["source"].append(Source.AST.value)
        cols["confidence"].append(1.0)
    if not files:
        return pl.DataFrame(schema=frame_schema(FILE))
    return _frame(dict(cols), FILE)


def module_short_name(path: str) -> str:
    """``pkg/__init__.py`` -> ``pkg``; ``pkg/mod.py`` -> ``mod`` (independent of other files,
    so a module symbol never changes because a sibling appeared)."""
    parts = path.split("/")
    stem = parts[-1].split(".", 1)[0]
    if stem in ("__init__", "index", "mod") and len(parts) > 1:
        return parts[-2]
    return stem


def symbol_frame(repo: str, extracts: dict[str, FileExtract]) -> pl.DataFrame:
    """Symbols of ``extracts`` plus one module symbol per file (qualname ``<module>``)."""
    cols: dict[str, list] = defaultdict(list)

    def add(path: str, fx: FileExtract, s: SymbolRow) -> None:
        cols["id"].append(symbol_id(repo, path, s.qualname))
        cols["repo"].append(repo)
        cols["file"].append(file_id(repo, path))
        cols["qualname"].append(s.qualname)
        cols["name"].append(s.name)
        cols["kind"].append(s.kind)
        cols["language"].append(fx.language)
        cols["signature"].append(s.signature)
        cols["docstring"].append(s.docstring)
        cols["start_line"].append(s.start_line)
        cols["end_line"].append(s.end_line)
        cols["visibility"].append(s.visibility)
        cols["is_test"].append(s.is_test)
        cols["source"].append(Source.AST.value)
        cols["confidence"].append(1.0)

    for path in sorted(extracts):
        fx = extracts[path]
        add(path, fx, SymbolRow(MODULE_QUALNAME, module_short_name(path),
                                SymbolKind.MODULE.value, 1,
                                max(fx.loc, 1), docstring=fx.module_doc))
        for sym in fx.symbols:
            add(path, fx, sym)
    if not cols:
        return pl.DataFrame(schema=frame_schema(SYMBOL))
    return _frame(dict(cols), SYMBOL)


def ref_frame(repo: str, extracts: dict[str, FileExtract]) -> pl.DataFrame:
    """One CodeRef row per file: its declarations and call sites as written, packed as JSON."""
    ids, files, decls, calls, counts = [], [], [], [], []
    for path in sorted(extracts):
        fx = extracts[path]
        fid = file_id(repo, path)
        rows: list[list] = [[RefKind.IMPORT.value, i.scope, i.module, i.name, i.alias, i.level,
                             i.line] for i in fx.imports]
        rows += [[RefKind.INHERIT.value, h.cls, h.base, "", h.kind, 0, h.line]
                 for h in fx.inherits]
        rows += [[RefKind.ASSIGN.value, a.scope, a.value, a.target, a.kind, 0, a.line]
                 for a in fx.assigns]
        ids.append(ref_id(fid))
        files.append(fid)
        decls.append(json.dumps(rows, separators=(",", ":"), ensure_ascii=False))
        calls.append(json.dumps(fx.calls, separators=(",", ":"), ensure_ascii=False))
        counts.append(len(rows) + len(fx.calls))
    return _frame({"id": ids, "file": files, "decls": decls, "calls": calls, "count": counts,
                   "source": [Source.AST.value] * len(ids)}, CODE_REF)


def build_extract(language: str, package: str, symbols: Iterable[tuple], decls: str | None,
                  calls: str | None = None) -> FileExtract:
    """One file's extract from its stored rows: symbols as (qualname, name, kind, start_line,
    end_line, visibility, is_test, signature) tuples (:data:`SYMBOL_COLUMNS`), references as
    the packed JSON of its CodeRef."""
    fx = FileExtract(language=language, package=package or "")
    for qualname, name, kind, start, end, visibility, is_test, signature in symbols:
        if qualname == MODULE_QUALNAME:
            continue
        parent = qualname.rsplit(".", 1)[0] if "." in qualname else ""
        fx.symbols.append(SymbolRow(qualname, name, kind, start, end, parent,
                                    signature=signature or "", visibility=visibility,
                                    is_test=bool(is_test)))
    fx.symbols.sort(key=lambda s: (s.start_line, s.qualname))
    for kind, scope, target, name, alias, level, line in json.loads(decls or "[]"):
        if kind == RefKind.IMPORT:
            fx.imports.append(ImportRow(target, name, alias, level, line, scope))
        elif kind == RefKind.INHERIT:
            fx.inherits.append(InheritRow(scope, target, line, alias))
        elif kind == RefKind.ASSIGN:
            fx.assigns.append(AssignRow(scope, name, target, line, alias))
    if calls:
        fx.calls.extend(CallRow(*c) for c in json.loads(calls))
    return fx


#: the Symbol columns an unchanged file's extract is rebuilt from: every field of a SymbolRow
#: a resolver reads (the ``def`` header: a Python function's parameters hide outer names and
#: pick its stub; a Go method's receiver), so an update resolves as a full ingest does
SYMBOL_COLUMNS = ("qualname", "name", "kind", "start_line", "end_line", "visibility", "is_test",
                  "signature")


def extracts_from_rows(files: pl.DataFrame, symbols: pl.DataFrame,
                       refs: pl.DataFrame) -> dict[str, FileExtract]:
    """Rebuild extracts from stored File, Symbol and CodeRef rows (keyed by file path).

    ``files`` has id, path, language, package; ``symbols`` file and :data:`SYMBOL_COLUMNS`;
    ``refs`` file, decls and (optionally) calls.
    """
    by_file: dict[str, list[tuple]] = defaultdict(list)
    for row in symbols.select("file", *SYMBOL_COLUMNS).iter_rows():
        by_file[row[0]].append(row[1:])
    packed = {row["file"]: row for row in refs.iter_rows(named=True)}
    out: dict[str, FileExtract] = {}
    for fid, path, language, package in files.select(
            "id", "path", "language", "package").iter_rows():
        ref = packed.get(fid, {})
        out[path] = build_extract(language, package, by_file.get(fid, ()), ref.get("decls"),
                                  ref.get("calls"))
    return out


def external_frame(externals: dict[str, ExternalRow]) -> pl.DataFrame:
    if not externals:
        return pl.DataFrame(schema=frame_schema(EXTERNAL))
    rows = sorted(externals.values(), key=lambda e: e.id)
    return _frame({
        "id": [e.id for e in rows], "name": [e.name for e in rows],
        "language": [e.language for e in rows], "package": [e.package for e in rows],
        "kind": [e.kind for e in rows], "source": [Source.AST.value] * len(rows),
        "confidence": [1.0] * len(rows),
    }, EXTERNAL)


def _contains(repo: str, extracts: dict[str, FileExtract],
              new_files: set[str]) -> dict[tuple[str, str, str], list[tuple[str, str]]]:
    out: dict[tuple[str, str, str], list[tuple[str, str]]] = defaultdict(list)
    rid = repo_id(repo)
    for path in sorted(extracts):
        fid = file_id(repo, path)
        if path in new_files:
            out[(CONTAINS.name, REPOSITORY.name, FILE.name)].append((rid, fid))
        out[(CONTAINS.name, FILE.name, SYMBOL.name)].append(
            (fid, symbol_id(repo, path, MODULE_QUALNAME)))
        for sym in extracts[path].symbols:
            child = symbol_id(repo, path, sym.qualname)
            if sym.parent:
                out[(CONTAINS.name, SYMBOL.name, SYMBOL.name)].append(
                    (symbol_id(repo, path, sym.parent), child))
            else:
                out[(CONTAINS.name, FILE.name, SYMBOL.name)].append((fid, child))
    return out


def edge_frames(repo: str, edges: list[EdgeRow], contains_of: dict[str, FileExtract],
                new_files: set[str]) -> dict[tuple[str, str, str], pl.DataFrame]:
    """Rel frames keyed by (rel, source table, target table), ready for COPY.

    CALLS and IMPORTS are aggregated per (source, target): ``line`` is the first site and
    CALLS ``count`` the number of sites, so the graph holds one edge per pair.
    """
    frames: dict[tuple[str, str, str], pl.DataFrame] = {}
    for key, pairs in _contains(repo, contains_of, new_files).items():
        frames[key] = pl.DataFrame(
            {"from": [a for a, _ in pairs], "to": [b for _, b in pairs],
             "source": [Source.AST.value] * len(pairs), "confidence": [1.0] * len(pairs)})
    grouped: dict[tuple[str, str, str], list[EdgeRow]] = defaultdict(list)
    for e in edges:
        grouped[(e.rel, e.src_table, e.dst_table)].append(e)
    for key, rows in grouped.items():
        df = pl.DataFrame({
            "from": [e.src for e in rows], "to": [e.dst for e in rows],
            "line": [e.line for e in rows], "resolution": [e.resolution for e in rows],
            "confidence": [e.confidence for e in rows], "name": [e.name for e in rows],
        }, schema={"from": pl.Utf8, "to": pl.Utf8, "line": pl.Int64, "resolution": pl.Utf8,
                   "confidence": pl.Float64, "name": pl.Utf8})
        # every column in the sort: sites of one pair on one line (``self._key() <
        # other._key()``) then give the same edge whatever order the rows came in (polars
        # does not keep the order of ties), the best evidence first
        df = (df.sort("from", "to", "line", "confidence", "resolution", "name",
                      descending=[False, False, False, True, False, False])
                .group_by("from", "to", maintain_order=True)
                .agg(pl.col("line").first(), pl.col("resolution").first(),
                     pl.col("confidence").first(), pl.col("name").first(),
                     pl.len().cast(pl.Int64).alias("count")))
        source = pl.when(pl.col("resolution") == "name_only").then(pl.lit(Source.INFERRED.value))
        df = df.with_columns(source.otherwise(pl.lit(Source.AST.value)).alias("source"))
        rel = key[0]
        if rel == CALLS.name:
            df = df.select("from", "to", "line", "resolution", "count", "confidence", "source")
        elif rel == IMPORTS.name:
            df = df.select("from", "to", "line", "name", "resolution", "confidence", "source")
        elif rel == INHERITS.name:
            df = df.select("from", "to", pl.col("name").alias("kind"), "resolution",
                           "confidence", "source")
        elif rel == TESTS.name:
            df = df.select("from", "to", pl.col("resolution").alias("method"), "confidence",
                           "source")
        frames[key] = df
    return frames
