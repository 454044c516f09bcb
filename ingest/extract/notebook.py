"""Jupyter notebooks: the code cells, parsed as Python.

A notebook is read as its script form, the way ``jupytext``/VS Code write it: each code cell is
preceded by a ``# %% cell N`` line (N counts every cell of the notebook from 1, markdown cells
included, so it is the cell's position in the notebook), and IPython magics and shell escapes
(``%time``, ``!pip``) are commented out. Symbol and call lines are lines of that script: the
nearest ``# %% cell N`` line above a line names its cell (:func:`cell_of_line`).
"""

from __future__ import annotations

import json

from ingest.extract import python
from ingest.extract.rows import FileExtract, SymbolRow

__all__ = ["cell_of_line", "definitions", "extract", "script"]

_MARK = "# %% cell "


def script(data: bytes) -> bytes:
    """The code cells of the notebook ``data`` as one Python script with cell markers."""
    try:
        notebook = json.loads(data)
        cells = notebook["cells"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"not a Jupyter notebook: {exc}") from exc
    out: list[str] = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        out.append(f"{_MARK}{number}")
        out.extend(f"# {line}" if line.lstrip().startswith(("%", "!")) else line
                   for line in text.split("\n"))
        out.append("")
    return "\n".join(out).encode("utf-8")


def cell_of_line(script_text: str, line: int) -> int:
    """The notebook cell (1-based) that line ``line`` of the script form belongs to, or 0."""
    lines = script_text.split("\n")[:line]
    for text in reversed(lines):
        if text.startswith(_MARK):
            return int(text[len(_MARK):])
    return 0


def extract(data: bytes, path: str, *, language: str = "jupyter") -> FileExtract:
    """Rows of the notebook's code cells (Python), lines in its script form."""
    fx = python.extract(script(data), path, language="python")
    fx.language = language
    return fx


def definitions(data: bytes, path: str, *, language: str = "jupyter") -> list[SymbolRow]:
    return python.definitions(script(data), path, language="python")
