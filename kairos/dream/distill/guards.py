"""The guards every proposal must pass before anything is written, whatever distilled it.

A draft that fails one is refused, naming the line and the rule; nothing of
the draft is recorded (a draft citing another pair's events must not leave
that pair's words in this pair's history) — only a small ``DreamRefused``
record of the rule, the distiller and what the model call cost.

In order:

1. **Bounds** — the report, the dropped list, the number of topic files and
   the length of a line are bounded (:data:`MAX_REPORT` …), so a runaway
   draft cannot fill the immutable log.
2. **Form** — only MEMORY.md, USER.md and ``topics/*.md``; one line of text
   each; every line cites an event of this pair that is not retracted.
3. **Size** — each file within its limit.
4. **Meaning** (lines the draft adds or changes) — no line addresses the
   model; every number, date, address, handle and name of a line occurs in
   its cited sources or is what the time rules derive from them; most of its
   words do too (:mod:`~kairos.dream.distill.faithful`).
5. **Reasons** — a line the draft drops needs a checkable reason: *merged
   into* X (X cites it), *superseded by* X (X is newer and updates it by the
   detector of :mod:`~kairos.dream.distill.slots`), *moved to* a file that holds it,
   *time-bound and past* (the time rules agree), *retracted*, or
   *instruction* (it addresses the model).  Any other reason counts as loss.
6. **Loss** — counted in facts: a source event the current files cite whose
   content no line of the proposal still carries — superseded, past,
   retracted and instruction drops excepted — is lost, however many ids a
   line cites.  More than ``max_loss`` of the facts lost refuses the draft.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kairos.domain.files import FILES, POINTER, has_versions
from kairos.domain.fold import lines_size
from kairos.dream.distill import faithful, slots, when
from kairos.dream.distill.base import Context
from kairos.errors import KairosError

# Ceilings a draft must keep before anything is written (issue 10): generous for any
# honest distiller, small enough that a runaway one cannot fill the log.
MAX_REPORT = 64 * 1024  # characters of the report, as JSON
MAX_LINE = 2000  # characters of one line (a USER.md line can be the whole file)
MAX_TOPICS = 64  # topic files one proposal may write
MAX_DROPPED_EXTRA = 50  # dropped entries beyond the current lines' count


class GuardFailed(KairosError):
    """A proposal broke a guard; nothing of it was written.

    ``rule`` names the guard, ``file`` and ``line`` (1-based) where; the
    message quotes the line, :meth:`record` does not (it is what a refusal
    leaves in the pair's history).
    """

    exit_code = 1

    def __init__(self, message: str, *, rule: str = "form", file: str | None = None,
                 line: int | None = None, record: str | None = None):
        super().__init__(message)
        self.rule, self.file, self.line = rule, file, line
        self._record = record
        self.usage: dict[str, Any] = {}
        self.distiller: str | None = None
        self.model: str | None = None

    def record(self) -> str:
        """The refusal without the draft's words: rule, file and line number."""
        if self._record:
            return self._record
        where = f" in {self.file}" if self.file else ""
        where += f" line {self.line}" if self.line else ""
        return f"{self.rule}{where}"


@dataclass
class Verdict:
    """What the guards found in a draft that passed them."""

    facts: int = 0  # source events the current files cite
    lost: list[str] = field(default_factory=list)  # event ids no line carries any more
    superseded: int = 0
    dropped: int = 0  # current lines left out, merged and moved excepted
    lines: int = 0  # current lines in the files the draft changes
    unchecked: list[dict[str, Any]] = field(default_factory=list)  # drops with no checkable reason


def _short(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def check(files: dict[str, list[tuple[str, list[str]]]], dropped: list[dict[str, Any]],
          context: Context, max_loss: float, owner_of: Callable[[str], str | None],
          report: dict[str, Any] | None = None) -> Verdict:
    """Raise :class:`GuardFailed` naming the first broken guard; else say
    what the draft drops and loses.

    ``owner_of(event_id)`` says which pair ("agent/user") an event id belongs
    to, or None when no such event exists.
    """
    _bounds(files, dropped, context, report or {})
    _form(files, context, owner_of)
    _meaning(files, context)
    return _loss(files, dropped, context, max_loss)


def _bounds(files: dict[str, list[tuple[str, list[str]]]], dropped: list[dict[str, Any]],
            context: Context, report: dict[str, Any]) -> None:
    size = len(json.dumps(report, ensure_ascii=False, default=str))
    if size > MAX_REPORT:
        raise GuardFailed(f"the report is {size} characters, over {MAX_REPORT}", rule="bounds: report")
    current = sum(len(lines) for lines in context.files.values())
    if len(dropped) > current + MAX_DROPPED_EXTRA:
        raise GuardFailed(f"the dropped list has {len(dropped)} entries for {current} current lines",
                          rule="bounds: dropped list")
    topics = [name for name in files if name.startswith("topics/")]
    if len(topics) > MAX_TOPICS:
        raise GuardFailed(f"the draft writes {len(topics)} topic files, over {MAX_TOPICS}",
                          rule="bounds: topic files")
    for name, lines in files.items():
        for i, (text, _) in enumerate(lines, 1):
            if len(text) > MAX_LINE:
                raise GuardFailed(f"{name} line {i} is {len(text)} characters, over {MAX_LINE}",
                                  rule="bounds: line length", file=name, line=i)


def _form(files: dict[str, list[tuple[str, list[str]]]], context: Context,
          owner_of: Callable[[str], str | None]) -> None:
    ours = context.event_times
    for name, lines in files.items():
        if not has_versions(name):
            first = f" (its first line {_short(lines[0][0])})" if lines else ""
            raise GuardFailed(f"a dream may only write MEMORY.md, USER.md and topics/*.md, not "
                              f"{name}{first}", rule="form: file",
                              record="form: a file a dream may not write")
        for i, (text, sources) in enumerate(lines, 1):
            if not text.strip() or "\n" in text or "\x00" in text:
                raise GuardFailed(f"{name}: a line must be one non-empty line of text",
                                  rule="form: one line", file=name, line=i)
            if not sources:
                raise GuardFailed(f"{name}: line {_short(text)} cites no event",
                                  rule="form: no source", file=name, line=i)
            for source in sources:
                if source in context.retracted:
                    raise GuardFailed(f"{name}: line {_short(text)} cites {source}, which was "
                                      "retracted", rule="form: cites a retracted event",
                                      file=name, line=i)
                if source in ours:
                    continue
                owner = owner_of(source)
                if owner is None:
                    raise GuardFailed(f"{name}: line {_short(text)} cites {source}, which does not "
                                      "exist", rule="form: cites an unknown event", file=name, line=i)
                raise GuardFailed(f"{name}: line {_short(text)} cites {source}, which belongs to "
                                  "another pair", rule="form: cites another pair's event",
                                  file=name, line=i)
        limit = context.limits.get(name) or (FILES[name].limit if name in FILES else 5000)
        if lines_size(lines) > limit:
            raise GuardFailed(f"{name} would be {lines_size(lines)} chars, over its limit of {limit}",
                              rule="size", file=name)


def _faithful_sources(sources: list[str], context: Context) -> list[faithful.Source]:
    out = []
    for s in sources:
        src = context.sources.get(s)
        if src is not None:
            out.append(faithful.Source(s, src.text, src.time))
    return out


def _meaning(files: dict[str, list[tuple[str, list[str]]]], context: Context) -> None:
    tz = when.zone(context.timezone)
    for name, lines in files.items():
        before = {(ln.text, tuple(ln.sources)) for ln in context.files.get(name, [])}
        for i, (text, sources) in enumerate(lines, 1):
            why = faithful.addresses_model(text)
            if why:
                raise GuardFailed(f"{name} line {i} {_short(text)}: {why}", rule="addresses the model",
                                  file=name, line=i)
            if (text, tuple(sources)) in before or not context.sources:
                continue  # unchanged, or a hand-made context without the sources
            match = POINTER.match(text)
            if match and (match.group(1) in files or match.group(1) in context.files):
                # "More in topics/x.md.": a pointer to a file of this draft, or
                # to one the pair has that the draft leaves as it is.
                continue
            cited = _faithful_sources(sources, context)
            if not cited:
                continue
            problems = faithful.unsupported(text, cited, context.now, tz)
            if problems:
                raise GuardFailed(f"{name} line {i} {_short(text)}: its sources do not say "
                                  + "; ".join(problems), rule="unfaithful", file=name, line=i)


_REASON = re.compile(r"^\s*(merged|duplicate|superseded|moved|past|time-bound|archived|retracted|"
                     r"instruction|over the limit)", re.I)


def _kind(entry: dict[str, Any]) -> str:
    kind = str(entry.get("kind") or "")
    if kind:
        return kind
    m = _REASON.match(str(entry.get("reason") or ""))
    word = m.group(1).lower() if m else ""
    return {"duplicate": "merged", "time-bound": "past", "archived": "past",
            "over the limit": "moved"}.get(word, word)


def _target(entry: dict[str, Any]) -> str:
    by = entry.get("by") or entry.get("to")
    if by:
        return str(by)
    reason = str(entry.get("reason") or "")
    return reason.split(":", 1)[1].strip() if ":" in reason else ""


def _loss(files: dict[str, list[tuple[str, list[str]]]], dropped: list[dict[str, Any]],
          context: Context, max_loss: float) -> Verdict:
    tz = when.zone(context.timezone)
    proposed: dict[str, list[tuple[str, list[str]]]] = {
        name: [(ln.text, list(ln.sources)) for ln in lines] for name, lines in context.files.items()}
    proposed.update(files)
    carrying: dict[str, list[str]] = {}  # event id -> texts of the lines citing it
    for lines in proposed.values():
        for text, sources in lines:
            if POINTER.match(text):
                continue
            for s in sources:
                carrying.setdefault(s, []).append(text)
    all_lines = [(t, s) for lines in proposed.values() for t, s in lines]
    verdict = Verdict()
    explained: set[str] = set()
    entries = {(d.get("file"), d.get("text")): d for d in dropped}
    for name in files:
        unchanged = {(t, tuple(s)) for t, s in files[name]}
        for ln in context.files.get(name, []):
            verdict.lines += 1
            if (ln.text, tuple(ln.sources)) in unchanged:
                continue
            entry = entries.get((name, ln.text))
            kind = _kind(entry) if entry else ""
            if all(x in carrying for x in ln.sources) and kind in ("", "merged", "moved"):
                continue  # carried on (rewritten, merged or moved): the loss count checks content
            verdict.dropped += 1
            if entry is None:
                continue
            ok = _checkable(kind, entry, ln.text, list(ln.sources), all_lines, context, tz)
            if ok:
                explained.update(ln.sources)
                if kind == "superseded":
                    verdict.superseded += 1
            else:
                verdict.unchecked.append({"file": name, "text": ln.text, "reason": entry.get("reason")})
    facts = {s for name in files for ln in context.files.get(name, []) for s in ln.sources
             if s in context.sources}
    verdict.facts = len(facts)
    for s in sorted(facts):
        if s in explained:
            continue
        texts = carrying.get(s)
        src = context.sources[s]
        if texts and (faithful.supports(" ".join(texts), src.text, written=src.time, now=context.now,
                                        tz=tz) or any(t == src.text.strip() for t in texts)):
            continue
        if texts and src.type != "MemoryWritten":
            continue  # session notes: a line citing them is all a distiller can do
        verdict.lost.append(s)
    if verdict.facts and len(verdict.lost) / verdict.facts > max_loss:
        first = context.sources[verdict.lost[0]].text
        raise GuardFailed(f"the proposal loses {len(verdict.lost)} of {verdict.facts} facts (no line "
                          f"still says them and no checkable reason drops them), more than "
                          f"{max_loss:.0%}; the first: {_short(first)}", rule="loss")
    return verdict


def _checkable(kind: str, entry: dict[str, Any], text: str, sources: list[str],
               lines: list[tuple[str, list[str]]], context: Context, tz: Any) -> bool:
    """Whether a drop's reason holds, by the same rules the rules distiller uses."""
    target = _target(entry)
    if kind == "merged":
        return any(t == target and set(sources) <= set(s) for t, s in lines)
    if kind == "moved":
        return all(any(src in s for _, s in lines) for src in sources)
    if kind == "retracted":
        return all(s in context.retracted for s in sources)
    if kind == "instruction":
        return faithful.addresses_model(text) is not None
    if kind == "past":
        srcs = [context.sources[s] for s in sources if s in context.sources]
        timed = [when.resolve(src.text, src.time, context.now, tz) for src in srcs]
        return bool(timed) and all(t.over and t.time_bound for t in timed)
    if kind == "superseded":
        newest = max((context.event_times[s] for s in sources if s in context.event_times), default=None)
        for line_text, cited in lines:
            if line_text != target:
                continue
            times = [context.event_times[x] for x in cited if x in context.event_times]
            if newest is None or not times or max(times) <= newest:
                continue
            olds = {slots.with_subject(context.sources[x].text, context.sources[x].file)
                    for x in sources if x in context.sources} | {text}
            news = {slots.with_subject(context.sources[x].text, context.sources[x].file)
                    for x in cited if x in context.sources} | {line_text}
            if any(slots.is_update(o, n, context.names) == "update" for o in sorted(olds)
                   for n in sorted(news)):
                return True
        return False
    return False
