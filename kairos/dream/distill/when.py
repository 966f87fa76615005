"""The time rules: what a line's time words mean, read in the user's timezone.

``resolve(text, written, now, tz)`` reads the time a line refers to against
the moment it was *written* (the source event's time, in the user's
timezone) and returns it with relative time made absolute ("tomorrow" → "on
5 May 2026", "nächste Woche" → "in der Woche vom 11. Mai 2026", "in July" →
"in July 2026") and, once the time is over at ``now``, in the past tense.

The rules, in short (docs/dream.md has them in full):

- Relative words are resolved against the local date of writing: today,
  tonight, tomorrow, the day after tomorrow, yesterday, next/this/last week,
  month and year, next/this/last/on <weekday>, this/next weekend, in N days
  (weeks, months), N days ago; in German heute, morgen, übermorgen, gestern,
  vorgestern, nächste/diese/letzte Woche, nächsten/diesen/letzten Monat,
  am/nächsten/letzten <Wochentag>, in N Tagen, vor N Tagen.
- A month or a day without a year ("in July", "14 July", "July 14",
  "im Juli", "2. März", "am 14.7.") takes the year that makes it the next
  one on or after the writing date, or, in a sentence in the past tense
  ("started running in March", written in May), the last one on or before.
  Words that point ahead ("moving out 31 Jan", "from 3 Sep" after a change,
  "contract start 1 June") take the nearer of the two, whatever the verb.
- Recurring dates stay without a year and never take the past tense:
  birthdays, anniversaries (Geburtstag, Hochzeitstag …), lines that say
  "every …", "on Tuesdays", "jeden …", "montags", and a payment's day of the
  month ("pays on the 3rd").
- A terse note's weekday ("Roof inspection Thursday", "Do 14 Uhr") is the
  coming one, never one of a list ("Mon/Wed/Fri"); "in two weeks" is a day.
- Dates that carry a year (ISO ``2026-07-14``, "14 July 2026", "31 Aug 2026",
  "14.07.2026", "July 2026") are not rewritten, but they age like the rest.
- A statement about a time that is over at ``now`` takes the past tense;
  one that was already past when written ("ran the marathon on 26 April")
  keeps its words.

The text is always derived from the *original* words and the original time,
so the tense follows the date of each dream and is never frozen by an
earlier rewrite.  Deterministic; no I/O.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, tzinfo
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from kairos.dream.distill.lexicon import CANCELLED
from kairos.dream.distill.tense import clause_of, clause_past, has_finite_verb, past_tense
from kairos.dream.distill.words import EN_VERB_FORMS, IRREGULAR_EN, PARTICIPLES_EN, is_german

MONTHS_EN = list(calendar.month_name)[1:]
MONTHS_DE = ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
             "September", "Oktober", "November", "Dezember"]
WEEKDAYS_EN = list(calendar.day_name)
WEEKDAYS_DE = ["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"]
_ABBR_EN = {m[:3]: i for i, m in enumerate(MONTHS_EN)} | {"Sept": 8}
# German short months that English does not share ("15. Okt", "3. Mär", "1. Dez").
_ABBR_DE = {"Mär": 2, "Mrz": 2, "Okt": 9, "Dez": 11}
# The calendar's words, lower case: a month or a day is a time, never a name,
# a place or an employer ("quit in April"; "Marta" is no month).
CALENDAR_WORDS = frozenset(w.lower() for w in MONTHS_EN + MONTHS_DE + WEEKDAYS_EN + WEEKDAYS_DE)
_SHORT_MONTHS = frozenset("jan feb mar apr may jun jul aug sep sept oct nov dec mär mai okt dez maerz "
                          "jänner".split())
_SHORT_DAYS = frozenset("mon tue wed thu fri sat sun".split())


def is_calendar(word: str, *, short_days: bool = True) -> bool:
    """A month or a weekday, written out or cut short ("March", "Mar.", "Sept")."""
    w = word.lower().rstrip(".,;")
    return w in CALENDAR_WORDS or w in _SHORT_MONTHS or (short_days and w in _SHORT_DAYS)
_MONTH_INDEX = {m: i for i, m in enumerate(MONTHS_EN)} | {m: i for i, m in enumerate(MONTHS_DE)} | {
    "Maerz": 2, "Jänner": 0} | _ABBR_EN | _ABBR_DE
_M_EN = "|".join(MONTHS_EN + sorted(_ABBR_EN, key=len, reverse=True))
_M_DE = "|".join(MONTHS_DE + ["Maerz", "Jänner"] + sorted(_ABBR_EN | _ABBR_DE, key=len, reverse=True))
# Every spelling of a month, for dates that carry their year ("31 Aug 2026", "15. Okt. 2026").
_M_ALL = "|".join(dict.fromkeys(MONTHS_EN + MONTHS_DE + ["Maerz", "Jänner"]
                                + sorted(_ABBR_EN | _ABBR_DE, key=len, reverse=True)))
_M_ANY = "|".join(dict.fromkeys(MONTHS_EN + MONTHS_DE + ["Maerz", "Jänner"]))
_WD_EN = "|".join(WEEKDAYS_EN)
_WD_DE = "|".join(WEEKDAYS_DE)
_WD_SHORT_EN = "Mon|Tues|Tue|Wed|Thurs|Thur|Thu|Fri|Sat|Sun"
_WD_SHORT_DE = ["Mo", "Di", "Mi", "Do", "Fr", "Sa", "So"]
_NUM_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
              "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
              "einem": 1, "einer": 1, "ein": 1, "eine": 1, "zwei": 2, "drei": 3, "vier": 4,
              "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10}
_NUM = r"(\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_NUM_DE = r"(\d{1,3}|einem|einer|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn)"
_PART_EN = r"(?: (morning|afternoon|evening|night))?"
_PART_DE = r"(?: (früh|Früh|Morgen|Vormittag|Mittag|Nachmittag|Abend|Nacht))?"
_PART_WORDS_DE = {"früh": "früh", "morgen": "am Morgen", "vormittag": "am Vormittag",
                  "mittag": "am Mittag", "nachmittag": "am Nachmittag", "abend": "am Abend",
                  "nacht": "in der Nacht"}

# Recurring: the line names a habit or a yearly date, so its dates carry no year.
RECURRING = re.compile(
    rf"\bevery\b|\beach (?:day|week|month|year|morning|evening|night|{_WD_EN})\b"
    rf"|\b(?:{'|'.join(d + 's' for d in WEEKDAYS_EN)}|weekends|weekdays|mornings|evenings|nights)\b"
    r"|\b(?:daily|weekly|monthly|yearly|annually|usually|always|often|regularly)\b"
    r"|\bjede[nrsm]?\b|\b(?:montags|dienstags|mittwochs|donnerstags|freitags|samstags|sonntags"
    r"|morgens|abends|mittags|nachts|wochentags|werktags|täglich|wöchentlich|monatlich|jährlich"
    r"|immer|regelmäßig|meistens)\b", re.I)
# A rate: "17.99/month", "£40 per week", "30 € pro Monat", "17,99 € mtl." — a standing
# arrangement when no date bounds it (:func:`_told_past`).
RATE = re.compile(r"(?<=\d)\s?(?:€|\$|£|eur|euro)?\s?/\s?"
                  r"(?:month|mo|week|wk|day|year|yr|Monat|Woche|Tag|Jahr)\b"
                  r"|\b(?:per|pro|im) (?:month|week|day|year|Monat|Woche|Tag|Jahr)\b|\b(?:mtl|tgl)\.", re.I)
ANNUAL = re.compile(
    r"\b(?:birthday|b-?day|bday's|anniversary|name day|Geburtstag|Geb\.|Hochzeitstag|Jahrestag|"
    r"Namenstag)(?!\w)"
    r"(?!\s*(?:party|parties|dinner|lunch|trip|celebration|present|gift|cake|Feier|Party|Essen"
    r"|Geschenk|Reise))", re.I)
# "born on 3 March", "am 3. März geboren" — not "due to be born on 3 June".
BORN_BEFORE = re.compile(r"(?<!\bbe )(?<!\bto be )\bborn(?: on)?\s*$", re.I)
BORN_AFTER = re.compile(r"\s*geboren\b(?!\s+werden)", re.I)
# Undated but time-bound: true now, not for good.
CURRENTLY = re.compile(r"\b(?:currently|at the moment|right now|for now|these days|temporarily"
                       r"|zurzeit|derzeit|gerade|momentan|im Moment|vorübergehend)\b", re.I)
# States that pass by nature: a cold, a stay in hospital, feeling better — but not
# "works in a hospital", "a cold shower", nor "when she is ill" (a habit's condition).
PASSING = re.compile(
    r"\b(?:has (?:a|the) (?:cold|flu|fever|migraine|sore throat)(?=\s*(?:[.;!]|$|\s+(?:since|for|and|"
    r"again|today|now|at the moment|right now|this week|but)\b))|has (?:flu|covid|a fever)(?=\s*(?:[.;!]|$))|"
    r"is (?:sick|ill|unwell)\b|"
    r"off sick|on sick leave|(?:is|was|liegt|ist) (?:still |noch )?(?:in (?:the )?hospital|im Krankenhaus)|"
    r"(?:ist|bin) (?:\w+ )?erkältet|hat sich erkältet|krankgeschrieben|hat (?:eine )?(?:Grippe|Erkältung)|"
    r"hat Fieber|is recovering|is on antibiotics|(?:is|are|was) (?:\w+ ){0,2}(?:(?:in|at) (?-i:[A-ZÄÖÜ])\w*|"
    r"away)\b[^.;]*\bfor the week|is staying with|(?:is )?feel(?:s|ing) (?:better|worse|unwell|sick))",
    re.I)
_HABITUAL = re.compile(r"\b(?:always|every|usually|often|immer|jede[nrsm]?|meistens)\b", re.I)
_CONDITION = re.compile(r"\b(?:when|whenever|if|unless|wenn|falls|sobald)\b[^.;]*$", re.I)


def passing(text: str) -> bool:
    """Whether a line speaks of a state that passes by nature (:data:`PASSING`)."""
    m = PASSING.search(text)
    return m is not None and not _CONDITION.search(text, 0, m.start()) and not _HABITUAL.search(text)


# A date after these words is where something was moved to: ahead, whatever the tense.
TARGET = re.compile(r"\b(?:moved|postponed|pushed|rescheduled|changed|delayed|brought forward|put off|"
                    r"verschoben|verlegt|geändert)(?: back)?(?: (?!to\b|until\b)[^.;,]{1,40}?)? "
                    r"(?:to|until|till|auf|nach)\s*(?:on |am |the )?$", re.I)


# Quoted titles keep their words: 'Tomorrow, and Tomorrow, and Tomorrow' names no day.
QUOTED = re.compile(r"(?<![\w])'[^']{2,80}'(?![\w])|\"[^\"]{2,80}\"|“[^”]{2,80}”|„[^“]{2,80}“|«[^»]{2,80}»")


# A cheap first look: a line none of whose words could name a time has no mentions.
MAYBE_TIME = re.compile(
    rf"\b(?:{_M_ANY}|{_WD_EN}|{_WD_DE}|{'|'.join(_ABBR_EN | _ABBR_DE)}"
    r"|Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun|(?-i:Mo|Di|Mi|Do|Fr|Sa|So))\b"
    r"|\d{4}-\d\d|\d{1,2}\.\d{1,2}\."
    r"|\b(?:today|tonight|tomorrow|tmrw|tmr|2moro|yesterday|next|this|last|ago|"
    r"in (?:\d+|a|an|one|two|three|four|"
    r"five|six|seven|eight|nine|ten|eleven|twelve) (?:days?|weeks?|fortnights?|months?)|"
    r"the \d{1,2}(?:st|nd|rd|th)|weekend|wochenende|heute|morgen|übermorgen|"
    r"gestern|vorgestern|nächste\w*|kommende\w*|diese\w*|letzte\w*|vergangene\w*|in \w+ (?:Tagen?|"
    r"Wochen?|Monaten?)|vor \w+ (?:Tagen?|Wochen?)|Anfang|Mitte|Ende|end of (?:the )?(?:month|week|year))\b",
    re.I)


@dataclass(frozen=True)
class Mention:
    """A time expression found in a line."""

    start: int
    stop: int
    first: date
    last: date
    grain: str  # day | week | weekend | month | year
    relative: bool  # its words depend on when they were written
    lang: str  # "en" or "de"
    replacement: str  # the absolute wording ("" when the words are kept)


@dataclass(frozen=True)
class Timed:
    """A line read by the time rules."""

    text: str  # the line as of ``now``: absolute dates, past tense when over
    absolute: str  # the line with absolute dates, tense unchanged
    mentions: tuple[Mention, ...] = ()
    recurring: bool = False  # a habit or a yearly date: ages never
    written_past: bool = False  # the statement was about the past when written
    currently: bool = False  # "currently …": true for now, undated
    end: date | None = None  # the last day it refers to (None: no date, or recurring)
    over: bool = False  # end is before the local date of ``now``
    dates: frozenset[date] = field(default_factory=frozenset)  # every day it names

    @property
    def dated(self) -> bool:
        return self.end is not None

    @property
    def time_bound(self) -> bool:
        """About a time that will pass: a dated plan, trip or appointment, or
        something true "currently" — what the TTL may archive."""
        return (self.dated and not self.written_past) or self.currently


def zone(name: str | None) -> tzinfo:
    """The timezone of an IANA name (UTC for None or an unknown name)."""
    if name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            pass
    return ZoneInfo("UTC")


TZ_LINE = re.compile(r"\b(?:time ?zone|tz|zeitzone)\s*[:=]\s*([A-Za-z]+(?:/[A-Za-z0-9_+-]+){1,2}|UTC)",
                     re.I)


def timezone_in(text: str) -> str | None:
    """The IANA timezone a line names ("timezone: Europe/Berlin", "Time zone:
    Europe/Oslo."), if it is a real one."""
    m = TZ_LINE.search(text)
    if not m:
        return None
    name = m.group(1)
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None
    return name


def local_day(moment: datetime, tz: tzinfo) -> date:
    return moment.astimezone(tz).date()


# -- formatting ---------------------------------------------------------------------------------
def fmt_day(d: date, lang: str) -> str:
    return f"{d.day}. {MONTHS_DE[d.month - 1]} {d.year}" if lang == "de" else \
        f"{d.day} {MONTHS_EN[d.month - 1]} {d.year}"


def fmt_month(year: int, month: int, lang: str) -> str:
    return f"{(MONTHS_DE if lang == 'de' else MONTHS_EN)[month - 1]} {year}"


@lru_cache(maxsize=4096)
def date_forms(d: date) -> frozenset[str]:
    """The spellings of a day a line may use (for the faithfulness check)."""
    return frozenset({str(d.day), f"{d.day:02d}", str(d.year), str(d.month), f"{d.month:02d}",
                      MONTHS_EN[d.month - 1], MONTHS_DE[d.month - 1], WEEKDAYS_EN[d.weekday()],
                      WEEKDAYS_DE[d.weekday()], d.isoformat(), f"{d.day:02d}.{d.month:02d}.{d.year}",
                      f"{d.day}.{d.month}.{d.year}", MONTHS_EN[d.month - 1][:3]})


# -- finding time expressions ----------------------------------------------------------------------
def _end_of_month(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _add_months(year: int, month: int, n: int) -> tuple[int, int]:
    k = year * 12 + (month - 1) + n
    return k // 12, k % 12 + 1


def _monday(d: date) -> date:
    return d - timedelta(days=d.weekday())


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


_Finder = Callable[[re.Match[str], date, bool], "Mention | None"]


class _Rules:
    """The patterns, each with how it resolves.  Order matters: a longer or
    more specific expression is tried before a shorter one it contains."""

    def __init__(self) -> None:
        self.rules: list[tuple[re.Pattern[str], _Finder]] = []

    def add(self, pattern: str, flags: int = 0) -> Callable[[_Finder], _Finder]:
        def deco(fn: _Finder) -> _Finder:
            self.rules.append((re.compile(pattern, flags), fn))
            return fn
        return deco


R = _Rules()


def _day(m: re.Match[str], d: date, lang: str, *, relative: bool = True, part: str | None = None,
         prep: bool = True) -> Mention:
    if _word_before(m) in _OWN_PREP:
        prep = False  # "from tomorrow on": "from 7 January 2026 on", not "from on 7 January"
    if lang == "de":
        words = f"am {fmt_day(d, 'de')}" if prep else fmt_day(d, "de")
        if part:
            words += " " + _PART_WORDS_DE.get(part.lower(), part)
    else:
        core = f"the {part} of {fmt_day(d, 'en')}" if part else fmt_day(d, "en")
        words = f"on {core}" if prep else core
        own = _POSSESSIVE.match(m.string, m.end()) if relative and not part else None
        if own:  # "after today's assessment": "after the 12 May 2026 assessment", not "on …'s"
            return Mention(m.start(), own.end(), d, d, "day", True, lang, f"the {fmt_day(d, 'en')}")
    return Mention(m.start(), m.end(), d, d, "day", relative, lang, words if relative else "")


_POSSESSIVE = re.compile(r"['’]s\b")


def _word_before(m: re.Match[str]) -> str:
    """The word just before a time expression, lower case ("from" in "from tomorrow")."""
    return m.string[:m.start()].rstrip().lower().rsplit(" ", 1)[-1]


_OWN_PREP = frozenset({"from", "since", "until", "till", "by", "to", "for", "ab", "seit", "bis", "für"})
# "auf nächste Woche verschoben": "auf die Woche vom …", not "auf in der Woche vom …".
_DE_WEEK_AFTER = {"auf": "die", "für": "die", "bis": "zur", "ab": "der", "seit": "der"}


def _week(m: re.Match[str], monday: date, lang: str) -> Mention:
    words = f"in der Woche vom {fmt_day(monday, 'de')}" if lang == "de" else \
        f"in the week of {fmt_day(monday, 'en')}"
    before = _word_before(m)
    if lang == "en" and before in ("to", "until", "till", "by", "from", "for"):
        words = words[len("in "):]  # "postponed to next week": "to the week of …"
    elif lang == "de" and before in _DE_WEEK_AFTER:
        words = f"{_DE_WEEK_AFTER[before]} Woche vom {fmt_day(monday, 'de')}"
    return Mention(m.start(), m.end(), monday, monday + timedelta(days=6), "week", True, lang, words)


def _month(m: re.Match[str], year: int, month: int, lang: str, *, prep: str | None = None) -> Mention:
    p = prep if prep is not None else ("im" if lang == "de" else "in")
    if prep is None and _word_before(m) in _OWN_PREP:
        p = ""  # "from next month": "from February 2026", not "from in February 2026"
    words = f"{p} {fmt_month(year, month, lang)}".strip()
    return Mention(m.start(), m.end(), date(year, month, 1), _end_of_month(year, month), "month",
                   True, lang, words)


def _weekday_ahead(d: date, target: int, *, strict: bool = True) -> date:
    ahead = (target - d.weekday()) % 7
    if ahead == 0 and strict:
        ahead = 7
    return d + timedelta(days=ahead)


def _next_week_day(d: date, target: int) -> date:
    """"next Thursday": that day of the next calendar week (Monday to Sunday),
    so written on a Tuesday it is nine days ahead, not two ("this Thursday")."""
    return _monday(d) + timedelta(days=7 + target)


def _weekday_back(d: date, target: int) -> date:
    back = (d.weekday() - target) % 7 or 7
    return d - timedelta(days=back)


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _NUM_WORDS[word.lower()]


# Absolute dates with a year: kept as written, but they age.
@R.add(r"\b(\d{4})-(\d{2})-(\d{2})\b")
def _iso(m: re.Match[str], d: date, past: bool) -> Mention | None:
    day = _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    return None if day is None else Mention(m.start(), m.end(), day, day, "day", False, "en", "")


@R.add(rf"\b(?:(?:{_WD_EN}|{_WD_DE}),? )?(\d{{1,2}})(?:st|nd|rd|th|\.)? ?(?:of )?({_M_ALL})\.?,? (\d{{4}})\b")
def _dmy(m: re.Match[str], d: date, past: bool) -> Mention | None:
    day = _safe_date(int(m.group(3)), _MONTH_INDEX[m.group(2)] + 1, int(m.group(1)))
    return None if day is None else Mention(m.start(), m.end(), day, day, "day", False, "en", "")


@R.add(rf"\b({_M_EN}) (\d{{1,2}})(?:st|nd|rd|th)?,? (\d{{4}})\b")
def _mdy(m: re.Match[str], d: date, past: bool) -> Mention | None:
    day = _safe_date(int(m.group(3)), _MONTH_INDEX[m.group(1)] + 1, int(m.group(2)))
    return None if day is None else Mention(m.start(), m.end(), day, day, "day", False, "en", "")


@R.add(r"\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b")
def _dmy_numeric(m: re.Match[str], d: date, past: bool) -> Mention | None:
    day = _safe_date(int(m.group(3)), int(m.group(2)), int(m.group(1)))
    return None if day is None else Mention(m.start(), m.end(), day, day, "day", False, "de", "")


@R.add(rf"\b({_M_ALL})\.? (\d{{4}})\b")
def _month_year(m: re.Match[str], d: date, past: bool) -> Mention | None:
    month = _MONTH_INDEX[m.group(1)] + 1
    year = int(m.group(2))
    return Mention(m.start(), m.end(), date(year, month, 1), _end_of_month(year, month), "month",
                   False, "en", "")


# English relative days.
# "at the end of the month", "by the end of next week", "Ende des Monats",
# "Ende nächster Woche": the month, week or year it points to, by name.
@R.add(r"\b((?:at |by )?(?:the )?end of) (?:(the|this|next|last) )?(month|week|year)\b", re.I)
def _end_of(m: re.Match[str], d: date, past: bool) -> Mention:
    return _end_of_unit(m, d, m.group(1), (m.group(2) or "this").lower(), m.group(3).lower(), "en")


@R.add(r"\b((?:bis )?(?:Anfang|Mitte|Ende)) (?:des |der )?(diese[sr]?|nächste[nr]?|kommende[nr]?|"
       r"letzte[nr]?)? ?(Monats|Woche|Jahres)\b")
def _ende(m: re.Match[str], d: date, past: bool) -> Mention:
    which = (m.group(2) or "").lower()
    n = "next" if which.startswith(("nächst", "kommend")) else "last" if which.startswith(
        "letzt") else "this"
    unit = {"monats": "month", "woche": "week", "jahres": "year"}[m.group(3).lower()]
    return _end_of_unit(m, d, m.group(1), n, unit, "de")


# A day of a week named by the week: "next week Thursday", "Thursday next week",
# "in 2 weeks on Monday", "nächste Woche Donnerstag", "in 3 Wochen (Mo)", "am Freitag
# in zwei Wochen" — one day, that weekday of that week (read apart, the two made two
# dates: "in the week of 20 April on 16 April").  Before the rules for each part.
_WEEK_EN = rf"(?:(next|this|last) week|(?:the )?week after next|in {_NUM} weeks?(?: time)?)"
_WEEK_DE = (rf"(?:(?:in der |die )?(nächste[nr]?|kommende[nr]?|diese[nr]?|letzte[nr]?|"
            rf"vergangene[nr]?) Woche|übernächste[nr]? Woche|in {_NUM_DE} Wochen?)")
_DAY_EN = rf"\(?({_WD_EN}|{_WD_SHORT_EN})\b\.?\)?"
_DAY_DE = rf"\(?({_WD_DE}|{'|'.join(_WD_SHORT_DE)})\b\.?\)?"


def _week_monday(words: str, d: date) -> date:
    """The Monday of the week a phrase names ("next week", "in 3 Wochen")."""
    low = words.lower()
    if "after next" in low or "übernächst" in low:
        return _monday(d) + timedelta(days=14)
    n = re.search(r"\bin (\S+) (?:week|woche)", low)
    if n:
        return _monday(d + timedelta(days=7 * _count(n.group(1))))
    step = 1 if re.search(r"\b(?:next|nächst|kommend)", low) else \
        -1 if re.search(r"\b(?:last|letzt|vergangen)", low) else 0
    return _monday(d) + timedelta(days=7 * step)


_DAY_NAMES = frozenset(w.lower() for w in [*WEEKDAYS_EN, *WEEKDAYS_DE, *_WD_SHORT_EN.split("|"),
                                            *_WD_SHORT_DE])


def _named_day(m: re.Match[str]) -> str:
    """The weekday a match of a day of a week names (the group that is one)."""
    return next(g for g in m.groups() if g and g.lower() in _DAY_NAMES)


def _weekday_index(name: str) -> int:
    low = name.lower()
    for names in (WEEKDAYS_EN, WEEKDAYS_DE):
        for i, w in enumerate(names):
            if w.lower() == low or w.lower().startswith(low[:3]) and len(low) >= 3:
                return i
    return _WD_SHORT_DE.index(name[:2].capitalize())


@R.add(rf"\b(?:on )?{_DAY_EN},? {_WEEK_EN}|\b{_WEEK_EN},? (?:on )?{_DAY_EN}", re.I)
def _weekday_of_week(m: re.Match[str], d: date, past: bool) -> Mention | None:
    if _in_a_list(m):
        return None  # "Monday to Friday next week", "this week (Mon-Sun)": a span, not one day
    return _day(m, _week_monday(m.group(0), d) + timedelta(days=_weekday_index(_named_day(m))), "en")


@R.add(rf"\b(?:am )?{_DAY_DE},? {_WEEK_DE}|\b{_WEEK_DE},? (?:am )?{_DAY_DE}")
def _wochentag_der_woche(m: re.Match[str], d: date, past: bool) -> Mention | None:
    if _in_a_list(m):
        return None  # "Monday to Friday next week", "this week (Mon-Sun)": a span, not one day
    return _day(m, _week_monday(m.group(0), d) + timedelta(days=_weekday_index(_named_day(m))), "de")


@R.add(r"\b(?:the )?day after tomorrow\b" + _PART_EN, re.I)
def _overmorrow(m: re.Match[str], d: date, past: bool) -> Mention:
    return _day(m, d + timedelta(days=2), "en", part=m.group(1))


@R.add(r"\b(?:the )?day before yesterday\b" + _PART_EN, re.I)
def _ereyesterday(m: re.Match[str], d: date, past: bool) -> Mention:
    return _day(m, d - timedelta(days=2), "en", part=m.group(1))


@R.add(r"\b(?:tomorrow|tmrw|tmr|2moro)\b" + _PART_EN, re.I)
def _tomorrow(m: re.Match[str], d: date, past: bool) -> Mention:
    return _day(m, d + timedelta(days=1), "en", part=m.group(1))


@R.add(r"\blast night\b", re.I)
def _last_night(m: re.Match[str], d: date, past: bool) -> Mention:
    return _day(m, d - timedelta(days=1), "en", part="night")


@R.add(r"\byesterday\b" + _PART_EN, re.I)
def _yesterday(m: re.Match[str], d: date, past: bool) -> Mention:
    return _day(m, d - timedelta(days=1), "en", part=m.group(1))


@R.add(r"\btoday\b|\btonight\b|\bthis (morning|afternoon|evening)\b", re.I)
def _today(m: re.Match[str], d: date, past: bool) -> Mention:
    part = m.group(1) or ("evening" if m.group(0).lower() == "tonight" else None)
    return _day(m, d, "en", part=part)


@R.add(rf"\b(?:on )?({_WD_EN}),? the (\d{{1,2}})(?:st|nd|rd|th)(?: of ({_M_EN}))?\b")
def _weekday_the_nth(m: re.Match[str], d: date, past: bool) -> Mention | None:
    """"Friday the 13th" (of November): the nearest such day ahead (behind,
    in the past tense)."""
    target, n = WEEKDAYS_EN.index(m.group(1)), int(m.group(2))
    only = _MONTH_INDEX[m.group(3)] + 1 if m.group(3) else None
    step = -1 if past else 1
    for k in range(0, 120):
        year, month = _add_months(d.year, d.month, step * k)
        day = _safe_date(year, month, n)
        if day is not None and day.weekday() == target and (day <= d if past else day >= d) \
                and only in (None, month):
            return _day(m, day, "en")
    return None


_DAY_SPAN = re.compile(rf"s? ?(?:to|till|until|through|-|–) ?(?:{_WD_EN})s?\b(?! (?:next|this|last) week)")
_DAY_SPAN_END = re.compile(rf"\b(?:{_WD_EN})s? ?(?:to|till|until|through|-|–) ?$")


# Not a weekday before its date ("Sunday, 3 May", "Friday 13th"): a clock time may follow
# ("on Sunday, 3:55").  "On Friday" begins a sentence as "on Friday" does.
@R.add(rf"\b(?:((?i:next|this coming|this|last|on)) )?({_WD_EN})\b(?!,? ?\d{{1,2}}(?:st|nd|rd|th)?\b(?!:))")
def _weekday(m: re.Match[str], d: date, past: bool) -> Mention | None:
    which = (m.group(1) or "").lower()
    target = WEEKDAYS_EN.index(m.group(2))
    before = m.string[:m.start()].rstrip().lower()
    if (_DAY_SPAN.match(m.string, m.end()) or _DAY_SPAN_END.search(m.string[:m.start()])) and \
            not re.search(r"\b(?:is|are|am|was|were|will be)\b", before):
        return None  # "works from Monday to Friday": days of every week ("is in Rome from …": a stay)
    if not which and not re.search(r"\b(?:is|are|was|were|by|until|till|from|since|before|after|"
                                   r"eod|cob|due)$", before) and not TARGET.search(m.string[:m.start()]):
        return None  # a bare weekday ("Friday evening plans") names no day for sure
    if which == "last" or (past and which in ("", "on")):
        day = _weekday_back(d, target)
    elif which == "this":
        day = _weekday_ahead(d, target, strict=False)
    elif which == "next":
        day = _next_week_day(d, target)
    else:
        day = _weekday_ahead(d, target)
    prep = which == "on" or not (re.search(r"\b(?:by|until|till|from|since|before|after|to|eod|cob|"
                                           r"due)$", before)
                                 or TARGET.search(m.string[:m.start()]))
    return _day(m, day, "en", prep=prep)


# A terse note's day: "dentist Tue 3pm", "call Friday 14:00" — a weekday with its clock
# time, in a line without a verb, names the coming one (a bare weekday alone does not:
# "Friday evening plans"; nor one in a sentence: "works Monday 9am to 5pm").
@R.add(r"\b(Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun|" + _WD_EN + r")\.?"
       r"(?= (?:at )?\d{1,2}(?::\d\d)? ?(?:am|pm|h)\b| (?:at )?\d{1,2}:\d\d\b)")
def _weekday_at(m: re.Match[str], d: date, past: bool) -> Mention | None:
    if _in_a_list(m) or has_finite_verb(m.string[slice(*_clause(m.string, m.start()))]):
        return None  # "works Monday 9am to 5pm", "Mon/Wed 7am": a week's habit, not one day
    name = m.group(1).lower()
    target = next(i for i, w in enumerate(WEEKDAYS_EN) if w.lower().startswith(name[:3]))
    day = _weekday_back(d, target) if past else _weekday_ahead(d, target)
    return _day(m, day, "en")


_WD_ANY = rf"(?:{_WD_SHORT_EN}|{_WD_EN}|{'|'.join(_WD_SHORT_DE)}|{_WD_DE})\b\.?"
_JOIN = r"\s*(?:/|\+|&|,|-|–|and|or|to|till|until|through|und|oder|bis)\s*"
_LIST_AFTER = re.compile(_JOIN + _WD_ANY)
_LIST_BEFORE = re.compile(rf"\b{_WD_ANY}{_JOIN}$")
# Words that set a day ahead, whatever their tense: "demo booked Fri 10:00".
_ARRANGED = re.compile(r"\b(?:booked|scheduled|planned|arranged|confirmed|pencil+ed(?: in)?|"
                       r"rescheduled|moved|postponed|pushed)(?: (?:for|to|on))?\s*$", re.I)
# What may follow a day a terse note names: the clause's end or a clock time.
_TERSE_END = re.compile(r"\s*(?:$|[,;.!)\]–—-]|(?:(?:at |@ ?|um )\d{1,2}(?::\d\d)?|\d{1,2}:\d\d|"
                        r"\d{1,2}\s*(?:am|pm|h|Uhr))\b)")
_PAST_FORMS = frozenset(p for _, p, _ in IRREGULAR_EN.values()) | PARTICIPLES_EN


def _in_a_list(m: re.Match[str]) -> bool:
    """"Mon/Wed/Fri", "Mon + Thu", "Tue/Sat", "Mo-Fr": the days of every week."""
    return bool(_LIST_AFTER.match(m.string, m.end()) or _LIST_BEFORE.search(m.string, 0, m.start()))


def _told_just_before(before: str) -> bool:
    """Whether the word before a day is a verb in the past ("planted Sat")."""
    word = before.rstrip().rsplit(" ", 1)[-1].lower()
    return (len(word) > 4 and word.endswith("ed") and not word.endswith("eed")) or word in _PAST_FORMS


@R.add(rf"\b({_WD_SHORT_EN}|{_WD_EN})\b(?:\.(?= ?\d))?")
def _weekday_terse(m: re.Match[str], d: date, past: bool) -> Mention | None:
    """A weekday no other rule read: the coming one after words that set a
    day ("demo booked Fri 10:00") or in a terse note without a verb ("Roof
    inspection Thursday, Dachdecker Stolz"); the last one just after a verb in
    the past ("planted Sat, watered in").  Never one of a list of days, nor a
    day that names a thing after it ("Friday evening plans"), nor a slot's
    value ("Bin day: Thursday")."""
    if _in_a_list(m):
        return None
    target = next(i for i, w in enumerate(WEEKDAYS_EN) if w.lower().startswith(m.group(1).lower()[:3]))
    a, b = _clause(m.string, m.start())
    before = m.string[a:m.start()]
    if _ARRANGED.search(before):
        return _day(m, _weekday_ahead(d, target), "en")
    if not _TERSE_END.match(m.string, m.end()):
        return None
    if _told_just_before(before):
        return _day(m, _weekday_back(d, target), "en")
    if past or not before.strip() or before.rstrip().endswith(":") or \
            has_finite_verb(m.string[a:b]):
        return None
    return _day(m, _weekday_ahead(d, target), "en")


@R.add(rf"\b(?:(am|ab|bis|auf) )?({'|'.join(_WD_SHORT_DE)}|{_WD_DE})\b(?:\.(?= ?\d))?"
       r"(?=( (?:um )?\d{1,2}(?::\d\d)?\s*Uhr\b| (?:um )?\d{1,2}:\d\d\b)?)")
def _wochentag_kurz(m: re.Match[str], d: date, past: bool) -> Mention | None:
    """A German day cut short or with its clock time: "am Do", "bis Sa",
    "Do 14 Uhr", "Freitag 8:00" — in a German line, not in a list ("Mo-Fr"),
    and never a bare "Di" ("Lieferung (Di)": every week's, for all it says)."""
    prep, name = m.group(1), m.group(2)
    if prep and name in WEEKDAYS_DE:
        return None  # "auf Freitag verschoben": the full name's own rule (_wochentag)
    if not (is_german(m.string) or prep in ("ab", "bis", "auf")) or (not prep and not m.group(3)) \
            or _in_a_list(m):
        return None
    target = _WD_SHORT_DE.index(name[:2])
    day = _weekday_back(d, target) if past else _weekday_ahead(d, target)
    if prep in ("ab", "bis"):
        return Mention(m.start(), m.end(), day, day, "day", True, "de", f"{prep} {fmt_day(day, 'de')}")
    if prep == "auf":
        return Mention(m.start(), m.end(), day, day, "day", True, "de", f"auf den {fmt_day(day, 'de')}")
    return _day(m, day, "de")


@R.add(r"\b(?:the )?week after next\b", re.I)
def _week_after_next(m: re.Match[str], d: date, past: bool) -> Mention:
    return _week(m, _monday(d) + timedelta(days=14), "en")


@R.add(r"\b(next|this|last) (week|month|year|weekend)\b", re.I)
def _next_unit(m: re.Match[str], d: date, past: bool) -> Mention:
    which, unit = m.group(1).lower(), m.group(2).lower()
    n = {"next": 1, "this": 0, "last": -1}[which]
    if unit == "week":
        return _week(m, _monday(d) + timedelta(days=7 * n), "en")
    if unit == "weekend":
        saturday = _monday(d) + timedelta(days=5 + 7 * n)
        return Mention(m.start(), m.end(), saturday, saturday + timedelta(days=1), "weekend", True,
                       "en", f"on the weekend of {fmt_day(saturday, 'en')}")
    if unit == "month":
        year, month = _add_months(d.year, d.month, n)
        return _month(m, year, month, "en")
    return Mention(m.start(), m.end(), date(d.year + n, 1, 1), date(d.year + n, 12, 31), "year", True,
                   "en", f"in {d.year + n}")


@R.add(rf"\bin {_NUM} (day|days|week|weeks|fortnight|fortnights|month|months)\b", re.I)
def _in_n(m: re.Match[str], d: date, past: bool) -> Mention:
    n, unit = _count(m.group(1)), m.group(2).lower()
    if unit.startswith("day"):
        return _day(m, d + timedelta(days=n), "en")
    if unit.startswith(("week", "fortnight")):
        weeks = n * (2 if unit.startswith("fortnight") else 1)
        return _weeks_ahead(m, d, weeks, "en")
    year, month = _add_months(d.year, d.month, n)
    return _month(m, year, month, "en")


# "for a weekend", "für ein Wochenende": what a week holds, not one day of it.
_SPAN_AFTER = re.compile(r"[^.;]*\b(?:for|über|für) (?:a|the|ein|das) (?:weekend|week|Wochenende|Woche)\b",
                         re.I)


def _weeks_ahead(m: re.Match[str], d: date, weeks: int, lang: str) -> Mention:
    """"in two weeks", "in zwei Wochen": the day that many weeks after writing
    ("due in two weeks", written 6 May: 20 May) — or its week, when the line
    speaks of a span it holds ("in three weeks for a weekend")."""
    if _SPAN_AFTER.match(m.string, m.end()):
        return _week(m, _monday(d + timedelta(days=7 * weeks)), lang)
    return _day(m, d + timedelta(days=7 * weeks), lang)


# A day of the month that comes every month: "2B pays on the 3rd", "rent due on the 1st",
# "pension pays £2,310 a month on the 25th", "Spotify 17.99/month, billed on the 3rd" — a
# payment's words or a monthly rate, and no month named ("membership ends on the 15th",
# "charged twice, refund promised on the 20th" are one day).
MONTHLY_WORDS = re.compile(
    r"\b(?:pay|pays|paid|payment|payments|payday|due|rent|salary|wages|pension|instalments?|"
    r"installments?|direct debit|standing order|debited|collected|invoices?|bills?|charges?|renews?|"
    r"a month|per month|zahlt|zahlen|bezahlt|Zahlung|Miete|Gehalt|Lohn|Rente|Rate|Lastschrift|"
    r"Dauerauftrag|abgebucht|Abbuchung|überweist|fällig|eingezogen|im Monat|pro Monat|monatlich|mtl)\b"
    r"|(?<=\d)\s?(?:€|\$|£|eur|euro)?\s?/\s?mo(?:nth)?\b", re.I)
# A month named for the day: "due next month, on the 10th" is one day (not "October 2027").
_ONE_MONTH = re.compile(rf"\b(?:next|this|coming|last|nächste[nm]?|diese[nm]?|kommende[nm]?) "
                        rf"(?:month|Monat)\b|\b(?-i:{_M_ANY})\b(?!\.?,? \d{{4}})", re.I)


# The day a payment falls on: "billed on the 3rd", "charged on the 1st" (not "charged twice,
# refund promised on the 20th").
_PAID_ON = re.compile(r"\b(?:billed|charged|debited|collected|renews|paid)\s+(?:on\s+)?the\s+\d{1,2}"
                      r"(?:st|nd|rd|th)\b", re.I)


def monthly(text: str) -> bool:
    """Whether a day of the month without its month ("on the 3rd") is every
    month's: a payment's words or its day (:data:`MONTHLY_WORDS`, ``_PAID_ON``),
    and no month of its own."""
    return (MONTHLY_WORDS.search(text) is not None or _PAID_ON.search(text) is not None) and \
        _ONE_MONTH.search(text) is None


_THE_NTH = r"\bon the (\d{1,2})(?:st|nd|rd|th)\b(?! of)"


def _monthly_day(text: str) -> bool:
    """Whether a line names a day of every month ("billed on the 3rd"): a habit, never past."""
    return re.search(_THE_NTH, text, re.I) is not None and monthly(text)


@R.add(_THE_NTH, re.I)
def _the_nth(m: re.Match[str], d: date, past: bool) -> Mention | None:
    """"on the 15th": that day of this month, or of the next (the last, in
    the past tense) when it is gone (ahead) or still to come (behind) — unless
    it comes every month (:func:`monthly`): then its words stay, and never age."""
    if monthly(m.string):
        return None
    day = int(m.group(1))
    year, month = d.year, d.month
    if not past and day < d.day:
        year, month = _add_months(year, month, 1)
    elif past and day > d.day:
        year, month = _add_months(year, month, -1)
    found = _safe_date(year, month, day)
    return _day(m, found, "en") if found else None


@R.add(r"\b(?:on|at|over) the weekend\b|\bam Wochenende\b|\bübers Wochenende\b", re.I)
def _the_weekend(m: re.Match[str], d: date, past: bool) -> Mention:
    """"am Wochenende", "on the weekend": the coming one (the last, in the past tense)."""
    lang = "de" if "ochenende" in m.group() else "en"
    saturday = _monday(d) + timedelta(days=5)
    if past and saturday > d:
        saturday -= timedelta(days=7)
    words = f"am Wochenende vom {fmt_day(saturday, 'de')}" if lang == "de" else \
        f"on the weekend of {fmt_day(saturday, 'en')}"
    return Mention(m.start(), m.end(), saturday, saturday + timedelta(days=1), "weekend", True, lang,
                   words)


@R.add(rf"\b{_NUM} (day|days|week|weeks) ago\b", re.I)
def _ago(m: re.Match[str], d: date, past: bool) -> Mention:
    n, unit = _count(m.group(1)), m.group(2).lower()
    if unit.startswith("day"):
        return _day(m, d - timedelta(days=n), "en")
    return _week(m, _monday(d - timedelta(days=7 * n)), "en")


# German relative days.  Capitalised only where a sentence begins: "Morgen fliegt
# Ben nach Oslo" is tomorrow, "jeden Morgen" and "am Morgen" a morning.
_STARTS = r"(?:^|(?<=[.!?] ))"


@R.add(r"(?:\bübermorgen|" + _STARTS + r"Übermorgen)\b" + _PART_DE)
def _uebermorgen(m: re.Match[str], d: date, past: bool) -> Mention:
    return _day(m, d + timedelta(days=2), "de", part=m.group(1))


@R.add(r"(?:\bvorgestern|" + _STARTS + r"Vorgestern)\b" + _PART_DE)
def _vorgestern(m: re.Match[str], d: date, past: bool) -> Mention:
    return _day(m, d - timedelta(days=2), "de", part=m.group(1))


@R.add(r"(?:\bmorgen|" + _STARTS + r"Morgen)\b" + _PART_DE)
def _morgen(m: re.Match[str], d: date, past: bool) -> Mention | None:
    return _day(m, d + timedelta(days=1), "de", part=m.group(1))


@R.add(r"(?:\bgestern|" + _STARTS + r"Gestern)\b" + _PART_DE)
def _gestern(m: re.Match[str], d: date, past: bool) -> Mention:
    return _day(m, d - timedelta(days=1), "de", part=m.group(1))


@R.add(r"\b[Hh]eute\b" + _PART_DE)
def _heute(m: re.Match[str], d: date, past: bool) -> Mention:
    return _day(m, d, "de", part=m.group(1))


@R.add(r"\b(nächste|nächster|nächsten|kommende|kommenden|diese|dieser|diesen|letzte|letzten"
       r"|vergangene|vergangenen) (Woche|Monat|Jahr|Wochenende)\b", re.I)
def _naechste(m: re.Match[str], d: date, past: bool) -> Mention:
    which, unit = m.group(1).lower(), m.group(2).lower()
    n = 1 if which.startswith(("nächst", "kommend")) else 0 if which.startswith("dies") else -1
    if unit == "woche":
        return _week(m, _monday(d) + timedelta(days=7 * n), "de")
    if unit == "wochenende":
        saturday = _monday(d) + timedelta(days=5 + 7 * n)
        return Mention(m.start(), m.end(), saturday, saturday + timedelta(days=1), "weekend", True,
                       "de", f"am Wochenende vom {fmt_day(saturday, 'de')}")
    if unit == "monat":
        year, month = _add_months(d.year, d.month, n)
        return _month(m, year, month, "de")
    return Mention(m.start(), m.end(), date(d.year + n, 1, 1), date(d.year + n, 12, 31), "year", True,
                   "de", f"im Jahr {d.year + n}")


@R.add(rf"\b(?:((?i:am|ab|auf|nächsten|kommenden|diesen|letzten)) )({_WD_DE})\b")
def _wochentag(m: re.Match[str], d: date, past: bool) -> Mention:
    which = m.group(1).lower()
    if which == "auf":  # "auf Freitag verschoben": the coming one, a target
        day = _weekday_ahead(d, WEEKDAYS_DE.index(m.group(2)))
        return Mention(m.start(), m.end(), day, day, "day", True, "de", f"auf den {fmt_day(day, 'de')}")
    if which == "ab":  # "ab Montag": from the coming one
        day = _weekday_ahead(d, WEEKDAYS_DE.index(m.group(2)))
        return Mention(m.start(), m.end(), day, day, "day", True, "de", f"ab {fmt_day(day, 'de')}")
    target = WEEKDAYS_DE.index(m.group(2))
    if which == "letzten" or (past and which == "am"):
        day = _weekday_back(d, target)
    elif which == "diesen":
        day = _weekday_ahead(d, target, strict=False)
    elif which in ("nächsten", "kommenden"):
        day = _next_week_day(d, target)
    else:
        day = _weekday_ahead(d, target)
    return _day(m, day, "de")


@R.add(rf"\bin {_NUM_DE} (Tag|Tagen|Woche|Wochen|Monat|Monaten)\b")
def _in_n_de(m: re.Match[str], d: date, past: bool) -> Mention:
    n, unit = _count(m.group(1)), m.group(2).lower()
    if unit.startswith("tag"):
        return _day(m, d + timedelta(days=n), "de")
    if unit.startswith("woche"):
        return _weeks_ahead(m, d, n, "de")
    year, month = _add_months(d.year, d.month, n)
    return _month(m, year, month, "de")


@R.add(rf"\bvor {_NUM_DE} (Tag|Tagen|Woche|Wochen)\b")
def _vor_n(m: re.Match[str], d: date, past: bool) -> Mention:
    n, unit = _count(m.group(1)), m.group(2).lower()
    if unit.startswith("tag"):
        return _day(m, d - timedelta(days=n), "de")
    return _week(m, _monday(d - timedelta(days=7 * n)), "de")


# Days and months without a year.
JUST_GONE = 31  # days: a day this recently gone is the one meant, not next year's


def _year_for(d: date, month: int, day: int, past: bool) -> int:
    """The year of a day written without one: the last one on or before the
    writing day in a told past, else the next one on or after — unless that
    day went by less than :data:`JUST_GONE` days before ("is back from leave
    as of 1 September", written on 3 September; "5k goal erreicht am 14.4.",
    written on the 15th): a day a few days gone is that one, not next year's."""
    if past:
        return d.year if (month, day) <= (d.month, d.day) else d.year - 1
    if (month, day) >= (d.month, d.day):
        return d.year
    gone = _safe_date(d.year, month, day)
    return d.year if gone is not None and (d - gone).days <= JUST_GONE else d.year + 1


def _day_month(m: re.Match[str], d: date, past: bool, month: int, day: int, lang: str,
               joint: str) -> Mention | None:
    """A day of a month, in the year the tense points to; shown as written
    with the year added after ``joint`` ("3 November" → "3 November 2026").
    Not a date of birth: "born on 3 March" is a birthday, of a year the
    line does not say."""
    if BORN_BEFORE.search(m.string, 0, m.start()) or BORN_AFTER.match(m.string, m.end()):
        return None
    if _YEAR_AFTER.match(m.string, m.end()):
        return None  # "31 Aug, 2026": it has its year; never a second one
    first, step = _year_for(d, month, day, past), -1 if past else 1
    found = None
    for year in range(first, first + 8 * step, step):  # 29 February: the leap year it points to
        found = _safe_date(year, month, day)
        if found is not None:
            break
    if found is None:
        return None
    return Mention(m.start(), m.end(), found, found, "day", True, lang,
                   f"{m.group(0)}{joint}{found.year}")


@R.add(rf"\b(?:(?:{_WD_EN}|{_WD_DE}),? )?(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?({_M_EN})\b")
def _dm_en(m: re.Match[str], d: date, past: bool) -> Mention | None:
    month, day = _MONTH_INDEX[m.group(2)] + 1, int(m.group(1))
    return _day_month(m, d, past, month, day, "en", " ")


@R.add(rf"\b({_M_EN}) (\d{{1,2}})(?:st|nd|rd|th)?\b(?!:|[.,]\d)")
def _md_en(m: re.Match[str], d: date, past: bool) -> Mention | None:
    month, day = _MONTH_INDEX[m.group(1)] + 1, int(m.group(2))
    return _day_month(m, d, past, month, day, "en", ", ")


@R.add(rf"\b(?:(?:{_WD_DE}),? )?(\d{{1,2}})\. ?({_M_DE})\b")
def _dm_de(m: re.Match[str], d: date, past: bool) -> Mention | None:
    month, day = _MONTH_INDEX[m.group(2)] + 1, int(m.group(1))
    return _day_month(m, d, past, month, day, "de", " ")


@R.add(r"\b(\d{1,2})\.(\d{1,2})\.(?!\d)")
def _dm_numeric(m: re.Match[str], d: date, past: bool) -> Mention | None:
    month, day = int(m.group(2)), int(m.group(1))
    if not 1 <= month <= 12:
        return None
    return _day_month(m, d, past, month, day, "de", "")


@R.add(rf"\b(in|im|this|next|last|Anfang|Mitte|Ende|early|mid|late|until|till|by|bis|from|since|ab|seit|"
       rf"In|Im|Early|Mid|Late|Until|By|Bis|From|Since|Ab|Seit|"  # a sentence's first word
       rf"(?:at )?the end of|end of|to) ?-?({_M_ANY})\b")
def _in_month(m: re.Match[str], d: date, past: bool) -> Mention | None:
    prep = m.group(1)
    month = _MONTH_INDEX[m.group(2)] + 1
    if prep == "to":  # "postponed the trip to March": where a plan went, ahead
        if not _MOVED_BEFORE.search(m.string, 0, m.start()):
            return None
        year = d.year if month >= d.month else d.year + 1
    elif prep == "next":
        year = d.year + 1 if month <= d.month else d.year
    elif prep == "last":
        year = d.year - 1 if month >= d.month else d.year
    elif past:
        year = d.year if month <= d.month else d.year - 1
    else:
        year = d.year if month >= d.month else d.year + 1
    keep = prep if prep not in ("this", "next", "last") else ("in" if _month_lang(m.group(2)) == "en"
                                                              else "im")
    if prep.lower() in ("since", "seit"):  # a month one has been something since is behind
        year = d.year if month <= d.month else d.year - 1
    return _month(m, year, month, _month_lang(m.group(2)), prep=keep)


def _end_of_unit(m: re.Match[str], d: date, prep: str, which: str, unit: str, lang: str
                 ) -> Mention:
    n = 1 if which == "next" else -1 if which == "last" else 0
    if unit == "week":
        monday = _monday(d) + timedelta(days=7 * n)
        words = f"{prep} der Woche vom {fmt_day(monday, 'de')}" if lang == "de" else \
            f"{prep} the week of {fmt_day(monday, 'en')}"
        return Mention(m.start(), m.end(), monday, monday + timedelta(days=6), "week", True, lang,
                       words)
    if unit == "year":
        year = d.year + n
        words = f"{prep} {year}" if lang == "en" else f"{prep} {year}"
        return Mention(m.start(), m.end(), date(year, 1, 1), date(year, 12, 31), "year", True,
                       lang, words)
    year, month = _add_months(d.year, d.month, n)
    return _month(m, year, month, lang, prep=prep)


def _month_lang(name: str) -> str:
    return "de" if name in MONTHS_DE and name not in MONTHS_EN else "en"


# -- the whole line ----------------------------------------------------------------------------------
# A second sentence after a comma, its subject a name: "demo went well, Henrik wants
# pricing by Wednesday" — the date is in Henrik's present, not the demo's past.
_NAMED_CLAUSE = re.compile(r",\s+(?=(?-i:[A-Z])[\w'’-]+\s+([a-z]+)\b)")


def _clause(text: str, pos: int) -> tuple[int, int]:
    """The clause around ``pos`` (:func:`tense.clause_of`), begun again after
    a comma that opens a sentence of its own (:data:`_NAMED_CLAUSE`)."""
    a, b = clause_of(text, pos)
    for m in _NAMED_CLAUSE.finditer(text, a, pos):
        verb = m.group(1)
        if EN_VERB_FORMS.get(verb, verb) != verb and verb.endswith("s"):
            a = m.end()
    return a, b


def find(text: str, written_day: date) -> list[Mention]:
    """Every time expression of a line, resolved against the local day it was
    written (no overlaps; leftmost, then longest, wins)."""
    found: list[Mention] = []
    lang = "de" if is_german(text) else "en"
    quoted = [(m.start(), m.end()) for m in QUOTED.finditer(text)]
    for pattern, finder in R.rules:
        for m in pattern.finditer(text):
            if any(a <= m.start() < b for a, b in quoted):
                continue  # a title keeps its words
            if any(not (m.end() <= f.start or m.start() >= f.stop) for f in found):
                continue
            a, b = _clause(text, m.start())
            # What was called off was still ahead: "cancelled the dinner on Saturday".
            past = (clause_past(text, a, b, lang) and not TARGET.search(text[:m.start()])
                    and not CANCELLED.search(text, a, b)) \
                or bool(_SINCE_BEFORE.search(text[:m.start()]))  # "seit dem 2. Februar": behind
            mention = finder(m, written_day, past)
            if past and mention is not None and (_AHEAD_BEFORE.search(text, 0, m.start())
                                                 or _CHANGED_FROM.search(text, a, m.start())):
                # "got promoted, effective 1 July" (written in June): the nearer of the two
                ahead = finder(m, written_day, False)
                if ahead is not None and abs((ahead.first - written_day).days) < \
                        abs((mention.first - written_day).days):
                    mention = ahead
            # (a weekday just before the date it names is no day of its own: "by Friday
            # 2026-06-12", "Friday, 12 June", "Fr, 12.06.")
            if mention is not None and not (_a_weekday(m.group(0))
                                            and _DATE_AFTER.match(text, mention.stop)):
                found.append(mention)
    found.sort(key=lambda f: f.start)
    # A weekday just after the date it names ("12 June (Fri)", "2026-06-12, Friday"): the
    # date says the day (one just before its date was never taken: _DATE_AFTER, above).
    return [f for i, f in enumerate(found)
            if not (i and _a_weekday(text[f.start:f.stop]) and _a_date(text, found[i - 1])
                    and _BESIDE.fullmatch(text, found[i - 1].stop, f.start))]


def _a_weekday(words: str) -> bool:
    """Whether a time expression is a weekday's words, without a number."""
    return not any(c.isdigit() for c in words) and bool(
        _DAY_NAMES & set(re.findall(r"\w+", words.lower())))


def _a_date(text: str, mention: Mention) -> bool:
    """Whether a time expression is a day of the calendar, in numbers."""
    return mention.grain == "day" and any(c.isdigit() for c in text[mention.start:mention.stop])


_DATE_AFTER = re.compile(rf"[\s,(]*(?:the\s+|den\s+)?(?:\d{{4}}-\d\d-\d\d|\d{{1,2}}\.\d{{1,2}}\.|"
                         rf"\d{{1,2}}(?:st|nd|rd|th)?\.?\s*(?:of\s+)?(?:{_M_ALL})\b|\d{{1,2}}/\d{{1,2}}\b)")
_BESIDE = re.compile(r"[\s,(]*(?:the\s+|den\s+)?")


def resolve(text: str, written: datetime, now: datetime, tz: tzinfo) -> Timed:
    """Read a line's time words against when it was written and put it in the
    tense of ``now`` (see the module docstring for the rules)."""
    return resolve_days(text, local_day(written, tz), local_day(now, tz))


def resolve_days(text: str, day: date, today: date) -> Timed:
    """:func:`resolve` on local dates: the day a line was written and today."""
    if not MAYBE_TIME.search(text):
        return _timeless(text)
    return _resolve_days(text, day, today)


@lru_cache(maxsize=16384)
def _timeless(text: str) -> Timed:
    """A line that names no time reads the same whenever it was written."""
    return Timed(text, text, (), False, _told_past(text),
                 CURRENTLY.search(text) is not None or passing(text), None, False, frozenset())


def _told_past(text: str) -> bool:
    """Whether a line without a date speaks of the past: not a standing rate or a
    monthly day however its verb reads ("Netflix 13.99/month, charged on the 21st")."""
    if RATE.search(text) or _monthly_day(text):
        return False
    return clause_past(text, 0, len(text), "de" if is_german(text) else "en")


@lru_cache(maxsize=65536)
def _resolve_days(text: str, day: date, today: date) -> Timed:
    annual = ANNUAL.search(text) is not None
    recurring = annual or RECURRING.search(text) is not None
    currently = CURRENTLY.search(text) is not None or passing(text)
    if recurring:
        return Timed(text, text, (), True, False, currently, None, False, frozenset())
    mentions = find(text, day)
    if not mentions:
        return Timed(text, text, (), False, _told_past(text), currently, None, False, frozenset())
    lang = "de" if is_german(text) else "en"
    out, pos = [], 0
    for mention in mentions:
        out.append(text[pos:mention.start])
        if mention.replacement:
            before = "".join(out).rstrip()
            words = mention.replacement
            # "is on tomorrow" -> "is on 5 May 2026", never "on on"
            if re.search(r"\b(?:on|am)$", before) and words.split(" ", 1)[0] in ("on", "am"):
                words = words.split(" ", 1)[1]
            if re.search(r"\b(?:in|im)$", before) and words.split(" ", 1)[0] in ("in", "im"):
                words = words.split(" ", 1)[1]
            if mention.start == 0 or _SENTENCE_END.search(text, 0, mention.start):
                words = words[0].upper() + words[1:]  # "Next weekend …" -> "On the weekend of …"
            out.append(words)
        else:
            out.append(text[mention.start:mention.stop])
        pos = mention.stop
    out.append(text[pos:])
    absolute = "".join(out)
    end = max(m.last for m in mentions)
    # A day still ahead when written is not a told past, whatever the verb before it
    # ("gave notice, moving out 31 January 2027").
    written_past = all((clause_past(text, *_clause(text, m.start), lang)
                        and not TARGET.search(text[:m.start]) and m.first <= day) or m.last < day
                       for m in mentions)
    over = end < today
    # "From 1 February Lena lives in Hamburg", "seit Februar": a date that
    # opens a state does not end it — the line is not past once the day is.
    if all(_OPENS.search(text[:m.start]) or _OPENS_IN.match(text, m.start) for m in mentions) \
            and not _BOUNDED.search(text):
        over = False
    current = absolute
    if over and not written_past:
        current = past_tense(absolute, lang, [clause_of(absolute, _shift(mentions, m, text, absolute))
                                              for m in mentions])
    dates: set[date] = set()
    for m in mentions:
        span = (m.last - m.first).days
        if span <= 31:
            dates.update(m.first + timedelta(days=i) for i in range(span + 1))
        else:
            dates.update({m.first, m.last})
    return Timed(current, absolute, tuple(mentions), False, written_past, currently, end, over,
                 frozenset(dates))


# What a told past may point ahead with: "got promoted, effective 1 July", "booked
# flights for 3 August", "gave notice, moving out 31 Jan", "won, contract start 1 June",
# "got hired, starts 1 June", "increased to 10mg from 3 Sep": the date is the nearer of
# the last and the next.
_AHEAD_BEFORE = re.compile(r"\b(?:effective|starting|for|due|now|wirksam|gültig ab|für|zum|jetzt|nun|"
                           r"starts?|begins?|beginnt|ends?|ending|expires?|go-?live|takes over|"
                           r"mov(?:es|ing)(?: out| in)?|leaving|fällig|ab)\s+"
                           r"(?:(?:on|from|the|am|den|dem)\s+)?$", re.I)
# A change told in the past that takes effect from a day: "raised the rent to 990 from 1 May".
_CHANGED_FROM = re.compile(r"\b(?:increased|raised|upped|reduced|lowered|cut|changed|switched|put up|"
                           r"erhöht|gesenkt|geändert|angepasst)\b[^.;]*\b(?:from|ab)\s+(?:the\s+|dem\s+)?$",
                           re.I)
_YEAR_AFTER = re.compile(r"\.?,?\s*\d{4}\b")
# A sentence ended just before: "… nuts. Next week she is …" keeps its capital.
_SENTENCE_END = re.compile(r"(?<!\bDr)(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bSt)(?<!\bvs)(?<!\betc)"
                           r"(?<!\bca)(?<!\bbzw)(?<!\busw)(?<!\bProf)(?<!\d)[.!?]\s+$")
_MOVED_BEFORE = re.compile(r"\b(?:postpone[sd]?|pushed(?: back)?|moved|delayed|rescheduled|put off|"
                           r"shifted|changed|brought forward)\b[^.;]*$", re.I)
_SINCE_BEFORE = re.compile(r"\b(?:since|seit)\s*(?:the\s+|dem\s+)?$", re.I)
_BOUNDED = re.compile(r"\bfor (?:a|an|one|two|three|four|five|six|a few|several|\d+) \w+|\buntil\b|"
                      r"\btill\b|\bbis\b|\bfür (?:\w+ )?(?:tage|wochen|monate)\b|"
                      # "ist ab morgen zwei Wochen im Urlaub": a while, said without "für"
                      r"(?<!\bvor )\b(?:eine[nm]?|zwei|drei|vier|fünf|sechs|sieben|acht|\d+) "
                      r"(?:tage|wochen|monate)\b(?! (?:her|alt)\b)", re.I)
_OPENS_IN = re.compile(r"(?:from|since|seit|ab)\b", re.I)
_OPENS = re.compile(r"\b(?:from|since|starting|as of|ab|seit)\s*(?:the\s+|dem\s+)?$", re.I)


def _shift(mentions: list[Mention], mention: Mention, old: str, new: str) -> int:
    """Where ``mention`` starts in the rewritten text."""
    delta = 0
    for m in mentions:
        if m is mention:
            break
        if m.replacement:
            delta += len(m.replacement) - (m.stop - m.start)
    return max(0, min(len(new) - 1, mention.start + delta))
