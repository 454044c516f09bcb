"""Refuse Cypher that writes, changes the schema or touches files, before Kuzu sees it.

The database is also opened read-only for such queries, so writes fail in the engine too; this
check exists for what a read-only Kuzu still allows: ``COPY ... TO`` a file, ``LOAD FROM`` a
file, ``EXPORT``/``IMPORT DATABASE``, ``ATTACH``, ``INSTALL``/``LOAD EXTENSION``.
"""

from __future__ import annotations

import re

from schema import ReadOnlyViolationError

__all__ = ["check_read_only"]

_FORBIDDEN = (
    "CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "DROP", "ALTER", "COPY", "LOAD",
    "EXPORT", "IMPORT", "ATTACH", "INSTALL", "USE", "BEGIN", "COMMIT", "ROLLBACK", "CHECKPOINT",
)
# Strings, quoted identifiers and comments are blanked before looking for keywords, so a
# property value that contains the word "delete" is no write.
_LITERALS = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|//[^\n]*|/\*.*?\*/",
                       re.S)
# A keyword counts only as a clause: not after '.' (a property such as e.commit) or AS (an
# alias); '_' ends it too, so procedures like CREATE_FTS_INDEX or DROP_VECTOR_INDEX count.
_KEYWORD = re.compile(r"(?<![.:\w])(?<!AS )(?<!as )(" + "|".join(_FORBIDDEN) + r")(?:\b|_)",
                      re.I)


def check_read_only(query: str) -> None:
    """Raise :class:`ReadOnlyViolationError` if ``query`` could write or reach files."""
    stripped = _LITERALS.sub(" ", query)
    match = _KEYWORD.search(re.sub(r"\s+", " ", stripped))
    if match:
        word = match.group(1).upper()
        raise ReadOnlyViolationError(
            f"read-only query refused: {word} is not allowed here",
            query=query,
            suggestion="vgdb cypher runs read-only queries (MATCH ... RETURN); writes go "
                       "through vgdb ingest and the write API",
        )
