"""``vgdb config [PATH]``, and the click glue that makes a repository's config file the
default of ``vgdb ingest``'s options (a flag given on the command line still wins).

The glue is click's own ``default_map``: PATH is an eager argument whose callback finds the
config file and fills the map before click resolves the other options, so no print or command
function needs to know where a value came from.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from api.options import json_option
from api.output import Column, print_json, print_table
from ingest.config import (
    SETTINGS,
    ConfigFile,
    command_defaults,
    effective_settings,
    find_config,
    option_value_to_setting,
)

__all__ = ["apply_cwd_config", "config", "config_from_tree"]

_CONFIG = "vgdb.config"


def config_from_tree(ctx: click.Context, param: click.Parameter, value: Path | None) -> Any:
    """An eager PATH argument's callback: the tree's config file becomes the defaults of the
    command's options (``ctx.default_map``)."""
    if value is None or ctx.resilient_parsing:
        return value
    found = find_config(value) if value.exists() else None
    ctx.meta[_CONFIG] = found
    ctx.default_map = {**(ctx.default_map or {}),
                       **command_defaults(found, ctx.info_name or "")}
    return value


def apply_cwd_config(ctx: click.Context) -> None:
    """For the commands whose defaults come from the config of the current directory's
    repository (``impact``, ``review``): called by the ``vgdb`` group before they parse."""
    command = ctx.invoked_subcommand
    if command not in ("impact", "review"):
        return
    from api.resident import working_directory  # the client's, in a served run

    defaults = command_defaults(find_config(working_directory()), command)
    if defaults:
        ctx.default_map = {**(ctx.default_map or {}), command: defaults}


def _setting_options(command: Any) -> Any:
    """One option per setting, spelled as ``vgdb ingest`` (or ``impact``) spells it."""
    for setting in reversed(SETTINGS):
        name = setting.key.replace(".", "_").replace("-", "_")
        if setting.invert or setting.kind == "bool":
            option = click.option(setting.flag, name, is_flag=True, help=setting.help)
        elif setting.kind in ("globs", "languages"):
            option = click.option(setting.flag, name, multiple=True, help=setting.help)
        elif setting.kind == "date":
            option = click.option(setting.flag, name, type=click.DateTime(), help=setting.help)
        else:
            option = click.option(setting.flag, name, type=int, help=setting.help)
        command = option(command)
    return command


@click.command("config")
@click.argument("path", required=False, default=".", type=click.Path(path_type=Path))
@_setting_options
@json_option
@click.pass_context
def config(ctx: click.Context, path: Path, as_json: bool, **flags: Any) -> None:
    """Show the effective settings for the repository at PATH (default: here) and where each
    came from: a flag (the same flags as ``vgdb ingest``), the config file (vgdb.toml or
    [tool.vgdb] in pyproject.toml, with its key) or the built-in default."""
    found = find_config(path)
    given = {}
    for setting in SETTINGS:
        name = setting.key.replace(".", "_").replace("-", "_")
        if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE:
            given[setting.key] = option_value_to_setting(setting, flags[name])
    rows = effective_settings(found, given)
    if as_json:
        print_json({"file": str(found.path) if found else None,
                    "settings": [r.to_dict() for r in rows]})
        return
    _print_settings(found, rows)


def _print_settings(found: ConfigFile | None, rows: list) -> None:
    click.echo(f"config file: {found.path if found else '(none: defaults and flags only)'}")
    print_table(
        [Column("setting", priority=0), Column("value", priority=0),
         Column("source", priority=1), Column("where", priority=2, kind="path")],
        [(r.key, _show(r.value), r.source, r.where) for r in rows])


def _show(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ", ".join(value) or "[]"
    if hasattr(value, "date") and hasattr(value, "hour"):
        return value.date().isoformat() if not (value.hour or value.minute) else value.isoformat()
    return str(value)
