"""``vgdb status``: is the graph current? Per repository, what it holds against what is on
disk now, and whether the derived indexes follow the graph.

A repository is *stale* when its tree moved on since the ingest (commits behind HEAD, files
changed, added or deleted) or when something derived from the graph waits for a step (the
keyword index, the embeddings, the community detection). ``vgdb status --check`` exits
non-zero then, for CI.

The working tree is compared by stat first and by content hash when the stat differs, as an
ingest would (so a file touched but unchanged is not counted). The tree's candidate files
come from a ``walk`` callable the caller passes (the ingest's own walk): ``queries`` does not
import ``ingest`` (tests/test_layers.py).
"""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphdb import Store, deadline
from graphdb.communities import communities_due
from graphdb.coverage import coverage_state
from graphdb.keyword import unsynced
from graphdb.vectors import missing_vectors
from schema import FILE, META, REPOSITORY, SCHEMA_VERSION, NodeNotFoundError, current_code_files

__all__ = ["DatabaseStatus", "RepoStatus", "TreeFile", "status"]

#: a tree file as the walk sees it: (path relative to the root, size, mtime_ns)
TreeFile = tuple[str, int, int]
#: the callable listing a tree's candidate files (what an ingest of it would read)
Walk = Callable[[Path], Iterable[TreeFile]]
_EMBED_PENDING = "embed-pending.json"  # graphdb.findable's mark of a write awaiting embedding
_RELINK_PENDING = "relink-pending:"  # ingest.remove's mark of a removal not finished


@dataclass(frozen=True, slots=True)
class RepoStatus:
    """One repository: what was ingested and how far the tree is from it."""

    name: str
    root: str
    ingested_at: datetime | None
    #: HEAD when it was last ingested ('' outside git), and HEAD of the tree now
    ingested_commit: str
    head: str
    #: commits on HEAD not ingested; None when it cannot be said (no git, unknown commit)
    commits_behind: int | None
    #: ingested commits no longer on HEAD (a branch switch or rewrite); 0 normally
    commits_diverged: int
    files_changed: tuple[str, ...]
    files_added: tuple[str, ...]
    files_deleted: tuple[str, ...]
    communities_current: bool
    #: the recorded coverage's time (None: never recorded) and its age in seconds
    coverage_recorded_at: str | None
    coverage_age_seconds: float | None
    graph_version: int
    #: why the repository's graph is not current (empty when it is), and whether it is not
    reasons: tuple[str, ...] = ()
    stale: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _repo_reasons(problems: list[str], behind: int | None, diverged: int, changed: int,
                  communities_current: bool) -> tuple[str, ...]:
    out = list(problems)
    if behind:
        out.append(f"{behind} commit{'s' if behind != 1 else ''} behind HEAD")
    if diverged:
        out.append(f"{diverged} ingested commit{'s' if diverged != 1 else ''} not on HEAD")
    if changed:
        out.append(f"{changed} file{'s' if changed != 1 else ''} changed since the ingest")
    if not communities_current:
        out.append("communities wait for detection")
    return tuple(out)


@dataclass(frozen=True, slots=True)
class DatabaseStatus:
    """The whole database: its repositories and the state shared by all of them."""

    path: str
    size_bytes: int
    schema_version: int
    engine: str
    vgdb_version: str
    graph_version: int
    #: the keyword index and the vectors follow the graph (else: the tables that do not)
    keyword_current: bool
    keyword_unsynced: tuple[str, ...]
    embeddings_current: bool
    embeddings_pending: tuple[str, ...]
    repositories: tuple[RepoStatus, ...] = field(default_factory=tuple)
    #: why the graph is not current: per repository (``name: why``), then the indexes
    reasons: tuple[str, ...] = ()
    stale: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def status(store: Store, repo: str | None = None, *, walk: Walk | None = None,
           now: datetime | None = None) -> DatabaseStatus:
    """How current the graph is, for every repository or only ``repo``.

    Parameters
    ----------
    walk : lists a tree's files as an ingest would read them; without it the added files
        are not looked for (changed and deleted ones still are, from the graph's own list).
    now : the time coverage ages are measured at (default: the current UTC time).

    Raises
    ------
    NodeNotFoundError : ``repo`` was never ingested.
    """
    now = now or datetime.now(UTC)
    rows = store.cypher(f"MATCH (r:{REPOSITORY.name}) RETURN r.name AS name, r.root AS root, "
                        "r.head AS head, r.ingested_at AS ingested_at ORDER BY name")
    if repo is not None:
        rows = rows.filter(rows["name"] == repo)
        if rows.is_empty():
            raise NodeNotFoundError(f"no repository {repo!r} in the graph", node_id=repo,
                                    suggestion="`vgdb status` lists the repositories")
    repos = tuple(_repo_status(store, r, walk=walk, now=now) for r in rows.to_dicts())
    keyword, embeddings = tuple(unsynced(store)), _embeddings(store)
    reasons = [f"{r.name}: {why}" for r in repos for why in r.reasons]
    marks = store.cypher(f"MATCH (m:{META.name}) WHERE m.id STARTS WITH $p RETURN m.id AS id "
                         "ORDER BY id", {"p": _RELINK_PENDING})["id"].to_list()
    reasons += [f"the removal of {key.removeprefix(_RELINK_PENDING)} was interrupted: run "
                f"`vgdb remove {key.removeprefix(_RELINK_PENDING)}` again" for key in marks]
    if keyword:
        reasons.append(f"keyword index not synced: {', '.join(keyword)}")
    if embeddings:
        reasons.append(f"embeddings pending: {', '.join(embeddings)}")
    return DatabaseStatus(
        path=str(store.path), size_bytes=_size(store.path), schema_version=SCHEMA_VERSION,
        engine=_engine(), vgdb_version=_version(), graph_version=store.graph_version(),
        keyword_current=not keyword, keyword_unsynced=keyword,
        embeddings_current=not embeddings, embeddings_pending=embeddings, repositories=repos,
        reasons=tuple(reasons), stale=bool(reasons))


def _repo_status(store: Store, row: dict[str, Any], *, walk: Walk | None,
                 now: datetime) -> RepoStatus:
    deadline.check()
    name, root = row["name"], Path(row["root"] or "")
    ingested = row["head"] or ""
    problems: list[str] = []
    head, behind, diverged = "", None, 0
    if not root.is_dir():
        problems.append(f"the tree {root} is gone")
    else:
        head, behind, diverged, note = _git_distance(root, ingested)
        if note:
            problems.append(note)
    changed: tuple[tuple[str, ...], ...] = ((), (), ())
    if root.is_dir():
        changed = _tree_changes(store, name, root, walk)
    coverage = coverage_state(store, name) or {}
    recorded = coverage.get("recorded_at")
    age = None
    if recorded:
        when = datetime.fromisoformat(str(recorded).replace("Z", "+00:00"))
        when = when if when.tzinfo else when.replace(tzinfo=UTC)
        age = max(0.0, (now - when).total_seconds())
    at = row["ingested_at"]
    due = communities_due(store, name)
    reasons = _repo_reasons(problems, behind, diverged, sum(map(len, changed)), not due)
    return RepoStatus(
        name=name, root=str(root), ingested_at=at.replace(tzinfo=UTC) if at else None,
        ingested_commit=ingested, head=head, commits_behind=behind, commits_diverged=diverged,
        files_changed=changed[0], files_added=changed[1], files_deleted=changed[2],
        communities_current=not due,
        coverage_recorded_at=str(recorded) if recorded else None, coverage_age_seconds=age,
        graph_version=store.graph_version(name), reasons=reasons, stale=bool(reasons))


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          check=False)


def _git_distance(root: Path, ingested: str) -> tuple[str, int | None, int, str]:
    """(HEAD now, commits on HEAD not ingested, ingested commits not on HEAD, a note)."""
    found = _git(root, "rev-parse", "--verify", "-q", "HEAD")
    head = found.stdout.strip() if found.returncode == 0 else ""
    if not head:
        return "", None, 0, "" if not ingested else "the tree is no longer a git repository"
    if not ingested:
        return head, None, 0, "ingested outside git (or before its first commit)"
    if _git(root, "cat-file", "-e", f"{ingested}^{{commit}}").returncode != 0:
        return head, None, 0, f"the ingested commit {ingested[:12]} is not in the repository"
    counts = _git(root, "rev-list", "--left-right", "--count", f"{ingested}...{head}")
    diverged, behind = (int(n) for n in counts.stdout.split())
    return head, behind, diverged, ""


def _tree_changes(store: Store, repo: str, root: Path,
                  walk: Walk | None) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(changed, added, deleted) paths of the tree against the graph's current files."""
    stored = store.cypher(
        f"MATCH (f:{FILE.name}) WHERE {current_code_files(repo='$r')} "
        "RETURN f.path AS path, f.size AS size, f.mtime_ns AS mtime_ns, f.sha AS sha",
        {"r": repo})
    known = {p: (size, mtime, sha) for p, size, mtime, sha in stored.iter_rows()}
    tree = {}
    if walk is not None:
        for path, size, mtime in walk(root):
            deadline.check()  # a served request's deadline (a no-op in the CLI)
            tree[path] = (size, mtime)
    else:
        for path in known:
            deadline.check()
            try:
                st = (root / path).stat()
            except OSError:
                continue
            tree[path] = (st.st_size, st.st_mtime_ns)
    changed = []
    for path, (size, mtime) in sorted(tree.items()):
        old = known.get(path)
        if old is None or (old[0] == size and old[1] == mtime):
            continue
        deadline.check()
        if old[0] != size or _hash(root / path) != old[2]:
            changed.append(path)
    added = sorted(set(tree) - set(known))
    deleted = sorted(set(known) - set(tree))
    return tuple(changed), tuple(added), tuple(deleted)


def _hash(path: Path) -> str:
    """The ingest's content hash (ingest.worker.content_hash: blake2b-128 of the bytes)."""
    try:
        return hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()
    except OSError:
        return ""


def _embeddings(store: Store) -> tuple[str, ...]:
    """Tables a write marked for embedding and did not finish, and tables holding texts that
    have no vector yet (only once something was embedded: embedding is optional)."""
    import json

    pending: set[str] = set()
    mark = store.path / _EMBED_PENDING
    if mark.exists():
        try:
            pending.update(json.loads(mark.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            pending.add("?")
    pending.update(missing_vectors(store))
    return tuple(sorted(pending))


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _engine() -> str:
    from importlib.metadata import version

    return f"ladybug {version('ladybug')}"


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("vectorgraphdb")
    except PackageNotFoundError:
        return "unknown"
