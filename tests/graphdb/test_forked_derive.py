"""The derived steps of an ingest forked beside the communities step (graphdb.forked,
graphdb.findable.make_searchable) give exactly what the steps run one after another give."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tantivy

import graphdb.derived_steps as derived_steps
from api.steps import communities_after_ingest
from graphdb import Store
from graphdb.forked import ForkedError, start_forked
from graphdb.keyword import KEYWORD_FIELDS, bm25, differences
from graphdb.keyword_docs import open_index
from graphdb.vector_files import vector_dir
from ingest.history.pipeline import HistoryOptions
from ingest.pipeline import IngestOptions, ingest_staged
from tests.helpers import run_vgdb

QUERIES = ("parse a message header", "encode json object", "base64 decode", "charset")


def _ingest(store: Store, root: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """A cold ingest with the communities step alongside, as ``vgdb ingest`` runs it."""
    communities: dict[str, Any] = {}
    staged = ingest_staged(
        store, root, options=IngestOptions(name="lib", history=HistoryOptions(enabled=False)),
        alongside=lambda s: communities.update(communities_after_ingest(store, s.to_dict())))
    return staged.summary.to_dict(), communities


def _keyword_docs(db: Path) -> dict[str, list[tuple[str, int]]]:
    """Per table, every document's id and digest, sorted."""
    out = {}
    for table in KEYWORD_FIELDS:
        searcher = open_index(db / "keyword" / table).searcher()
        hits = searcher.search(tantivy.Query.all_query(), limit=max(searcher.num_docs, 1),
                               count=False).hits if searcher.num_docs else []
        addrs = [a for _, a in hits]
        ids = [searcher.doc(a)["id"][0] for a in addrs]
        digests = searcher.fast_field_values("digest", addrs) if addrs else []
        out[table] = sorted(zip(ids, digests, strict=True))
    return out


def _outcome(store: Store) -> dict[str, Any]:
    vdir = vector_dir(store)
    vectors = {}
    for name in vdir.manifest["tables"]:
        table = vdir.table(name, writable=False)
        vectors[name] = (table.rows.to_dicts(), np.asarray(table.vectors))
    members = store.cypher(
        "MATCH (m)-[:IN_COMMUNITY]->(c:Community) RETURN m.id AS mid, c.id AS cid, "
        "c.name AS name, c.level AS level ORDER BY mid, cid").rows()
    hits = {(q, t): [(h.id, h.score) for h in bm25(store, q, table=t, k=20)]
            for q in QUERIES for t in KEYWORD_FIELDS}
    return {"keyword": _keyword_docs(store.path), "bm25": hits, "vectors": vectors,
            "members": members}


@pytest.mark.slow
def test_forked_derived_steps_give_what_the_sequential_ones_give(
        tmp_path: Path, stdlib_copy: Callable[[str], Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    stdlib_copy("json")
    root = stdlib_copy("email")
    monkeypatch.setattr(derived_steps, "FORK_MIN", 1)  # json + email: ~1.3K symbols
    got = {}
    for label, no_fork in (("sequential", "1"), ("forked", "0")):
        monkeypatch.setenv("VGDB_NO_FORK", no_fork)
        with Store.open(tmp_path / label) as store:
            summary, communities = _ingest(store, root)
            got[label] = _outcome(store)
        assert communities["status"] == "detected"
        assert summary["search"]["keyword"]["Symbol"]["added"] > 1000
        forked = summary["search"].get("forked", {})
        assert set(forked) == ({"keyword", "embed"} if label == "forked" else set())
    seq, par = got["sequential"], got["forked"]
    assert seq["keyword"] == par["keyword"]
    assert len(seq["keyword"]["Symbol"]) > 1000
    assert seq["bm25"] == par["bm25"]
    assert any(seq["bm25"].values())
    assert seq["vectors"].keys() == par["vectors"].keys()
    for name, (rows, vectors) in seq["vectors"].items():
        assert par["vectors"][name][0] == rows
        assert np.array_equal(par["vectors"][name][1], vectors)
    assert seq["members"] == par["members"]
    assert len(seq["members"]) > 1000


def _answer(x: int) -> list[int]:
    return list(range(x))


def _fail() -> None:
    raise ValueError("no such thing")


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_forked_child_hands_back_its_result_or_fails_clearly() -> None:
    assert start_forked("t", _answer, 300_000).result() == list(range(300_000))  # > a pipe
    with pytest.raises(ForkedError, match="ValueError: no such thing"):
        start_forked("t", _fail).result()
    with pytest.raises(ForkedError, match="ended with status"):
        start_forked("t", _die).result()


def test_a_failed_child_leaves_the_step_to_this_process(
        tmp_path: Path, stdlib_copy: Callable[[str], Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A child that dies (here: every fork is a child that kills itself) costs the fork,
    never the step: the keyword index and the vectors are written in process."""
    root = stdlib_copy("json")
    monkeypatch.setattr(derived_steps, "FORK_MIN", 1)
    monkeypatch.setattr(derived_steps, "start_forked",
                        lambda name, fn, *a: start_forked(name, _die))
    monkeypatch.setenv("VGDB_NO_FORK", "0")
    with Store.open(tmp_path / "db") as store:
        summary, _ = _ingest(store, root)
        assert "forked" not in summary["search"]
        docs = summary["search"]["keyword"]["Symbol"]["docs"]
        assert docs == summary["search"]["embed"]["tables"][0]["current"] > 50
        assert "sym:lib/json/decoder.py#JSONDecoder" in \
            [h.id for h in bm25(store, "JSONDecoder", table="Symbol", k=3)]


def _compute_then_die(steps: list[Any]) -> None:
    derived_steps._compute(steps)  # the tantivy commit happens, the result never arrives
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_child_that_dies_after_its_commit_leaves_no_duplicate_document(
        tmp_path: Path, stdlib_copy: Callable[[str], Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The parent then writes the documents again, each replacing the child's copy."""
    stdlib_copy("json")
    root = stdlib_copy("email")  # past the few symbols an update compares one by one
    monkeypatch.setattr(derived_steps, "FORK_MIN", 1)
    forked: list[str] = []

    def dying(name: str, fn: Any, *args: Any) -> Any:
        forked.append(name)
        return start_forked(name, _compute_then_die, *args)

    monkeypatch.setattr(derived_steps, "start_forked", dying)
    monkeypatch.setenv("VGDB_NO_FORK", "0")
    with Store.open(tmp_path / "db") as store:
        summary, _ = _ingest(store, root)
        assert forked == ["keyword+embed"]
        docs = _keyword_docs(store.path)["Symbol"]
        ids = [i for i, _ in docs]
        assert len(ids) == len(set(ids)) == summary["search"]["keyword"]["Symbol"]["docs"] > 50
        assert differences(store) == {t: "ok" for t in KEYWORD_FIELDS}


@pytest.mark.slow
def test_an_ingest_killed_in_its_forked_keyword_step_is_caught_up_by_the_next(
        tmp_path: Path, stdlib_copy: Callable[[str], Path]) -> None:
    """``vgdb ingest`` killed after the keyword commit (its child's, then its own): the
    next run finds the tables marked not synced and brings them to the graph."""
    stdlib_copy("json")
    root = stdlib_copy("email")
    db = tmp_path / "db"
    env = {"VGDB_FORK_MIN": "1", "VGDB_NO_SERVER": "1"}
    killed = run_vgdb("ingest", str(root), "--db", str(db), "--no-history", "--json",
                      env={**env, "VGDB_FAILPOINT": "keyword-after-commit"})
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    again = run_vgdb("ingest", str(root), "--db", str(db), "--no-history", "--json", env=env)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["search"]["keyword"]["Symbol"]["docs"] > 1000
    with Store.open(db) as store:
        assert differences(store) == {t: "ok" for t in KEYWORD_FIELDS}
        ids = [i for i, _ in _keyword_docs(db)["Symbol"]]
        assert len(ids) == len(set(ids)) > 50
        assert "sym:stdlib/json/decoder.py#JSONDecoder" in \
            [h.id for h in bm25(store, "JSONDecoder", table="Symbol", k=3)]
