"""Read a git history with pygit2: commits, people and per-file changes with their hunks.

Pure with respect to the graph: a repository on disk in, plain rows out. Diffs are against the
first parent with no context lines (so each hunk is exactly the changed lines) and rename
detection on, like ``git log --numstat -M``; merge commits get no diff, as in ``git log``.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pygit2
from pygit2.enums import DeltaStatus, FileStatus, SortMode

from ingest.extract import language_for
from ingest.names import shown_name
from ingest.secrets import redact_text
from schema import IngestError

__all__ = ["Change", "CommitRow", "GitLog", "Hunk", "NotARepository", "open_repository",
           "read_history", "uncommitted_paths"]

#: file mode of a submodule entry: its "content" is a commit id, not a blob
_GITLINK = 0o160000
_KIND = {
    DeltaStatus.ADDED: "added", DeltaStatus.DELETED: "deleted",
    DeltaStatus.MODIFIED: "modified", DeltaStatus.RENAMED: "renamed",
    DeltaStatus.COPIED: "added", DeltaStatus.TYPECHANGE: "modified",
}


class NotARepository(IngestError):
    """The tree is not inside a git repository (code still ingests; history is skipped)."""

    code = "NOT_A_REPOSITORY"


@dataclass(frozen=True, slots=True)
class Hunk:
    """Changed lines: ``old_lines`` removed at ``old_start``, ``new_lines`` added at
    ``new_start`` (1-based; a count of 0 means none on that side)."""

    old_start: int
    old_lines: int
    new_start: int
    new_lines: int


@dataclass(frozen=True, slots=True)
class Person:
    name: str
    email: str


@dataclass(slots=True)
class CommitRow:
    sha: str
    parents: tuple[str, ...]
    author: Person
    committer: Person
    authored_at: datetime
    committed_at: datetime
    message: str
    is_merge: bool
    #: the first commit of a shallow clone: its parents are missing, so it has no diff
    shallow: bool = False
    files_changed: int = 0
    additions: int = 0
    deletions: int = 0


@dataclass(slots=True)
class Change:
    """One file of one commit's diff. Blob ids are '' on the side that does not exist."""

    sha: str
    path: str
    old_path: str
    kind: str
    additions: int
    deletions: int
    binary: bool
    old_blob: str
    new_blob: str
    language: str | None
    hunks: tuple[Hunk, ...] = ()
    #: git's rename similarity (0-100) for a renamed file
    similarity: int = 0


@dataclass
class GitLog:
    """What :func:`read_history` found, oldest commit first."""

    root: Path
    git_dir: str
    workdir: Path
    prefix: str  # the ingested tree's path inside the repository ('' at its top)
    head: str
    commits: list[CommitRow] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: every path of the head tree under the prefix (relative to the ingested tree)
    head_paths: set[str] = field(default_factory=set)


def open_repository(root: Path) -> tuple[pygit2.Repository, str]:
    """The repository holding ``root`` and ``root``'s path inside it."""
    found = pygit2.discover_repository(str(root))
    if found is None:
        raise NotARepository(f"{root} is not inside a git repository",
                             suggestion="history is skipped; code was still ingested")
    try:
        repo = pygit2.Repository(found)
    except pygit2.GitError as exc:
        raise NotARepository(f"the git repository at {found} cannot be opened: {exc}",
                             suggestion="history is skipped; code was still ingested "
                                        "(check it with `git fsck`)") from exc
    if repo.is_bare or repo.workdir is None:
        raise NotARepository(f"{found} is a bare repository",
                             suggestion="ingest a checkout (git clone) of it")
    workdir = Path(repo.workdir).resolve()
    prefix = os.path.relpath(root.resolve(), workdir).replace(os.sep, "/")
    if prefix == ".":
        return repo, ""
    if repo.path_is_ignored(prefix + "/"):
        # e.g. an interpreter's standard library inside a version manager's checkout
        raise NotARepository(f"{root} is ignored by the git repository at {workdir}",
                             suggestion="history is skipped; code was still ingested")
    return repo, prefix


def uncommitted_paths(root: Path) -> set[str] | None:
    """Paths under ``root`` (relative to it) whose content is not HEAD's: modified, staged or
    untracked (not ignored). None when ``root`` is not in a git working tree."""
    try:
        repo, prefix = open_repository(root)
        status = repo.status()
    except (NotARepository, pygit2.GitError):  # no repository, or one git cannot read
        return None
    paths = set()
    for path, flags in status.items():
        if flags & (FileStatus.IGNORED | FileStatus.WT_DELETED | FileStatus.INDEX_DELETED):
            continue
        relative = _relative(path, prefix)
        if relative is not None:
            paths.add(relative)
    return paths


def read_history(root: Path, *, known: Collection[str] = frozenset(),
                 stop_at: tuple[str, ...] = (), since: datetime | None = None,
                 max_commits: int | None = None) -> GitLog:
    """Commits reachable from HEAD that are not in ``known`` and not ancestors of ``stop_at``,
    newest ``max_commits`` (and not before ``since``), returned oldest first."""
    repo, prefix = open_repository(root)
    log = GitLog(root=root, git_dir=repo.path, workdir=Path(repo.workdir).resolve(),
                 prefix=prefix, head="")
    if repo.head_is_unborn:
        log.notes.append("the repository has no commits yet")
        return log
    head = repo.head.peel(pygit2.Commit)
    log.head = str(head.id)
    log.head_paths = set(_tree_paths(head.tree, prefix))
    shallow = _shallow_boundary(repo)
    if shallow:
        log.notes.append(f"shallow clone: history starts at {len(shallow)} grafted commit(s); "
                         "their changes are not attributed")
    picked = list(_walk(repo, head, known=known, stop_at=stop_at, since=since,
                        max_commits=max_commits))
    for commit in reversed(picked):
        row = _commit_row(commit, shallow=str(commit.id) in shallow)
        row.message, redactions = redact_text(row.message, where=f"commit {row.sha[:12]} message")
        log.notes.extend(f"{r.where}: redacted a secret ({r.detector})" for r in redactions)
        changes = [] if row.is_merge or row.shallow else list(
            _changes(repo, commit, prefix))
        if prefix and not changes and not row.is_merge:
            continue  # like `git log -- <dir>`: commits that never touch the tree are skipped
        row.files_changed = len(changes)
        row.additions = sum(c.additions for c in changes)
        row.deletions = sum(c.deletions for c in changes)
        log.commits.append(row)
        log.changes.extend(changes)
    return log


def _walk(repo: pygit2.Repository, head: pygit2.Commit, *, known: Collection[str],
          stop_at: tuple[str, ...], since: datetime | None,
          max_commits: int | None) -> Iterator[pygit2.Commit]:
    walker = repo.walk(head.id, SortMode.TOPOLOGICAL | SortMode.TIME)
    for sha in stop_at:
        # rewritten history: the old head may be gone; `known` still filters
        with suppress(KeyError, ValueError, pygit2.GitError):
            walker.hide(sha)
    # a naive time is UTC, as everywhere in vgdb (not the machine's local time zone)
    limit = (since if since.tzinfo else since.replace(tzinfo=UTC)).timestamp() if since else None
    count = 0
    for commit in walker:
        if max_commits is not None and count >= max_commits:
            return
        if limit is not None and commit.commit_time < limit:
            continue
        if str(commit.id) in known:
            continue
        count += 1
        yield commit


def _shallow_boundary(repo: pygit2.Repository) -> set[str]:
    if not repo.is_shallow:
        return set()
    try:
        text = (Path(repo.path) / "shallow").read_text(encoding="ascii")
    except OSError:
        return set()
    return {line.strip() for line in text.splitlines() if line.strip()}


def _when(seconds: int) -> datetime:
    """Naive UTC, as every timestamp in the graph."""
    return datetime.fromtimestamp(seconds, UTC).replace(tzinfo=None)


def _text(raw: bytes, encoding: str | None) -> str:
    """Decode with the commit's declared encoding; undecodable bytes are replaced, never
    fatal (old histories hold latin-1 messages and names)."""
    try:
        return raw.decode(encoding or "utf-8")
    except (LookupError, UnicodeDecodeError):
        return raw.decode("utf-8", errors="replace")


def _person(signature: pygit2.Signature, encoding: str | None) -> Person:
    return Person(_text(signature.raw_name, encoding), _text(signature.raw_email, encoding))


def _commit_row(commit: pygit2.Commit, *, shallow: bool) -> CommitRow:
    encoding = commit.message_encoding
    return CommitRow(
        sha=str(commit.id), parents=tuple(str(p) for p in commit.parent_ids),
        author=_person(commit.author, encoding), committer=_person(commit.committer, encoding),
        authored_at=_when(commit.author.time), committed_at=_when(commit.commit_time),
        message=_text(commit.raw_message, encoding),
        is_merge=len(commit.parent_ids) > 1, shallow=shallow)


def _changes(repo: pygit2.Repository, commit: pygit2.Commit, prefix: str) -> Iterator[Change]:
    if commit.parents:
        diff = repo.diff(commit.parents[0], commit, context_lines=0)
    else:  # a root commit: everything is added
        diff = commit.tree.diff_to_tree(context_lines=0, swap=True)
    diff.find_similar()
    sha = str(commit.id)
    for patch in diff:
        if patch is None:
            continue
        delta = patch.delta
        path = _relative(delta.new_file.path, prefix)
        old_path = _relative(delta.old_file.path, prefix)
        if path is None and old_path is None:
            continue
        kind = _KIND.get(delta.status, "modified")
        if path is None:  # renamed out of the ingested tree: a deletion from its view
            path, kind = old_path, "deleted"
        elif old_path is None:  # renamed into it
            old_path, kind = path, "added"
        assert path is not None and old_path is not None
        gitlink = _GITLINK in (delta.old_file.mode, delta.new_file.mode)
        binary = delta.is_binary or gitlink
        _, additions, deletions = (0, 0, 0) if binary else patch.line_stats
        language = None if binary else language_for(path)
        yield Change(
            sha=sha, path=path, old_path=old_path if kind == "renamed" else "", kind=kind,
            additions=additions, deletions=deletions, binary=binary,
            old_blob="" if kind == "added" else str(delta.old_file.id),
            new_blob="" if kind == "deleted" else str(delta.new_file.id),
            language=language,
            hunks=tuple(Hunk(h.old_start, h.old_lines, h.new_start, h.new_lines)
                        for h in patch.hunks) if language else (),
            similarity=delta.similarity if kind == "renamed" else 0)


def _relative(path: str, prefix: str) -> str | None:
    """``path`` below ``prefix``; bytes that are not UTF-8 (git keeps names as bytes) are
    written ``\\xNN``, as the tree walk reports such a file (ingest.walk.shown_name)."""
    path = shown_name(path)
    if not prefix:
        return path
    return path[len(prefix) + 1:] if path.startswith(prefix + "/") else None


def _tree_paths(tree: pygit2.Tree, prefix: str) -> Iterator[str]:
    if prefix:
        try:
            entry = tree[prefix]
        except KeyError:
            return
        if not isinstance(entry, pygit2.Tree):
            return
        tree = entry
    stack: list[tuple[pygit2.Tree, str]] = [(tree, "")]
    while stack:
        current, base = stack.pop()
        for entry in current:
            path = f"{base}{shown_name(entry.name or '')}"
            if isinstance(entry, pygit2.Tree):
                stack.append((entry, path + "/"))
            else:
                yield path
