"""Commands that operate on a whole home: rebuild, verify, seal, keygen.

The long ones report progress to :func:`kairos.cli.progress.progress_for`
(drawn on a terminal, silent when piped).  The library is imported when a
command runs, not when this module is.
"""

from __future__ import annotations

import click

from kairos.cli import render
from kairos.cli.options import json_option, memory, run
from kairos.cli.progress import progress_for
from kairos.errors import BadInput


@click.command()
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
    report = memory(ctx, recover=not from_logs).rebuild(
        from_logs=from_logs, import_past_end=import_past_end, progress=progress_for("rebuild"))
    if as_json:
        render.emit(report.to_dict())
    else:
        render.rebuilt(report, from_logs)


@click.command()
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
        from kairos.audit.export import verify_bundle

        result = verify_bundle(bundle, public_key)
        render.bundle(result, as_json)
        ctx.exit(0 if result["ok"] else 1)
    mem = memory(ctx, recover=False, read_only=True)
    report = mem.verify(progress_for("verify"))
    check = (mem.verify_checkpoint(checkpoint, public_key, progress_for("verify checkpoint"))
             if checkpoint else None)
    ok = report.ok and (check is None or check.ok)
    render.verified(report, check, ok, as_json)
    ctx.exit(0 if ok else 1)


@click.command()
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
    data = memory(ctx).seal(key, progress_for("seal"))
    if as_json:
        render.emit(data)
    else:
        render.sealed(data)


@click.command()
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--entry-key", is_flag=True,
              help="Write a log-entry MAC key instead (32 random bytes in hex, mode 0600): "
                   "point [audit] entry_key_file or KAIROS_ENTRY_KEY at it.")
@click.option("--master-key", is_flag=True,
              help="Write a master key for encryption at rest instead (32 random bytes in "
                   "hex, mode 0600): point [privacy] key_file at it, outside the home.")
@run
def keygen(path: str, entry_key: bool, master_key: bool) -> None:
    """Write a new Ed25519 signing key (PATH, mode 0600) and its public key (PATH.pub).

    With --entry-key, a key for the log entries' MACs instead; with
    --master-key, the master key of encryption at rest.  Keep either outside
    the home, readable by the Kairos user only.

    \b
    Example:
        kairos keygen /etc/kairos/signing.pem
        kairos keygen --entry-key /etc/kairos/entry.key
        kairos keygen --master-key /etc/kairos/master.key
    """
    from kairos.audit.checkpoints import entry_keygen
    from kairos.audit.checkpoints import keygen as signing_keygen

    if entry_key and master_key:
        raise BadInput("--entry-key and --master-key: choose one")
    if entry_key or master_key:  # the same form: 32 random bytes in hex, mode 0600
        click.echo(f"wrote {entry_keygen(path)}")
        return
    click.echo(f"wrote {path} and {signing_keygen(path)}")
