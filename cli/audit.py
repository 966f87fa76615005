"""Commands for compliance staff: audit queries, what was known when, trace, diff, export."""

from __future__ import annotations

import click

from kairos.cli import render
from kairos.cli.options import agent_option, file_option, json_option, memory, run, user_option
from kairos.cli.progress import progress_for
from kairos.errors import NotFound


@click.group(invoke_without_command=True)
@agent_option(required=False, help="Only this agent.")
@user_option(help="Only this user.")
@file_option(required=False, help="Only this file.")
@click.option("--actor", help="Only this actor (agent, user, system, import, or a reviewer).")
@click.option("--type", "type_", help="Only this event type, e.g. MemoryWritten.")
@click.option("--session", "-s", help="Only this session.")
@click.option("--since", help="From this ISO 8601 time (inclusive); a year or a month alone: its start.")
@click.option("--until", help="Up to this ISO 8601 time (inclusive).")
@click.option("--grep", help="Only events whose text contains this (any case).")
@click.option("--limit", type=int, help="At most this many rows.")
@click.option("--format", "fmt", type=click.Choice(render.FORMATS), default="table",
              show_default=True)
@click.pass_context
@run
def audit(ctx: click.Context, agent: str | None, user: str | None, file: str | None,
          actor: str | None, type_: str | None, session: str | None, since: str | None,
          until: str | None, grep: str | None, limit: int | None, fmt: str) -> None:
    """Who wrote what, when, from where: events by filter, in global order.

    Each row: position, time, type, actor, scope, file, text, its place in the
    dated logs (file:line) and the event id.

    \b
    Example:
        kairos audit --agent ada --user sam --since 2026-10-01 --until 2026-10-31
        kairos audit --actor user --type MemoryRetracted --format csv > retractions.csv
        kairos audit context --agent ada --user sam --as-of 2026-10-13T12:00:00Z
    """
    if ctx.invoked_subcommand is not None:
        return
    rows = memory(ctx, read_only=True).audit.query(agent=agent, user=user, file=file, actor=actor, type=type_,
                                   session=session, since=since, until=until, grep=grep,
                                   limit=limit)
    render.audit_rows(rows, fmt)


@audit.command("context")
@agent_option()
@user_option(required=True, help="User id.")
@click.option("--as-of", required=True, help="The moment (ISO 8601).")
@json_option
@click.pass_context
@run
def audit_context(ctx: click.Context, agent: str, user: str, as_of: str, as_json: bool) -> None:
    """Show what an agent had in context at a moment.

    The injected prompt (identity, profile, tool notes) and the files it
    could load through its memory tools, as they stood then.

    \b
    Example:
        kairos audit context --agent ada --user sam --as-of 2026-10-13T12:00:00Z
    """
    data = memory(ctx, read_only=True).audit.context_at(agent, user, as_of)
    render.emit(data) if as_json else render.context_at(data)


@click.command()
@agent_option()
@user_option()
@file_option(help="The memory file.")
@click.option("--line", type=int, help="Only this line (1-based).")
@click.option("--grep", help="Only lines containing this (any case).")
@click.option("--version", type=int, help="The file as dream version N published it.")
@click.option("--as-of", help="The file as it stood at this ISO 8601 time.")
@json_option
@click.pass_context
@run
def trace(ctx: click.Context, agent: str, user: str | None, file: str, line: int | None,
          grep: str | None, version: int | None, as_of: str | None, as_json: bool) -> None:
    """Show where each line of a file came from, and where lines that left went.

    The dreams a line went through and the raw events under it, with their
    log file and line.  Lines a published dream dropped, superseded or moved
    are listed after the current ones: the version they left in, why, and
    what replaced them.  Exits 2 when no line matches.

    \b
    Example:
        kairos trace --agent ada --user sam --file MEMORY.md --grep dentist
    """
    rows = memory(ctx, read_only=True).audit.trace(agent, user, file, line=line, grep=grep, version=version,
                                   as_of=as_of)
    if not rows and (line is not None or grep is not None):
        raise NotFound(f"no line of {file} matches, now or in a published version")
    render.emit(rows) if as_json else render.traced(rows)


@click.command()
@agent_option()
@user_option(required=True, help="User id.")
@file_option(help="MEMORY.md, USER.md or a topic file.")
@click.argument("old", type=int)
@click.argument("new", type=int)
@json_option
@click.pass_context
@run
def diff(ctx: click.Context, agent: str, user: str, file: str, old: int, new: int,
         as_json: bool) -> None:
    """Show the difference between two versions of a file.

    Ends with the report of the dream that made the newer version.

    \b
    Example:
        kairos diff --agent ada --user sam --file MEMORY.md 0 1
    """
    data = memory(ctx, read_only=True).audit.diff(agent, user, file, old, new)
    render.emit(data) if as_json else render.diffed(data)


@click.command()
@agent_option()
@user_option(required=True, help="User id.")
@click.option("--since", help="From this ISO 8601 time; a year or a month alone: its start.")
@click.option("--until", help="Up to this ISO 8601 time.")
@click.argument("out", type=click.Path(file_okay=False))
@json_option
@click.pass_context
@run
def export(ctx: click.Context, agent: str, user: str, since: str | None, until: str | None,
           out: str, as_json: bool) -> None:
    """Write a bundle an auditor can verify without access to the home.

    The pair's and its agent's events, their log entries, the latest
    checkpoint, an inclusion proof per event and a README on verifying it.

    \b
    Example:
        kairos seal && kairos export --agent ada --user sam ./bundle-ada-sam
        kairos verify --bundle ./bundle-ada-sam --public-key kairos.pub
    """
    data = memory(ctx).audit.export(agent, user, out, since=since, until=until,
                                    progress=progress_for("export"))
    render.emit(data) if as_json else render.exported(data)

