"""What kind of fact a line is, and when two lines say the same thing.

Three classes (docs/dream.md):

- **durable** — true until something says otherwise: who the user is, health,
  relationships, home, work, preferences, contact details, pets, habits,
  possessions, biography ("grew up in Cork").  Age alone never drops one.
- **time-bound** — about a time that will pass: a dated plan, trip,
  appointment or deadline ("next week", "on 14 July", "2026-07-14"), or
  something true only "currently".  Once its time is over it takes the past
  tense; the TTL may move it to ``topics/archive.md``.
- **note** — an episode told in the past tense ("finished reading
  'Piranesi'", "had dinner at Syr and liked it"): kept, but the first to
  move to a topic file when MEMORY.md is over its limit.

Duplicates are compared after :func:`normalize`: case, punctuation,
whitespace, units (``5 km`` = ``5km``, ``25 minutes`` = ``25 min``), British
and American spellings, clock times (``09:30`` = ``9:30``), dates in any
spelling, articles and a few paraphrases.  Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from kairos.dream.distill import gloss, when
from kairos.dream.distill.lexicon import PERSON_NOUNS
from kairos.dream.distill.slots import Claim, claims_of, durable_attribute
from kairos.dream.distill.words import (
    ALIASES,
    DIRECTION,
    FILLER,
    SHIFT,
    STOP,
    UNITS,
    WEAK,
    is_german,
    spelling,
    stem,
    strip_accents,
    words,
)

DURABLE, TIME_BOUND, NOTE = "durable", "time-bound", "note"

_NUMBER_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
                 "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
                 "zwei": "2", "drei": "3", "vier": "4", "fünf": "5", "sechs": "6", "sieben": "7",
                 "acht": "8", "neun": "9", "zehn": "10"}
_DROP = frozenset({"a", "an", "the", "der", "die", "das", "den", "dem", "ein", "eine", "einen",
                   "einem", "einer", "on", "am", "at", "um", "uhr", "o'clock"})
# Words that say the same in a line about someone: "a dog named Rex" is "a dog called Rex".
_SAME_WORD = {"named": "called", "kids": "children", "kid": "child", "gerne": "gern"}
# Words whose appearance in one line but not the other changes what it says.
NEGATIONS = frozenset({"not", "no", "never", "n't", "nicht", "kein", "keine", "keinen", "keinem",
                       "nie", "niemals", "longer", "anymore", "quit", "stopped", "former", "ex",
                       "ehemals", "früher", "mehr", "without", "ohne", "nor", "neither"})
# A state that holds since a day: "since 2 February", "from 1 March", "seit Februar".
SINCE = re.compile(r"\b(?:since|seit|starting)\b|\b(?:from|ab)\s+(?:\d|the \d|(?:jan|feb|mar|apr|may|"
                    r"jun|jul|aug|sep|oct|nov|dec|mär|mai|okt|dez)\w*|\w+day\b|montag|dienstag|"
                    r"mittwoch|donnerstag|freitag|samstag|sonntag)", re.I)
# Attributes a dated, past line tells as an episode, not a lasting fact.
EPISODIC = frozenset({"work", "qty", "adj", "isa", "uses", "uses-for", "like", "dislike",
                      "possession", "switched", "kind", "size", "commute", "preference"})
# Dated events that leave a lasting state: the line is durable, dated or not
# ("is adopting a dog called Rex next week" — she has a dog after).
LIFE_EVENT = re.compile(
    # "adopted a dog", "is adopting" — not "helped Marta adopt a dog"
    r"\badopted\b|\b(?:is|are|am|was|were|'s|will)\s+(?:be\s+)?adopting\b|\bwill adopt\b|"
    r"\b(?:got|gets|getting|bought|buys|buying) (?:a|an|her|his|their|my) (?:new )?(?:dog|cat|puppy|"
    r"kitten|rabbit|horse|house|flat|apartment|home)\b(?!\s+(?:toy|toys|food|litter|bed|sitter|"
    r"cleaned|painted|repaired|fixed|renovated|ready)\b)|"
    r"\bexpecting (?:a|their|her|his|our) (?:first |second |third )?(?:child|baby|son|daughter)\b|"
    r"\b(?:was|were|is|been) born\b|\b(?:got|gets|getting|were|was) (?:married|engaged)\b|"
    # one's own age: "Lena turns 40", "Lena wird am Freitag 40" — not "her sister turns 40",
    # "the train will be 25 min late", "wird 30 Minuten dauern"
    r"^\s*[A-ZÄÖÜ][\w-]+\s+(?:turns|turned|is turning|will be|wird|wurde)\s+(?:(?:am|on)\s+\S+"
    r"(?:\s+\S+)?\s+)?\d{1,3}(?:\s+(?:years old|jahre alt))?\s*(?:on\b[^.]*|in\b[^.]*|am\b[^.]*)?[.!]?\s*$|"
    r"\bgraduat(?:es|ed|ing)\b|\b(?:got|gets|getting|passed|passes|earned|received) (?:her|his|their|my) "
    r"(?:driving licen[cs]e|driver's licen[cs]e|degree|phd|master's|bachelor's|citizenship)\b|"
    r"\b(?:quit|quits|quitting|stopped|stops|gave up|gives up) (?:smoking|drinking|alcohol|meat|"
    r"sugar|vaping)\b|\b(?:going|went|goes|became|becomes|turned|turning) (?:vegan|vegetarian|"
    r"pescatarian|teetotal|sober)\b|\bmit dem rauchen aufgehört\b|"
    r"\bführerschein\b|\bgeheiratet\b|\bheiratet\b|\bgeboren\b|\badoptiert\b|"
    r"\bbekommt (?:ein|einen|eine) (?:baby|kind|hund|katze)\b", re.I)
NOT_DONE = re.compile(r"\b(?:cancel\w*|abgesagt|called off|fell through|didn't|did not|won't|"
                      r"will not|not)\b", re.I)
_CLOCK = re.compile(r"\b0(\d):(\d\d)\b")
_NUM_UNIT = re.compile(r"(\d+(?:[.,]\d+)?)\s*(%|€|\$|£|[a-zA-Zäöü]+)\b")


@lru_cache(maxsize=16384)
def _dates_canonical(text: str) -> str:
    """Every absolute date in a line as one token (ISO day or YYYY-MM), its
    weekday dropped: "on Friday 8 May 2026" = "on 2026-05-08" = "8. Mai 2026".
    (A line with no word of time, most lines, is not searched for dates: the
    time rules' own first look, as :func:`~.when.resolve_days` takes it.)"""
    if not when.MAYBE_TIME.search(text):
        return text
    out, pos = [], 0
    for m in when.find(text, date(2000, 1, 1)):
        if m.relative:
            continue
        token = m.first.isoformat() if m.grain == "day" else f"{m.first.year}-{m.first.month:02d}"
        out.append(text[pos:m.start])
        out.append(f" {token} ")
        pos = m.stop
    out.append(text[pos:])
    return "".join(out)


def _canonical(text: str) -> str:
    """A line with its dates, clock times and units in one spelling each
    ("9:30", "5km", "2026-05-08"): what normalize and telling both compare."""

    def unit(m: re.Match[str]) -> str:
        u = UNITS.get(m.group(2).lower())
        return f"{m.group(1).replace(',', '.')}{u}" if u else m.group(0)

    return _NUM_UNIT.sub(unit, _CLOCK.sub(r"\1:\2", _dates_canonical(text)))


@lru_cache(maxsize=16384)
def normalize(text: str) -> tuple[str, ...]:
    """The tokens two lines must share to count as the same fact."""
    t = _canonical(text)
    out = []
    for w in words(t):
        w = strip_accents(w.lower()).replace("’", "'")
        if w.endswith("n't"):
            out.extend([w[:-3], "not"])
            continue
        w = _NUMBER_WORDS.get(w, w)
        w = _SAME_WORD.get(w, w)
        w = spelling(w)
        if w in _DROP or w in FILLER:
            continue
        if "-" in w.strip("-") and not any(c.isdigit() for c in w):
            out.extend(p for p in w.split("-") if p)  # "left-handed" is "left handed"
            continue
        out.append(w)
    # "my daughters name is Ella" is "My daughter's name is Ella."
    return tuple(w.replace("'", "") for w in _named(tuple(out)))


def _named(t: tuple[str, ...]) -> tuple[str, ...]:
    """One wording of who is whose: "Ben's dog is called Rex", "Ben has a
    dog called Rex", "Ben's dog: Rex" and "Rex is Ben's dog" all read ("ben",
    "has", "dog", "called", "rex").  Only a line that says nothing else."""
    # the user's own: "My daughter's name is Ella", "my daughter is Ella", "I have a
    # daughter called Ella", and a key line "daughter: Ella" (key lines are the user's)
    if len(t) == 5 and t[0] == "my" and t[2:4] == ("name", "is") and (
            t[1].endswith("'s") or t[1][:-1] in PERSON_NOUNS):  # "my daughters name is Ella"
        return ("my", "has", t[1][:-2] if t[1].endswith("'s") else t[1][:-1], "called", t[4])
    if len(t) == 4 and t[0] == "my" and t[2] == "is" and t[1] in PERSON_NOUNS:
        return ("my", "has", t[1], "called", t[3])
    if len(t) == 5 and t[:2] == ("i", "have") and t[3] == "called":
        return ("my", "has", t[2], "called", t[4])
    if len(t) == 2 and t[0] in PERSON_NOUNS:
        return ("my", "has", t[0], "called", t[1])
    if len(t) == 3 and t[0].endswith("'s"):
        return (t[0][:-2], "has", t[1], "called", t[2])  # Ben's dog: Rex
    if len(t) in (4, 5) and t[0].endswith("'s") and t[2] == "is" and (len(t) == 4 or t[3] == "called"):
        return (t[0][:-2], "has", t[1], "called", t[-1])  # Ben's dog is (called) Rex
    if len(t) == 4 and t[1] == "is" and t[2].endswith("'s"):
        return (t[2][:-2], "has", t[3], "called", t[0])  # Rex is Ben's dog
    return t


def _subsequence(small: tuple[str, ...], big: tuple[str, ...]) -> list[str] | None:
    """The tokens ``big`` adds around ``small`` kept in order, or None when
    ``small`` is not a subsequence of it."""
    extra, i = [], 0
    for w in big:
        if i < len(small) and w == small[i]:
            i += 1
        else:
            extra.append(w)
    return extra if i == len(small) else None


def same_fact(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two normalized lines say the same fact (one may add a detail)."""
    if a == b:
        return True
    small, big = (a, b) if len(a) <= len(b) else (b, a)
    if len(small) < 3:
        return False
    extra = _subsequence(small, big)
    if extra is not None:
        # "… in Vienna" / "… in Vienna, Austria"; "(confirmed by her GP)": one more detail.
        # Not when the extra words negate or change it ("not", "no longer", a new number).
        return (len(extra) <= max(6, len(small)) and not NEGATIONS & set(extra)
                and small[:2] == big[:2])
    sa, sb = set(a), set(b)
    digits_a = {w for w in sa if any(c.isdigit() for c in w)}
    digits_b = {w for w in sb if any(c.isdigit() for c in w)}
    if digits_a != digits_b or (NEGATIONS & sa) != (NEGATIONS & sb):
        return False
    # Nearly the same words, and what differs carries no content ("prefers tea over
    # coffee" / "prefers tea to coffee"): a content word that differs is another fact.
    return len(sa & sb) / len(sa | sb) >= 0.85 and (sa ^ sb) <= STOP and not _swapped(a, b)


SYMMETRIC = frozenset({"and", "or", "und", "oder", "&", "plus", "as", "well", "sowie"})


def _swapped(a: tuple[str, ...], b: tuple[str, ...], *, number_pivots: bool = True,
             movers: frozenset[str] | None = None) -> bool:
    """Whether the same words say another thing in another order: around
    some word they share, one word moved from before it to after and
    another the other way ("Sam owes Kim" / "Kim owes Sam", "tea over
    coffee" / "coffee over tea", "son is 5 and daughter is 7" swapped).  A
    list in another order ("tea and coffee"), or a phrase moved to the
    front ("on Fridays Sam plays chess"), is the same fact.  ``movers``: the
    only words whose moving counts (a German line puts its words in another
    order than an English one: only names crossing say another thing)."""
    shared = set(a) & set(b)
    content = {w for w in shared if w not in STOP and (movers is None or w in movers)}
    for t in shared - SYMMETRIC:
        if _listed(a, t) or _listed(b, t) or (not number_pivots and any(c.isdigit() for c in t)):
            continue
        ia, ib = a.index(t), b.index(t)
        before_a, after_a = set(a[:ia]) & content, set(a[ia + 1:]) & content
        before_b, after_b = set(b[:ib]) & content, set(b[ib + 1:]) & content
        if before_a & after_b and after_a & before_b:
            return True
    return False


def _listed(words: tuple[str, ...], w: str) -> bool:
    """Whether ``w`` is an item of a list ("Norwegian, German and English")."""
    i = words.index(w)
    return any(0 <= j < len(words) and words[j] in SYMMETRIC for j in (i - 1, i + 1))


def more_informative(a: str, b: str) -> bool:
    """Whether line ``a`` says at least what ``b`` says (``a`` is the one to keep)."""
    na, nb = normalize(a), normalize(b)
    return len(na) > len(nb) and _subsequence(nb, na) is not None


# -- classes ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Kind:
    cls: str  # durable | time-bound | note
    why: str


def classify(text: str, timed: when.Timed, claims: list[Claim] | None = None) -> Kind:
    """Durable, time-bound or note (see the module docstring); ``claims``: the
    line's claims when the caller has them."""
    claims = claims if claims is not None else claims_of(text)
    attribute = durable_attribute(text, claims)
    if timed.recurring:
        return Kind(DURABLE, "recurring" if not attribute else attribute)
    # "worked from the Hamburg office on 2 February", "ran 8 km on 8 February": a
    # day's episode, however its verb reads — it ages like one, and leaves
    # room in MEMORY.md for the facts that last.
    episode = attribute in EPISODIC and timed.dated and (timed.over or timed.written_past) \
        and not SINCE.search(text) and not (LIFE_EVENT.search(text) and not NOT_DONE.search(text))
    # ("has had a cat since March": a state, not a day's episode; "wird am Freitag 40": a life event)
    if attribute and not timed.currently and not episode:
        return Kind(DURABLE, attribute)
    if episode:
        return Kind(NOTE, "an episode on a past day") if timed.written_past else \
            Kind(TIME_BOUND, "dated")
    if LIFE_EVENT.search(text) and not NOT_DONE.search(text):
        return Kind(DURABLE, "a life event")  # a dog adopted, a child born, a licence: for good
    if timed.time_bound:
        return Kind(TIME_BOUND, "currently" if timed.currently and not timed.dated else "dated")
    if timed.written_past and not any(c.attribute and not c.event for c in claims):
        return Kind(NOTE, "an episode in the past tense")
    return Kind(DURABLE, "a statement in the present tense")


# -- themes for moving lines out of MEMORY.md ------------------------------------------------------
THEMES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, re.compile(p, re.I)) for name, p in (
    ("reading", r"\b(?:read|reading|book|books|novel|author|Buch|Bücher|gelesen|liest|Roman)\b"),
    ("films", r"\b(?:watched|watching|film|films|movie|movies|cinema|series|episode|Kino|Serie|"
              r"geschaut|gesehen)\b"),
    ("food", r"\b(?:dinner|lunch|breakfast|brunch|restaurant|cafe|café|cooked|cooking|ate|recipe|"
             r"dish|bakery|Abendessen|Mittagessen|gekocht|gegessen|Rezept)\b"),
    ("travel", r"\b(?:trip|flew|flight|flying|visited|holiday|vacation|hotel|travel\w*|journey|"
               r"Urlaub|Reise|geflogen|Flug)\b"),
    ("health", r"\b(?:doctor|dentist|GP|appointment|surgery|sick|hospital|physio\w*|therapy|"
               r"vaccin\w*|Arzt|Zahnarzt|Termin|krank)\b"),
    ("work", r"\b(?:meeting|interview|conference|talk|project|deadline|colleague|client|office|"
             r"Besprechung|Konferenz|Projekt)\b"),
    ("sport", r"\b(?:ran|race|marathon|gym|match|training|hike|hiked|climb\w*|swim\w*|cycl\w*|"
              r"Lauf|Training|Spiel)\b"),
    ("music", r"\b(?:concert|album|band|gig|song|playlist|Konzert)\b"),
    ("events", r"\b(?:party|wedding|festival|celebrat\w*|Feier|Hochzeit)\b"),
))


def theme_of(text: str) -> str:
    """The topic a line moves to when MEMORY.md is full (``notes`` when none fits)."""
    for name, pattern in THEMES:
        if pattern.search(text):
            return name
    return "notes"


# -- the same fact in other words -------------------------------------------------------------------
# A phone number however it is grouped: "0176 5551234" = "0176-555 1234" = "01765551234".
_PHONE = re.compile(r"(?<![\w.,+])(\+|\b0)\d*(?:[ /.-]{1,2}\(?\d+\)?\d*)+(?![\w]|[.,]\d)")
_DECIMAL_COMMA = re.compile(r"(?<![\d,])(\d+),(\d{1,2})(?![\d,])")
_LETTERS_DIGITS = re.compile(r"^([a-z]{3,})(\d+)$")  # "bed3" is "bed 3"
_ISO = re.compile(r"^\d{4}-\d\d(?:-\d\d)?$")
_MONTH_DE = r"(?:Jan|Feb|Mär|Mar|Apr|Mai|Jun|Jul|Aug|Sep|Okt|Nov|Dez)"
# Where a sentence ends: ";", " | ", or "." "!" "?" after a word of four letters or more,
# a number or a bracket (not "Dr." or "Tom B.").
_SENTENCES = re.compile(r"(?:;+|(?:(?<=\w{4})|(?<=\)))[.!?]+)\s+|\s+\|\s+"
                        # not a German day's dot: "am 12. Mai", "am 12. 5."
                        r"|(?<=\d)(?<!\b\d)(?<!\b\d\d)[.!?]+\s+|(?<=\b\d)[.!?]+\s+(?!\d|" + _MONTH_DE + r")"
                        r"|(?<=\b\d\d)[.!?]+\s+(?!\d|" + _MONTH_DE + r")")
_LINKS = ("", "s", "es", "n", "en", "e")  # German compounds: "Mehl|lieferant", "Arbeit|s|platz"


_TITLES = {"frau": "mrs", "herr": "mr", "herrn": "mr"}
_OWNERS = frozenset("mein meine meiner meinem seine sein seiner seinem ihre ihr ihrer ihrem deine dein "
                    "unsere unser my his her their our your".split())


@dataclass(frozen=True)
class Telling:
    """A line's words for :func:`covers`: each canonical, with whether it was
    written with a capital; its numbers, negations and possessives."""

    words: tuple[str, ...]
    caps: tuple[bool, ...]
    numbers: frozenset[str]
    negations: frozenset[str]
    owned: tuple[tuple[str, str], ...]  # ("tom", "left") for "Tom's left …"
    ways: frozenset[tuple[str, str]]  # ("to", "munich") for "… to the Munich office"
    glossed: tuple[frozenset[str], ...]  # each word's concepts (:mod:`~.gloss`): "termin" ~appointment~
    concepts: frozenset[str]  # all of them

    def said(self, w: str) -> str:
        """A word as it is compared across languages: its concept, when it names one."""
        i = self.words.index(w)
        return next(iter(self.glossed[i])) if len(self.glossed[i]) == 1 else w


def _phone(m: re.Match[str]) -> str:
    """A phone number as its national digits, so that "0176 2234 9981" and
    "+49 176 22349981" are one number — and, written with its country, that
    country as a word of its own ("017622349981 cc49"): the line that names it
    says more than one that does not, and "+43 …" is not "+49 …"."""
    text = m.group(0)
    digits = "".join(c for c in text.replace("(0)", "") if c.isdigit())  # "+49 (0)40 …"
    if len(digits) < 7 or _ISO.match(text.strip()):
        return text
    if text.startswith("+"):
        code = _country_code(digits)
        return f"0{digits[code:]} cc{digits[:code]}"
    return digits


# ITU-T E.164's country codes of one and two digits (every other is three).
_CODES_1 = frozenset("17")
_CODES_2 = frozenset("""20 27 30 31 32 33 34 36 39 40 41 43 44 45 46 47 48 49 51 52 53 54 55 56 57 58
    60 61 62 63 64 65 66 81 82 84 86 90 91 92 93 94 95 98""".split())


def _country_code(digits: str) -> int:
    """How many leading digits of an international number are its country code."""
    return 1 if digits[:1] in _CODES_1 else 2 if digits[:2] in _CODES_2 else 3


# A price in cents: "11 ct" is "0.11" (of the currency the line names, or none).
_CENTS = re.compile(r"\b(\d{1,2})\s?(?:ct|cents?)\b", re.I)


def _cents(m: re.Match[str]) -> str:
    return f"0.{int(m.group(1)):02d}"


def number_spans(text: str) -> list[tuple[int, int, str]]:
    """Where :func:`numbers_spelt` respells a number of ``text``, and as what."""
    spans = [(m.start(), m.end(), _phone(m).split(" ")[0]) for m in _PHONE.finditer(text)]
    spans = [s for s in spans if s[2] != text[s[0]:s[1]]]

    def free(m: re.Match[str]) -> bool:
        return not any(s < m.end() and m.start() < e for s, e, _ in spans)

    spans += [(m.start(), m.end(), f"{m.group(1)}.{m.group(2)}") for m in _DECIMAL_COMMA.finditer(text)
              if free(m)]
    spans += [(m.start(), m.end(), _cents(m)) for m in _CENTS.finditer(text) if free(m)]
    return spans


def numbers_spelt(text: str) -> str:
    """A line with its numbers in one spelling each, as the rules compare
    them: a phone number's national digits (:func:`_phone`), a decimal comma
    as a point ("17,99 €"), a price in cents as a fraction ("11 ct/word" is
    "0.11/word")."""
    t = _DECIMAL_COMMA.sub(r"\1.\2", _PHONE.sub(_phone, text))
    return _CENTS.sub(_cents, t)


@lru_cache(maxsize=16384)
def telling(text: str) -> Telling:
    """The words of a line as :func:`covers` compares them: after
    :func:`normalize`'s case, accents, dates, clocks and units, also its
    numbers in one spelling (:func:`numbers_spelt`), "bed3" as "bed 3", a
    hyphenated word joined ("e-mail"), short forms (:data:`~.words.ALIASES`)."""
    t = _canonical(numbers_spelt(text))
    out: list[tuple[str, bool]] = []
    owned: list[tuple[str, str]] = []
    owner = None
    toks = words(t)
    for i, raw in enumerate(toks):
        cap = raw[:1].isupper()
        if raw.lower() in _TITLES and i + 1 < len(toks) and toks[i + 1][:1].isupper() and (
                i == 0 or toks[i - 1].lower() not in _OWNERS and not toks[i - 1].endswith("s")):
            out.append((_TITLES[raw.lower()], cap))  # "Frau Weber" is Mrs Weber, not someone's wife
            continue
        w = strip_accents(raw.lower()).replace("’", "'")
        if w.endswith("n't"):
            out += [(w[:-3], cap), ("not", False)]
            continue
        possessive = w.endswith("'s")
        w = w.removesuffix("'s").rstrip("'")
        w = _NUMBER_WORDS.get(w, w)
        if w not in ALIASES and len(w) > 3 and w.endswith("s") and (
                w[:-1] in ALIASES or spelling(w[:-1]) != w[:-1]):
            w = w[:-1]  # "Mums meds" is "Mum's meds"
        w = ALIASES.get(w, w)
        if "-" in w and not any(c.isdigit() for c in w):
            w = ALIASES.get(w.replace("-", ""), w.replace("-", ""))  # "e-mail", "Hamburg-Altona"
        m = _LETTERS_DIGITS.match(w)
        parts = [m.group(1), m.group(2)] if m else [w]
        for p in parts:
            p = _SAME_WORD.get(p, p)
            p = spelling(p)
            if p in FILLER or not p:
                continue
            if owner is not None:
                owned.append((owner, p))
                owner = None
            out.append((p, cap))
        if possessive:
            owner = out[-1][0] if out else None
    ws = tuple(w for w, _ in out)
    glossed = gloss.read(ws, german=is_german(text))
    ways = set()
    for i, w in enumerate(ws):
        if w in DIRECTION:
            to = next((x for x in ws[i + 1:] if x not in WEAK), None)
            if to is not None and to not in DIRECTION:
                ways.add((w, to))
    return Telling(ws, tuple(c for _, c in out),
                   frozenset(w for w in ws if any(c.isdigit() for c in w)),
                   frozenset(w for w in ws if w in NEGATIONS), tuple(owned), frozenset(ways),
                   glossed, frozenset().union(*glossed))


# Negations and directions said in either language, as they are compared: "nicht" is "not",
# "nach Rom" is "to Rome".
_NEGATION = {**dict.fromkeys(("no", "n't", "nicht", "kein", "keine", "keinen", "keinem"), "not"),
             "nie": "never", "niemals": "never", "anymore": "longer", "mehr": "longer",
             "ehemals": "former", "ex": "former", "ohne": "without"}
_DIRECTION = {**dict.fromkeys(("nach", "zu", "zum", "zur", "into"), "to"),
              **dict.fromkeys(("von", "aus", "ab"), "from"), "bis": "until"}


def _negations(t: Telling) -> frozenset[str]:
    return frozenset(_NEGATION.get(w, w) for w in t.negations)


def _ways(t: Telling) -> frozenset[tuple[str, str]]:
    return frozenset((_DIRECTION.get(w, w), t.said(to)) for w, to in t.ways)


def _stem(w: str) -> str:
    """A word's stem to compare by, when it is long enough to tell ("sprint");
    a short one stands for the word alone ("Jens" is not "Jensen")."""
    s = stem(w)
    return s if len(s) >= 4 and not any(c.isdigit() for c in w) else "=" + w


def _one_edit(a: str, b: str) -> bool:
    """Whether two words differ by one letter (added, dropped, changed or two swapped)."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def _said_in(w: str, cap: bool, kept: Telling, stems: set[str], dropped: set[str]) -> bool:
    """Whether the word ``w`` of the dropped line is said by the kept line."""
    if w in kept.words or (len(w) >= 4 and _stem(w) in stems):
        return True
    if any(c.isdigit() for c in w):
        return False
    if len(w) >= 7:  # a typo of a long word, unless both are written as names
        if any(len(k) >= 7 and _one_edit(w, k) and not (cap and kc)
               for k, kc in zip(kept.words, kept.caps, strict=True)):
            return True
        for i in range(3, len(w) - 2):  # a compound of two of its words: "Mehllieferant"
            head = w[:i]
            if head in kept.words or _stem(head) in stems:
                rest = w[i:]
                if any(rest.startswith(ln) and len(rest) - len(ln) >= 3 and
                       (rest[len(ln):] in kept.words or _stem(rest[len(ln):]) in stems)
                       for ln in _LINKS):
                    return True
    if len(w) >= 4:  # a part of a compound the kept line has, the other part here too
        dstems = {_stem(x) for x in dropped}
        for k in kept.words:
            if len(k) < len(w) + 3:
                continue
            rests = [k[len(w) + len(ln):] for ln in _LINKS if k.startswith(w + ln)] + \
                [k[:len(k) - len(w) - len(ln)] for ln in _LINKS if k.endswith(ln + w)]
            if any(len(r) >= 3 and (r in dropped or _stem(r) in dstems) for r in rests):
                return True
    return False


def told_key(w: str) -> str:
    """What an index of telling words files ``w`` under (its stem, for plurals)."""
    return _stem(w)


def covers(kept: str, dropped: str) -> bool:
    """Whether line ``kept`` says all that line ``dropped`` says, so that the
    dropped line may merge into it (docs/dream.md, "Duplicates"): every
    telling word of ``dropped`` is said by ``kept`` — the same word after
    :func:`telling`, another form of it ("sprints", "sprinting"), a one-letter
    typo of a long word, a compound of its words ("Mehllieferant") — and the
    words it adds are weak (:data:`~.words.WEAK`: "takes", "kommt", "meds",
    "pls").  Never when a number differs or is missing, a negation differs,
    they name another direction ("from"/"to"), the kept line adds a change,
    a wish, a doubt or someone else's word (:data:`~.words.SHIFT`), a
    relative ("Tom's brother"), or what someone owns ("Mia's dog Rex" is
    not Mia), or says it in another order ("Sam owes Kim" / "Kim owes Sam").
    A kept line of several sentences must cover it with one of them."""
    k, d = telling(kept), telling(dropped)
    if not d.numbers <= k.numbers or _negations(k) != _negations(d):
        return False
    if sum(1 for w in d.words if w not in WEAK and w not in DIRECTION) < 2:
        return False
    parts = [p for p in _SENTENCES.split(kept) if p.strip()]
    if len(parts) > 1:
        return any(covers(p, dropped) for p in parts if p.strip() != kept.strip())
    stems = {_stem(w) for w in k.words}
    dset = set(d.words)
    # which way: where the kept line says one, the same word goes with the same thing
    # ("to Munich" is not "from Munich to Salzburg"); "Mehl kommt von Müller" may say
    # it where the kept line says none
    if any(w in DIRECTION for w in k.words) and not _ways(d) <= _ways(k):
        return False
    for i, (w, cap) in enumerate(zip(d.words, d.caps, strict=True)):
        if w not in DIRECTION and w not in WEAK and w not in NEGATIONS and \
                not _said_in(w, cap, k, stems, dset) and \
                not _glossed_in(d.glossed[i], cap, k, stems, dset) and not _part_in(w, k, d) and \
                not _genitive(w, cap, k, d):
            return False
    dstems = {_stem(w) for w in dset}
    extra = {w for i, w in enumerate(k.words) if w not in dset and _stem(w) not in dstems
             and w not in d.concepts and not (k.glossed[i] and k.glossed[i] <= d.concepts)}
    if extra & (SHIFT | PERSON_NOUNS):
        return False
    for owner, thing in k.owned:  # "Mia's dog Rex is 5" says nothing of Mia's age
        if owner in dset and thing in extra and (owner, thing) not in d.owned:
            return False
    if _other_owner(k, d):  # "Sam's boss is Anna" is not "Sam ist Annas Chef"
        return False
    # terse notes put a number anywhere ("backup -> NAS, 2:00 nightly"): not a swap;
    # a word in the other language is its concept ("Kim schuldet Sam" is "Kim owes Sam"),
    # and there only names crossing a word say another thing
    # and there a German genitive is the name ("Annas Chef"), and a day may go anywhere
    ka = tuple(_named_as(w, c, k, d) for w, c in zip(k.words, k.caps, strict=True) if w not in WEAK)
    da = tuple(_named_as(w, c, d, k) for w, c in zip(d.words, d.caps, strict=True) if w not in WEAK)
    movers = None
    if is_german(kept) != is_german(dropped):
        movers = frozenset(w for w in set(ka) & set(da)
                           if not any(c.isdigit() for c in w) and w not in _TIME_CONCEPTS)
    return not _swapped(ka, da, number_pivots=False, movers=movers)


def _owners(t: Telling) -> dict[str, set[str]]:
    """Whose each thing of a line is, by the thing's concept: "Sam's boss", and a
    German genitive ("Annas Chef": the name with or without its "s")."""
    out: dict[str, set[str]] = {}
    for owner, thing in t.owned:
        out.setdefault(t.said(thing), set()).add(owner)
    for i, (w, cap) in enumerate(zip(t.words[:-1], t.caps[:-1], strict=True)):
        if cap and w.endswith("s") and len(w) > 3 and t.caps[i + 1]:
            out.setdefault(t.said(t.words[i + 1]), set()).update({w, w[:-1]})
    return out


def _other_owner(k: Telling, d: Telling) -> bool:
    """Whether the lines give one thing to different owners."""
    ko, do = _owners(k), _owners(d)
    return any(not ko[thing] & do[thing] for thing in ko.keys() & do.keys())


def _named_as(w: str, cap: bool, own: Telling, other: Telling) -> str:
    """A word as it is compared with the other line: a German genitive as the
    name ("Annas" beside "Anna's" is "anna"), a word by its concept."""
    if cap and w.endswith("s") and len(w) > 3 and w[:-1] in other.words:
        return w[:-1]
    return own.said(w)


_TIME_CONCEPTS = frozenset(filter(None, (gloss.word(strip_accents(m.lower())) for m in (
    *when.MONTHS_EN, *when.MONTHS_DE, *when.WEEKDAYS_EN, *when.WEEKDAYS_DE))))


def _glossed_in(parts: frozenset[str], cap: bool, kept: Telling, stems: set[str], dropped: set[str]) -> bool:
    """Whether what a word of the dropped line says in other words (:mod:`~.gloss`:
    its concept, or a compound's two parts) is said by the kept line."""
    return bool(parts) and all(kept.concepts & {p} if gloss.is_concept(p) else
                               _said_in(p, cap, kept, stems, dropped) for p in parts)


def _genitive(w: str, cap: bool, kept: Telling, dropped: Telling) -> bool:
    """Whether a name is the other's German genitive: "Mias Geburtstag" is "Mia's birthday"."""
    return cap and ((w.endswith("s") and any(o == w[:-1] for o, _ in kept.owned)) or
                    (w + "s" in kept.words and any(o == w for o, _ in dropped.owned)))


def _part_in(w: str, kept: Telling, dropped: Telling) -> bool:
    """Whether ``w`` is a part of a compound of the kept line whose other part
    the dropped line says in other words ("Penicillin" of "Penicillinallergie"
    beside "allergic")."""
    return any(w in parts and len(parts) == 2 and all(
        p == w or (p in dropped.concepts if gloss.is_concept(p) else p in dropped.words) for p in parts)
        for parts in kept.glossed)
