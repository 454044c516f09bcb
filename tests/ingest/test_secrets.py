"""Secrets stay out of the graph: the scanner's redactions, and a planted AWS key and password
in a session log and in a commit message of a real git repository, searched for afterwards
through the graph, the keyword index and the vectors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphdb import Store
from graphdb.embed import default_embedder, entry_text
from graphdb.keyword import bm25
from graphdb.vectors import nearest, stored_vectors
from ingest.academic import parse_bibliography
from ingest.history.gitlog import read_history
from ingest.pipeline import IngestOptions, ingest_repository
from ingest.secrets import redact_text
from ingest.sessions import load_sessions
from tests.gitrepo import GitRepo
from tests.ingest.test_sessions_fixtures import ev, write_log

AWS_KEY = "AKIAZ7QW3RTY5UIO2PLK"
PASSWORD = "Tr0ub4dor&3horse"
PLANTED = f"Deploy with AWS_ACCESS_KEY_ID={AWS_KEY} and DB_PASSWORD={PASSWORD} for now."
REDACTED = ("Deploy with AWS_ACCESS_KEY_ID=[REDACTED:AWSAccessKey] and "
            "DB_PASSWORD=[REDACTED:KeywordAssignment] for now.")


@pytest.mark.parametrize(("text", "expected", "detectors"), [
    (PLANTED, REDACTED, ["AWSAccessKey", "KeywordAssignment"]),
    ("password = 'hunter2hunter2'", "password = '[REDACTED:KeywordAssignment]'",
     ["KeywordAssignment"]),
    ('export API_KEY="s3cr3tValue99"', 'export API_KEY="[REDACTED:KeywordAssignment]"',
     ["KeywordAssignment"]),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "aws_secret_access_key = [REDACTED:AWSSecretKey]", ["AWSSecretKey"]),
    ("push with ghp_abcdefghijklmnopqrstuvwxyz0123456789 today",
     "push with [REDACTED:GitHubToken] today", ["GitHubToken"]),
    ("connect postgres://app:pa55word@db.internal/app",
     "connect postgres://app:[REDACTED:BasicAuthCredentials]@db.internal/app",
     ["BasicAuthCredentials"]),
    ("key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\nok",
     "key:\n[REDACTED:PrivateKey]\nok", ["PrivateKey"]),
])
def test_secrets_are_redacted_with_a_note_each(text: str, expected: str,
                                               detectors: list[str]) -> None:
    out, notes = redact_text(text, where="here")
    assert out == expected
    assert [n.detector for n in notes] == detectors
    assert all(n.where == "here" for n in notes)
    assert redact_text(out, where="again") == (out, [])  # redacting twice changes nothing


@pytest.mark.parametrize("text", [
    "Fix token handling in the parser: tokens are now lazy",
    "password: ********", "use password=os.environ['DB_PASSWORD']",
    "secret_key = settings.SECRET_KEY", "normal text about a JSON decoder",
    "the token: was rotated",
])
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact_text(text, where="here") == (text, [])


def test_paper_free_text_is_redacted() -> None:
    bib = (b"@article{k, title={Leaked password=hunter2hunter2 in titles}, year={2020},\n"
           b" abstract={We found AKIAZ7QW3RTY5UIO2PLK in a repository.}}\n")
    parsed = parse_bibliography(bib, path="refs.bib")
    [record] = parsed.records
    assert record.title == "Leaked password=[REDACTED:KeywordAssignment] in titles"
    assert record.abstract == "We found [REDACTED:AWSAccessKey] in a repository."
    assert [i.message for i in parsed.issues if i.severity == "warning"] == [
        f"{record.source} title: redacted a secret (KeywordAssignment)",
        f"{record.source} abstract: redacted a secret (AWSAccessKey)"]


def test_planted_secrets_never_reach_graph_keyword_index_or_vectors(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "proj")
    sha = repo.commit(f"Add the deploy script\n\n{PLANTED}\n",
                      {"deploy.py": "def deploy():\n    return 1\n"})
    log = read_history(repo.root)
    assert log.notes == [f"commit {sha[:12]} message: redacted a secret (AWSAccessKey)",
                         f"commit {sha[:12]} message: redacted a secret (KeywordAssignment)"]
    session = write_log(tmp_path / "s.jsonl", [
        ev("session_start", "09:00:00", title="Deploying", agent="a", repo="proj"),
        ev("decision", "09:01:00", id="d1", title=f"Use the key {AWS_KEY} for deploys",
           content=PLANTED)])
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="proj"))
        summary = load_sessions(store, [session])
        assert [(i.line, i.code, i.message) for i in summary.issues if i.code == "redacted"] == [
            (2, "redacted", "redacted a secret (AWSAccessKey) in title"),
            (2, "redacted", "redacted a secret (AWSAccessKey) in content"),
            (2, "redacted", "redacted a secret (KeywordAssignment) in content")]
        # the graph: no string property of any node holds either secret
        [[message]] = store.cypher("MATCH (c:Commit) RETURN c.message").rows()
        assert message == f"Add the deploy script\n\n{REDACTED}\n"
        [[entry, title, content]] = store.cypher(
            "MATCH (e:Entry) RETURN e.id, e.title, e.content").rows()
        assert (title, content) == ("Use the key [REDACTED:AWSAccessKey] for deploys", REDACTED)
        for secret in (AWS_KEY, PASSWORD):
            for table in ("Commit", "Entry", "Session", "Symbol", "File"):
                rows = store.cypher(f"MATCH (n:{table}) RETURN n").rows()
                assert not [r for r in rows if secret in repr(r)], (table, secret)
            # the keyword index: neither secret is a term of any document
            for table in ("Entry", "Symbol", "Paper"):
                assert bm25(store, secret, table=table, k=5, status="any") == []
        assert bm25(store, "deploy", table="Entry", k=5)[0].id == entry  # it is indexed
        # the vectors: the entry's vector is the redacted text's, not the original's
        embed = default_embedder().embed
        stored = stored_vectors(store, [entry])[entry]
        clean = embed([entry_text(kind="decision", title=title, content=content)])[0]
        leaked = embed([entry_text(kind="decision", title=f"Use the key {AWS_KEY} for deploys",
                                   content=PLANTED)])[0]
        assert np.allclose(stored, clean, atol=1e-5)
        assert not np.allclose(stored, leaked, atol=1e-3)
        [hit] = nearest(store, leaked, k=1, tables=["Entry"], exact=True)
        assert hit.id == entry and hit.distance > 1e-4  # nothing stored is the leaked text
    # and no file of the database directory holds either secret's bytes
    files = [p for p in (tmp_path / "db").rglob("*") if p.is_file()]
    assert len(files) > 10
    for secret in (AWS_KEY, PASSWORD):
        assert [p for p in files if secret.encode() in p.read_bytes()] == []


def test_recorded_entries_are_redacted_too(store: Store) -> None:
    """What an agent records through the API (MCP, GraphQL: ingest.sessions.Recorder) is
    scanned as a session log line is."""
    from ingest.sessions.record import Recorder

    me = Recorder(store, session="s1", agent="claude", repo="proj")
    result = me.record_decision(f"Rotate {AWS_KEY}", PLANTED)
    assert result.warnings == (
        "redacted a secret (AWSAccessKey) in title",
        "redacted a secret (AWSAccessKey) in content",
        "redacted a secret (KeywordAssignment) in content")
    [[title, content]] = store.cypher("MATCH (e:Entry) RETURN e.title, e.content").rows()
    assert (title, content) == ("Rotate [REDACTED:AWSAccessKey]", REDACTED)
