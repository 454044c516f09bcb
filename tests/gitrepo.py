"""Real git repositories for tests, built with the git command line (as users make them)."""

from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path

__all__ = ["GitRepo"]

#: a fixed epoch so commit times (and so valid_from/valid_to) are exact in assertions
BASE_TIME = 1_700_000_000  # 2023-11-14T22:13:20Z
#: The identity of every git command that writes an object (merge, tag, rebase, ...), so no
#: test depends on the user's global or system git configuration (a fresh machine or CI
#: runner has none). ``commit`` overrides it per call with the author it is given.
IDENTITY = {"GIT_AUTHOR_NAME": "Test Runner", "GIT_AUTHOR_EMAIL": "runner@example.org",
            "GIT_COMMITTER_NAME": "Test Runner", "GIT_COMMITTER_EMAIL": "runner@example.org"}


class GitRepo:
    """A working tree with a ``.git`` directory; commits get deterministic times."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tick = 0
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "commit.gpgsign", "false")

    def git(self, *args: str, env: dict[str, str] | None = None) -> str:
        result = subprocess.run(["git", *args], cwd=self.root, capture_output=True, text=True,
                                env={**os.environ, **IDENTITY, **(env or {})},
                                check=False)
        if result.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {result.stderr}")
        return result.stdout.strip()

    def write(self, files: dict[str, str | bytes]) -> None:
        for rel, content in files.items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")

    def remove(self, *paths: str) -> None:
        self.git("rm", "-q", *paths)

    def move(self, old: str, new: str) -> None:
        (self.root / new).parent.mkdir(parents=True, exist_ok=True)
        self.git("mv", old, new)

    def commit(self, message: str, files: dict[str, str | bytes] | None = None, *,
               author: str = "Ann Author <ann@example.org>",
               committer: str | None = None, extra: tuple[str, ...] = ()) -> str:
        """Write ``files``, stage everything, commit; returns the new sha. Each commit is
        one hour after the previous one."""
        if files:
            self.write(files)
        self.git("add", "-A")
        self.tick += 1
        when = f"{BASE_TIME + 3600 * self.tick} +0000"
        name, email = author.rsplit(" <", 1)
        c_name, c_email = (committer or author).rsplit(" <", 1)
        env = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email.rstrip(">"),
               "GIT_COMMITTER_NAME": c_name, "GIT_COMMITTER_EMAIL": c_email.rstrip(">"),
               "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
        text = [] if "-F" in extra else ["-m", message]
        self.git("commit", "-q", "--allow-empty", *text, *extra, env=env)
        return self.git("rev-parse", "HEAD")

    def raw_commit(self, message: bytes, files: dict[str, str | bytes] | None = None) -> str:
        """Commit with a message of exactly these bytes (git's porcelain would re-encode
        invalid UTF-8), written as a raw object like old or foreign tools did."""
        if files:
            self.write(files)
        self.git("add", "-A")
        tree = self.git("write-tree")
        parent = self.git("rev-parse", "HEAD")
        self.tick += 1
        who = f"Ann Author <ann@example.org> {BASE_TIME + 3600 * self.tick} +0000"
        body = (f"tree {tree}\nparent {parent}\nauthor {who}\ncommitter {who}\n\n"
                ).encode() + message
        sha = subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--stdin"],
                             cwd=self.root, input=body, capture_output=True, check=True
                             ).stdout.decode().strip()
        self.git("update-ref", "HEAD", sha)
        return sha

    def time_of(self, tick: int) -> int:
        return BASE_TIME + 3600 * tick
