"""Find the source files of a tree: .gitignore files (nested too), default excludes, limits.

Nothing is read here but directory entries and .gitignore files; contents are read by the
workers. Symlinks are never followed (no loops, no escaping the tree) and are reported.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pathspec

from ingest.extract import language_for
from ingest.names import is_utf8_name, shown_name
from schema import IngestError

__all__ = ["DEFAULT_EXCLUDES", "Candidate", "Skipped", "exclude_spec", "gitignore_spec", "walk"]

#: Directories and files skipped unless ``default_excludes=False``: VCS metadata, vendored
#: dependencies, virtual environments, caches and build output.
DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".git/", ".hg/", ".svn/", "node_modules/", "bower_components/", "vendor/", "third_party/",
    "__pycache__/", ".venv/", "venv/", ".tox/", ".nox/", ".eggs/", "*.egg-info/",
    ".mypy_cache/", ".pytest_cache/", ".ruff_cache/", "site-packages/", "build/", "dist/",
    "target/", ".next/", ".vgdb/", "*.min.js", "*.bundle.js",
)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A file to ingest: ``path`` relative to the root, '/'-separated."""

    path: str
    language: str
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class Skipped:
    path: str
    reason: str
    language: str = ""


def _kind(mode: int) -> str:
    for test, what in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return what
    return "not a regular file"


def exclude_spec(patterns: Iterable[str]) -> pathspec.PathSpec:
    """The user's exclude patterns (options, config, API arguments); one that is not a valid
    .gitignore pattern is bad input, named in the error."""
    patterns = list(patterns)
    try:
        return pathspec.GitIgnoreSpec.from_lines(patterns)
    except ValueError as exc:  # pathspec's GitIgnorePatternError
        bad = next((p for p in patterns if not _valid(p)), "")
        raise IngestError(f"exclude pattern {bad!r} is not a valid .gitignore pattern",
                          suggestion="fix or drop it (a trailing backslash, for one, "
                                     "escapes nothing)") from exc


def gitignore_spec(lines: Iterable[str]) -> pathspec.PathSpec:
    """A repository's .gitignore: lines git cannot read are skipped, as git skips them."""
    return pathspec.GitIgnoreSpec.from_lines([line for line in lines if _valid(line)])


def _valid(pattern: str) -> bool:
    try:
        pathspec.GitIgnoreSpec.from_lines([pattern])
    except ValueError:
        return False
    return True


def _read_gitignore(directory: Path) -> pathspec.PathSpec | None:
    try:
        text = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return gitignore_spec(text.splitlines())


def walk(root: Path, *, excludes: Iterable[str] = (), default_excludes: bool = True,
         gitignore: bool = True, max_file_size: int) -> tuple[list[Candidate], list[Skipped]]:
    """Files under ``root`` that have a grammar, in sorted order, and those skipped with why."""
    patterns = [*(DEFAULT_EXCLUDES if default_excludes else ()), *excludes]
    base_spec = exclude_spec(patterns)
    found: list[Candidate] = []
    skipped: list[Skipped] = []
    # (directory prefix relative to root, spec of that directory's .gitignore)
    stack: list[tuple[str, pathspec.PathSpec]] = []

    def ignored(rel: str, is_dir: bool) -> bool:
        probe = rel + "/" if is_dir else rel
        if base_spec.match_file(probe):
            return True
        for prefix, spec in stack:
            if rel.startswith(prefix) and spec.match_file(probe[len(prefix):]):
                return True
        return False

    def visit(directory: Path, rel_dir: str) -> None:
        pushed = False
        if gitignore:
            spec = _read_gitignore(directory)
            if spec is not None:
                stack.append((rel_dir, spec))
                pushed = True
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            skipped.append(Skipped(rel_dir.rstrip("/") or ".", f"unreadable directory: {exc}"))
            entries = []
        for entry in entries:
            rel = rel_dir + entry.name
            if not is_utf8_name(entry.name):  # a directory, or a file we would read
                is_dir = entry.is_dir(follow_symlinks=False)
                if (is_dir or language_for(rel)) and not ignored(rel, is_dir):
                    skipped.append(Skipped(shown_name(rel), "name is not valid UTF-8 (shown "
                                           "with \\x escapes): not read; rename it",
                                           language_for(rel) or ""))
                continue
            try:
                if entry.is_symlink():
                    if not ignored(rel, False) and language_for(rel):
                        skipped.append(Skipped(rel, "symlink (not followed)", language_for(rel)))
                    continue
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                skipped.append(Skipped(rel, f"unreadable: {exc.strerror or exc}"))
                continue
            if stat.S_ISDIR(st.st_mode):
                if not ignored(rel, True):
                    visit(Path(entry.path), rel + "/")
                continue
            if ignored(rel, False):
                continue
            language = language_for(rel)
            if language is None:
                continue
            if not stat.S_ISREG(st.st_mode):  # a FIFO would block the read
                skipped.append(Skipped(rel, f"{_kind(st.st_mode)}, not a regular file: not "
                                            "read", language))
                continue
            if st.st_size > max_file_size:
                skipped.append(Skipped(
                    rel, f"too large ({st.st_size / 1e6:.1f} MB > "
                         f"{max_file_size / 1e6:.1f} MB limit; --max-file-size)", language))
                continue
            found.append(Candidate(rel, language, st.st_size, st.st_mtime_ns))
        if pushed:
            stack.pop()

    visit(root, "")
    return found, skipped
