"""Peak memory of a process and all its descendants (the parse workers), polled from /proc.

Used by ``benchmarks/ingest.py`` around each ``vgdb ingest`` it runs.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

__all__ = ["POLL_SECONDS", "TreeRss"]

POLL_SECONDS = 0.05
_TICKS = os.sysconf("SC_CLK_TCK")

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


def _cpu_ticks(pid: int) -> int:
    """utime + stime of ``pid`` (its own threads, not its children); 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, ValueError, IndexError):
        return 0


class TreeRss:
    """Polls the summed VmRSS of a process and all its descendants every 50 ms, and their
    CPU time: each process's last value seen, summed (a process's CPU after its last sample,
    under 50 ms, is missed). ``getrusage(RUSAGE_CHILDREN)`` would miss the workers of a fork
    server that exits unwaited."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak_sum = 0  # bytes: max over samples of the sum over the tree
        self.peak_single = 0  # bytes: max VmRSS of any one process seen
        self.peak_procs = 0  # most processes alive in one sample
        self.hwm: dict[int, int] = {}  # pid -> last VmHWM seen (bytes)
        self.ticks: dict[int, int] = {}  # pid -> last utime + stime seen
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
            self.ticks[pid] = max(self.ticks.get(pid, 0), _cpu_ticks(pid))
        self.peak_sum = max(self.peak_sum, total)
        self.peak_procs = max(self.peak_procs, alive)
        self.samples += 1

    def _run(self) -> None:
        while True:
            self.sample()
            if self._stop.wait(POLL_SECONDS):
                return

    @property
    def cpu_seconds(self) -> float:
        """CPU seconds of the process tree, as sampled."""
        return sum(self.ticks.values()) / _TICKS

    @property
    def hwm_sum(self) -> int:
        """Sum of every process's high-water mark: an upper bound (peaks may not overlap)."""
        return sum(self.hwm.values())


