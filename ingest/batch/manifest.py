"""The batch manifest: which repositories to ingest into one graph, read from TOML or YAML and
checked before anything runs (unknown keys, wrong types, duplicates are errors that name the
entry and the key).

```toml
cache_dir = "clones"                 # optional: where git sources are cloned
[defaults]                           # optional: merged into every repository
history = { max_commits = 500 }
[[repositories]]
path = "../attrs"                    # a local tree (relative to the manifest), or
[[repositories]]
git = "https://github.com/pallets/click"   # a git URL or path, cloned into the cache
ref = "8.1.7"
name = "click"
include = ["src/**"]
exclude = ["**/_compat.py"]
```
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from ingest.config import find_config, with_config_defaults
from ingest.walk import DEFAULT_EXCLUDES
from schema import IngestError

__all__ = ["HistoryBounds", "Manifest", "ManifestError", "RepoEntry", "load_manifest",
           "parse_manifest"]

_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
_TOP_KEYS = {"repositories", "defaults", "cache_dir"}
_ENTRY_KEYS = {"name", "path", "git", "ref", "include", "exclude", "history", "papers",
               "max_file_size", "default_excludes", "gitignore"}
_DEFAULT_KEYS = _ENTRY_KEYS - {"name", "path", "git"}
_HISTORY_KEYS = {"enabled", "max_commits", "since"}


class ManifestError(IngestError):
    """The manifest cannot be used: it names the file, the entry and the key at fault."""

    code = "MANIFEST_ERROR"

    def __init__(self, message: str, *, path: str = "", suggestion: str = "") -> None:
        super().__init__(f"{path}: {message}" if path else message,
                         suggestion=suggestion or "see docs/cli.md#ingest-batch")
        self.path = path


@dataclass(frozen=True)
class HistoryBounds:
    """How much git history of a repository to ingest."""

    enabled: bool = True
    max_commits: int | None = None
    since: datetime | None = None


@dataclass(frozen=True)
class RepoEntry:
    """One repository of the manifest; exactly one of ``path`` (a local tree, absolute) and
    ``git`` (a URL or a repository path, cloned) is set."""

    name: str
    path: str | None = None
    git: str | None = None
    ref: str | None = None
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    history: HistoryBounds = field(default_factory=HistoryBounds)
    papers: bool = True
    max_file_size: int = 2_000_000
    default_excludes: bool = True
    gitignore: bool = True

    @property
    def source(self) -> str:
        return self.path or self.git or ""

    def excludes(self) -> tuple[str, ...]:
        """The walk's .gitignore-style patterns: with ``include``, everything is excluded
        first and the included globs re-included (directories stay walkable); the default
        excludes come again after them, so ``include = ["**"]`` still skips ``.git/``."""
        if not self.include:
            return self.exclude
        defaults = DEFAULT_EXCLUDES if self.default_excludes else ()
        return ("*", "!*/", *(f"!{g}" for g in self.include), *defaults, *self.exclude)

    def fingerprint(self) -> str:
        """Digest of everything in the entry: a changed entry is ingested again."""
        data = asdict(self)
        data["history"]["since"] = str(self.history.since) if self.history.since else None
        text = json.dumps(data, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Manifest:
    path: str
    repositories: tuple[RepoEntry, ...]
    cache_dir: str | None = None


def load_manifest(path: str | Path) -> Manifest:
    """Read and check a ``.toml``, ``.yaml`` or ``.yml`` manifest."""
    file = Path(path).expanduser()
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ManifestError(f"cannot read the manifest: {exc.strerror or exc}",
                            path=str(file)) from exc
    except UnicodeDecodeError as exc:
        line = file.read_bytes().count(b"\n", 0, exc.start) + 1
        raise ManifestError(f"not UTF-8 text at line {line}: {exc.reason}; save the "
                            "manifest as UTF-8", path=str(file)) from exc
    if file.suffix == ".toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ManifestError(f"invalid TOML: {exc}", path=str(file)) from exc
        except RecursionError as exc:  # the parser recurses per level of nesting
            raise ManifestError("invalid TOML: nested too deeply", path=str(file)) from exc
    elif file.suffix in (".yaml", ".yml"):
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ManifestError(f"invalid YAML: {exc}", path=str(file)) from exc
        except RecursionError as exc:  # the parser recurses per level of nesting
            raise ManifestError("invalid YAML: nested too deeply", path=str(file)) from exc
    else:
        raise ManifestError("the manifest must end in .toml, .yaml or .yml", path=str(file))
    return parse_manifest(data, base=file.resolve().parent, path=str(file))


def parse_manifest(data: Any, *, base: Path, path: str = "") -> Manifest:
    """Check a manifest's data (a dict, as TOML or YAML give it); relative paths are taken
    from ``base``."""
    def fail(message: str) -> ManifestError:
        return ManifestError(message, path=path)

    if not isinstance(data, dict):
        raise fail("the manifest must be a table/mapping with a `repositories` list")
    _unknown(data, _TOP_KEYS, "the manifest", fail)
    repos = data.get("repositories")
    if not isinstance(repos, list) or not repos:
        raise fail("`repositories` must be a non-empty list of tables/mappings")
    defaults = data.get("defaults", {})
    if not isinstance(defaults, dict):
        raise fail("`defaults` must be a table/mapping")
    _unknown(defaults, _DEFAULT_KEYS, "`defaults`", fail)
    cache_dir = data.get("cache_dir")
    if cache_dir is not None and not isinstance(cache_dir, str):
        raise fail("`cache_dir` must be a string")
    entries: list[RepoEntry] = []
    names: dict[str, int] = {}
    sources: dict[tuple[str, str | None], int] = {}
    for i, raw in enumerate(repos, 1):
        if not isinstance(raw, dict):
            raise fail(f"repository #{i} must be a table/mapping")
        entry = _entry({**defaults, **raw}, i, base, fail)
        if entry.name in names:
            raise fail(f"repository #{i}: duplicate name {entry.name!r} "
                       f"(also #{names[entry.name]})")
        key = (entry.source, entry.ref)
        if key in sources:
            raise fail(f"repository #{i} ({entry.name}): duplicate source {entry.source}"
                       + (f" at ref {entry.ref}" if entry.ref else "")
                       + f" (also #{sources[key]})")
        names[entry.name] = i
        sources[key] = i
        entries.append(entry)
    cache = str((base / cache_dir).resolve()) if cache_dir else None
    return Manifest(path=path, repositories=tuple(entries), cache_dir=cache)


def _unknown(data: dict, allowed: set[str], where: str, fail: Any) -> None:
    extra = sorted(set(data) - allowed)
    if extra:
        raise fail(f"unknown key{'s' if len(extra) > 1 else ''} in {where}: "
                   f"{', '.join(map(repr, extra))} (allowed: {', '.join(sorted(allowed))})")


def _entry(raw: dict, i: int, base: Path, fail: Any) -> RepoEntry:
    where = f"repository #{i}"
    _unknown(raw, _ENTRY_KEYS, where, fail)
    path, git = raw.get("path"), raw.get("git")
    if (path is None) == (git is None):
        raise fail(f"{where}: give exactly one of `path` (a local tree) and `git` (to clone)")
    for key in ("path", "git", "ref", "name"):
        if raw.get(key) is not None and not (isinstance(raw[key], str) and raw[key].strip()):
            raise fail(f"{where}: `{key}` must be a non-empty string")
    if path is not None:
        path = str((base / Path(path).expanduser()).resolve())
    if git is not None:
        git = _normalize_git(git, base)
    name = raw.get("name") or _default_name(path or git or "")
    if not _NAME.match(name):
        raise fail(f"{where}: name {name!r} must be letters, digits, '_', '.' or '-'")
    where = f"repository #{i} ({name})"
    if path is not None:  # the repository's own config file fills what the entry leaves out
        raw = with_config_defaults(find_config(Path(path)) if Path(path).is_dir() else None, raw)
    include = _globs(raw.get("include", []), f"{where}: `include`", fail)
    exclude = _globs(raw.get("exclude", []), f"{where}: `exclude`", fail)
    for key in ("papers", "default_excludes", "gitignore"):
        if not isinstance(raw.get(key, True), bool):
            raise fail(f"{where}: `{key}` must be true or false")
    size = raw.get("max_file_size", 2_000_000)
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise fail(f"{where}: `max_file_size` must be a positive integer (bytes)")
    return RepoEntry(name=name, path=path, git=git, ref=raw.get("ref"), include=include,
                     exclude=exclude, history=_history(raw.get("history", {}), where, fail),
                     papers=raw.get("papers", True), max_file_size=size,
                     default_excludes=raw.get("default_excludes", True),
                     gitignore=raw.get("gitignore", True))


def _normalize_git(url: str, base: Path) -> str:
    """A URL as written (trailing '/' dropped); a local path made absolute."""
    url = url.rstrip("/")
    if "://" in url or re.match(r"^[\w.-]+@[\w.-]+:", url):
        return url
    return str((base / Path(url).expanduser()).resolve())


def _default_name(source: str) -> str:
    last = source.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return last.removesuffix(".git") or "repository"


def _globs(value: Any, where: str, fail: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(g, str) and g for g in value):
        raise fail(f"{where} must be a list of glob strings")
    return tuple(value)


def _history(raw: Any, where: str, fail: Any) -> HistoryBounds:
    if isinstance(raw, bool):
        return HistoryBounds(enabled=raw)
    if not isinstance(raw, dict):
        raise fail(f"{where}: `history` must be true, false or a table "
                   "(enabled, max_commits, since)")
    _unknown(raw, _HISTORY_KEYS, f"{where}: `history`", fail)
    enabled = raw.get("enabled", True)
    if not isinstance(enabled, bool):
        raise fail(f"{where}: `history.enabled` must be true or false")
    count = raw.get("max_commits")
    if count is not None and (not isinstance(count, int) or isinstance(count, bool)
                              or count < 1):
        raise fail(f"{where}: `history.max_commits` must be a positive integer")
    return HistoryBounds(enabled=enabled, max_commits=count,
                         since=_since(raw.get("since"), where, fail))


def _since(value: Any, where: str, fail: Any) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value.replace(tzinfo=None) if isinstance(value, datetime) else None
    if isinstance(value, date):
        return datetime.combine(value, time())
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value).replace(tzinfo=None)
        except ValueError:
            pass
    raise fail(f"{where}: `history.since` must be a date (2024-01-31) or date-time")
