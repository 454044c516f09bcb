"""What a community detection returns and what is read back: plain frozen dataclasses
(no igraph), so reading stored communities never imports the detection's libraries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Literal

import polars as pl

__all__ = ["OBJECTIVES", "SCOPES", "Backend", "Community", "Dependency", "Detection", "Level",
           "Moved", "Objective", "Scope"]

Scope = Literal["file", "symbol"]
Objective = Literal["modularity", "rb", "cpm"]
Backend = Literal["igraph", "leidenalg"]
SCOPES: tuple[str, ...] = ("file", "symbol")
OBJECTIVES: tuple[str, ...] = ("modularity", "rb", "cpm")


@dataclass(frozen=True)
class Level:
    """One level of the hierarchy: ``membership[i]`` is node i's community; ``parent[c]`` the
    community of the level above that community c splits (None at the top level)."""

    level: int
    membership: tuple[int, ...]
    parent: tuple[int, ...] | None
    modularity: float
    resolution: float = 1.0

    @property
    def count(self) -> int:
        return len(set(self.membership))


@dataclass(frozen=True)
class Dependency:
    """``community`` depends on ``target`` through ``edges`` member pairs of total weight."""

    target: str
    name: str
    weight: float
    edges: int


@dataclass(frozen=True)
class Community:
    """A stored community with its name and summary figures."""

    id: str
    repo: str
    scope: str
    level: int
    number: int
    name: str
    size: int
    prefix: str
    terms: tuple[str, ...]
    top: tuple[str, ...]
    internal: float
    external: float
    quality: float
    resolution: float
    objective: str
    parent: str | None = None
    dependencies: tuple[Dependency, ...] = ()

    @property
    def cohesion(self) -> float | None:
        """Share of its members' edge weight that stays inside (None without edges)."""
        total = self.internal + self.external
        return self.internal / total if total else None

    def to_dict(self) -> dict:
        return {**asdict(self), "cohesion": self.cohesion}


@dataclass(frozen=True)
class Moved:
    """``node`` left community ``old`` for ``new`` (ids) at ``level`` since the last run."""

    node: str
    level: int
    old: str
    new: str


@dataclass(frozen=True)
class Detection:
    """What :func:`detect_communities` found and stored."""

    repo: str
    scope: str
    objective: str
    seed: int
    nodes: int
    edges: int
    isolated: int
    levels: tuple[Level, ...]
    communities: tuple[Community, ...]
    moved: tuple[Moved, ...]
    seconds: float
    #: False for the first detection of this repository and scope (nothing to compare)
    had_previous: bool = False
    notes: tuple[str, ...] = ()

    def top(self, level: int = 0) -> tuple[Community, ...]:
        """Communities of ``level``, largest first."""
        return tuple(c for c in self.communities if c.level == level)

    def to_polars(self) -> pl.DataFrame:
        return _to_polars(self.communities)

    def to_dict(self) -> dict:
        return {"repo": self.repo, "scope": self.scope, "objective": self.objective,
                "seed": self.seed, "nodes": self.nodes, "edges": self.edges,
                "isolated": self.isolated, "seconds": round(self.seconds, 3),
                "levels": self._levels(), "communities": [c.to_dict() for c in self.communities],
                "moved": [asdict(m) for m in self.moved], "had_previous": self.had_previous,
                "notes": list(self.notes)}

    def summary(self) -> dict:
        """:meth:`to_dict` without the communities and the moved nodes (thousands of
        entries on a large repository), plus how many top-level nodes moved: what an
        ingest reports."""
        return {"repo": self.repo, "scope": self.scope, "nodes": self.nodes,
                "edges": self.edges, "isolated": self.isolated,
                "seconds": round(self.seconds, 3), "levels": self._levels(),
                "had_previous": self.had_previous, "notes": list(self.notes),
                "moved": sum(1 for m in self.moved if m.level == 0)}

    def _levels(self) -> list[dict]:
        return [{"level": lv.level, "communities": lv.count, "modularity": lv.modularity,
                 "resolution": lv.resolution} for lv in self.levels]


def _to_polars(found: Sequence[Community]) -> pl.DataFrame:
    return pl.DataFrame(
        [{"id": c.id, "level": c.level, "number": c.number, "name": c.name, "size": c.size,
          "cohesion": c.cohesion, "internal": c.internal, "external": c.external,
          "parent": c.parent} for c in found],
        schema={"id": pl.Utf8, "level": pl.Int64, "number": pl.Int64, "name": pl.Utf8,
                "size": pl.Int64, "cohesion": pl.Float64, "internal": pl.Float64,
                "external": pl.Float64, "parent": pl.Utf8})
