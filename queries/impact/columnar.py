"""The reverse adjacency of :mod:`queries.impact.adjacency` held in columns (compressed
sparse rows), built with vectorised polars/numpy operations from the Arrow results of the
per-hop statements.

The first adjacency held one Python tuple per edge (~27 µs per edge to build, ~1 KB each):
fine on the standard library, hopeless at 10M edges (issue 28). Here every Symbol and File
id gets an integer code; the rows into each frontier node are one slice of integer arrays
sorted by that node, and a hop turns only the rows it returns into Python objects. The rows
are those of the same statements (:func:`queries.impact.hops.hop_statements`, run over the
whole graph one edge kind at a time, returning the edge's columns; the source node's
description is read once per node, with the columns of ``describe_nodes``) and become edges
by the same function (:func:`queries.impact.hops.hop_rows`), so a hop returns exactly what
the queries return (``tests/queries/test_impact_adjacency.py``).

Hand-written rather than a graph library: the rows carry the statement's columns (edge kind,
resolution, source, confidence), which scipy.sparse or igraph would hold beside the
structure anyway, and lookups by string id need the hash index below either way.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import polars as pl

from queries.impact.hops import Reached, hop_rows
from queries.impact.model import ImpactEdge
from schema import FILE, IMPORTS, SYMBOL

__all__ = ["DESCRIPTION", "ColumnarRows", "Index", "Rows", "Vocabulary"]

_Row = tuple[str, ImpactEdge, bool]

#: the columns describing the source node ``a`` (:data:`queries.impact.hops.NODE_COLUMNS`)
DESCRIPTION = ("tbl", "qualname", "skind", "file", "path", "repo", "language", "is_test")
#: a fixed seed: codes are looked up by hashing ids the same way they were indexed
_SEED = 20261127


class Index:
    """Node id <-> integer code, and each node's description (one row per code).

    A node's code is its engine offset in its table plus the table's base (tables one after
    another), so the edge statements return integers, not ids, and need no join. Ids are
    held in a polars Series (Arrow strings: compact; null where an offset holds no node)
    and found through a sorted array of their 64-bit hashes; a collision is settled by
    comparing the ids."""

    def __init__(self, tables: dict[str, pl.DataFrame]) -> None:
        """``tables``: per node table, ``o`` (the engine offset), ``src`` (the id) and
        :data:`DESCRIPTION`, one row per node."""
        self.bases: dict[str, int] = {}
        laid: list[pl.DataFrame] = []
        size = 0
        for table, frame in tables.items():
            self.bases[table] = size
            span = int(frame["o"].max()) + 1 if frame.height else 0
            laid.append(pl.DataFrame({"o": np.arange(span, dtype=np.int64)}).join(
                frame.with_columns(pl.col("o").cast(pl.Int64)), on="o", how="left",
                maintain_order="left").select("src", *DESCRIPTION))
            size += span
        whole = pl.concat(laid, how="vertical_relaxed") if laid else pl.DataFrame(
            schema={"src": pl.String, **_DESCRIBED})
        self.ids = whole["src"].rename("id")
        self.described = whole.select(DESCRIPTION)
        present = np.flatnonzero(self.ids.is_not_null().to_numpy())
        hashes = self.ids.gather(present).hash(_SEED).to_numpy()
        order = np.argsort(hashes, kind="stable")
        self._order = present[order].astype(np.int64)
        self._sorted = hashes[order]

    def __len__(self) -> int:
        return self.ids.len()

    def codes(self, wanted: list[str]) -> np.ndarray:
        """Codes of the ids of ``wanted`` that are known (unknown ids are left out)."""
        if not wanted:
            return np.empty(0, dtype=np.int64)
        probe = pl.Series(wanted, dtype=pl.String)
        hashes = probe.hash(_SEED).to_numpy()
        lo = np.searchsorted(self._sorted, hashes, side="left")
        hi = np.searchsorted(self._sorted, hashes, side="right")
        at = np.flatnonzero(hi > lo)
        spans = (hi - lo)[at]
        which = np.repeat(at, spans)
        candidates = self._order[_ranges(lo[at], spans)]
        same = (self.ids.gather(candidates) == probe.gather(which)).to_numpy()
        return candidates[same]

    def code_column(self, frame: pl.DataFrame, column: str) -> np.ndarray:
        """Codes of the nodes in ``frame[column]`` (offsets) and ``frame[column_tbl]``
        (their tables)."""
        base = frame[f"{column}_tbl"].cast(pl.String).replace_strict(
            self.bases, return_dtype=pl.Int64)
        return (base + frame[column].cast(pl.Int64)).to_numpy().astype(np.int64)


_DESCRIBED = {c: (pl.Boolean if c == "is_test" else pl.String) for c in DESCRIPTION}


class Vocabulary:
    """The few distinct strings of a column (edge kinds, resolutions, sources) as small
    integer codes shared by every frame."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._codes: dict[str, int] = {}

    def code(self, values: pl.Series) -> np.ndarray:
        values = values.cast(pl.String).fill_null("")
        for name in values.unique().to_list():
            if name not in self._codes:
                self._codes[name] = len(self.names)
                self.names.append(name)
        coded = values.replace_strict(self._codes, return_dtype=pl.UInt16)
        return coded.to_numpy().astype(np.uint16)  # an empty column comes as objects


class Rows:
    """The rows into the nodes of one frontier table, grouped by that node (CSR)."""

    def __init__(self, nodes: int, columns: dict[str, np.ndarray]) -> None:
        """``columns``: at, src, dst (node codes), kind, res, source (vocabulary codes),
        confidence (NaN where the edge has none)."""
        order = np.argsort(columns["at"], kind="stable")
        counts = np.bincount(columns["at"], minlength=nodes)
        self.offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        self.at, self.src, self.dst, self.kind, self.res, self.source, self.confidence = (
            columns[c][order] for c in ("at", "src", "dst", "kind", "res", "source",
                                        "confidence"))

    def __len__(self) -> int:
        return len(self.src)

    def select(self, codes: np.ndarray, allowed: np.ndarray | None) -> np.ndarray:
        """Indexes of the rows into the nodes ``codes``; of the kinds ``allowed`` (a mask
        over kind codes) only, unless None."""
        starts = self.offsets[codes]
        picked = _ranges(starts, self.offsets[codes + 1] - starts)
        if allowed is not None:
            picked = picked[allowed[self.kind[picked]]]
        return picked


class ColumnarRows:
    """Both frontier tables' rows, with the index and vocabularies that decode them."""

    def __init__(self, index: Index, into: dict[str, Rows],
                 vocabularies: dict[str, Vocabulary]) -> None:
        self.index = index
        self.into = into
        self.kinds = vocabularies["kind"].names
        self.res = vocabularies["res"].names
        self.sources = vocabularies["source"].names

    @property
    def edges(self) -> int:
        return sum(len(rows) for rows in self.into.values())

    def rows(self, table: str, frontier: list[str], kinds: set[str] | None
             ) -> Iterable[dict[str, object]]:
        """The statement rows into ``frontier`` (nodes of ``table``), as named rows."""
        rows = self.into[table]
        allowed = None if kinds is None else np.array([k in kinds for k in self.kinds] or
                                                      [False], dtype=bool)
        picked = rows.select(self.index.codes(frontier), allowed)
        if not len(picked):
            return []
        src = rows.src[picked]
        ids = self.index.ids
        confidence = rows.confidence[picked]
        frame = pl.DataFrame({
            "at": ids.gather(rows.at[picked]),
            "src": ids.gather(src),
            "dst": ids.gather(rows.dst[picked]),
            "kind": [self.kinds[k] for k in rows.kind[picked]],
            "source": [self.sources[k] for k in rows.source[picked]],
            "confidence": pl.Series(confidence, nan_to_null=True),
            "res": [self.res[k] for k in rows.res[picked]],
        })
        described = self.index.described.select(pl.all().gather(src))
        return pl.concat([frame, described], how="horizontal").iter_rows(named=True)

    def hop(self, frontier: dict[str, list[str]], kinds: set[str],
            nodes: dict[str, Reached]) -> list[_Row]:
        """What one hop's statements return for ``frontier``, as edges (``hop_rows``)."""
        out: list[_Row] = []
        if frontier.get(SYMBOL.name):
            out += hop_rows(self.rows(SYMBOL.name, frontier[SYMBOL.name], kinds), nodes)
        if IMPORTS.name in kinds and frontier.get(FILE.name):
            out += hop_rows(self.rows(FILE.name, frontier[FILE.name], None), nodes)
        return out


def coded_rows(index: Index, vocabularies: dict[str, Vocabulary],
               frame: pl.DataFrame) -> dict[str, np.ndarray]:
    """A statement's result as codes: at, src, dst (engine offsets, with their tables in
    ``*_tbl``), kind, res, source, confidence."""
    out = {c: index.code_column(frame, c) for c in ("at", "src", "dst")}
    out.update({c: vocabularies[c].code(frame[c]) for c in ("kind", "res", "source")})
    out["confidence"] = frame["confidence"].cast(pl.Float64).fill_null(np.nan).to_numpy()
    return out


def join_rows(nodes: int, parts: list[dict[str, np.ndarray]]) -> Rows:
    """One table's coded parts as one CSR."""
    names = ("at", "src", "dst", "kind", "res", "source", "confidence")
    empty = {"confidence": np.float64, "kind": np.uint16, "res": np.uint16,
             "source": np.uint16}
    columns = {c: (np.concatenate([p[c] for p in parts]) if parts else
                   np.empty(0, dtype=empty.get(c, np.int64))) for c in names}
    return Rows(nodes, columns)


def _ranges(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Every ``start .. start + size`` range laid end to end, without a Python loop."""
    total = int(sizes.sum())
    if not total:
        return np.empty(0, dtype=np.int64)
    shift = np.repeat(starts - np.concatenate(([0], np.cumsum(sizes)[:-1])), sizes)
    return np.arange(total, dtype=np.int64) + shift
