"""A record's field given a new value in other words.

Notes keep records tersely, a thing and its fields: "Flat 2A rent: 950
EUR/month (cold)", "Beans: Roastery Nord, house blend 18.50 EUR/kg, min order
10 kg", "Klimt Studio: hourly rate 85 EUR, net 30", "Dad: Ramipril 5mg once
daily", "Maya - reading level: Year 3", "Pelican Foods deal: stage = proposal
sent", "Brightwave Media - main contact: Sam Ortiz".  A later line tells a
change of one field in words of its own, with no subject or attribute a claim
could read: "2A rent goes up to 1,010 EUR from 1 April", "Roastery Nord raised
prices - house blend now 21 EUR/kg", "GP increased Dad's ramipril to 10mg",
"Maya moved up to Year 4 reading level", "Pelican Foods -> negotiation",
"Brightwave: Sam left the company. New main contact is Dana Liu".

:func:`revalued` says which fields of the older line the newer gives a new
value of the same kind, for the same thing:

- **the same thing**: a name or an identifier of the older line ("2A",
  "Roastery Nord", "Klimt Studio", "Maya", "Mama", a plate "HH-RF 412") is in
  the newer, or a thing of the glossary's in the other language ("oxalic
  acid" / "Oxalsäure", "tiles" / "Bad-Fliesen"), or a drug cut short ("Ibu"),
  and neither names one the other lacks where it says whose the value is (the
  rent of 2B, Mum's dose, Leo's level are another's; a doctor who says it,
  "Dr. Haas: …", owns nothing);
- **a value of the same kind**: an amount of money per the same unit (a
  price per kg is not one per order; "warm" rent not "kalt"), under the same
  label (the house blend, not the espresso blend; the unit said in words, or
  another word for a price, is no label: "hourly rate … 240 €/h" of
  "Stundensatz: 220 €/h", "monthly fee" of "39 €/month"; one item of a
  price list, by a name no other item has: "Classic kostet jetzt 10,50" of
  "Prices: Classic Burger 9.50 €, Veggie Burger 8.90 €"); a dose of the same drug; a
  level or grade ("Year 3" -> "Year 4") of the same measure; a deal's stage;
  how often ("every 2 weeks" -> "weekly") of the same task; how one does at
  a topic ("weak on quadratics" -> "quadratics much better now"); an address,
  a counter reading (only ever higher), payment terms, a day said to have
  moved (:mod:`~kairos.dream.distill.measures`); a person in the same role of
  the same owner ("main contact", "Hausarzt", "Kinderarzt", "tenant"), who
  left, retired, moved out, or has a successor (at "the same practice, same
  number": the practice and number stay); a flat let that was vacant; a wait
  over for the same thing ("ordered, delivery pending" -> "geliefert";
  "waiting to hear back" -> "angenommen"), not for another of its kind
  ("Kitchen tiles delivered");
- **a change said**: "now", "new", "raised", "goes up to", "increased",
  "revised", "moved up", "agreed", "from 1 April", "jetzt", "neuer", "ab Mai",
  "erhöht", "postponed", "verschoben" (a counter read again needs none: it
  only goes up); and nothing that makes it no change: a plan or a wish ("might
  raise to 1,000", "asked for 95/h", "möchte"), a negation, history ("rent
  was 950 when we moved in"), a value added ("also takes ramipril in the
  evening"), a while ("until the repairs are done", "this month only",
  "covering while Sam is on leave").

Only the fields the newer replaces go: the rest of the line stays, citing the
same write ("Beans: Roastery Nord, min order 10 kg"; "Klimt Studio: net 30"),
when it can be said alone; a person's details (address, phone, e-mail) go
with the person.  A rest that cannot stand alone ("…, taken with food") keeps
the whole line: a missed update, never a lost fact.  English and German.
Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from kairos.dream.distill import gloss, measures
from kairos.dream.distill.lexicon import ATTRIBUTE_NOUNS, PERSON_NOUNS
from kairos.dream.distill.when import is_calendar
from kairos.dream.distill.words import STOP, is_german, stem, words

# -- a line as a record: a head and its fields --------------------------------------------------

# "Key: value", "Key = value", "Key - value", "Key -> value": the head is short.
_HEAD = re.compile(r"^\s*([^:=\n]{1,60}?)\s*(:(?!\d)|=|\s[-–]>\s?|\s→\s?|\s[-–]\s)\s*")
# A sentence ends at ". " before a capital — not after a title or an abbreviation.
_ABBREVIATIONS = frozenset("dr mr mrs ms prof tel nr no str whg ca st fam hr fr jr sr bzw vs etc "
                           "approx inkl zzgl incl excl exkl".split())


@dataclass(frozen=True)
class Field:
    start: int
    end: int
    sentence: int
    lead: str  # the separator before it in the line ("", ", ", ". ")


_YEAR_AFTER = re.compile(r", (?:19|20)\d\d\b")  # "Jun 1, 2026": one date, not two fields


@lru_cache(maxsize=8192)
def fields(text: str) -> tuple[int, tuple[Field, ...]]:
    """Where a line's head ends, and its fields: the pieces of its value at
    top-level commas, semicolons and sentence ends (not inside brackets)."""
    m = _HEAD.match(text)
    head_end = m.end() if m and len(words(m.group(1))) <= 6 else 0
    out: list[Field] = []
    depth, start, sentence, lead = 0, head_end, 0, ""
    i = head_end
    n = len(text)
    while i < n:
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and ch in ",;" and i + 1 < n and text[i + 1] == " " and \
                not (ch == "," and i and text[i - 1].isdigit() and text[i + 1:i + 2].isdigit()) and \
                not (ch == "," and i and text[i - 1].isdigit() and _YEAR_AFTER.match(text, i)):
            if text[start:i].strip():
                out.append(Field(start, i, sentence, lead))
            lead = ch + " "
            start = i + 2
            i += 2
            continue
        elif depth == 0 and ch in ".!?" and (i + 1 == n or text[i + 1] == " "):
            before = re.search(r"(\w+)$", text[start:i])
            if ch != "." or not before or before.group(1).lower() not in _ABBREVIATIONS and \
                    not before.group(1).isdigit():
                if text[start:i].strip():
                    out.append(Field(start, i, sentence, lead))
                sentence += 1
                lead = ch + " "
                start = i + 2
                i += 2
                continue
        i += 1
    if text[start:].strip(" .!"):
        out.append(Field(start, n, sentence, lead))
    return head_end, tuple(out)


# -- names, identifiers, owners ----------------------------------------------------------------

_ID = re.compile(r"(?<![\w.,/-])(\d{1,3}[A-Z]|[A-Z]\d{1,3}|(?:19|20)\d\d)(?![\w.,/-]*\d)(?!\w)")
_NUMBERED = re.compile(r"\b(?:flat|apt|apartment|unit|room|whg|wohnung|zimmer|haus|house|nr|no|"
                       r"suite|office|büro|plot|stellplatz|garage|hive|volk|beute|locker|spind|gate)\.?\s*"
                       r"(\d{1,4}[a-z]?)\b", re.I)
_PLATE = re.compile(r"\b([A-ZÄÖÜ]{1,3}-[A-Z]{1,2})\s?(\d{1,4}[EH]?)\b")  # a number plate
_TITLES = frozenset("dr mr mrs ms miss prof herr frau familie fam firma family".split())
_GENERIC = frozenset("""
new neu neue neuer neuen neues old alt now jetzt client kunde kundin project projekt deal lead
flat apartment wohnung whg room zimmer house haus building gebäude unit tel phone email mail
rent miete kaltmiete warmmiete price prices preis preise rate satz stage status phase value wert
budget level year grade klasse stufe note target ziel contact kontakt tenant mieter mieterin
beans coffee kaffee eur euro euros usd gbp chf gp closed won lost negotiation signed note notes
mon tue wed thu fri sat sun praxis dose dosis mg
""".split())


def _low(w: str) -> str:
    w = w.lower().replace("’", "'")
    return w[:-2] if w.endswith("'s") else w.rstrip("'")


def ids(text: str) -> set[str]:
    """The identifiers a line names: "2A", "3B", "Q1", a year, "flat 4", "Whg. 1", a plate
    ("HH-RF 412")."""
    return {m.group(1).upper() for m in _ID.finditer(text)} | \
        {m.group(1).upper() for m in _NUMBERED.finditer(text)} | \
        {(m.group(1) + m.group(2)).upper() for m in _PLATE.finditer(text)}


def names(text: str) -> set[str]:
    """The names a line holds, lower-cased: its capitalised words (a German
    noun too) and person nouns ("Mum", "Dad", "Mama"), less function words,
    titles, the calendar and the words every record has ("rent", "price",
    "contact")."""
    out = set()
    for w in words(text):
        low = _low(w)
        if len(low) < 2 or low in STOP or low in _TITLES or _calendar(low) or \
                low in _GENERIC or low in ATTRIBUTE_NOUNS or low in _ROLE_OF or any(c.isdigit() for c in low):
            continue
        if w[0].isupper() or low in PERSON_NOUNS or low in _KIN:
            out.add(low)
    return out


def _calendar(low: str) -> bool:
    """A month or a weekday, in full or short ("Sept", "Mon+Thu", "Tue/Wed")."""
    return all(is_calendar(p) for p in re.split(r"[+/&-]", low) if p)


_KIN = frozenset("mama papa mami papi mutti vati oma opa nan nana granny grandma grandpa".split())


def _tokens(text: str) -> set[str]:
    return {_low(w) for w in words(text)}


def _known(word: str, pool: set[str]) -> bool:
    """Whether a word is in a pool of words, by its stem or its first five letters."""
    s = stem(word)
    return word in pool or any(stem(p) == s or (len(word) >= 5 and len(p) >= 5 and p[:5] == word[:5])
                               for p in pool)


# -- what makes a newer line no change ------------------------------------------------------------

_CHANGED = re.compile(
    r"\bnow\b|\bnew\b|\bnewly\b|\braised?\b|\braises\b|\brose\b|\brisen\b|\b(?:goes|going|went|gone|"
    r"moved?|moves|moving|bumped|stepped) (?:up|down)\b|\bup to\b|\bdown to\b|\bincrease[ds]?\b|"
    r"\bupped\b|\bris(?:e|es|ing)\b|\breduced?\b|\blowered\b|\bcut\b|\bdropped\b|\brevised\b|\bchanged?\b|\badjusted\b|"
    r"\bupdated\b|\bpromoted\b|\bagreed\b|\brenegotiated\b|\bfrom (?:\d|the \d|next|mid|early|end|"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*)|\bstarting\b|\bas of\b|\beffective\b|"
    r"->|→|\bclosed[- ](?:won|lost)\b|\btakes? over\b|\btook over\b|\bjetzt\b|\bnun\b|\binzwischen\b|"
    r"\bmittlerweile\b|\bmov(?:es|ed|ing) to\b|\bshift(?:s|ed) to\b|\bverlegt\b|\bverschoben\b|"
    r"\bab (?:nächste|kommende)\w*|"
    r"\bneue[nrsm]?\b|\berhöh\w*|\bgestiegen\b|\bsteigt\b|\bgesenkt\b|\bsinkt\b|\bgesunken\b|"
    r"\bangepasst\b|\w*anpassung\b|\bgeändert\b|\bab (?:\d|dem|sofort|jan|feb|mär|apr|mai|jun|jul|aug|"
    r"sep|okt|nov|dez)\w*|\bübernimmt\b|\bkünftig\b|\bseit\b|\bsince\b", re.I)
_HEDGE = re.compile(
    r"\bmight\b|\bmay (?:be|go|rise|raise|increase|change|move|switch|leave|retire|need|have|want|not)\b|"
    r"\bcould\b|\bwould\b|\bshould\b|\bmaybe\b|\bperhaps\b|\bpossibly\b|"
    r"\bprobably\b|\blikely\b|\bconsider\w*|\bthinking (?:about|of)\b|\bplan(?:s|ning|ned)? to\b|"
    r"\bwants? to\b|\bwould like\b|\bask(?:s|ed|ing)? (?:for|about|whether|if)\b|\brequest\w*|"
    r"\bpropos(?:e|es|ed|ing)\b|\bsuggest\w*|\boffer(?:s|ed|ing)? to\b|\bhopes?\b|\bexpects?\b|"
    r"\bif\b|\bunless\b|\bpending\b|\btb[cd]\b|\bto be (?:confirmed|agreed|decided)\b|\bnot yet\b|"
    r"\bdiscuss\w*|\bnegotiating (?:for|a|an)\b|\bvielleicht\b|\beventuell\b|\bmöglicherweise\b|"
    r"\bwahrscheinlich\b|\büberleg\w*|\bplan(?:t|en)\b|\bmöchte\w*|\bwoll\w*|\bsoll(?:en|te)?\b|"
    r"\bangefragt\b|\bfragt\b|\bgefragt\b|\bverlangt\b|\bvorgeschlagen\b|\bschlägt\b|\bangeboten\b|"
    r"\bfalls\b|\bwenn\b|\bnoch nicht\b|\bunklar\b|\bwill\b(?=.*\b(?:retire|leave|move|quit)\b)", re.I)
_GERMAN_WILL = re.compile(r"\bwill\b", re.I)  # German "will" is a wish
_NEGATED = re.compile(r"\bnot\b|\bnever\b|\bno\b(?! longer)|n't\b|\bnicht\b(?! mehr)|\bkein\w*\b|\bnie\b",
                      re.I)
_HISTORY = re.compile(
    r"\bused to\b|\boriginally\b|\binitially\b|\bback then\b|\bback in\b|\bat (?:the )?start\b|"
    r"\bin the beginning\b|\bwhen (?:we|i|they|he|she|you) (?:moved in|started|signed|joined|began)\b|"
    r"\bfrüher\b|\bdamals\b|\bursprünglich\b|\banfangs\b|\bbei einzug\b|\bzu beginn\b|"
    r"\b(?:was|were|war|waren|had been)\s+(?:~|about\s+|around\s+|only\s+|just\s+|noch\s+|nur\s+|"
    r"ca\.?\s*)?[\d€$£]", re.I)
_ADDED = re.compile(
    r"\balso\b|\btoo\b(?=\s*(?:[.,;!?)]|$))|\bas well\b|\badditional\w*|\banother\b|\bsecond\b|"
    r"\bextra\b|\bin addition\b|\bbesides\b|\balongside\b|\bbackup\b|\bdeputy\b|\bauch\b|"
    r"\bzusätzlich\w*|\baußerdem\b|\bweitere[nrsm]?\b|\bzweite[nrsm]?\b|\bnoch ein\w*|\bebenfalls\b", re.I)
_A_WHILE = re.compile(
    r"\buntil\b|\btill\b|\bthis (?:week|month|time|order|invoice) only\b|\bonly (?:this|for)\b|"
    r"\bfor (?:a|one|two|three|the next|\d+) (?:weeks?|months?|days?|orders?|invoices?)\b|"
    r"\bone-?(?:off|time)\b|\bpromo\w*|\btemporar\w*|\bcover(?:s|ing)?\b|\bstand(?:s|ing)? in\b|"
    r"\binterim\b|\bacting\b|\bon (?:leave|holiday|vacation)\b|\boff sick\b|\b(?:is|are) away\b|\bwhile\b|"
    r"\bduring\b|\bbis\b|\beinmalig\b|\bdiesmal\b|\bnur (?:diese|für)\b|\baktion\b|\bvorübergehend\b|"
    r"\bvertr(?:etung|itt)\b|\bim urlaub\b|\bkrank\b|\bwährend\b", re.I)


def no_change(newer: str) -> bool:
    """Whether a line is a plan or a wish, a negation, history, a value added or
    a while: no new value of a record, whatever it names."""
    return bool(_HEDGE.search(newer) or _NEGATED.search(newer) or _HISTORY.search(newer)
                or _ADDED.search(newer) or _A_WHILE.search(newer)
                or (is_german(newer) and _GERMAN_WILL.search(newer)))


# -- values of a kind ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Value:
    kind: str  # money, dose, level, often, stage, rating, slot
    amount: str  # normalised
    start: int
    end: int
    unit: str = ""  # per what (money), the drug (dose), the topic (rating)
    quality: str = ""  # warm / cold, net / gross (money)


_NUM = r"(?:\d{1,3}(?:[.,]\d{3})+|\d+(?:[.,]\d{1,2})?)"
_CURRENCY = r"(?:€|eur\b|euros?\b|\$|usd\b|£|gbp\b|chf\b|dollars?\b|pounds?\b)"
_MONEY = re.compile(
    rf"(?:{_CURRENCY}\s*(?P<a>{_NUM})(?P<ka>k\b)?|(?P<b>{_NUM})(?P<kb>k\b)?\s*(?P<cur>{_CURRENCY})?"
    rf"(?P<rate>\s*/\s*(?:h|hr|hour|std)\b)?)", re.I)
_PER = re.compile(r"^\s*(?:/\s*|per\s+|pro\s+|a\s+|an\s+|im\s+|in the\s+)"
                  r"(month|mo|monat|kg|kilo|h|hr|hour|stunde|std|visit|order|bestellung|session|lesson|"
                  r"stunde|year|yr|jahr|week|woche|day|tag|night|nacht|person|head|piece|stück|einsatz|"
                  r"termin|besuch)\b", re.I)
_PER_WORD = {"mo": "month", "monat": "month", "kilo": "kg", "hr": "h", "hour": "h", "stunde": "h",
             "std": "h", "bestellung": "order", "yr": "year", "jahr": "year", "woche": "week",
             "tag": "day", "nacht": "night", "stück": "piece", "einsatz": "visit", "besuch": "visit",
             "termin": "session", "lesson": "session", "head": "person"}
_PER_ADVERB = re.compile(r"\b(hourly|monthly|yearly|annual|weekly|daily|monatlich|stündlich|jährlich|"
                         r"p\.?a\.?)\b", re.I)
_ADVERB_PER = {"hourly": "h", "stündlich": "h", "monthly": "month", "monatlich": "month", "yearly": "year",
               "annual": "year", "jährlich": "year", "p.a.": "year", "pa": "year", "p.a": "year",
               "weekly": "week", "daily": "day"}
# Words that only say what a price is per, and so never name another thing's price:
# "hourly rate goes up to 240 €/h" is of "Stundensatz: 220 €/h".
_UNIT_LABELS = {
    "h": frozenset({"hourly", "stündlich", "stundensatz", "stundenlohn", "stundenhonorar", "hour", "stunde"}),
    "month": frozenset({"monthly", "monatlich", "monatsbeitrag", "monatspreis"}),
    "year": frozenset({"yearly", "annual", "annually", "jährlich", "jahresbeitrag", "jahrespreis"}),
    "week": frozenset({"weekly", "wöchentlich"}),
    "day": frozenset({"daily", "täglich", "tagessatz"}),
}
_QUALITY = re.compile(r"\b(warm|kalt|cold|net|gross|netto|brutto|incl\w*|excl\w*|inkl\w*|exkl\w*)\b", re.I)
_QUALITY_WORD = {"kalt": "cold", "netto": "net", "brutto": "gross"}
# A number said to be what a thing costs ("Classic kostet jetzt 10,50"), unless it counts time or things.
_COSTS = re.compile(r"\b(?:kostet|kosten|costs?|costing|priced at)\s+"
                    r"(?:jetzt\s+|nun\s+|now\s+|nur\s+|only\s+|neu\s+|ab sofort\s+)?$", re.I)
_NOT_MONEY = re.compile(r"\s*(?:h|std|stunden?|hours?|min|minuten?|minutes?|tage?n?|days?|wochen?|"
                        r"weeks?|monate?n?|months?|jahre?n?|years?|stück|pieces?|points?|punkte?|nerven|"
                        r"time)\b", re.I)
_MONEY_NOUNS = re.compile(r"\b(?:value|budget|deal|price|cost|costs|salary|fee|rate|revenue|arr|mrr|"
                          r"contract|wert|preis|kosten|gehalt|honorar|umsatz|volumen|auftrag)\b", re.I)
_DOSE = re.compile(rf"(?P<n>{_NUM})\s*(?P<u>mg|µg|mcg|ug|ml|iu|ie|g)\b", re.I)
_LEVEL = re.compile(r"\b(year|grade|level|stufe|klasse|band|stage|belt|note)\s+(\d{1,2}|[a-c][12])\b", re.I)
_OFTEN = re.compile(
    r"\bevery (?:(\d+|two|three|four|other|second) )?(day|week|month)s?\b|\b(fortnightly|bi-?weekly|"
    r"weekly|monthly|daily|wöchentlich|monatlich|täglich|zweiwöchentlich|14-tägig|vierzehntägig)\b|"
    r"\b(once|twice|three times) a (week|month)\b|\balle (\d+|zwei|drei|vier) (tage|wochen|monate)\b",
    re.I)
_STAGES = ("closed won", "closed-won", "closed lost", "closed-lost", "proposal sent", "quote sent",
           "contract sent", "angebot versendet", "angebot verschickt", "negotiation", "verhandlung",
           "discovery", "qualified", "qualifiziert", "demo", "trial", "pilot", "proposal", "verbal",
           "won", "lost", "signed", "gewonnen", "verloren", "unterschrieben", "on hold", "lead")
_STAGE = re.compile(r"\b(" + "|".join(re.escape(s) for s in _STAGES) + r")\b", re.I)
_STAGE_SAID = re.compile(r"\b(?:stage|status|phase)\b\s*(?:[:=]|is|ist|now|jetzt|->|→)?\s*$|(?:->|→)\s*$|"
                         r"\b(?:moved|went|is now|now in|jetzt in)\s+(?:to\s+)?$", re.I)
_RATING = {"weak": 0, "poor": 0, "bad": 0, "struggling": 0, "struggles": 0, "shaky": 1, "unsure": 1,
           "behind": 0, "ok": 2, "okay": 2, "fine": 2, "better": 3, "good": 3, "solid": 4, "strong": 4,
           "confident": 4, "secure": 4, "great": 4, "excellent": 4, "schwach": 0, "schlecht": 0,
           "unsicher": 1, "wackelig": 1, "gut": 3, "besser": 3, "sicher": 4, "stark": 4}
_RATING_RE = re.compile(r"\b(" + "|".join(_RATING) + r")\b", re.I)
# A week's slot: the days an activity comes back on, and its clock time ("Tuesdays 16:00",
# "dienstags 17 Uhr", "every Tuesday at 4pm", "Mo+Do 7:30", "Tue/Thu") — not one day.
_DAYS = ("mon|tue|wed|thu|fri|sat|sun", "mo|di|mi|do|fr|sa|so")
_DAY = (r"(?:mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|"
        r"montags?|dienstags?|mittwochs?|donnerstags?|freitags?|samstags?|sonntags?|"
        r"mon|tues?|wed|thu(?:rs?)?|fri|sat|sun|mo|di|mi|do|fr|sa|so)\.?")
_JOINED = r"\s*(?:/|\+|&|,|\band\b|\bund\b)\s*"  # ("und" is in "Sundays")
_SLOT = re.compile(rf"\b(?:(every|jeden|on|am)\s+)?({_DAY}(?:{_JOINED}{_DAY})*)\b"
                   r"(?:\s*(?:at|um|@|,)?\s*(\d{1,2})(?:[:.](\d\d))?\s*(am|pm|h\b|uhr)?)?", re.I)
_DAY_ORDER = ["mo", "tu", "we", "th", "fr", "sa", "su"]
_DE_DAY = {"mo": "mo", "di": "tu", "mi": "we", "do": "th", "fr": "fr", "sa": "sa", "so": "su"}


def number(text: str, k: bool = False) -> str:
    """An amount as one form: "1.010" and "1,010" are 1010, "0,5" is 0.5."""
    t = text.replace(" ", "")
    if re.fullmatch(r"\d{1,3}(?:[.,]\d{3})+", t):
        t = re.sub(r"[.,]", "", t)
    t = t.replace(",", ".")
    try:
        value = float(t) * (1000 if k else 1)
    except ValueError:
        return t
    return f"{value:g}"


def values(text: str, start: int = 0, end: int | None = None) -> list[Value]:
    """The values of a kind a span of a line gives."""
    end = len(text) if end is None else end
    span = text[start:end]
    out: list[Value] = []
    for m in _MONEY.finditer(span):
        amount = m.group("a") or m.group("b")
        k = bool(m.group("ka") or m.group("kb"))
        currency = bool(m.group("a") or m.group("cur"))
        rate = bool(m.group("rate"))
        rent = re.match(r"\s*(?:warm|kalt|cold)\b", span[m.end():], re.I)
        # a price by its cents and what it is per, without a currency: "19.99/mo", "21.99 per month"
        priced = bool(re.search(r"[.,]\d\d$", amount) and _PER.match(span[m.end():]))
        # or said to be what a thing costs: "Classic kostet jetzt 10,50", "now costs 12.90"
        priced = priced or bool(_COSTS.search(span[:m.start()]) and not _NOT_MONEY.match(span[m.end():]))
        if not (currency or rate or rent or priced or (k and _MONEY_NOUNS.search(span))):
            continue
        if re.match(r"[.,]?\d", span[m.end():m.end() + 2]) or \
                re.match(r"\s*(?:mg|kg|ml|km|%)", span[m.end():]):
            continue
        per = "h" if rate else ""
        tail = _PER.match(span[m.end():])
        if tail:
            per = _PER_WORD.get(tail.group(1).lower(), tail.group(1).lower())
        adverb = _PER_ADVERB.search(span)
        if not per and adverb:
            per = _ADVERB_PER.get(adverb.group(1).lower().rstrip("."), "")
        quality = _QUALITY.search(span)
        q = _QUALITY_WORD.get(quality.group(1).lower(), quality.group(1).lower())[:4] if quality else ""
        out.append(Value("money", number(amount, k), start + m.start(), start + m.end(), per, q))
    for m in _DOSE.finditer(span):
        before = [w for w in words(span[:m.start()]) if _low(w) not in STOP and not _CHANGED.fullmatch(w)
                  and _low(w) not in ("dose", "dosis", "dosage", "to", "auf", "von", "from")]
        drug = _low(before[-1]) if before else ""
        if drug.isalpha() and not any(c.isdigit() for c in drug):
            out.append(Value("dose", number(m.group("n")) + m.group("u").lower(), start + m.start(),
                             start + m.end(), drug))
    for m in _LEVEL.finditer(span):
        out.append(Value("level", m.group(2).lower(), start + m.start(), start + m.end(),
                         _LEVEL_KIND.get(m.group(1).lower(), m.group(1).lower())))
    for m in _OFTEN.finditer(span):
        out.append(Value("often", _often(m), start + m.start(), start + m.end()))
    for m in _STAGE.finditer(span):
        if _STAGE_SAID.search(text[:start + m.start()]) or m.group(1).lower().startswith("closed"):
            out.append(Value("stage", m.group(1).lower().replace("-", " "), start + m.start(),
                             start + m.end()))
    for m in _RATING_RE.finditer(span):
        out.append(Value("rating", str(_RATING[m.group(1).lower()]), start + m.start(), start + m.end()))
    for m in _SLOT.finditer(span):
        slot = _slot(m)
        if slot:
            out.append(Value("slot", slot, start + m.start(), start + m.end()))
    out += [Value(*v) for v in measures.found(text, start, end)]  # an address, a reading, terms, a day
    return out


def _slot(m: re.Match[str]) -> str | None:
    """A week's slot as "tu,th@17:00"; None when the days are one day, not a
    habit ("on Tuesday"), or a short day name stands alone without a time."""
    names = [d.lower().rstrip(".") for d in re.split(_JOINED, m.group(2), flags=re.I) if d.strip()]
    plural = any(n.endswith("s") and len(n) > 3 for n in names)  # "Tuesdays", "dienstags"
    if not (plural or len(names) > 1 or m.group(1) and m.group(1).lower() in ("every", "jeden")):
        return None
    if len(names) == 1 and len(names[0]) <= 3 and not m.group(3):
        return None  # "do", "so", "sat" alone are words as often as days
    codes = {_DE_DAY[n[:2]] if n[:2] in ("di", "mi", "do") or n in ("so", "son", "sonntag", "sonntags")
             else n[:2] for n in names}
    days = sorted(codes & set(_DAY_ORDER), key=_DAY_ORDER.index)  # (never a word it cannot place)
    if not days:
        return None
    clock = ""
    if m.group(3):
        hour = int(m.group(3)) + (12 if (m.group(5) or "").lower() == "pm" and int(m.group(3)) < 12 else 0)
        clock = f"@{hour:02d}:{m.group(4) or '00'}"
    return ",".join(days) + clock


_LEVEL_KIND = {"klasse": "year", "stufe": "level", "note": "grade"}
_COUNT = {"two": 2, "three": 3, "four": 4, "other": 2, "second": 2, "zwei": 2, "drei": 3, "vier": 4}


def _often(m: re.Match[str]) -> str:
    """Every how many days: "every 2 weeks" and "fortnightly" are 14."""
    days = {"day": 1, "week": 7, "month": 30, "tage": 1, "wochen": 7, "monate": 30}
    if m.group(2):
        n = m.group(1)
        count = _COUNT.get((n or "").lower()) or (int(n) if n and n.isdigit() else 1)
        return str(count * days[m.group(2).lower()])
    if m.group(3):
        return {"fortnightly": "14", "biweekly": "14", "bi-weekly": "14", "weekly": "7", "monthly": "30",
                "daily": "1", "wöchentlich": "7", "monatlich": "30", "täglich": "1", "zweiwöchentlich": "14",
                "14-tägig": "14", "vierzehntägig": "14"}[m.group(3).lower()]
    if m.group(4):
        times = {"once": 1, "twice": 2, "three times": 3}[m.group(4).lower()]
        return f"{(7 if m.group(5).lower() == 'week' else 30) / times:g}"
    n = m.group(6).lower()
    return str((_COUNT.get(n) or int(n)) * days[m.group(7).lower()])


# -- people in a role --------------------------------------------------------------------------

_ROLES = {
    "contact": "contact|main contact|point of contact|primary contact|key contact|account contact|"
               "ansprechpartner|ansprechpartnerin|hauptkontakt|kontaktperson",
    "tenant": "tenant|tenants|mieter|mieterin|mieterinnen",
    "doctor": "gp|doctor|family doctor|hausarzt|hausärztin|arzt|ärztin",
    "dentist": "dentist|zahnarzt|zahnärztin",
    "paediatrician": "paediatrician|pediatrician|kinderarzt|kinderärztin|children's doctor|kids' doctor",
    "caretaker": "caretaker|janitor|handyman|hausmeister|hausmeisterin|hausmeisterdienst|"
                 "hausmeisterservice|facility manager",
    "cleaner": "cleaner|cleaning lady|putzfrau|putzkraft|reinigungskraft|reinigungsfirma",
    "carer": "carer|caregiver|care worker|pflegedienst|pflegerin|pfleger|betreuer|betreuerin",
    "tutor": "tutor|nachhilfelehrer|nachhilfelehrerin|class teacher|klassenlehrer|klassenlehrerin",
    "accountant": "accountant|bookkeeper|tax advisor|steuerberater|steuerberaterin|buchhalter|"
                  "buchhalterin",
    "lawyer": "lawyer|solicitor|attorney|anwalt|anwältin|rechtsanwalt|rechtsanwältin",
    "landlord": "landlord|landlady|property manager|vermieter|vermieterin|hausverwaltung",
    "vet": "vet|tierarzt|tierärztin",
    "therapist": "therapist|physio|physiotherapist|therapeut|therapeutin|physiotherapeutin",
    "childcare": "babysitter|nanny|childminder|tagesmutter",
    "account manager": "account manager|kundenbetreuer|kundenbetreuerin",
    "partner": "boyfriend|girlfriend|partner|husband|wife|fiancé|fiancée|fiance|fiancee|partnerin|"
               "ehemann|ehefrau|verlobter|verlobte|lebensgefährte|lebensgefährtin",
}
_ROLE_OF = {noun: role for role, nouns in _ROLES.items() for noun in nouns.split("|")}
_ROLE_WORDS = "|".join(sorted((re.escape(n) for n in _ROLE_OF), key=len, reverse=True))
_NAME = r"(?-i:[A-ZÄÖÜ][\w'’-]+)"
_PERSON = re.compile(
    rf"\b(?P<role>{_ROLE_WORDS})\b(?P<of>\s+(?:von|of|for|at|bei|für|in)\s+[\w'’.-]+(?:\s+{_NAME})?)?"
    rf"\s*(?::|=|-|–|,|\bis\b|\bist\b|\bwas\b|\bcalled\b|\bnamed\b|\bnamens\b|\bheißt\b)?\s*"
    rf"(?:(?:now|jetzt|nun)\s+)?(?::\s*)?"
    rf"(?:(?-i:Dr|Mr|Mrs|Ms|Prof|Herr|Frau|Familie|Fam|Firma|Family)\.?\s+)*(?P<name>{_NAME}(?:\s+{_NAME})?)",
    re.I)
_LEAVES = re.compile(
    r"\bleft (?:the (?:company|firm|agency|practice|team|job|business)|us|\w+ for)\b|\bhas left\b|"
    r"\bleft(?<!\(left)(?<!the left)(?<!on left)(?<!to left)(?<!turn left)(?=\s*(?:[;,.!]|\s[-–]\s|$))|"
    r"\bleft (?-i:[A-ZÄÖÜ])\w+|\bbroke up\b|\bsplit up\b|\b(?:are|have|got) (?:separated|divorced)\b|"
    r"\bhaben sich getrennt\b|\bsind getrennt\b|\bgetrennt\b|\bschluss gemacht\b|"
    r"\bquit\b|\bresigned\b|\bretired\b|\bretires\b|\bretiring\b|\bmoved out\b|\bmoves out\b|"
    r"\bmoved (?:to another|on|away)\b|\bswitched (?:jobs|companies)\b|\bpassed away\b|\bdied\b|"
    r"\bis gone\b|\bno longer (?:works?|with|at|our|the|in)\b|\bin rente\b|\bim ruhestand\b|"
    r"\bpensioniert\b|\bausgezogen\b|\bzieht aus\b|\bist weg\b|\bgekündigt\b|\bverlässt\b|"
    r"\bverlassen\b|\bnicht mehr (?:da|bei|unser)\b|\bverstorben\b|\bgestorben\b", re.I)
_RENEWED = re.compile(r"\bnew\b|\bnow\b|\bneue[nrsm]?\b|\bjetzt\b|\bnun\b|\btakes? over\b|\btook over\b|"
                      r"\bübernimmt\b|\breplaced by\b|\bsuccessor\b|\bnachfolger\w*\b|\bfrom \d|\bab \d|"
                      r"\bab (?:jan|feb|mär|apr|mai|jun|jul|aug|sep|okt|nov|dez)\w*", re.I)
_ENDED_ROLE = re.compile(rf"\b(?:{_ROLE_WORDS})\s+(?:gekündigt|cancelled|canceled|terminated|ended|"
                         r"beendet|quit)\b", re.I)
_VACANT = re.compile(r"\b(?:vacant|empty|unlet|leer|leerstehend|frei|unvermietet)\b", re.I)
_LET = re.compile(r"\b(?:let to|rented (?:out )?to|new tenants?|vermietet an|neue[rn]? mieter\w*|"
                  r"moves? in|moved in|zieht ein|eingezogen)\b", re.I)


@dataclass(frozen=True)
class _Held:
    role: str
    person: frozenset[str]  # the holder's name, lower-cased words
    start: int
    end: int
    of: str = ""  # whose: "von Mama", "at Kestrel"


def _held(text: str) -> list[_Held]:
    out = []
    for m in _PERSON.finditer(text):
        name = [_low(w) for w in m.group("name").split()]
        if name[0] in STOP or _calendar(name[0]) or _low(m.group("name")) in _ROLE_OF or \
                name[0] in _TITLES or name[0] in ("new", "neue", "neuer", "neuen", "now"):
            continue
        out.append(_Held(_ROLE_OF[m.group("role").lower()], frozenset(n for n in name if n not in STOP),
                         m.start(), m.end(), m.group("of") or ""))
    return out


def _holder_gone(older_text: str, held: _Held, newer: str, owners: set[str]) -> bool:
    """Whether the newer says the one who held the role left it: "Sam left the
    company", "Dr. Weber ist in Rente", "Okafor moved out"."""
    toks = [_low(w) for w in words(newer)]
    last = sorted(held.person, key=lambda p: older_text.lower().find(p))[-1]
    for w in toks:
        if w not in held.person:
            continue
        surname = len(held.person) == 1 or w == last
        if not surname and not owners & set(toks):
            continue
        after = " ".join(words(newer))
        tail = after[after.lower().find(w):]
        clause = re.split(r"[.;]|\s-\s", tail, maxsplit=1)[0]
        if _LEAVES.search(clause):
            return True
    return False


def _role_change(older: str, newer: str, head_end: int, flds: tuple[Field, ...]) -> set[int] | None:
    """The fields of a role line the newer ends: the holder and their details (the
    rest of the sentence)."""
    plain = _LEAVES.sub(" ", newer)  # "moved to another company" adds no one
    if _HEDGE.search(plain) or _ADDED.search(plain) or _A_WHILE.search(plain) or _HISTORY.search(plain):
        return None
    for held in _held(older):
        owners = names(older[:held.start] + " " + held.of + " " + older[held.end:]) - held.person - \
            _street_words(older)  # the practice's street is no owner
        older_ids = ids(older)
        new_names, new_ids = _tokens(newer), ids(newer)
        if older_ids and new_ids and not older_ids & new_ids:
            continue
        shared = bool(owners & new_names) or bool(older_ids & new_ids)
        # whose the newer's holder is: "Tom's GP is now …", "Lena's sister has a new dentist"
        old_tokens = _tokens(older)
        others = [h for h in _held(newer) if h.role == held.role and all(
            _among(w, old_tokens) for w in names(re.split(r"[.;]\s", newer[:h.start])[-1]) - held.person)]
        gone = _holder_gone(older, held, newer, owners)
        succeeded = any(not h.person & held.person for h in others) and bool(_RENEWED.search(newer))
        ended = held.role not in ("tenant", "contact") and bool(_ENDED_ROLE.search(newer)) and any(
            _ROLE_OF.get(m.lower()) == held.role for m in re.findall(_ROLE_WORDS, newer, re.I))
        if not (gone or ((succeeded or ended) and (shared or not owners))):
            continue
        # another owner named where the newer says whose ("Tom's GP is now Dr. Okoye")
        # (when the holder left, whose is said where they are named: "Ms. Li left; Tom Berg
        # handles our account now" names the successor, not another owner)
        told = newer if not gone else " ".join(
            c for c in re.split(r"[.;!]\s|\s[-–]\s", newer) if held.person & _tokens(c))
        theirs = names(told) - owners - held.person - {p for h in others for p in h.person}
        if owners and not owners & new_names and theirs:
            continue
        if not gone and owners and not shared:
            continue
        first = next((k for k, f in enumerate(flds) if f.end > held.start), None)
        if first is None:  # the holder is in the head: the whole line
            return set(range(len(flds)))
        sentence = flds[first].sentence
        if _SAME_DETAILS.search(newer):  # "same practice, same number": the holder goes, not those
            return {first}
        return {k for k, f in enumerate(flds) if k >= first and f.sentence == sentence}
    return None


# The newer says the successor keeps the holder's details: "(same practice, same number)".
_SAME_DETAILS = re.compile(r"\b(?:same|gleiche[nrs]?|selbe[nrs]?|dieselbe[n]?)\s+(?:practice|number|phone|"
                           r"address|office|praxis|nummer|telefonnummer|adresse|büro)\b", re.I)


def _let(older: str, newer: str, flds: tuple[Field, ...]) -> set[int] | None:
    """A vacant flat let: "Flat 1B: vacant, renovating" -> "1B let to Jonas Meier"."""
    a, b = ids(older), ids(newer)
    if not (a & b) or not _VACANT.search(older) or not _LET.search(newer) or _HEDGE.search(newer) or \
            _NEGATED.search(newer):
        return None
    at = _VACANT.search(older)
    assert at is not None
    first = next((k for k, f in enumerate(flds) if f.end > at.start()), None)
    if first is None:
        return set(range(len(flds)))
    return {k for k, f in enumerate(flds) if k >= first and f.sentence == flds[first].sentence}


# -- a thing's time, a value left, a wait over ---------------------------------------------------
#
# Three changes a later line tells of a record without giving it a value of a kind above:
# the time of a recurring thing ("Team standup daily at 9:15" -> "Stand-ups moved to 10",
# "Probe dienstags 19:30" -> "Chorprobe jetzt donnerstags 19 Uhr"), a value the newer says
# was left ("Tools: Jira for tickets, …" -> "migrated tickets from Jira to Linear"), and a
# wait or a fault over ("waiting for the building permit" -> "permit granted", "tap in 2B
# leaking" -> "2B tap fixed").  Each names the thing the older line is of, in words of its
# own: a compound's head ("Chorprobe" is a "Probe"), a plural, a hyphen.

def noun_key(word: str) -> str:
    """A word as a thing's name is looked up by: its last five letters, less a
    hyphen and a plural ("Stand-ups", "standup"; "Chorprobe", "Probe")."""
    w = _low(word).replace("-", "")
    if len(w) > 4 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    return w[-5:]


def _same_noun(a: str, b: str) -> bool:
    """One thing's name in two lines: the same word, a plural, a hyphen, or a
    compound and its head ("Chorprobe" / "Probe", "Baugenehmigung" / "Genehmigung")."""
    x, y = (_low(w).replace("-", "") for w in (a, b))
    if x == y or stem(x) == stem(y):
        return True
    short, long_ = sorted((x.rstrip("s"), y.rstrip("s")), key=len)
    return len(short) >= 4 and long_.endswith(short)


_CLOCK = re.compile(
    r"(?<![\d.:/,])(?:(\d{1,2}):(\d\d)|(\d{1,2})(?:\.(\d\d))?\s*(am|pm|uhr|h)\b|"
    r"(?:(?<=\bat )|(?<=\bum )|(?<=\bto )|(?<=\bauf ))(\d{1,2})(?:\.(\d\d))?)"
    r"(?![\d:/]|[.,]\d|\s*(?:%|kg|km|min|mg|€|eur|x\b|"
    r"people|persons|personen|years|jahre|weeks|wochen|days|tage|k\b))", re.I)
_ONE_DAY = re.compile(
    r"\b(?:today|tomorrow|tonight|heute|morgen|übermorgen|this (?:week|weekend|time)\b|"
    r"(?:this|next|on|diesen|nächsten|am) (?:mon|tues|wednes|thurs|fri|satur|sun)day\b(?!s)|"
    r"(?:diesen|nächsten|am) (?:montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)\b(?!s)|"
    r"(?<!from )(?<!ab )(?<!starting )\b\d{1,2}(?:st|nd|rd|th)?\.?\s+(?:of\s+)?"
    r"(?:jan|feb|mar|mär|apr|may|mai|jun|jul|aug|sep|oct|okt|nov|dec|dez)\w*|"
    r"(?<!from )(?<!ab )\b\d{1,2}\.\d{1,2}\.|\b(?:once|einmalig|exception|ausnahmsweise)\b)", re.I)
_TIME_WORDS = frozenset("""moves moving move moved daily weekly always immer every jeden jede jeder now
jetzt nun ab sofort starting from next week woche time uhr at um to auf von shifted shift shifts
verlegt verschoben switched is are ist sind findet statt takes place start starts beginnt the die der
das wird yesterday gestern next nächste nächster nächsten kommende kommenden coming""".split())


def _clock(m: re.Match[str]) -> str:
    hour = int(m.group(1) or m.group(3) or m.group(6))
    minute = m.group(2) or m.group(4) or m.group(7) or "00"
    if (m.group(5) or "").lower() == "pm" and hour < 12:
        hour += 12
    return f"{hour:02d}:{minute}"


def _times(text: str, start: int = 0, end: int | None = None) -> list[tuple[str, int, int]]:
    """The clock times and week's slots a span says: ("tu,th@17:00", start, end)."""
    end = len(text) if end is None else end
    span = text[start:end]
    out: list[tuple[str, int, int]] = []
    for m in _SLOT.finditer(span):
        slot = _slot(m)
        if slot:
            out.append((slot, start + m.start(), start + m.end()))
    for m in _CLOCK.finditer(span):
        if not any(s <= start + m.start() < e for _, s, e in out):
            out.append(("@" + _clock(m), start + m.start(), start + m.end()))
    return sorted(out, key=lambda t: t[1])


def _thing_words(text: str) -> list[str]:
    return [w for w in words(text) if (low := _low(w)) not in STOP and low not in _TIME_WORDS and
            low not in _NEUTRAL and not _calendar(low) and low not in _TITLES and
            not any(c.isdigit() for c in low) and not _CHANGED.fullmatch(w) and len(low) > 1]


def _retimed(older: str, newer: str, flds: tuple[Field, ...], head_end: int) -> set[int] | None:
    """The field of ``older`` that gives the time of the thing the newer gives a
    new time of ("Stand-ups moved to 10", "Chorprobe jetzt donnerstags 19 Uhr"):
    each word the newer names its thing by is one of the older's, one of them
    no mere companion ("with Dana"); never one day's exception ("this Friday")."""
    if _ONE_DAY.search(newer) or _ONE_DAY.search(older) or no_change(newer) or \
            not _CHANGED.search(newer):
        return None
    new = _times(newer)
    if len(new) != 1:
        return None
    before = re.split(r"[.;]\s", newer[:new[0][1]])[-1]
    said_new = _thing_words(before)
    one_on_one = bool(re.search(r"\b1:1\b|\bone-on-one\b", before, re.I))
    if not said_new and not one_on_one:
        return None
    thing = one_on_one or any(
        not re.search(rf"\b(?:with|mit|and|und|for|für)\s+{re.escape(w)}\b", before, re.I) for w in said_new)
    head = older[:head_end]
    for k, f in enumerate(flds):
        olds = _times(older, f.start, f.end)
        if len(olds) != 1 or not _differs(olds[0][0], new[0][0]):
            continue
        start = olds[0][1]
        text = head + " " + older[f.start:start]
        pool = _thing_words(text)
        if one_on_one and not re.search(r"\b1:1\b|\bone-on-one\b", text, re.I) or not thing:
            continue
        if not pool or not all(any(_same_noun(w, p) for p in pool) for w in said_new):
            continue
        if _whose(older) - _tokens(newer):
            continue  # "Mia's piano lesson" is not Tom's
        if _says_more(older, f, olds[0], said_new, newer):
            continue  # "with manager Dana", "im Gemeindehaus", "knee issues": more than a time
        return set(range(len(flds))) if start < head_end else {k}
    return None


def _says_more(older: str, f: Field, time: tuple[str, int, int], said_new: list[str], newer: str) -> bool:
    """Whether a field says more than its thing and its time: a word the newer
    does not say, but a modifier just before the thing's name ("Team standup",
    "weekly sync"), never one that says who someone is ("manager Dana")."""
    text = older[f.start:time[1]] + " " + older[time[2]:f.end]
    mine = [w for w in _thing_words(text)]
    new_tokens = _tokens(newer)
    for n, w in enumerate(mine):
        low = _low(w)
        if _among(low, new_tokens) or any(_same_noun(w, s) for s in said_new):
            continue
        modifier = n + 1 < len(mine) and any(_same_noun(mine[n + 1], s) for s in said_new)
        who = modifier and mine[n + 1][0].isupper() and (low in PERSON_NOUNS or low in _ROLE_OF)
        kind = n > 0 and low in _EVENT_KINDS and any(_same_noun(mine[n - 1], s) for s in said_new)
        if not (modifier or kind) or who:
            return True
    return False


# What a thing's name may end in without naming another thing ("Yoga class", "piano lessons").
_EVENT_KINDS = frozenset("""class classes lesson lessons session sessions course meeting meetings
training practice rehearsal appointment call kurs stunde termin sitzung treffen""".split())


def _differs(old: str, new: str) -> bool:
    """Whether a new slot or clock time is another: the days, or the time, changed."""
    od, _, oc = old.partition("@")
    nd, _, nc = new.partition("@")
    return bool(od and nd and od != nd or oc and nc and oc != nc)


def _whose(text: str) -> set[str]:
    """The owners a line names by a possessive ("Mia's", "for Tom")."""
    return {_low(m.group(1) or m.group(2)) for m in re.finditer(
        r"\b([A-ZÄÖÜ]\w+)['’]s\b|\b(?:for|für) ([A-ZÄÖÜ]\w+)", text)}


_LEFT_VALUE = re.compile(
    r"\b(?:switch(?:ed|es|ing)?|migrat(?:ed|es|ing|e)|mov(?:ed|es|ing|e)|chang(?:ed|es|ing|e)|went|"
    r"convert(?:ed|s)?|umgestiegen|gewechselt|wechsel[nt]|umgezogen)\b[^.;]{0,40}?\b(?:from|von)\s+"
    r"(?:the |der |dem |den |die |das |our |my |her |his |their |unserem |meinem )?(?P<a>[\w-]+)|"
    r"\b(?:stopped|quit|ditched|dropped|cancel(?:l)?ed)\s+(?:using |with |going to |the |my |her |his |"
    r"our |their )*(?P<b>(?-i:[A-ZÄÖÜ])[\w-]+)|"
    r"\bout of (?:the )?(?P<c>(?-i:[A-ZÄÖÜ])[\w-]+)\s+(?:into|to|in)\b|"
    r"\binstead of (?:the )?(?P<d>(?-i:[A-ZÄÖÜ])[\w-]+)|"
    r"\bstatt (?:der |dem |des )?(?P<e>(?-i:[A-ZÄÖÜ])[\w-]+)|"
    r"\bno longer (?:uses?|using|at|with|on|in) (?:the )?(?P<f>(?-i:[A-ZÄÖÜ])[\w-]+)|"
    r"\bnicht mehr (?:bei|mit|auf|in|im) (?:der |dem )?(?P<g>(?-i:[A-ZÄÖÜ])[\w-]+)|"
    r"\bvon (?:der |dem |den )?(?P<h>[\w-]+)\s+(?:zu|auf|nach|in)\s+[^.;]{0,30}?\b(?:umgestiegen|"
    r"gewechselt|umgezogen|migriert)\b", re.I)


def _left(older: str, newer: str, flds: tuple[Field, ...], head_end: int) -> set[int] | None:
    """The field of ``older`` holding a value the newer says was left: "Tools:
    Jira for tickets, …" -> "migrated tickets from Jira to Linear"; "prefers
    Slack" -> "stopped using Slack"; another thing of the same kind must be
    named too ("tickets", "prefers"), not only a name ("Mia moved from Berlin"
    says nothing of "Mia's favourite restaurant is in Berlin")."""
    if no_change(newer):
        return None
    gone = {_low(m.group(g)) for m in _LEFT_VALUE.finditer(newer) for g in "abcdefgh" if m.group(g)}
    gone = {w for w in gone if w not in STOP and len(w) > 1 and not _calendar(w) and not w.isdigit()}
    if not gone:
        return None
    new_words = {w for w in _tokens(newer) if w not in STOP and w not in _NEUTRAL and w not in gone}
    both = names(newer) & names(older)  # "Mia" at the start of each
    new_names = _proper(newer) | both if not is_german(newer) else both
    old_names = _proper(older) | both if not is_german(older) else both
    for k, f in enumerate(flds):
        toks = _tokens(older[f.start:f.end])
        if not gone & toks:
            continue
        rest = {w for w in toks | _tokens(older[:head_end]) if w not in STOP and w not in _NEUTRAL and
                w not in gone and w not in old_names and not any(c.isdigit() for c in w)}
        if not any(_known(w, rest) for w in new_words - new_names):
            continue
        if _whose(older) - _tokens(newer):
            continue
        return {k}
    return None


def _proper(text: str) -> set[str]:
    """The names of a line but the first word of a sentence ("Docs moved out of …")."""
    return {_low(m.group(0)) for m in re.finditer(r"(?<!^)(?<![.!?:;] )\b[A-ZÄÖÜ][\w'’-]+", text.strip())}


_WAITING = re.compile(
    r"\b(?:waiting (?:for|on|to hear)|awaiting|still no|applied for|pending|leaking|leaks|broken|not working|"
    r"out of order|warte[nt]? (?:noch )?auf|beantragt|kaputt|defekt|undicht|tropft|ausstehend|"
    r"ordered|on order|bestellt|auditioned|interviewed|vorgesungen|beworben|warte[nt]? auf (?:antwort|"
    r"rückmeldung|bescheid))\b", re.I)
_OVER = re.compile(
    r"\b(?:granted|approved|issued|fixed|repaired|arrived|delivered|came through|received|resolved|"
    r"sorted|rejected|refused|denied|genehmigt|erteilt|repariert|geliefert|angekommen|eingetroffen|"
    r"erledigt|abgelehnt|behoben|ist da|sind da|bewilligt|accepted|admitted|got in|got the (?:place|part|"
    r"job|spot)|angenommen|aufgenommen|zugesagt|eine zusage|completed|abgeschlossen|fertig)\b", re.I)
# The words of a wait that name no thing of its own ("delivery pending", "waiting to hear back").
_WAIT_WORDS = frozenset("""delivery lieferung answer antwort reply decision entscheidung result results
ergebnis back hear word news rückmeldung bescheid zusage confirmation bestätigung approval""".split())


def _another_thing(said_new: list[str], things: list[str]) -> bool:
    """Whether each side names a thing the other does not: "Kitchen tiles" and
    "Bathroom tiles", "Volk 5" and "Volk 3"."""
    def alike(a: str, b: str) -> bool:
        return _same_noun(a, b) or _same_concept(a, b)
    return any(not any(alike(w, t) for t in things) for w in said_new) and \
        any(not any(alike(t, w) for w in said_new) and t[0].isupper() for t in things)


def _same_concept(a: str, b: str) -> bool:
    """One thing of the glossary's in two words, in either language ("Bad-Fliesen", "tiles")."""
    x, y = concepts(a, german=a[:1].isupper()), concepts(b, german=b[:1].isupper())
    return bool(x and y and (x <= y or y <= x))  # "Kammerchor" is not "Jugendchor"


_FUTURE = re.compile(r"\b(?:will|shall|gonna|going to|to be|soon|bald|wird|werden|expected|"
                     r"hopefully|by (?:mon|tue|wed|thu|fri|sat|sun|next|the end))\b|'ll\b", re.I)


def _ended_wait(older: str, newer: str, flds: tuple[Field, ...], head_end: int) -> set[int] | None:
    """The field of ``older`` that waits for a thing, or says it is broken, when
    the newer says it came or was fixed: "waiting for the building permit" ->
    "permit granted"; "Kitchen tap in 2B leaking" -> "2B tap fixed"."""
    over = _OVER.search(newer)
    if over is None or no_change(newer) or _FUTURE.search(newer):
        return None
    a, b = ids(older), ids(newer)
    if a and b and not a & b:
        return None
    named_new = _thing_words(re.split(r"[.;:]\s|\s[-–]\s", newer[:over.start()])[-1])
    said_new = _thing_words(re.split(r"[.;]\s|\s[-–]\s", newer[:over.start()])[-1] + " " +
                            " ".join(words(newer[over.end():])[:3]))
    german = is_german(older)
    over_fields: set[int] = set()
    for k, f in enumerate(flds):
        in_head = bool(head_end) and k == 0 and _WAITING.search(older, 0, head_end) is not None
        wait = _WAITING.search(older, 0, head_end) if in_head else _WAITING.search(older, f.start, f.end)
        if wait is None:
            continue
        if re.search(r"\s(?:and|und|&)\s", older[wait.end():f.end if not in_head else head_end]):
            continue  # waits for two things
        things = _thing_words(older[:head_end] if in_head else older[f.start:f.end])
        if not in_head and not [t for t in things if _low(t) not in _WAIT_WORDS and
                                _low(t) not in wait.group(0).lower()]:
            # "…, delivery pending", "…, waiting to hear back": what waits is named before
            things = _thing_words(older[:head_end] + " " + " ".join(
                older[g.start:g.end] for g in flds[:k] if g.sentence == f.sentence))
        keyed = head_names(newer)  # "Kammerchor: angenommen!!" names its thing in its key
        if not any(_same_noun(w, t) or _same_concept(w, t) for w in said_new for t in things
                   if german or _low(t) in keyed or not (t[0].isupper() and _low(t) in names(older[1:]))):
            continue  # (a person waited on is no thing: "waiting for Tom's reply")
        if _another_thing(named_new, things):
            continue  # "Kitchen tiles delivered" is not of the bathroom tiles
        if _whose(older) - _tokens(newer):
            continue
        if in_head:
            return set(range(len(flds)))
        over_fields.add(k)  # every field that waited for it: "Auditioned for …, waiting to hear back"
    return over_fields or None


# -- the decision ------------------------------------------------------------------------------------

_NEUTRAL = frozenset("""now new jetzt nun neu neue neuer neuen neues is are ist sind be pays pay paid
zahlt zahlen charges charge charged costs cost kostet kosten was from ab to auf up down goes going
went gone raised raise rose rise rises increased increase upped reduced lowered cut dropped revised changed
adjusted updated agreed moved bumped starting erhöht gesenkt angepasst steigt sinkt takes
nimmt verlangt berechnet bills billed""".split())


def _label(text: str, start: int, limit: int = 2) -> list[str]:
    """The words that say what a value is of: up to two words of substance
    just before it, in its clause ("house blend now 21" -> house, blend)."""
    clause = re.split(r"[,;(]|\.\s|:\s*$", text[:start])[-1]
    out: list[str] = []
    for w in reversed(words(clause)):
        low = _low(w)
        if low in STOP or low in _NEUTRAL or _calendar(low) or low in _TITLES or \
                any(c.isdigit() for c in low) or _CHANGED.fullmatch(low):
            continue
        out.append(low)
        if len(out) == limit:
            break
    return out


def _same_kind(old: Value, new: Value) -> bool:
    if old.kind != new.kind:
        return False
    if old.kind == "money":
        return (not old.unit or not new.unit or old.unit == new.unit) and \
            (not old.quality or not new.quality or old.quality == new.quality)
    if old.kind == "dose":
        return old.unit == new.unit or _short_for(old.unit, new.unit)
    if old.kind in ("level", "reading"):
        return old.unit == new.unit
    if old.kind == "phone":  # a mobile is not the office's number, a fax is no phone
        return old.unit == new.unit or (not old.unit or not new.unit) and "fax" not in (old.unit, new.unit)
    return True


def _short_for(a: str, b: str) -> bool:
    """Whether one drug's name is the other's, cut short ("Ibu" for Ibuprofen, "Diclo")."""
    short, long_ = sorted((a, b), key=len)
    return len(short) >= 3 and long_ != short and long_.startswith(short)


def _attribute_named(older: str, flds: tuple[Field, ...], head_end: int, k: int, old: Value,
                     newer: str, new: Value) -> bool:
    """Whether the newer names the attribute the older's value is of."""
    pool = _tokens(newer)
    f = flds[k]
    if old.kind == "dose":
        return (_known(old.unit, {new.unit}) or _short_for(old.unit, new.unit)) if new.unit else False
    if old.kind in ("stage", "terms", "reading"):
        return True
    if old.kind in ("address", "phone"):  # the thing's one place, one number: one on each side
        return sum(v.kind == old.kind for v in values(older)) == 1 == \
            sum(v.kind == old.kind for v in values(newer))
    if old.kind == "date":  # a day is a value only where the newer says it moved
        return bool(measures.MOVED.search(newer))
    if old.kind == "slot":  # the week's slot of the thing the line names: two of its words
        head = older[:head_end].rstrip(" :=-–>→")  # ("Sam piano lesson" is not "Sam swimming")
        named = _label(older, old.start, 3) or _label(head, len(head), 3)
        return bool(named) and sum(_known(w, pool) for w in named) >= min(2, len(named))
    if old.kind == "rating":  # the topic: "weak on quadratics" / "quadratics much better"
        topic = [w for w in _label(older, old.start, 3) + _after(older, old.end)
                 if w not in _RATING and w not in names(older)]
        theirs = [w for w in _label(newer, new.start, 3) + _after(newer, new.end) if w not in _RATING]
        return any(_known(w, set(theirs)) for w in topic)
    head = older[:head_end].rstrip(" :=-–>→")
    said = _label(older, old.start) or _label(head, len(head))
    if old.kind == "money" and old.unit and old.unit == new.unit or \
            old.kind == "money" and old.quality and old.quality == new.quality:
        return True
    words_of = set(said) | {_low(w) for w in words(older[f.start:old.start])
                            if _low(w) not in STOP and not any(c.isdigit() for c in w)}
    if old.kind == "money" and len(flds) > 1:  # one item of a price list, named as the list names it
        own = {_low(w) for w in words(older[f.start:old.start]) if _low(w) not in STOP}
        others = {_low(w) for g in flds if g is not f for w in words(older[g.start:g.end])}
        if any(_known(w, own) and not _known(w, others) for w in _label(newer, new.start)):
            return True
    if old.kind == "level":
        words_of |= {w for w in _tokens(older[:head_end] + " " + older[f.start:f.end])
                     if w not in STOP and not w.isdigit()} - {old.unit}
        return bool(words_of - names(older)) and any(_known(w, pool) for w in words_of - names(older))
    return any(_known(w, pool) for w in words_of - ids(older) - names(older))


def _after(text: str, end: int) -> list[str]:
    clause = re.split(r"[,;(]|\.\s", text[end:])[0]
    return [_low(w) for w in words(clause) if _low(w) not in STOP][:2]


def _new_label_known(older: str, newer: str, new: Value) -> bool:
    """Whether what the newer names its value by is known to the older line
    ("house blend now 21 EUR/kg" of the house blend, not the espresso)."""
    if new.kind in ("stage", "often", "rating", "slot", "address", "reading", "terms", "date", "phone"):
        return True
    pool = _tokens(older) | {"gp", "doctor", "arzt", "dr", "landlord", "vermieter", "hausverwaltung",
                             "price", "prices", "preis", "preise", "rate", "satz", "value", "wert",
                             "fee", "fees", "cost", "costs", "kosten", "gebühr", "beitrag"}
    if new.kind == "level":
        pool |= {"reading", "maths", "math"} & _tokens(older)
    key = _key_of(older)
    if key:  # its key in the other language: "Miete" of "Rent"
        pool |= _KEY_WORDS.get(key, frozenset())
    if new.kind == "money":  # "hourly rate … 240 €/h" of "Stundensatz: 220 €/h": the unit said again
        pool |= _UNIT_LABELS.get(new.unit, frozenset())
    label = _label(newer, new.start)
    if new.kind == "dose":  # the drug cut short ("Ibu" of Ibuprofen), said by a doctor ("Dr. Haas: …")
        pool |= ({new.unit} if any(_short_for(new.unit, p) for p in pool) else set()) | _told_by(newer)
    return all(_known(w, pool) or w in _RATING for w in label)


def _other_owner(older: str, newer: str, new: Value) -> bool:
    """Whether the newer says the value is of another thing or person than
    any the older names: another flat, another child, another client."""
    a, b = ids(older), ids(newer)
    if a and b and not a & b:
        return True
    clause = re.split(r"[.;(]\s", newer[:new.start])[-1]
    old_tokens, new_tokens = _tokens(older), _tokens(newer)
    told_by = _told_by(newer)
    old_concepts = concepts(older)
    theirs = {w for w in names(clause) if not _among(w, old_tokens) and w not in told_by and
              not any(_short_for(w, o) for o in old_tokens if len(o) >= 6) and
              not (concepts(w, german=True) & old_concepts) and  # "Oxalsäure" of "oxalic acid"
              w not in _WHAT_NUMBER}  # "neue Nummer", "Kilometerstand": what the value is, no owner
    if new.kind == "reading" and a & b:
        return False  # the plate names the vehicle: "Kilometerstand" is no owner
    ours = {w for w in names(older) if not _among(w, new_tokens)}
    return bool(theirs and ours)


# The German nouns (capitalised, read as names) that say what a number is.
_WHAT_NUMBER = frozenset("""nummer telefonnummer handynummer rufnummer mobilnummer handy telefon festnetz
fax durchwahl kilometerstand tacho tachostand zählerstand adresse anschrift""".split())
_TITLED = re.compile(r"^\s*(?:Dr|Prof)\.?\s+([A-ZÄÖÜ][\w'’-]+)\s*(?::|(says|said|sagt|meint|wants|will))")


def _told_by(text: str) -> set[str]:
    """Who a line says told it, and the verb: "Dr. Haas: Ibu jetzt 600 mg", "Dr. Haas says …"
    (a doctor says, owns nothing)."""
    return {_low(w) for m in _TITLED.finditer(text) for w in m.groups() if w}


def _someone_elses(older: str, newer: str, old: Value) -> bool:
    """Whether an older number or address is of a person the older holds in a role and
    the newer does not name: "Mia's emergency contact is Jonas Weber, +49 170 …" is
    Jonas's number, not Mia's ("Mia has a new phone number: …")."""
    if old.kind not in ("phone", "address"):
        return False
    new_tokens = _tokens(newer)
    return any(h.start < old.start and not h.person & new_tokens for h in _held(older))


def _street_words(text: str) -> set[str]:
    """The words of the addresses a line gives ("Bahnhofstraße 3"): a place, no owner."""
    return {_low(w) for v in values(text) if v.kind == "address" for w in words(text[v.start:v.end])}


def _among(name: str, pool: set[str]) -> bool:
    """A name among words, a German genitive too ("Opas Ramipril" is Opa's)."""
    return name in pool or name + "s" in pool or (name.endswith("s") and name[:-1] in pool)


def _anchored(older: str, newer: str, old: Value) -> bool:
    """Whether the two lines share a name or an identifier (a drug, for a dose)."""
    if ids(older) & ids(newer):
        return True
    if old.kind == "dose":
        return True  # the drug, named on both sides (see _attribute_named)
    key = _key_of(older)
    if key and key in _keys_named(newer):
        return True  # a profile's key, in either language: "Rent: 1,150 €" / "Miete jetzt 1.230"
    new_tokens = _tokens(newer)
    if any(_among(n, new_tokens) for n in names(older) | head_names(older)):  # "Mias" is Mia's
        return True
    # a thing of the glossary's, in either language ("oxalic acid" / "Oxalsäure"), not a generic one
    return bool(concepts(older) & concepts(newer))


@lru_cache(maxsize=16384)
def concepts(text: str, german: bool | None = None) -> frozenset[str]:
    """The glossary's things a line names, in either language, a German compound's
    parts too ("Bad-Fliesen": bathroom, tiles): "c:~tiles~"."""
    ws = tuple(gloss.norm(w) for w in words(text))
    german = is_german(text) if german is None else german
    return frozenset("c:" + c for cs in gloss.read(ws, german=german) for c in cs)


_KEY_WORDS: dict[str, frozenset[str]] = {
    key: frozenset(w for w, attribute in ATTRIBUTE_NOUNS.items() if attribute == key)
    for key in set(ATTRIBUTE_NOUNS.values())}  # an attribute's words, in both languages


def _key_of(text: str) -> str | None:
    """The attribute a key line is of ("Rent: …", "Miete: …" are the rent)."""
    head_end, _ = fields(text)
    return ATTRIBUTE_NOUNS.get(text[:head_end].rstrip(" :=-–>→").strip().lower()) if head_end else None


def _keys_named(text: str) -> set[str]:
    """The attributes a line names by one of their words ("Miete", "rent")."""
    return {ATTRIBUTE_NOUNS[w] for w in _tokens(text) if w in ATTRIBUTE_NOUNS}


def head_names(text: str) -> set[str]:
    """The words of a record's head that name its thing, in any case ("weiss - …",
    "Dad: …"), less the words every record has."""
    head_end, _ = fields(text)
    return {low for w in words(text[:head_end]) if (low := _low(w)) not in STOP and low not in _GENERIC
            and low not in ATTRIBUTE_NOUNS and low not in _ROLE_OF and low not in _TITLES
            and not any(c.isdigit() for c in low) and len(low) > 2 and not _calendar(low)}


@lru_cache(maxsize=16384)
def revalued(older: str, newer: str) -> frozenset[int] | None:
    """The fields of ``older`` (see :func:`fields`) that ``newer`` gives a new
    value of, with those it says again, or None when it gives none — or when
    what would stay cannot be said alone."""
    if older.strip() == newer.strip() or not may_revalue(newer):
        return None
    head_end, flds = fields(older)
    if not flds:
        return None
    cut: set[int] = set()
    role = _role_change(older, newer, head_end, flds)
    if role:
        cut |= role
    let = _let(older, newer, flds)
    if let:
        cut |= let
    for told in (_retimed, _left, _ended_wait):
        found = told(older, newer, flds, head_end)
        if found:
            cut |= found
    changed = bool(cut)
    if not no_change(newer):
        news = values(newer)
        for k, f in enumerate(flds):
            if k in cut:
                continue
            for old in values(older, f.start, f.end):
                same = [n for n in news if _same_kind(old, n)]
                if not same:
                    continue
                if any(n.amount == old.amount for n in same) or \
                        not all(measures.goes_on(old.amount, n.amount, old.kind) for n in same):
                    continue
                if not _anchored(older, newer, old) or _someone_elses(older, newer, old):
                    continue
                if any(_attribute_named(older, flds, head_end, k, old, newer, n) and
                       _new_label_known(older, newer, n) and not _other_owner(older, newer, n)
                       for n in same):
                    cut.add(k)
                    changed = True
                    if old.kind == "address":  # the room at the old address goes with it
                        cut |= {i for i, g in enumerate(flds) if i > k and g.sentence == f.sentence
                                and _WHERE_IN.match(older, g.start)}
                    break
    if not changed:
        return None
    # Fields the newer says again, value for value, go with the rest: "value revised to 36k"
    # beside "CLOSED WON today, 36k".
    news = values(newer)
    for k, f in enumerate(flds):
        olds = values(older, f.start, f.end)
        if k not in cut and olds and all(any(n.kind == o.kind and n.amount == o.amount for n in news)
                                         for o in olds) and _says_only_values(older, f, olds):
            cut.add(k)
    if remainder(older, frozenset(cut)) is None:
        return None
    return frozenset(cut)


# A place within an address: "room 003", "2nd floor", "Raum 12", "Eingang B".
_WHERE_IN = re.compile(r"\s*(?:room|raum|zimmer|floor|etage|stock|building|gebäude|entrance|eingang|"
                       r"suite|\d+(?:st|nd|rd|th)\s+floor|\d+\.\s*(?:og|stock|etage)|og|eg)\b", re.I)


def _says_only_values(text: str, f: Field, vals: list[Value]) -> bool:
    """Whether a field says little beside its values ("value revised to 36k", "36k")."""
    rest = text[f.start:f.end]
    for v in sorted(vals, key=lambda v: -v.start):
        rest = rest[:v.start - f.start] + rest[v.end - f.start:]
    return all(_low(w) in STOP or _low(w) in _NEUTRAL or _low(w) in _GENERIC or _CHANGED.fullmatch(w)
               for w in words(rest))


_PRONOUNS = frozenset("i we he she they it you ich wir er sie es ihr man who which die der das".split())


def remainder(older: str, cut: frozenset[int]) -> str | None:
    """What stays of ``older`` when the fields ``cut`` go: "" when nothing
    does, None when what stays cannot be said alone (a field that begins with
    a pronoun or a participle: "…, taken with food")."""
    head_end, flds = fields(older)
    kept = [f for k, f in enumerate(flds) if k not in cut]
    if not kept:
        return ""
    if not any(values(older, f.start, f.end) or words(older[f.start:f.end]) for f in kept):
        return ""
    # "… moved to freezer #1, shelf 3" without the freezer: in a line with no head, a
    # short field after a cut clause is a detail of it that says nothing alone ("shelf 3"
    # was all a dream kept of a line) — unlike the fields of a record with a head
    # ("Klimt Studio: hourly rate 85 EUR, net 30" keeps "net 30").
    if not older[:head_end].strip():
        for k, f in enumerate(flds):
            if k not in cut and k - 1 in cut and flds[k - 1].sentence == f.sentence and \
                    len(words(older[f.start:f.end])) <= 2 and \
                    len(words(older[flds[k - 1].start:flds[k - 1].end])) >= 4:
                return None
    parts = []
    keyed = _key_of(older) is not None  # "Rent: transferred on the 1st" says whose it is in its key
    for n, f in enumerate(kept):
        piece = older[f.start:f.end].strip()
        first = words(piece)[:1]
        if first and first[0][0].islower() and not (n == 0 and keyed and kept[0].sentence == 0) and \
                (first[0].lower() in _PRONOUNS or
                                                re.fullmatch(r"[a-z]+(?:ed|ing|en)", first[0]) and
                                                first[0].lower() not in ("open", "often")):
            return None
        lead = f.lead if n else ""
        if n and f.lead.startswith(".") and not kept[n - 1].sentence < f.sentence:
            lead = ", "
        if n and kept[n - 1].sentence < f.sentence:
            lead = ". "
        parts.append(lead + piece)
    head = older[:head_end]
    if not head.strip():
        head = ""
    text = head + "".join(parts)
    if kept[0].sentence > 0 and head:  # the head's sentence went: the rest stands by itself
        text = "".join(parts)
    text = text.strip()
    if re.search(r"[.!?]$", older.strip()) and not re.search(r"[.!?]$", text):
        text += "."
    return text


def field_text(text: str, k: int) -> str:
    """The words of a record's field ``k`` (see :func:`fields`)."""
    f = fields(text)[1][k]
    return text[f.start:f.end]


def _roles_named(text: str) -> set[str]:
    return {"role:" + _ROLE_OF[m.lower()] for m in re.findall(rf"\b(?:{_ROLE_WORDS})\b", text, re.I)}


@lru_cache(maxsize=16384)
def anchors(text: str) -> frozenset[str]:
    """What a line can be named by in a later one: its names and identifiers,
    lower-cased, the drugs it gives a dose of, the roles it names someone in."""
    return frozenset(names(text) | head_names(text) | {i.lower() for i in ids(text)} |
                     {v.unit for v in values(text) if v.kind == "dose"} | _drugs_short(text) |
                     concepts(text) |
                     {r for h in _held(text) for r in _roles_named(text) if r == "role:" + h.role} |
                     _things(text, bool(_WAITING.search(text) or _times(text))))


def _things(text: str, timed: bool) -> set[str]:
    """The things a line gives a time or a wait of, by their names' ends (see noun_key)."""
    return {"n:" + noun_key(w) for w in _thing_words(text)} if timed else set()


def said(text: str) -> set[str]:
    """What a line names, to look its records up by (see :func:`anchors`)."""
    return {_low(w) for w in re.findall(r"[\w'’+-]+", text)} | {i.lower() for i in ids(text)} | \
        _roles_named(text) | _things(text, bool(_OVER.search(text) or _times(text))) | \
        _drugs_short(text) | concepts(text)


def _drugs_short(text: str) -> set[str]:
    """The drugs a line gives a dose of, by their first three letters ("Ibu", "Ibuprofen")."""
    return {"rx:" + v.unit[:3] for v in values(text) if v.kind == "dose" and len(v.unit) >= 3}


_CLOSED_NOW = re.compile(r"\b(?:today|heute)\b", re.I)


def settled_now(text: str) -> bool:
    """Whether a line says a deal's stage changed today ("CLOSED WON today, …,
    contract start 1 June"), a day moved ("verschoben auf 27.12.") or a wait
    over ("angenommen, Start im September"): true at once, whatever day the
    rest names."""
    if measures.MOVED.search(text):  # "verschoben auf 27.12.": moved now, whatever day it names
        return True
    if _OVER.search(text) and not _FUTURE.search(text) and not no_change(text):
        return True  # "angenommen, Start im September": accepted now, whenever it starts
    return bool(_CLOSED_NOW.search(text)) and any(v.kind == "stage" for v in values(text))


@lru_cache(maxsize=16384)
def may_revalue(newer: str) -> bool:
    """A cheap first look: whether a line says a change a record could take."""
    return bool(_CHANGED.search(newer) or _LEAVES.search(newer) or _LET.search(newer)
                or _ENDED_ROLE.search(newer) or _LEFT_VALUE.search(newer) or _OVER.search(newer)
                or measures.MOVED.search(newer)  # "postponed to June 27"
                or any(v.kind == "reading" for v in values(newer)))  # a counter read again


__all__ = ["Field", "Value", "anchors", "field_text", "fields", "ids", "may_revalue", "names", "no_change",
           "number", "remainder",
           "revalued",
           "said", "settled_now", "values"]
