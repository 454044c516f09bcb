"""What keeping secrets out costs at ingest (ingest/secrets.py), next to what the same ingest
step costs without it, measured in the same run and interleaved.

- session logs: ``parse_lines`` (JSON decode + validation, which now redacts every string) vs
  ``json.loads`` + ``event_from_dict`` of the same lines (the step without the scanner);
- commit messages: ``redact_text`` over every message of a real history vs reading those
  messages with pygit2 (the history reader's own cost for them).

    .venv/bin/python benchmarks/secrets_scan.py [--repo PATH] [--copies 200] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import pygit2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ingest.secrets import find_secrets, redact_text
from ingest.sessions.format import event_from_dict, parse_lines

ROOT = Path(__file__).resolve().parents[1]


def _messages(repo_path: Path) -> list[str]:
    repo = pygit2.Repository(str(repo_path))  # a work tree or a bare git directory
    return [c.message for c in repo.walk(repo.head.target)]


def _read_messages(repo_path: Path) -> float:
    started = time.perf_counter()
    _messages(repo_path)
    return time.perf_counter() - started


def _scan_messages(messages: list[str]) -> float:
    started = time.perf_counter()
    for m in messages:
        redact_text(m, where="bench")
    return time.perf_counter() - started


def _parse_plain(lines: list[str]) -> float:
    started = time.perf_counter()
    for number, line in enumerate(lines, 1):
        event_from_dict(json.loads(line), file="bench", line=number)
    return time.perf_counter() - started


def _parse_scanned(lines: list[str]) -> float:
    started = time.perf_counter()
    parse_lines(lines, file="bench")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", type=Path, default=ROOT, help="a git repository")
    parser.add_argument("--copies", type=int, default=200, help="copies of the example log")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    lines = (ROOT / "datasets/sessions/example-session.jsonl").read_text().splitlines()
    lines = [line for line in lines if line.strip()] * args.copies
    messages = _messages(args.repo)
    find_secrets("warm up password=abcdefgh1")  # detect-secrets' plugins load once
    mb_lines = sum(len(x) for x in lines) / 1e6
    mb_messages = sum(len(m) for m in messages) / 1e6
    print(f"load average {os.getloadavg()}")
    print(f"session lines: {len(lines)} ({mb_lines:.2f} MB); commit messages: {len(messages)} "
          f"({mb_messages:.2f} MB) from {args.repo}")
    runs: dict[str, list[float]] = {k: [] for k in ("plain", "scanned", "read", "scan")}
    for _ in range(args.rounds):  # interleaved
        runs["plain"].append(_parse_plain(lines))
        runs["scanned"].append(_parse_scanned(lines))
        runs["read"].append(_read_messages(args.repo))
        runs["scan"].append(_scan_messages(messages))
    med = {k: statistics.median(v) for k, v in runs.items()}
    print(f"session log: decode+validate {med['plain']:.3f} s, with the scanner "
          f"{med['scanned']:.3f} s ({med['scanned'] / med['plain']:.2f}x; "
          f"{len(lines) / med['scanned']:,.0f} lines/s, {mb_lines / med['scanned']:.2f} MB/s)")
    print(f"commit messages: pygit2 read {med['read']:.3f} s, scan {med['scan']:.3f} s "
          f"({med['scan'] / med['read']:.2f}x the read; "
          f"{len(messages) / med['scan']:,.0f} messages/s, {mb_messages / med['scan']:.2f} MB/s)")
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
