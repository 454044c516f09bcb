"""Whether this process is the ``vgdb`` command itself, shared by the command modules."""

from __future__ import annotations

__all__ = ["PROCESS"]


class _Process:
    """Whether this process is the ``vgdb`` command itself (see :func:`api.cli.run`), which
    may end the process early, or a caller of :func:`api.cli.main` (tests, other programs,
    a served run inside ``vgdb serve``), which must not."""

    owned = False


PROCESS = _Process()
