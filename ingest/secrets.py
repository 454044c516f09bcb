"""Keep secrets out of the graph: find them in free text and redact them before ingest.

Session texts, commit messages and papers' free text pass through :func:`redact_text` at the
point where they enter frames; each match is replaced by ``[REDACTED:<detector>]`` and reported
as a :class:`Redaction` (where, which detector; never the secret itself).

The detectors are detect-secrets' (Yelp's well-kept scanner; it runs offline) minus its two
entropy detectors, which flag ordinary words in prose (measured: "normal text about a decoder"
gave 5 hits). detect-secrets' keyword detector only knows quoted assignments outside a
source file (``password = "x"``), so two patterns of ours add the unquoted forms that session
logs and commit messages hold (``DB_PASSWORD=x``, ``password: x``,
``aws_secret_access_key = ...``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

__all__ = ["REDACTED", "Redaction", "detectors", "find_secrets", "redact_text", "redact_values"]

#: what a redacted secret reads as; the detector's name follows the colon
REDACTED = "[REDACTED:{}]"

_KEYWORDS = r"(?:pass(?:word|wd|phrase)?|pwd|secret|api[_-]?key|access[_-]?key|auth[_-]?token|" \
            r"token|private[_-]?key|client[_-]?secret|credentials?)"
#: ``DB_PASSWORD=s3cr3t``, ``password: s3cr3t``, ``"api_key": "..."``: the value is group 1
_UNQUOTED_ASSIGNMENT = re.compile(
    r"(?i)\b[\w.-]*" + _KEYWORDS + r"[\w.-]*['\"]?\s{0,3}(?:=|:|:=|=>)\s{0,3}['\"]?"
    r"([^\s'\"`,;(){}\[\]]{6,})")
#: an AWS secret access key (40 base64 characters) named as one
_AWS_SECRET = re.compile(
    r"(?i)aws.{0,20}?(?:secret|key).{0,20}?[=:]\s*['\"]?([A-Za-z0-9/+]{40})\b")
#: a whole PEM private key (detect-secrets flags its first line only)
_PEM_BLOCK = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.S)
#: values that are not secrets: attribute access (``settings.KEY``), masks, template variables
_PLACEHOLDER = re.compile(r"(?i)^(?:[a-z_]\w*(?:\.[a-z_]\w*)+|\*+|x+|\.\.\.+|<[^>]*>|"
                          r"\$\{?\w+\}?|%\(\w+\)s|\[redacted.*|none|null|true|false|changeme|example|redacted|required|optional)$")


#: detectors of things that are not secrets: a public IP address in a log is not a credential
_NOT_SECRETS = {"IPPublicDetector"}
#: no detector fires on a shorter line (the shortest, an npm token line, is longer)
_SHORTEST = 8


@dataclass(frozen=True, slots=True)
class Redaction:
    """One secret taken out: where (``commit:<sha> message``, ``<file>:<line> content``) and
    which detector found it. The secret's text is deliberately not kept."""

    where: str
    detector: str

    def to_dict(self) -> dict[str, str]:
        return {"where": self.where, "detector": self.detector}


@cache
def _settings() -> dict:
    """detect-secrets' settings are process-global: set them once (entering its
    ``transient_settings`` on every call cost 0.3 ms, three times the scan itself)."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.settings import cache_bust, configure_settings_from_baseline

    names = sorted(cls.__name__ for cls in get_mapping_from_secret_type_to_class().values())
    settings = {"plugins_used": [{"name": n} for n in names
                                 if "Entropy" not in n and n not in _NOT_SECRETS]}
    cache_bust()
    configure_settings_from_baseline(settings)
    return settings


@cache
def _gate() -> tuple[tuple[re.Pattern[str], ...], tuple[Any, ...]]:
    """What decides whether ``scan_line`` needs to look at a line: the detectors' own
    patterns (a regex detector fires only where one of its ``denylist`` patterns matches; the
    keyword detector, outside a source file, only where one of its quoted-assignment patterns
    does), and any other detector to call as ``scan_line`` does. ``scan_line`` itself spends
    70% of its time injecting arguments into 24 detectors per line (measured with cProfile on
    the example session log), so only lines that pass the gate pay for it."""
    from detect_secrets.plugins.base import RegexBasedDetector
    from detect_secrets.plugins.keyword import (
        QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP,
        KeywordDetector,
    )
    from detect_secrets.settings import get_plugins

    _settings()
    patterns: list[re.Pattern[str]] = []
    others = []
    for plugin in get_plugins():
        if isinstance(plugin, RegexBasedDetector):
            patterns += plugin.denylist
        elif isinstance(plugin, KeywordDetector):
            patterns += QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP
        else:
            others.append(plugin)
    return tuple(patterns), tuple(others)


def _may_hold_secret(line: str) -> bool:
    patterns, others = _gate()
    return any(p.search(line) for p in patterns) or any(
        plugin.analyze_line(filename="adhoc-string-scan", line=line, line_number=0)
        for plugin in others)


def detectors() -> tuple[str, ...]:
    """The detectors in use (detect-secrets' plugin names, then ours)."""
    return (*(p["name"] for p in _settings()["plugins_used"]),
            "KeywordAssignment", "AWSSecretKey", "PrivateKey")


def find_secrets(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, detector) of each secret in ``text``, possibly overlapping."""
    from detect_secrets.core.scan import scan_line

    offset = 0
    for line in text.splitlines(keepends=True):
        if len(line) >= _SHORTEST and _may_hold_secret(line.rstrip("\r\n")):
            for found in scan_line(line.rstrip("\r\n")):
                for start, end in _spans(line, found.secret_value or ""):
                    yield offset + start, offset + end, _name(found.type)
        offset += len(line)
    for pattern, name in ((_UNQUOTED_ASSIGNMENT, "KeywordAssignment"),
                          (_AWS_SECRET, "AWSSecretKey")):
        for match in pattern.finditer(text):
            if not _PLACEHOLDER.match(match.group(1)):
                yield match.start(1), match.end(1), name
    for match in _PEM_BLOCK.finditer(text):
        yield match.start(), match.end(), "PrivateKey"


def redact_text(text: str, *, where: str) -> tuple[str, list[Redaction]]:
    """``text`` with every secret replaced, and a note per replacement."""
    if not text:
        return text, []
    spans = sorted(find_secrets(text))
    if not spans:
        return text, []
    merged: list[list] = []
    for start, end, name in spans:
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end, name])
    parts, last = [], 0
    for start, end, name in merged:
        parts.append(text[last:start])
        parts.append(REDACTED.format(name))
        last = end
    parts.append(text[last:])
    return "".join(parts), [Redaction(where, name) for _, _, name in merged]


def redact_values(data: Any, *, where: str) -> tuple[Any, list[Redaction]]:
    """A decoded JSON value with every string in it redacted (keys are kept); ``where`` gets
    the field's path appended (``<file>:<line> content``).

    The strings are first scanned together, one per line: a line of a session log has about
    eight, and one scan of them all costs a third of eight (measured: benchmarks/
    secrets_scan.py). Every secret in one string is found in the joined text too (the
    scanners work line by line, and a newline is a word boundary), so only a hit there
    costs the scan per string."""
    strings: list[str] = []
    _strings(data, strings)
    if not strings or next(find_secrets("\n".join(strings)), None) is None:
        return data, []
    return _redact_each(data, where=where)


def _strings(data: Any, out: list[str]) -> None:
    if isinstance(data, str):
        out.append(data)
    elif isinstance(data, dict):
        for value in data.values():
            _strings(value, out)
    elif isinstance(data, list):
        for value in data:
            _strings(value, out)


def _redact_each(data: Any, *, where: str) -> tuple[Any, list[Redaction]]:
    if isinstance(data, str):
        return redact_text(data, where=where)
    notes: list[Redaction] = []
    if isinstance(data, dict):
        out = {}
        for key, value in data.items():
            out[key], found = _redact_each(value, where=f"{where} {key}")
            notes.extend(found)
        return out, notes
    if isinstance(data, list):
        items = []
        for index, value in enumerate(data):
            item, found = _redact_each(value, where=f"{where}[{index}]")
            items.append(item)
            notes.extend(found)
        return items, notes
    return data, notes


def _spans(line: str, value: str) -> Iterator[tuple[int, int]]:
    """Where the reported value sits in the line, widened to the whole token: some detectors
    report only a prefix (the GitHub one reports ``ghp``)."""
    if not value:
        return
    for match in re.finditer(re.escape(value), line):
        start, end = match.start(), match.end()
        while start > 0 and not line[start - 1].isspace() and line[start - 1] not in "'\"=:`(":
            start -= 1
        while end < len(line) and not line[end].isspace() and line[end] not in "'\"`,;)@":
            end += 1
        yield start, end


def _name(secret_type: str) -> str:
    return secret_type.replace(" ", "")
