"""One time model for the whole GraphQL surface (DESIGN §5): a ``DateTime`` input may be ISO
8601 with ``Z``, with an offset, or naive (taken as UTC); every output is UTC with ``Z``.

Inside, times are naive UTC (as Kuzu stores TIMESTAMP), so a parsed input compares with the
stored ones without "offset-naive and offset-aware" errors. The scalar replaces strawberry's
own ``DateTime`` (``scalar_overrides``), so no field can take or return another form.
"""

from datetime import UTC, datetime
from typing import Any

import strawberry

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


#: the definition that replaces strawberry's DateTime (``StrawberryConfig.scalar_map``)
UtcDateTime = strawberry.scalar(
    name="DateTime", description=DATETIME_DESCRIPTION, serialize=serialize_datetime,
    parse_value=parse_datetime)
