"""The ``kairos`` command line.

Each command parses its options (:mod:`options`), calls one library method
and shows the answer (:mod:`render`).  Library errors become one-line
messages with one exit-code rule: 2 for bad input or usage (nothing was
written), 1 when a check or an operation failed, 0 ok.
"""

from __future__ import annotations

import click

from kairos.audit.checkpoints import entry_keygen as make_entry_key
from kairos.audit.checkpoints import keygen as make_key
from kairos.audit.export import verify_bundle
from kairos.cli import render
from kairos.cli.options import (
    FILES_HELP,
    actor_option,
    agent_option,
    closing,
    file_option,
    home_options,
    json_option,
    memory,
    read_text,
    reason_option,
    run,
    session_option,
    user_option,
)
from kairos.errors import BadInput
from kairos.memory import Memory


@click.group()
@home_options
@click.version_option(package_name="kairos-memory")
@click.pass_context
def cli(ctx: click.Context, home: str | None, db: str | None) -> None:
    """Kairos: an audited, event-sourced memory engine for AI agents.

    Every memory write is an immutable event, kept in the event store and in
    append-only dated logs (logs/YYYY/MM/YYYY-MM-DD.md); the memory files are
    projections of those events.

    \b
    Example:
        kairos --home ./home init
        kairos --home ./home write --agent ada --user sam --file MEMORY.md "Sam prefers tea"
        kairos --home ./home read --agent ada --user sam --file MEMORY.md
    """
    ctx.ensure_object(dict)
    ctx.obj.update(home=home, db=db)


@cli.command()
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
    mem = Memory.init(obj["home"], obj["db"])
    closing(ctx, mem)
    if as_json:
        render.emit({"home": mem.home, "store": mem.url.split("@")[-1]})
    else:
        click.echo(f"initialized {mem.home}")


@cli.command()
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


@cli.command()
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
    render.read(memory(ctx, read_only=True).read(agent, file, user=user, as_of=as_of, version=version,
                                 stream_version=stream_version), as_json)


@cli.command()
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


@cli.group()
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


@cli.command()
@click.argument("date", required=False)
@agent_option(required=False, help="Only this agent's own entries (and the --user pair's).")
@user_option(help="With --agent: also this pair's entries.")
@json_option
@click.pass_context
@run
def log(ctx: click.Context, date: str | None, agent: str | None, user: str | None,
        as_json: bool) -> None:
    """Print a day's log (DATE as YYYY-MM-DD; default today, UTC).

    \b
    Example:
        kairos log 2026-11-02
        kairos log 2026-11-02 --agent ada --user sam
    """
    mem = memory(ctx, read_only=True)
    if as_json:
        render.emit(mem.log_entries(date, agent=agent, user=user))
    else:
        click.echo(mem.log(date, agent=agent, user=user), nl=False)


@cli.command()
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


@cli.command()
@agent_option()
@user_option(help="User id: search that pair's files and history too.")
@file_option(required=False, help="Only this file: " + FILES_HELP)
@click.option("--since", help="Only what was recorded at or after this ISO 8601 time.")
@click.option("--limit", "-n", type=click.IntRange(1, 100), default=10, show_default=True,
              help="At most this many results.")
@click.option("--include-retracted", is_flag=True,
              help="The auditor's view: retracted writes too, marked.")
@json_option
@click.argument("query")
@click.pass_context
@run
def search(ctx: click.Context, agent: str, user: str | None, file: str | None,
           since: str | None, limit: int, include_retracted: bool, as_json: bool,
           query: str) -> None:
    """Search an agent's memory (and one pair's), best first.

    Words are matched stemmed, by prefix and as parts of compounds; with
    embeddings on ([search] in kairos.toml), by meaning too.  Each result
    says where it is: a current line, a topic file's line, or history.

    \b
    Example:
        kairos search --agent ada --user sam "where does Sam work?"
        kairos search --agent ada --user sam --file MEMORY.md --since 2026-10-01 tea
    """
    found = memory(ctx).search(agent, query, user=user, limit=limit, file=file, since=since,
                               include_retracted=include_retracted)
    render.emit(found.to_dict()) if as_json else render.searched(found)


@cli.command()
@click.option("--from-logs", is_flag=True,
              help="First restore the event store from the dated logs.")
@click.option("--import-past-end", is_flag=True,
              help="With --from-logs: also import log entries past the end of a store that "
                   "holds events (check them first: they may be forged).")
@json_option
@click.pass_context
@run
def rebuild(ctx: click.Context, from_logs: bool, import_past_end: bool, as_json: bool) -> None:
    """Re-derive every projection from the event store, and repair the logs.

    Reports each read-model row and memory file that differed from what the
    events give, and each log file written or moved aside.  With
    --from-logs, the store is first restored from the logs (the database was
    lost); entries past the end of a store that holds events are imported
    only with --import-past-end.

    \b
    Example:
        kairos rebuild
        kairos rebuild --from-logs
    """
    if import_past_end and not from_logs:
        raise BadInput("--import-past-end goes with --from-logs")
    report = memory(ctx, recover=not from_logs).rebuild(from_logs=from_logs,
                                                        import_past_end=import_past_end)
    if as_json:
        render.emit(report.to_dict())
    else:
        render.rebuilt(report, from_logs)


@cli.command()
@click.option("--checkpoint", "checkpoint", type=click.Path(dir_okay=False),
              help="Also prove the history extends this checkpoint file.")
@click.option("--public-key", type=click.Path(dir_okay=False),
              help="The Ed25519 public key (PEM) the checkpoint must be signed with.")
@click.option("--bundle", type=click.Path(file_okay=False),
              help="Verify an export bundle on its own (no home needed).")
@json_option
@click.pass_context
@run
def verify(ctx: click.Context, checkpoint: str | None, public_key: str | None,
           bundle: str | None, as_json: bool) -> None:
    """Check every hash chain in the store and the logs, and that they agree.

    Exits 1 and names the first bad entry (file, line, position) on any
    mismatch.  With --checkpoint, also proves (a Merkle consistency proof)
    that the current history extends the checkpoint, and checks its signature.
    With --bundle, checks an export bundle alone: any change to it fails.

    \b
    Example:
        kairos verify
        kairos verify --checkpoint /backup/checkpoint-000412.json --public-key kairos.pub
        kairos verify --bundle ./bundle-ada-sam --public-key kairos.pub
    """
    if bundle is not None:
        result = verify_bundle(bundle, public_key)
        render.bundle(result, as_json)
        ctx.exit(0 if result["ok"] else 1)
    mem = memory(ctx, recover=False, read_only=True)
    report = mem.verify()
    check = mem.verify_checkpoint(checkpoint, public_key) if checkpoint else None
    ok = report.ok and (check is None or check.ok)
    render.verified(report, check, ok, as_json)
    ctx.exit(0 if ok else 1)


@cli.command()
@click.option("--key", type=click.Path(dir_okay=False),
              help="Ed25519 private key (PEM) to sign with [env KAIROS_SIGNING_KEY].")
@json_option
@click.pass_context
@run
def seal(ctx: click.Context, key: str | None, as_json: bool) -> None:
    """Record a checkpoint (count and Merkle root of every event) and write its file.

    Run it nightly next to the dream, and keep copies of checkpoints/ elsewhere.

    \b
    Example:
        kairos seal --key /etc/kairos/signing.pem
    """
    data = memory(ctx).seal(key)
    if as_json:
        render.emit(data)
    else:
        render.sealed(data)


@cli.command()
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--entry-key", is_flag=True,
              help="Write a log-entry MAC key instead (32 random bytes in hex, mode 0600): "
                   "point [audit] entry_key_file or KAIROS_ENTRY_KEY at it.")
@run
def keygen(path: str, entry_key: bool) -> None:
    """Write a new Ed25519 signing key (PATH, mode 0600) and its public key (PATH.pub).

    With --entry-key, a key for the log entries' MACs instead: keep it
    outside the home, readable by the Kairos user only.

    \b
    Example:
        kairos keygen /etc/kairos/signing.pem
        kairos keygen --entry-key /etc/kairos/entry.key
    """
    if entry_key:
        click.echo(f"wrote {make_entry_key(path)}")
        return
    click.echo(f"wrote {path} and {make_key(path)}")


@cli.command("files")
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


from kairos.cli import agent as _agent  # noqa: E402  (modules that add commands to cli)
from kairos.cli import audit as _audit  # noqa: E402
from kairos.cli import dream as _dream  # noqa: E402

_dream.register(cli)
_agent.register(cli)
_audit.register(cli)


def main() -> None:
    cli(prog_name="kairos")
