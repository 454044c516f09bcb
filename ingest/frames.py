"""Rows <-> polars frames: extracts to node/rel tables, and stored rows back to extracts.

The way back is what makes incremental ingest cheap: an unchanged file's symbols and
references are read from the graph (CodeRef rows) instead of being parsed again.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping

import polars as pl

from ingest.extract.columns import (
    EXTRACTED_SYMBOL_COLUMNS,
    FileColumns,
    file_columns,
    module_short_name,
)
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
    file_id,
    frame_schema,
    ref_id,
    repo_id,
    symbol_id,
)

__all__ = [
    "SYMBOL_COLUMNS", "Columns", "build_extract", "edge_frames", "external_frame",
    "extracts_from_rows", "file_frame", "module_short_name", "ref_frame", "symbol_frame",
]

#: each parsed file's columns as its parse worker made them (``FileResult.columns``), by
#: path; a file missing here has them made from its extract
Columns = Mapping[str, FileColumns | None]


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


def _columns(extracts: Mapping[str, FileExtract],
             columns: Columns | None) -> list[tuple[str, FileExtract, FileColumns]]:
    """Every file of ``extracts`` with its columns, in path order."""
    given = columns or {}
    return [(path, extracts[path], given.get(path) or file_columns(path, extracts[path]))
            for path in sorted(extracts)]


def _symbol_table(repo: str, files: list[tuple[str, FileExtract, FileColumns]]) -> pl.DataFrame:
    """The files' symbols, one frame: :data:`EXTRACTED_SYMBOL_COLUMNS`, plus per row its
    file's id, language and symbol id prefix (ids are built by ``schema.ids`` once per file:
    a symbol's id is its file's prefix and its qualname)."""
    cols: dict[str, list] = {c: [] for c in EXTRACTED_SYMBOL_COLUMNS}
    per_file: dict[str, list] = {"file": [], "language": [], "prefix": []}
    for path, fx, fc in files:
        for values, column in zip(fc.symbols, cols.values(), strict=True):
            column.extend(values)
        n = len(fc.symbols[0])
        per_file["file"].extend([file_id(repo, path)] * n)
        per_file["language"].extend([fx.language] * n)
        per_file["prefix"].extend([symbol_id(repo, path, "")] * n)
    schema = frame_schema(SYMBOL)
    return pl.DataFrame({**cols, **per_file},
                        schema={**{c: schema.get(c, pl.Utf8) for c in cols},
                                "file": pl.Utf8, "language": pl.Utf8, "prefix": pl.Utf8})


def symbol_frame(repo: str, extracts: Mapping[str, FileExtract],
                 columns: Columns | None = None) -> pl.DataFrame:
    """Symbols of ``extracts`` plus one module symbol per file (qualname ``<module>``)."""
    if not extracts:
        return pl.DataFrame(schema=frame_schema(SYMBOL))
    table = _symbol_table(repo, _columns(extracts, columns))
    schema = frame_schema(SYMBOL)
    derived = {"id": pl.concat_str("prefix", "qualname"), "repo": pl.lit(repo),
               "source": pl.lit(Source.AST.value), "confidence": pl.lit(1.0)}
    names = [c for c in schema if c in derived or c in table.columns]
    return table.select(
        (derived[c] if c in derived else pl.col(c)).cast(schema[c]).alias(c) for c in names)


def ref_frame(repo: str, extracts: Mapping[str, FileExtract],
              columns: Columns | None = None) -> pl.DataFrame:
    """One CodeRef row per file: its declarations and call sites as written, packed as JSON
    (:func:`ingest.extract.columns.pack_refs`)."""
    files = _columns(extracts, columns)
    fids = [file_id(repo, path) for path, _, _ in files]
    return _frame({"id": [ref_id(f) for f in fids], "file": fids,
                   "decls": [fc.decls for _, _, fc in files],
                   "calls": [fc.calls for _, _, fc in files],
                   "count": [fc.count for _, _, fc in files],
                   "source": [Source.AST.value] * len(fids)}, CODE_REF)


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


def _contains(repo: str, extracts: Mapping[str, FileExtract], new_files: set[str],
              columns: Columns | None = None) -> dict[tuple[str, str, str], pl.DataFrame]:
    """CONTAINS pairs: repository -> new file, file -> its module symbol and top-level
    symbols, symbol -> nested symbol (in path order, then each file's order)."""
    files = _columns(extracts, columns)
    rid = repo_id(repo)
    new = [file_id(repo, path) for path, _, _ in files if path in new_files]
    table = _symbol_table(repo, files) if files else None
    parts: dict[tuple[str, str, str], pl.DataFrame] = {}
    if new:
        parts[(CONTAINS.name, REPOSITORY.name, FILE.name)] = pl.DataFrame(
            {"from": [rid] * len(new), "to": new})
    if table is not None:
        table = table.select("file", "parent", "prefix",
                             pl.concat_str("prefix", "qualname").alias("to"))
        top = table.filter(pl.col("parent") == "").select(pl.col("file").alias("from"), "to")
        nested = table.filter(pl.col("parent") != "").select(
            pl.concat_str("prefix", "parent").alias("from"), "to")
        parts[(CONTAINS.name, FILE.name, SYMBOL.name)] = top
        if nested.height:
            parts[(CONTAINS.name, SYMBOL.name, SYMBOL.name)] = nested
    return parts


def edge_frames(repo: str, edges: list[EdgeRow], contains_of: Mapping[str, FileExtract],
                new_files: set[str], columns: Columns | None = None,
                ) -> dict[tuple[str, str, str], pl.DataFrame]:
    """Rel frames keyed by (rel, source table, target table), ready for COPY.

    CALLS and IMPORTS are aggregated per (source, target): ``line`` is the first site and
    CALLS ``count`` the number of sites, so the graph holds one edge per pair.
    """
    frames: dict[tuple[str, str, str], pl.DataFrame] = {}
    for key, pairs in _contains(repo, contains_of, new_files, columns).items():
        frames[key] = pairs.with_columns(pl.lit(Source.AST.value).alias("source"),
                                         pl.lit(1.0).alias("confidence"))
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
