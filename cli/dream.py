"""Commands of the nightly dream: run, review, versions, rollback, stats."""

from __future__ import annotations

import sys
from typing import Any

import click

from kairos.cli.common import CLI_ACTORS, emit, json_option, memory, run
from kairos.errors import BadInput, NotFound
from kairos.runner import Summary
from kairos.runner import run as run_dreams


@click.group(invoke_without_command=True)
@click.option("--all", "all_pairs", is_flag=True, help="Every pair that passes the gate.")
@click.option("--agent", "-a", help="One pair: the agent…")
@click.option("--user", "-u", help="…and the user.")
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
    mem = memory(ctx)
    options: dict[str, Any] = {"model": model, "api_base": api_base, "timeout": timeout}
    if retries is not None:
        options["retries"] = retries
    chosen = mem.dreams.distiller(distiller, **options)
    pairs = None if all_pairs else [(str(agent), str(user))]
    if not as_json and sys.stderr.isatty():
        total = len(mem.dreams.pairs()) if pairs is None else 1
        with click.progressbar(length=total, label="dreaming", file=sys.stderr) as bar:
            summary = run_dreams(mem, pairs, distiller=chosen, force=force, dry_run=dry_run,
                                 trigger="cli", progress=lambda _pair: bar.update(1))
    else:
        summary = run_dreams(mem, pairs, distiller=chosen, force=force, dry_run=dry_run,
                             trigger="cron" if all_pairs else "cli")
    if as_json:
        emit(summary.to_dict())
    else:
        print_summary(summary)
    ctx.exit(summary.exit_code)


def print_summary(s: Summary) -> None:
    if s.already_running:
        click.echo("a dream run is in progress for this home: nothing to do")
        return
    for e in s.proposed:
        held = f"; held for review: {e['reason']}" if e.get("reason") else ""
        click.echo(f"proposed {e['dream_id']} {e['agent']}/{e['user']} "
                   f"({', '.join(e['files'])}): review with `kairos dream show {e['dream_id']}`"
                   + held)
    for e in s.approved:
        click.echo(f"approved {e['dream_id']} {e['agent']}/{e['user']} ({', '.join(e['files'])})"
                   " by policy")
    for e in s.dry_run:
        click.echo(f"would propose {e['agent']}/{e['user']} ({', '.join(e['files'])})")
        for name, f in e["proposal"]["files"].items():
            click.echo(f"  {name}:")
            for text, _sources in f["lines"]:
                click.echo(f"    {text}")
    for e in s.unchanged:
        click.echo(f"unchanged {e['agent']}/{e['user']}: {e['reason']}")
    for e in s.skipped:
        click.echo(f"skipped {e['agent']}/{e['user']}: {e['reason']}")
    for e in s.failed:
        spent = f" ({e['tokens']} tokens, ${e['cost']:.4f} spent)" if e.get("tokens") else ""
        click.echo(f"FAILED {e['agent']}/{e['user']}: {e['error']}{spent}", err=True)
    click.echo(f"{s.examined} examined, {len(s.proposed)} proposed, {len(s.approved)} approved, "
               f"{len(s.skipped)} skipped, {len(s.failed)} failed; {s.tokens} tokens, "
               f"${s.cost:.4f}, {s.duration:.1f} s")


@dream.command("list")
@click.option("--pending", is_flag=True, help="Only proposals awaiting review.")
@click.option("--agent", "-a", help="Only this agent's pairs.")
@click.option("--user", "-u", help="Only this user's pairs.")
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
    if as_json:
        emit(rows)
        return
    for r in rows:
        click.echo(f"{r['dream_id']}  {r['proposed_at']}  {r['agent']}/{r['user']:<12} "
                   f"{r['status']:<9} {r['summary']}")


@dream.command("show")
@click.argument("dream_id", required=False)
@click.option("--agent", "-a", help="With --user: the pair's latest proposal.")
@click.option("--user", "-u", help="With --agent: the pair's latest proposal.")
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
        rows = dreams.list(agent=agent, user=user)
        if not rows:
            raise NotFound(f"no dream for {agent}/{user}")
        dream_id = rows[-1]["dream_id"]
    d = dreams.show(dream_id)
    if as_json:
        emit(d)
        return
    click.echo(f"dream {d['dream_id']} for {d['agent']}/{d['user']}: {d['status']}"
               + (f" by {d['decided_by']}" if d["decided_by"] else ""))
    click.echo(f"proposed {d['proposed_at']} by {d['trigger']} with the {d['distiller']} "
               f"distiller{' (' + d['model'] + ')' if d['model'] else ''}; events up to stream "
               f"version {d['cutoff']}; {d['usage'].get('total_tokens', 0)} tokens, "
               f"${float(d['usage'].get('cost', 0)):.4f}")
    for name, f in d["files"].items():
        click.echo(f"\n{name}: from version {f['base']} (current: {f['current_version']})")
        click.echo(f["diff"].rstrip() or "(no change)")
        click.echo("\nprovenance of added lines:")
        for line in f["lines"]:
            if line["added"]:
                click.echo(f"  + {line['text']}")
                for s in line["sources"]:
                    click.echo(f"      {s['event_id']} {s['time']} {s['type']}: {s['text']}")
    if d["dropped"]:
        click.echo("\ndropped:")
        for x in d["dropped"]:
            click.echo(f"  - [{x['file']}] {x['text']}  ({x['reason']})")
    report = d["report"]
    gather = report.get("gather", {})
    click.echo("\nreport:")
    orient = report.get("orient", {})
    click.echo("  orient: " + ", ".join(
        f"{name} {v['lines'] if isinstance(v, dict) else v} lines" for name, v in orient.items()))
    since = gather.get("since_cutoff", {})
    click.echo(f"  gather: since the cutoff {since.get('writes', 0)} writes, "
               f"{since.get('retractions', 0)} retractions, {since.get('sessions', 0)} sessions; "
               f"{len(gather.get('duplicates', []))} duplicate groups, "
               f"{len(gather.get('contradictions', []))} updates, "
               f"{len(gather.get('relative_time', []))} relative times, "
               f"{len(gather.get('instructions', []))} instructions")
    c = report.get("consolidate", {})
    rewritten = c.get("rewritten", 0)
    click.echo(f"  consolidate: {c.get('merged', 0)} merged, {c.get('superseded', 0)} superseded, "
               f"{rewritten if isinstance(rewritten, int) else len(rewritten)} rewritten, "
               f"{c.get('archived', c.get('stale', 0))} archived")
    p = report.get("prune", {})
    moved = p.get("moved", 0)
    click.echo(f"  prune: sizes {p.get('sizes')}; "
               f"{moved if isinstance(moved, int) else len(moved)} moved to topics")
    if report.get("held"):
        click.echo(f"  held for review: {report['held']}")


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
        emit(result)
    else:
        click.echo("published " + ", ".join(f"{k} version {v}"
                                            for k, v in sorted(result["versions"].items())))


@dream.command("reject")
@click.argument("dream_id")
@click.option("--reviewer", required=True, help="Who rejects.")
@click.option("--reason", "-r", required=True, help="Why.")
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
    if as_json:
        emit(result)
    else:
        click.echo(f"rejected {dream_id}")


@click.command()
@click.option("--agent", "-a", required=True, help="Agent id.")
@click.option("--user", "-u", required=True, help="User id.")
@click.option("--file", "-f", "file", required=True, help="MEMORY.md, USER.md or topics/<name>.md.")
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
    if as_json:
        emit(rows)
        return
    for r in rows:
        mark = "*" if r["active"] else ("set aside" if r["set_aside"] else "")
        click.echo(f"{r['version']:>3} {mark:<9} {r['approved_at'] or '-':<27} "
                   f"{r['reviewer'] or '-':<14} {r['lines']:>3} lines {r['size']:>5} chars "
                   f"{r['dream_id'] or '(raw writes)'}")


@click.command()
@click.option("--agent", "-a", required=True, help="Agent id.")
@click.option("--user", "-u", required=True, help="User id.")
@click.option("--file", "-f", "file", required=True, help="MEMORY.md, USER.md or topics/<name>.md.")
@click.option("--to", "to", type=int, required=True, help="The version to show again.")
@click.option("--reason", "-r", required=True, help="Why.")
@click.option("--actor", type=click.Choice(CLI_ACTORS), default="user", show_default=True)
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
        emit(result)
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
    if as_json:
        emit(data)
        return
    click.echo(f"{'pair':<22} {'MEMORY.md':>11} {'USER.md':>11} {'sessions':>8} {'hours':>7} "
               f"{'dups':>4} {'past':>4} {'pending':>7} {'refused':>7} {'tokens':>7}")
    for r in data["pairs"]:
        hours = "-" if r["hours_since_dream"] is None else f"{r['hours_since_dream']:.0f}"
        click.echo(f"{r['agent'] + '/' + r['user']:<22} {r['memory'][0]:>5}/{r['memory'][1]:<5} "
                   f"{r['user_md'][0]:>5}/{r['user_md'][1]:<5} {r['sessions_since_dream']:>8} "
                   f"{hours:>7} {r['duplicates']:>4} {r['past']:>4} {r['pending']:>7} "
                   f"{r['refused']:>7} {r['tokens']:>7}")
    t = data["totals"]
    click.echo(f"{t['pairs']} pairs, {t['pending']} pending proposals, {t['over_limit']} over "
               f"the MEMORY.md limit, {t['duplicates']} duplicates, {t['past']} past time-bound "
               f"facts; dreams spent {t['tokens']} tokens, ${t['cost']:.4f} "
               f"({t['refused']} refused drafts included)")


def register(cli: click.Group) -> None:
    cli.add_command(dream)
    cli.add_command(versions)
    cli.add_command(rollback)
    cli.add_command(stats)
