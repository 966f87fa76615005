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
   ``topics/archive.md`` (then ``archive-2.md``, … as each fills) behind a
   one-line pointer (moved, not lost); USER.md's oldest lines are dropped as
   over the limit.

Session notes are not turned into facts here (the ``llm`` distiller does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta

from kairos.domain.files import TOPIC_LIMIT
from kairos.domain.fold import lines_size
from kairos.dream.distill.base import Context, Draft, Line
from kairos.dream.distill.timewords import resolve

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


@dataclass(frozen=True)
class Shape:
    """What duplicate detection compares, computed once per line."""

    norm: str
    words: frozenset[str]
    digits: frozenset[str]

    @classmethod
    def of(cls, text: str) -> Shape:
        w = words(text)
        return cls(norm(text), w, frozenset(x for x in w if any(c.isdigit() for c in x)))

    def blocks(self) -> list[tuple[frozenset[str], str]]:
        """Near-duplicates share their numbers and most words, so they share
        at least one of these keys (their numbers and a long word)."""
        longest = sorted(self.words - self.digits, key=lambda w: (-len(w), w))[:2]
        return [(self.digits, w) for w in longest] or [(self.digits, "")]


def same_fact(a: Shape, b: Shape) -> bool:
    """The same fact: the same words, or nearly, and never different numbers
    ("at 10:00" and "at 11:00" are two facts, however alike the rest)."""
    if a.norm == b.norm:
        return True
    if a.digits != b.digits or not (a.words and b.words):
        return False
    return len(a.words & b.words) / len(a.words | b.words) >= NEAR


class RulesDistiller:
    name = "rules"

    def distil(self, context: Context) -> Draft:
        orient = {name: {"lines": len(lines),
                         "sources": len({s for ln in lines for s in ln.sources})}
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
            lines = self.merge(context.files.get(name, []), duplicates, consolidate)
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
    def merge(lines: list[Line], duplicates: list[list[str]],
               consolidate: dict[str, object]) -> list[Line]:
        """Group duplicates.  Near-duplicates share most of their words, so a
        line is compared only with groups that share one of its two longest
        words: linear in practice, not quadratic."""
        groups: list[list[Line]] = []
        heads: list[Shape] = []
        by_norm: dict[str, int] = {}
        by_block: dict[tuple[frozenset[str], str], list[int]] = {}
        for ln in lines:
            shape = Shape.of(ln.text)
            found = by_norm.get(shape.norm)
            if found is None:
                candidates = sorted({g for b in shape.blocks() for g in by_block.get(b, [])})
                found = next((g for g in candidates if same_fact(heads[g], shape)), None)
            if found is None:
                found = len(groups)
                groups.append([])
                heads.append(shape)
                for b in shape.blocks():
                    by_block.setdefault(b, []).append(found)
            by_norm.setdefault(shape.norm, found)
            groups[found].append(ln)
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

        user = out.get("USER.md", [])
        total = lines_size(user)
        while user and total > context.limits["USER.md"]:
            text, sources = user.pop(0)
            total -= len(text) + 1
            dropped.append({"file": "USER.md", "text": text, "sources": sources,
                            "reason": "over the limit"})
        memory = out.get("MEMORY.md", [])
        limit = context.limits["MEMORY.md"]
        if lines_size(memory) > limit:
            # Move the oldest lines out, into archive topic files each within
            # the topic limit, until what stays fits beside a pointer line.
            room = limit - 120  # the pointer line
            keep_size = lines_size(memory)
            cut = 0
            while cut < len(memory) and keep_size > room:
                keep_size -= len(memory[cut][0]) + 1
                cut += 1
            gone, keep = memory[:cut], memory[cut:]
            archives = RulesDistiller._archive(context, gone)
            for name, lines in archives.items():
                out[name] = lines
            for text, _ in gone:
                moved.append({"text": text, "to": "topics/archive"})
            sources = list(dict.fromkeys(s for _, src in gone for s in src))
            names = sorted(archives)
            where = names[0] if len(names) == 1 else f"{names[0]} to {names[-1]}"
            out["MEMORY.md"] = [*keep, (f"{len(gone)} older facts moved to {where}.", sources)]
        return {"sizes": {name: [lines_size(lines), context.limits.get(name, TOPIC_LIMIT)]
                          for name, lines in sorted(out.items())},
                "moved": len(moved)}

    @staticmethod
    def _archive(context: Context, gone: list[tuple[str, list[str]]]
                 ) -> dict[str, list[tuple[str, list[str]]]]:
        """Append moved lines to the archive topic files, a new file whenever
        one is full: topics/archive.md, topics/archive-2.md, …"""
        def name(n: int) -> str:
            return ARCHIVE if n == 1 else f"topics/archive-{n}.md"

        n = 1
        while name(n + 1) in context.files:
            n += 1
        files: dict[str, list[tuple[str, list[str]]]] = {}
        current = [(ln.text, list(ln.sources)) for ln in context.files.get(name(n), [])]
        used = max(sum(len(t) + 1 for t, _ in current) - 1, 0)
        for text, sources in gone:
            if current and used + 1 + len(text) > TOPIC_LIMIT:
                files[name(n)] = current
                n, current, used = n + 1, [], -1
            current.append((text, sources))
            used += len(text) + 1
        files[name(n)] = current
        return files
