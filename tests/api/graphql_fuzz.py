"""A schema-driven GraphQL fuzzer (hypothesis-graphql) against a real ``vgdb serve`` process:
shared by the test suite (a bounded sample) and ``benchmarks/graphql_fuzz.py`` (>= 10,000).

Each generated operation (valid ones, and invalid ones from the NEGATIVE mode) is POSTed;
the invariants: never an internal error (HTTP 500 or a masked ``INTERNAL``), never past
the deadline by more than 20% plus a margin, never an answer past the size limit.
"""

from __future__ import annotations

import gc
import signal
import socket
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from graphql import build_schema
from hypothesis import strategies as st
from hypothesis_graphql import Mode, from_schema, nodes

from api.graphql.context import Settings

SDL = (Path(__file__).resolve().parents[2] / "api" / "schema.graphql").read_text("utf-8")
SCHEMA = build_schema(SDL)
LIMITS = Settings()
MARGIN = 0.5  # seconds: the client's own overhead on a loaded 2-core machine
VALID_TIMES = ["2026-11-02T09:04:10Z", "2026-11-02T10:04:10+01:00", "2026-11-02T09:04:10",
               "0001-01-01T00:00:00Z"]
JSON_TEXTS = st.sampled_from(['{"a": 1}', "[]", "null"]).map(nodes.String)
#: valid operations carry valid times, so that most of them reach the resolvers (a time
#: that does not parse is refused before any work); invalid ones may carry any text
CUSTOM = {Mode.POSITIVE: {"DateTime": st.sampled_from(VALID_TIMES).map(nodes.String),
                          "JSON": JSON_TEXTS},
          Mode.NEGATIVE: {"DateTime": st.sampled_from([*VALID_TIMES, "not a time"])
                          .map(nodes.String), "JSON": JSON_TEXTS}}


def operations(mode: Mode = Mode.POSITIVE) -> st.SearchStrategy[str]:
    """Queries and mutations of the committed schema (api/schema.graphql)."""
    return from_schema(SCHEMA, custom_scalars=CUSTOM[mode], mode=mode, allow_x00=False)


def any_operation() -> st.SearchStrategy[str]:
    return st.one_of(operations(Mode.POSITIVE), operations(Mode.NEGATIVE))


@dataclass
class Tally:
    """Outcomes of a run, and the invariants' violations."""

    timeout: float
    outcomes: Counter = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)
    max_overrun: float = 0.0  # seconds past the deadline, worst request
    max_bytes: int = 0
    latencies: list[float] = field(default_factory=list)  # seconds, every answered request

    def check(self, operation: str, status: int, body: bytes, elapsed: float) -> None:
        self.latencies.append(elapsed)
        self.max_overrun = max(self.max_overrun, elapsed - self.timeout)
        self.max_bytes = max(self.max_bytes, len(body))
        codes = _codes(body)
        self.outcomes[f"{status} {'+'.join(sorted(set(codes))) or 'ok'}"] += 1
        if status >= 500 or "INTERNAL" in codes:
            self.violations.append(f"internal error ({status}) for {operation!r}: "
                                   f"{body[:300]!r}")
        if elapsed > self.timeout * 1.2 + MARGIN:
            self.violations.append(f"{elapsed:.2f} s (deadline {self.timeout} s) for "
                                   f"{operation!r}")
        if len(body) > LIMITS.max_response:
            self.violations.append(f"answer of {len(body):,} bytes for {operation!r}")


def _codes(body: bytes) -> list[str]:
    import json

    try:
        data = json.loads(body)
    except ValueError:
        return ["NOT_JSON"]
    errors = data.get("errors") if isinstance(data, dict) else None
    return [str((e.get("extensions") or {}).get("code")) for e in errors or []
            if isinstance(e, dict)]


def send(client: httpx.Client, url: str, operation: str, tally: Tally,
         token: str | None = None) -> None:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    # The client's own garbage collector stays out of the timed exchange: hypothesis's memory
    # grows through a long run (2.5M objects after 4,000 operations) and a full collection
    # then pauses this process for seconds (measured: 0.2 s growing to 1.8 s by then), which
    # was counted as the server's latency (RESULTS.md, "GraphQL fuzzer ... client pauses").
    collecting = gc.isenabled()
    gc.disable()
    started = time.monotonic()
    try:
        response = client.post(f"{url}/graphql", json={"query": operation}, headers=headers,
                               timeout=tally.timeout * 1.2 + MARGIN + 5)
    except httpx.TimeoutException:
        tally.outcomes["no answer"] += 1
        tally.violations.append(f"no answer in {time.monotonic() - started:.1f} s for "
                                f"{operation!r}")
        return
    finally:
        elapsed = time.monotonic() - started
        if collecting:
            gc.enable()
    tally.check(operation, response.status_code, response.content, elapsed)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def vgdb_serve(db: Path, *, timeout: float, vgdb: list[str], extra: tuple[str, ...] = (),
               log_path: Path | None = None) -> Iterator[str]:
    """A real ``vgdb serve`` process on a free loopback port; its URL. ``log_path``: keep
    its log there (else a temporary file)."""
    port = free_port()
    # its log (a JSON line a request) goes to a file: an unread pipe fills and blocks it
    log = (tempfile.TemporaryFile() if log_path is None  # noqa: SIM115 (closed below)
           else log_path.open("w+b"))
    process = subprocess.Popen([*vgdb, "serve", "--db", str(db), "--port", str(port),
                                "--timeout", str(timeout), *extra],
                               stdout=subprocess.DEVNULL, stderr=log)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                log.seek(0)
                raise AssertionError(f"vgdb serve ended: {log.read().decode()[-2000:]}")
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "vgdb serve did not start"
            time.sleep(0.1)
        yield url
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def summary(tally: Tally, count: int, seconds: float) -> dict[str, Any]:
    """The run's figures: the worst overrun in seconds and in % of the deadline (negative:
    every request ended before it), latency percentiles in milliseconds."""
    import statistics

    cuts = statistics.quantiles(tally.latencies, n=100) if len(tally.latencies) > 1 else [0.0] * 99
    return {"operations": count, "seconds": round(seconds, 1),
            "internal_errors": sum("internal error" in v for v in tally.violations),
            "violations": len(tally.violations),
            "max_overrun_s": round(tally.max_overrun, 3),
            "max_overrun_pct": round(100 * tally.max_overrun / tally.timeout, 1),
            "latency_ms": {"p50": round(cuts[49] * 1000, 1), "p95": round(cuts[94] * 1000, 1),
                           "max": round(max(tally.latencies, default=0.0) * 1000, 1)},
            "max_bytes": tally.max_bytes, "reached_resolvers": reached_resolvers(tally),
            "outcomes": dict(tally.outcomes.most_common())}


#: answers given before any resolver ran: auth, validation and the cost limit refuse there
_REFUSED_EARLY = ("401", "403", "413", "BAD_REQUEST", "TOO_EXPENSIVE", "UNAUTHENTICATED")


def reached_resolvers(tally: Tally) -> int:
    """Answers that ran resolvers: data, or only the resolvers' own errors (NOT_FOUND,
    QUERY_ERROR, FORBIDDEN for a scope, CONFLICT, DEADLINE_EXCEEDED, ...)."""
    return sum(n for outcome, n in tally.outcomes.items()
               if not any(code in outcome for code in _REFUSED_EARLY))


def server_times(log_path: Path, timeout: float) -> dict[str, Any]:
    """The server's own time per GraphQL request (its access log's ``ms``: from the request's
    arrival to the answer's last byte, serialisation included), which a starved client on a
    loaded machine does not inflate."""
    import json
    import statistics

    ms = []
    for line in log_path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("path") == "/graphql" and "ms" in entry:
            ms.append(float(entry["ms"]))
    cuts = statistics.quantiles(ms, n=100) if len(ms) > 1 else [0.0] * 99
    worst = max(ms, default=0.0)
    return {"requests": len(ms), "p50_ms": round(cuts[49], 1), "p95_ms": round(cuts[94], 1),
            "max_ms": round(worst, 1),
            "max_overrun_pct": round(100 * (worst / 1000 - timeout) / timeout, 1),
            "over_20_pct": sum(m / 1000 > timeout * 1.2 for m in ms)}
