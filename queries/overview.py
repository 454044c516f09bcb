"""A first look at an ingested repository: sizes, languages and its most connected code."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import polars as pl

from graphdb import Store
from schema import (
    CALLS,
    FILE,
    IMPORTS,
    INHERITS,
    REPOSITORY,
    SYMBOL,
    NodeNotFoundError,
    current_code_files,
)

__all__ = ["Overview", "RankedSymbol", "repositories", "repository_overview"]


@dataclass(frozen=True, slots=True)
class RankedSymbol:
    """A symbol and how many distinct others point at it through ``via``."""

    id: str
    qualname: str
    path: str
    kind: str
    count: int
    via: str


@dataclass(frozen=True, slots=True)
class Overview:
    repo: str
    root: str
    files: int
    symbols: int
    languages: dict[str, int]
    kinds: dict[str, int]
    flagged_files: int
    most_called: tuple[RankedSymbol, ...]
    most_subclassed: tuple[RankedSymbol, ...]
    most_imported: tuple[RankedSymbol, ...]

    def to_dict(self) -> dict:
        return asdict(self)


def repositories(store: Store) -> pl.DataFrame:
    """Every ingested repository with its root and last ingest time."""
    return store.cypher(f"MATCH (r:{REPOSITORY.name}) RETURN r.name AS name, r.root AS root, "
                        "r.ingested_at AS ingested_at ORDER BY name")


def _ranked(frame: pl.DataFrame, via: str) -> tuple[RankedSymbol, ...]:
    return tuple(RankedSymbol(r["id"], r["qualname"], r["path"], r["kind"], r["n"], via)
                 for r in frame.iter_rows(named=True))


def repository_overview(store: Store, repo: str, *, limit: int = 5) -> Overview:
    """Counts and the most-called, most-subclassed and most-imported code of ``repo``."""
    found = store.cypher(f"MATCH (r:{REPOSITORY.name}) WHERE r.name = $r RETURN r.root AS root",
                         {"r": repo})
    if found.is_empty():
        raise NodeNotFoundError(f"no repository named {repo!r}", node_id=f"repo:{repo}",
                                suggestion="`vgdb overview` lists the ingested repositories")
    r, p = {"r": repo}, {"r": repo, "k": limit}
    current = "s.repo = $r AND s.valid_to IS NULL"
    code = current_code_files()
    langs = store.cypher(f"MATCH (f:{FILE.name}) WHERE {code} "
                         "RETURN f.language AS k, count(*) AS n ORDER BY n DESC, k", r)
    kinds = store.cypher(f"MATCH (s:{SYMBOL.name}) WHERE {current} "
                         "RETURN s.kind AS k, count(*) AS n ORDER BY n DESC, k", r)
    flagged = store.cypher(f"MATCH (f:{FILE.name}) WHERE {code} "
                           "AND f.parse_status <> 'ok' RETURN count(*) AS n", r)
    ranked = (
        "WITH t, count(DISTINCT c) AS n "
        f"MATCH (f:{FILE.name}) WHERE f.id = t.file "
        "RETURN t.id AS id, t.qualname AS qualname, f.path AS path, t.kind AS kind, n "
        "ORDER BY n DESC, id LIMIT $k")
    called = store.cypher(f"MATCH (c:{SYMBOL.name})-[:{CALLS.name}]->(t:{SYMBOL.name}) "
                          f"WHERE t.repo = $r AND t.valid_to IS NULL {ranked}", p)
    subclassed = store.cypher(f"MATCH (c:{SYMBOL.name})-[:{INHERITS.name}]->(t:{SYMBOL.name}) "
                              f"WHERE t.repo = $r AND t.valid_to IS NULL {ranked}", p)
    imported = store.cypher(
        f"MATCH (c:{FILE.name})-[:{IMPORTS.name}]->(f:{FILE.name}) "
        "WHERE f.repo = $r AND f.valid_to IS NULL "
        "WITH f, count(DISTINCT c) AS n "
        "RETURN f.id AS id, f.module AS qualname, f.path AS path, 'module' AS kind, n "
        "ORDER BY n DESC, id LIMIT $k", p)
    return Overview(
        repo=repo, root=found["root"][0],
        files=int(langs["n"].sum()) if not langs.is_empty() else 0,
        symbols=int(kinds["n"].sum()) if not kinds.is_empty() else 0,
        languages=dict(zip(langs["k"], langs["n"], strict=True)),
        kinds=dict(zip(kinds["k"], kinds["n"], strict=True)),
        flagged_files=int(flagged["n"][0]),
        most_called=_ranked(called, "CALLS"),
        most_subclassed=_ranked(subclassed, "INHERITS"),
        most_imported=_ranked(imported, "IMPORTS"),
    )
