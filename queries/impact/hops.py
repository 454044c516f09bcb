"""The statements of one impact hop and how their rows become edges: shared by the per-hop
queries (:mod:`queries.impact.traverse`) and the in-memory adjacency built from the same
statements over the whole graph (:mod:`queries.impact.adjacency`), so both see the same
edges."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from queries.impact.model import ImpactEdge
from queries.impact_context import TimeFilter
from schema import CALLS, CONTAINS, FILE, IMPORTS, INHERITS, MODULE_QUALNAME, SYMBOL, TESTS

__all__ = [
    "FILE_COLUMNS",
    "NODE_COLUMNS",
    "SYMBOL_KINDS",
    "Reached",
    "hop_rows",
    "hop_statements",
    "node_of",
]

#: the edge kinds a symbol frontier is reached through, in statement order
SYMBOL_KINDS = (CALLS.name, INHERITS.name, TESTS.name, CONTAINS.name, IMPORTS.name)

NODE_COLUMNS = ("label(a) AS tbl, a.qualname AS qualname, a.kind AS skind, a.file AS file, "
                "a.path AS path, a.repo AS repo, a.language AS language, a.is_test AS is_test")

#: the same columns when ``a`` can only be a File
FILE_COLUMNS = NODE_COLUMNS.replace(
    "a.qualname AS qualname, a.kind AS skind, a.file AS file",
    "'' AS qualname, 'file' AS skind, a.id AS file")


@dataclass(slots=True)
class Reached:
    table: str
    name: str
    kind: str
    path: str
    repo: str
    language: str
    is_test: bool
    file: str


def node_of(row: dict[str, Any]) -> Reached:
    """A node described by :data:`NODE_COLUMNS` (Symbol or File)."""
    repo = row["repo"] or ""
    if row["tbl"] == FILE.name:
        path = row["path"] or ""
        return Reached(FILE.name, path, "file", path, repo, row["language"] or "",
                       bool(row["is_test"]), row["src"])
    fid = row["file"] or ""
    return Reached(SYMBOL.name, row["qualname"] or "", row["skind"] or "",
                   fid[len(f"file:{repo}/"):], repo, row["language"] or "",
                   bool(row["is_test"]), fid)


def _resolution(kinds: Sequence[str]) -> str:
    """How an edge was found: CALLS/INHERITS/IMPORTS ``resolution``, TESTS ``method``."""
    props = [p for p, ks in (("e.resolution", (CALLS.name, INHERITS.name, IMPORTS.name)),
                             ("e.method", (TESTS.name,))) if set(ks) & set(kinds)]
    return f"coalesce({', '.join(props)}, '')" if props else "''"


def hop_statements(kinds: Iterable[str], flt: TimeFilter) -> list[tuple[str, str, str]]:
    """(frontier table, statement, looked-up alias) for every edge of ``kinds`` into a
    frontier: one statement for the symbol frontier, two for the file frontier. The
    statements carry ``{ALIAS}``/``{B}``/``{IN}`` for :func:`queries.batch.lookup_template`."""
    kinds = set(kinds)
    out: list[tuple[str, str, str]] = []
    valid = f"{flt.valid('a')} AND {flt.valid('e')}"
    ret = ("RETURN {ALIAS}.id AS at, a.id AS src, b.id AS dst, label(e) AS kind, "
           "e.source AS source, e.confidence AS confidence, ")
    ret_file = ret + FILE_COLUMNS
    ret += NODE_COLUMNS
    sym_kinds = [k for k in SYMBOL_KINDS if k in kinds]
    if sym_kinds:
        out.append((SYMBOL.name, (
            f"MATCH (a:{FILE.name}:{SYMBOL.name})-[e:{'|'.join(sym_kinds)}]->"
            f"(b:{SYMBOL.name}{{B}}) WHERE {{IN}} AND {valid} AND (label(e) <> "
            f"'{CONTAINS.name}' OR label(a) = '{SYMBOL.name}' OR b.qualname = "
            f"'{MODULE_QUALNAME}') {ret}, {_resolution(sym_kinds)} AS res"), "b"))
    if IMPORTS.name in kinds:
        out.append((FILE.name, (
            f"MATCH (a:{FILE.name})-[e:{IMPORTS.name}]->(b:{FILE.name}{{B}}) "
            f"WHERE {{IN}} AND {valid} {ret_file}, e.resolution AS res"), "b"))
        out.append((FILE.name, (
            f"MATCH (f:{FILE.name}{{B}})-[:{CONTAINS.name}]->(b:{SYMBOL.name})"
            f"<-[e:{IMPORTS.name}]-(a:{FILE.name}) WHERE {{IN}} AND {valid} "
            f"{ret_file.replace('{ALIAS}', 'f')}, e.resolution AS res"), "f"))
    return out


def hop_rows(rows: Iterable[dict[str, Any]], nodes: dict[str, Reached]
             ) -> list[tuple[str, ImpactEdge, bool]]:
    """Rows of :func:`hop_statements` as (frontier node, edge, whether its source file
    spreads); each source's description goes into ``nodes``."""
    out: list[tuple[str, ImpactEdge, bool]] = []
    for row in rows:
        if row["src"] not in nodes:
            nodes[row["src"]] = node_of(row)
        kind = row["kind"]
        spreads = (kind == IMPORTS.name and row["at"].startswith("file:")) or (
            kind == CONTAINS.name and row["tbl"] == FILE.name)
        out.append((row["at"], ImpactEdge(
            row["src"], row["dst"], kind, row["res"] or "", row["source"] or "",
            1.0 if row["confidence"] is None else float(row["confidence"])), spreads))
    return out
