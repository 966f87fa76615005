"""How the command line shows results: JSON, tables, reports.

Every command formats its answer here, so a command body is parse, call,
show.  Each function writes with ``click.echo`` and returns nothing; JSON
goes through :func:`emit`.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shlex
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # the results' types; importing them would load the event store
    from kairos.agent.context import AssembledContext
    from kairos.audit.checkpoints import CheckpointCheck
    from kairos.dream.runner import Summary
    from kairos.engine.rebuild import RebuildReport
    from kairos.engine.verify import Report
    from kairos.ports import IndexRow, ReadResult, SearchResult, WriteResult

FORMATS = ("table", "jsonl", "csv")


def emit(data: Any) -> None:
    """One compact JSON document on one line: cron appends it to a JSON Lines
    file (``>> dream.jsonl``), and every line of such a file parses alone."""
    click.echo(json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str))


def hint(text: str) -> str:
    """``text`` with each `kairos …` command it suggests naming the home, when
    the home is not the current directory: a hint read in a cron log or on
    another shell must point at the same home to be of use."""
    ctx = click.get_current_context(silent=True)
    home = (ctx.find_object(dict) or {}).get("home") if ctx is not None else None
    if not home or os.path.abspath(home) == os.getcwd():
        return text
    return text.replace("`kairos ", f"`kairos --home {shlex.quote(os.path.abspath(home))} ")


def _cut(text: str | None, width: int) -> str:
    text = (text or "").replace("\n", " ")
    return text if len(text) <= width else text[:width - 1] + "…"


def _failed(problems: list[Any]) -> None:
    click.echo(hint(f"FAILED: {problems[0]}"))
    for p in problems[1:]:
        click.echo(hint(f"also: {p}"))


# -- writes and reads ---------------------------------------------------------------
def recorded(result: WriteResult, as_json: bool) -> None:
    if as_json:
        emit(result.to_dict())
        return
    click.echo(f"{result.event_id} {result.position}")
    if result.over_limit:
        over_limit(result.file or "", result.size, result.limit)


def over_limit(file: str, size: int | None, limit: int | None) -> None:
    click.echo(f"warning: {file} is {size} chars, over its soft limit of {limit}: compress",
               err=True)


def read(result: ReadResult, as_json: bool) -> None:
    if as_json:
        emit(result.to_dict())
    elif result.content is None:
        click.echo(f"{result.file} does not exist (nothing written yet)", err=True)
    else:
        click.echo(result.content, nl=False)
        if result.over_limit:
            over_limit(result.file, result.size, result.limit)


def history(rows: list[IndexRow]) -> None:
    for r in rows:
        retracted = " [retracted]" if r["retracted_by"] else ""
        click.echo(f"{r['position']:>6} {r['recorded_at']} {r['type']:<15} {r['file'] or '-':<9} "
                   f"{r['actor'] or '-':<6} {r['event_id']}  {_cut(r['text'], 60)}{retracted}")


def searched(result: SearchResult) -> None:
    for hit in result:
        mark = " [retracted]" if hit.retracted else ""
        click.echo(f"{hit.score:.4f} {hit.where:<7} {hit.file or '-':<9} {hit.recorded_at[:19]}  "
                   f"{hit.text}{mark}")
        click.echo(f"{'':<7} events: {' '.join(hit.event_ids)}")
    if not result.hits:
        click.echo("no results", err=True)
    if result.note:
        click.echo(f"note: {result.note}", err=True)


def files(rows: list[dict[str, Any]]) -> None:
    for r in rows:
        scope = r["agent"] + (f"/{r['user']}" if r["user"] else "")
        click.echo(f"{scope:<24} {r['file']:<10} {r['size']:>5}/{r['limit']}")


# -- operations -----------------------------------------------------------------------
def rebuilt(report: RebuildReport, from_logs: bool) -> None:
    changed = report.changed
    if from_logs:
        # After a restore, files written anew are the expected outcome, not news.
        click.echo(f"imported {report.imported} events from the logs")
        changed = [c for c in changed if c["status"] != "missing"]
    click.echo(f"rebuilt {report.files} files from {report.events} events")
    if not from_logs:  # after a restore, every row is new
        for r in report.rows:
            click.echo(f"repaired {r['table']} row {r['row']} ({r['status']})")
    for c in changed:
        click.echo(f"{c['status']}: {c['file']} (was {c['was']}, now {c['now']})")
    for m in report.logs_moved:
        click.echo(f"damaged log moved aside: {m['file']} -> {m['moved_to']}")
    for path in report.logs_written:
        click.echo(f"log written from the store: {path}")


def verified(report: Report, check: CheckpointCheck | None, ok: bool, as_json: bool) -> None:
    if as_json:
        emit({**report.to_dict(), "ok": ok,
              "checkpoint": check.to_dict() if check is not None else None})
        return
    if report.ok:
        click.echo(f"ok: {report.events} events in {report.streams} streams, "
                   f"{report.log_files} log files")
    else:
        _failed(report.problems)
    for note in report.notes:
        click.echo(hint(f"note: {note}"))
    if check is not None:
        click.echo(("ok: " if check.ok else "FAILED: checkpoint: ") + check.message)


def bundle(result: dict[str, Any], as_json: bool) -> None:
    if as_json:
        emit(result)
    elif result["ok"]:
        click.echo(f"ok: {result['events']} events, each in the checkpoint of "
                   f"{result['checkpoint_size']} events"
                   + (" (signature holds)" if result["signed"] else " (unsigned)"))
    else:
        _failed(result["problems"])


def sealed(data: dict[str, Any]) -> None:
    signed = "signed" if data.get("signature") else "unsigned"
    click.echo(f"sealed {data['size']} events up to position {data['position']}, root "
               f"{data['root']} ({signed}): {data['file']}")


def erasure(e: Any) -> None:
    """An erasure's report: pairs, files and counts; never content."""
    verb = "would erase" if e.dry_run else "erased"
    for p in e.pairs:
        click.echo(f"{verb} {p['agent']}/{e.user}: {p['events']} events, "
                   f"{p['keys']} key{'s' if p['keys'] != 1 else ''}, "
                   f"files {', '.join(p['files']) or '-'}")
    click.echo(f"{verb} {len(e.pairs)} pair{'s' if len(e.pairs) != 1 else ''} of {e.user}: "
               f"{e.events} events, {e.lines} current lines"
               + ("" if e.dry_run else f", {e.vectors} embeddings"))
    if not e.dry_run and not e.compacted:
        click.echo("the keys are destroyed, but other sessions kept the database from being "
                   "compacted: old pages may still hold the text; run this again", err=True)


# -- agent ----------------------------------------------------------------------------
def compared(rows: list[dict[str, Any]]) -> None:
    click.echo(f"{'strategy':<10} {'injected':>9} {'on demand':>10}  injected files")
    for r in rows:
        click.echo(f"{r['strategy']:<10} {r['injected_tokens']:>9} {r['on_demand_tokens']:>10}"
                   f"  {', '.join(r['injected_files']) or '-'}")
    click.echo(f"tokens by {rows[0]['tokenizer']}")


def assembled(result: AssembledContext) -> None:
    click.echo(result.prompt, nl=False)
    click.echo(f"\n{'-' * 40}\n{'section':<20} {'tokens':>7}", err=True)
    for s in result.sections:
        click.echo(f"{s.title:<20} {s.tokens:>7}", err=True)
    click.echo(f"{'total':<20} {result.total_tokens:>7}   ({result.tokenizer})", err=True)
    for name, n in result.on_demand_tokens.items():
        click.echo(f"on demand: {name:<10} {n:>7}", err=True)


def tools() -> None:
    from kairos.agent.tools import MEMORY_TOOLS

    for t in MEMORY_TOOLS:
        fn = t["function"]
        required = set(fn["parameters"]["required"])
        params = ", ".join(p if p in required else f"{p}?" for p in fn["parameters"]["properties"])
        click.echo(f"{fn['name']}({params}): {fn['description']}")


# -- audit -----------------------------------------------------------------------------
def audit_rows(rows: list[dict[str, Any]], fmt: str) -> None:
    """Rows as an aligned table, JSON Lines or CSV."""
    if fmt == "jsonl":
        click.echo("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), nl=False)
        return
    if fmt == "csv":
        from kairos.audit.trace import COLUMNS

        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        click.echo(out.getvalue(), nl=False)
        return
    for r in rows:
        scope = r["agent_id"] + (f"/{r['user_id']}" if r["user_id"] else "")
        where = f"{r['log_file']}:{r['log_line']}" if r["log_file"] else "-"
        click.echo(f"{r['position']:>6} {r['recorded_at'][:19]}Z {r['type']:<17} "
                   f"{r['actor'] or '-':<11} {scope:<14} {r['file'] or '-':<10} "
                   f"{_cut(r['text'], 48):<48} {where} {r['event_id']}")


def context_at(data: dict[str, Any]) -> None:
    click.echo(f"# Context of {data['agent']} for {data['user']} as of {data['as_of']}\n")
    click.echo(data["prompt"])
    for name, text in data["on_demand"].items():
        click.echo(f"# {name} (on demand, through the memory tools)\n")
        click.echo(text if text else f"({name} did not exist yet)\n")


def traced(rows: list[dict[str, Any]]) -> None:
    """Current lines with the dreams and events under them; then lines that
    left: the version they left in, why, and what replaced them."""
    for r in rows:
        if r["status"] == "erased":
            e = r["erased"]
            click.echo(f"  x: erased at {e['time']} by {e['by']} (event {e['event_id']}): "
                       f"{e['reason']} ({e['events']} events before it; files "
                       f"{', '.join(e['files'])})")
            continue
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


def diffed(data: dict[str, Any]) -> None:
    click.echo(data["diff"] or "(no difference)\n", nl=False)
    dream = data["dream"]
    if not dream:
        return
    click.echo(f"\nversion {data['to']} came from dream {dream['dream_id']} "
               f"({dream['distiller']}), approved by {dream['reviewer']} at "
               f"{dream['approved_at']}")
    for d in dream["dropped"]:
        click.echo(f"  dropped: {d['text']}  ({d['reason']})")
    gather = dream["report"].get("gather", {})
    for c in gather.get("contradictions", []) if isinstance(gather, dict) else []:
        click.echo(f"  contradiction: {c['older']!r} -> {c['newer']!r}")
    for t in gather.get("relative_time", []) if isinstance(gather, dict) else []:
        click.echo(f"  time made absolute: {t['text']!r} -> {t['resolved']!r}")


def exported(data: dict[str, Any]) -> None:
    click.echo(f"wrote {data['events']} events and {data['log_files']} log files to "
               f"{data['out']}, provable against a checkpoint of {data['checkpoint_size']} "
               "events")


# -- dream ----------------------------------------------------------------------------
def summary(s: Summary) -> None:
    if s.already_running:
        click.echo("a dream run is in progress for this home: nothing to do")
        return
    for e in s.proposed:
        held = f"; held for review: {e['reason']}" if e.get("reason") else ""
        click.echo(hint(f"proposed {e['dream_id']} {e['agent']}/{e['user']} "
                        f"({', '.join(e['files'])}): review with `kairos dream show "
                        f"{e['dream_id']}`" + held))
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
        click.echo(hint(f"FAILED {e['agent']}/{e['user']}: {e['error']}{spent}"), err=True)
    click.echo(f"{s.examined} examined, {len(s.proposed)} proposed, {len(s.approved)} approved, "
               f"{len(s.skipped)} skipped, {len(s.failed)} failed; {s.tokens} tokens, "
               f"${s.cost:.4f}, {s.duration:.1f} s")


def dreams(rows: list[dict[str, Any]]) -> None:
    for r in rows:
        click.echo(f"{r['dream_id']}  {r['proposed_at']}  {r['agent']}/{r['user']:<12} "
                   f"{r['status']:<9} {r['summary']}")


def dream(d: dict[str, Any]) -> None:
    """A proposal: its header, each file's diff and the sources of its added
    lines, what it dropped, and the four phases' report."""
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
    _report(d["report"])


def _report(report: dict[str, Any]) -> None:
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


def versions(rows: list[dict[str, Any]]) -> None:
    for r in rows:
        mark = "*" if r["active"] else ("set aside" if r["set_aside"] else "")
        click.echo(f"{r['version']:>3} {mark:<9} {r['approved_at'] or '-':<27} "
                   f"{r['reviewer'] or '-':<14} {r['lines']:>3} lines {r['size']:>5} chars "
                   f"{r['dream_id'] or '(raw writes)'}")


def stats(data: dict[str, Any]) -> None:
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
