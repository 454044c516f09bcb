"""queries.source: the text of a symbol or file, read from the ingested tree, on a real
database; a changed or missing file is said so, never answered with wrong text silently."""

from pathlib import Path

import pytest

from graphdb import Store
from ingest.pipeline import IngestOptions, ingest_repository
from queries.source import source_text
from schema import QueryError
from tests.helpers import write_tree

FILES = {"pkg/core.py": "import os\n\n\ndef helper():\n    x = 1\n    return x\n\n\nVALUE = 2\n"}


@pytest.fixture
def store(tmp_path: Path):
    write_tree(tmp_path / "src", FILES)
    with Store.open(tmp_path / "db") as opened:
        ingest_repository(opened, tmp_path / "src", options=IngestOptions(name="r"))
        yield opened


def test_a_symbol_gives_its_lines_and_a_file_all_of_it(store: Store) -> None:
    found = source_text(store, "sym:r/pkg/core.py#helper")
    assert (found.path, found.start_line, found.end_line) == ("pkg/core.py", 4, 6)
    assert found.text == "def helper():\n    x = 1\n    return x"
    # matches_graph: our hash of the file equals the one ingest recorded (File.sha)
    assert found.matches_graph and not found.truncated and found.notes == ()
    whole = source_text(store, "file:r/pkg/core.py")
    assert whole.text == FILES["pkg/core.py"].rstrip("\n") and whole.end_line == 9
    cut = source_text(store, "sym:r/pkg/core.py#helper", max_lines=2)
    assert cut.text == "def helper():\n    x = 1" and cut.truncated
    assert source_text(store, "sym:r/pkg/core.py#nothing") is None
    with pytest.raises(QueryError, match="maxLines must be positive"):
        source_text(store, "sym:r/pkg/core.py#helper", max_lines=0)


def test_a_file_changed_or_gone_since_the_ingest_is_said_so(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "src" / "pkg" / "core.py"
    path.write_text("# moved\n" + FILES["pkg/core.py"])
    changed = source_text(store, "sym:r/pkg/core.py#helper")
    assert not changed.matches_graph and changed.text == "\ndef helper():\n    x = 1"
    assert changed.notes == ("pkg/core.py changed on disk since it was ingested: the lines "
                             "may have moved",)
    path.unlink()
    gone = source_text(store, "sym:r/pkg/core.py#helper")
    assert gone.text == "" and not gone.matches_graph
    assert gone.notes[0].startswith("cannot read ") and gone.notes[0].endswith(
        "No such file or directory")
