"""Deterministic identifiers (DESIGN §2), so re-ingest is idempotent and edges survive it."""

from __future__ import annotations

__all__ = [
    "MODULE_QUALNAME", "agent_id", "commit_id", "community_id", "entry_id", "external_id",
    "file_id", "normalize_email", "person_id", "ref_id", "repo_id", "session_id", "symbol_id",
]

#: Qualname of the Symbol that stands for a whole file/module.
MODULE_QUALNAME = "<module>"


def repo_id(repo: str) -> str:
    return f"repo:{repo}"


def file_id(repo: str, path: str) -> str:
    return f"file:{repo}/{path}"


def symbol_id(repo: str, path: str, qualname: str) -> str:
    return f"sym:{repo}/{path}#{qualname}"


def external_id(language: str, name: str) -> str:
    return f"ext:{language}:{name}"


def ref_id(file: str) -> str:
    return f"ref:{file}"


def commit_id(sha: str) -> str:
    return f"commit:{sha}"


def normalize_email(email: str) -> str:
    """The key that merges identities: trimmed, lower-cased, without surrounding <>."""
    return email.strip().strip("<>").strip().lower()


def person_id(email: str) -> str:
    return f"person:{normalize_email(email)}"


def agent_id(name: str) -> str:
    return f"agent:{name}"


def session_id(session: str) -> str:
    return f"session:{session}"


def entry_id(uuid: str) -> str:
    return f"entry:{uuid}"


def community_id(repo: str, scope: str, level: int, number: int) -> str:
    """``scope`` is ``file`` or ``symbol``; ``number`` is stable across re-runs."""
    return f"community:{repo}/{scope}/{level}/{number}"
