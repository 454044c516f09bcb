"""ingest.academic.docowners: ``X.__doc__ = ...`` found by ast, the file skipped unparsed only
when it cannot hold one."""

from __future__ import annotations

import pytest

from ingest.academic.docowners import doc_assignments


@pytest.mark.parametrize(("text", "found"), [
    ('f.__doc__ = "x"\n', [(1, 1, "f")]),
    ("a.b.__doc__=3\n", [(1, 1, "a.b")]),
    ("f.__doc__ \\\n    = 'x'\n", [(1, 2, "f")]),
    ("(f.__doc__  # the doc\n) = 'x'\n", [(1, 2, "f")]),
    ("f.__doc__ = (\n    'a'\n    'b')\n", [(1, 3, "f")]),
    ("x = f.__doc__\nif f.__doc__ == 'x':\n    pass\n", []),
    ("f.__doc__ += 'more'\ng.__doc__: str = 'x'\n", []),  # not plain assignments
    ("def f():\n    pass\n", []),
    ("f.__doc__ = \n", []),  # does not parse
    # NFKC folds the fullwidth letter to "o": Python reads it as __doc__
    ("f.__d\uff4fc__ = 'x'\n", [(1, 1, "f")]),
])
def test_doc_assignments(text: str, found: list[tuple[int, int, str]]) -> None:
    assert doc_assignments(text) == found
