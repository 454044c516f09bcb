"""Served edits spaced in time: `vgdb ingest` from a shell, forwarded to `vgdb serve --writable`,
one function body edited per step with a pause between steps, as someone saving a file.

`benchmarks/update.py --serve` times edits back to back with code-review-graph's run in
between; a served ingest answers once the code is committed and derives the search indexes
and communities right after (api/serve_derive.py), so whether the next edit waits for that
work depends on the spacing. This prints every step's wall time, the phases the server
reports, the load, and the median and the slowest, for a given pause.

    .venv/bin/python benchmarks/served_spaced.py TREE DB --name stdlib --rel json/encoder.py \
        --gap 1.0 --steps 12 -- --exclude test/ --exclude tests/ --exclude idle_test/

TREE and DB are an ingested tree and its database (e.g. `benchmarks/update.py --work DIR`'s
`stdlib-vgdb` and `stdlib-db`); the edited file is restored at the end. The first step is
the server's warm-up and is left out of the median.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

VGDB = str(Path(sys.executable).with_name("vgdb"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(port: int, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit(f"vgdb serve did not listen on {port} within {seconds} s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 usage="%(prog)s TREE DB --name N --rel R [...] [-- INGEST_ARGS]")
    ap.add_argument("tree", type=Path)
    ap.add_argument("db", type=Path)
    ap.add_argument("--name", required=True, help="the repository's name in the graph")
    ap.add_argument("--rel", required=True, help="the file edited, relative to TREE")
    ap.add_argument("--gap", type=float, default=1.0, help="seconds between steps")
    ap.add_argument("--steps", type=int, default=12)
    argv = sys.argv[1:] if argv is None else argv
    cut = argv.index("--") if "--" in argv else len(argv)
    args = ap.parse_args(argv[:cut])
    args.ingest_args = argv[cut + 1:]  # after --: passed to vgdb ingest

    port = _free_port()
    server = subprocess.Popen([VGDB, "serve", "--db", str(args.db), "--writable", "--port",
                               str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    edited = args.tree / args.rel
    original = edited.read_text(encoding="utf-8")
    walls: list[float] = []
    try:
        _wait_healthy(port)
        for step in range(args.steps):
            # one function body changes: a statement before the file's first indented return
            edited.write_text(original.replace(
                "        return ", f"        _step = {step}\n        return ", 1),
                encoding="utf-8")
            t = time.perf_counter()
            done = subprocess.run([VGDB, "ingest", str(args.tree), "--db", str(args.db),
                                   "--name", args.name, "--json", *args.ingest_args],
                                  capture_output=True, text=True, check=False)
            wall = time.perf_counter() - t
            if done.returncode != 0:
                raise SystemExit(f"step {step}: vgdb ingest exited {done.returncode}: "
                                 f"{done.stderr[-500:]}")
            phases = json.loads(done.stdout).get("seconds", {})
            print(f"step {step:2d}  {wall:6.3f} s  phases {phases}  "
                  f"load {os.getloadavg()[0]:.2f}", flush=True)
            if step:
                walls.append(wall)
            time.sleep(args.gap)
    finally:
        edited.write_text(original, encoding="utf-8")
        server.send_signal(signal.SIGINT)
        server.wait(timeout=60)
    walls.sort()
    print(f"gap {args.gap} s, {len(walls)} warm steps: median {walls[len(walls) // 2]:.3f} s, "
          f"slowest {walls[-1]:.3f} s, all {[round(w, 3) for w in walls]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
