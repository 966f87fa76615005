"""A record told again with new values: the same words, other numbers.

A note keeps a record, and a later note says it again with its values
changed and no word of change at all ("Gym membership: FitX, 29.90/month" ->
"Gym membership: FitX, 34.90/month"; "Zoe's shoe size 31" -> "Zoe's shoe
size 33"), or says it in the other language or in shorthand ("Takes
ibuprofen 400 mg three times a day" -> "Ibu jetzt 600 mg, nur noch 2x
tgl."; "Netflix: 13.99 EUR/month" -> "Netflix 15,99 €/Monat").  The words
a claim or a record's field would read are not there, or not in one
language, so the older line stayed beside the newer.

:func:`told_again` reads each line as a *frame* (its words, each as the
glossary's concept where it has one, a drug's German and English spellings
as one, a unit however written) and its *values* (the amounts, and how
often: "2x tgl.", "twice a day", "täglich" are per day).  The newer tells
the older again when the frames are the same word for word (the newer may
leave out the older's head, "Blutdruck: …", when what stays names a thing)
and the values differ.  Precision over recall, because a wrong "update"
moves a true line to history:

- the same frame is the same thing: another person ("Leo takes …"),
  another drug, another field ("contract ends …"), a pack size ("20
  Tabletten pro Packung") each add or change a word, and the lines coexist;
- a line must be a record: a ``Key:`` line, a possessive's field ("Zoe's
  shoe size …") or a dose, not a log ("Ran 5 km", "Paid 50 EUR");
- a day, a date or a clock time in either line leaves it to the rules for
  times (two appointments are not one moved); an identifier ("2A", "B12")
  is a word of the frame, not a value;
- a newer that is history, a plan, a negation, an addition or a while
  (see :func:`records.no_change`) tells nothing again.

English and German.  Pure: no I/O.
"""

from __future__ import annotations

import re
from functools import lru_cache

from kairos.dream.distill import gloss, records
from kairos.dream.distill.when import is_calendar
from kairos.dream.distill.words import STOP, is_german, words

# How often, said with a count: "2x tgl.", "3x/Tag", "twice a day", "dreimal täglich", "1x/Woche".
_COUNTS = {"once": 1, "twice": 2, "thrice": 3, "einmal": 1, "zweimal": 2, "dreimal": 3, "viermal": 4,
           "one": 1, "two": 2, "three": 3, "four": 4}
_PERIOD = (r"(?P<p>tgl\b\.?|täglich\b|daily\b|(?:a|per|pro|am|/)\s*(?:day|tag)\b|"
           r"wöchentlich\b|weekly\b|(?:a|per|pro|in der|/)\s*(?:week|woche|wk)\b|"
           r"monatlich\b|monthly\b|mtl\b\.?|(?:a|per|pro|im|/)\s*(?:month|monat|mo)\b|"
           r"jährlich\b|yearly\b|annual(?:ly)?\b|p\.\s?a\.|(?:a|per|pro|im|/)\s*(?:year|jahr|yr)\b)")
_OFTEN = re.compile(
    rf"(?:\b(?P<n>\d)\s*x\s*(?:/\s*)?|\b(?P<w>once|twice|thrice|einmal|zweimal|dreimal|viermal)\s+|"
    rf"\b(?P<t>one|two|three|four|\d) times\s+|\b(?:every|jeden|jede|jedes)\s+)?{_PERIOD}", re.I)
# An amount and its unit as one value; a unit's spellings as one.
_AMOUNT = re.compile(r"(?<![\w.,/-])(\d+(?:[.,]\d+)*)\s*(mg|µg|μg|mcg|ug|iu|ie|ml|l|g|kg|cm|€|eur|euros?|"
                     r"\$|usd|£|gbp|chf|%)?(?![\w/:.-]*\d)(?!\w)", re.I)
_CURRENCY = re.compile(r"€|\$|£|\b(?:eur|euros?|usd|gbp|chf)\b", re.I)
_UNIT = {"μg": "µg", "mcg": "µg", "ug": "µg", "ie": "iu", "€": "eur", "euro": "eur", "euros": "eur",
         "$": "usd", "£": "gbp"}
# A day, a date, a clock time: the rules for times decide those lines.
_TIMED = re.compile(r"\b\d{1,2}[:.]\d\d\s*(?:h|uhr|am|pm)\b|\b\d{1,2}:\d\d\b|"
                    r"\b\d{1,2}\.\d{1,2}\.(?:\d{2,4})?|"
                    r"\b\d{4}-\d\d-\d\d\b|\b\d{1,2}/\d{2,4}\b|\b(?:today|yesterday|tomorrow|tonight|heute|"
                    r"gestern|morgen|last|letzte[nrsm]?|next|nächste[nrsm]?|ago|vor)\b", re.I)
# Words a record says again in other ways: a change said, a verb of taking, an adverb.
_FILLER = frozenset("""takes take taking nimmt nehme nehmen drinks drink trinkt trinke x
currently aktuell now jetzt nun new neu neue neuer neues neuen still noch nur only just""".split())
# A number that names a thing, not a value of it: "lamp number 57", "room 12", "Beute 3",
# "Stellplatz 14" (written as one word of the frame, so that "lamp number 12" is another lamp).
_ID = re.compile(r"\b(number|no\.?|nr\.?|nummer|room|raum|zimmer|flat|wohnung|apartment|apt\.?|"
                 r"hive|beute|volk|space|platz|stellplatz|gate|seat|sitz|line|linie|bus|tram|bay|"
                 r"unit|house|haus|table|tisch|court|lane|track|gleis|locker|spind|order|bestellung|"
                 r"ticket|case|version|floor|etage|stock|building|gebäude|block|row|reihe|box|fach|"
                 r"slot|pen|stall|bed|bett|ward|station|lot|plot|parzelle|item|artikel|team|group|"
                 r"gruppe|class|klasse|chapter|kapitel|level|ebene|server|node|hall|halle|top|stiege)"
                 r"\s*#?\s*(\d+\w*)\b", re.I)
_POSSESSIVE = re.compile(r"^\s*[A-ZÄÖÜ][\w-]*(?:['’]s|s')\s+\w|^\s*(?:[A-ZÄÖÜ][a-zäöüß]+s)\s+[A-ZÄÖÜ]")


def _often(m: re.Match[str]) -> str:
    n = m.group("n") or m.group("t") or ""
    count = int(n) if n.isdigit() else _COUNTS.get((m.group("w") or n).lower(), 1)
    p = m.group("p").lower().lstrip("/ ").split()[-1].strip("/ .")
    period = {"tgl": "day", "täglich": "day", "daily": "day", "tag": "day", "day": "day",
              "wöchentlich": "week", "weekly": "week", "woche": "week", "wk": "week", "week": "week",
              "jährlich": "year", "yearly": "year", "annual": "year", "annually": "year", "jahr": "year",
              "yr": "year", "year": "year", "p.a": "year"}.get(p, "month")
    return f"{count}/{period}"


def _word(w: str, german: bool) -> str:
    """A word of a frame: its concept, or a drug's spelling in either language ("Sertralin")."""
    n = gloss.norm(w)
    concept = gloss.word(n, german=german)
    return concept or _canon(n)


@lru_cache(maxsize=16384)
def _read(text: str) -> tuple[tuple[str, ...], tuple[str, ...], int] | None:
    """A line's frame (its words in order), its values (sorted), and how many
    frame words its head holds; None for a line with a day or a time."""
    if _TIMED.search(text) or any(is_calendar(w, short_days=False) for w in words(text)):
        return None
    text = _ID.sub(lambda m: f"{m.group(1).rstrip('.')}_{m.group(2)}", text)
    german = is_german(text)
    head_end, _ = records.fields(text)
    spans: list[tuple[int, int, str]] = []
    for m in _OFTEN.finditer(text):
        if m.start() >= head_end:
            spans.append((m.start(), m.end(), _often(m)))
    for m in _AMOUNT.finditer(text):
        if m.start() < head_end or any(s <= m.start() < e for s, e, _ in spans):
            continue
        unit = (m.group(2) or "").lower()
        spans.append((m.start(), m.end(), records.number(m.group(1)) + _UNIT.get(unit, unit)))
    spans.sort()
    frame = _frame(text[:head_end], german)
    head_words = len(frame)
    values: list[str] = []
    at = head_end
    for start, end, value in spans:
        frame += _frame(text[at:start], german)
        values.append(value)
        at = end
    frame += _frame(text[at:], german)
    if not values or not frame:
        return None
    return tuple(frame), tuple(sorted(values)), head_words


def _frame(span: str, german: bool) -> list[str]:
    cut_short = {m.group(1).lower() for m in _CUT_SHORT.finditer(span)}
    return [_word(w, german) + ("." if w.lower() in cut_short else "")
            for w in words(_CURRENCY.sub(" ", span))
            if w.lower() not in STOP and w.lower() not in _FILLER and not re.fullmatch(r"[\d.,x/]+", w)]


_CUT_SHORT = re.compile(r"\b([A-Za-zÄÖÜäöü]{3,5})\.(?= [\wÄÖÜäöü])")  # "Vit. D": a word cut short


def _is_record(text: str) -> bool:
    """A ``Key:`` line, a possessive's field, or a dose — not a log of a day."""
    head_end, _ = records.fields(text)
    if head_end:
        return True
    return bool(_POSSESSIVE.match(text)) or any(v.kind == "dose" for v in records.values(text))


def _same_words(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Word for word: a compound written as one word or two ("Proteinshake",
    "protein shake"), a word cut short ("Vit." for vitamin)."""
    a2, b2 = _joined(a, b), _joined(b, a)
    if len(a2) != len(b2):
        return False
    left = list(b2)
    for w in a2:
        match = next((x for x in left if _alike(w, x)), None)
        if match is None:
            return False
        left.remove(match)
    return True


def _canon(w: str) -> str:
    w = w.strip("~")
    return w[:-1] if len(w) >= 7 and w.endswith("e") else w


def _alike(a: str, b: str) -> bool:
    if a == b or _canon(a) == _canon(b):
        return True
    short, long_ = sorted((a, b), key=lambda w: not w.endswith("."))  # the one cut short first
    return short.endswith(".") and not long_.endswith(".") and _canon(long_).startswith(short[:-1])


def _joined(a: tuple[str, ...], b: tuple[str, ...]) -> list[str]:
    """``a`` with two neighbours joined where ``b`` writes them as one word."""
    ours = {_canon(w) for w in b}
    out: list[str] = []
    i = 0
    while i < len(a):
        one = _canon(a[i].strip("~") + a[i + 1].strip("~")) if i + 1 < len(a) else ""
        if one and one in ours:
            out.append(one)
            i += 2
            continue
        out.append(a[i])
        i += 1
    return out


_KINDLESS = re.compile(r"^(?:eur|usd|gbp|chf|~month~|~week~|~daily~|~weekly~|~monthly~|mg|µg|ml|iu|g|l)$")


@lru_cache(maxsize=16384)
def told_again(older: str, newer: str) -> bool:
    """Whether ``newer`` says ``older``'s record again with other values (see
    the module's docstring); False whenever in doubt."""
    if older.strip() == newer.strip() or records.no_change(newer) or not _is_record(older):
        return False
    old, new = _read(older), _read(newer)
    if old is None or new is None or old[1] == new[1]:
        return False
    frame, head = old[0], old[2]
    if _same_words(frame, new[0]):
        return True
    # the newer may leave out the older's head ("Blutdruck: Amlodipin 5 mg"), when what
    # stays names a thing, not only a unit
    rest = frame[head:]
    return 0 < head < len(frame) and any(not _KINDLESS.match(w) for w in rest) and \
        _same_words(rest, new[0])


def frame_words(text: str) -> frozenset[str]:
    """The words a line's record is looked up by (none for a line that is no record
    with values): a line that tells it again shares one."""
    read = _read(text)
    return frozenset() if read is None else frozenset(_canon(w) for w in read[0] if not _KINDLESS.match(w))


def ids(text: str) -> dict[str, frozenset[str]]:
    """The things a line is about by number, each kind with its numbers: "Top 3:
    Miete …" -> {"top": {"3"}}, "Beute 3 / hive 3: …" -> {"beute": {"3"}, "hive": {"3"}}.
    Only at its head, where the line names what it tells of: in "the meeting moved to
    room 14" the room is the value that changed."""
    found: dict[str, set[str]] = {}
    key = re.match(r"[^:=]{1,40}?[:=]\s", text)  # "Office: room 214": the room is the key's value
    for m in _ID.finditer(text):
        if len(re.findall(r"[^\W\d_]+", text[:m.start()])) > 2 or (key and m.start() >= key.end()):
            break
        found.setdefault(m.group(1).lower().rstrip("."), set()).add(m.group(2).lower())
    return {kind: frozenset(ns) for kind, ns in found.items()}


def other_things(older: str, newer: str) -> bool:
    """Whether two lines name two things of one kind by number ("Top 3: Miete 690 €"
    and "Top 7 rent now 845 €", "Hive 3" and "Hive 5"): neither updates the other."""
    a, b = ids(older), ids(newer)
    return any(not a[kind] & b[kind] for kind in a.keys() & b.keys())


__all__ = ["frame_words", "ids", "other_things", "told_again"]
