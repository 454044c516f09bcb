"""API tokens of a database directory (``tokens.json`` beside the graph): named, scoped
(read, write, admin), optionally expiring, revocable; stored as SHA-256 hashes only.

The secret is shown once, at creation. A token reads ``vgdb_<id>_<secret>``: the id finds
the record, the hash of the whole token is compared in constant time. Tokens are random
256-bit strings, so a plain SHA-256 (not a slow password hash) is the right tool.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from schema import AuthError, StoreError

__all__ = ["SCOPES", "ApiToken", "TokenStore"]

#: each scope includes the ones before it: write can read, admin can write
SCOPES: tuple[str, ...] = ("read", "write", "admin")
_FILE = "tokens.json"


@dataclass(frozen=True)
class ApiToken:
    id: str
    name: str
    scope: str
    created_at: str
    expires_at: str | None = None
    revoked_at: str | None = None
    #: this token's own limits, below the server's (None: the server's)
    max_cost: int | None = None
    timeout: float | None = None

    def allows(self, scope: str) -> bool:
        return SCOPES.index(self.scope) >= SCOPES.index(scope)

    def state(self, now: datetime | None = None) -> str:
        now = now or datetime.now(UTC)
        if self.revoked_at:
            return "revoked"
        if self.expires_at and datetime.fromisoformat(self.expires_at) <= now:
            return "expired"
        return "active"


class TokenStore:
    """The tokens of the database directory ``path``."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.directory = Path(path)
        self.file = self.directory / _FILE

    def create(self, name: str, *, scope: str = "read",
               expires_in: timedelta | None = None, max_cost: int | None = None,
               timeout: float | None = None) -> tuple[ApiToken, str]:
        """A new token and its secret (shown only now); ``max_cost`` and ``timeout``: its
        own limits (a server applies the lower of its own and the token's)."""
        if scope not in SCOPES:
            raise StoreError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
        if (max_cost is not None and max_cost < 1) or (timeout is not None and timeout <= 0):
            raise StoreError("a token's max_cost and timeout must be positive")
        if not self.directory.is_dir():
            raise StoreError(f"no database directory at {self.directory}",
                             suggestion="create the database first (vgdb ingest)")
        records = self._read()
        token_id = secrets.token_hex(4)
        while token_id in records:
            token_id = secrets.token_hex(4)
        secret = f"vgdb_{token_id}_{secrets.token_urlsafe(32)}"
        now = datetime.now(UTC)
        token = ApiToken(token_id, name, scope, now.isoformat(timespec="seconds"),
                         (now + expires_in).isoformat(timespec="seconds")
                         if expires_in else None, max_cost=max_cost, timeout=timeout)
        records[token_id] = {**asdict(token), "hash": _hash(secret)}
        self._write(records)
        return token, secret

    def list(self) -> list[ApiToken]:
        return [_token(r) for r in sorted(self._read().values(), key=lambda r: r["created_at"])]

    def revoke(self, token_id: str) -> ApiToken:
        records = self._read()
        if token_id not in records:
            raise StoreError(f"no token {token_id!r}", suggestion="see `vgdb token list`")
        records[token_id]["revoked_at"] = datetime.now(UTC).isoformat(timespec="seconds")
        self._write(records)
        return _token(records[token_id])

    def verify(self, secret: str) -> ApiToken:
        """The active token ``secret`` is, or :class:`AuthError` saying why not."""
        parts = secret.split("_")
        record = self._read().get(parts[1]) if len(parts) >= 3 and parts[0] == "vgdb" else None
        if record is None or not hmac.compare_digest(record["hash"], _hash(secret)):
            raise AuthError("unknown API token", suggestion="create one with `vgdb token create`")
        token = _token(record)
        state = token.state()
        if state != "active":
            raise AuthError(f"API token {token.id} ({token.name}) is {state}",
                            suggestion="create a new one with `vgdb token create`")
        return token

    def _read(self) -> dict[str, dict]:
        if not self.file.exists():
            return {}
        try:
            return json.loads(self.file.read_text(encoding="utf-8"))["tokens"]
        except (OSError, ValueError, KeyError) as exc:
            raise StoreError(f"unreadable token file {self.file}: {exc}",
                             suggestion="move it away and create new tokens") from exc

    def _write(self, records: dict[str, dict]) -> None:
        tmp = self.file.with_name(f".{_FILE}.tmp")
        tmp.write_text(json.dumps({"tokens": records}, indent=2) + "\n", encoding="utf-8")
        tmp.chmod(0o600)
        tmp.replace(self.file)


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _token(record: dict) -> ApiToken:
    return ApiToken(**{k: v for k, v in record.items() if k != "hash"})
