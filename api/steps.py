"""Steps that follow an ingest, shared by the surfaces that run one (the CLI's ``vgdb ingest``
and the GraphQL ``ingest`` mutation): the layers keep ``ingest`` from importing ``queries``.
"""

from __future__ import annotations

import time
from typing import Any

from graphdb import Store

__all__ = ["communities_after_ingest"]


def communities_after_ingest(store: Store, data: dict[str, Any]) -> dict[str, Any]:
    """Bring the repository's communities up to date after an ingest (its ``to_dict()``).

    Nothing changed: the stored ones are kept. A small change (files added, removed or
    edited) is followed in place, without igraph (``queries.communities.incremental``),
    until the nodes touched since the last detection pass its drift limit. A detection runs
    the first time, past that limit, and when new commits changed co-change weights;
    ``vgdb communities REPO --detect`` runs one at any time. ``seconds`` is the whole step,
    imports included."""
    from graphdb.communities import SCOPES, communities_due, detection_due, stored_fingerprint

    started = time.perf_counter()
    repo, f, history = data["repo"], data["files"], data.get("history") or {}
    changed = f["added"] + f["removed"] + f["modified"]
    stored = all(stored_fingerprint(store, repo, s) for s in SCOPES)
    detect = (not stored or history.get("status") == "ingested"
              # new commits whose detection did not run (a process killed in between)
              or detection_due(store, repo))
    if not detect and not changed and not communities_due(store, repo):
        return {"status": "kept", "repo": repo, "reason": f"{changed} files changed",
                "seconds": round(time.perf_counter() - started, 3)}
    out = None if detect else _update_incrementally(store, repo, data)
    if out is None:
        out = _detect(store, repo)
    out["seconds"] = round(time.perf_counter() - started, 3)
    return out


def _update_incrementally(store: Store, repo: str, data: dict[str, Any]
                          ) -> dict[str, Any] | None:
    """The stored communities follow the change in place (see
    ``queries.communities.incremental``), or None when a scope's drift calls for a
    detection."""
    from graphdb.communities import SCOPES
    from queries.communities.incremental import update_communities
    from schema import file_id

    edited = [file_id(repo, p) for p in data.get("reparsed_paths") or ()]
    out: dict[str, Any] = {"status": "updated", "repo": repo}
    for scope in SCOPES:
        done = update_communities(store, repo, scope, edited=edited)
        if done is None:
            return None
        out[scope] = done.to_dict()
    return out


def _detect(store: Store, repo: str) -> dict[str, Any]:
    from graphdb.communities import SCOPES
    from queries.communities import detect_scopes  # igraph and leidenalg: only now

    out: dict[str, Any] = {"status": "detected", "repo": repo}
    for scope, d in zip(SCOPES, detect_scopes(store, repo, scopes=SCOPES),  # type: ignore[arg-type]
                        strict=True):
        summary = d.summary()
        out[scope] = {k: summary[k] for k in ("nodes", "edges", "isolated", "seconds",
                                              "levels", "had_previous", "notes", "moved")}
    return out
