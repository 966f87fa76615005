"""Commands for privacy: erase a person, rotate the master key.

Both need a home that encrypts (``[privacy] encrypt = true``; see
``docs/privacy.md``).  The library is imported when a command runs.
"""

from __future__ import annotations

import click

from kairos.cli import render
from kairos.cli.options import agent_option, json_option, memory, reason_option, run, user_option


@click.command()
@user_option(required=True, help="The person to erase (a user id).")
@agent_option(required=False,
              help="Erase only this agent's pair with the user (default: every agent's).")
@reason_option("Why (a request reference, say): kept in the audit, unencrypted.")
@click.option("--by", required=True, help="Who erases (kept in the audit).")
@click.option("--dry-run", is_flag=True,
              help="List what would be erased (pairs, files, counts; never content) and "
                   "erase nothing.")
@json_option
@click.pass_context
@run
def forget(ctx: click.Context, user: str, agent: str | None, reason: str, by: str,
           dry_run: bool, as_json: bool) -> None:
    """Erase a person: the memory of every pair of USER, for good.

    Destroys the pairs' encryption keys, so nothing they recorded decrypts
    again; purges their files, search index and embeddings; and records a
    SubjectErased event per pair (who, when, why, how much — never what).
    No event or log line changes: every chain and checkpoint still verifies.
    The agents' own files (SOUL, ABOUT, TOOLS) stay.  Exits 1 when other
    sessions kept the database from being compacted (run it again).

    \b
    Example:
        kairos forget --user sam --reason "GDPR request 2026-118" --by dpo --dry-run
        kairos forget --user sam --reason "GDPR request 2026-118" --by dpo
    """
    erasure = memory(ctx).forget(user, agent=agent, reason=reason, by=by, dry_run=dry_run)
    if as_json:
        render.emit(erasure.to_dict())
    else:
        render.erasure(erasure)
    if not dry_run and not erasure.compacted:
        ctx.exit(1)  # the keys are gone, but old pages may hold the text: run it again


@click.command("rotate-key")
@click.option("--new-key-file", required=True, type=click.Path(exists=True, dir_okay=False),
              help="The new master key (32 bytes in hex or base64; `kairos keygen "
                   "--master-key` writes one).")
@click.pass_context
@run
def rotate_key(ctx: click.Context, new_key_file: str) -> None:
    """Wrap every data key with a new master key; no event changes.

    Open the home with the current master key (KAIROS_MASTER_KEY or
    [privacy]), then point the settings at the new one.  Run it again with
    the old key if it was interrupted: keys already wrapped are skipped.

    \b
    Example:
        kairos rotate-key --new-key-file /etc/kairos/master-2027.key
    """
    from kairos.engine.keyring import parse_key

    with open(new_key_file, encoding="ascii") as f:
        key = parse_key(f.read(), new_key_file)
    count = memory(ctx).rotate_master_key(key)
    click.echo(f"re-wrapped {count} data key{'s' if count != 1 else ''} with the new master key")
