"""The schema-driven GraphQL fuzzer (tests/api/graphql_fuzz.py) on a bounded sample: valid and
invalid operations, generated from the committed schema, sent to a real ``vgdb serve``
process over a small real graph; ``benchmarks/graphql_fuzz.py`` runs >= 10,000."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from hypothesis import HealthCheck, Phase, given, settings

from graphdb import Store
from graphdb.tokens import TokenStore
from ingest.pipeline import IngestOptions, ingest_repository
from tests.api.graphql_fuzz import Tally, any_operation, reached_resolvers, send, vgdb_serve
from tests.api.test_graphql import FILES
from tests.helpers import VGDB, write_tree

TIMEOUT = 2.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[tuple[str, httpx.Client, str]]:
    """A writable server; the write token lets every other operation's mutations run."""
    base = tmp_path_factory.mktemp("fuzz")
    write_tree(base / "src", FILES)
    with Store.open(base / "db") as store:
        ingest_repository(store, base / "src", options=IngestOptions(name="r"))
    token = TokenStore(base / "db").create("fuzz", scope="write")[1]
    with vgdb_serve(base / "db", timeout=TIMEOUT, vgdb=VGDB,
                    extra=("--anonymous", "--writable")) as url, \
            httpx.Client(timeout=30) as client:
        yield url, client, token


TALLY = Tally(timeout=TIMEOUT)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck),
          phases=[Phase.generate], database=None)
@given(operation=any_operation())
def test_generated_operations_never_fail_inside_overrun_or_overflow(server,
                                                                    operation: str) -> None:
    url, client, token = server
    before = len(TALLY.violations)
    send(client, url, operation, TALLY, token=token if len(TALLY.latencies) % 2 else None)
    assert TALLY.violations[before:] == [], TALLY.violations[before:][0][:4000]


def test_the_sample_reached_the_server(server) -> None:
    """The sample above ran against the server and met every kind of answer."""
    assert sum(TALLY.outcomes.values()) >= 100, TALLY.outcomes
    # resolvers ran (their own errors), validation refused, auth refused the mutations
    assert any("QUERY_ERROR" in k for k in TALLY.outcomes), TALLY.outcomes
    assert reached_resolvers(TALLY) >= 10, TALLY.outcomes
    assert TALLY.outcomes["401 UNAUTHENTICATED"] > 0
    assert any("BAD_REQUEST" in k for k in TALLY.outcomes), TALLY.outcomes
    assert TALLY.violations == []


def test_mutations_without_a_token_are_401(server) -> None:
    url, client, _ = server
    tally = Tally(timeout=TIMEOUT)
    send(client, url, 'mutation { startSession(title: "x") { session } }', tally)
    assert dict(tally.outcomes) == {"401 UNAUTHENTICATED": 1}
