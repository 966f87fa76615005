"""Commands on memory itself: init, write, read, retract, session end, log,
history, search, files.

Each command parses its options (:mod:`options`), calls one library method
and shows the answer (:mod:`render`).  The library is imported when a
command runs, not when this module is (``kairos --help`` lists these
commands without loading the event store).
"""

from __future__ import annotations

import click

from kairos.cli import render
from kairos.cli.options import (
    FILES_HELP,
    actor_option,
    agent_option,
    closing,
    file_option,
    json_option,
    memory,
    read_text,
    reason_option,
    run,
    session_option,
    user_option,
)


@click.command()
@json_option
@click.pass_context
@run
def init(ctx: click.Context, as_json: bool) -> None:
    """Create a home: settings file, logs folder and store tables.

    Safe to run again on an existing home.

    \b
    Example:
        kairos --home ./home init
    """
    obj = ctx.find_object(dict)
    assert obj is not None
    from kairos.memory import Memory

    mem = Memory.init(obj["home"], obj["db"])
    closing(ctx, mem)
    if as_json:
        render.emit({"home": mem.home, "store": mem.url.split("@")[-1]})
    else:
        click.echo(f"initialized {mem.home}")


@click.command()
@agent_option()
@user_option(help="User id (for USER.md and MEMORY.md).")
@file_option()
@click.option("--replace", is_flag=True, help="Set the whole file instead of appending a line.")
@actor_option("agent")
@session_option()
@click.option("--idempotency-key", "key",
              help="Name this write: a retry with the same key writes nothing and prints "
                   "the original event.")
@click.argument("text")
@json_option
@click.pass_context
@run
def write(ctx: click.Context, agent: str, user: str | None, file: str, replace: bool,
          actor: str, session: str | None, key: str | None, text: str, as_json: bool) -> None:
    """Record a memory write (TEXT, or - to read standard input).

    Prints the new event's id and global position.  A write that fails after
    its event was saved says so, with the event id (exit 1): retry it with the
    same --idempotency-key and nothing is written twice.

    \b
    Example:
        kairos write --agent ada --user sam --file MEMORY.md "Sam prefers tea"
        echo "I am Ada." | kairos write --agent ada --file SOUL.md --replace -
        kairos write -a ada -u sam -f MEMORY.md --idempotency-key call-7f3a "Sam likes jazz"
    """
    result = memory(ctx).write(agent, file, read_text(text), user=user,
                               mode="replace" if replace else "append", actor=actor,
                               session=session, idempotency_key=key)
    render.recorded(result, as_json)


@click.command()
@agent_option()
@user_option(help="User id (for USER.md and MEMORY.md).")
@file_option()
@click.option("--as-of", help="The file as it was at this ISO 8601 time.")
@click.option("--version", type=int,
              help="The file as dream version N published it (0: the plain fold of the writes).")
@click.option("--stream-version", type=int, help="The file as of this version of its stream.")
@json_option
@click.pass_context
@run
def read(ctx: click.Context, agent: str, user: str | None, file: str, as_of: str | None,
         version: int | None, stream_version: int | None, as_json: bool) -> None:
    """Print a memory file, now or as it was.

    A file nobody wrote yet is not an error: nothing is printed and a note
    says so on standard error.

    \b
    Example:
        kairos read --agent ada --user sam --file MEMORY.md
        kairos read --agent ada --user sam --file MEMORY.md --as-of 2026-11-02T12:00:00Z
    """
    result = None
    if as_of is None and version is None and stream_version is None:
        # A file now, on an SQLite home: answered without loading the event
        # store when the answer is sure to be the full path's (else None).
        from kairos.engine.quickread import read_now

        obj = ctx.find_object(dict)
        assert obj is not None
        result = read_now(obj["home"], obj["db"], agent, user, file)
    if result is None:
        result = memory(ctx, read_only=True).read(agent, file, user=user, as_of=as_of,
                                                  version=version, stream_version=stream_version)
    render.read(result, as_json)


@click.command()
@agent_option()
@user_option(help="User id (for USER.md and MEMORY.md).")
@file_option()
@click.argument("event_ids", nargs=-1, required=True)
@reason_option("Why these writes are withdrawn.")
@actor_option("user")
@session_option()
@json_option
@click.pass_context
@run
def retract(ctx: click.Context, agent: str, user: str | None, file: str,
            event_ids: tuple[str, ...], reason: str, actor: str, session: str | None,
            as_json: bool) -> None:
    """Withdraw earlier writes (EVENT_ID…) from a file; history keeps them.

    \b
    Example:
        kairos retract --agent ada --user sam --file MEMORY.md 0ab7cb8a-… --reason "wrong"
    """
    render.recorded(memory(ctx).retract(agent, file, list(event_ids), user=user, reason=reason,
                                        actor=actor, session=session), as_json)


@click.group()
def session() -> None:
    """Session events of an agent+user pair."""


@session.command("end")
@agent_option()
@user_option(required=True, help="User id.")
@session_option("session_id")
@click.option("--notes", help="What the session produced (TEXT, or - for standard input).")
@json_option
@click.pass_context
@run
def session_end(ctx: click.Context, agent: str, user: str, session_id: str | None,
                notes: str | None, as_json: bool) -> None:
    """Record that a session of the pair ended.

    \b
    Example:
        kairos session end --agent ada --user sam --session s-42
    """
    render.recorded(memory(ctx).end_session(
        agent, user, session=session_id, notes=read_text(notes) if notes is not None else None),
        as_json)


@click.command()
@click.argument("date", required=False)
@agent_option(required=False, help="Only this agent's own entries (and the --user pair's).")
@user_option(help="With --agent: also this pair's entries.")
@click.option("--decrypt", is_flag=True,
              help="In a home that encrypts: show the content decrypted (the hashes cover "
                   "it encrypted; erased content stays absent).")
@json_option
@click.pass_context
@run
def log(ctx: click.Context, date: str | None, agent: str | None, user: str | None,
        decrypt: bool, as_json: bool) -> None:
    """Print a day's log (DATE as YYYY-MM-DD; default today, UTC).

    \b
    Example:
        kairos log 2026-11-02
        kairos log 2026-11-02 --agent ada --user sam --decrypt
    """
    mem = memory(ctx, read_only=True)
    if as_json:
        render.emit(mem.log_entries(date, agent=agent, user=user, decrypt=decrypt))
    else:
        click.echo(mem.log(date, agent=agent, user=user, decrypt=decrypt), nl=False)


@click.command()
@agent_option()
@user_option(help="User id (for USER.md and MEMORY.md).")
@file_option(required=False)
@json_option
@click.pass_context
@run
def history(ctx: click.Context, agent: str, user: str | None, file: str | None,
            as_json: bool) -> None:
    """List the events of an agent (its own files) or of one agent+user pair.

    \b
    Example:
        kairos history --agent ada --user sam --file MEMORY.md
    """
    rows = memory(ctx, read_only=True).history(agent, user=user, file=file)
    if as_json:
        render.emit(rows)
    else:
        render.history(rows)


@click.command("files")
@json_option
@click.pass_context
@run
def files_cmd(ctx: click.Context, as_json: bool) -> None:
    """List the home's memory files with their sizes and limits.

    \b
    Example:
        kairos files
    """
    rows = memory(ctx).files()
    if as_json:
        render.emit(rows)
    else:
        render.files(rows)


@click.command()
@agent_option()
@user_option(help="User id: search that pair's files and history too.")
@file_option(required=False, help="Only this file: " + FILES_HELP)
@click.option("--since", help="Only what was recorded at or after this ISO 8601 time "
              "(a year or a month alone: its start).")
@click.option("--limit", "-n", type=click.IntRange(1, 100), default=10, show_default=True,
              help="At most this many results.")
@click.option("--include-retracted", is_flag=True,
              help="The auditor's view: retracted writes too, marked.")
@json_option
@click.argument("query", nargs=-1, required=True)
@click.pass_context
@run
def search(ctx: click.Context, agent: str, user: str | None, file: str | None,
           since: str | None, limit: int, include_retracted: bool, as_json: bool,
           query: tuple[str, ...]) -> None:
    """Search an agent's memory (and one pair's), best first.

    Words are matched stemmed, by prefix and as parts of compounds; with
    embeddings on ([search] in kairos.toml), by meaning too.  Each result
    says where it is: a current line, a topic file's line, or history.
    The query may be quoted or not: its words are joined.

    \b
    Example:
        kairos search --agent ada --user sam "where does Sam work?"
        kairos search --agent ada --user sam where does Sam work
        kairos search --agent ada --user sam --file MEMORY.md --since 2026-10-01 tea
    """
    found = memory(ctx).search(agent, " ".join(query), user=user, limit=limit, file=file,
                               since=since, include_retracted=include_retracted)
    render.emit(found.to_dict()) if as_json else render.searched(found)
