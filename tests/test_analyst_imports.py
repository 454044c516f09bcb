"""Importing the analyst API (``vectorgraphdb``, ``vectorgraphdb.graph``) leaves igraph and
leidenalg out: only community detection, boundaries and ``to_igraph`` load them. Checked in
a fresh interpreter, where nothing else has imported them yet."""

from __future__ import annotations

import subprocess
import sys

_LOADED = ("import sys; {imports}; "
           "print(sorted(m for m in sys.modules if m.split('.')[0] in ('igraph', 'leidenalg')))")


def _graph_libraries_after(imports: str) -> str:
    done = subprocess.run([sys.executable, "-c", _LOADED.format(imports=imports)],
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_importing_the_analyst_api_does_not_import_igraph() -> None:
    assert _graph_libraries_after("import vectorgraphdb.graph, vectorgraphdb") == "[]"


def test_the_check_sees_igraph_when_a_graph_algorithm_module_is_imported() -> None:
    # what vectorgraphdb.graph used to import at its top; it does load igraph
    assert "'igraph'" in _graph_libraries_after("import queries.boundaries")
