"""Partial duplicates: notes of one fact, each with a detail the others lack, told as one line.

"Swimming lessons for Mia on Tuesdays at 5 pm", "Mia's swim class is Tuesday
17:00 at the Westbad" and "Mia swimming Tuesdays: bring 1 EUR for the locker"
are one fact.  No one of them says all the others say, so the merge of
:mod:`~kairos.dream.distill.derive` (which keeps the wording that says most)
cannot drop any: all three stayed, a duplicate.  Here they are recognised and
told as one line — the one that shares most with the others, then what each
other note adds, in its own words — and the line cites them all.

Recognising is the careful half.  Two notes are the same fact when they share
the thing they are about (at least two telling words, and a value: a weekday,
a clock time, a number, a name, or three words in all) and nothing of the same
kind differs: not the subject ("Mia swims on Tuesdays" / "Leo swims on
Tuesdays"), not a weekday, a time, a number of the same unit or a name (two
lessons on two days, two cars, two servers), not a negation ("no swim class in
the holidays").  Two values of one kind are an update or two facts that
coexist; either way not one line.

Text only: :mod:`~kairos.dream.distill.derive` asks the fact-level questions
(the same file, class, tense and days) before it asks these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from kairos.dream.distill import facts, gloss
from kairos.dream.distill.words import DIRECTION, STOP, UNITS, WEAK, WORD, is_german

_WEEKDAYS = frozenset(f"~{d}~" for d in "montag dienstag mittwoch donnerstag freitag samstag sonntag".split())
_MONTHS = "januar februar marz april mai juni juli august september oktober november dezember"
_CALENDAR = _WEEKDAYS | frozenset(f"~{m}~" for m in _MONTHS.split())
_MONTH = r"(?:jan|feb|mar|mär|apr|may|mai|jun|jul|aug|sep|oct|okt|nov|dec|dez)[a-zä]*\.?"
# A date is one value, not numbers: "number 0 on 3 March 2026" has no 3 to set against "number 3".
_DATE = re.compile(rf"\b\d{{1,2}}\.?\s+{_MONTH}(?:\s+\d{{4}})?\b|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?"
                   rf"(?:,?\s+\d{{4}})?\b|\b\d{{4}}-\d\d-\d\d\b", re.I)
_CLOCK = re.compile(r"\b(\d{1,2})(?:[:.](\d\d))?\s*(am|pm|a\.m\.|p\.m\.|uhr|h)\b|\b(\d{1,2}):(\d\d)\b", re.I)
# A number's unit, when the word after it is one: "5 mg" and "500 mg" are two doses, "14" and
# "level -2" are not two parking spaces.
_UNIT_AFTER = frozenset(UNITS) | {"pounds", "ghz", "mhz", "gb", "tb", "mbit", "days", "tage", "weeks",
                                  "wochen", "months", "monate", "years", "jahre", "times", "mal"}
# Words that join a detail to what it tells of: "at 5 pm", "am Sportplatz Nord".
_LEADS = frozenset("at on in for with from by to until after before during am im um bei mit von vom "
                   "ab bis für zum zur an auf nach vor während".split())
# Words two notes may share without sharing a thing: "Mia has ballet" and "Mia has piano".
_NOT_A_THING = frozenset(facts.told_key(w) for w in """new old neu neue alt alte current aktuell has have had
    hat haben get gets got bekommt kriegt is are ist sind does do macht am pm uhr""".split())
# Parts of a day, a value like a clock time: "in the morning" and "in the evening" are two feedings.
_DAYPARTS = {facts.told_key(w): part for part, ws in (
    ("morning", "morning mornings morgens früh vormittags"), ("noon", "noon midday mittags"),
    ("afternoon", "afternoon afternoons nachmittags"), ("evening", "evening evenings abends"),
    ("night", "night nights nachts")) for w in ws.split()}
# How a name is given: "Ben's dog is called Rex" adds nothing to "Ben walks his dog Rex".
_NAMING = frozenset("called named heißt heisst genannt namens".split())
_ARTICLES = frozenset("the a an der die das dem den des ein eine einem einen".split())
_SHARED_WITHOUT_VALUE = 3  # words two notes share when they share no value (a day, time, number, name)
_SHARED_SHARE = 0.6  # ... and that share of the shorter note's words


@dataclass(frozen=True)
class Note:
    """A note as this module compares it."""

    keys: frozenset[str]  # its telling words (each as its concept and as its stem)
    words: tuple[frozenset[str], ...]  # the keys of each telling word
    subject: str | None  # the key of its first telling word
    days: frozenset[str]
    times: frozenset[str]
    numbers: frozenset[tuple[str, str]]  # (number, unit or "")
    names: frozenset[str]  # capitalised words inside an English line
    negated: bool
    capitals: tuple[str, ...] = ()  # its capitalised words the glossary does not know, in order
    owned: frozenset[tuple[str, str]] = frozenset()  # ("mia", "manager") for "Mia's manager"
    persons: frozenset[str] = frozenset()  # capitalised words the glossary does not know, of an English line
    lower: frozenset[str] = frozenset()  # the keys of the words written in lower case
    dates: frozenset[str] = frozenset()  # its dates as written, in lower case


def _numbers_in(token: str) -> list[str]:
    return [n.replace(",", ".") for n in re.findall(r"\d+(?:[.,:-]\d+)*", token)]


def _time_of(m: re.Match[str]) -> str:
    """A clock time as "17:00", whether written "5 pm", "17 Uhr" or "17:00"."""
    if m.group(4):
        return f"{int(m.group(4))}:{m.group(5)}"
    hour, minute, mark = int(m.group(1)), m.group(2) or "00", m.group(3).lower().replace(".", "")
    if mark == "pm" and hour < 12:
        hour += 12
    return f"{hour}:{minute}"


# A clock time written with a dot and no "Uhr" or "pm" ("Probe do 19.30", "bis 12.45"): only after
# a weekday or a word that leads a time, and only minutes that cannot be a month, before no unit —
# not a date ("am 27.12."), a price or a measure ("16.50 €", "2.45 m").
_DOT_CLOCK = re.compile(r"(?<![\d.,])([01]?\d|2[0-3])\.(00|1[3-9]|[2-5]\d)(?![\d.,])(?!\s?[€%$£])"
                        r"(?:\s?([^\W\d_]+))?")
_BEFORE_A_TIME = re.compile(
    r"(?:mo|di|mi|do|fr|sa|so|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|um|ab|bis|von|gegen|at|until|"
    r"from|till|by|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|(?:montag|dienstag|mittwoch|donnerstag|"
    r"freitag|samstag|sonntag)s?)", re.I)


def _clocks(text: str) -> list[tuple[int, int, str]]:
    """Each clock time of a line: where it stands, and its time as "17:00"."""
    found = [(m.start(), m.end(), _time_of(m)) for m in _CLOCK.finditer(text)]
    found += [(m.start(), m.end(2), f"{int(m.group(1))}:{m.group(2)}") for m in _DOT_CLOCK.finditer(text)
              if _time_word_before(text[:m.start()]) and (m.group(3) or "").lower() not in _UNIT_AFTER
              and not any(s <= m.start() < e for s, e, _ in found)]
    return found


def _time_word_before(before: str) -> bool:
    """Whether the word just before a number leads a time: a weekday ("do", "Thursdays") or "bis", "at"."""
    words = before.split()
    return bool(words) and before[-1:].isspace() and \
        _BEFORE_A_TIME.fullmatch(words[-1].strip(",").rstrip(".")) is not None


def _without_clocks(text: str) -> str:
    for start, end, _ in sorted(_clocks(text), reverse=True):
        text = text[:start] + " " + text[end:]
    return text


def _word_keys(w: str, parts: frozenset[str]) -> set[str]:
    out = {facts.told_key(w)}
    out.update(p if gloss.is_concept(p) else facts.told_key(p) for p in parts)
    return out


@lru_cache(maxsize=8192)
def note(text: str) -> Note:
    t = facts.telling(text)
    keys: set[str] = set()
    each: list[frozenset[str]] = []
    subject = None
    names: set[str] = set()
    german = is_german(text)
    for i, (w, cap, parts) in enumerate(zip(t.words, t.caps, t.glossed, strict=True)):
        if w in WEAK or w in DIRECTION or w in facts.NEGATIONS:
            continue
        ks = _word_keys(w, parts)
        keys |= ks
        each.append(frozenset(ks))
        if subject is None:
            subject = next((p for p in sorted(parts) if gloss.is_concept(p)), facts.told_key(w))
        elif cap and not german and not parts & _CALENDAR and not any(c.isdigit() for c in w) \
                and w not in _UNIT_AFTER and i > 0:
            names.add(facts.told_key(w))
    spelt = facts.numbers_spelt(text)
    times = {clock for _, _, clock in _clocks(spelt)}
    numbers: set[tuple[str, str]] = set()
    toks = [m.group(0).lower() for m in WORD.finditer(_without_clocks(_DATE.sub(" ", spelt)))]
    for i, tok in enumerate(toks):
        for num in _numbers_in(tok):
            after = toks[i + 1] if i + 1 < len(toks) and _numbers_in(tok) == [tok] else ""
            numbers.add((num, after if after in _UNIT_AFTER else ""))
    capitals = tuple(facts.told_key(w) for w, cap, parts in zip(t.words, t.caps, t.glossed, strict=True)
                     if cap and not parts and w not in WEAK)
    owned = frozenset((facts.told_key(o), facts.told_key(w)) for o, w in t.owned)
    return Note(frozenset(keys), tuple(each), subject, frozenset(keys & _WEEKDAYS), frozenset(times),
                frozenset(numbers), frozenset(names), bool(t.negations), capitals, owned,
                frozenset() if german else frozenset(capitals),
                frozenset(facts.told_key(w) for w, cap in zip(t.words, t.caps, strict=True) if not cap),
                frozenset(m.group(0).lower() for m in _DATE.finditer(text)))


def conflict(a: str, b: str) -> bool:
    """Whether two notes cannot be one fact: one negates, or each has a value of
    one kind the other lacks (another subject, day, time, number, name)."""
    x, y = note(a), note(b)
    if x.negated != y.negated:
        return True
    if x.subject and y.subject and x.subject not in y.keys and y.subject not in x.keys:
        return True
    for mine, theirs in ((x.days, y.days), (x.times, y.times), (_parts_of_day(x), _parts_of_day(y))):
        if mine - theirs and theirs - mine:
            return True
    if numbers_differ(a, b):
        return True
    if x.names - y.keys and y.names - x.keys:
        return True
    # whose: "Mia's manager" and "Mia's team" are two things of hers
    for owner, thing in x.owned:
        if any(o == owner and t != thing and thing not in y.keys and t not in x.keys for o, t in y.owned):
            return True
    # who to whom: "Kim owes Sam" is not "Sam schuldet Kim"
    both = set(x.capitals) & set(y.capitals)
    return [c for c in dict.fromkeys(x.capitals) if c in both] != \
        [c for c in dict.fromkeys(y.capitals) if c in both]


def numbers_differ(a: str, b: str) -> bool:
    """Whether each note has a number of one unit the other lacks: "5 mg" and
    "500 mg", "nas01" and "nas02", "B-KM 2231" and "B-KM 8870"."""
    x, y = note(a), note(b)
    for unit in {u for _, u in x.numbers} & {u for _, u in y.numbers}:
        mine = {n for n, u in x.numbers if u == unit}
        theirs = {n for n, u in y.numbers if u == unit}
        if mine - theirs and theirs - mine:
            return True
    return False


def same_thing(a: str, b: str) -> bool:
    """Whether two notes tell one fact, each perhaps with details the other lacks."""
    if conflict(a, b):
        return False
    x, y = note(a), note(b)
    if not (x.keys - y.keys and y.keys - x.keys):
        return False  # one says all the other does: a plain duplicate, or none (derive's merge decides)
    shared = min(sum(1 for ks in x.words if ks & y.keys), sum(1 for ks in y.words if ks & x.keys))
    plain = min(sum(1 for ks in x.words if ks & y.keys and not ks & _WEEKDAYS),
                sum(1 for ks in y.words if ks & x.keys and not ks & _WEEKDAYS))
    valued = bool(x.days & y.days or x.times & y.times or x.numbers & y.numbers
                  or x.names & y.names)
    if not (_thing_shared(x, y) and _thing_shared(y, x)):
        return False
    if valued:
        return plain >= 2
    return shared >= _SHARED_WITHOUT_VALUE and shared >= _SHARED_SHARE * min(len(x.words), len(y.words))


def _parts_of_day(n: Note) -> set[str]:
    return {_DAYPARTS[k] for k in n.keys if k in _DAYPARTS}


def _thing_shared(x: Note, y: Note) -> bool:
    """Whether two notes share what they are about, besides whom and which value:
    "Mia works at Siemens" and "Mia's manager at Siemens is Tom" share only Mia
    and Siemens; "Mia swims on Tuesdays" and "Mia's swim class …" share the swim.
    Two names shared ("VW Golf") name the thing themselves."""
    if len(x.names & y.names) >= 2:
        return True
    for ks in x.words:
        if not ks & y.keys or ks & _WEEKDAYS or ks & x.names or ks & _NOT_A_THING:
            continue
        if any(c.isdigit() for k in ks for c in k) or ks & _DAYPARTS.keys():
            continue
        # a name says whose, not what ("Mia Ballett dienstags"); "Ballet" first in a line is
        # a name only if the other note does not write it in lower case
        if (ks & x.persons or x.subject in ks and x.capitals[:1] == (x.subject,)) and not ks & y.lower:
            continue
        return True
    return False


def _runs(text: str, known: Note) -> list[str]:
    """The stretches of ``text`` that say what ``known`` does not: each new word,
    with the small words between new ones, and the word that joins it on."""
    toks = list(WORD.finditer(text))
    new = [False] * len(toks)
    small = [False] * len(toks)
    clocks = _clocks(text)
    dates = [(m.start(), m.end(), m.group(0).lower()) for m in _DATE.finditer(text)]
    spelt = facts.number_spans(text)  # "0176-2234-9981", "0,11", "11 ct": each one number
    seen = {n for n, _ in known.numbers} | {t.split(":")[0] for t in known.times}
    for i, m in enumerate(toks):
        word = m.group(0)
        clock = next((c for c in clocks if c[0] <= m.start() < c[1]), None)
        day = next((d for d in dates if d[0] <= m.start() < d[1]), None)
        number = next((n for n in spelt if n[0] <= m.start() < n[1]), None)
        if day is not None:
            new[i] = day[2] not in known.dates
        elif clock is not None:
            new[i] = clock[2] not in known.times
        elif number is not None:
            new[i] = number[2] not in seen
        elif re.fullmatch(r"[\d.,:-]+", word):
            new[i] = not set(_numbers_in(word)) <= seen
        elif word.lower() in _UNIT_AFTER and i > 0 and re.fullmatch(r"[\d.,]+", toks[i - 1].group(0)):
            new[i] = new[i - 1]
        else:
            t = facts.telling(word)
            ks = {k for w, parts in zip(t.words, t.glossed, strict=True)
                  if w not in WEAK and w not in DIRECTION and w not in STOP for k in _word_keys(w, parts)}
            small[i] = not ks or word.lower() in _NAMING
            new[i] = bool(ks) and not ks & known.keys and not small[i]
    runs: list[str] = []
    i = 0
    while i < len(toks):
        if not new[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(toks) and (new[j + 1] or _bridged(new, j + 1)):
            j += 1
        start = i
        while start > 0 and toks[start - 1].group(0).lower() in _ARTICLES:
            start -= 1
        lead = start > 0 and toks[start - 1].group(0).lower() in _LEADS and \
            not (toks[start - 1].group(0).lower() == "am" and start > 1
                 and re.fullmatch(r"[\d.,:]+", toks[start - 2].group(0)))  # "10 am" is a time
        runs.append(_balanced(text[toks[start - 1 if lead else i].start():toks[j].end()]))
        i = j + 1
    return runs


def _balanced(run: str) -> str:
    """A stretch without a bracket it does not open and close: "acidic) - good"."""
    if run.count("(") != run.count(")"):
        run = run.replace("(", "").replace(")", "")
    return run


_BRIDGE = 2  # known words kept between two new ones: "arroz de marisco" stays one phrase


def _bridged(new: list[bool], k: int) -> bool:
    """Whether a new word follows within :data:`_BRIDGE` words from ``k`` on."""
    return any(new[k:k + _BRIDGE + 1])


def united(texts: list[str]) -> str:
    """One line of several notes of one fact: the note that shares most with
    the others, then, for each other note in order, what it adds."""
    def shared(t: str) -> tuple[int, int]:
        return sum(len(note(t).keys & note(o).keys) for o in texts if o is not t), len(note(t).keys)

    base = max(texts, key=shared)
    known = note(base)
    line = base.rstrip(" .;,")
    for t in texts:
        if t is base:
            continue
        runs = _runs(t, known)
        other = note(t)
        known = Note(known.keys | other.keys, (), None, known.days | other.days, known.times | other.times,
                     known.numbers | other.numbers, frozenset(), False, dates=known.dates | other.dates)
        if runs:
            line += "; " + ", ".join(r.strip(" .;,:–-") for r in runs)
    return line
