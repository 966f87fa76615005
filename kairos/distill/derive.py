"""Derive a pair's files from their sources, every night, from scratch.

The rules distiller does not edit last night's text.  It takes every live
fact of the pair — each line of each write that is neither retracted nor
replaced (a *unit*), with the time it was written — and derives the files
again for ``now``:

1. **Read** each unit: its time words against the time it was written, in the
   user's timezone (:mod:`~kairos.distill.when`); its class (durable,
   time-bound, note: :mod:`~kairos.distill.facts`); whether it addresses the
   model (:mod:`~kairos.distill.faithful`) — such a line is dropped, with
   that reason.
2. **Supersede**: a newer unit that updates an older one — same subject, same
   attribute (:mod:`~kairos.distill.slots`) — replaces it; a future-dated
   update ("is moving to Hamburg on 1 June") waits for its date.  Retract the
   update and the older unit is live again, since nothing derives from a
   retracted event.
3. **Merge** duplicates (:func:`~kairos.distill.facts.same_fact` after
   normalization) into one line citing every source: the wording that says
   most, else the newest.
4. **Age**: a time-bound fact whose time is over takes the past tense; once
   it has been over for ``ttl_days`` (or, undated, "currently …", was written
   that long ago) it moves to ``topics/archive.md``.  Durable facts never age
   out.
5. **Fit**: while MEMORY.md is over its limit, lines move out to topic files
   by theme (``topics/reading.md``, ``topics/food.md`` …) behind one pointer
   line each: past time-bound lines first, then notes, then future
   time-bound lines, durable facts last — never a durable fact while a note
   stays.

The same units, the same ``now`` and the same settings give the same lines:
two dreams in a row on unchanged input propose nothing.  Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any

from kairos.distill import facts, faithful, slots, when

ARCHIVE = "topics/archive.md"
POINTER = re.compile(r"^More in (topics/[a-z0-9][a-z0-9-]*\.md)\.$")
MAIN = ("USER.md", "MEMORY.md")
_PLACE_ORDER = {"USER.md": 0, "MEMORY.md": 1}


def pointer(name: str) -> str:
    """The line MEMORY.md keeps for a topic file lines moved to."""
    return f"More in {name}."


@dataclass(frozen=True)
class Unit:
    """One line of one source event, or a line the rules keep as it is."""

    key: tuple[str, int]  # (event id, line index)
    text: str
    sources: tuple[str, ...]
    home: str  # the file it belongs in
    written: datetime
    order: int  # the stream version of its event, for a stable order
    opaque: bool = False  # a line a distiller wrote from notes: kept verbatim


@dataclass(frozen=True)
class Settings:
    now: datetime
    tz: tzinfo
    names: frozenset[str] = frozenset()  # the user's own names, for "Mia" = "I" = "Name: …"
    ttl_days: int = 30
    limits: dict[str, int] = field(default_factory=lambda: {"MEMORY.md": 5000, "USER.md": 2000})
    topic_limit: int = 5000


@dataclass
class Fact:
    """A unit read by the rules."""

    unit: Unit
    timed: when.Timed
    kind: facts.Kind
    claims: list[slots.Claim]
    norm: tuple[str, ...]
    instruction: str | None
    superseded_by: Fact | None = None
    pending: bool = False  # an update whose date has not come

    @property
    def text(self) -> str:
        return self.unit.text if self.unit.opaque else self.timed.text


@dataclass
class Line:
    """A line of the derived files."""

    facts: list[Fact]
    head: Fact
    file: str

    @property
    def text(self) -> str:
        return self.head.text

    @property
    def sources(self) -> list[str]:
        ordered = sorted(self.facts, key=lambda f: (f.unit.written, f.unit.order, f.unit.key))
        return list(dict.fromkeys(s for f in ordered for s in f.unit.sources))

    @property
    def first(self) -> tuple[datetime, int, tuple[str, int]]:
        return min((f.unit.written, f.unit.order, f.unit.key) for f in self.facts)


@dataclass
class Plan:
    files: dict[str, list[tuple[str, list[str]]]]
    dropped: list[dict[str, Any]]
    report: dict[str, Any]


def read(unit: Unit, settings: Settings) -> Fact:
    timed = when.resolve(unit.text, unit.written, settings.now, settings.tz)
    if unit.opaque:
        timed = when.Timed(unit.text, unit.text)
    return Fact(unit, timed, facts.classify(unit.text, timed),
                slots.claims_of(unit.text, settings.names), facts.normalize(timed.text),
                faithful.addresses_model(unit.text))


def _supersede(live: list[Fact], settings: Settings) -> None:
    ordered = sorted(live, key=lambda f: (f.unit.written, f.unit.order, f.unit.key))
    today = when.local_day(settings.now, settings.tz)
    for j, newer in enumerate(ordered):
        t = newer.timed
        # "is moving to Hamburg on 1 June": she lives where she lives until then.
        # "the deadline moved to 15 July" is true now: the date is its value.
        newer.pending = bool(t.end and t.end >= today and not t.written_past and len(newer.claims) <= 1
                             and not any(c.attribute == "when" for c in newer.claims))
        if newer.pending or newer.unit.opaque:
            continue
        for older in ordered[:j]:
            if older.unit.opaque or older.norm == newer.norm:
                continue
            ot = older.timed
            if ot.end and ot.end >= today and not ot.written_past and not newer.timed.dated and \
                    not any(c.negated for c in newer.claims):
                continue  # a plan still ahead is not undone by a statement of how things are
            if any(slots.decide(o, n) for o in older.claims for n in newer.claims):
                older.superseded_by = newer
    for f in ordered:  # chains: what replaced it is what is live now
        seen = set()
        while f.superseded_by is not None and f.superseded_by.superseded_by is not None and \
                id(f.superseded_by) not in seen:
            seen.add(id(f.superseded_by))
            f.superseded_by = f.superseded_by.superseded_by


def _merge(live: list[Fact]) -> list[list[Fact]]:
    groups: list[list[Fact]] = []
    index: dict[str, list[int]] = {}
    for f in sorted(live, key=lambda f: (f.unit.written, f.unit.order, f.unit.key)):
        counts: dict[int, int] = {}
        for tok in set(f.norm):
            for g in index.get(tok, ()):
                counts[g] = counts.get(g, 0) + 1
        found = None
        for g in sorted(counts, key=lambda g: (-counts[g], g)):
            if counts[g] < min(2, len(set(f.norm))):
                break
            if any(facts.same_fact(f.norm, other.norm) for other in groups[g]) and \
                    not any(f.unit.opaque or other.unit.opaque for other in groups[g]):
                found = g
                break
        if found is None:
            found = len(groups)
            groups.append([])
            for tok in set(f.norm):
                index.setdefault(tok, []).append(found)
        groups[found].append(f)
    return groups


def _head(group: list[Fact]) -> Fact:
    """The wording a merged line keeps: the one that says most, else the newest."""
    newest = max(group, key=lambda f: (f.unit.written, f.unit.order, f.unit.key))
    best = newest
    for f in group:
        if f is not best and facts.more_informative(f.text, best.text):
            best = f
    return best


def _home(group: list[Fact]) -> str:
    homes = {f.unit.home for f in group}
    return min(homes, key=lambda h: (_PLACE_ORDER.get(h, 2), h))


def _size(lines: list[Line]) -> int:
    return max(sum(len(ln.text) + 1 for ln in lines) - 1, 0)


def derive(units: list[Unit], current: dict[str, list[tuple[str, tuple[str, ...]]]],
           settings: Settings) -> Plan:
    """The pair's files as the rules derive them from ``units`` at ``settings.now``.

    ``current`` is what the files hold now (file -> [(text, sources)]): only
    used to say, for each line that leaves, why and where it went.
    """
    read_facts = [read(u, settings) for u in units]
    instructions = [f for f in read_facts if f.instruction]
    live = [f for f in read_facts if not f.instruction]
    _supersede(live, settings)
    superseded = [f for f in live if f.superseded_by is not None]
    live = [f for f in live if f.superseded_by is None]
    groups = _merge(live)
    lines = [Line(g, _head(g), _home(g)) for g in groups]
    today = when.local_day(settings.now, settings.tz)
    archived: list[Line] = []
    for ln in lines:
        t = ln.head.timed
        if ln.head.kind.cls != facts.TIME_BOUND or ln.file not in MAIN:
            continue
        if t.end is not None and t.over and (today - t.end).days > settings.ttl_days:
            ln.file = ARCHIVE
            archived.append(ln)
        elif t.end is None and t.currently and \
                (today - when.local_day(ln.head.unit.written, settings.tz)).days > settings.ttl_days:
            ln.file = ARCHIVE
            archived.append(ln)
    moved = _fit(lines, settings)
    files: dict[str, list[Line]] = {}
    for ln in sorted(lines, key=lambda ln: ln.first):
        files.setdefault(ln.file, []).append(ln)
    files = _split_topics(files, settings.topic_limit)
    out: dict[str, list[tuple[str, list[str]]]] = {
        name: [(ln.text, ln.sources) for ln in file_lines] for name, file_lines in files.items()}
    pointers = _pointers(files, moved)
    if pointers:
        out.setdefault("MEMORY.md", []).extend(pointers)
    for name in current:
        out.setdefault(name, [])
    dropped = _dropped(current, out, superseded, instructions, lines)
    rewritten = [ln for ln in lines if not ln.head.unit.opaque and ln.head.timed.text != ln.head.unit.text]
    report = {
        "gather": {
            "units": len(units), "duplicates": [[f.text for f in g] for g in groups if len(g) > 1],
            "contradictions": [{"older": f.unit.text, "newer": f.superseded_by.unit.text}
                               for f in superseded if f.superseded_by is not None],
            "relative_time": [{"text": ln.head.unit.text, "resolved": ln.text} for ln in rewritten],
            "instructions": [f.unit.text for f in instructions],
            "classes": {cls: sum(1 for ln in lines if ln.head.kind.cls == cls)
                        for cls in (facts.DURABLE, facts.TIME_BOUND, facts.NOTE)},
        },
        "consolidate": {"merged": sum(len(g) - 1 for g in groups), "superseded": len(superseded),
                        "rewritten": len(rewritten), "archived": len(archived),
                        "past": sum(1 for ln in lines if ln.head.kind.cls == facts.TIME_BOUND
                                    and ln.head.timed.over),
                        "dropped_instructions": len(instructions)},
        "prune": {"sizes": {name: [max(sum(len(t) + 1 for t, _ in lines_) - 1, 0),
                                   settings.limits.get(name, settings.topic_limit)]
                            for name, lines_ in sorted(out.items()) if lines_},
                  "moved": len(moved) + len(archived)},
    }
    return Plan({name: lines_ for name, lines_ in out.items()}, dropped, report)


def _fit(lines: list[Line], settings: Settings) -> list[Line]:
    """Move lines out of MEMORY.md by theme until it fits (pointers included)."""
    limit = settings.limits.get("MEMORY.md", 5000)
    memory = [ln for ln in lines if ln.file == "MEMORY.md"]
    if _size(memory) <= limit:
        return []
    today = when.local_day(settings.now, settings.tz)

    def rank(ln: Line) -> tuple[int, Any]:
        t, cls = ln.head.timed, ln.head.kind.cls
        if cls == facts.TIME_BOUND and t.over:
            return (0, ln.first)
        if cls == facts.NOTE:
            return (1, ln.first)
        if cls == facts.TIME_BOUND:
            return (2, (t.end or today, ln.first))
        return (3, ln.first)

    moved: list[Line] = []
    themes: set[str] = set()
    for ln in sorted(memory, key=rank):
        keep = [x for x in memory if x.file == "MEMORY.md"]
        pointer_size = sum(len(pointer(f"topics/{t}.md")) + 1 for t in themes)
        if _size(keep) + pointer_size <= limit:
            break
        theme = "archive" if rank(ln)[0] == 0 else facts.theme_of(ln.text)
        ln.file = f"topics/{theme}.md"
        themes.add(theme)
        moved.append(ln)
    return moved


def _split_topics(files: dict[str, list[Line]], limit: int) -> dict[str, list[Line]]:
    """A topic file past the topic limit continues in <name>-2.md, -3.md …"""
    out: dict[str, list[Line]] = {}
    for name, lines in files.items():
        if name in MAIN or _size(lines) <= limit:
            out[name] = lines
            continue
        base, n = name[:-3], 1
        chunk: list[Line] = []
        for ln in lines:
            if chunk and _size([*chunk, ln]) > limit:
                out[name if n == 1 else f"{base}-{n}.md"] = chunk
                n, chunk = n + 1, []
            chunk.append(ln)
        out[name if n == 1 else f"{base}-{n}.md"] = chunk
    return out


def _pointers(files: dict[str, list[Line]], moved: list[Line]) -> list[tuple[str, list[str]]]:
    out = []
    targets = sorted({name for name, lines in files.items() if name not in MAIN and any(
        ln in moved for ln in lines)})
    for name in targets:
        sources = list(dict.fromkeys(s for ln in files[name] if ln in moved for s in ln.sources))
        out.append((pointer(name), sources))
    return out


def _dropped(current: dict[str, list[tuple[str, tuple[str, ...]]]],
             out: dict[str, list[tuple[str, list[str]]]], superseded: list[Fact],
             instructions: list[Fact], lines: list[Line]) -> list[dict[str, Any]]:
    """For every current line that does not stay as it is: why, and where to."""
    where: dict[str, list[tuple[str, str]]] = {}
    for name, file_lines in out.items():
        for text, sources in file_lines:
            if POINTER.match(text):
                continue
            for s in sources:
                where.setdefault(s, []).append((name, text))
    fates: dict[str, dict[str, Any]] = {}
    for f in superseded:
        by = f.superseded_by
        assert by is not None
        for s in f.unit.sources:
            fates[s] = {"kind": "superseded", "reason": f"superseded by: {by.text}", "by": by.text}
    for f in instructions:
        for s in f.unit.sources:
            fates[s] = {"kind": "instruction", "reason": "instruction: " + str(f.instruction)}
    dropped = []
    for name, now_lines in current.items():
        kept = {(t, tuple(s)) for t, s in out.get(name, [])}
        for text, cited in now_lines:
            sources = list(cited)
            if (text, tuple(sources)) in kept or POINTER.match(text):
                continue
            homes = [w for s in sources for w in where.get(s, [])]
            entry: dict[str, Any] = {"file": name, "text": text, "sources": list(sources)}
            lost = [s for s in sources if s not in where]
            if lost and lost[0] in fates:
                entry.update(fates[lost[0]])
            elif homes and all(h[0] == name for h in homes):
                continue  # rewritten in place (time, wording, a new source)
            elif homes:
                target = sorted({h for h in homes if h[0] != name})
                if target:
                    entry.update(kind="moved", to=target[0][0],
                                 reason=f"moved to {target[0][0]}", by=target[0][1])
                else:
                    entry.update(kind="merged", reason=f"merged into: {homes[0][1]}", by=homes[0][1])
            else:
                entry.update(kind="unexplained", reason="no longer derived from its sources")
            dropped.append(entry)
    return dropped
