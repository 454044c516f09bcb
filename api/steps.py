"""Steps that follow an ingest, shared by the surfaces that run one (the CLI's ``vgdb ingest``
and the GraphQL ``ingest`` mutation): the layers keep ``ingest`` from importing ``queries``.
"""

from __future__ import annotations

from typing import Any

from graphdb import Store

__all__ = ["communities_after_ingest"]


def communities_after_ingest(store: Store, data: dict[str, Any]) -> dict[str, Any]:
    """Detect the repository's communities again when the ingest (its ``to_dict()``) changed
    its structure: the first time, when files came or went, when at least 5% of them
    changed, or when new commits changed co-change weights. A few edited files keep the
    stored ones (and the one-file update fast); ``vgdb communities REPO --detect`` forces a
    run."""
    from graphdb.communities import SCOPES, communities_due, stored_fingerprint

    f, history = data["files"], data.get("history") or {}
    changed = f["added"] + f["removed"] + f["modified"]
    stored = all(stored_fingerprint(store, data["repo"], s) for s in SCOPES)
    due = (f["added"] or f["removed"] or changed >= 0.05 * max(f["seen"], 1)
           or history.get("status") == "ingested"
           # a scope never stored, or a committed change whose detection did not run (a
           # process killed in between, or --no-communities)
           or not stored or communities_due(store, data["repo"]))
    if not due:
        return {"status": "kept", "repo": data["repo"], "reason": f"{changed} files changed"}
    if stored and history.get("status") != "ingested" and changed < 0.05 * max(f["seen"], 1):
        updated = _update_incrementally(store, data["repo"], f["modified"] / max(f["seen"], 1))
        if updated is not None:
            return updated
    from queries.communities import detect_scopes  # igraph and leidenalg: only now

    out: dict[str, Any] = {"status": "detected", "repo": data["repo"]}
    for scope, d in zip(SCOPES, detect_scopes(store, data["repo"], scopes=SCOPES),  # type: ignore[arg-type]
                        strict=True):
        summary = d.summary()
        out[scope] = {k: summary[k] for k in ("nodes", "edges", "isolated", "seconds",
                                              "levels", "had_previous", "notes", "moved")}
    return out


def _update_incrementally(store: Store, repo: str, edited: float) -> dict[str, Any] | None:
    """Files came or went, few of them: the new nodes join the stored communities (see
    ``queries.communities.incremental``), or None when a scope's drift calls for a detection."""
    from graphdb.communities import SCOPES
    from queries.communities.incremental import update_communities

    out: dict[str, Any] = {"status": "updated", "repo": repo}
    for scope in SCOPES:
        done = update_communities(store, repo, scope, extra_drift=edited)
        if done is None:
            return None
        out[scope] = done.to_dict()
    return out
