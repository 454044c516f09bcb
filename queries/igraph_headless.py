"""igraph (and leidenalg, which imports it) without igraph's plotting back-ends.

``import igraph`` imports ``matplotlib.pyplot`` when matplotlib is installed (igraph's drawing
package looks for it at import time): ~1.6 s of a cold ``vgdb ingest`` here, for plots we never
draw. Importing igraph while ``matplotlib`` is marked absent makes igraph keep its stand-in
module instead; the mark is taken back at once, so a later ``import matplotlib`` in the same
process works as usual (only igraph's own plotting stays unavailable).
"""

from __future__ import annotations

import sys
from types import ModuleType

__all__ = ["igraph", "leidenalg"]

_PLOTTING = ("matplotlib",)


def _import_igraph() -> tuple[ModuleType, ModuleType]:
    blocked = [name for name in _PLOTTING if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]  # import raises ImportError
    try:
        import igraph
        import leidenalg  # imports igraph too
    finally:
        for name in blocked:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]
    return igraph, leidenalg


igraph, leidenalg = _import_igraph()
