"""``vgdb ingest-papers`` and the paper commands, in-process through ``main``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.api.test_cli import vgdb

BIB = """@article{traag2019, title={From Louvain to Leiden}, year={2019},
  doi={10.1038/s41598-019-41695-z}}
@article{broken, title={oops
"""
WORKS = ('{"id": "https://openalex.org/W1", "doi": "10.1038/s41598-019-41695-z", '
         '"display_name": "From Louvain to Leiden: guaranteeing well-connected communities", '
         '"publication_year": 2019, "referenced_works": ["https://openalex.org/W2"]}\n'
         '{"id": "https://openalex.org/W2", "doi": "10.1088/1742-5468/2008/10/P10008", '
         '"display_name": "Fast unfolding of communities in large networks", '
         '"publication_year": 2008}\n{oops\n')


def test_ingest_papers_json_and_bad_input(capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    (tmp_path / "works.jsonl").write_text(WORKS, encoding="utf-8")
    db = tmp_path / "db"
    code, out, err = vgdb(capsys, "ingest-papers", tmp_path / "refs.bib",
                          tmp_path / "works.jsonl", "--db", db, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert [(f["records"], f["errors"]) for f in data["files"]] == [(1, 1), (2, 1)]
    assert [(e["line"], e["message"].split(":")[0]) for e in data["errors"]] == [
        (3, "malformed BibTeX entry skipped"), (3, "broken JSON line skipped")]
    assert data["written"]["Paper"] == 2 and data["written"]["CITES"] == 1
    code, out, _ = vgdb(capsys, "citations", "10.1038/S41598-019-41695-Z", "--db", db,
                        "--json")
    assert code == 0
    assert [(r["paper"], r["direction"], r["depth"]) for r in json.loads(out)] == [
        ("paper:doi:10.1088/1742-5468/2008/10/p10008", "cites", 1)]
    code, out, _ = vgdb(capsys, "paper-code", "paper:doi:10.1088/1742-5468/2008/10/p10008",
                        "--db", db, "--json")
    assert (code, json.loads(out)) == (0, [])
    code, out, err = vgdb(capsys, "ingest-papers", tmp_path / "missing.bib", "--db", db)
    assert code == 2 and "cannot read" in err
    code, _, err = vgdb(capsys, "citations", "10.9999/none", "--db", db)
    assert code == 1 and "no paper" in err
