"""Whether this process is the ``vgdb`` command itself, shared by the command modules."""

from __future__ import annotations

import gc

__all__ = ["PROCESS", "YOUNG_THRESHOLD"]

#: allocations between two collections of the youngest generation, in the ``vgdb`` command
YOUNG_THRESHOLD = 5000


class _Process:
    """Whether this process is the ``vgdb`` command itself (see :func:`api.cli.run`), which
    may end the process early, or a caller of :func:`api.cli.main` (tests, other programs,
    a served run inside ``vgdb serve``), which must not."""

    owned = False

    def start(self) -> None:
        """The ``vgdb`` command starts: no cyclic garbage collection while it imports.
        Importing a command's ~900 modules makes ~150 collections, each scanning the objects
        of every module imported before it (~50 ms of a one-file update), and frees next to
        nothing: module objects live until the process ends."""
        self.owned = True
        gc.disable()

    def imported(self) -> None:
        """The command's module is imported: what exists now is kept until the process ends,
        so collections stop scanning it (``gc.freeze``), and collection resumes, less often
        (the commands go on importing: pyarrow, the ingest pipeline; CPython 3.13 raised the
        same threshold from 700 to 2000 for the same reason)."""
        if self.owned and not gc.isenabled():
            gc.freeze()
            gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])
            gc.enable()


PROCESS = _Process()
