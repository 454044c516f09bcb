"""The ``papers`` root list over the real academic dataset: title words, kind, newest first,
and pages that continue where the last one ended."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from api.graphql import Context, Settings, build_schema
from graphdb import Store
from ingest.academic.load import ingest_papers

DATASET = Path(__file__).resolve().parents[2] / "datasets" / "academic" / "papers.jsonl"
PAGE = """query($after: String) { papers(title: "COMMUNITY", first: 3, after: $after) {
  totalCount pageInfo { hasNextPage endCursor } edges { node { title year kind } } } }"""


def _execute(store: Store, query: str, **variables: Any) -> dict:
    result = asyncio.run(build_schema().execute(
        query, variable_values=variables,
        context_value=Context(store, Settings(allow_anonymous=True))))
    assert result.errors is None
    return result.data


def test_papers_by_title_and_kind_newest_first(tmp_path: Path) -> None:
    with Store.open(tmp_path / "db") as store:
        ingest_papers(store, [DATASET])
        first = _execute(store, PAGE)["papers"]
        assert first["totalCount"] == 6 and first["pageInfo"]["hasNextPage"]
        assert [(e["node"]["year"], e["node"]["title"]) for e in first["edges"]] == [
            (2011, "Narrow scope for resolution-limit-free community detection"),
            (2008, "Benchmark graphs for testing community detection algorithms"),
            (2007, "Resolution limit in community detection")]
        second = _execute(store, PAGE, after=first["pageInfo"]["endCursor"])["papers"]
        assert not second["pageInfo"]["hasNextPage"]
        assert [e["node"]["year"] for e in second["edges"]] == [2006, 2005, 2004]
        assert {e["node"]["kind"] for e in first["edges"] + second["edges"]} == {"paper"}
        rfcs = _execute(store, '{ papers(kind: "rfc", first: 2) { totalCount '
                               'edges { node { title year } } } }')["papers"]
        assert rfcs["totalCount"] == 19
        assert [(e["node"]["year"], e["node"]["title"]) for e in rfcs["edges"]] == [
            (2022, "HTTP Semantics"),
            (2017, "The JavaScript Object Notation (JSON) Data Interchange Format")]
