"""Things a team tracks until they are done: a numbered item's state, an open role filled.

Support and work notes track a thing by its number, tersely, one state after
another: "ticket 5512: open, waiting on cust", "5512 - cust replied, in
progress", "5512 solved/closed 18.6.".  No subject, no attribute a claim could
read: the number is the subject and the state is the attribute.  The newest
state of an item replaces the older ones — but only a line *about* the item
(it begins with its number, after its noun) and only one that says a state,
on both sides: "5512: cust on Android 14" says none, and stays.  English and
German.

An opening is the same: "Team is hiring a senior backend engineer" ends when
"Senior backend role filled: Omar starts 1 June" — the role the newer names
(its words, less names, dates and "role") is among the older's words, so
"Also hiring a data engineer" stays open.  And a request: "wants to cancel
sub end of month" ends when "cancellation withdrawn"; a goal when it is
reached ("Q1 OKR hit"); a weight logged when a new one is ("wt 89.5 kg", then
"now 87kg").  Pure: no I/O.
"""

from __future__ import annotations

import re

from kairos.dream.distill.claims import claims_of
from kairos.dream.distill.when import is_calendar
from kairos.dream.distill.words import STOP, stem, words

# A line about an item begins with its number, or its noun and number: "ticket 5512:",
# "#5512", "Bestellung 4471", "INC-4411".  Three digits or more (a time, a date, a count
# of things is not a number of an item).
_ITEM = re.compile(r"^\W*(?:(?P<noun>tickets?|tkt|case|issue|bug|order|invoice|pr|pull request|req|"
                   r"request|incident|inc|fall|auftrag|bestellung|rechnung|vorgang|anfrage)\s*[#:]?\s*)?"
                   r"(?P<id>#?\d{3,}|[A-Z]{2,}-\d+)(?![\d.,:/]*\d)(?!\s*(?:[%€$£]|(?:kg|km|eur|euro|"
                   r"usd|chf|mg|ml|min|h)\b))", re.I)
_YEAR = re.compile(r"^(?:19|20)\d\d$")
# The states an item goes through, open to closed.
_STATE = re.compile(r"\b(?:open|opened|re-?opened|waiting|pending|in progress|on hold|escalated|assigned|"
                    r"closed|solved|resolved|fixed|done|merged|shipped|delivered|cancell?ed|refunded|"
                    r"paid|offen|geöffnet|wieder eröffnet|geschlossen|erledigt|gelöst|"
                    r"in bearbeitung|wartet|wartend|eskaliert|versandt|versendet|geliefert|zugestellt|"
                    r"bezahlt|storniert|erstattet)\b", re.I)


def item_of(text: str) -> str | None:
    """The number of the item a line is about ("5512"), or None; a bare
    number that may be a year ("2026: …") is none."""
    m = _ITEM.match(text)
    if m is None:
        return None
    number = m.group("id").lstrip("#").upper()
    if _YEAR.match(number) and not m.group("noun"):
        return None
    return number


def says_state(text: str) -> bool:
    return _STATE.search(text) is not None


def new_state(older: str, newer: str) -> bool:
    """Whether ``newer`` gives a later state of the item ``older`` gave one of."""
    item = item_of(newer)
    return item is not None and item == item_of(older) and says_state(older) and says_state(newer)


# An opening, and its end.
_OPENING = re.compile(r"\bhiring\b|\blooking for (?:a|an|another)\b|\bopen (?:role|position|req|headcount)\b|"
                      r"\breq(?:uisition)? (?:opened|is open)\b|\bsuch(?:t|en) (?:eine[nr]?|einen)\b|"
                      r"\b(?:stelle|position) (?:ist )?(?:ausgeschrieben|offen)\b", re.I)
FILLED = re.compile(r"\b(?:filled|hired|accepted (?:the|our) offer|besetzt|vergeben|eingestellt)\b", re.I)
# Said of the role, not of whom: filled at once ("hired by SAP, starts 1 June" waits for its day).
ROLE_FILLED = re.compile(r"\b(?:filled|besetzt|vergeben)\b", re.I)
_NOT_YET = re.compile(r"\b(?:not|nicht|noch nicht|almost|nearly|fast|if|once|when|until|bis)\b|n't\b", re.I)
# Words of an opening that name no role: "Senior backend role filled" names "senior backend".
_NO_ROLE = frozenset("""role roles position positions req opening headcount job stelle team we our also
is are was has have been as a an the new hire hiring hired filled accepted offer starts start joins
besetzt vergeben eingestellt ist wurde neue neuer neuen fängt beginnt""".split())


def _role(text: str, older: str) -> set[str]:
    """The words a filled opening names its role by (names it alone — capitalised
    and not in the older line — and dates dropped), as stems."""
    seen = {w.lower() for w in words(older)}
    out = set()
    for w in words(re.split(r"[:;]", text)[0] if FILLED.search(re.split(r"[:;]", text)[0]) else text):
        low = w.lower()
        if low in STOP or low in _NO_ROLE or is_calendar(low) or any(c.isdigit() for c in low) or \
                FILLED.fullmatch(low) or (w[0].isupper() and low not in seen):
            continue
        out.add(stem(low))
    return out


def filled(older: str, newer: str) -> bool:
    """Whether ``newer`` says the opening ``older`` tells of is filled."""
    if not (_OPENING.search(older) and FILLED.search(newer)) or _NOT_YET.search(newer) or \
            FILLED.search(older) or len(claims_of(older)) > 1:
        return False
    role = _role(newer, older)
    return bool(role) and role <= {stem(w.lower()) for w in words(older)}


# A request or an intent, and its withdrawal: "wants to cancel sub end of month" ->
# "cancellation withdrawn, got 20% retention discount".
_INTENT = re.compile(r"\b(?:wants? to|plans? to|planning to|going to|intends? to|asked to|asks to|"
                     r"requested to)\s+(?:\w+\s+)??(\w{4,})|"
                     # German puts the verb last: "möchte den Vertrag kündigen"
                     r"\b(?:möchte|möchten|will|wollen|plant)\b[^.;,]*?\b(\w{3,}en)(?=\s*(?:[.;,!(]|$))",
                     re.I)
WITHDRAWN = re.compile(r"\b(?:withdrawn|withdrew|withdraws|retracted|zurückgezogen|"
                       r"zieht (?:\w+ ){0,3}zurück|decided against|no longer wants)\b", re.I)


def withdrawn(older: str, newer: str) -> bool:
    """Whether ``newer`` withdraws the request or intent ``older`` tells of,
    naming it by its word ("cancel" / "cancellation", "kündigen" / "Kündigung")."""
    m = _INTENT.search(older)
    if m is None or not WITHDRAWN.search(newer) or _NOT_YET.search(newer) or len(claims_of(older)) > 1:
        return False
    head = (m.group(1) or m.group(2)).lower()[:5]
    return any(w.lower().startswith(head) for w in words(newer))


# A goal, and reaching it: "Q1 OKR: cut p95 latency below 200 ms" -> "Q1 OKR hit: p95 is
# at 170 ms"; "ziel 5k unter 25 min" -> "(5k goal erreicht am 14.4.)".
_GOAL_WORDS = frozenset("goal goals target okr okrs objective aim ziel ziele zielwert".split())
REACHED = re.compile(r"\b(?:hit|achieved|reached|met|erreicht|geschafft)\b", re.I)
_AHEAD = re.compile(r"\b(?:will|wird|werden|going to|expects? to|hopes? to)\b", re.I)


def reached_now(text: str) -> bool:
    """Whether a line says a goal was reached (not that it will be): true at
    once, whatever day the rest of the line names."""
    return REACHED.search(text) is not None and not _AHEAD.search(text)


def reached(older: str, newer: str) -> bool:
    """Whether ``newer`` says the goal ``older`` sets was reached: a goal word
    on both sides, and what the newer names it by, before "hit"/"erreicht"
    in its clause, is among the older's words ("Q2 OKR hit" is not Q1's)."""
    m = REACHED.search(newer)
    if m is None or not reached_now(newer) or _NOT_YET.search(newer) or REACHED.search(older) or \
            len(claims_of(older)) > 1:
        return False
    said = {p for w in words(older) for p in w.lower().split("-")}
    clause = [p for w in words(re.split(r"[(;:]|\.\s", newer[:m.start()])[-1]) for p in w.lower().split("-")]
    if not _GOAL_WORDS & said or not _GOAL_WORDS & set(clause):
        return False
    named = {w for w in clause if w not in _GOAL_WORDS and w not in STOP}
    return bool(named) and named <= said


# A weight logged tersely: "wt 89.5 kg" -> "now 87kg, goal 80"; "Gewicht 92 kg" -> "jetzt 90 kg".
WEIGHED = re.compile(r"^\W*(?:(?:wt|weight|gewicht|gew)\.?\s*[:=]?\s*(?:(?:now|jetzt|aktuell)\s*[:=]?\s*)?|"
                     r"(?:now|jetzt|aktuell|currently)\s*[:=]?\s*(?:(?:wt|weight|gewicht|at|bei)\s*[:=]?\s*)?)"
                     r"(\d{2,3}(?:[.,]\d{1,2})?)\s*(kg|kilos?|lbs?)\b", re.I)
# A weight that stays true as a mark, whatever the scales say later.
_MARK = re.compile(r"\b(?:start|starting|baseline|initial|ausgang\w*|anfang\w*|goal|ziel|target|max|min|"
                   r"lowest|highest|record)\b", re.I)


def weighed_again(older: str, newer: str) -> bool:
    """Whether ``newer`` logs a new weight where ``older`` logged one, both
    short notes that begin with it ("wt 89.5 kg"): a starting weight or a
    goal ("weight 92kg (start)") is a mark that stays."""
    a, b = WEIGHED.match(older), WEIGHED.match(newer)
    if a is None or b is None or _MARK.search(older) or len(words(older)) > 6:
        return False
    same_unit = a.group(2).lower()[:2] == b.group(2).lower()[:2]
    return same_unit and a.group(1).replace(",", ".") != b.group(1).replace(",", ".")


def ends(older: str, newer: str) -> bool:
    """Whether ``newer`` ends what ``older`` tracks: a later state, an opening
    filled, a request withdrawn, a goal reached, a weight logged again."""
    return new_state(older, newer) or filled(older, newer) or withdrawn(older, newer) or \
        reached(older, newer) or weighed_again(older, newer)


__all__ = ["FILLED", "REACHED", "ROLE_FILLED", "WEIGHED", "WITHDRAWN", "ends", "filled", "item_of",
           "new_state", "reached", "reached_now", "says_state", "weighed_again", "withdrawn"]
