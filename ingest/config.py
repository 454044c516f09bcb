"""One optional config file per analysed repository: ``vgdb.toml`` or ``[tool.vgdb]`` in its
``pyproject.toml`` (docs/cli.md, "Configuration").

Precedence: a command-line flag, then the file, then the built-in default. The file is looked
for in PATH, then in each parent up to the repository's top (the directory holding ``.git``).
Both files holding settings in one directory is an error (one config file, not a merge). Every
setting names the ``vgdb ingest`` option it stands for, so the CLI resolves it with click's own
``default_map`` and reports where each value came from (:func:`effective_settings`).

    exclude = ["vendor/**"]          # .gitignore-style patterns (a flag replaces the list)
    languages = ["python", "go"]     # only files of these languages
    max-file-size = 2000000
    default-excludes = true
    gitignore = true
    embed = true
    papers = true
    communities = true
    workers = 4
    [history]                        # [tool.vgdb.history] in pyproject.toml
    enabled = true
    since = 2024-01-31
    max-commits = 5000
    [impact]
    depth = 3
    limit = 500
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from ingest.extract import EXTENSIONS
from schema import IngestError

__all__ = [
    "CONFIG_FILES", "SETTINGS", "ConfigError", "ConfigFile", "EffectiveSetting", "Setting",
    "command_defaults", "effective_settings", "find_config", "load_config",
    "option_value_to_setting", "with_config_defaults",
]

CONFIG_FILES = ("vgdb.toml", "pyproject.toml")


class ConfigError(IngestError):
    """The config file cannot be used: not TOML, an unknown key, a value of the wrong type."""

    def __init__(self, message: str, *, path: str, key: str = "",
                 suggestion: str = "") -> None:
        super().__init__(message, suggestion=suggestion)
        self.path = path
        self.key = key


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting: its key in the file, its type and default, and the option of each command
    it is the default of (``invert``: the option is the setting's negation, ``--no-embed``)."""

    key: str
    kind: str  # bool | int | globs | languages | date
    default: Any
    options: Mapping[str, str]  # command -> click parameter name
    flag: str
    invert: bool = False
    minimum: int | None = None
    help: str = ""


def _ingest(param: str) -> dict[str, str]:
    return {"ingest": param}


SETTINGS: tuple[Setting, ...] = (
    Setting("exclude", "globs", (), _ingest("exclude"), "--exclude",
            help=".gitignore-style patterns to skip"),
    Setting("languages", "languages", (), _ingest("language"), "--language",
            help="only files of these languages (default: every language with a grammar)"),
    Setting("max-file-size", "int", 2_000_000, _ingest("max_file_size"), "--max-file-size",
            minimum=1, help="skip files larger than this many bytes"),
    Setting("default-excludes", "bool", True, _ingest("no_default_excludes"),
            "--no-default-excludes", invert=True,
            help="skip vendored, build and virtual-environment directories"),
    Setting("gitignore", "bool", True, _ingest("no_gitignore"), "--no-gitignore", invert=True,
            help="honour .gitignore files"),
    Setting("embed", "bool", True, _ingest("no_embed"), "--no-embed", invert=True,
            help="embed new or changed texts"),
    Setting("papers", "bool", True, _ingest("no_papers"), "--no-papers", invert=True,
            help="read bibliographies and references to papers"),
    Setting("communities", "bool", True, _ingest("no_communities"), "--no-communities",
            invert=True, help="detect communities after the ingest"),
    Setting("workers", "int", None, _ingest("workers"), "--workers", minimum=1,
            help="parse processes (default: cores)"),
    Setting("history.enabled", "bool", True, _ingest("no_history"), "--no-history",
            invert=True, help="read the git history"),
    Setting("history.since", "date", None, _ingest("since"), "--since",
            help="only commits from this date on"),
    Setting("history.max-commits", "int", None, _ingest("max_commits"), "--max-commits",
            minimum=1, help="only the newest N commits"),
    Setting("impact.depth", "int", 3, {"impact": "depth", "review": "depth"}, "--depth",
            minimum=0, help="call/import hops followed from a change"),
    Setting("impact.limit", "int", 500, {"impact": "limit", "review": "limit"}, "--limit",
            minimum=1, help="dependents listed at most"),
)
_BY_KEY = {s.key: s for s in SETTINGS}
_SECTIONS = {key.split(".")[0] for key in _BY_KEY if "." in key}


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """A config file's validated settings (key -> value) and where it is."""

    path: Path
    table: str  # "" for vgdb.toml, "tool.vgdb" for pyproject.toml
    values: Mapping[str, Any]

    def where(self, key: str) -> str:
        """``vgdb.toml: history.since`` / ``pyproject.toml: tool.vgdb.history.since``."""
        return f"{self.path.name}: {self.table + '.' if self.table else ''}{key}"


@dataclass(frozen=True, slots=True)
class EffectiveSetting:
    """A setting's value in force and where it came from: ``flag``, ``file`` or ``default``."""

    key: str
    value: Any
    source: str
    where: str

    def to_dict(self) -> dict[str, Any]:
        value = list(self.value) if isinstance(self.value, tuple) else self.value
        if isinstance(value, (date, datetime)):
            value = value.isoformat()
        return {"key": self.key, "value": value, "source": self.source, "where": self.where}


def find_config(path: Path) -> ConfigFile | None:
    """The config file that applies to the tree at ``path`` (validated), or None."""
    start = path.resolve()
    for directory in (start, *start.parents):
        found = _read_directory(directory)
        if found is not None or (directory / ".git").exists():
            return found
    return None


def load_config(path: Path) -> ConfigFile:
    """Read and validate one config file (``vgdb.toml`` or a ``pyproject.toml``)."""
    raw = _read_toml(path)
    if path.name == "pyproject.toml":
        table = raw.get("tool", {}).get("vgdb", {}) if isinstance(raw.get("tool"), dict) else {}
        return ConfigFile(path, "tool.vgdb", _validate(table, path, "tool.vgdb"))
    return ConfigFile(path, "", _validate(raw, path, ""))


def command_defaults(config: ConfigFile | None, command: str) -> dict[str, Any]:
    """Click parameter defaults of ``command`` from ``config`` (for ``Context.default_map``)."""
    if config is None:
        return {}
    out: dict[str, Any] = {}
    for key, value in config.values.items():
        setting = _BY_KEY[key]
        param = setting.options.get(command)
        if param is not None:
            out[param] = _as_option(setting, value)
    return out


#: setting -> key of an ingest-batch manifest entry (docs/cli.md#ingest-batch)
_MANIFEST_KEYS = {"exclude": "exclude", "max-file-size": "max_file_size",
                  "default-excludes": "default_excludes", "gitignore": "gitignore",
                  "papers": "papers", "history.enabled": "history.enabled",
                  "history.since": "history.since", "history.max-commits": "history.max_commits"}


def with_config_defaults(config: ConfigFile | None, entry: Mapping[str, Any]) -> dict[str, Any]:
    """An ingest-batch manifest entry with what it leaves out taken from the repository's
    config file (the entry wins, as a flag does on the command line)."""
    out = dict(entry)
    if config is None:
        return out
    history = out.get("history", {})
    history = dict(history) if isinstance(history, dict) else history
    for key, value in config.values.items():
        name = _MANIFEST_KEYS.get(key)
        if name is None:
            continue
        value = list(value) if isinstance(value, tuple) else value
        if name.startswith("history."):
            if isinstance(history, dict):
                history.setdefault(name.removeprefix("history."), value)
        else:
            out.setdefault(name, value)
    if history != {}:
        out["history"] = history
    return out


def effective_settings(config: ConfigFile | None, flags: Mapping[str, Any] | None = None,
                       ) -> list[EffectiveSetting]:
    """Every setting's value in force: a flag (key -> value) over the file over the default."""
    flags = flags or {}
    out = []
    for setting in SETTINGS:
        if setting.key in flags:
            out.append(EffectiveSetting(setting.key, flags[setting.key], "flag", setting.flag))
        elif config is not None and setting.key in config.values:
            out.append(EffectiveSetting(setting.key, config.values[setting.key], "file",
                                        config.where(setting.key)))
        else:
            out.append(EffectiveSetting(setting.key, setting.default, "default", ""))
    return out


def option_value_to_setting(setting: Setting, value: Any) -> Any:
    """A click option's value as the setting's value (``--no-embed`` -> ``embed = false``)."""
    if setting.invert:
        return not value
    if setting.kind in ("globs", "languages"):
        return tuple(value)
    return value


# ------------------------------------------------------------------------------ reading
def _read_directory(directory: Path) -> ConfigFile | None:
    own = directory / "vgdb.toml"
    pyproject = directory / "pyproject.toml"
    mine = load_config(own) if own.is_file() else None
    theirs = load_config(pyproject) if pyproject.is_file() else None
    if theirs is not None and not _has_table(pyproject):
        theirs = None
    if mine is not None and theirs is not None:
        raise ConfigError(
            f"two config files in {directory}: vgdb.toml and [tool.vgdb] in pyproject.toml",
            path=str(own), suggestion="keep one of them")
    return mine or theirs


def _has_table(pyproject: Path) -> bool:
    tool = _read_toml(pyproject).get("tool")
    return isinstance(tool, dict) and "vgdb" in tool


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}", path=str(path)) from exc
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}", path=str(path)) from exc


def _validate(table: Mapping[str, Any], path: Path, prefix: str) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, value in table.items():
        if name in _SECTIONS and isinstance(value, dict):
            for sub, subvalue in value.items():
                values[f"{name}.{sub}"] = subvalue
        else:
            values[name] = value
    out = {}
    for key, value in values.items():
        full = f"{prefix}.{key}" if prefix else key
        setting = _BY_KEY.get(key)
        if setting is None:
            close = difflib.get_close_matches(key, list(_BY_KEY), n=1, cutoff=0.5)
            raise ConfigError(
                f"{path}: unknown setting {full!r}", path=str(path), key=full,
                suggestion=f"did you mean {close[0]!r}?" if close else
                f"known settings: {', '.join(_BY_KEY)}")
        out[key] = _check(setting, value, path, full)
    return out


def _check(setting: Setting, value: Any, path: Path, full: str) -> Any:
    def bad(expected: str) -> ConfigError:
        return ConfigError(f"{path}: {full} must be {expected}, not {value!r}",
                           path=str(path), key=full)

    kind = setting.kind
    if kind == "bool":
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad("an integer")
        if setting.minimum is not None and value < setting.minimum:
            raise bad(f"at least {setting.minimum}")
        return value
    if kind == "date":
        if isinstance(value, datetime):
            return value
        if isinstance(value, date):
            return datetime.combine(value, time())
        raise bad("a TOML date (2024-01-31) or date-time")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise bad("a list of strings")
    if kind == "languages":
        known = sorted(set(EXTENSIONS.values()))
        for name in value:
            if name not in known:
                close = difflib.get_close_matches(name, known, n=1)
                raise ConfigError(
                    f"{path}: {full}: unknown language {name!r}", path=str(path), key=full,
                    suggestion=(f"did you mean {close[0]!r}? " if close else "")
                    + f"known: {', '.join(known)}")
    return tuple(value)


def _as_option(setting: Setting, value: Any) -> Any:
    return (not value) if setting.invert else value
