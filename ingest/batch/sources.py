"""A manifest entry's tree on disk: a local path as it is, or a git source cloned (then
fetched on later runs) into the cache directory and checked out at its ref (detached), with
pygit2 — no ``git`` command needed.
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass
from pathlib import Path

import pygit2

from ingest.batch.manifest import RepoEntry
from ingest.walk import walk
from schema import IngestError

__all__ = ["Checkout", "SourceError", "materialize", "tree_digest"]


class SourceError(IngestError):
    """A repository of the batch cannot be reached: missing path, failed clone or fetch, a
    ref that does not exist. That repository fails; the others go on."""

    code = "SOURCE_ERROR"


@dataclass(frozen=True)
class Checkout:
    """Where an entry's tree is, and the commit it is at (None outside git)."""

    root: str
    commit: str | None
    cloned: bool


def materialize(entry: RepoEntry, cache_dir: Path) -> Checkout:
    """The tree of ``entry`` at its ref. A local path without a ref is used in place (never
    modified); a local path with a ref, or a git source, is cloned into ``cache_dir/<name>``
    and checked out there."""
    if entry.path is not None:
        root = Path(entry.path)
        if not root.is_dir():
            what = "is not a directory" if root.exists() else "does not exist"
            raise SourceError(f"{entry.name}: path {root} {what}",
                              suggestion="fix `path` in the manifest")
        if entry.ref is None:
            return Checkout(str(root), _head(root), cloned=False)
        if pygit2.discover_repository(str(root)) is None:
            raise SourceError(f"{entry.name}: `ref = {entry.ref!r}` needs a git repository, "
                              f"and {root} is not in one")
    dest = cache_dir / entry.name
    repo = _clone_or_fetch(entry, entry.git or str(entry.path), dest)
    commit = _resolve_ref(repo, entry)
    repo.checkout_tree(commit, strategy=pygit2.enums.CheckoutStrategy.FORCE
                       | pygit2.enums.CheckoutStrategy.REMOVE_UNTRACKED)
    repo.set_head(commit.id)
    return Checkout(str(dest), str(commit.id), cloned=True)


def _head(root: Path) -> str | None:
    found = pygit2.discover_repository(str(root))
    if found is None:
        return None
    try:
        return str(pygit2.Repository(found).head.target)
    except (pygit2.GitError, KeyError):
        return None  # no commit yet (unborn HEAD)


def _clone_or_fetch(entry: RepoEntry, url: str, dest: Path) -> pygit2.Repository:
    if dest.exists():
        try:
            repo: pygit2.Repository | None = pygit2.Repository(str(dest))
            origin = repo.remotes["origin"].url if repo is not None else None
        except (pygit2.GitError, KeyError):
            repo, origin = None, None
        if repo is not None and origin == url:
            try:
                repo.remotes["origin"].fetch(
                    ["+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"])
            except pygit2.GitError as exc:
                raise SourceError(f"{entry.name}: cannot fetch {url}: {exc}",
                                  suggestion="check the URL and the network") from exc
            return repo
        shutil.rmtree(dest)  # a clone of another URL, or a broken one: start again
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        return pygit2.clone_repository(url, str(dest))
    except (pygit2.GitError, ValueError, KeyError) as exc:
        shutil.rmtree(dest, ignore_errors=True)
        raise SourceError(f"{entry.name}: cannot clone {url}: {exc}",
                          suggestion="check the URL or path and the network") from exc


def _resolve_ref(repo: pygit2.Repository, entry: RepoEntry) -> pygit2.Commit:
    # the remote's branch first: the clone's own branch of that name does not move on fetch
    candidates = ([f"refs/remotes/origin/{entry.ref}", f"refs/tags/{entry.ref}", entry.ref]
                  if entry.ref else ["refs/remotes/origin/HEAD", "HEAD"])
    for spec in candidates:
        try:
            obj = repo.revparse_single(spec)
        except (KeyError, ValueError, pygit2.GitError):
            continue
        commit = obj.peel(pygit2.Commit)
        if commit is not None:
            return commit
    if entry.ref:
        raise SourceError(f"{entry.name}: ref {entry.ref!r} does not exist in {entry.source}",
                          suggestion="give a branch, tag or commit of that repository")
    raise SourceError(f"{entry.name}: {entry.source} has no commits")


def tree_digest(entry: RepoEntry, root: str) -> str:
    """Digest of the walk (path, size, mtime of every file the ingest would read): a tree
    used in place changes without a new commit."""
    candidates, skipped = walk(Path(root), excludes=entry.excludes(),
                               default_excludes=entry.default_excludes,
                               gitignore=entry.gitignore, max_file_size=entry.max_file_size)
    h = hashlib.sha256()
    for c in candidates:
        h.update(f"{c.path}\0{c.size}\0{c.mtime_ns}\n".encode())
    for s in skipped:
        h.update(f"{s.path}\0{s.reason}\n".encode())
    return h.hexdigest()[:16]
