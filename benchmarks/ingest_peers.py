"""The peers' full index of the benchmark's input, timed in the same run as ``vgdb ingest``.

Each peer indexes its own copy of the same tree (made before the clock starts, without the
directories vgdb skips), cold, as one process: wall time from spawn to exit, and the CPU
seconds and peak memory of its process tree (from /proc). A run counts only when it exited 0
and says what it indexed (code-review-graph's ``Full build: N files, ...`` line, GitNexus's
``.gitnexus/meta.json`` stats); otherwise its time is not reported.

The peers are installed by ``benchmarks/peers.py`` into ``benchmarks/.peers/`` (never a
dependency of vgdb); one not installed is named with the command that installs it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.peers import PEERS, Peer
from benchmarks.tree_rss import TreeRss

__all__ = ["PeerRun", "copy_for_peer", "run_peer", "select"]

CRG_BUILT = re.compile(r"Full build: (\d+) files, (\d+) nodes, (\d+) edges")
TIMEOUT_S = 1800


@dataclass
class PeerRun:
    key: str
    title: str
    version: str
    wall: float = 0.0
    cpu: float = 0.0  # CPU seconds of its process tree (sampled from /proc)
    peak_rss: int = 0  # bytes, Σ VmRSS of its process tree at the peak
    rc: int = 0
    ok: bool = False
    counts: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    error: str = ""

    def brief(self) -> dict[str, Any]:
        return {"peer": self.title, "version": self.version, "ok": self.ok, "rc": self.rc,
                "wall_s": round(self.wall, 3) if self.ok else None,
                "cpu_s": round(self.cpu, 3) if self.ok else None,
                "peak_rss_bytes": self.peak_rss if self.ok else None,
                "counts": self.counts, "notes": self.notes, "error": self.error}


def select(names: Iterable[str]) -> tuple[list[Peer], list[str]]:
    """The peers asked for that are installed, and a line for each that is not."""
    found, missing = [], []
    for key in names:
        peer = PEERS[key]
        if peer.installed:
            found.append(peer)
        else:
            missing.append(f"{peer.title} {peer.version} is not installed ({peer.executable} "
                           f"missing): install it with `{peer.install_hint()}`")
    return found, missing


def copy_for_peer(source: Path, dest: Path, drop_dirs: Iterable[str]) -> Path:
    """A copy of ``source`` without ``__pycache__``/``site-packages`` and the directories in
    ``drop_dirs``: a plain name (``tests/``) at any depth, a path (``contrib/zeromq/``) from
    the root."""
    drop = {d.strip("/") for d in drop_dirs} | {"__pycache__", "site-packages"}
    names = {d for d in drop if "/" not in d}
    paths = {d for d in drop if "/" in d}

    def ignore(directory: str, entries: list[str]) -> set[str]:
        rel = Path(directory).relative_to(source).as_posix()
        prefix = "" if rel == "." else rel + "/"
        return {n for n in entries if n in names or prefix + n in paths}

    shutil.copytree(source, dest, symlinks=True, ignore=ignore)
    return dest


def _timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, TreeRss, int, str]:
    """Spawn to exit, with the process tree's memory and CPU polled from /proc."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, \
            subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd,
                             stdin=subprocess.DEVNULL) as proc, TreeRss(proc.pid) as rss:
        try:
            rc = proc.wait(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = proc.wait()
        wall = time.perf_counter() - start
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    if rc == -9:
        text += f"\n(killed after {TIMEOUT_S} s)"
    return wall, rss, rc, text


def run_peer(peer: Peer, tree: Path, scratch: Path) -> PeerRun:
    """One cold full index of ``tree`` by ``peer``; ``scratch`` is its private HOME."""
    run = PeerRun(peer.key, peer.title, peer.version)
    scratch.mkdir(parents=True, exist_ok=True)
    # a private HOME: GitNexus registers every index in ~/.gitnexus, and neither peer
    # may read or leave anything in the user's home
    env = {**os.environ, "HOME": str(scratch), "NO_COLOR": "1"}
    if peer.key == "crg":
        cmd = [str(peer.executable), "build", "--repo", str(tree)]
    else:
        # --skip-git: the tree is no git repository (as vgdb's input);
        # --index-only: write no AGENTS.md/CLAUDE.md/skills into the tree
        cmd = [str(peer.executable), "analyze", str(tree), "--skip-git", "--index-only"]
    run.wall, rss, run.rc, out = _timed(cmd, env, tree)
    run.cpu, run.peak_rss = rss.cpu_seconds, rss.peak_sum
    if run.rc != 0:
        run.error = f"`{' '.join(cmd)}` exited {run.rc}: {out.strip()[-1500:]}"
        return run
    if peer.key == "crg":
        built = CRG_BUILT.search(out)
        if built:
            run.counts = dict(zip(("files", "nodes", "edges"), map(int, built.groups()),
                                  strict=True))
    else:
        run.counts, run.notes = _gitnexus_result(tree, out)
    run.ok = run.counts.get("files", 0) > 0 and run.counts.get("nodes", 0) > 0
    if not run.ok:
        run.error = f"exited 0 but reported no indexed files: {out.strip()[-1500:]}"
    return run


def _gitnexus_result(tree: Path, out: str) -> tuple[dict[str, int], list[str]]:
    notes = []
    if "FTS extension unavailable" in out:
        notes.append("no full-text indexes: GitNexus downloads LadybugDB's FTS extension at "
                     "run time (extension.ladybugdb.com), unreachable here")
    try:
        stats = json.loads((tree / ".gitnexus" / "meta.json").read_text())["stats"]
    except (OSError, ValueError, KeyError):
        return {}, notes
    return {k: int(v) for k, v in stats.items() if isinstance(v, int)}, notes
