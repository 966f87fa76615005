"""Commands for compliance staff: audit queries, what was known when, trace, diff, export."""

from __future__ import annotations

import click

from kairos import audit as lib
from kairos.cli.common import emit, json_option, memory, run
from kairos.errors import NotFound


@click.group(invoke_without_command=True)
@click.option("--agent", "-a", help="Only this agent.")
@click.option("--user", "-u", help="Only this user.")
@click.option("--file", "-f", "file", help="Only this file.")
@click.option("--actor", help="Only this actor (agent, user, system, import, or a reviewer).")
@click.option("--type", "type_", help="Only this event type, e.g. MemoryWritten.")
@click.option("--session", "-s", help="Only this session.")
@click.option("--since", help="From this ISO 8601 time (inclusive).")
@click.option("--until", help="Up to this ISO 8601 time (inclusive).")
@click.option("--grep", help="Only events whose text contains this (any case).")
@click.option("--limit", type=int, help="At most this many rows.")
@click.option("--format", "fmt", type=click.Choice(lib.FORMATS), default="table",
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
    rows = lib.query(memory(ctx), agent=agent, user=user, file=file, actor=actor, type=type_,
                     session=session, since=since, until=until, grep=grep, limit=limit)
    click.echo(lib.render_rows(rows, fmt), nl=False)


@audit.command("context")
@click.option("--agent", "-a", required=True, help="Agent id.")
@click.option("--user", "-u", required=True, help="User id.")
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
    data = lib.context_at(memory(ctx), agent, user, as_of)
    if as_json:
        emit(data)
        return
    click.echo(f"# Context of {agent} for {user} as of {data['as_of']}\n")
    click.echo(data["prompt"])
    for name, text in data["on_demand"].items():
        click.echo(f"# {name} (on demand, through the memory tools)\n")
        click.echo(text if text else f"({name} did not exist yet)\n")


@click.command()
@click.option("--agent", "-a", required=True, help="Agent id.")
@click.option("--user", "-u", help="User id (for the pair's files).")
@click.option("--file", "-f", "file", required=True, help="The memory file.")
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
    what replaced them.  Exits 1 when no line matches.

    \b
    Example:
        kairos trace --agent ada --user sam --file MEMORY.md --grep dentist
    """
    rows = lib.trace(memory(ctx), agent, user, file, line=line, grep=grep, version=version,
                     as_of=as_of)
    if not rows and (line is not None or grep is not None):
        raise NotFound(f"no line of {file} matches, now or in a published version")
    if as_json:
        emit(rows)
        return
    for r in rows:
        if r["status"] == "left":
            left = r["left"]
            click.echo(f"  -: {r['text']}")
            click.echo(f"     left in version {left['version']} (dream {left['dream_id']}, "
                       f"{left['distiller']}, approved by {left['reviewer']} at "
                       f"{left['approved_at']}): {left['reason']}")
            if left["replaced_by"]:
                click.echo(f"     replaced by: {left['replaced_by']}")
            if left["moved_to"]:
                click.echo(f"     moved to: {left['moved_to']}")
        else:
            click.echo(f"{r['line']:>3}: {r['text']}")
        for d in r["via"]:
            mark = "made by" if r["dream"] and d["dream_id"] == r["dream"]["dream_id"] else "via"
            click.echo(f"     {mark} dream {d['dream_id']} (version {d['version']}, "
                       f"{d['distiller']}, approved by {d['reviewer']} at {d['approved_at']})")
        for s in r["sources"]:
            retracted = f" [retracted by {s['retracted_by']}]" if s["retracted_by"] else ""
            click.echo(f"     from {s['event_id']} {s['time']} {s['type']} by {s['actor']}"
                       f" at {s['log']}: {s['text']}{retracted}")


@click.command()
@click.option("--agent", "-a", required=True, help="Agent id.")
@click.option("--user", "-u", required=True, help="User id.")
@click.option("--file", "-f", "file", required=True, help="MEMORY.md, USER.md or a topic file.")
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
    data = lib.diff(memory(ctx), agent, user, file, old, new)
    if as_json:
        emit(data)
        return
    click.echo(data["diff"] or "(no difference)\n", nl=False)
    dream = data["dream"]
    if dream:
        click.echo(f"\nversion {new} came from dream {dream['dream_id']} ({dream['distiller']}), "
                   f"approved by {dream['reviewer']} at {dream['approved_at']}")
        for d in dream["dropped"]:
            click.echo(f"  dropped: {d['text']}  ({d['reason']})")
        gather = dream["report"].get("gather", {})
        for c in gather.get("contradictions", []) if isinstance(gather, dict) else []:
            click.echo(f"  contradiction: {c['older']!r} -> {c['newer']!r}")
        for t in gather.get("relative_time", []) if isinstance(gather, dict) else []:
            click.echo(f"  time made absolute: {t['text']!r} -> {t['resolved']!r}")


@click.command()
@click.option("--agent", "-a", required=True, help="Agent id.")
@click.option("--user", "-u", required=True, help="User id.")
@click.option("--since", help="From this ISO 8601 time.")
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
    data = lib.export(memory(ctx), agent, user, out, since=since, until=until)
    if as_json:
        emit(data)
    else:
        click.echo(f"wrote {data['events']} events and {data['log_files']} log files to {out}, "
                   f"provable against a checkpoint of {data['checkpoint_size']} events")


def register(cli: click.Group) -> None:
    for command in (audit, trace, diff, export):
        cli.add_command(command)
