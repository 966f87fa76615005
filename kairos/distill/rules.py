"""The ``rules`` distiller: deterministic, offline, the default.

Same context in, byte-identical draft out.  The four phases:

1. **Orient** — the current lines of MEMORY.md, USER.md and the topic files,
   each with the events it came from.
2. **Gather signal** — what happened since the last cutoff; duplicates
   (the same words, ignoring case and punctuation) and near-duplicates
   (word overlap at or above :data:`NEAR`); contradictions (two lines about
   the same subject: the same ``Key:`` or the same multi-word subject before
   a verb such as "is" or "moved"); relative time; lines older than the TTL.
3. **Consolidate** — merge duplicates into their newest wording citing all
   sources; newest wins a contradiction (the older line stays in history);
   relative time becomes absolute, and past events take the past tense;
   stale lines are dropped, each with its reason.
4. **Prune and index** — fit the limits: MEMORY.md's oldest lines move to
   ``topics/archive.md`` behind a one-line pointer (moved, not lost);
   USER.md's oldest lines are dropped as over the limit.

Session notes are not turned into facts here (the ``llm`` distiller does).
"""

from __future__ import annotations

import re
from datetime import timedelta

from kairos.distill.base import Context, Draft, Line
from kairos.distill.timewords import resolve

NEAR = 0.85  # word-set overlap (Jaccard) at which two lines count as one fact
ARCHIVE = "topics/archive.md"
KEY = re.compile(r"^\s*([A-Za-z][\w /-]{0,38}):\s*\S")
SUBJECT = re.compile(r"^(?P<subject>.+?)\s+(?:is|are|was|were|has|have|moved|changed|lives|"
                     r"works)\b", re.I)
WORD = re.compile(r"[\w']+")


def words(text: str) -> frozenset[str]:
    return frozenset(w.lower() for w in WORD.findall(text))


def norm(text: str) -> str:
    return " ".join(w.lower() for w in WORD.findall(text))


def subject_of(text: str) -> str | None:
    """The thing a line is about, when the line says clearly: ``Key: …`` or
    a multi-word (or possessive) subject before a linking verb."""
    m = KEY.match(text)
    if m:
        return "key:" + m.group(1).strip().lower()
    m = SUBJECT.match(text)
    if m:
        subject = m.group("subject").strip().lower()
        if len(subject.split()) >= 2 or "'s" in subject:
            return "subject:" + subject
    return None


def similar(a: Line, b: Line) -> bool:
    """The same fact: the same words, or nearly, and never different numbers
    ("at 10:00" and "at 11:00" are two facts, however alike the rest)."""
    if norm(a.text) == norm(b.text):
        return True
    wa, wb = words(a.text), words(b.text)
    if {w for w in wa if any(c.isdigit() for c in w)} != {
            w for w in wb if any(c.isdigit() for c in w)}:
        return False
    return bool(wa and wb) and len(wa & wb) / len(wa | wb) >= NEAR


class RulesDistiller:
    name = "rules"

    def distil(self, context: Context) -> Draft:
        orient = {name: [{"text": ln.text, "sources": list(ln.sources)} for ln in lines]
                  for name, lines in sorted(context.files.items())}
        report: dict[str, object] = {"orient": orient}
        gather: dict[str, object] = {
            "since_cutoff": {kind: sum(1 for s in context.signals if s.type == t)
                             for kind, t in (("writes", "MemoryWritten"),
                                             ("retractions", "MemoryRetracted"),
                                             ("sessions", "SessionEnded"))}}
        dropped: list[dict[str, object]] = []
        out: dict[str, list[tuple[str, list[str]]]] = {}
        consolidate = {"merged": 0, "superseded": 0, "rewritten": [], "stale": 0}
        duplicates: list[list[str]] = []
        contradictions: list[dict[str, str]] = []
        relative: list[dict[str, str]] = []
        stale: list[dict[str, str]] = []
        for name in ("USER.md", "MEMORY.md"):
            lines = self._merge(context.files.get(name, []), duplicates, consolidate)
            lines = self._contradictions(name, lines, contradictions, dropped, consolidate)
            if name == "MEMORY.md" and context.ttl_days > 0:
                lines = self._stale(context, name, lines, stale, dropped, consolidate)
            rewritten = []
            for ln in lines:
                text, end = resolve(ln.text, ln.written_at, context.now)
                if text != ln.text:
                    relative.append({"text": ln.text, "resolved": text})
                    consolidate["rewritten"].append({"from": ln.text, "to": text})  # type: ignore[attr-defined]
                rewritten.append((text, ln))
            out[name] = [(text, list(ln.sources)) for text, ln in rewritten]
        gather.update(duplicates=duplicates, contradictions=contradictions,
                      relative_time=relative, stale=stale)
        report["gather"] = gather
        report["consolidate"] = consolidate
        report["prune"] = self._prune(context, out, dropped)
        return Draft(files=out, dropped=dropped, report=report)

    # -- phases ------------------------------------------------------------------
    @staticmethod
    def _merge(lines: list[Line], duplicates: list[list[str]],
               consolidate: dict[str, object]) -> list[Line]:
        groups: list[list[Line]] = []
        for ln in lines:
            for group in groups:
                if similar(group[0], ln):
                    group.append(ln)
                    break
            else:
                groups.append([ln])
        merged = []
        for group in groups:
            if len(group) == 1:
                merged.append(group[0])
                continue
            duplicates.append([ln.text for ln in group])
            consolidate["merged"] = int(consolidate["merged"]) + len(group) - 1  # type: ignore[call-overload]
            newest = max(group, key=lambda ln: ln.written_at)
            sources = tuple(dict.fromkeys(s for ln in group for s in ln.sources))
            merged.append(Line(newest.text, sources, newest.written_at,
                               min(ln.first_at for ln in group)))
        return merged

    @staticmethod
    def _contradictions(name: str, lines: list[Line], found: list[dict[str, str]],
                        dropped: list[dict[str, object]],
                        consolidate: dict[str, object]) -> list[Line]:
        newest: dict[str, Line] = {}
        for ln in lines:
            subject = subject_of(ln.text)
            if subject and (subject not in newest or ln.written_at >= newest[subject].written_at):
                newest[subject] = ln
        kept = []
        for ln in lines:
            subject = subject_of(ln.text)
            winner = newest.get(subject) if subject else None
            if winner is not None and winner is not ln:
                found.append({"older": ln.text, "newer": winner.text})
                dropped.append({"file": name, "text": ln.text, "sources": list(ln.sources),
                                "reason": f"superseded by: {winner.text}"})
                consolidate["superseded"] = int(consolidate["superseded"]) + 1  # type: ignore[call-overload]
            else:
                kept.append(ln)
        return kept

    @staticmethod
    def _stale(context: Context, name: str, lines: list[Line], found: list[dict[str, str]],
               dropped: list[dict[str, object]], consolidate: dict[str, object]) -> list[Line]:
        limit = context.now - timedelta(days=context.ttl_days)
        kept = []
        for ln in lines:
            if ln.written_at < limit:
                last = ln.written_at.date().isoformat()
                found.append({"text": ln.text, "last_confirmed": last})
                dropped.append({"file": name, "text": ln.text, "sources": list(ln.sources),
                                "reason": f"stale: last confirmed {last}, older than the "
                                          f"{context.ttl_days}-day TTL"})
                consolidate["stale"] = int(consolidate["stale"]) + 1  # type: ignore[call-overload]
            else:
                kept.append(ln)
        return kept

    @staticmethod
    def _prune(context: Context, out: dict[str, list[tuple[str, list[str]]]],
               dropped: list[dict[str, object]]) -> dict[str, object]:
        moved: list[dict[str, str]] = []

        def size(lines: list[tuple[str, list[str]]]) -> int:
            return max(sum(len(t) + 1 for t, _ in lines) - 1, 0)

        user = out.get("USER.md", [])
        while user and size(user) > context.limits["USER.md"]:
            text, sources = user.pop(0)
            dropped.append({"file": "USER.md", "text": text, "sources": sources,
                            "reason": "over the limit"})
        memory = out.get("MEMORY.md", [])
        if size(memory) > context.limits["MEMORY.md"]:
            archive = [(ln.text, list(ln.sources)) for ln in context.files.get(ARCHIVE, [])]
            keep = list(memory)
            gone: list[tuple[str, list[str]]] = []

            def with_pointer() -> list[tuple[str, list[str]]]:
                sources = list(dict.fromkeys(s for _, src in gone for s in src))
                pointer = (f"{len(gone)} older facts moved to {ARCHIVE}.", sources)
                return [*keep, pointer]

            while keep and size(with_pointer()) > context.limits["MEMORY.md"]:
                gone.append(keep.pop(0))
            for text, _ in gone:
                moved.append({"text": text, "to": ARCHIVE})
            out["MEMORY.md"] = with_pointer()
            out[ARCHIVE] = archive + gone
        return {"sizes": {name: [size(lines), context.limits.get(name, 0)]
                          for name, lines in sorted(out.items())},
                "moved": moved}
