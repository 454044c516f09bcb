"""Reading the stored communities (no igraph: a server answering questions about them
never imports the detection's libraries)."""

from __future__ import annotations

from graphdb import Store
from queries.communities.results import SCOPES, Community, Dependency, Scope
from schema import (
    COMMUNITY,
    DEPENDS_ON,
    IN_COMMUNITY,
    REPOSITORY,
    SUBCOMMUNITY_OF,
    NodeNotFoundError,
    QueryError,
)

__all__ = ["communities", "members", "require_repo"]


def communities(store: Store, repo: str, *, scope: Scope = "file", level: int = 0,
                limit: int | None = None) -> tuple[Community, ...]:
    """The stored communities of ``repo`` at ``level``, largest first, with their main
    dependencies. Empty when none were detected yet."""
    if scope not in SCOPES:
        raise QueryError(f"unknown community scope {scope!r}; use one of {', '.join(SCOPES)}")
    require_repo(store, repo)
    rows = store.cypher(
        f"MATCH (c:{COMMUNITY.name}) WHERE c.repo = $r AND c.scope = $s AND c.level = $l "
        f"OPTIONAL MATCH (c)-[:{SUBCOMMUNITY_OF.name}]->(p:{COMMUNITY.name}) "
        "RETURN c.*, p.id AS parent ORDER BY c.size DESC, c.number"
        + (f" LIMIT {int(limit)}" if limit is not None else ""),
        {"r": repo, "s": scope, "l": level})
    deps = store.cypher(
        f"MATCH (c:{COMMUNITY.name})-[d:{DEPENDS_ON.name}]->(t:{COMMUNITY.name}) "
        "WHERE c.repo = $r AND c.scope = $s AND c.level = $l "
        "RETURN c.id AS id, t.id AS target, t.name AS name, d.weight AS weight, "
        "d.edges AS edges ORDER BY id, weight DESC, target",
        {"r": repo, "s": scope, "l": level})
    by_id: dict[str, list[Dependency]] = {}
    for node, target, name, weight, edges in deps.iter_rows():
        by_id.setdefault(node, []).append(Dependency(target, name, weight, edges))
    return tuple(
        Community(r["c.id"], r["c.repo"], r["c.scope"], r["c.level"], r["c.number"],
                  r["c.name"], r["c.size"], r["c.prefix"] or "", tuple(r["c.terms"] or ()),
                  tuple(r["c.top"] or ()), r["c.internal"], r["c.external"], r["c.quality"],
                  r["c.resolution"], r["c.objective"], r["parent"],
                  tuple(by_id.get(r["c.id"], ())))
        for r in rows.to_dicts())


def members(store: Store, community: str) -> tuple[str, ...]:
    """Ids of the files or symbols in ``community``, sorted."""
    rows = store.cypher(
        f"MATCH (m)-[:{IN_COMMUNITY.name}]->(c:{COMMUNITY.name} {{id: $c}}) "
        "RETURN m.id AS id ORDER BY id", {"c": community})
    return tuple(rows["id"].to_list())


def require_repo(store: Store, repo: str) -> None:
    found = store.cypher(f"MATCH (r:{REPOSITORY.name}) WHERE r.name = $r RETURN r.id",
                         {"r": repo})
    if found.is_empty():
        known = store.cypher(f"MATCH (r:{REPOSITORY.name}) RETURN r.name AS n ORDER BY n")
        names = ", ".join(known["n"].to_list()) or "none"
        raise NodeNotFoundError(f"no repository named {repo!r} (ingested: {names})",
                                node_id=f"repo:{repo}")
