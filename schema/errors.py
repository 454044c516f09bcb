"""The one error tree of VectorGraphDB.

It lives in ``schema`` because every layer raises these and ``schema`` is the one package every
layer may import. Backend exceptions (kuzu, OS) are translated once, in ``graphdb``, with
``raise ... from exc``; surfaces (CLI, GraphQL) present them in one place each.

::

    VgdbError
    ├── StoreError                    the database directory cannot be used
    │   ├── StoreLockedError          another process holds the database
    │   ├── StoreNotFoundError        no database at that path (read-only open)
    │   ├── SchemaVersionError        written by another schema or engine version
    │   ├── CorruptDatabaseError      damaged: the engine refuses it, or a checksum differs
    │   └── DiskFullError             no space left on the device the database is on
    ├── QueryError                    a Cypher query failed (message from the engine)
    │   └── ReadOnlyViolationError    a write, DDL or file access in a read-only query
    ├── IngestError                   an ingest cannot start (bad path, bad options)
    │   ├── ExtractError              one file could not be extracted (reported, not raised
    │                                 out of a batch)
    │   └── CoverageDataError         a coverage file that cannot be used (no per-test
    │                                 contexts, corrupt, another repository or commit)
    ├── ConflictError                 a new entry contradicts an active one in an
    │                                 overlapping scope and does not say it supersedes it
    ├── SessionFormatError            a session log line is not a valid event (reported
    │                                 per line, not raised out of a batch)
    ├── NodeNotFoundError (KeyError)  no node with that id
    └── AuthError                     an API request without valid credentials
        └── PermissionDeniedError     valid credentials without the needed scope
"""

from __future__ import annotations

__all__ = [
    "AuthError",
    "ConflictError",
    "CorruptDatabaseError",
    "CoverageDataError",
    "DiskFullError",
    "ExtractError",
    "IngestError",
    "NodeNotFoundError",
    "PermissionDeniedError",
    "QueryError",
    "ReadOnlyViolationError",
    "SchemaVersionError",
    "SessionFormatError",
    "StoreError",
    "StoreLockedError",
    "StoreNotFoundError",
    "VgdbError",
]


class VgdbError(Exception):
    """Root of every error VectorGraphDB raises on purpose.

    ``suggestion`` tells the user what to do next; surfaces print it under the message.
    """

    exit_code = 1
    code = "VGDB_ERROR"

    def __init__(self, message: str, *, suggestion: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.suggestion = suggestion

    def __str__(self) -> str:
        return self.message


class StoreError(VgdbError):
    code = "STORE_ERROR"


class StoreLockedError(StoreError):
    exit_code = 3
    code = "STORE_LOCKED"

    def __init__(self, message: str, *, path: str, holder: dict | None = None,
                 suggestion: str = "") -> None:
        super().__init__(message, suggestion=suggestion)
        self.path = path
        self.holder = holder or {}


class StoreNotFoundError(StoreError):
    code = "STORE_NOT_FOUND"

    def __init__(self, message: str, *, path: str, suggestion: str = "") -> None:
        super().__init__(message, suggestion=suggestion)
        self.path = path


class SchemaVersionError(StoreError):
    code = "SCHEMA_VERSION"

    def __init__(self, message: str, *, found: object, expected: object,
                 suggestion: str = "") -> None:
        super().__init__(message, suggestion=suggestion)
        self.found = found
        self.expected = expected


class CorruptDatabaseError(StoreError):
    code = "CORRUPT_DATABASE"


class DiskFullError(StoreError):
    """No space left on the device at ``path``. ``committed``: True when every committed
    write is kept (a checkpoint could not run), False when the write in progress was not
    committed, None when not known (a file beside the graph: an index, a manifest)."""

    exit_code = 5
    code = "DISK_FULL"

    def __init__(self, path: str, *, detail: str = "", committed: bool | None = False,
                 message: str = "") -> None:
        what = {True: "every committed write is kept in the write-ahead log",
                False: "nothing was committed",
                None: "what was committed before is kept"}[committed]
        super().__init__(message or f"no space left on device at {path}; {what}",
                         suggestion="free space and re-run")
        self.path = path
        self.detail = detail
        self.committed = committed


class QueryError(VgdbError):
    exit_code = 2
    code = "QUERY_ERROR"

    def __init__(self, message: str, *, query: str = "", suggestion: str = "") -> None:
        super().__init__(message, suggestion=suggestion)
        self.query = query


class ReadOnlyViolationError(QueryError):
    code = "READ_ONLY"


class IngestError(VgdbError):
    exit_code = 2
    code = "INGEST_ERROR"


class ExtractError(IngestError):
    code = "EXTRACT_ERROR"

    def __init__(self, message: str, *, path: str, suggestion: str = "") -> None:
        super().__init__(message, suggestion=suggestion)
        self.path = path


class CoverageDataError(IngestError):
    """A coverage.py data file that cannot be stored as test evidence; ``path`` is the file,
    ``reason`` one of: missing, corrupt, no-contexts, no-test-contexts, other-repository,
    other-commit."""

    code = "COVERAGE_DATA"

    def __init__(self, message: str, *, path: str, reason: str, suggestion: str = "") -> None:
        super().__init__(message, suggestion=suggestion)
        self.path = path
        self.reason = reason


class ConflictError(VgdbError):
    """A new pattern or decision overlaps an active one it does not declare to supersede.

    ``active`` holds the conflicting entries' ids (``entry:...``) and display ids; ``choices``
    what the caller can do: supersede it, narrow the scope, or abort.
    """

    exit_code = 4
    code = "CONFLICT"
    CHOICES: tuple[str, ...] = ("supersede", "narrow_scope", "abort")

    def __init__(self, message: str, *, active: list[dict[str, str]],
                 suggestion: str = "") -> None:
        super().__init__(message, suggestion=suggestion or (
            "declare `supersedes` with the active entry's id, narrow the scope so it no longer "
            "overlaps, or abort"))
        self.active = active
        self.choices = self.CHOICES


class SessionFormatError(IngestError):
    """One line of a session log is not a valid event."""

    code = "SESSION_FORMAT"

    def __init__(self, message: str, *, line: int = 0, suggestion: str = "") -> None:
        super().__init__(message, suggestion=suggestion)
        self.line = line


class NodeNotFoundError(VgdbError, KeyError):
    """No node with that id; ``closest`` names the nearest ones that exist (a link a write
    asked for, so the caller can correct it in one more call)."""

    code = "NOT_FOUND"

    def __init__(self, message: str, *, node_id: str, suggestion: str = "",
                 closest: tuple[str, ...] = ()) -> None:
        VgdbError.__init__(self, message, suggestion=suggestion)
        self.node_id = node_id
        self.closest = closest

    def __str__(self) -> str:
        return self.message


class AuthError(VgdbError):
    """A request without valid credentials (unknown, expired or revoked token)."""

    exit_code = 2
    code = "UNAUTHENTICATED"


class PermissionDeniedError(AuthError):
    """Valid credentials without the scope the request needs."""

    code = "FORBIDDEN"
