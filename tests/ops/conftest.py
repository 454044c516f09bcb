"""Fixtures of the operations tests: two real git repositories (tests/ops/repos.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepo import GitRepo
from tests.ops.repos import ALIB, BAPP


@pytest.fixture
def alib(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "alib")
    repo.commit("alib: first", ALIB, author="Lib Author <lib@example.org>")
    return repo


@pytest.fixture
def bapp(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "bapp")
    repo.commit("bapp: first", BAPP, author="App Author <app@example.org>")
    return repo
