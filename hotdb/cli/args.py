"""The command line's arguments before click reads them: global options given after the
command moved before it, and the app narrowed to the command that runs."""

from __future__ import annotations

import typer

_GLOBAL_WITH_VALUE = ("--db", "--lake", "--as-of")
_GLOBAL_FLAGS = ("--debug",)


def hoisted(args: list[str]) -> list[str]:
    """The arguments with global options given after the command (`hotdb top --db x`)
    moved before it, where click looks for them. Nothing after `--` moves."""
    end = args.index("--") if "--" in args else len(args)
    before, moved, rest, i = [], [], [], 0
    while i < end and (args[i].startswith("-") or not args[i]):  # the options before the command
        takes_value = args[i] in _GLOBAL_WITH_VALUE
        before.extend(args[i:i + 1 + takes_value])
        i += 1 + takes_value
    while i < end:
        arg = args[i]
        if arg in _GLOBAL_WITH_VALUE and i + 1 < end:
            moved.extend(args[i:i + 2])
            i += 2
            continue
        if arg in _GLOBAL_FLAGS or arg.split("=", 1)[0] in _GLOBAL_WITH_VALUE:
            moved.append(arg)
        else:
            rest.append(arg)
        i += 1
    return before + moved + rest + args[end:]


def narrowed(app: typer.Typer, args: list[str]) -> typer.Typer:
    """The app with only the command `args` run: typer builds every registered command's
    parameters before it parses (~25 ms for all of them, a command's start is ~150 ms;
    bench/cli_start.py). `--help` and an unknown command get the whole app."""
    import copy

    from typer.main import get_command_name

    i = 0
    while i < len(args) and args[i].startswith("-"):  # the global options, hoisted before the command
        i += 2 if args[i] in _GLOBAL_WITH_VALUE else 1
    name = args[i] if i < len(args) else None
    commands = [c for c in app.registered_commands if get_command_name(c.name or c.callback.__name__) == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if not commands and not groups:
        return app
    only = copy.copy(app)
    only.registered_commands, only.registered_groups = commands, groups
    return only
