"""What a change touches: the files and lines of ``base..head``, or of the working tree against
a base commit, read with pygit2 (the input of change impact and of ``vgdb affected-tests``).

Pure with respect to the graph: a repository on disk in, plain rows out. Like the history
reader, diffs have no context lines (each hunk is exactly the changed lines) and detect renames.

- ``head=None`` diffs the **working tree** (staged or not) against the base, and untracked
  files (not ignored) count as added: the graph is ingested from the working tree, untracked
  files included, so they are part of what impact must start from.
- With ``merge_base`` (the default) the base side is the merge base of ``base`` and ``head``
  (the working tree: HEAD), as in ``git diff BASE...HEAD``: a pull request's own changes,
  not the ones its target branch gained meanwhile.
- Removed lines are attributed on the **base** side: the base revision of each changed file
  with a grammar is parsed (definitions only) so that a line removed from a function names
  that function, and definitions that no longer exist are known by name. Added lines are
  left as line numbers: the graph holds the head side's spans.
- Blank changed lines are not listed (removing a function also removes the blank lines
  around it; that changes no definition).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pygit2
from pygit2.enums import DeltaStatus, DiffFind, DiffOption

from graphdb import deadline
from ingest.extract import code_language_for, definitions
from ingest.history.gitlog import Hunk, NotARepository, open_repository
from ingest.worker import decode_source
from schema import MODULE_QUALNAME, IngestError

__all__ = ["BaseDefinition", "ChangeSet", "FileChange", "RefNotFoundError", "diff_changes"]

_KIND = {
    DeltaStatus.ADDED: "added", DeltaStatus.UNTRACKED: "added", DeltaStatus.DELETED: "deleted",
    DeltaStatus.MODIFIED: "modified", DeltaStatus.RENAMED: "renamed",
    DeltaStatus.COPIED: "added", DeltaStatus.TYPECHANGE: "modified",
}
_GITLINK = 0o160000
#: base revisions larger than this are not parsed (their removed lines stay unattributed)
_MAX_PARSE = 2_000_000


class RefNotFoundError(IngestError):
    """A revision (branch, tag, sha, ``HEAD~2``) that the repository does not hold."""

    code = "REF_NOT_FOUND"

    def __init__(self, message: str, *, ref: str, suggestion: str = "") -> None:
        super().__init__(message, suggestion=suggestion or (
            "pass a branch, tag or commit the repository holds (in CI, fetch the base "
            "branch first: `git fetch origin main` and use origin/main)"))
        self.ref = ref


@dataclass(frozen=True, slots=True)
class BaseDefinition:
    """A definition of a changed file's base revision (1-based, inclusive lines)."""

    qualname: str
    kind: str
    start_line: int
    end_line: int


@dataclass(frozen=True, slots=True)
class FileChange:
    """One changed file. Paths are relative to the diffed tree (``ChangeSet.root``);
    ``old_path`` is set for renames. ``language`` is None for files without a grammar
    (non-code: README.md, data) and for binary files."""

    path: str
    old_path: str
    status: str  # added | modified | deleted | renamed
    binary: bool
    language: str | None
    hunks: tuple[Hunk, ...] = ()
    #: non-blank lines of the head side that were added or changed (1-based)
    added_lines: tuple[int, ...] = ()
    #: non-blank lines of the base side that were removed or changed (1-based)
    removed_lines: tuple[int, ...] = ()
    #: the base side's definitions (qualnames as the graph spells them); empty when the file
    #: is new, binary, without a grammar, or its base could not be parsed
    base_definitions: tuple[BaseDefinition, ...] = ()
    #: why the base side has no definitions although it should ('' when it has them)
    base_error: str = ""

    def removed_owners(self) -> tuple[str, ...]:
        """Innermost base-side definitions holding the removed lines (``<module>`` for lines
        outside every definition), in order of first appearance."""
        owners: dict[str, None] = {}
        spans = sorted(self.base_definitions, key=lambda d: (d.start_line, -d.end_line))
        for line in self.removed_lines:
            owner = MODULE_QUALNAME
            for d in spans:  # later (inner) spans that hold the line win
                if d.start_line > line:
                    break
                if d.end_line >= line:
                    owner = d.qualname
            owners.setdefault(owner, None)
        return tuple(owners)


@dataclass(frozen=True, slots=True)
class ChangeSet:
    """The changes between two revisions of the tree at ``root``.

    ``base`` is the commit diffed from (after taking the merge base), ``head`` the commit
    diffed to, or '' for the working tree; ``*_ref`` are the revisions as given.
    """

    root: str
    prefix: str  # the tree's path inside its repository ('' at the top)
    base: str
    base_ref: str
    head: str
    head_ref: str
    files: tuple[FileChange, ...]
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def diff_changes(root: Path | str, *, base: str = "HEAD", head: str | None = None,
                 merge_base: bool = True, untracked: bool = True) -> ChangeSet:
    """The files and lines changed from ``base`` to ``head`` (None: the working tree) in the
    git repository holding ``root``, restricted to ``root``'s subtree.

    Raises :class:`RefNotFoundError` for a revision the repository does not hold and
    ``NotARepository`` when ``root`` is not in a git working tree.
    """
    root = Path(root).expanduser().resolve()
    if not root.is_dir():
        raise IngestError(f"{root} is not a directory", suggestion="pass the ingested tree")
    repo, prefix = open_repository(root)
    if repo.head_is_unborn:
        raise RefNotFoundError(f"the repository at {repo.workdir} has no commits", ref=base,
                               suggestion="commit something first")
    head_commit = _commit(repo, head) if head is not None else repo.head.peel(pygit2.Commit)
    base_commit = _commit(repo, base)
    notes: list[str] = []
    if merge_base:
        found = repo.merge_base(base_commit.id, head_commit.id)
        if found is None:
            notes.append(f"{base} and {head or 'HEAD'} share no history: diffing against "
                         f"{base} itself")
        elif found != base_commit.id:
            notes.append(f"diffing from the merge base {str(found)[:12]} of {base} and "
                         f"{head or 'HEAD'} (as git diff {base}...{head or ''})")
            base_commit = repo[found].peel(pygit2.Commit)
    if head is None:
        flags = DiffOption.NORMAL
        if untracked:
            flags |= (DiffOption.INCLUDE_UNTRACKED | DiffOption.RECURSE_UNTRACKED_DIRS
                      | DiffOption.SHOW_UNTRACKED_CONTENT)
        diff = base_commit.tree.diff_to_workdir(flags, context_lines=0)
    else:
        diff = repo.diff(base_commit, head_commit, context_lines=0)
    diff.find_similar(DiffFind.FIND_RENAMES | DiffFind.FIND_FOR_UNTRACKED)
    files = [f for f in (_file_change(repo, patch, prefix) for patch in diff if patch is not None)
             if f is not None]
    files.sort(key=lambda f: f.path)
    return ChangeSet(root=str(root), prefix=prefix, base=str(base_commit.id), base_ref=base,
                     head="" if head is None else str(head_commit.id), head_ref=head or "",
                     files=tuple(files), notes=tuple(notes))


def _commit(repo: pygit2.Repository, ref: str) -> pygit2.Commit:
    try:
        return repo.revparse_single(ref).peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError) as exc:
        raise RefNotFoundError(f"git revision {ref!r} not found in {repo.workdir}",
                               ref=ref) from exc


def _relative(path: str, prefix: str) -> str | None:
    if not prefix:
        return path
    return path[len(prefix) + 1:] if path.startswith(prefix + "/") else None


def _file_change(repo: pygit2.Repository, patch: pygit2.Patch, prefix: str) -> FileChange | None:
    # a served request's deadline (a no-op in the CLI): each changed file is parsed twice to
    # find its changed definitions, ~3 ms a file, so a range of hundreds of files is long
    deadline.check()
    delta = patch.delta
    path = _relative(delta.new_file.path, prefix)
    old_path = _relative(delta.old_file.path, prefix)
    if path is None and old_path is None:
        return None
    status = _KIND.get(delta.status, "modified")
    if path is None:  # renamed out of the tree: a deletion from its view
        path, status = old_path, "deleted"
    elif old_path is None:  # renamed into it
        old_path, status = path, "added"
    assert path is not None and old_path is not None
    binary = delta.is_binary or _GITLINK in (delta.old_file.mode, delta.new_file.mode)
    language = None if binary else code_language_for(path)
    hunks, added, removed = [], [], []
    if not binary:
        for h in patch.hunks:
            hunks.append(Hunk(h.old_start, h.old_lines, h.new_start, h.new_lines))
            for line in h.lines:
                if not line.content.strip():
                    continue
                if line.origin == "+":
                    added.append(line.new_lineno)
                elif line.origin == "-":
                    removed.append(line.old_lineno)
    base_defs: tuple[BaseDefinition, ...] = ()
    error = ""
    old_language = None if binary else code_language_for(old_path)
    if old_language and status != "added":
        base_defs, error = _definitions(repo, str(delta.old_file.id), old_path, old_language)
    return FileChange(path=path, old_path=old_path if status == "renamed" else "",
                      status=status, binary=binary, language=language, hunks=tuple(hunks),
                      added_lines=tuple(added), removed_lines=tuple(removed),
                      base_definitions=base_defs, base_error=error)


def _definitions(repo: pygit2.Repository, oid: str, path: str,
                 language: str) -> tuple[tuple[BaseDefinition, ...], str]:
    """Definitions of the base blob; never raises for one bad file."""
    try:
        data = repo[oid].data
    except (KeyError, ValueError) as exc:
        return (), f"missing blob: {exc}"
    if len(data) > _MAX_PARSE:
        return (), f"larger than {_MAX_PARSE} bytes"
    utf8, _ = decode_source(data, language)
    try:
        rows = definitions(language, utf8, path)
    except Exception as exc:  # an extractor bug must not abort the diff
        return (), f"extractor failed: {type(exc).__name__}: {exc}"
    return tuple(BaseDefinition(r.qualname, r.kind, r.start_line, r.end_line) for r in rows), ""


def tree_path(change_set: ChangeSet, path: str) -> str:
    """The absolute path of ``path`` (relative to the diffed tree) on disk."""
    return os.path.join(change_set.root, path)


__all__ += ["NotARepository", "tree_path"]
