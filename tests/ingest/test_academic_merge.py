"""Identity and merge across sources, stubs and their upgrade, supersession, idempotence —
on a real Kuzu database."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import polars as pl

from graphdb import Store
from ingest.academic import PaperRecord, ingest_papers
from ingest.academic.identity import title_key
from ingest.academic.load import apply_records
from ingest.academic.merge import merge_records

LOUVAIN = "10.1088/1742-5468/2008/10/p10008"
LEIDEN = "10.1038/s41598-019-41695-z"

BIB = r"""@article{traag2019,
  title={From {L}ouvain to {L}eiden: guaranteeing well-connected communities},
  author={Traag, Vincent A. and Waltman, Ludo and van Eck, Nees Jan},
  journal={Sci. Rep.}, year={2019}, doi={https://doi.org/10.1038/S41598-019-41695-Z.}
}
"""
OPENALEX = {"id": "https://openalex.org/W2963", "doi": f"https://doi.org/{LEIDEN.upper()}",
            "display_name": "From Louvain to Leiden: guaranteeing well-connected communities",
            "publication_year": 2019,
            "authorships": [{"author": {"display_name": "V. A. Traag"}}],
            "primary_location": {"source": {"display_name": "Scientific Reports"}},
            "referenced_works": ["https://openalex.org/W2131", "https://openalex.org/W404"]}
LOUVAIN_OA = {"id": "https://openalex.org/W2131", "doi": f"https://doi.org/{LOUVAIN}",
              "display_name": "Fast unfolding of communities in large networks",
              "publication_year": 2008}


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _paper(store: Store, pid: str) -> dict:
    rows = store.cypher("MATCH (p:Paper) WHERE p.id = $id RETURN p.*", {"id": pid}).to_dicts()
    assert len(rows) == 1, pid
    return {k.removeprefix("p."): v for k, v in rows[0].items()}


def _edges(store: Store, rel: str) -> list[tuple[str, str]]:
    rows = store.cypher(f"MATCH (a)-[e:{rel}]->(b) RETURN a.id, b.id ORDER BY a.id, b.id")
    return [tuple(r) for r in rows.rows()]


def test_three_sources_make_one_node_with_provenance_and_conflicts(store: Store,
                                                                   tmp_path: Path) -> None:
    bib = _write(tmp_path, "refs.bib", BIB)
    works = _write(tmp_path, "works.jsonl",
                   "\n".join(json.dumps(x) for x in (OPENALEX, LOUVAIN_OA)))
    text = PaperRecord("text", "text:src/leiden.py:12", doi=LEIDEN, title="Leiden paper",
                       stub=True)
    with store.write() as tx:
        apply_records(tx, [text])
    assert _paper(store, f"paper:doi:{LEIDEN}")["resolved"] is False
    summary = ingest_papers(store, [bib, works])
    assert summary.counts["upgraded"] == 1
    p = _paper(store, f"paper:doi:{LEIDEN}")
    assert (p["resolved"], p["venue"], p["year"], p["authority"]) == (
        True, "Scientific Reports", 2019, 40)
    assert p["title"] == "From Louvain to Leiden: guaranteeing well-connected communities"
    assert p["sources"] == [f"bibtex:{bib}:1", f"openalex:{works}:1", "text:src/leiden.py:12"]
    assert json.loads(p["conflicts"]) == {
        "title": [["Leiden paper", "text:src/leiden.py:12"]],
        "venue": [["Sci. Rep.", f"bibtex:{bib}:1"]]}
    assert p["ext_ids"] == ["openalex:W2963"]
    # the OpenAlex authors (most authoritative) win; BibTeX's are not added beside them
    authors = store.cypher("MATCH (a:Author)-[w:WROTE]->(p:Paper) WHERE p.id = $id "
                           "RETURN a.name ORDER BY w.position", {"id": p["id"]})
    assert authors["a.name"].to_list() == ["V. A. Traag"]
    # W2131 is in the batch: cited by its DOI node; W404 is unknown: counted, not invented
    assert _edges(store, "CITES") == [(p["id"], f"paper:doi:{LOUVAIN}")]
    assert summary.counts["unresolved_references"] == 1
    assert store.cypher("MATCH (p:Paper) RETURN count(*)").item() == 2


def test_reingest_is_idempotent(store: Store, tmp_path: Path) -> None:
    bib = _write(tmp_path, "refs.bib", BIB)
    works = _write(tmp_path, "works.jsonl",
                   "\n".join(json.dumps(x) for x in (OPENALEX, LOUVAIN_OA)))
    first = ingest_papers(store, [bib, works])
    before = {t: store.cypher(f"MATCH ()-[e:{t}]->() RETURN count(*)").item()
              for t in ("CITES", "WROTE", "SUPERSEDES")}
    again = ingest_papers(store, [works, bib])
    assert first.written["Paper"] == 2
    assert again.written == {}
    assert again.counts["unchanged"] == 2
    assert {t: store.cypher(f"MATCH ()-[e:{t}]->() RETURN count(*)").item()
            for t in before} == before


def test_cited_work_is_a_stub_upgraded_in_place(store: Store, tmp_path: Path) -> None:
    citing = {**OPENALEX, "referenced_works": []}
    s2 = {"paperId": "s2a", "externalIds": {"DOI": LEIDEN}, "title": OPENALEX["display_name"],
          "year": 2019, "references": [{"externalIds": {"DOI": LOUVAIN}},
                                       {"title": "Modularity and community structure",
                                        "year": 2006}]}
    ingest_papers(store, [_write(tmp_path, "a.json", json.dumps([citing, s2]))])
    stub = _paper(store, f"paper:doi:{LOUVAIN}")
    assert (stub["resolved"], stub["source"], stub["title"]) == (False, "inferred", "")
    title_stub = f"paper:title:{title_key('Modularity and community structure', 2006)}"
    assert _paper(store, title_stub)["resolved"] is False
    ingest_papers(store, [_write(tmp_path, "b.jsonl", json.dumps(LOUVAIN_OA))])
    upgraded = _paper(store, f"paper:doi:{LOUVAIN}")
    assert (upgraded["resolved"], upgraded["title"], upgraded["source"]) == (
        True, "Fast unfolding of communities in large networks", "import")
    assert _edges(store, "CITES") == sorted([(f"paper:doi:{LEIDEN}", f"paper:doi:{LOUVAIN}"),
                                             (f"paper:doi:{LEIDEN}", title_stub)])


def test_title_keyed_stub_merges_into_the_doi_node(store: Store, tmp_path: Path) -> None:
    """A stub keyed by title that later turns out to have a DOI: its edges move to the DOI
    node, and it stays as a non-current node superseded by it."""
    s2 = {"paperId": "x", "externalIds": {"DOI": LEIDEN}, "title": "Leiden", "year": 2019,
          "references": [{"title": "Fast unfolding of communities in large networks",
                          "year": 2008}]}
    ingest_papers(store, [_write(tmp_path, "a.json", json.dumps(s2))])
    stub = f"paper:title:{title_key('Fast unfolding of communities in large networks', 2008)}"
    assert _edges(store, "CITES") == [(f"paper:doi:{LEIDEN}", stub)]
    summary = ingest_papers(store, [_write(tmp_path, "b.json", json.dumps(LOUVAIN_OA))])
    assert summary.counts["merged"] == 1
    assert _edges(store, "CITES") == [(f"paper:doi:{LEIDEN}", f"paper:doi:{LOUVAIN}")]
    old = _paper(store, stub)
    assert old["status"] == "merged" and old["valid_to"] is not None
    assert _edges(store, "SUPERSEDES") == [(f"paper:doi:{LOUVAIN}", stub)]
    # a later title-only reference finds the DOI node, not the merged stub
    with store.write() as tx:
        result, _ = apply_records(tx, [PaperRecord(
            "text", "text:README.md:3", title="Fast Unfolding of Communities in Large "
                                              "Networks", year=2008, stub=True)])
    assert result.record_ids == [f"paper:doi:{LOUVAIN}"]


def test_obsoleted_rfc_gets_supersedes_not_deletion(store: Store, tmp_path: Path) -> None:
    bib = _write(tmp_path, "rfc.bib", r"""@misc{rfc2616, title={Hypertext Transfer Protocol --
  HTTP/1.1}, series={Request for Comments}, number={2616}, year=1999}
@misc{rfc9110, title={{HTTP Semantics}}, series={Request for Comments}, number={9110},
  year=2022, abstract={This document obsoletes RFCs 2616, 7231.}}
""")
    ingest_papers(store, [bib])
    new, old, unknown = ("paper:doi:10.17487/rfc9110", "paper:doi:10.17487/rfc2616",
                         "paper:doi:10.17487/rfc7231")
    rows = store.cypher("MATCH (a:Paper)-[e:SUPERSEDES]->(b:Paper) RETURN a.id, b.id, "
                        "e.reason, e.at ORDER BY b.id").rows()
    assert [(a, b, reason, at.year) for a, b, reason, at in rows] == [
        (new, old, "obsoletes", 2022), (new, unknown, "obsoletes", 2022)]
    assert (_paper(store, old)["status"], _paper(store, old)["valid_to"].year) == (
        "obsoleted", 2022)
    assert _paper(store, old)["kind"] == "rfc"
    assert _paper(store, unknown)["resolved"] is False
    assert _paper(store, new)["status"] == "active"
    ingest_papers(store, [bib])  # re-ingest keeps the status and adds no second edge
    assert _paper(store, old)["status"] == "obsoleted"
    assert len(_edges(store, "SUPERSEDES")) == 2


def test_retracted_record_is_marked_not_deleted(store: Store, tmp_path: Path) -> None:
    ingest_papers(store, [_write(tmp_path, "w.json", json.dumps({**LOUVAIN_OA,
                                                                 "is_retracted": True}))])
    assert _paper(store, f"paper:doi:{LOUVAIN}")["status"] == "retracted"


def test_unreadable_file_does_not_abort_the_batch(store: Store, tmp_path: Path) -> None:
    bib = _write(tmp_path, "refs.bib", BIB)
    summary = ingest_papers(store, [tmp_path / "missing.bib", bib])
    assert [f.path for f in summary.unreadable] == [str(tmp_path / "missing.bib")]
    assert summary.written["Paper"] == 1


def test_title_joins_only_around_one_identified_paper() -> None:
    """Two papers with one title and year (different DOIs) stay apart; a title-only record
    with that title then names neither of them."""
    index = pl.DataFrame(schema={"id": pl.Utf8, "doi": pl.Utf8, "arxiv": pl.Utf8,
                                 "title_key": pl.Utf8, "ext_ids": pl.List(pl.Utf8),
                                 "status": pl.Utf8})
    records = [PaperRecord("bibtex", "b:1", doi="10.1000/a", title="Introduction", year=2001),
               PaperRecord("bibtex", "b:2", doi="10.1000/b", title="Introduction", year=2001),
               PaperRecord("text", "t:1", title="Introduction", year=2001, stub=True),
               PaperRecord("bibtex", "b:3", arxiv="1603.09320", title="HNSW", year=2016),
               PaperRecord("text", "t:2", title="hnsw", year=2016, stub=True)]
    result = merge_records(records, index, lambda ids: {}, now=datetime(2026, 1, 1))
    assert result.record_ids == [
        "paper:doi:10.1000/a", "paper:doi:10.1000/b",
        f"paper:title:{title_key('Introduction', 2001)}",
        "paper:arxiv:1603.09320", "paper:arxiv:1603.09320"]


def test_retraction_notice_supersedes_the_retracted_paper(store: Store, tmp_path: Path) -> None:
    notice = {"id": "https://openalex.org/W77", "doi": "10.1000/notice",
              "display_name": "Retraction note", "publication_year": 2021,
              "retracts": [f"https://doi.org/{LOUVAIN}"]}
    works = _write(tmp_path, "w.jsonl", "\n".join(json.dumps(x) for x in (LOUVAIN_OA, notice)))
    ingest_papers(store, [works])
    rows = store.cypher("MATCH (a:Paper)-[e:SUPERSEDES]->(b:Paper) RETURN a.id, b.id, e.reason")
    assert rows.rows() == [("paper:doi:10.1000/notice", f"paper:doi:{LOUVAIN}", "retracts")]
    old = _paper(store, f"paper:doi:{LOUVAIN}")
    assert (old["status"], old["valid_to"].year, old["title"]) == (
        "retracted", 2021, "Fast unfolding of communities in large networks")
