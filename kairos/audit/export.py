"""Export bundles an auditor can verify on their own, and their verification.

A bundle holds one pair's (and its agent's) events, each with an inclusion
proof (RFC 6962) against the home's latest signed checkpoint, their entries
as the dated logs hold them, the checkpoint, and a README.
:func:`verify_bundle` needs nothing but the bundle (and the home's public
key): a bundle changed in any way — an event edited, a line that no longer
parses, a field missing or of the wrong type — reports the problem and
fails, never crashes.
"""

from __future__ import annotations

import json
import os
from typing import Any
from uuid import UUID

from kairos.audit.checkpoints import check_signature, leaves, public_key_text, read_checkpoint
from kairos.domain.events import EVENT_TYPES, MemoryStream, Recorded, expected_hash, payload_of
from kairos.domain.hashing import format_time, parse_time
from kairos.domain.ids import check_id
from kairos.domain.inputs import when_text
from kairos.domain.kinds import EventType
from kairos.domain.logformat import day_of, file_header, render_entry
from kairos.domain.merkle import inclusion_proof, leaf_hash, verify_inclusion
from kairos.errors import BadInput, KairosError, NotFound, disk_errors
from kairos.ports import Decrypter, History
from kairos.progress import SILENT, Progress, counted

# The fields of an events.jsonl record, with their JSON types.
RECORD = {"position": int, "leaf_index": int, "type": str, "stream": str, "version": int,
          "time": str, "event_id": str, "payload": dict, "prev": str, "hash": str,
          "inclusion": list}


def latest_checkpoint(home: str) -> str:
    """:raises NotFound: no checkpoint was sealed yet."""
    folder = os.path.join(home, "checkpoints")
    names = sorted(n for n in os.listdir(folder)) if os.path.isdir(folder) else []
    if not names:
        raise NotFound("no checkpoint yet: run `kairos seal` first")
    return os.path.join(folder, names[-1])


@disk_errors
def export(history: History, home: str, agent: str, user: str, out: str, *,
           since: str | None = None, until: str | None = None,
           progress: Progress = SILENT, decrypt: Decrypter | None = None) -> dict[str, Any]:
    """Write an auditor's bundle: the pair's (and its agent's) events with an
    inclusion proof each against the latest checkpoint, their log entries,
    the checkpoint, and a README on verifying it.  Two passes over every
    event (the Merkle leaves, then the pair's events): ``progress`` hears of
    both, and of the proofs written.

    In a home that encrypts, ``history`` gives the events as stored (their
    hashes cover the encrypted content) and ``decrypt`` decrypts one: a
    record then also carries ``decrypted``, the content fields in clear,
    ``null`` where an erasure destroyed the key (and ``erased``).

    :raises BadInput: bad ids or dates, or ``out`` is not empty.
    :raises NotFound: no checkpoint yet.
    """
    check_id(agent, "agent")
    check_id(user, "user")
    if os.path.exists(out) and os.listdir(out):
        raise BadInput(f"{out} exists and is not empty")
    cp_path = latest_checkpoint(home)
    cp = read_checkpoint(cp_path)
    size = int(cp["size"])
    hashes, positions = leaves(history, progress)
    index_of = {p: i for i, p in enumerate(positions[:size])}
    streams = {MemoryStream.stream_id(agent, None), MemoryStream.stream_id(agent, user)}
    lo, hi = when_text(since, since=True), when_text(until)
    progress.phase("choose the pair's events", history.max_position())
    def wanted(r: Recorded) -> bool:
        return (r.event.originator_id in streams and r.position in index_of
                and (lo is None or format_time(r.event.timestamp) >= lo)
                and (hi is None or format_time(r.event.timestamp) <= hi))

    chosen = []
    erasures: dict[UUID, int] = {}  # stream -> position of its last erasure
    for r in counted(history.read(), progress):
        if r.event.kind is EventType.ERASED:
            erasures[r.event.originator_id] = r.position
        if wanted(r):
            chosen.append(r)
    os.makedirs(out, exist_ok=True)
    days: dict[str, list[str]] = {}
    progress.phase("write proofs", len(chosen))
    with open(os.path.join(out, "events.jsonl"), "w", encoding="utf-8") as f:
        for r in counted(chosen, progress):
            e = r.event
            stored = payload_of(e)
            record: dict[str, Any] = {"position": r.position, "leaf_index": index_of[r.position],
                      "type": e.kind.value, "stream": str(e.originator_id),
                      "version": e.originator_version, "time": format_time(e.timestamp),
                      "event_id": e.event_id, "payload": stored, "prev": e.prev,
                      "hash": e.hash, "inclusion": [p.hex() for p in inclusion_proof(
                          index_of[r.position], hashes[:size])]}
            shown = {k: v for k, v in payload_of(decrypt(e, r.position)).items()
                     if v != stored[k]} if decrypt is not None else {}
            if shown:
                record["decrypted"] = shown
                record["erased"] = r.position < erasures.get(e.originator_id, 0)
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
    """Check an export bundle on its own, without the home it came from.

    Returns ``ok`` and the problems found.
    :raises BadInput: ``folder`` is not a bundle at all (no events.jsonl), or
        the public key cannot be read.
    """
    try:
        with open(os.path.join(folder, "events.jsonl"), encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise BadInput(f"{folder} is not a Kairos bundle: {e}") from None
    except UnicodeDecodeError:
        lines = ["\x00"]  # reported below as a line that does not parse
    trusted = public_key_text(public_key) if public_key else None
    problems: list[str] = []
    tree = _checkpoint(folder, trusted, problems)
    heads: dict[str, tuple[int, str]] = {}
    count = 0
    for n, text in enumerate(lines[:-1] if lines[-1] == "" else lines, 1):
        count += 1
        problems.extend(_check_record(n, text, tree, heads))
    return {"ok": not problems, "events": count,
            "checkpoint_size": tree[1] if tree else None, "problems": problems,
            "signed": bool(tree and tree[2])}


def _checkpoint(folder: str, trusted: str | None, problems: list[str]
                ) -> tuple[bytes, int, bool] | None:
    """The checkpoint's (root, size, signed), or None with the problem noted."""
    try:
        cp = read_checkpoint(os.path.join(folder, "checkpoint.json"))
        root, size = bytes.fromhex(str(cp["root"])), int(cp["size"])
    except (KairosError, ValueError, TypeError) as e:
        problems.append(f"checkpoint.json: {e}")
        return None
    wrong = check_signature(cp, trusted)
    if wrong:
        problems.append(wrong)
    return root, size, bool(cp.get("signature"))


def _check_record(n: int, text: str, tree: tuple[bytes, int, bool] | None,
                  heads: dict[str, tuple[int, str]]) -> list[str]:
    """What is wrong with line ``n`` of events.jsonl (nothing: an empty list)."""
    where = f"events.jsonl:{n}"
    try:
        rec = json.loads(text)
    except ValueError:
        return [f"{where}: not a JSON record"]
    if not isinstance(rec, dict):
        return [f"{where}: not a JSON object"]
    for key, kind in RECORD.items():
        if not isinstance(rec.get(key), kind) or (kind is int and isinstance(rec[key], bool)):
            return [f"{where}: field {key!r} is missing or not a {kind.__name__}"]
    cls = EVENT_TYPES.get(rec["type"])
    if cls is None:
        return [f"{where}: unknown type {rec['type']!r}"]
    where += f" (position {rec['position']})"
    fields: dict[str, Any] = {
        "originator_id": rec["stream"], "originator_version": rec["version"],
        "event_id": rec["event_id"], "prev": rec["prev"], "hash": rec["hash"], **rec["payload"]}
    if cls is MemoryStream.StreamOpened:
        fields["originator_topic"] = MemoryStream.TOPIC
    try:
        fields.update(originator_id=UUID(rec["stream"]), timestamp=parse_time(rec["time"]))
        event = cls(**fields)
        hashed = expected_hash(event)
        proof = [bytes.fromhex(p) for p in rec["inclusion"]]
    except (TypeError, ValueError, AttributeError) as e:
        return [f"{where}: not a well-formed {rec['type']}: {e}"]
    problems = []
    if hashed != rec["hash"]:
        problems.append(f"{where}: the hash does not match the event's fields")
    leaf = leaf_hash(f"{rec['position']} {rec['hash']}".encode())
    if tree is None or not verify_inclusion(rec["leaf_index"], tree[1], leaf, proof, tree[0]):
        problems.append(f"{where}: not in the checkpoint's tree")
    version, head = heads.get(rec["stream"], (0, ""))
    if version and rec["version"] == version + 1 and rec["prev"] != head:
        problems.append(f"{where}: does not link to the event before it in its stream")
    heads[rec["stream"]] = (rec["version"], rec["hash"])
    return problems


__all__ = ["export", "latest_checkpoint", "verify_bundle"]
