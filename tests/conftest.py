"""Shared fixtures: real Kuzu databases in tmp_path, real source trees written to disk."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from graphdb import Store
from tests.helpers import STDLIB, write_tree

settings.register_profile("ci", max_examples=25, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=25, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=200, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE",
                                                                        "dev"))

@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A fresh database in tmp_path, open read-write."""
    with Store.open(tmp_path / "db") as s:
        yield s


@pytest.fixture
def tree(tmp_path: Path) -> Callable[[dict[str, str | bytes]], Path]:
    """Write a source tree under tmp_path/src and return its root."""
    root = tmp_path / "src"
    root.mkdir()
    return lambda files: write_tree(root, files)


@pytest.fixture
def stdlib_copy(tmp_path: Path) -> Callable[[str], Path]:
    """Copy one real standard-library package into tmp_path (so tests may edit it)."""
    def copy(package: str) -> Path:
        dst = tmp_path / "stdlib" / package
        shutil.copytree(STDLIB / package, dst, ignore=shutil.ignore_patterns("__pycache__"))
        return dst.parent
    return copy
