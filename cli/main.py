"""The ``kairos`` command line.

Each command parses its options (:mod:`options`), calls one library method
and shows the answer (:mod:`render`).  Library errors become one-line
messages with one exit-code rule: 2 for bad input or usage (nothing was
written), 1 when a check or an operation failed, 0 ok.

The group names its commands and the module of each; a module is imported
when its command runs or ``--help`` lists it, and a command module imports
the library only when its command runs.  So ``kairos --version`` loads
click and no command, ``kairos --help`` the command modules but not the
event store (SQLAlchemy, eventsourcing): agents and cron jobs shelling out
pay for what they use (docs/benchmarks.md, "CLI start-up").
"""

from __future__ import annotations

import importlib

import click

from kairos import __version__
from kairos.cli.options import home_options

# Each command's name and the module (kairos.cli.<module>) that defines it,
# as a function of the same name unless ATTRIBUTE says otherwise.
# tests/test_startup.py checks that every command of those modules is here.
COMMANDS = {
    "init": "writes", "write": "writes", "read": "writes", "retract": "writes",
    "session": "writes", "log": "writes", "history": "writes", "files": "writes",
    "search": "writes",
    "rebuild": "ops", "verify": "ops", "seal": "ops", "keygen": "ops",
    "context": "agent", "tools": "agent", "mcp": "agent",
    "audit": "audit", "trace": "audit", "diff": "audit", "export": "audit",
    "dream": "dream", "versions": "dream", "rollback": "dream", "stats": "dream",
    "forget": "privacy", "rotate-key": "privacy",
    "serve": "serve", "keys": "serve",
}
ATTRIBUTE = {"files": "files_cmd", "rotate-key": "rotate_key"}


class LazyGroup(click.Group):
    """A group whose commands are imported from their module on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS and cmd_name not in self.commands:
            module = importlib.import_module(f"kairos.cli.{COMMANDS[cmd_name]}")
            self.add_command(getattr(module, ATTRIBUTE.get(cmd_name, cmd_name)), cmd_name)
        return super().get_command(ctx, cmd_name)


@click.group(cls=LazyGroup)
@home_options
@click.version_option(__version__, package_name="kairos-memory")
@click.pass_context
def cli(ctx: click.Context, home: str | None, db: str | None) -> None:
    """Kairos: an audited, event-sourced memory engine for AI agents.

    Every memory write is an immutable event, kept in the event store and in
    append-only dated logs (logs/YYYY/MM/YYYY-MM-DD.md); the memory files are
    projections of those events.

    Long commands (rebuild, verify, seal, export, dream --all) show progress
    on standard error when it is a terminal, and nothing when it is piped.
    --json prints one JSON document on one line.

    \b
    Example:
        kairos --home ./home init
        kairos --home ./home write --agent ada --user sam --file MEMORY.md "Sam prefers tea"
        kairos --home ./home read --agent ada --user sam --file MEMORY.md
    """
    ctx.ensure_object(dict)
    ctx.obj.update(home=home, db=db)


def main() -> None:
    cli(prog_name="kairos")
