"""Find the source files of a tree: .gitignore files (nested too), default excludes, limits.

Nothing is read here but directory entries and .gitignore files; contents are read by the
workers. Symlinks are never followed (no loops, no escaping the tree) and are reported.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from ingest.extract import language_for
from ingest.names import is_utf8_name, shown_name
from schema import IngestError

__all__ = ["DEFAULT_EXCLUDES", "Candidate", "Skipped", "TextListing", "exclude_spec",
           "gitignore_spec", "walk"]

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


@dataclass(slots=True)
class TextListing:
    """Besides the code, the files another step reads (the papers step,
    :mod:`ingest.academic.links`: bibliographies and text files), listed by the same walk
    with the same rules instead of a second walk of the tree. ``kind`` says what a path is
    to that step ("bib", "text" or None: not read); ``problems`` are (shown path, message)
    of what it could not read (a directory, a name that is not UTF-8)."""

    kind: Callable[[str], str | None]
    bibs: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)

    def add(self, rel: str) -> None:
        kind = self.kind(rel)
        if kind == "bib":
            self.bibs.append(rel)
        elif kind == "text":
            self.texts.append(rel)


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


class _Matcher:
    """A spec that remembers its answers. A server walks the same tree at every update
    (``vgdb serve --writable``): matching each of ~4,600 paths of the standard library
    against ~30 patterns cost ~12 ms of a ~0.13 s served edit, the same answers each time;
    a path not seen before is matched by the spec itself."""

    def __init__(self, spec: pathspec.PathSpec) -> None:
        self.spec = spec
        self.seen: dict[str, bool] = {}

    def match_file(self, probe: str) -> bool:
        hit = self.seen.get(probe)
        if hit is None:
            if len(self.seen) >= _MEMO_MAX:
                self.seen.clear()
            hit = self.seen[probe] = bool(self.spec.match_file(probe))
        return hit


_MEMO_MAX = 1 << 18
#: (kind, lines) -> its matcher, for the next walk of this process
_MATCHERS: dict[tuple[str, tuple[str, ...]], _Matcher] = {}


def _matcher(kind: str, lines: tuple[str, ...]) -> _Matcher:
    """The matcher of these exclude patterns or .gitignore lines (built once a process)."""
    found = _MATCHERS.get((kind, lines))
    if found is None:
        spec = exclude_spec(lines) if kind == "exclude" else gitignore_spec(lines)
        if len(_MATCHERS) >= 256:
            _MATCHERS.clear()
        found = _MATCHERS[(kind, lines)] = _Matcher(spec)
    return found


def _read_gitignore(directory: Path) -> _Matcher | None:
    try:
        text = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return _matcher("gitignore", tuple(text.splitlines()))


def walk(root: Path, *, excludes: Iterable[str] = (), default_excludes: bool = True,
         gitignore: bool = True, max_file_size: int,
         texts: TextListing | None = None) -> tuple[list[Candidate], list[Skipped]]:
    """Files under ``root`` that have a grammar, in sorted order, and those skipped with why;
    with ``texts``, also the regular files within the size limit that it wants, in the same
    order (symlinks and what cannot be stat-ed are left out of it silently)."""
    patterns = [*(DEFAULT_EXCLUDES if default_excludes else ()), *excludes]
    base_spec = _matcher("exclude", tuple(patterns))
    found: list[Candidate] = []
    skipped: list[Skipped] = []
    # (directory prefix relative to root, spec of that directory's .gitignore)
    stack: list[tuple[str, _Matcher]] = []

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
            if texts is not None:
                texts.problems.append((rel_dir.rstrip("/") or ".",
                                       f"unreadable directory: {exc.strerror or exc}"))
            entries = []
        for entry in entries:
            rel = rel_dir + entry.name
            if not is_utf8_name(entry.name):  # a directory, or a file we would read
                is_dir = entry.is_dir(follow_symlinks=False)
                if texts is not None and not ignored(rel, is_dir):
                    texts.problems.append((shown_name(rel), "name is not valid UTF-8 (shown "
                                                            "with \\x escapes): not read"))
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
            if texts is not None and stat.S_ISREG(st.st_mode) and st.st_size <= max_file_size:
                texts.add(rel)
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
