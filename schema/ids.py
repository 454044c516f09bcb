"""Deterministic identifiers (DESIGN §2), so re-ingest is idempotent and edges survive it."""

from __future__ import annotations

__all__ = [
    "MODULE_QUALNAME", "external_id", "file_id", "ref_id", "repo_id", "symbol_id",
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
