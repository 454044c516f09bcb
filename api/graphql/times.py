"""One time model for the whole GraphQL surface (DESIGN §5): a ``DateTime`` input may be ISO
8601 with ``Z``, with an offset, or naive (taken as UTC); every output is UTC with ``Z``.

Inside, times are naive UTC (as Kuzu stores TIMESTAMP), so a parsed input compares with the
stored ones without "offset-naive and offset-aware" errors. The scalar replaces strawberry's
own ``DateTime`` (``scalar_overrides``), so no field can take or return another form.
"""

from datetime import UTC, datetime
from typing import Any

import strawberry
from graphql import GraphQLError

__all__ = ["DATETIME_DESCRIPTION", "UtcDateTime", "parse_datetime", "serialize_datetime"]

DATETIME_DESCRIPTION = (
    "An ISO 8601 date and time. Inputs: with `Z` (2026-11-02T09:04:10Z), with an offset "
    "(2026-11-02T10:04:10+01:00) or naive (2026-11-02T09:04:10, taken as UTC). Outputs are "
    "always UTC with `Z`.")


def parse_datetime(value: Any) -> datetime:
    """ISO 8601 text (``Z``, offset or naive = UTC) -> naive UTC datetime."""
    if isinstance(value, datetime):
        ts = value
    elif isinstance(value, str):
        try:
            ts = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValueError(f"not an ISO 8601 date and time: {value!r} (e.g. "
                             "2026-11-02T09:04:10Z)") from None
    else:
        raise ValueError(f"a DateTime must be ISO 8601 text, not {value!r}")
    return ts.astimezone(UTC).replace(tzinfo=None) if ts.tzinfo else ts


def serialize_datetime(value: datetime) -> str:
    """A datetime (naive = UTC) as ISO 8601 UTC text ending in ``Z``."""
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value.isoformat() + "Z"


def _parse_input(value: Any) -> datetime:
    """:func:`parse_datetime` for GraphQL: a bad input is the client's error (a
    ``GraphQLError``), not an unexpected exception masked as INTERNAL (the fuzzer found it)."""
    try:
        return parse_datetime(value)
    except ValueError as exc:
        raise GraphQLError(str(exc)) from None


#: the definition that replaces strawberry's DateTime (``StrawberryConfig.scalar_map``)
UtcDateTime = strawberry.scalar(
    name="DateTime", description=DATETIME_DESCRIPTION, serialize=serialize_datetime,
    parse_value=_parse_input)
