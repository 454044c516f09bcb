"""A real `vgdb serve` for the operations tests: a free port, and waiting until it answers."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.helpers import ROOT, VGDB


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, *, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{url} did not answer within {seconds} s")


@contextmanager
def serving(db: Path, *args: str) -> Iterator[str]:
    """A real `vgdb serve --writable` on DB (a subprocess) until the block ends; its URL."""
    port = free_port()
    server = subprocess.Popen(
        [*VGDB, "serve", "--db", str(db), "--writable", "--port", str(port), *args], cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url)
        yield url
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
