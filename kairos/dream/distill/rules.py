"""The ``rules`` distiller: deterministic, offline, the default.

Same context in, byte-identical draft out.  Each night it derives the pair's
files again from their sources (:mod:`~kairos.dream.distill.derive`): every live
write, line by line, read against the time it was written in the user's
timezone.  The four phases of the report:

1. **Orient** — the current lines of MEMORY.md, USER.md and the topic files,
   and the live units (lines of writes) they come from.
2. **Gather signal** — duplicates after normalization, updates (same subject
   and attribute), relative time, lines that address the model, the class of
   each fact (durable, time-bound, note).
3. **Consolidate** — duplicates merged into the wording that says most (else
   the newest) citing every source; notes of one fact that each add a detail
   told as one line that keeps them all; the newer of an update wins (the older
   line stays in history, and comes back if the update is retracted); time
   made absolute and, once over, put in the past tense; time-bound facts
   over for longer than the TTL moved to ``topics/archive.md``.
4. **Prune and index** — while MEMORY.md is over its limit, lines move to
   topic files by theme behind a pointer line: past time-bound lines first,
   then notes, durable facts last.

Lines a distiller wrote from session notes (citing a ``SessionEnded``) are
kept as they are: the rules cannot derive them.
"""

from __future__ import annotations

from kairos.domain.files import TOPIC_LIMIT
from kairos.dream.distill.base import Context, Draft
from kairos.dream.distill.derive import ARCHIVE, Settings, Unit, derive
from kairos.dream.distill.when import zone

__all__ = ["ARCHIVE", "RulesDistiller", "settings_of", "units_of"]


def settings_of(context: Context) -> Settings:
    return Settings(now=context.now, tz=zone(context.timezone), names=context.names,
                    ttl_days=context.ttl_days, limits=dict(context.limits), topic_limit=TOPIC_LIMIT)


def units_of(context: Context) -> list[Unit]:
    """The live facts of the pair: each line of each write still in a file's
    raw fold, and of each write a current line cites; lines the rules cannot
    derive (from session notes) as they are."""
    units: dict[tuple[str, int], Unit] = {}

    def add(event_id: str, home: str) -> None:
        src = context.sources.get(event_id)
        if src is None or src.type != "MemoryWritten":
            return
        for i, text in enumerate(src.text.split("\n")):
            if text.strip() and (event_id, i) not in units:
                units[(event_id, i)] = Unit((event_id, i), text.strip(), (event_id,), home, src.time,
                                            src.version)

    raw = {name: set(ids) for name, ids in context.raw.items()}
    for name, ids in sorted(context.raw.items()):
        for event_id in ids:
            add(event_id, name)
    for name, lines in sorted(context.files.items()):
        for k, ln in enumerate(lines):
            writes = [s for s in ln.sources if s in context.sources
                      and context.sources[s].type == "MemoryWritten"]
            if writes and len(writes) == len(ln.sources):
                for s in writes:
                    src = context.sources[s]
                    add(s, src.file if src.file and s in raw.get(src.file, ()) else name)
            elif ln.sources:
                key = (ln.sources[0], -1 - k)
                version = min((context.sources[s].version for s in ln.sources if s in context.sources),
                              default=0)
                units[key] = Unit(key, ln.text, tuple(ln.sources), name, ln.first_at, version,
                                  opaque=True)
    return sorted(units.values(), key=lambda u: (u.written, u.order, u.key))


class RulesDistiller:
    name = "rules"

    def distil(self, context: Context) -> Draft:
        current = {name: [(ln.text, ln.sources) for ln in lines] for name, lines in context.files.items()}
        plan = derive(units_of(context), current, settings_of(context))
        writes = sum(1 for s in context.signals if s.type == "MemoryWritten")
        retractions = sum(1 for s in context.signals if s.type == "MemoryRetracted")
        sessions = sum(1 for s in context.signals if s.type == "SessionEnded")
        report = {"orient": {name: len(lines) for name, lines in sorted(context.files.items())},
                  **plan.report}
        report["gather"] = {"since_cutoff": {"writes": writes, "retractions": retractions,
                                             "sessions": sessions}, **plan.report["gather"]}
        return Draft(files=plan.files, dropped=plan.dropped, report=report)
