"""A detection as the frames ``graphdb.communities.write_communities`` stores, built column
by column (no frame from one dict per row, no Python list per member)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from graphdb.communities import CommunityWrite
from queries.communities.graph import CommunityGraph
from queries.communities.results import Community, Level
from schema import COMMUNITY, Source, frame_schema

__all__ = ["community_write"]


def community_write(repo: str, scope: str, cg: CommunityGraph,
           levels: Sequence[tuple[Level, tuple[int, ...]]], ids_of: Sequence[Mapping[int, str]],
           built: Sequence[Community], fingerprint: str) -> CommunityWrite:
    source = Source.INFERRED.value
    # built column by column: frames from one dict per row cost ~1 s on the standard library
    columns = ("id", "level", "number", "objective", "resolution", "name", "size", "quality",
               "prefix", "terms", "top", "internal", "external")
    values: dict[str, list] = {c: [] for c in columns}
    for c in built:
        for column in columns:
            values[column].append(getattr(c, column))
    # lists of strings (terms, top: words and member names, never empty strings) go in
    # joined and are split by polars: a Python list per row costs a Series each
    lists = ("terms", "top")
    for column in lists:
        values[column] = [_SEP.join(t) for t in values[column]]
    schema = {**_schema(COMMUNITY, columns), **dict.fromkeys(lists, pl.Utf8)}
    communities = pl.DataFrame(values, schema=schema).with_columns(
        pl.col(c).str.split(_SEP).list.eval(pl.element().filter(pl.element() != ""))
        for c in lists).with_columns(
        repo=pl.lit(repo, pl.Utf8), scope=pl.lit(scope, pl.Utf8),
        source=pl.lit(source, pl.Utf8), confidence=pl.lit(1.0, pl.Float64)).select(
        "id", "repo", "scope", "level", "number", "objective", "resolution", "name", "size",
        "quality", "prefix", "terms", "top", "internal", "external", "source", "confidence")
    nodes = pl.Series("from", cg.ids, dtype=pl.Utf8)
    members = pl.concat([
        pl.DataFrame([nodes, pl.Series("to", [ids_of[lv.level][c] for c in
                                              range(len(ids_of[lv.level]))], dtype=pl.Utf8)
                      .gather(pl.Series(lv.membership, dtype=pl.Int64))])
        for lv, _ in levels] or [pl.DataFrame(schema={"from": pl.Utf8, "to": pl.Utf8})]
    ).with_columns(source=pl.lit(source), confidence=pl.lit(1.0))
    child = [c for c in built if c.parent is not None]
    parents = pl.DataFrame({"from": [c.id for c in child], "to": [c.parent for c in child]},
                           schema={"from": pl.Utf8, "to": pl.Utf8}).with_columns(
        source=pl.lit(source))
    edges = [(c.id, d) for c in built for d in c.dependencies]
    depends = pl.DataFrame(
        {"from": [a for a, _ in edges], "to": [d.target for _, d in edges],
         "weight": [d.weight for _, d in edges], "edges": [d.edges for _, d in edges]},
        schema={"from": pl.Utf8, "to": pl.Utf8, "weight": pl.Float64, "edges": pl.Int64}
    ).with_columns(source=pl.lit(source))
    return CommunityWrite(repo, scope, communities, members, parents, depends, fingerprint)


_SEP = "\x1f"


def _schema(table, columns: Sequence[str]) -> dict[str, pl.DataType]:
    full = frame_schema(table)
    return {c: full[c] for c in columns}
