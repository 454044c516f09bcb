"""The consoles every command prints through, and capturing them for a served run.

``console`` and ``err_console`` are the process's rich consoles, except inside
:func:`captured` (a command run by ``vgdb serve`` for a CLI client, :mod:`api.resident`):
there they are that run's own consoles, writing into its buffers as the client's terminal
would be written to, so that a served command prints exactly what it prints run directly.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TextIO

from rich.console import Console

__all__ = ["Terminal", "captured", "console", "err_console"]


@dataclass(frozen=True)
class Terminal:
    """What rich looks at to decide width, colours and control codes: whether each stream
    is a terminal, the terminal's size, and the environment (TERM, NO_COLOR, COLUMNS, ...).
    """

    stdout_tty: bool = False
    stderr_tty: bool = False
    width: int = 80
    height: int = 25
    env: Mapping[str, str] | None = None


class _Buffer(io.StringIO):
    """A captured stream that answers ``isatty`` as the client's stream would."""

    def __init__(self, tty: bool) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


_CAPTURED: ContextVar[tuple[Console, Console, _Buffer, _Buffer] | None] = ContextVar(
    "vgdb_captured_output", default=None)


class _Routed:
    """A console that is the captured run's own console inside :func:`captured` (in this
    thread or task), else the process's."""

    def __init__(self, index: int, default: Console) -> None:
        object.__setattr__(self, "_index", index)
        object.__setattr__(self, "_default", default)

    def _current(self) -> Console:
        found = _CAPTURED.get()
        return self._default if found is None else found[self._index]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._current(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._current(), name, value)

    def __enter__(self) -> Console:
        return self._current().__enter__()

    def __exit__(self, *exc: Any) -> None:
        self._current().__exit__(*exc)


class _RoutedStream(io.TextIOBase):
    """``sys.stdout``/``sys.stderr`` of a process that runs captured commands: the captured
    run's buffer inside :func:`captured`, else the original stream."""

    def __init__(self, index: int, original: TextIO) -> None:
        self._index = index
        self.original = original

    def _current(self) -> TextIO:
        found = _CAPTURED.get()
        return self.original if found is None else found[self._index]

    def write(self, text: str) -> int:
        return self._current().write(text)

    def flush(self) -> None:
        self._current().flush()

    def isatty(self) -> bool:
        return self._current().isatty()

    def fileno(self) -> int:
        return self._current().fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._current(), "encoding", None) or "utf-8"


def _consoles(out: TextIO | None = None, err: TextIO | None = None,
              terminal: Terminal | None = None) -> tuple[Console, Console]:
    size: dict[str, Any] = {} if terminal is None else {
        "width": terminal.width, "height": terminal.height, "_environ": dict(terminal.env or {})}
    return (Console(file=out, highlight=False, soft_wrap=True, **size),
            Console(file=err, stderr=True, highlight=False, **size))


_DEFAULT = _consoles()
console: Console = _Routed(0, _DEFAULT[0])  # type: ignore[assignment]
err_console: Console = _Routed(1, _DEFAULT[1])  # type: ignore[assignment]


@contextmanager
def captured(terminal: Terminal) -> Iterator[tuple[io.StringIO, io.StringIO]]:
    """Capture what this thread's commands print — through ``console``, ``err_console``,
    ``sys.stdout`` and ``sys.stderr`` — into two buffers, formatted for ``terminal``."""
    for index, name in ((2, "stdout"), (3, "stderr")):
        if not isinstance(getattr(sys, name), _RoutedStream):
            setattr(sys, name, _RoutedStream(index, getattr(sys, name)))
    out, err = _Buffer(terminal.stdout_tty), _Buffer(terminal.stderr_tty)
    token = _CAPTURED.set((*_consoles(out, err, terminal), out, err))
    try:
        yield out, err
    finally:
        _CAPTURED.reset(token)
