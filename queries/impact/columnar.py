"""The reverse adjacency of :mod:`queries.impact.adjacency` held in columns (CSR), built with
vectorised polars/numpy operations from the Arrow results of the per-hop statements.

The first adjacency held one Python tuple per edge (~27 µs per edge to build, ~1 KB each):
fine on the standard library, hopeless at 10M edges (issue 28: ~4.5 minutes and ~10 GB).
Here every node id gets an integer code; the rows into each frontier node are one slice of
integer arrays sorted by that node (compressed sparse rows), and a hop turns only the rows it
returns into Python objects. The rows are those of the same statements
(:func:`queries.impact.hops.hop_statements`) and become edges by the same function
(:func:`queries.impact.hops.hop_rows`), so a hop returns exactly what the queries return.

Hand-written rather than a graph library: the rows carry the statement's columns (edge
kind, resolution, source, confidence, the source node's description), which scipy.sparse or
igraph would hold beside the structure anyway, and lookups by string id need the hash index
below either way.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import polars as pl

from queries.impact.hops import Reached, hop_rows
from queries.impact.model import ImpactEdge
from schema import FILE, IMPORTS, SYMBOL

__all__ = ["ColumnarRows", "Rows", "build_rows"]

_Row = tuple[str, ImpactEdge, bool]

#: the statement's columns describing the source node ``a`` (:data:`hops.NODE_COLUMNS`)
_DESCRIPTION = ("tbl", "qualname", "skind", "file", "path", "repo", "language", "is_test")
#: a fixed seed: codes are looked up by hashing ids the same way they were indexed
_SEED = 20261127


class _Ids:
    """Node id <-> integer code: ids in a polars Series (Arrow strings, compact), looked up
    through a sorted array of their 64-bit hashes (a collision is checked by comparing the
    ids themselves)."""

    def __init__(self, ids: pl.Series) -> None:
        self.ids = ids.rename("id")
        hashes = self.ids.hash(_SEED).to_numpy()
        self._order = np.argsort(hashes, kind="stable").astype(np.int64)
        self._sorted = hashes[self._order]

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
        # one candidate per hash (a 64-bit collision is rare but possible: every candidate)
        at = np.flatnonzero(hi > lo)
        spans = (hi - lo)[at]
        which = np.repeat(at, spans)
        shift = np.repeat(lo[at] - np.concatenate(([0], np.cumsum(spans)[:-1])), spans)
        codes = self._order[np.arange(int(spans.sum()), dtype=np.int64) + shift]
        same = (self.ids.gather(codes) == probe.gather(which)).to_numpy()
        return codes[same]


class Rows:
    """The rows into the nodes of one frontier table, grouped by that node."""

    def __init__(self, ids: _Ids, frame: pl.DataFrame) -> None:
        """``frame``: columns at, src, dst (codes), kind, res, source (categories),
        confidence."""
        frame = frame.sort("at", maintain_order=True)
        counts = np.bincount(frame["at"].to_numpy(), minlength=len(ids))
        self.offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        self.src = frame["src"].to_numpy()
        self.dst = frame["dst"].to_numpy()
        self.at = frame["at"].to_numpy()
        self.confidence = frame["confidence"].to_numpy()
        self.kind = frame["kind"].to_physical().to_numpy()
        self.kinds = frame["kind"].dtype.categories.to_list()
        self.res = frame["res"].to_physical().to_numpy()
        self.res_names = frame["res"].dtype.categories.to_list()
        self.source = frame["source"].to_physical().to_numpy()
        self.sources = frame["source"].dtype.categories.to_list()

    def __len__(self) -> int:
        return len(self.src)

    def select(self, codes: np.ndarray, kinds: set[str] | None) -> np.ndarray:
        """Indexes of the rows into the nodes ``codes`` (of ``kinds`` only, unless None)."""
        starts, ends = self.offsets[codes], self.offsets[codes + 1]
        sizes = ends - starts
        total = int(sizes.sum())
        if not total:
            return np.empty(0, dtype=np.int64)
        # every start..end range laid end to end, without a Python loop
        shift = np.repeat(starts - np.concatenate(([0], np.cumsum(sizes)[:-1])), sizes)
        picked = np.arange(total, dtype=np.int64) + shift
        if kinds is not None:
            allowed = np.array([k in kinds for k in self.kinds], dtype=bool)
            picked = picked[allowed[self.kind[picked]]] if len(allowed) else picked[:0]
        return picked


class ColumnarRows:
    """Both frontier tables' rows, the id codes and the source descriptions."""

    def __init__(self, ids: _Ids, into: dict[str, Rows], described: pl.DataFrame) -> None:
        self.ids = ids
        self.into = into
        #: one row per code (null where the node is never a source), the statement's columns
        self.described = described

    @property
    def edges(self) -> int:
        return sum(len(rows) for rows in self.into.values())

    def rows(self, table: str, frontier: list[str], kinds: set[str] | None
             ) -> Iterable[dict[str, object]]:
        """The statement rows into ``frontier`` (nodes of ``table``), as named rows."""
        rows = self.into[table]
        picked = rows.select(self.ids.codes(frontier), kinds)
        if not len(picked):
            return []
        src = rows.src[picked]
        names = self.ids.ids
        frame = pl.DataFrame({
            "at": names.gather(rows.at[picked]),
            "src": names.gather(src),
            "dst": names.gather(rows.dst[picked]),
            "kind": [rows.kinds[k] for k in rows.kind[picked]],
            "source": [rows.sources[k] for k in rows.source[picked]],
            "confidence": rows.confidence[picked],
            "res": [rows.res_names[k] for k in rows.res[picked]],
        })
        described = self.described.select(pl.all().gather(src))
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


def build_rows(frames: dict[str, list[pl.DataFrame]]) -> ColumnarRows:
    """Columns from the statements' results, by frontier table."""
    every = [f for fs in frames.values() for f in fs if not f.is_empty()]
    if not every:
        ids = _Ids(pl.Series("id", [], dtype=pl.String))
        empty = {t: Rows(ids, _empty_rows()) for t in frames}
        return ColumnarRows(ids, empty, pl.DataFrame(schema=_described_schema()))
    names = pl.concat([pl.concat([f["at"], f["src"], f["dst"]]) for f in every])
    ids = _Ids(names.unique(maintain_order=True))
    code = pl.DataFrame({"id": ids.ids, "code": np.arange(len(ids), dtype=np.int64)})
    categories = {c: pl.Enum(sorted(pl.concat([f[c].fill_null("").cast(pl.String)
                                               for f in every]).unique().to_list()))
                  for c in ("kind", "res", "source")}
    into = {table: Rows(ids, _coded(fs, code, categories)) for table, fs in frames.items()}
    described = pl.concat([f.select("src", *_DESCRIPTION).cast(_described_cast())
                           for f in every]).unique("src", keep="first", maintain_order=True)
    described = code.join(described, left_on="id", right_on="src", how="left",
                          maintain_order="left").drop("id", "code")
    return ColumnarRows(ids, into, described)


def _coded(frames: list[pl.DataFrame], code: pl.DataFrame,
           categories: dict[str, pl.Enum]) -> pl.DataFrame:
    frames = [f for f in frames if not f.is_empty()]
    if not frames:
        return _empty_rows()
    rows = pl.concat([f.select(
        "at", "src", "dst",
        pl.col("kind").cast(pl.String).fill_null("").cast(categories["kind"]),
        pl.col("res").cast(pl.String).fill_null("").cast(categories["res"]),
        pl.col("source").cast(pl.String).fill_null("").cast(categories["source"]),
        pl.col("confidence").cast(pl.Float64)) for f in frames])
    for column in ("at", "src", "dst"):
        rows = rows.join(code.rename({"id": column, "code": f"{column}_code"}), on=column,
                         how="left", maintain_order="left").drop(column) \
            .rename({f"{column}_code": column})
    return rows


def _empty_rows() -> pl.DataFrame:
    return pl.DataFrame(schema={"at": pl.Int64, "src": pl.Int64, "dst": pl.Int64,
                                "kind": pl.Enum([]), "res": pl.Enum([]),
                                "source": pl.Enum([]), "confidence": pl.Float64})


def _described_schema() -> dict[str, pl.DataType]:
    return {c: (pl.Boolean if c == "is_test" else pl.String) for c in _DESCRIPTION}


def _described_cast() -> dict[str, pl.DataType]:
    return _described_schema()
