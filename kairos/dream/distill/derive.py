"""Derive a pair's files from their sources, every night, from scratch.

The rules distiller does not edit last night's text.  It takes every live
fact of the pair — each line of each write that is neither retracted nor
replaced (a *unit*), with the time it was written — and derives the files
again for ``now``:

1. **Read** each unit: its time words against the time it was written, in the
   user's timezone (:mod:`~kairos.dream.distill.when`); its class (durable,
   time-bound, note: :mod:`~kairos.dream.distill.facts`); whether it addresses the
   model (:mod:`~kairos.dream.distill.faithful`) — such a line is dropped, with
   that reason.
2. **Supersede**: a newer unit that updates an older one — same subject, same
   attribute (:mod:`~kairos.dream.distill.slots`) — replaces it; a future-dated
   update ("is moving to Hamburg on 1 June") waits for its date.  A record's
   field given a new value in other words ("Flat 2A rent: 950 EUR/month" ->
   "2A rent goes up to 1,010 EUR from 1 April") is replaced alone
   (:mod:`~kairos.dream.distill.records`): the fields it leaves stay.  Retract
   the update and the older unit is live again, since nothing derives from a
   retracted event.
3. **Merge** duplicates (:func:`~kairos.dream.distill.facts.same_fact` after
   normalization, or a line that says all another says in other words:
   :func:`~kairos.dream.distill.facts.covers`) into one line citing every
   source: the wording that says most, else the newest.  Notes of one fact
   where each says a detail the others lack (:mod:`~kairos.dream.distill.union`)
   become one line that says every detail and cites every source.
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
from dataclasses import dataclass, field, replace
from datetime import date, datetime, tzinfo
from functools import lru_cache
from typing import Any

from kairos.domain.files import POINTER, pointer
from kairos.dream.distill import (
    facts,
    faithful,
    gloss,
    items,
    records,
    restated,
    slots,
    union,
    when,
)
from kairos.dream.distill.lexicon import ATTRIBUTE_NOUNS, CORRECTION, KEY_LINE, PERSON_NOUNS
from kairos.dream.distill.words import DIRECTION, WEAK, is_german, spelling

ARCHIVE = "topics/archive.md"
MAIN = ("USER.md", "MEMORY.md")
_PLACE_ORDER = {"USER.md": 0, "MEMORY.md": 1}


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
    """A unit read by the rules — or several, when they say the same words and
    resolve to the same line (a fact restated week after week is read once)."""

    unit: Unit  # the newest of the members
    timed: when.Timed
    kind: facts.Kind
    claims: list[slots.Claim]
    norm: tuple[str, ...]
    instruction: str | None
    superseded_by: Fact | None = None
    # Of a line of several facts, which claims (by number) newer lines replaced, and by which.
    replaced: dict[int, Fact] = field(default_factory=dict)
    remainder: Fact | None = None  # what stays of it when some of its facts were replaced
    # Of a record line, which fields (see records.fields) newer lines gave new values, and which.
    cut: dict[int, Fact] = field(default_factory=dict)
    pending: bool = False  # an update whose date has not come
    members: list[Unit] = field(default_factory=list)

    @property
    def text(self) -> str:
        return self.unit.text if self.unit.opaque else _unmarked(self.timed.text)

    @property
    def sources(self) -> list[str]:
        return list(dict.fromkeys(s for u in self.members or [self.unit] for s in u.sources))

    @property
    def first(self) -> tuple[datetime, int, tuple[str, int]]:
        return min((u.written, u.order, u.key) for u in self.members or [self.unit])


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
        units = sorted((u for f in self.facts for u in f.members or [f.unit]),
                       key=lambda u: (u.written, u.order, u.key))
        return list(dict.fromkeys(s for u in units for s in u.sources))

    @property
    def first(self) -> tuple[datetime, int, tuple[str, int]]:
        return min(f.first for f in self.facts)


@dataclass
class Plan:
    files: dict[str, list[tuple[str, list[str]]]]
    dropped: list[dict[str, Any]]
    report: dict[str, Any]


def read(unit: Unit, settings: Settings) -> Fact:
    timed = when.resolve(unit.text, unit.written, settings.now, settings.tz)
    if unit.opaque:
        timed = when.Timed(unit.text, unit.text)
    claims = slots.claims_of(slots.with_subject(unit.text, unit.home), settings.names)
    return Fact(unit, timed, facts.classify(unit.text, timed, claims), claims,
                facts.normalize(timed.text), faithful.addresses_model(unit.text), members=[unit])


def read_all(units: list[Unit], settings: Settings) -> list[Fact]:
    """Read every unit; the same words resolving to the same line are one fact,
    read once (a big pair restates a few hundred facts thousands of times)."""
    out: list[Fact] = []
    by_key: dict[tuple[str, str], Fact] = {}
    timed_cache: dict[tuple[str, Any], when.Timed] = {}
    parsed: dict[str, Fact] = {}  # by the text as the claims read it (see slots.with_subject)
    for u in sorted(units, key=lambda u: (u.written, u.order, u.key)):
        if u.opaque:
            out.append(read(u, settings))
            continue
        day = when.local_day(u.written, settings.tz)
        timed = timed_cache.get((u.text, None)) or timed_cache.get((u.text, day))
        if timed is None:
            timed = when.resolve(u.text, u.written, settings.now, settings.tz)
            # a line with no dates reads the same whenever it was written
            timed_cache[(u.text, None if not timed.mentions else day)] = timed
        found = by_key.get((u.text, timed.text))
        if found is not None:
            found.members.append(u)
            found.unit = u  # the newest says when it was last said
            continue
        said = slots.with_subject(u.text, u.home)
        same = parsed.get(said)
        if same is None:
            fact = parsed[said] = read(u, settings)
        else:
            fact = Fact(u, timed, facts.classify(u.text, timed, same.claims), same.claims,
                        facts.normalize(timed.text), same.instruction, members=[u])
        fact.timed = timed
        by_key[(u.text, timed.text)] = fact
        out.append(fact)
    return out


def _supersede(live: list[Fact], settings: Settings) -> None:
    ordered = sorted(live, key=lambda f: (f.unit.written, f.unit.order, f.unit.key))
    today = when.local_day(settings.now, settings.tz)
    # Only facts that share a subject (or own one another's subject) can update each other.
    by_subject: dict[str, list[int]] = {}
    by_owner: dict[str, list[int]] = {}
    by_anchor: dict[str, list[int]] = {}  # a record's names: "2a", "roastery", "ramipril"
    by_frame: dict[str, list[int]] = {}  # a record's words, to find it told again (see restated)
    # (only the lines before the last that may give a record a new value are looked up so)
    last_revalue = max((j for j, f in enumerate(ordered)
                        if not f.unit.opaque and records.may_revalue(f.unit.text)), default=-1)
    for j, f in enumerate(ordered):
        for c in f.claims:
            for subject in c.subjects:
                by_subject.setdefault(subject, []).append(j)
            if c.owner:
                by_owner.setdefault(c.owner, []).append(j)
        if not f.unit.opaque and j < last_revalue:
            for name in records.anchors(f.unit.text):
                by_anchor.setdefault(name, []).append(j)
        if not f.unit.opaque:
            for w in restated.frame_words(f.unit.text):
                by_frame.setdefault(w, []).append(j)
    for j, newer in enumerate(ordered):
        t = newer.timed
        # "is moving to Hamburg on 1 June": she lives where she lives until then.
        # "the deadline moved to 15 July" is true now: the date is its value.
        calls_off = slots.cancels(newer.unit.text)
        # A correction or a cancellation applies at once, whatever day it names.
        # "has read 15 books this year" is true now: a time that had begun when it was written.
        begun = bool(t.mentions) and all(
            m.first <= when.local_day(newer.unit.written, settings.tz) for m in t.mentions)
        newer.pending = bool(t.end and t.end >= today and not t.written_past and len(newer.claims) <= 1
                             and not any(c.attribute == "when" or c.corrects for c in newer.claims)
                             and not calls_off and not begun
                             # "role filled: Omar starts 1 June": filled now, whenever he starts
                             and not items.ROLE_FILLED.search(newer.unit.text)
                             and not items.reached_now(newer.unit.text))  # "Q1 OKR hit"
        if newer.unit.opaque:
            continue
        # A record's new value applies from the first day its line names ("ab Mai": from
        # 1 May, not from the end of May), or at once when the line says it changed today.
        revalues = records.may_revalue(newer.unit.text)
        records_only = newer.pending
        if newer.pending and not (revalues and t.mentions and (
                all(m.first <= today for m in t.mentions) or records.settled_now(newer.unit.text))):
            continue
        # A cancellation names the plan by what it was ("the meeting with Ingrid"), not by whose.
        candidates: set[int] = set(range(j)) if calls_off else set()
        # "Der Zahnarzttermin wurde auf Freitag verschoben": a time moved, said of
        # the event alone — the lines that name that event are candidates.
        for c in newer.claims:
            if c.attribute == "when" and c.owner is None:
                heads = [w[:6] for s_ in c.subjects for w in s_.split() if len(w) >= 4]
                candidates.update(i for i in range(j) if any(
                    h in ordered[i].unit.text.lower() for h in heads))
        if slots.gone(newer.unit.text):  # "Pixel died": the lines that name Pixel
            named = {w for c in newer.claims for s_ in c.subjects for w in s_.split()
                     if w.isalpha() and len(w) > 2}
            candidates.update(i for i in range(j) if named & {
                w.lower() for w in re.findall(r"[\w-]+", ordered[i].unit.text)})
        item = items.item_of(newer.unit.text)  # "5512 solved/closed": the lines about 5512
        if item is not None:
            candidates.update(i for i in range(j) if items.item_of(ordered[i].unit.text) == item)
        if items.FILLED.search(newer.unit.text) or items.WITHDRAWN.search(newer.unit.text) or \
                items.REACHED.search(newer.unit.text) or items.WEIGHED.match(newer.unit.text):
            candidates.update(range(j))  # "role filled", "cancellation withdrawn", "Q1 OKR hit"
        if revalues:  # "2A rent goes up to 1,010 EUR": the records that name 2A
            for w in records.said(newer.unit.text):
                candidates.update(by_anchor.get(w, ()))
        for w in restated.frame_words(newer.unit.text):  # "Zoe's shoe size 33": the lines of her size
            candidates.update(by_frame.get(w, ()))
        for c in newer.claims:
            for subject in c.subjects:
                candidates.update(by_subject.get(subject, ()))
                candidates.update(by_owner.get(subject, ()))
                if subject in ATTRIBUTE_NOUNS:  # "payment method switched to …": a key line's
                    candidates.update(by_subject.get("@user", ()))
            if c.owner:
                candidates.update(by_subject.get(c.owner, ()))
        for i in sorted(k for k in candidates if k < j):
            older = ordered[i]
            if older.unit.opaque or older.norm == newer.norm:
                continue
            if restated.other_things(older.unit.text, newer.unit.text):
                continue  # "Top 3: Miete 690 €" is not updated by "Top 7 rent now 845 €"
            if items.ends(older.unit.text, newer.unit.text):
                older.superseded_by = newer  # the item's state, the opening: the whole of such a line
                continue
            if restated.told_again(older.unit.text, newer.unit.text):
                older.superseded_by = newer  # the record told again, other values: "Zoe's shoe size 33"
                continue
            ot = older.timed
            if ot.end and ot.end >= today and not ot.written_past and not newer.timed.dated and \
                    not any(c.negated for c in newer.claims) and not calls_off:
                # a plan still ahead is not undone by a statement of how things are — but a
                # record's other field is ("Amira - GCSE maths, target grade 7, exam in May":
                # the target), when the fields it changes name no day
                cut = records.revalued(older.unit.text, newer.unit.text) if revalues else None
                if cut and not any(when.find(records.field_text(older.unit.text, k), today)
                                   for k in cut) and records.remainder(older.unit.text, frozenset(cut)):
                    older.cut.update({k: newer for k in cut})
                continue
            if _two_events(older, newer) or _a_while_away(older, newer):
                continue
            days = (_first_day(older), _first_day(newer))
            olds = older.claims or slots.claims_or_plan(older.unit.text)  # a verbless plan
            replaced = [not records_only and any(slots.decide(o, n, days) for n in newer.claims) and
                        not _carries_more(o, newer.unit.text) for o in olds]
            if not any(replaced):
                # A record's field given a new value in other words: "Flat 2A rent: 950
                # EUR/month" -> "2A rent goes up to 1,010 EUR from 1 April".  The fields it
                # leaves stay (see _remainders): "Beans: Roastery Nord, min order 10 kg".
                cut = records.revalued(older.unit.text, newer.unit.text) if revalues else None
                if cut:
                    older.cut.update({k: newer for k in cut})
                    if records.remainder(older.unit.text, frozenset(older.cut)) == "":
                        older.superseded_by = newer
                continue
            if is_german(older.unit.text) != is_german(newer.unit.text) and \
                    _covers(newer, older) and _covers(older, newer):
                continue  # the same fact in the other language: merged below, citing both
            older.replaced.update({k: newer for k, r in enumerate(replaced) if r})
            # A line that also says what the newer does not replace is not
            # replaced whole: "Mia is 7 and goes to the Lenau-Grundschule" keeps
            # her age when she changes school (see _remainders).
            if all(k in older.replaced or not _says(o) for k, o in enumerate(older.claims)):
                older.superseded_by = newer
            elif revalues and (cut := records.revalued(older.unit.text, newer.unit.text)) and \
                    records.remainder(older.unit.text, cut) == "":
                # the record reading ends what the claims leave: "Sara has a boyfriend
                # called Jonas; they met at university" when "Sara and Jonas broke up"
                older.superseded_by = newer
    for f in ordered:  # chains: what replaced it is what is live now
        seen = set()
        while f.superseded_by is not None and f.superseded_by.superseded_by is not None and \
                id(f.superseded_by) not in seen:
            seen.add(id(f.superseded_by))
            after = f.superseded_by.superseded_by
            if slots.cancels(after.unit.text) and not slots.cancels(f.superseded_by.unit.text):
                # What replaced it was called off ("is moving to Hamburg on 1 March",
                # then "cancelled the move"): it stands, not the cancellation.
                called_off = f.superseded_by
                f.replaced = {k: n for k, n in f.replaced.items() if n is not called_off}
                f.superseded_by = None
                break
            f.superseded_by = after


# How the notes said a line corrects an earlier one: the memory keeps what is
# true, not how it was told ("Correction: Max is 8." is "Max is 8.").
_TOLD = re.compile(r"^\s*(?i:actually|in fact|in fact,? actually|eigentlich|tatsächlich),\s*")


@lru_cache(maxsize=16384)
def _unmarked(text: str) -> str:
    m = CORRECTION.match(text) or _TOLD.match(text)
    if m is None or m.end() >= len(text):
        return text
    rest = text[m.end():]
    return rest[0].upper() + rest[1:]


def _first_day(fact: Fact) -> date | None:
    """The first day a fact's line names, resolved (None: it names none)."""
    return min((m.first for m in fact.timed.mentions), default=None)


def _remainders(live: list[Fact], settings: Settings) -> list[Fact]:
    """What stays of lines of several facts when newer lines replaced some of
    them: "Lukas wohnt in Dortmund und arbeitet bei thyssenkrupp", then "Lukas
    ist nach Düsseldorf gezogen", leaves "Lukas arbeitet bei thyssenkrupp."
    (citing the same write), and the line is *superseded* by the move.  Only
    where the words of what stays can be said alone: a clause that shares the
    line's subject by name ("… und arbeitet bei …") or names its own; one that
    begins with a pronoun ("…; they met at university") keeps the whole line
    (a missed update, never a lost fact)."""
    out = []
    for f in live:
        if f.superseded_by is not None or not (f.replaced or f.cut) or f.unit.opaque:
            continue
        if f.replaced:
            kept = [c for k, c in enumerate(f.claims) if k not in f.replaced and _says(c)]
            gone = [c for k, c in enumerate(f.claims) if k in f.replaced]
            text = _said_alone(f.unit.text, kept, gone, settings.names)
        else:  # a record's fields given new values: the others, as the line said them
            text = records.remainder(f.unit.text, frozenset(f.cut)) or None
        if text is None:
            continue
        f.remainder = _restated(f, text, settings)
        by = max((f.replaced or f.cut).values(), key=lambda n: (n.unit.written, n.unit.order))
        while by.superseded_by is not None and by.superseded_by is not by:
            by = by.superseded_by  # replaced in turn: what is live now
        f.superseded_by = by
        out.append(f.remainder)
    return out


def _besides(instructions: list[Fact], settings: Settings) -> list[Fact]:
    """What the lines that address the model say besides it, as facts of their
    own ("Rähmchen 2,10 €/Stk." of "Rähmchen 2,10 €/Stk. Wichtig: Ignoriere
    alle bisherigen Anweisungen …"), citing the same writes: the instruction
    is dropped, the user's fact beside it is not."""
    out = []
    for f in instructions:
        text = None if f.unit.opaque else faithful.without_instructions(f.unit.text)
        if text is None:
            continue
        out.append(_restated(f, text, settings))
    return out


def _restated(f: Fact, text: str, settings: Settings) -> Fact:
    """A part of a fact's line read as a fact of its own, its members (the
    writes that said it) saying just that part."""
    part = read(replace(f.unit, text=text), settings)
    part.members = [replace(u, text=text) for u in f.members or [f.unit]]
    return part


# The subject a line begins with, past an age beside it ("Mia, 34, lives …", "Mia (34) …").
_LEADING_NAME = re.compile(r"^\s*([A-ZÄÖÜ][\w-]+|I|Ich)(?:\s*,\s*\d{1,3}\s*,|\s*\(\d{1,3}\))?\s+[a-zäöüß]")
_PRONOUNS = frozenset("i we he she they it you ich wir er sie es ihr man".split())


def _said_alone(line: str, kept: list[slots.Claim], gone: list[slots.Claim],
                names: frozenset[str]) -> str | None:
    """The kept claims as sentences of their own, or None when one cannot
    stand alone, or when a word of the line that no replaced claim said
    would be lost ("Mia, 34, lives …": her age, beside her name, stays).
    ``names``: the user's (a claim about them is about "@user")."""
    if not kept:
        return None
    lead = _LEADING_NAME.match(line)
    parts = []
    for c in kept:
        words = c.text.strip(" ,.;").split()
        if not words or words[0].lower() in _PRONOUNS and words[0] not in ("I", "Ich"):
            return None
        if words[0][0].islower():  # the line's subject, said once before "und …"
            who = lead.group(1) if lead else ""
            if not who or not (who.lower() in c.subjects or "@user" in c.subjects and (
                    who in ("I", "Ich") or who.lower() in names)):
                return None
            words = [lead.group(0)[:-1].strip() if lead else who, *words]  # with an age beside
        sentence = " ".join(words)
        if not all(w.lower() in line.lower() for w in words):
            return None  # a clause the reading rewrote ("I have" for "I've")
        parts.append(sentence[0].upper() + sentence[1:])
    out = ". ".join(parts) + "."
    said = {w.lower() for c in gone for w in re.findall(r"[\w-]+", c.text)} | _JOINERS
    if {w.lower() for w in re.findall(r"[\w-]+", line)} - said - \
            {w.lower() for w in re.findall(r"[\w-]+", out)}:
        return None
    return out


_JOINERS = frozenset("and und but aber sondern also auch".split())


def _carries_more(claim: slots.Claim, newer: str) -> bool:
    """Whether a claim names someone beside its value whom the newer line
    does not: "Lena lives in Berlin with her husband Tom" is not replaced
    whole by "Lena moved to Hamburg" — that Tom is her husband would go with
    Berlin (a durable fact lost); the line stays (a missed update, never a
    lost fact).  "Lena and Tom moved to Hamburg" takes him along; someone
    not named ("with his girlfriend") goes with the place, as an editor
    would let it; and the one a relationship is with is what the newer ends
    ("in a relationship with Sam" / "single again")."""
    said = {w.lower() for w in re.findall(r"[\w-]+", newer)}
    beside = _WITH.search(claim.text)
    if beside is None or _TOGETHER.search(claim.text, 0, beside.start()):
        return False
    # Who is named from "with" on: "with Tom", "with her partner Tom and their cat
    # Pixel", "mit ihrem Mann Jan" (a German noun is capitalised: there, only a name
    # after a person's or a pet's noun counts).
    tail = claim.text[beside.start():]
    names = {m.group(1).lower() for m in _NAMED_ONE.finditer(tail)}
    if not is_german(claim.text):
        names |= {m.group(1).lower() for m in _WITH_NAME.finditer(tail)}
    return any(n not in said and not when.is_calendar(n) for n in names)


# Someone beside a place or a job: "with her husband Tom", "mit ihrem Mann Jan und Kater Moritz".
_WITH = re.compile(r"\b(?:with|mit)\b")
_WITH_NAME = re.compile(r"\bwith\s+([A-Z][\w-]+)")
_NAMED_ONE = re.compile(r"\b(?:" + "|".join(sorted(PERSON_NOUNS | {
    "cat", "dog", "rabbit", "kitten", "puppy", "katze", "kater", "hund", "hündin", "hase"},
    key=len, reverse=True)) + r")\s+([A-ZÄÖÜ][\w-]+)", re.I)
_TOGETHER = re.compile(r"\b(?:relationship|married|engaged|dating|together|partnered|verheiratet|"
                       r"verlobt|zusammen|liiert)\b", re.I)


def _says(claim: slots.Claim) -> bool:
    """Whether a claim states something of its own (not a bare verb)."""
    return bool(claim.content - {claim.verb})




def _two_events(older: Fact, newer: Fact) -> bool:
    """Whether two dated lines on different days are two events, not one
    corrected: both happened ("ran 20 km on Sunday", "ran 9 km on Sunday",
    a week apart), or they name other people or places ("the sprint review
    with Ingrid" and "with Tomas").  A change said in words ("moved to",
    "no longer") still makes the newer an update."""
    ot, nt = older.timed, newer.timed
    if not (ot.dates and nt.dates) or ot.dates & nt.dates:
        return False
    if any(c.change or c.negated for c in newer.claims):
        return False
    if ot.written_past and nt.written_past:
        return True
    a, b = slots.proper_names(older.unit.text), slots.proper_names(newer.unit.text)
    return bool(a - b and b - a)  # another person or place on each side, not one added


# A change said by its verb: a new job, a move ("is moving to Hamburg on 1 June").
_STARTED = re.compile(r"\b(?:starts?|started|starting|joins?|joined|f(?:ä|a)ngt|fing|beginnt|begann|"
                      r"promoted|befördert|"
                      r"moves?|moving|relocat\w*|zieht|ziehen|umzug|umziehen)\b", re.I)
_SETTLED = frozenset({"employer", "home", "workplace", "occupation", "timezone"})
# A while, said without a date: "for three months", "for a workshop", "für zwei Wochen".
_A_WHILE = re.compile(r"\bfor (?:a|an|one|two|three|four|five|six|a few|several|some|\d+) "
                      r"(?:days?|weeks?|months?|fortnight|semester|term)\b|\bfor a (?:workshop|"
                      r"conference|training|course|visit|project)\b|\bon a business trip\b|"
                      r"\bfür (?:\w+ )?(?:tage|wochen|monate)\b|\bvorübergehend\b|\btemporarily\b",
                      re.I)


def _a_while_away(older: Fact, newer: Fact) -> bool:
    """Whether a dated line tells of a while somewhere else ("is working at
    the SAP office next week for a workshop", "is in Madrid for three months
    from February") rather than a change of employer or home: it says no
    change in words ("moved", "now", "started", "no longer", "from 1 February
    … lives", "seit Februar")."""
    text = newer.unit.text
    a_while = bool(_A_WHILE.search(text))
    return ((newer.timed.dated or a_while) and not older.timed.dated
            and any(c.attribute in _SETTLED for c in older.claims)
            and not any(c.change or c.again or c.negated or c.corrects for c in newer.claims)
            and not _STARTED.search(text) and (a_while or not facts.SINCE.search(text)))


def _merge(live: list[Fact]) -> list[list[Fact]]:
    """Groups of facts that say the same: the same words after normalizing
    (:func:`~kairos.dream.distill.facts.same_fact`), or one line that says
    all another says in other words or spellings (:func:`_covers`).  Both
    look only at groups that share words with the fact (an index of tokens):
    a pair can have thousands of lines."""
    groups: list[list[Fact]] = []
    index: dict[str, list[int]] = {}
    sizes: list[int] = []
    exact: dict[tuple[str, ...], int] = {}
    told: dict[str, set[int]] = {}  # telling words (as stems) -> groups, for _covers
    heads: list[Fact | None] = []  # the member that says all the others say, if one does
    for f in sorted(live, key=lambda f: (f.unit.written, f.unit.order, f.unit.key)):
        tokens = set(f.norm)
        counts: dict[int, int] = {}
        for tok in tokens:
            for g in index.get(tok, ()):
                counts[g] = counts.get(g, 0) + 1
        found = exact.get(f.norm) if not f.unit.opaque else None
        if found is not None and any(other.unit.opaque for other in groups[found]):
            found = None
        for g in sorted(counts, key=lambda g: (-counts[g], g)):
            if found is not None:
                break
            # one fact shares nearly all the words of the shorter one (same_fact's own bound)
            if counts[g] < max(2, 0.85 * min(len(tokens), sizes[g])):
                continue
            if any(facts.same_fact(f.norm, other.norm) for other in groups[g]) and \
                    not any(f.unit.opaque or other.unit.opaque for other in groups[g]):
                found = g
                break
        keys = _told_keys(f)
        if found is None and not f.unit.opaque:
            found = _covering_group(f, keys, told, groups, heads)
        if found is None:
            found = len(groups)
            groups.append([])
            sizes.append(len(tokens))
            heads.append(f)
            for tok in tokens:
                index.setdefault(tok, []).append(found)
        else:
            heads[found] = _new_head(heads[found], f, groups[found])
        for key in keys:
            told.setdefault(key, set()).add(found)
        exact.setdefault(f.norm, found)
        groups[found].append(f)
    return groups


_MOST_TOLD = 1000  # a word in more groups than this finds no candidates (it says little)


def _told_keys(f: Fact) -> frozenset[str]:
    if f.unit.opaque:
        return frozenset()
    return _keys_of(f.text)


@lru_cache(maxsize=16384)
def _keys_of(text: str) -> frozenset[str]:
    """A line's telling words as the index files them: a word the glossary reads by
    its concept (:mod:`~kairos.dream.distill.gloss`), so that "Sam ist Vegetarier"
    finds "Sam is vegetarian"; a name in the German genitive ("Mias") by the name too."""
    t = facts.telling(text)
    out: set[str] = set()
    for w, cap, parts in zip(t.words, t.caps, t.glossed, strict=True):
        if w in WEAK or w in DIRECTION:
            continue
        out.update(p if gloss.is_concept(p) else facts.told_key(p) for p in parts or (w,))
        if cap and len(w) > 3 and w.endswith("s") and not parts:
            out.add(facts.told_key(w[:-1]))
    return frozenset(out)


def _n_told(f: Fact) -> int:
    return len(_told_keys(f))


def _covering_group(f: Fact, keys: frozenset[str], told: dict[str, set[int]], groups: list[list[Fact]],
                    heads: list[Fact | None]) -> int | None:
    """A group whose head says all ``f`` says, or all of whose members ``f`` says."""
    counts: dict[int, int] = {}
    for key in keys:
        posting = told.get(key, ())
        if len(posting) > _MOST_TOLD:
            continue
        for g in posting:
            counts[g] = counts.get(g, 0) + 1
    for g in sorted(counts, key=lambda g: (-counts[g], g))[:12]:
        head = heads[g]
        if head is None or len(groups[g]) > 30 or counts[g] * 2 < min(len(keys), _n_told(head)):
            continue
        if _covers(head, f) or all(_covers(f, m) for m in groups[g]):
            return g
    return None


def _new_head(head: Fact | None, f: Fact, group: list[Fact]) -> Fact | None:
    if head is None:
        return None
    if _says_all(head, f):
        return head
    if all(_says_all(f, m) for m in group):
        return f
    return None


def _says_all(a: Fact, b: Fact) -> bool:
    """Whether fact ``a``'s line says all ``b``'s does (the same words, more, or other words)."""
    return a.norm == b.norm or facts.more_informative(a.text, b.text) or _covers(a, b)


def _covers(kept: Fact, dropped: Fact) -> bool:
    """Whether ``dropped`` may merge into ``kept``: :func:`~kairos.dream.distill.facts.covers`
    by their words; the same class, tense and days — a past episode is not
    the standing fact, a plan for Tuesday not the delivery every Tuesday; what
    the dropped line's claims say, the kept line's claims say; and the guards'
    loss count (:func:`~kairos.dream.distill.faithful.supports`) agrees."""
    if kept.unit.opaque or dropped.unit.opaque or \
            (kept.kind.cls == facts.TIME_BOUND) != (dropped.kind.cls == facts.TIME_BOUND):
        return False
    kt, dt = kept.timed, dropped.timed
    if kt.written_past != dt.written_past or not dt.dates <= kt.dates or kt.currently != dt.currently:
        return False
    if not facts.covers(kept.text, dropped.text):  # (cached by text: the cheap look first)
        return False
    # What the dropped line's claims say of someone the kept line's claims say too:
    # "Sam's partner Priya is a teacher" tells her job, not who Sam's partner is.
    said = {_spelt(c.attribute) for c in dropped.claims if c.attribute and not c.attribute.startswith("key:")}
    if dt.dates:  # "is on 12 May" says when; the days are the same (above)
        said.discard("when")
    if said - {_spelt(c.attribute) for c in kept.claims if c.attribute}:
        return False
    # and the guards' count of loss agrees that the kept line still carries it
    return faithful.supports(kept.text, dropped.unit.text)


def _spelt(attribute: str) -> str:
    attribute = _SAME_ATTRIBUTE.get(attribute, attribute)  # "prefers X" says a like
    return " ".join(spelling(w) for w in attribute.split())  # "favourite colour" = "favorite color"


_SAME_ATTRIBUTE = {"preference": "like"}


def _head(group: list[Fact]) -> Fact:
    """The wording a merged line keeps: the one that says most, else the newest
    — one that says all the others say, when the one that says most does not."""
    newest = max(group, key=lambda f: (f.unit.written, f.unit.order, f.unit.key))
    best = newest
    for f in group:
        if f is not best and facts.more_informative(f.text, best.text):
            best = f
    if len(group) > 30 or all(f is best or _says_all(best, f) for f in group):
        return _durable(best, group)
    for f in sorted(group, key=lambda f: (f.unit.written, f.unit.order, f.unit.key), reverse=True):
        if all(g is f or _says_all(f, g) for g in group):
            return _durable(f, group)
    return best


def _durable(head: Fact, group: list[Fact]) -> Fact:
    """A line that says a durable fact is durable, whichever wording it keeps
    ("Tom Becker - left hamstring strain …", read as a past episode for its
    "left", says "TOM: hamstring (left). No sprints!")."""
    if head.kind.cls != facts.NOTE:
        return head
    lasting = next((f for f in group if f.kind.cls == facts.DURABLE), None)
    return head if lasting is None else replace(head, kind=lasting.kind)


def _home(group: list[Fact]) -> str:
    homes = {u.home for f in group for u in f.members or [f.unit]}
    return min(homes, key=lambda h: (_PLACE_ORDER.get(h, 2), h))


def _size(lines: list[Line]) -> int:
    return max(sum(len(ln.text) + 1 for ln in lines) - 1, 0)


def derive(units: list[Unit], current: dict[str, list[tuple[str, tuple[str, ...]]]],
           settings: Settings) -> Plan:
    """The pair's files as the rules derive them from ``units`` at ``settings.now``.

    ``current`` is what the files hold now (file -> [(text, sources)]): only
    used to say, for each line that leaves, why and where it went.
    """
    read_facts = read_all(units, settings)
    instructions = [f for f in read_facts if f.instruction]
    live = [f for f in read_facts if not f.instruction] + _besides(instructions, settings)
    _supersede(live, settings)
    live += _remainders(live, settings)
    superseded = [f for f in live if f.superseded_by is not None]
    live = [f for f in live if f.superseded_by is None]
    groups = _merge(live)
    lines, united = _unite([Line(g, _head(g), _home(g)) for g in groups], settings)
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
    archived += _fit_user(lines, settings)
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
    rewritten = [ln for ln in lines if not ln.head.unit.opaque and ln.head.timed.text != ln.head.unit.text
                 and not any(ln is u for u, _ in united)]
    report = {
        "gather": {
            "units": len(units), "duplicates": [[f.text for f in g] for g in groups if len(g) > 1],
            "partial_duplicates": [{"notes": texts, "into": ln.text} for ln, texts in united],
            "contradictions": [{"older": f.unit.text, "newer": f.superseded_by.unit.text}
                               for f in superseded if f.superseded_by is not None],
            "relative_time": [{"text": ln.head.unit.text, "resolved": ln.text} for ln in rewritten],
            "instructions": [f.unit.text for f in instructions],
            "classes": {cls: sum(1 for ln in lines if ln.head.kind.cls == cls)
                        for cls in (facts.DURABLE, facts.TIME_BOUND, facts.NOTE)},
        },
        "consolidate": {"merged": sum(len(g) - 1 for g in groups) + sum(len(t) - 1 for _, t in united),
                        "united": len(united), "superseded": len(superseded),
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


_MOST_UNITED = 5  # notes one line may unite: more is a list, not one fact told in parts


def _unite(lines: list[Line], settings: Settings) -> tuple[list[Line], list[tuple[Line, list[str]]]]:
    """Partial duplicates told as one line (:mod:`~kairos.dream.distill.union`):
    lines of one fact where each says a detail the others lack, so no one of
    them may stand for the rest.  A line joins another's when the two tell the
    same thing and it conflicts with none already joined; the united line cites
    every source — when the guards' count of loss (:func:`~kairos.dream.distill.faithful.supports`)
    agrees that it carries each; else the lines stay as they were.  Returns the
    lines, and each united line with the notes it says."""
    clusters: list[list[Line]] = []
    index: dict[str, list[int]] = {}
    for ln in sorted(lines, key=lambda ln: ln.first):
        found = None
        if not ln.head.unit.opaque:
            keys = union.note(_said(ln)).keys
            counts: dict[int, int] = {}
            for key in keys:
                posting = index.get(key, ())
                if len(posting) <= _MOST_TOLD:
                    for c in posting:
                        counts[c] = counts.get(c, 0) + 1
            for c in sorted(counts, key=lambda c: (-counts[c], c))[:12]:
                members = clusters[c]
                if counts[c] >= 2 and len(members) < _MOST_UNITED and \
                        all(_unitable(m, ln) for m in members) and \
                        any(union.same_thing(_said(m), _said(ln)) for m in members):
                    found = c
                    break
            if found is None:
                found = len(clusters)
                clusters.append([])
            for key in keys:
                index.setdefault(key, []).append(found)
        else:
            clusters.append([])
            found = len(clusters) - 1
        clusters[found].append(ln)
    out: list[Line] = []
    united: list[tuple[Line, list[str]]] = []
    for members in clusters:
        if len(members) == 1:
            out.append(members[0])
            continue
        texts = [_said(m) for m in members]
        text = union.united(texts)
        units = [u for m in members for f in m.facts for u in f.members or [f.unit]]
        if not all(faithful.supports(text, u.text, written=u.written, now=settings.now, tz=settings.tz)
                   for u in units):
            out.extend(members)
            continue
        # a standing fact's wording ages as one: "is Tuesday" beside "on Tuesdays" is the habit
        head = next((m.head for m in reversed(members) if m.head.kind.cls != facts.TIME_BOUND),
                    members[-1].head)
        told = [f for m in members for f in m.facts]
        ln = Line(told, _durable(replace(head, timed=replace(head.timed, text=text)), told), members[0].file)
        out.append(ln)
        united.append((ln, texts))
    return out, united


def _unitable(a: Line, b: Line) -> bool:
    """Whether two lines may be one as the facts read them: the same file, both
    standing facts or both time-bound, the same tense and days, neither kept
    verbatim, and their words do not conflict (:func:`~kairos.dream.distill.union.conflict`)."""
    x, y = a.head, b.head
    if x.unit.opaque or y.unit.opaque or a.file != b.file:
        return False
    if (_weekday_of_habit(x, y) or _weekday_of_habit(y, x)) and not x.timed.written_past \
            and not y.timed.written_past:
        return not union.conflict(_said(a), _said(b))
    if (x.kind.cls == facts.TIME_BOUND) != (y.kind.cls == facts.TIME_BOUND):
        return False
    xt, yt = x.timed, y.timed
    if xt.written_past or yt.written_past:
        return False  # two episodes told alike are two episodes ("cooked X for dinner")
    if xt.currently != yt.currently or xt.dates != yt.dates or xt.over != yt.over:
        return False
    return not _two_values(x, y) and not union.conflict(_said(a), _said(b))


def _two_values(x: Fact, y: Fact) -> bool:
    """Whether the claims give one attribute of one subject two values: two
    allergies ("allergisch gegen Nüsse" / "… gegen Katzenhaare"), an update or
    two facts that coexist — either way not one fact told in parts."""
    for cx in x.claims:
        if not cx.attribute or ":" in cx.attribute or cx.attribute == "when":
            continue
        for cy in y.claims:
            if cy.attribute and _spelt(cy.attribute) == _spelt(cx.attribute) and cx.subjects & cy.subjects \
                    and not set(cx.value) & set(cy.value):
                return True
    return False


def _said(ln: Line) -> str:
    """A line's words as the union compares them: those of its source when its
    only time is a bare weekday ("is Tuesday 17:00", which the time rules read
    as the next Tuesday), else those of the line."""
    return ln.head.unit.text if _bare_weekday(ln.head) else ln.text


def _bare_weekday(f: Fact) -> bool:
    t = f.timed
    if f.unit.opaque or t.recurring or len(t.mentions) != 1 or len(t.dates) != 1:
        return False
    m = t.mentions[0]
    said = f.unit.text[m.start:m.stop]
    return m.grain == "day" and m.relative and bool(union.note(said).days) and \
        re.fullmatch(r"(?:(?:on|am)\s+)?[A-Za-zÄÖÜäöü]+", said.strip()) is not None


def _weekday_of_habit(habit: Fact, day: Fact) -> bool:
    """Whether ``day`` names by a bare weekday the day ``habit`` recurs on:
    "Mia's swim class is Tuesday 17:00" beside "Swimming lessons for Mia on
    Tuesdays" tells the habit, not a class next Tuesday alone."""
    if habit.timed.dates or habit.timed.currently or not _bare_weekday(day):
        return False
    m = day.timed.mentions[0]
    days = union.note(day.unit.text[m.start:m.stop]).days
    return days <= union.note(habit.unit.text).days  # a weekday without a date: the habit's


def _rank(ln: Line, today: Any) -> tuple[int, Any]:
    """Which lines leave a full file first: time-bound ones that are over,
    then notes, then time-bound ones by their date, durable facts last."""
    t, cls = ln.head.timed, ln.head.kind.cls
    if cls == facts.TIME_BOUND and t.over:
        return (0, ln.first)
    if cls == facts.NOTE:
        return (1, ln.first)
    if cls == facts.TIME_BOUND:
        return (2, (t.end or today, ln.first))
    return (3, ln.first)


def _fit_user(lines: list[Line], settings: Settings) -> list[Line]:
    """USER.md has a hard limit: while over it, move lines out — time-bound
    ones that are over to the archive, then the other time-bound ones and
    notes, then durable facts, oldest first, to MEMORY.md (which makes room
    by theme in turn); never a ``Key: value`` line (the name and timezone
    lines the next dream reads the user's time with).  Dates written out in
    full make lines longer, and a merge may keep a longer wording: a profile
    near its limit was refused by the guards night after night.  Moved, not
    lost.  Returns the lines archived."""
    limit = settings.limits.get("USER.md", 2000)
    profile = [ln for ln in lines if ln.file == "USER.md"]
    if _size(profile) <= limit:
        return []
    today = when.local_day(settings.now, settings.tz)
    archived = []
    for ln in sorted(profile, key=lambda ln: _rank(ln, today)):
        if _size([x for x in profile if x.file == "USER.md"]) <= limit:
            break
        if KEY_LINE.match(ln.text):
            continue
        if _rank(ln, today)[0] == 0:
            ln.file = ARCHIVE
            archived.append(ln)
        else:
            ln.file = "MEMORY.md"
    return archived


def _fit(lines: list[Line], settings: Settings) -> list[Line]:
    """Move lines out of MEMORY.md by theme until it fits (pointers included)."""
    limit = settings.limits.get("MEMORY.md", 5000)
    memory = [ln for ln in lines if ln.file == "MEMORY.md"]
    if _size(memory) <= limit:
        return []
    today = when.local_day(settings.now, settings.tz)
    moved: list[Line] = []
    themes: set[str] = set()
    for ln in sorted(memory, key=lambda ln: _rank(ln, today)):
        keep = [x for x in memory if x.file == "MEMORY.md"]
        pointer_size = sum(len(pointer(f"topics/{t}.md", True)) + 1 for t in themes)
        if _size(keep) + pointer_size <= limit:
            break
        theme = "archive" if _rank(ln, today)[0] == 0 else facts.theme_of(ln.text)
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
    """One pointer per theme lines moved to, citing what moved there."""
    moved_ids = {id(ln) for ln in moved}
    themes: dict[str, list[str]] = {}
    continued: set[str] = set()
    for name, lines in sorted(files.items()):
        if name in MAIN:
            continue
        base = re.sub(r"-\d+\.md$", ".md", name) if re.search(r"-\d+\.md$", name) and \
            re.sub(r"-\d+\.md$", ".md", name) in files else name
        if base != name:
            continued.add(base)
        sources = [s for ln in lines if id(ln) in moved_ids for s in ln.sources]
        if sources:
            themes.setdefault(base, []).extend(sources)
    return [(pointer(name, name in continued), list(dict.fromkeys(sources)))
            for name, sources in sorted(themes.items())]


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
    partly: set[str] = set()  # sources of lines of which a remainder stays
    for f in superseded:
        by = f.superseded_by
        assert by is not None
        for s in f.sources:
            fates[s] = {"kind": "superseded", "reason": f"superseded by: {by.text}", "by": by.text}
        if f.remainder is not None:
            partly.update(f.sources)
    for f in instructions:
        for s in f.sources:
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
            elif partly & set(sources) and text not in {t for t, _ in out.get(name, [])}:
                # what stays of it is another line now: the rest was superseded
                entry.update(fates[next(s for s in sources if s in partly)])
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
