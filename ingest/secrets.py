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
    settings = {"plugins_used": [{"name": n} for n in names if "Entropy" not in n]}
    cache_bust()
    configure_settings_from_baseline(settings)
    return settings


def detectors() -> tuple[str, ...]:
    """The detectors in use (detect-secrets' plugin names, then ours)."""
    return (*(p["name"] for p in _settings()["plugins_used"]),
            "KeywordAssignment", "AWSSecretKey", "PrivateKey")


def find_secrets(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, detector) of each secret in ``text``, possibly overlapping."""
    from detect_secrets.core.scan import scan_line

    _settings()
    offset = 0
    for line in text.splitlines(keepends=True):
        if len(line) >= _SHORTEST:
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
    the field's path appended (``<file>:<line> content``)."""
    if isinstance(data, str):
        return redact_text(data, where=where)
    notes: list[Redaction] = []
    if isinstance(data, dict):
        out = {}
        for key, value in data.items():
            out[key], found = redact_values(value, where=f"{where} {key}")
            notes.extend(found)
        return out, notes
    if isinstance(data, list):
        items = []
        for index, value in enumerate(data):
            item, found = redact_values(value, where=f"{where}[{index}]")
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
