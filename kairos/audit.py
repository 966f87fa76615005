"""Audit: who wrote what, when and why; what an agent knew at a moment; where
each line of a file came from; bundles an auditor can verify on their own.

Everything here reads: the event index for queries (it is indexed by pair and
time), the store for exact as-of folds and versions.  Nothing is written.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import os
from datetime import datetime
from typing import Any

from kairos.domain import SYSTEM_AGENT, MemoryStream, expected_hash, payload_of
from kairos.errors import BadInput, NotFound
from kairos.files import check_scope, file_spec
from kairos.hashing import format_time
from kairos.ids import check_id
from kairos.projections.fold import fold

COLUMNS = ("position", "event_id", "recorded_at", "type", "actor", "agent_id", "user_id",
           "file", "session_id", "text", "log_file", "log_line")
FORMATS = ("table", "jsonl", "csv")


def _when(value: str | datetime | None) -> str | None:
    if value is None:
        return None
    from kairos.memory import parse_when

    return format_time(parse_when(value))


def query(memory: Any, *, agent: str | None = None, user: str | None = None,
          file: str | None = None, actor: str | None = None, type: str | None = None,
          session: str | None = None, since: str | None = None, until: str | None = None,
          grep: str | None = None, limit: int | None = None) -> list[dict[str, Any]]:
    """Events matching every filter given, in global order.

    :raises BadInput: a bad id, file name or date.
    """
    for value, what in ((agent, "agent"), (user, "user"), (session, "session")):
        if value is not None and not (what == "agent" and value == SYSTEM_AGENT):
            check_id(value, what)
    if file is not None:
        file = file_spec(file).name
    rows = memory.engine.readmodel.events(
        agent=agent, user=user, file=file, actor=actor, types=[type] if type else None,
        session=session, since=_when(since), until=_when(until), grep=grep, limit=limit)
    return [{k: r[k] for k in COLUMNS} for r in rows]


def render_rows(rows: list[dict[str, Any]], fmt: str) -> str:
    """Rows as an aligned table, JSON Lines or CSV."""
    if fmt == "jsonl":
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return out.getvalue()
    if fmt != "table":
        raise BadInput(f"unknown format {fmt!r}: use {', '.join(FORMATS)}")
    lines = []
    for r in rows:
        scope = r["agent_id"] + (f"/{r['user_id']}" if r["user_id"] else "")
        text = (r["text"] or "").replace("\n", " ")
        text = text if len(text) <= 48 else text[:47] + "…"
        where = f"{r['log_file']}:{r['log_line']}" if r["log_file"] else "-"
        lines.append(f"{r['position']:>6} {r['recorded_at'][:19]}Z {r['type']:<17} "
                     f"{r['actor'] or '-':<11} {scope:<14} {r['file'] or '-':<10} "
                     f"{text:<48} {where} {r['event_id']}")
    return "".join(line + "\n" for line in lines)


def context_at(memory: Any, agent: str, user: str, as_of: str) -> dict[str, Any]:
    """What the agent had in its context at ``as_of``: the injected files
    (SOUL, ABOUT, TOOLS — the Hybrid v2 prompt) and the on-demand ones."""
    from kairos.context import assemble

    ctx = assemble(memory, agent, user, as_of=as_of, count=False)
    on_demand = {name: memory.read(agent, name, user=user, as_of=as_of).content
                 for name in ("USER.md", "MEMORY.md")}
    return {"agent": agent, "user": user, "as_of": _when(as_of), "prompt": ctx.prompt,
            "on_demand": on_demand}


def trace(memory: Any, agent: str, user: str | None, file: str, *, line: int | None = None,
          grep: str | None = None, version: int | None = None,
          as_of: str | None = None) -> list[dict[str, Any]]:
    """For each line of a file (now, as of a moment, or as a version
    published it), the dreams it came through and the raw events under it,
    with their place in the dated logs."""
    check_id(agent, "agent")
    if user is not None:
        check_id(user, "user")
    spec = file_spec(file)
    check_scope(spec, user)
    events = memory.engine.store.stream(MemoryStream.stream_id(agent, user))
    if version is not None:
        segments = _version_segments(events, spec.name, version)
    elif as_of is not None:
        until = _when(as_of)
        segments = fold(e for e in events if format_time(e.timestamp) <= (until or "")).get(
            spec.name, [])
    else:
        segments = fold(events).get(spec.name, [])
    approvals = [e for e in events if type(e).__name__ == "DreamApproved"]
    proposals = {e.event_id: e for e in events if type(e).__name__ == "DreamProposed"}
    by_id = {e.event_id: e for e in events}
    out: list[dict[str, Any]] = []
    number = 0
    for seg in segments:
        sources = list(seg[2]) if len(seg) > 2 else [seg[0]]
        dream_id = seg[0].split("#")[0] if len(seg) > 2 else None
        for text in seg[1].split("\n"):
            number += 1
            if (line is not None and number != line) or (
                    grep is not None and grep.lower() not in text.lower()):
                continue
            via = [_dream_summary(a, proposals[a.dream_id], spec.name) for a in approvals
                   if spec.name in a.contents and any(
                       len(s) > 2 and set(s[2]) & set(sources) for s in a.contents[spec.name])]
            dream = next((v for v in via if v["dream_id"] == dream_id), None)
            out.append({"line": number, "text": text, "status": "current", "dream": dream,
                        "via": via, "sources": [_source(memory, by_id.get(s), s) for s in sources]})
    if line is None and version is None and as_of is None:
        out.extend(_left(memory, spec.name, grep, approvals, proposals, by_id))
    return out


def _left(memory: Any, name: str, grep: str | None, approvals: list[Any],
          proposals: dict[str, Any], by_id: dict[str, Any]) -> list[dict[str, Any]]:
    """Lines a published dream dropped from the file: in which version they left,
    why, and what replaced them (or where they moved)."""
    out: list[dict[str, Any]] = []
    for approval in approvals:
        proposal = proposals[approval.dream_id]
        for entry in proposal.dropped:
            text = str(entry.get("text") or "")
            if entry.get("file") != name or (grep is not None and grep.lower() not in text.lower()):
                continue
            reason = str(entry.get("reason") or "")
            by = entry.get("by") or (reason.split(":", 1)[1].strip()
                                     if reason.startswith(("superseded by:", "merged into:",
                                                           "duplicate of:")) else None)
            out.append({"line": None, "text": text, "status": "left",
                        "left": {**_dream_summary(approval, proposal, name),
                                 "reason": reason, "kind": entry.get("kind") or reason.split(":")[0],
                                 "replaced_by": by if not entry.get("to") else None,
                                 "moved_to": entry.get("to")},
                        "dream": None, "via": [],
                        "sources": [_source(memory, by_id.get(s), s) for s in entry.get("sources", [])]})
    return out


def _dream_summary(approval: Any, proposal: Any, name: str) -> dict[str, Any]:
    return {"dream_id": approval.dream_id, "version": approval.versions.get(name),
            "approved_at": format_time(approval.timestamp), "reviewer": approval.reviewer,
            "policy": approval.policy, "distiller": proposal.distiller, "model": proposal.model,
            "proposed_at": format_time(proposal.timestamp)}


def _source(memory: Any, event: Any, event_id: str) -> dict[str, Any]:
    row = memory.engine.readmodel.event(event_id) or {}
    return {"event_id": event_id, "type": type(event).__name__ if event else None,
            "time": format_time(event.timestamp) if event else None,
            "actor": getattr(event, "actor", None), "session": getattr(event, "session", None),
            "text": getattr(event, "text", None) or getattr(event, "notes", None),
            "retracted_by": row.get("retracted_by"),
            "log": f"{row['log_file']}:{row['log_line']}" if row.get("log_file") else None}


def _version_segments(events: list[Any], name: str, number: int) -> list[list[Any]]:
    from kairos.projections.versions import replay

    if number == 0:
        return replay([], events, name, 0)
    for e in events:
        if type(e).__name__ == "DreamApproved" and e.versions.get(name) == number:
            return [list(s) for s in e.contents[name]]
    raise NotFound(f"no version {number} of {name}")


def diff(memory: Any, agent: str, user: str, file: str, old: int, new: int) -> dict[str, Any]:
    """The unified diff between two versions, with the report of the dream
    that made the newer one."""
    dreams = memory.dreams
    before = dreams.read_version(agent, user, file, old) or ""
    after = dreams.read_version(agent, user, file, new) or ""
    name = file_spec(file).name
    text = "".join(difflib.unified_diff(before.splitlines(keepends=True),
                                        after.splitlines(keepends=True),
                                        f"{name} version {old}", f"{name} version {new}"))
    explained = None
    if new > 0:
        events = memory.engine.store.stream(MemoryStream.stream_id(agent, user))
        approval = next(e for e in events if type(e).__name__ == "DreamApproved"
                        and e.versions.get(name) == new)
        shown = dreams.show(approval.dream_id)
        explained = {"dream_id": approval.dream_id, "reviewer": approval.reviewer,
                     "approved_at": format_time(approval.timestamp),
                     "distiller": shown["distiller"], "report": shown["report"],
                     "dropped": [d for d in shown["dropped"] if d.get("file") == name]}
    return {"file": name, "from": old, "to": new, "diff": text, "dream": explained}


# -- export bundles ---------------------------------------------------------------------
def latest_checkpoint(home: str) -> str:
    folder = os.path.join(home, "checkpoints")
    names = sorted(n for n in os.listdir(folder)) if os.path.isdir(folder) else []
    if not names:
        raise NotFound("no checkpoint yet: run `kairos seal` first")
    return os.path.join(folder, names[-1])


def export(memory: Any, agent: str, user: str, out: str, *, since: str | None = None,
           until: str | None = None) -> dict[str, Any]:
    """Write an auditor's bundle: the pair's (and its agent's) events with an
    inclusion proof each against the latest checkpoint, their log entries,
    the checkpoint, and a README on verifying it."""
    from kairos import checkpoints
    from kairos.logformat import day_of, file_header, render_entry
    from kairos.merkle import inclusion_proof

    check_id(agent, "agent")
    check_id(user, "user")
    if os.path.exists(out) and os.listdir(out):
        raise BadInput(f"{out} exists and is not empty")
    cp_path = latest_checkpoint(memory.home)
    cp = checkpoints.read_checkpoint(cp_path)
    size = int(cp["size"])
    hashes, positions = checkpoints.leaves(memory.engine.store)
    index_of = {p: i for i, p in enumerate(positions[:size])}
    streams = {MemoryStream.stream_id(agent, None), MemoryStream.stream_id(agent, user)}
    lo, hi = _when(since), _when(until)
    chosen = [r for r in memory.engine.store.read() if r.event.originator_id in streams
              and r.position in index_of and (lo is None or format_time(r.event.timestamp) >= lo)
              and (hi is None or format_time(r.event.timestamp) <= hi)]
    os.makedirs(out, exist_ok=True)
    days: dict[str, list[str]] = {}
    with open(os.path.join(out, "events.jsonl"), "w", encoding="utf-8") as f:
        for r in chosen:
            e = r.event
            record = {"position": r.position, "leaf_index": index_of[r.position],
                      "type": type(e).__name__, "stream": str(e.originator_id),
                      "version": e.originator_version, "time": format_time(e.timestamp),
                      "event_id": e.event_id, "payload": payload_of(e), "prev": e.prev,
                      "hash": e.hash, "inclusion": [p.hex() for p in inclusion_proof(
                          index_of[r.position], hashes[:size])]}
            f.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
            days.setdefault(day_of(e.timestamp), []).append(render_entry(r.position, e))
    for day, entries in days.items():
        path = os.path.join(out, "logs", day[:4], day[5:7], f"{day}.md")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(file_header(day) + "".join(entries))
    with open(cp_path, encoding="utf-8") as src, open(os.path.join(out, "checkpoint.json"),
                                                      "w", encoding="utf-8") as dst:
        dst.write(src.read())
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8") as f:
        f.write(BUNDLE_README.format(agent=agent, user=user, count=len(chosen), size=size,
                                     since=lo or "the beginning", until=hi or "the checkpoint",
                                     root=cp["root"]))
    return {"out": out, "events": len(chosen), "checkpoint_size": size,
            "log_files": len(days)}


BUNDLE_README = """# Kairos audit bundle: agent `{agent}`, user `{user}`

{count} events of this agent and pair, recorded from {since} to {until}, out of
the {size} events sealed by `checkpoint.json` (Merkle root `{root}`).

- `events.jsonl` — one event a line: its fields, its hash, and an inclusion
  proof (RFC 6962) of that event in the checkpoint's Merkle tree.
- `logs/` — the same events as they stand in the home's dated logs.
- `checkpoint.json` — the checkpoint, signed with Ed25519 when the home has a key.

To verify it, with Kairos installed (`pip install kairos-memory`):

    kairos verify --bundle THIS_FOLDER --public-key THE_HOMES_KEY.pub

It recomputes every event's hash from its fields, checks each inclusion proof
against the checkpoint's root, checks that the events of each stream link by
their hashes, and checks the checkpoint's signature against the public key
you obtained from the home's operators (not from this bundle).  Any change to
any event, or to the checkpoint, makes it fail.
"""


def verify_bundle(folder: str, public_key: str | None = None) -> dict[str, Any]:
    """Check an export bundle on its own, without the home it came from."""
    from kairos import checkpoints
    from kairos.domain import EVENT_TYPES
    from kairos.hashing import parse_time
    from kairos.merkle import leaf_hash, verify_inclusion

    cp = checkpoints.read_checkpoint(os.path.join(folder, "checkpoint.json"))
    trusted = checkpoints.public_key_text(public_key) if public_key else None
    problems: list[str] = []
    wrong = checkpoints.check_signature(cp, trusted)
    if wrong:
        problems.append(wrong)
    root, size = bytes.fromhex(str(cp["root"])), int(cp["size"])
    heads: dict[str, tuple[int, str]] = {}
    count = 0
    try:
        with open(os.path.join(folder, "events.jsonl"), encoding="utf-8") as f:
            lines = f.readlines()
    except OSError as e:
        raise BadInput(f"{folder} is not a Kairos bundle: {e}") from None
    from uuid import UUID

    for n, text in enumerate(lines, 1):
        count += 1
        rec = json.loads(text)
        cls = EVENT_TYPES.get(rec["type"])
        if cls is None:
            problems.append(f"events.jsonl:{n}: unknown type {rec['type']!r}")
            continue
        event = cls(originator_id=UUID(rec["stream"]), originator_version=rec["version"],
                    timestamp=parse_time(rec["time"]), event_id=rec["event_id"],
                    prev=rec["prev"], hash=rec["hash"], **rec["payload"],
                    **({"originator_topic": "kairos.domain:MemoryStream"}
                       if rec["type"] == "StreamOpened" else {}))
        if expected_hash(event) != rec["hash"]:
            problems.append(f"events.jsonl:{n} (position {rec['position']}): the hash does "
                            "not match the event's fields")
        leaf = leaf_hash(f"{rec['position']} {rec['hash']}".encode())
        if not verify_inclusion(rec["leaf_index"], size, leaf,
                                [bytes.fromhex(p) for p in rec["inclusion"]], root):
            problems.append(f"events.jsonl:{n} (position {rec['position']}): not in the "
                            "checkpoint's tree")
        version, head = heads.get(rec["stream"], (0, ""))
        if version and rec["version"] == version + 1 and rec["prev"] != head:
            problems.append(f"events.jsonl:{n} (position {rec['position']}): does not link "
                            "to the event before it in its stream")
        heads[rec["stream"]] = (rec["version"], rec["hash"])
    return {"ok": not problems, "events": count, "checkpoint_size": size, "problems": problems,
            "signed": bool(cp.get("signature"))}


__all__ = ["context_at", "diff", "export", "query", "render_rows", "trace",
           "verify_bundle"]
