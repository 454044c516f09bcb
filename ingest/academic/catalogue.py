"""Helpers shared by the catalogue record parsers (OpenAlex, Semantic Scholar)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ingest.academic.identity import obsoleted_rfcs

__all__ = ["kind_from_ids", "replaces", "text", "year"]


def text(value: Any) -> str:
    """A value as one line of text ('' for null)."""
    return " ".join(str(value).split()) if value not in (None, "") else ""


def year(value: Any) -> int | None:
    """A publication year, or ValueError when it is not a plausible one."""
    if value in (None, ""):
        return None
    number = int(value)
    if not 1000 <= number <= 2999:
        raise ValueError(f"year {value!r} out of range")
    return number


def replaces(obj: Mapping[str, Any], kind: str, abstract: str) -> tuple[str, ...]:
    out = [str(x) for x in obj.get("obsoletes") or () if x]
    out += [str(x) for x in obj.get("retracts") or () if x]
    if kind == "rfc":
        out += obsoleted_rfcs(abstract)
    return tuple(dict.fromkeys(out))


def kind_from_ids(doi: str, fallback: str) -> str:
    return "rfc" if doi.startswith("10.17487/rfc") else fallback
