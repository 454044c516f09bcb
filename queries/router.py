"""A router over several graph databases, one per repository group (docs/scaling.md,
"Serving past one database").

Past one writer the graph is partitioned by repository group: each partition is an ordinary
vgdb database with its own writer. A query about one repository goes to the partition that
holds it (single-partition); a question over every repository ("who calls
``warnings.warn``") runs on every partition and the answers are merged (cross-partition).
The engine cannot join across databases (docs/scaling.md, the ``ATTACH`` table), so merging
is by rows: concatenation, then the query's own ordering and limit.

Partitions are opened read-only (many readers may share a database directory with its
writer's lock) and queried from a thread pool: the engine releases the GIL while it runs, so
K partitions answer in about the time of the slowest on enough cores.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from graphdb import Store
from schema import CALLS, REPOSITORY, SYMBOL, QueryError

#: a per-partition query: the partition's store in, a frame of rows out
PartitionQuery = Callable[[Store], pl.DataFrame]


class RoutingError(QueryError):
    """A repository no partition holds, or a routing table naming a repository twice."""


@dataclass
class Router:
    """Open partitions and the routing table (repository -> partition name)."""

    stores: dict[str, Store]
    table: dict[str, str]

    @classmethod
    def open(cls, partitions: Mapping[str, str | os.PathLike[str]]) -> Router:
        """Open every partition (name -> database directory) read-only and read which
        repositories each holds from its ``Repository`` nodes."""
        stores: dict[str, Store] = {}
        table: dict[str, str] = {}
        try:
            for name, path in partitions.items():
                store = stores[name] = Store.open(Path(path), read_only=True)
                repos = store.cypher(f"MATCH (r:{REPOSITORY.name}) RETURN r.name AS name")
                for repo in repos["name"].to_list():
                    if repo in table:
                        raise RoutingError(f"repository {repo!r} is in partitions "
                                           f"{table[repo]!r} and {name!r}")
                    table[repo] = name
        except BaseException:
            for store in stores.values():
                store.close()
            raise
        return cls(stores, table)

    def partition_of(self, repo: str) -> str:
        try:
            return self.table[repo]
        except KeyError:
            raise RoutingError(f"no partition holds repository {repo!r}",
                               suggestion=f"known: {', '.join(sorted(self.table)) or 'none'}"
                               ) from None

    def one(self, repo: str, query: PartitionQuery) -> pl.DataFrame:
        """Run ``query`` on the partition holding ``repo`` only."""
        return query(self.stores[self.partition_of(repo)])

    def all(self, query: PartitionQuery, *, sort: Sequence[str] = (),
            limit: int | None = None) -> pl.DataFrame:
        """Run ``query`` on every partition in parallel and merge: concatenated (a
        ``partition`` column added), sorted by ``sort``, cut to ``limit``."""
        names = sorted(self.stores)
        with ThreadPoolExecutor(max_workers=len(names) or 1) as pool:
            frames = list(pool.map(lambda n: query(self.stores[n]).with_columns(
                pl.lit(n).alias("partition")), names))
        frames = [f for f in frames if f.height]
        merged = pl.concat(frames, how="vertical_relaxed") if frames else pl.DataFrame()
        if sort and merged.height:
            merged = merged.sort(list(sort))
        return merged.head(limit) if limit is not None else merged

    def close(self) -> None:
        for store in self.stores.values():
            store.close()

    def __enter__(self) -> Router:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def callers_query(target: str) -> PartitionQuery:
    """Who calls ``target`` (a node id): caller id, repository, first line."""
    cypher = (f"MATCH (c:{SYMBOL.name})-[e:{CALLS.name}]->(t) WHERE t.id = $id "
              "RETURN c.repo AS repo, c.id AS caller, e.line AS line")
    return lambda store: store.cypher(cypher, {"id": target})


def who_calls(router: Router, target: str) -> pl.DataFrame:
    """Every caller of ``target`` in every partition (cross-partition)."""
    return router.all(callers_query(target), sort=("repo", "caller"))


def neighbours(router: Router, repo: str, node_id: str) -> pl.DataFrame:
    """A node of ``repo`` and its neighbours, both directions (single-partition)."""
    cypher = ("MATCH (n)-[e]-(m) WHERE n.id = $id "
              "RETURN label(e) AS rel, m.id AS neighbour ORDER BY rel, neighbour")
    return router.one(repo, lambda store: store.cypher(cypher, {"id": node_id}))
