"""Commands of the nightly dream: run, review, versions, rollback, stats."""

from __future__ import annotations

import click

from kairos.cli import render
from kairos.cli.options import (
    actor_option,
    agent_option,
    file_option,
    json_option,
    memory,
    reason_option,
    run,
    user_option,
)
from kairos.cli.progress import progress_for
from kairos.errors import BadInput

VERSIONED = "MEMORY.md, USER.md or topics/<name>.md."


@click.group(invoke_without_command=True)
@click.option("--all", "all_pairs", is_flag=True, help="Every pair that passes the gate.")
@agent_option(required=False, help="One pair: the agent…")
@user_option(help="…and the user.")
@click.option("--force", is_flag=True, help="Skip the gate (24 h and 5 sessions by default).")
@click.option("--dry-run", is_flag=True, help="Show what would be proposed; write nothing.")
@click.option("--distiller", type=click.Choice(["rules", "llm"]),
              help="Default: [dream] distiller, else rules.")
@click.option("--model", help="llm: any model litellm supports, e.g. openai/qwen2.5-7b.")
@click.option("--api-base", help="llm: the OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1.")
@click.option("--timeout", type=float, help="llm: seconds per request.")
@click.option("--retries", type=int, help="llm: retries after a failed request.")
@json_option
@click.pass_context
@run
def dream(ctx: click.Context, all_pairs: bool, agent: str | None, user: str | None,
          force: bool, dry_run: bool, distiller: str | None, model: str | None,
          api_base: str | None, timeout: float | None, retries: int | None,
          as_json: bool) -> None:
    """Distil pairs' logs into new, reviewable versions of MEMORY.md and USER.md.

    With --all, every pair that passes the double gate (24 hours since its
    last dream and 5 sessions ended since, by default); with --agent and
    --user, one pair.  Exits 1 if any pair failed; a second run while one is
    in progress says so and exits 0.

    \b
    Example:
        kairos dream --all                      # nightly, from cron
        kairos dream --agent ada --user sam --force --dry-run
        kairos dream list --pending
    """
    if ctx.invoked_subcommand is not None:
        return
    if all_pairs == bool(agent or user) or (not all_pairs and not (agent and user)):
        raise BadInput("give --all, or --agent and --user")
    dreams = memory(ctx).dreams
    chosen = dreams.distiller(distiller, model=model, api_base=api_base, timeout=timeout,
                              retries=retries)
    pairs = None if all_pairs else [(str(agent), str(user))]
    from kairos.dream.runner import run as run_dreams

    summary = run_dreams(dreams, pairs, distiller=chosen, force=force, dry_run=dry_run,
                         trigger="cron" if pairs is None else "cli",
                         progress=progress_for("dream"))
    render.emit(summary.to_dict()) if as_json else render.summary(summary)
    ctx.exit(summary.exit_code)


@dream.command("list")
@click.option("--pending", is_flag=True, help="Only proposals awaiting review.")
@agent_option(required=False, help="Only this agent's pairs.")
@user_option(help="Only this user's pairs.")
@json_option
@click.pass_context
@run
def dream_list(ctx: click.Context, pending: bool, agent: str | None, user: str | None,
               as_json: bool) -> None:
    """List dream proposals and their status.

    \b
    Example:
        kairos dream list --pending
    """
    rows = memory(ctx).dreams.list(pending=pending, agent=agent, user=user)
    render.emit(rows) if as_json else render.dreams(rows)


@dream.command("show")
@click.argument("dream_id", required=False)
@agent_option(required=False, help="With --user: the pair's latest proposal.")
@user_option(help="With --agent: the pair's latest proposal.")
@json_option
@click.pass_context
@run
def dream_show(ctx: click.Context, dream_id: str | None, agent: str | None, user: str | None,
               as_json: bool) -> None:
    """Show a proposal: its diff, the phase report and each line's sources.

    \b
    Example:
        kairos dream show 731c9117-46ff-54c0-b776-f5528913bb2c
        kairos dream show --agent ada --user sam
    """
    dreams = memory(ctx).dreams
    if dream_id is None:
        if not (agent and user):
            raise BadInput("give a dream id, or --agent and --user")
        dream_id = dreams.latest(agent, user)
    shown = dreams.show(dream_id)
    render.emit(shown) if as_json else render.dream(shown)


@dream.command("approve")
@click.argument("dream_id")
@click.option("--reviewer", required=True, help="Who approves.")
@json_option
@click.pass_context
@run
def dream_approve(ctx: click.Context, dream_id: str, reviewer: str, as_json: bool) -> None:
    """Publish a proposal as the new version of its files.

    \b
    Example:
        kairos dream approve 731c9117-46ff-54c0-b776-f5528913bb2c --reviewer alice
    """
    result = memory(ctx).dreams.approve(dream_id, reviewer)
    if as_json:
        render.emit(result)
    else:
        click.echo("published " + ", ".join(f"{k} version {v}"
                                            for k, v in sorted(result["versions"].items())))


@dream.command("reject")
@click.argument("dream_id")
@click.option("--reviewer", required=True, help="Who rejects.")
@reason_option()
@json_option
@click.pass_context
@run
def dream_reject(ctx: click.Context, dream_id: str, reviewer: str, reason: str,
                 as_json: bool) -> None:
    """Reject a proposal; nothing is published.

    \b
    Example:
        kairos dream reject 731c9117-46ff-54c0-b776-f5528913bb2c --reviewer alice --reason "too eager"
    """
    result = memory(ctx).dreams.reject(dream_id, reviewer, reason)
    render.emit(result) if as_json else click.echo(f"rejected {dream_id}")


@click.command()
@agent_option()
@user_option(required=True, help="User id.")
@file_option(help=VERSIONED)
@json_option
@click.pass_context
@run
def versions(ctx: click.Context, agent: str, user: str, file: str, as_json: bool) -> None:
    """List a file's published versions (0 is the plain fold of the writes).

    \b
    Example:
        kairos versions --agent ada --user sam --file MEMORY.md
    """
    rows = memory(ctx).dreams.versions(agent, user, file)
    render.emit(rows) if as_json else render.versions(rows)


@click.command()
@agent_option()
@user_option(required=True, help="User id.")
@file_option(help=VERSIONED)
@click.option("--to", "to", type=int, required=True, help="The version to show again.")
@reason_option()
@actor_option("user")
@json_option
@click.pass_context
@run
def rollback(ctx: click.Context, agent: str, user: str, file: str, to: int, reason: str,
             actor: str, as_json: bool) -> None:
    """Set a file back (or forward) to a version; writes after its cutoff stay.

    Later versions are set aside, not deleted: roll forward to them the same way.

    \b
    Example:
        kairos rollback --agent ada --user sam --file MEMORY.md --to 1 --reason "bad night"
    """
    result = memory(ctx).dreams.rollback(agent, user, file, to, reason, actor)
    if as_json:
        render.emit(result)
    else:
        click.echo(f"{result['file']} is at version {result['version']} "
                   f"({result['event_id']} {result['position']})")


@click.command()
@json_option
@click.pass_context
@run
def stats(ctx: click.Context, as_json: bool) -> None:
    """Show each pair's memory health and the home's totals.

    Per pair: MEMORY.md and USER.md sizes against their limits, sessions and
    hours since the last dream, duplicates, time-bound facts whose time is
    over, pending proposals, refused drafts, and what dreams spent (tokens and
    cost, refused drafts included).

    \b
    Example:
        kairos stats --json
    """
    data = memory(ctx).dreams.stats()
    render.emit(data) if as_json else render.stats(data)

