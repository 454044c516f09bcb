"""Peak memory of a process and all its descendants (the parse workers), polled from /proc.

Used by ``benchmarks/ingest.py`` around each ``vgdb ingest`` it runs.
"""

from __future__ import annotations

import threading
from pathlib import Path

__all__ = ["POLL_SECONDS", "TreeRss"]

POLL_SECONDS = 0.05


def _children(pid: int) -> list[int]:
    """Direct children of ``pid`` (via /proc/<pid>/task/*/children, else a /proc scan)."""
    kids: list[int] = []
    task_dir = Path(f"/proc/{pid}/task")
    try:
        tasks = list(task_dir.iterdir())
    except OSError:
        return kids
    found_file = False
    for task in tasks:
        try:
            text = (task / "children").read_text()
        except OSError:
            continue
        found_file = True
        kids.extend(int(x) for x in text.split())
    if found_file:
        return kids
    for entry in Path("/proc").iterdir():  # kernels without CONFIG_PROC_CHILDREN
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid:
            kids.append(int(entry.name))
    return kids


def _status_kb(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of ``pid`` in kB; (0, 0) when it is gone."""
    rss = hwm = 0
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
    except (OSError, ValueError):
        pass
    return rss, hwm


class TreeRss:
    """Polls the summed VmRSS of a process and all its descendants every 50 ms."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak_sum = 0  # bytes: max over samples of the sum over the tree
        self.peak_single = 0  # bytes: max VmRSS of any one process seen
        self.peak_procs = 0  # most processes alive in one sample
        self.hwm: dict[int, int] = {}  # pid -> last VmHWM seen (bytes)
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> TreeRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def sample(self) -> None:
        pids, stack, seen = [], [self.pid], set()
        while stack:
            pid = stack.pop()
            if pid in seen:
                continue
            seen.add(pid)
            pids.append(pid)
            stack.extend(_children(pid))
        total = alive = 0
        for pid in pids:
            rss, hwm = _status_kb(pid)
            if rss or hwm:
                alive += 1
            total += rss * 1024
            self.peak_single = max(self.peak_single, rss * 1024)
            if hwm:
                self.hwm[pid] = max(self.hwm.get(pid, 0), hwm * 1024)
        self.peak_sum = max(self.peak_sum, total)
        self.peak_procs = max(self.peak_procs, alive)
        self.samples += 1

    def _run(self) -> None:
        while True:
            self.sample()
            if self._stop.wait(POLL_SECONDS):
                return

    @property
    def hwm_sum(self) -> int:
        """Sum of every process's high-water mark: an upper bound (peaks may not overlap)."""
        return sum(self.hwm.values())


