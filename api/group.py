"""The ``vgdb`` click group: commands imported when one runs (:data:`api.cli.COMMANDS`)."""

from __future__ import annotations

import importlib
from typing import Any

import click

from api.cli import COMMANDS
from api.process import PROCESS

__all__ = ["LazyGroup", "cli"]


class LazyGroup(click.Group):
    """A group whose commands are imported when one runs (or its own ``--help`` is asked
    for); the group's ``--help`` lists them from :data:`COMMANDS` without importing them.
    Commands added with ``add_command`` work as in any group."""

    def __init__(self, *args: Any, lazy: dict[str, tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            module, _, attribute = self.lazy[cmd_name][0].partition(":")
            command = getattr(importlib.import_module(module), attribute)
            if not isinstance(command, click.Command) or command.name != cmd_name:
                raise RuntimeError(f"{self.lazy[cmd_name][0]} is not the command {cmd_name}")
            self.commands[cmd_name] = command
            PROCESS.imported()  # collection resumes, ignoring what was imported so far
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(map(len, names), default=0)
        rows = [(name, self.lazy[name][1] if name in self.lazy
                 else self.commands[name].get_short_help_str(limit)) for name in names]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, lazy=COMMANDS,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="vectorgraphdb", prog_name="vgdb")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """VectorGraphDB: code, history and papers in one embedded graph."""
    from api.config_cli import apply_cwd_config

    apply_cwd_config(ctx)  # impact/review defaults from the repository's config file
