"""Stable community numbers across detections: a new community takes the number of the
stored one it overlaps most."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import polars as pl

__all__ = ["Matched", "match_communities"]


@dataclass(frozen=True)
class Matched:
    """New communities under stable numbers: ``numbers[c]`` is the stable number of new
    community c; ``moved`` the nodes whose stable community changed, as (node, old, new)."""

    numbers: tuple[int, ...]
    moved: tuple[tuple[str, int, int], ...]


def match_communities(ids: Sequence[str], membership: Sequence[int],
                      previous: Mapping[str, int]) -> Matched:
    """Keep community numbers across runs: each new community takes the number of the old one
    it overlaps most (by Jaccard index, best pairs first, one to one); the others get numbers
    never used before. ``previous`` maps node id -> stable number from the last run.

    Overlaps are counted by polars joins over the members; Python sees one row per pair of
    overlapping communities and one per moved member, never one per member."""
    new = pl.DataFrame({"node": list(ids), "c": list(membership)},
                       schema={"node": pl.Utf8, "c": pl.Int64})
    old = pl.DataFrame({"node": list(previous), "number": list(previous.values())},
                       schema={"node": pl.Utf8, "number": pl.Int64})
    both = new.join(old, on="node")
    pairs = (both.group_by("c", "number").agg(pl.len().alias("shared"))
             .join(new.group_by("c").agg(pl.len().alias("n_new")), on="c")
             .join(old.group_by("number").agg(pl.len().alias("n_old")), on="number")
             .with_columns(jaccard=pl.col("shared")
                           / (pl.col("n_new") + pl.col("n_old") - pl.col("shared")))
             .sort(["jaccard", "c", "number"], descending=[True, False, False]))
    numbers: dict[int, int] = {}
    taken: set[int] = set()
    for c, number in pairs.select("c", "number").iter_rows():
        if c not in numbers and number not in taken:
            numbers[c] = number
            taken.add(number)
    fresh = (old["number"].max() if old.height else -1) + 1  # type: ignore[operator]
    count = (new["c"].max() + 1) if new.height else 0  # type: ignore[operator]
    for c in new["c"].unique().sort().to_list():
        if c not in numbers:
            numbers[c] = fresh
            fresh += 1
    stable = pl.DataFrame({"c": list(numbers), "new": list(numbers.values())},
                          schema={"c": pl.Int64, "new": pl.Int64})
    moved = (both.join(stable, on="c").filter(pl.col("number") != pl.col("new"))
             .select("node", "number", "new").sort("node", "number", "new"))
    return Matched(tuple(numbers[c] for c in range(count)), tuple(moved.iter_rows()))
