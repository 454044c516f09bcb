"""Papers in a repository ingest, and the academic queries over them (real git repository,
real Kuzu, the real reference extractor)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from graphdb import Store
from ingest import IngestOptions, ingest_repository
from ingest.sessions import Recorder
from queries.academic import (
    citations,
    decisions_based_on,
    paper_code,
    referenced_papers,
    resolve_paper,
)
from queries.communities import detect_communities, members
from schema import NodeNotFoundError
from tests.gitrepo import GitRepo

HNSW = "paper:arxiv:1603.09320"
LEIDEN = "paper:doi:10.1038/s41598-019-41695-z"
LOUVAIN = "paper:doi:10.1088/1742-5468/2008/10/p10008"

CODE = '''"""Nearest neighbour search."""


def build(points):
    """Build the graph index.

    Implements HNSW, arXiv:1603.09320.
    """
    return points


def other():
    return 1
'''
BIB = """@article{traag2019,
  title={From Louvain to Leiden: guaranteeing well-connected communities},
  author={Traag, V. A. and Waltman, L. and van Eck, N. J.},
  journal={Scientific Reports}, year={2019}, doi={10.1038/s41598-019-41695-z}
}
@article{hnsw, title={Efficient and robust approximate nearest neighbor search using
  Hierarchical Navigable Small World graphs}, author={Malkov, Yu. A. and Yashunin, D. A.},
  year={2018}, eprint={1603.09320}, archivePrefix={arXiv}}
"""
README = "# demo\n\nCommunities follow https://doi.org/10.1038/s41598-019-41695-z.\n"
S2 = ('[{"paperId": "p1", "externalIds": {"DOI": "10.1038/s41598-019-41695-z"}, '
      '"title": "From Louvain to Leiden", "year": 2019, "references": '
      '[{"externalIds": {"DOI": "10.1088/1742-5468/2008/10/P10008"}}]}]')


@pytest.fixture
def linked(tmp_path: Path) -> Iterator[Store]:
    repo = GitRepo(tmp_path / "demo")
    repo.commit("index: build the HNSW graph (arXiv:1603.09320)",
                {"pkg/index.py": CODE, "refs.bib": BIB, "README.md": README,
                 "works.json": S2})
    with Store.open(tmp_path / "db") as store:
        Recorder(store, session="s1").record_decision(
            "Use Leiden for communities", "Leiden guarantees connected communities "
            "(doi:10.1038/s41598-019-41695-z).", category="communities")
        ingest_repository(store, repo.root, options=IngestOptions(name="demo", workers=1))
        yield store


def test_repository_ingest_links_code_commits_and_decisions(linked: Store) -> None:
    links = referenced_papers(linked, "pkg/index.py#build")
    assert [(x.paper, x.relation, x.location, x.source) for x in links] == [
        (HNSW, "implements", "pkg/index.py:7", "inferred")]
    assert links[0].title.startswith("Efficient and robust")  # the BibTeX record's title
    assert links[0].resolved and links[0].evidence
    file_links = referenced_papers(linked, "file:demo/pkg/index.py")
    assert [x.via for x in file_links] == ["sym:demo/pkg/index.py#build"]
    code = paper_code(linked, "arXiv:1603.09320v2")
    assert {(c.table, c.node) for c in code} >= {("Symbol", "sym:demo/pkg/index.py#build")}
    assert any(c.table == "Commit" for c in code)
    decisions = decisions_based_on(linked, "10.1038/S41598-019-41695-Z")
    assert [d.relation for d in decisions] == ["based_on"]
    assert decisions[0].name.endswith("Use Leiden for communities")


def test_repository_reingest_is_idempotent(linked: Store, tmp_path: Path) -> None:
    def counts() -> dict[str, int]:
        return {rel: linked.cypher(f"MATCH ()-[e:{rel}]->() RETURN count(*)").item()
                for rel in ("REFERENCES", "BASED_ON", "CITES", "WROTE")} | {
            "Paper": linked.cypher("MATCH (p:Paper) RETURN count(*)").item()}
    before = counts()
    summary = ingest_repository(linked, tmp_path / "demo",
                                options=IngestOptions(name="demo", workers=1))
    assert counts() == before
    assert summary.papers is not None and summary.papers["bibliographies"] == ["refs.bib"]
    assert summary.papers["written"] == {}


def test_moved_and_removed_references_follow_the_code(linked: Store, tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "demo")
    moved = CODE.replace('    """Build the graph index.', '    """Build the graph index.\n')
    repo.commit("move", {"pkg/index.py": moved, "README.md": "# demo\n"})
    summary = ingest_repository(linked, repo.root,
                                options=IngestOptions(name="demo", workers=1))
    links = referenced_papers(linked, "pkg/index.py#build")
    assert [(x.paper, x.location) for x in links] == [(HNSW, "pkg/index.py:8")]
    assert summary.papers["papers"]["stale_references"] == 2  # old line, README's link
    readme = linked.cypher("MATCH (f:File)-[e:REFERENCES]->() WHERE f.path = 'README.md' "
                           "RETURN count(*)").item()
    assert readme == 0


def test_json_records_in_a_repository_are_not_bibliographies(linked: Store) -> None:
    """Only *.bib, CITATION.cff and codemeta.json are read automatically; catalogue exports
    are loaded on purpose with ingest-papers."""
    assert linked.cypher(f"MATCH (p:Paper) WHERE p.id = '{LOUVAIN}' RETURN count(*)").item() \
        == 0


def test_community_papers_and_citation_neighbourhood(linked: Store, tmp_path: Path) -> None:
    detect_communities(linked, "demo")
    [community] = linked.cypher(
        "MATCH (f:File)-[:IN_COMMUNITY]->(c:Community) WHERE f.id = 'file:demo/pkg/index.py' "
        "AND c.level = 0 RETURN c.id").rows()[0]
    inside = set(members(linked, community))
    links = referenced_papers(linked, community)
    assert HNSW in [x.paper for x in links]
    assert all(x.via in inside or x.via.split("#")[0].replace("sym:", "file:") in inside
               for x in links)
    from ingest.academic import ingest_papers

    (tmp_path / "s2.json").write_text(S2, encoding="utf-8")
    ingest_papers(linked, [tmp_path / "s2.json"])
    near = citations(linked, LEIDEN, depth=2)
    assert [(n.paper, n.direction, n.depth, n.resolved) for n in near] == [
        (LOUVAIN, "cites", 1, False)]
    assert near[0].evidence.startswith("s2:")
    back = citations(linked, LOUVAIN, direction="cited_by")
    assert [n.paper for n in back] == [LEIDEN]
    assert resolve_paper(linked, "https://doi.org/10.1088/1742-5468/2008/10/P10008") == LOUVAIN
    with pytest.raises(NodeNotFoundError):
        resolve_paper(linked, "10.9999/none")
    with pytest.raises(NodeNotFoundError):
        referenced_papers(linked, "sym:demo/pkg/index.py#nothing")


ASSIGNED_DOC = '''"""Variance functions."""

NAME = "mu"


def mu(x):
    return x


mu.__doc__ = f"""
Variance of a Poisson model, {NAME}.

References
----------
.. [1] McCullagh, P. and Nelder, J. A. (1989). Generalized Linear Models.
       Chapman & Hall. doi:10.1007/978-1-4899-3242-6
"""
'''


def test_reference_in_an_assigned_docstring_belongs_to_the_function(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "demo")
    repo.commit("variance functions", {"pkg/varfuncs.py": ASSIGNED_DOC})
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, repo.root, options=IngestOptions(name="demo", workers=1))
        links = referenced_papers(store, "pkg/varfuncs.py#mu")
        assert [(x.paper, x.location) for x in links] == [
            ("paper:doi:10.1007/978-1-4899-3242-6", "pkg/varfuncs.py:15")]
        assert [x.via for x in referenced_papers(store, "file:demo/pkg/varfuncs.py")] == [
            "sym:demo/pkg/varfuncs.py#mu"]
