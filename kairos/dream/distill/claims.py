"""Reading a line into claims: who it is about, which attribute, what value.

A line is split into clauses (at ";", "but", "sondern", and at "and" before
a verb); each clause gives a :class:`Claim`: its subject ("Mia", "Mia's dog",
"I", "the project deadline", "Jonas' Team", a ``Key:`` line's user), the
attribute it states (from :mod:`~kairos.dream.distill.lexicon`: where one lives,
who employs one, what one is called, a quantity and its unit, the class of
thing one uses …), the value, and its markers (negated, a change, a
reversal, an addition, a dated past event).  English and German.  Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from functools import lru_cache

from kairos.dream.distill.lexicon import (
    ADDED,
    ADVERBS,
    AGAIN,
    ARTICLES,
    ATTRIBUTE_NOUNS,
    AUX_EN,
    CHANGE,
    CLASSES,
    CLAUSE_BREAK,
    COPULA,
    CORRECTION,
    DATED_PAST,
    ENDING,
    EVENT_NOUNS,
    GONE,
    HEALTH,
    KEY_ATTRIBUTES,
    KEY_EQUALS,
    KEY_LINE,
    LEXICAL_AUX,
    MANY_KEYS,
    MARKERS,
    NEG_PHRASES,
    NEG_WORDS,
    NUMBER_TOKEN,
    OCCUPATIONS,
    PAST_EN,
    PERSON_NOUNS,
    PLACEISH,
    POSSESSIVE_PRONOUNS,
    PRONOUNS_EN,
)
from kairos.dream.distill.when import QUOTED, is_calendar
from kairos.dream.distill.words import (
    EN_VERB_FORMS,
    IRREGULAR_EN,
    PARTICIPLES_EN,
    STOP,
    STOP_DE,
    is_german,
    spelling,
    stem,
    words,
)


@dataclass(frozen=True)
class Claim:
    """One statement of a line about one subject."""

    subjects: frozenset[str]
    owner: str | None = None
    attribute: str | None = None
    value: tuple[str, ...] = ()
    verb: str = ""
    content: frozenset[str] = frozenset()
    negated: bool = False
    change: bool = False
    again: bool = False
    added: bool = False
    dated_past: bool = False
    event: bool = False
    many: bool = False
    frame: tuple[str, ...] = ()
    classes: frozenset[str] = frozenset()
    negates: frozenset[str] = frozenset()  # the stems a negation applies to
    past: bool = False  # told in the past tense
    plan: bool = False  # a change to come: "will switch to", "is going to move to"
    corrects: bool = False  # "Correction: …": the line corrects what was said before
    wrong: frozenset[str] = frozenset()  # what "…, not X" says was wrong (stems)
    corrects_marked: bool = False  # said to be a correction ("Correction:", "Sorry,")
    key: str = ""  # the key of a ``Key: value`` line ("project falcon launch deadline")
    hedged: bool = False  # a doubt or a wish, or what is around a change, not the change
    text: str = field(default="", compare=False)


def _norm_subject(word: str) -> str:
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    elif w.endswith("'"):
        w = w[:-1]
    return spelling(w)


def _possessive(tok: str, nxt: str | None, german: bool) -> bool:
    t = tok.replace("’", "'")
    if t.endswith(("'s", "s'")) and len(t) > 2:
        return True
    # German genitive of a name: "Lenas Hund heißt …"
    return (german and t[0].isupper() and t.endswith("s") and len(t) > 3 and nxt is not None
            and nxt[0].isupper())


def _is_verb(tok: str, german: bool, context: str) -> bool:
    """Whether a token is the finite verb, given what came before it:
    ``start``, ``name`` (a name or pronoun), ``possessive`` (right after one),
    ``head`` (a singular noun) or ``heads`` (a plural noun)."""
    w = tok.lower().replace("’", "'")
    if german:  # nouns are capitalised: "und wohnt jetzt in Köln" begins with its verb
        return tok[0].islower() and (context != "start" or w not in STOP) and (
            w not in STOP or w in ("ist", "sind", "hat", "haben", "war", "wird", "wurde", "bin",
                                   "habe", "waren", "hatte"))
    if w in AUX_EN or w.endswith("n't"):
        return True
    if context in ("possessive", "start") or not tok[0].islower() or w in STOP:
        return False
    base = EN_VERB_FORMS.get(w)
    if base is not None and not w.endswith("ing"):
        forms = IRREGULAR_EN.get(base)
        if context in ("name", "heads"):
            return True
        return forms is not None and w in (forms[0], forms[1]) and w != base
    if re.fullmatch(r"[a-z]+(?:s|ed)", w) and not w.endswith(("ss", "ous", "is", "us")):
        return context in ("name", "head", "heads")
    return False


@dataclass
class _Clause:
    subjects: set[str]
    owner: str | None
    head: str  # the noun phrase's head words after a possessive ("phone number")
    verb: str
    verb_raw: str
    rest: list[str]  # tokens after the verb
    tokens: list[str]
    text: str
    first: str = ""  # the first name of the subject, for "she", "her" in later clauses
    lexical_rest: list[str] = field(default_factory=list)  # tokens after the lexical verb
    apposition: bool = False  # "Mia's partner Jonas …": the head names someone, not a slot
    perfect: str = ""  # German Perfekt: the participle ("aufgehört", "verkauft")

    def owner_is_thing(self) -> bool:
        """Whether the subject is a thing someone has ("Mia's dog", "the
        deadline"), not a person."""
        return bool(self.head) and self.head.split()[-1] not in PERSON_NOUNS


def _parse_clause(text: str, german: bool, main: str | None) -> _Clause | None:
    toks = words(text)
    if not toks:
        return None
    i = 0
    subjects: set[str] = set()
    owner: str | None = None
    head: list[str] = []
    names: list[str] = []
    appositions: list[str] = []
    context = "start"
    first = toks[0].lower().replace("’", "'")
    if first in PRONOUNS_EN and not (german and first == "sie" and len(toks) > 1 and toks[1][0].isupper()):
        ref = PRONOUNS_EN[first]
        subjects.add(main if ref == "@main" and main else ref)
        i, context = 1, "name"
    elif first in POSSESSIVE_PRONOUNS:
        ref = POSSESSIVE_PRONOUNS[first]
        owner = main if ref == "@main" and main else ref
        i, context = 1, "possessive"
    elif first in ARTICLES:
        i = 1
    while i < len(toks):
        tok = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        low = tok.lower().replace("’", "'")
        if context != "possessive" and _is_verb(tok, german, context):
            break
        if _possessive(tok, nxt, german):
            own = _norm_subject(tok)
            if names and not head:
                own = " ".join([*(_norm_subject(n) for n in names), own])
            owner = f"{owner}'s {' '.join(head)} {own}".strip() if owner and head else own
            names, head = [], []
            i, context = i + 1, "possessive"
            continue
        if low in ("and", "und", "&") and names and not head:
            names.append("and")
            i += 1
            continue
        if not german and low in ADVERBS and context != "possessive":
            i += 1
            continue
        if low in ("new", "neue", "neuer", "neuen", "neues", "current", "old", "former", "ex",
                   "aktuelle", "aktueller", "alte", "alter"):
            i += 1
            continue
        if not german and low in ("at", "in", "bei", "of", "from", "with") and (head or names) and \
                nxt and nxt[0].isupper():
            i += 1  # "manager at Siemens", "team at Zalando": the organisation is a detail
            while i < len(toks) and toks[i][0].isupper():
                i += 1
            continue
        if NUMBER_TOKEN.match(tok) and names and not head and len(tok) <= 3 and \
                re.search(rf"{re.escape(names[-1])}\s*[,(]\s*{tok}\s*[,)]", text):
            i += 1  # "Mia, 34, lives in Berlin", "Mia (34)": her age beside her name
            continue
        if NUMBER_TOKEN.match(tok) and head:
            head.append(low)  # "bike number 3", "room 12": the number names which one
            i += 1
            continue
        if tok.isupper() and len(tok) > 1 and low in ATTRIBUTE_NOUNS and context == "possessive":
            head.append(low)  # "Lena's GP": a head noun, not a name
            context = "head"
            i += 1
            continue
        if tok[0].isupper() or NUMBER_TOKEN.match(tok):
            if head and not german:
                subjects.add(_norm_subject(tok))  # an apposition: "sister Anna"
                appositions.append(tok)
                context = "name"
            elif german and (head or owner or names) and context != "name-de":
                head.append(low)  # German nouns are capitalised: "Jonas' Hund", "Die Miete"
                context = "heads" if low.endswith(("s", "er", "en")) else "head"
            else:
                names.append(tok)
                context = "name"
            i += 1
            continue
        if low in STOP and context != "possessive":
            break
        head.append(low)
        context = "heads" if low.endswith("s") and not low.endswith("ss") else "head"
        i += 1
    if i >= len(toks):
        return None
    verb_at = i
    verb_raw = toks[i].lower().replace("’", "'")
    lexical = verb_raw
    if not german:
        j = i + 1
        if verb_raw in LEXICAL_AUX or verb_raw.endswith("n't"):
            while j < len(toks) and toks[j].lower() in ("not", "no", "longer", "ever", "really",
                                                        "even"):
                j += 1
            if j < len(toks) and toks[j].lower() in EN_VERB_FORMS:
                lexical = toks[j].lower()
        elif verb_raw in ("is", "are", "am", "was", "were", "'s") and j < len(toks):
            while j < len(toks) and toks[j].lower() in ADVERBS:
                j += 1
            if j < len(toks) and toks[j].lower().endswith("ing") and toks[j].lower() in EN_VERB_FORMS:
                lexical = toks[j].lower()
        elif verb_raw in ("has", "have", "had") and j < len(toks):
            while j < len(toks) and toks[j].lower() in ADVERBS:
                j += 1
            nxt_low = toks[j].lower() if j < len(toks) else ""
            if nxt_low in EN_VERB_FORMS and (nxt_low.endswith("ed") or nxt_low in (
                    "grown", "gone", "been", "left", "quit", "sold", "begun", "become")):
                lexical = nxt_low
    rest = toks[verb_at + 1:]
    perfect = ""
    if german and verb_raw in ("hat", "haben", "ist", "sind", "habe", "bin", "hatte") and rest:
        last = rest[-1]
        if last[0].islower() and (re.match(r"^\w{0,7}ge\w{2,}(?:t|en)$", last) or
                                  re.match(r"^(?:ver|be|er|ent|zer|über|um)\w{3,}t$", last)):
            perfect = last
            lexical = last
    if names:
        named = [n for n in names if n != "and"]
        subjects.update(_norm_subject(n) for n in named) if "and" in names else \
            subjects.add(" ".join(_norm_subject(n) for n in named))
    if owner and head:
        subjects.add(f"{owner}'s {' '.join(head)}")
    elif head and not owner and not subjects:
        subjects.add(" ".join(head))
    elif owner and not head and not subjects:
        subjects.add(owner)
    if not subjects:
        return None
    first_name = _norm_subject(names[0]) if names else (sorted(subjects)[0] if subjects else "")
    if owner and not names:
        first_name = owner
    lexical_rest = rest
    if lexical != verb_raw and lexical in [t.lower() for t in rest]:
        lexical_rest = rest[[t.lower() for t in rest].index(lexical) + 1:]
    return _Clause(subjects, owner, " ".join(head), _verb_stem(lexical, german), verb_raw, rest, toks,
                   text, first_name, lexical_rest, bool(appositions), perfect)


def _split(text: str, german: bool) -> list[str]:
    """Clauses: at ";", " — ", "but", "sondern", "stattdessen", "instead", and at
    "and"/"und" before a verb or a pronoun."""
    out = []
    for piece in CLAUSE_BREAK.split(text):
        if not piece or not piece.strip(" ,."):
            continue
        toks = piece.split(" ")
        start = 0
        for k in range(1, len(toks) - 1):
            if toks[k].lower() in ("and", "und"):
                nxt = toks[k + 1].strip(",.")
                if not nxt:
                    continue
                low = nxt.lower()
                if not german and low in ADVERBS and k + 2 < len(toks):  # "and now lives in"
                    nxt = toks[k + 2].strip(",.")
                    low = nxt.lower() if nxt else low
                if low in PRONOUNS_EN or (german and nxt[0].islower() and low not in STOP) or (
                        not german and _is_verb(nxt, False, "name")):
                    out.append(" ".join(toks[start:k]))
                    start = k + 1
        out.append(" ".join(toks[start:]))
    return [p for p in out if p.strip(" ,.")]


def _verb_stem(word: str, german: bool) -> str:
    w = word.lower().replace("’", "'")
    if w.endswith("n't"):
        w = w[:-3] or w
        w = {"does": "do", "do": "do", "did": "do", "is": "be", "was": "be", "has": "have",
             "wo": "will", "ca": "can"}.get(w, w)
    return stem(w)


def _value_tokens(rest: list[str]) -> list[str]:
    out = []
    for w in rest:
        low = w.lower()
        if (low in STOP or low in MARKERS or low in NEG_WORDS) and not (w[0].isupper() and len(w) > 2
                                                                          and low not in STOP_DE):
            continue
        out.append(spelling(low))
    return out


# One pattern per class, longest phrases first ("secondary school" before "school").
_CLASS_PATTERNS = {
    cls: re.compile(r"(?<![\w-])(?:" + "|".join(
        re.escape(p) for p in sorted((p for p, c in CLASSES.items() if c == cls), key=len, reverse=True))
        + r")(?![\w-])")
    for cls in sorted(set(CLASSES.values()))}
_MULTIWORD = re.compile(r"(?<![\w-])(?:" + "|".join(
    re.escape(p) for p in sorted((p for p in CLASSES if " " in p or "-" in p), key=len, reverse=True))
    + r")(?![\w-])")


def _class_value(text_low: str, cls: str) -> list[str]:
    """The longest phrases of a class a text names ("secondary school", not "school")."""
    return sorted(set(_CLASS_PATTERNS[cls].findall(text_low)))


_PLAN = re.compile(r"\b(?:will|shall|going to|plans? to|planning to|wird|werden)\s+(?:\w+\s+)?"
                   r"(?:switch|change|move|start|join|go|attend|transfer|wechseln|umziehen|ziehen|"
                   r"anfangen|gehen)\w*\b")
# A change only thought of: "is thinking about moving to Hamburg", "might switch".
_HEDGED = re.compile(r"\b(?:thinking (?:about|of)|considering|consider|might|may (?=be\b|move|switch|"
                     r"change|start|join|go\b)|could|wants? to|"
                     r"hopes? to|would like to|dreams? of|überlegt|denkt (?:darüber )?nach|vielleicht|"
                     r"möchte|will (?:vielleicht|eventuell)|"
                     # doubts, however worded: "wonders whether to move", "is tempted to quit"
                     r"wonder(?:s|ed|ing)? (?:whether|if|about)|debat(?:e|es|ed|ing) (?:whether|about)|"
                     r"unsure|not sure|undecided|uncertain|toy(?:s|ed|ing)? with|talk(?:s|ed|ing)? about|"
                     r"tempted|fantasi[sz](?:e|es|ed|ing)|daydream\w*|would have|threaten(?:s|ed|ing)? to|"
                     r"(?:almost|nearly) (?!\d)(?!\w+ (?:years?|months?|weeks?|days?|hours?)\b)[a-z]+|"
                     r"came close to|wanted to|hätte|(?:wäre|ist|hat|war|hatte) fast|beinahe|kurz davor|"
                     r"weigh(?:s|ed|ing)? (?:up|whether|an? |the |her |his )|"
                     r"eventuell|möglicherweise|erwägt|spielt mit dem gedanken|träumt davon|unsicher|"
                     # what happens around a job or a move that is not the change:
                     # "applied for a job at SAP", "was offered", "helped Marta move"
                     r"appl(?:y|ies|ied|ying) (?:for|to)|offered|(?<!accepted )an offer|interview\w*|"
                     r"jok(?:e|es|ed|ing)|"
                     r"help(?:s|ed|ing)? (?!(?:her|him|them)self)\w+ (?:to )?(?:move|pack|settle)|"
                     r"turn(?:s|ed|ing)? down|declin(?:e|es|ed|ing)|refus(?:e|es|ed|ing) to|"
                     r"bewirbt|beworben|abgelehnt|tr(?:y|ies|ying) out|is trying (?!to\b)|probiert)\b",
                     re.I)
_NAMED = re.compile(r"\b(?:called|named|namens|hei(?:ß|ss)t)\s+([\w-]+)")


def _classes(text_low: str, tokens: list[str]) -> set[str]:
    """The classes of thing a text names — but a name is not a thing: the
    cat "called Pixel" is no phone, the dog "named Golf" no car."""
    names = set(_NAMED.findall(text_low))
    # A class word before an event noun names the event, not the thing: a
    # "school trip" is no change of school, a "phone call" no new phone.
    found = {CLASSES[t] for n, t in enumerate(tokens) if t in CLASSES and t not in names
             and not (n + 1 < len(tokens) and tokens[n + 1] in EVENT_NOUNS)}
    # German compounds: a "Grundschule", a "Musikgymnasium" is a school.
    found.update("school" for t in tokens if t.endswith(("schule", "gymnasium")) and t not in names)
    found.update(CLASSES[m] for m in _MULTIWORD.findall(text_low))
    return found


def claims_of(text: str, names: frozenset[str] = frozenset()) -> list[Claim]:
    """The claims of a line (see the module docstring).  ``names`` are the
    user's own names ("mia"): a line about them is about "@user"."""
    return list(_claims(text, frozenset(names)))


@lru_cache(maxsize=16384)
def _claims(text: str, names: frozenset[str]) -> tuple[Claim, ...]:
    # "Correction: Sam's sister visited on 28 February, not 1 March": the
    # line after the marker, a change of what was said before.
    # "…, not 6" at the end says what it corrects, and is no part of the value.
    marked, tail = CORRECTION.match(text), _NOT_TAIL.search(text)
    body = text[marked.end() if marked else 0:tail.start() if tail else len(text)].strip()
    if (marked or tail) and body:
        wrong = frozenset(stem(spelling(w.lower())) for w in words(tail.group(0))[1:]
                          if w.lower() not in STOP) if tail else frozenset()
        return tuple(dataclasses.replace(c, corrects=True, corrects_marked=bool(marked), wrong=wrong)
                     for c in _read_claims(body, names))
    claims = _read_claims(text, names)
    if _SOLD_AND_BOUGHT.search(text):  # "sold her old bike and bought a new one": she has one still
        claims = [dataclasses.replace(c, negated=False) if "sold" in c.text.lower() else c
                  for c in claims]
    return tuple(claims)


_SOLD_AND_BOUGHT = re.compile(r"\b(?:sold|verkauft)\b[^.;]*\b(?:bought|got|gekauft)\b[^.;]*"
                              r"\b(?:new|neue[nrsm]?)\b", re.I)
_FRONT_EN = re.compile(r"^\s*((?i:from|since|starting|as of)\s+(?:\d{1,2}(?:st|nd|rd|th)?\s+)?"
                       r"[A-Z][a-z]+(?:\s+\d{1,2}(?:st|nd|rd|th)?)?(?:\s+\d{4})?)\s*,?\s+(?=[A-Z])"
                       r"(.+?)([.!]?)\s*$")
_FRONT_DE = re.compile(r"^\s*((?:ab|seit)\s+(?:(?:dem\s+)?\d{1,2}\.\s*)?[A-Za-zäöüÄÖÜ]+(?:\s+\d{4})?)"
                       r"\s+([a-zäöüß]+)\s+([A-ZÄÖÜ][\w-]+)\s+(.+?)([.!]?)\s*$", re.I)


def _fronted(text: str) -> str:
    """A time put first, read as if it came last: "From 1 February Lena lives
    in Hamburg" as "Lena lives in Hamburg from 1 February"; "Ab 1. Februar
    wohnt Lena in Köln" as "Lena wohnt in Köln ab 1. Februar"."""
    m = _FRONT_DE.match(text)
    if m and m.group(2).islower() and m.group(3)[0].isupper():
        front = m.group(1)[0].lower() + m.group(1)[1:]
        return f"{m.group(3)} {m.group(2)} {m.group(4)} {front}{m.group(5)}"
    m = _FRONT_EN.match(text)
    if m:
        front = m.group(1)[0].lower() + m.group(1)[1:]
        return f"{m.group(2)} {front}{m.group(3)}"
    return text


_NOT_TAIL = re.compile(r",\s*(?:not|nicht)\s+[^,;:]{1,40}?[.!]?\s*$", re.I)


# English contractions, spelled out before a line is read: "I've moved to
# Vienna" has the subject "I", "Felix's moved" is "Felix has moved".
_PRONOUN_CONTRACTION = re.compile(r"\b(I|[Yy]ou|[Ww]e|[Tt]hey)['’](m|ve|re|ll)\b")
_SPELLED = {"m": "am", "ve": "have", "re": "are", "ll": "will"}
_NAME_CONTRACTION = re.compile(
    r"\b([Hh]e|[Ss]he|[Ii]t|[A-Z][\w-]+)['’]s\s+((?:(?:now|also|still|just|finally|recently|already|"
    r"no longer|not|never)\s+)*)(\w+)(?![\w-])(\s+\w+)?")
_AFTER_PARTICIPLE = frozenset("""to from into out in on at back away up down off over a an the her
his their my its our your this that these those""".split())


def _spelled_out(text: str) -> str:
    """The line with its English contractions spelled out: "I'm" → "I am",
    "I've" → "I have", "she's" → "she is" (or "has" before a participle), and
    a name's "'s" that is a verb's, not a possessive: "Felix's moved to
    Vienna" → "Felix has moved …", "Mia's a nurse" → "Mia is a nurse";
    "Mia's married sister" stays Mia's."""
    text = _PRONOUN_CONTRACTION.sub(lambda m: f"{m.group(1)} {_SPELLED[m.group(2)]}", text)

    def verb(m: re.Match[str]) -> str:
        who, adverbs, word, after = m.group(1), m.group(2), m.group(3), m.group(4) or ""
        low, nxt = word.lower(), after.strip().lower()
        pronoun = who.lower() in ("he", "she", "it")
        participle = low in PARTICIPLES_EN or (low.endswith("ed") and (not nxt or nxt in _AFTER_PARTICIPLE))
        if participle and (pronoun or adverbs or not nxt or nxt in _AFTER_PARTICIPLE):
            return f"{who} has {adverbs}{word}{after}"
        if pronoun or adverbs or low in ("a", "an", "the", "back", "from", "in", "at", "on", "with"):
            return f"{who} is {adverbs}{word}{after}"
        return m.group(0)

    return _NAME_CONTRACTION.sub(verb, text)


_OWNED_KEY = re.compile(r"[A-ZÄÖÜ][\w-]*['’]s\s+[a-z]")


def _read_claims(text: str, names: frozenset[str]) -> list[Claim]:
    aliases = {n.lower() for n in names}
    text = _fronted(text)
    if "'" in text or "’" in text:
        text = _spelled_out(text)
    # "Anna, Lena's sister, moved …", "Anna (Lena's sister) moved …": "Lena's sister Anna moved …"
    text = _APPOSITION.sub(lambda m: f"{m.group(2)} {m.group(1)} ", text)
    # A quoted title is one name: 'Leave No Trace' negates nothing.
    text = QUOTED.sub(lambda m: " " + "_".join(words(m.group(0))) + " ", text)
    german = is_german(text)
    key = KEY_LINE.match(text) or KEY_EQUALS.match(text)
    if key and _TOLD_BY.search(key.group(1)):
        # "Anna called: she moved to Leipzig": what Anna said, two sentences, no key.
        text = f"{key.group(1)}. {key.group(2)[:1].upper()}{key.group(2)[1:]}"
        key = None
    if key and _OWNED_KEY.match(key.group(1)):
        # "Mia's phone: iPhone 16" says what "Mia's phone is iPhone 16" says.
        text = f"{key.group(1)} is {key.group(2)}"
        key = None
    if key and len(key.group(1).split()) <= 4 and not re.match(
            r"\s*(?:important|system|assistant|note to|wichtig|hinweis)", text, re.I):
        return [_key_claim(key.group(1), key.group(2), aliases)]
    out: list[Claim] = []
    main: str | None = None
    previous: _Clause | None = None
    # "Karl is no longer Mia's boss; her new boss is Eva": "her" is the user the line names.
    mentions_user = any(re.search(rf"\b{re.escape(a)}(?:'s|s'|')?\b", text, re.I) for a in aliases)
    pieces = _split(text, german)
    for piece in pieces:
        piece = piece.strip(" ,.")
        piece_low = piece.lower()
        lead = re.match(r"^(?:but|and|so|sondern|stattdessen|aber|und|instead)\b\s*", piece_low)
        body = piece[lead.end():] if lead else piece
        if not german and previous is not None:  # "and now lives in Cologne": the verb after "now"
            adverb = re.match(r"^(\w+)\s+", body)
            if adverb and adverb.group(1).lower() in ADVERBS:
                body = body[adverb.end():]
        if previous is not None and re.match(r"(?:who|which|welche[rs]?|die|der)\s+[a-zäöüß]", body):
            continue  # "her aunt, who moved to Hamburg": the aunt's, not the line's subject's
        first_tok = words(body)[:1]
        starts_with_verb = bool(first_tok) and previous is not None and \
            first_tok[0][0].islower() and _is_verb(first_tok[0], german, "name") and \
            (not german or first_tok[0].lower() not in STOP)  # "und wohnt jetzt in Köln"
        clause = _parse_clause(body, german, _referent(body, previous, main, german)) \
            if body and not starts_with_verb else None
        if clause is None and previous is not None:
            # ellipsis: "…, sondern bei Audi", "stattdessen Tee", "and joined Zalando"
            toks = words(body)
            if toks and toks[0].lower() not in STOP and _is_verb(toks[0], german, "name"):
                clause = _Clause(set(previous.subjects), previous.owner, previous.head,
                                 _verb_stem(toks[0], german), toks[0], toks[1:], toks, body,
                                 lexical_rest=toks[1:])
            else:
                clause = _Clause(set(previous.subjects), previous.owner, previous.head,
                                 previous.verb, previous.verb_raw, toks, toks, body)
        elif clause is not None and previous is not None and not clause.subjects - {"@main"}:
            clause.subjects = set(previous.subjects)
        if clause is None:
            continue
        subjects = {("@user" if s in aliases else s) for s in clause.subjects}
        subjects = {s.replace(f"{a}'s", "@user's") for s in subjects for a in (aliases or {""}) if a} \
            | subjects if aliases else subjects
        if clause.owner in aliases:
            clause.owner = "@user"
        clause.subjects = subjects
        if main is None:
            main = "@user" if clause.first in aliases or mentions_user else clause.first
        out.append(_claim(clause, piece, text, german))
        previous = clause
    return out


_APPOSITION = re.compile(r"^([A-ZÄÖÜ][\w-]+)(?:, | \()([A-ZÄÖÜ][\w-]*(?:'s|s'|’s) [a-z][\w-]*)(?:, |\) )")
_TOLD_BY = re.compile(r"\b(?:called|calls|rang|said|says|told|tells|wrote|writes|texted|texts|mentioned|"
                      r"reported|rief an|ruft an|sagte|sagt|schrieb|schreibt|meinte|erzählte)\b", re.I)
# Meeting or hearing from someone: a "she" after it may be either of the two.
_MET = re.compile(r"\b(?:met|meets|meeting|called|calls|visited|visits|saw|sees|spoke|speaks|talked|"
                  r"talks|texted|texts|heard from|had (?:lunch|dinner|coffee|a call) with|traf|trifft|"
                  r"besuchte|besucht|telefonierte|telefoniert|sprach|getroffen)\b[^.;]*?(?:\b[A-ZÄÖÜ][a-zäöüß]+|"
                  r"\b(?:her|his|their|ihre[mnr]?|seine[mnr]?|mit) (?:\w+ )?(?:"
                  + "|".join(sorted(PERSON_NOUNS, key=len, reverse=True)) + r"|in-laws|parents|eltern)\b)")


_MET_DE = re.compile(r"\b(?:mit|bei) (?:ihre[mnr]?|seine[mnr]?|der|dem|den) (?:\w+ )?\w+\b[^.;]*\b"
                     r"(?:telefoniert|gesprochen|getroffen|geredet|geschrieben|gewesen)\b|"
                     r"\b(?:ihre[mnrs]?|seine[mnrs]?) (?:\w+ )?\w+\b[^.;]*\b"
                     r"(?:geschrieben|gemailt|angerufen|telefoniert|besucht)\b|"
                     r"\b(?:hat|hatte) (?:ihre[mnr]?|seine[mnr]?) (?:\w+ )?\w+ "
                     r"(?:besucht|getroffen|angerufen)\b",
                     re.I)


# A relative one was with, in the clause before: "skyped with her aunt", "war bei ihren
# Eltern", "bei den Schwiegereltern" (not "took her son to school").
_RELATIVE_BEFORE = re.compile(r"\b(?:with|mit|bei|to|an|visited|called|rang|skyped|phoned|e?-?mailed|"
                              r"messaged|texted|wrote to|besuchte|from|von)\s+"
                              r"(?:her|his|their|ihre[mnrs]?|seine[mnrs]?|den|die|der|dem) (?:\w+ )?(?:"
                              + "|".join(sorted(PERSON_NOUNS, key=len, reverse=True))
                              + r"|in-laws|parents|eltern|schwiegereltern|mutter|vater|schwester|bruder|tante"
                              r"|onkel|oma|opa|omi|großmutter|großvater|grandma|grandpa|granny|nan)\b",
                              re.I)


_PLURAL_DE = frozenset({"sind", "waren", "haben", "hatten", "ziehen", "zogen", "wohnen", "wohnten"})


def _referent(body: str, previous: _Clause | None, main: str | None, german: bool) -> str | None:
    """Whom a pronoun opening a clause stands for: the line's main subject,
    but "they" after a clause about others is those others ("Lena's parents
    sold their house; they moved to Leipzig"), and "she" after meeting
    someone is no one for sure ("Lena met Marta. She moved to Rome.")."""
    tokens = body.split()
    first = tokens[0].lower() if tokens else ""
    if previous is None or first not in PRONOUNS_EN or PRONOUNS_EN[first] != "@main":
        return main
    others = sorted(s for s in previous.subjects if s not in ("@user", main))
    if others and main not in previous.subjects:
        return others[0]  # "Lena's mother called. She moved …": the mother
    if re.search(r"\b(?:herself|himself)\b", body, re.I) and not re.search(r"\bby (?:her|him)self\b",
                                                                              body, re.I):
        return main  # "Lena visited her parents. She moved to Hamburg herself"
    if first == "sie" and len(tokens) > 1 and tokens[1].lower() in _PLURAL_DE:
        return "@someone"  # "Sie sind nach Hamburg gezogen": more than the one user
    if first in ("she", "he", "er", "sie", "they") and (_MET.search(previous.text)
                                                        or _MET_DE.search(previous.text)
                                                        or _RELATIVE_BEFORE.search(previous.text)):
        return "@someone"
    return main


# A key line's value that comes in addition to the key's others.
_ADDS = re.compile(r"\s*(?:now\s+|jetzt\s+)?(?:added|adding|also|plus|additionally|another|"
                   r"as\s+well|zusätzlich|auch|außerdem|dazu|neu\s+dazu|noch)\b", re.I)


# Words for someone a key line may tell of, besides :data:`PERSON_NOUNS`.
_FAMILY_KEYS = frozenset("""mama papa mami papi mutti vati omi opi oma opa mummy mommy daddy granny grandma
    grandpa nan nana gran stepmother stepfather stepmum stepdad schwiegermutter schwiegervater""".split())
# Someone one has one of at a time, whose key line's value may be who it is now.
_ROLES = frozenset("""boss manager partner partnerin wife husband girlfriend boyfriend fiance fiancee
    chef chefin frau mann team""".split())
# A value that is a name: "Tom Becker", "Dr. Wendt", "Priya".
_A_NAME = re.compile(r"(?:(?:Dr|Prof|Frau|Herr|Mr|Mrs|Ms)\.?\s+)?"
                     r"[A-ZÄÖÜ][\w'’-]*(?:\s+[A-ZÄÖÜ][\w'’-]*){0,2}\.?")


def _about_someone(key: str, value: str, aliases: set[str]) -> bool:
    """Whether a key line tells of someone — "Mama: Penicillin-Allergie", "Lena:
    piano on Fridays", "Tante Rosi: wohnt in Linz" — rather than giving an
    attribute its one value ("Manager: Tom Becker", "Rent: 1,150 €").  Such a
    line's values are many: a second line of the same person is another fact,
    and only a value told again with one slot changed replaces it ("Mama:
    Ramipril 5 mg" -> "Mama: Ramipril 10 mg")."""
    ws = words(key)
    if not ws:
        return False
    first = ws[0].lower()
    if first in _ROLES:  # "Manager: Tom Becker", "Manager: Dirk (Petra left)" name who it is
        return _A_NAME.fullmatch(re.split(r"\s*[(,;–]|\s+-\s", value, maxsplit=1)[0].strip(" .")) is None
    if first in PERSON_NOUNS or first in _FAMILY_KEYS:
        return True  # one's mother is not replaced: "Sister: Anna" and "Sister: Lena" are two sisters
    if key.strip().lower() in {a.lower() for a in aliases}:
        return True
    # A name alone as the key, and a statement after it, not a value: "Lena: swimming on Wednesdays".
    return len(ws) == 1 and ws[0][:1].isupper() and not ws[0].isupper() and value.strip()[:1].islower() \
        and ws[0].lower() not in ATTRIBUTE_NOUNS and ws[0].lower() not in KEY_ATTRIBUTES


def _key_claim(key: str, value: str, aliases: set[str]) -> Claim:
    k = " ".join(spelling(w.lower()) for w in words(key))
    # "New address: …" is the address, changed.
    renewed = re.match(r"(?:new|current|neue[rs]?|aktuelle[rs]?|jetzige[rs]?) (.+)$", k) or \
        re.match(r"(.+?) (?:now|currently|jetzt|aktuell|neu)$", k)  # "meeting time now: after 2pm"
    if renewed:
        k = renewed.group(1)
    attr = ATTRIBUTE_NOUNS.get(k) or KEY_ATTRIBUTES.get(k)
    someone = _about_someone(key, value, aliases)
    if someone:
        attr = None  # "Mother: lives in Graz" tells of her; "Mother: Hilde" would be her name
    if attr == "phone number" and len(re.findall(r"\d", value)) < 5:
        attr = "uses:phone"  # "Phone: Pixel 7" is the phone one uses, not its number
    singular = k[:-1] if k.endswith("s") and not k.endswith("ss") else k
    many = someone or k in MANY_KEYS or singular in MANY_KEYS or (attr is None and k.endswith("s") and not
                                                                  k.endswith("ss") and singular not in
                                                                  ATTRIBUTE_NOUNS)
    value_toks = _value_tokens(words(re.sub(r"\(.*?\)", " ", value)))
    if attr is None and k.startswith(("favorite ", "favourite ", "lieblings")):
        attr = "favorite " + k.split(" ", 1)[-1] if " " in k else k
    if attr is None and k.startswith("lieblings"):
        attr = k
    low = value.lower()
    # "Leo: added English, Thursdays" beside "Leo: maths, Tuesdays": a value
    # said to come in addition replaces none.
    return Claim(frozenset({"@user"}), None, attr or f"key:{singular}", tuple(value_toks), "",
                 frozenset(stem(w) for w in value_toks), negated=bool(NEG_PHRASES.search(low)),
                 change=bool(CHANGE.search(low)) or bool(renewed), many=many and attr is None,
                 added=bool(_ADDS.match(value) or ADDED.search(low)),
                 frame=tuple(stem(w) for w in value_toks),
                 classes=frozenset(_classes(low, [w.lower() for w in words(value)])), key=k, text=value)


def _claim(c: _Clause, piece: str, line: str, german: bool) -> Claim:
    low = piece.lower()
    rest_low = [w.lower().replace("’", "'") for w in c.rest]
    verb = c.verb
    raw = c.verb_raw.lower().replace("’", "'")
    plain = _LEFT_SOMEWHERE.sub("put", low)  # "left her keys at the office": put down, not given up
    negated = bool(NEG_PHRASES.search(plain)) or raw.endswith("n't") or \
        any(w in NEG_WORDS for w in rest_low[:2]) or (german and any(w in NEG_WORDS for w in rest_low))
    # "called Bruno, not Bruhno": a correction, not a negation
    if re.search(r",\s*(?:not|nicht)\s+\w+\s*$", piece, re.I) and not NEG_PHRASES.search(low):
        negated = raw.endswith("n't")
    ended = ENDING.search(plain)
    if ended:
        negated = True
    gone = bool(GONE.search(low))
    if gone:
        negated = True
    change = bool(CHANGE.search(_NEW_PLACE.sub("", piece)))  # "New York" says nothing new
    again = bool(AGAIN.search(low))
    added = bool(ADDED.search(low))
    rest_tokens = c.rest
    if negated:  # "isn't allergic to nuts, only to penicillin": the negation is of the nuts
        cut = next((k for k, w in enumerate(rest_tokens) if w.lower() in _BUT_ONLY), None)
        rest_tokens = rest_tokens[:cut] if cut else rest_tokens
    value = _value_tokens(rest_tokens)
    verb_stems = {stem(w) for w in [raw, *rest_low] if (w in EN_VERB_FORMS and not german)} | {verb}
    content = frozenset({stem(w) for w in value} | verb_stems) - {"be", "have", "sein", "hab", "do"}
    # What a negation negates: after "quit", "left", "sold", "finished" … only its direct
    # object ("finished reading book 12 of the Oslo series" says nothing about Oslo).
    if gone:
        # "Mia's cat Luna died": the cat (and Luna) is what ended
        negates = frozenset(stem(w) for s_ in c.subjects for w in s_.replace("'s", " ").split()
                            if w not in STOP and not w.startswith("@")) | {
            stem(w.lower()) for w in c.tokens[:c.tokens.index(c.verb_raw) if c.verb_raw in c.tokens
                                             else 0] if w[0].isupper()}
    elif ended and not german:
        negates = frozenset(stem(spelling(w.lower())) for w in _object_head(
            plain[ended.end():], gerund=not _DETERMINED.search(ended.group(0))))
    else:
        negates = content
    classes = _classes(" ".join([raw, *rest_low]), [raw, *rest_low])
    past = bool(PAST_EN.match(raw)) if not german else bool(
        re.search(r"\b(?:war|waren|hatte|hatten)\b", low) or (
            raw in ("hat", "ist", "sind", "haben") and rest_low and
            re.match(r"^\w{0,7}ge\w{2,}(?:t|en)$", rest_low[-1])))
    dated_past = past and bool(DATED_PAST.search(piece))
    attribute, many, value_out, frame = _attribute(c, low, rest_low, value, classes, german)
    owner = c.owner
    subjects = frozenset(c.subjects)
    if attribute and attribute.startswith("@owner:"):
        # "Mia's employer is Siemens": the employer of Mia
        attribute = attribute[len("@owner:"):]
        subjects = frozenset({owner}) if owner else subjects
    event = past and attribute is None
    return Claim(subjects, owner, attribute, tuple(value_out), verb, content, negated, change, again,
                 added, dated_past, event, many, tuple(frame), frozenset(classes), negates, past,
                 bool(_PLAN.search(low)), hedged=bool(_HEDGED.search(low)), text=piece)


def _attribute(c: _Clause, low: str, rest: list[str], value: list[str], classes: set[str],
               german: bool) -> tuple[str | None, bool, list[str], list[str]]:
    """The attribute a clause speaks of: (name, many-valued, value, frame)."""
    verb = c.verb
    raw = c.perfect or c.verb_raw.lower()
    head = c.head
    copula = raw in COPULA or verb in ("be", "sein", "becom", "become") or raw in ("heißt",)
    rest_text = " ".join(rest)
    frame = [stem(w) for w in value]
    # "Oskar turned 8 last Saturday, big party", "Lea wird im Mai 7": an age (before any
    # event the line tells of).
    if raw in ("turned", "turns", "turning", "wird", "wurde") and not c.owner_is_thing():
        n = next((k for k, w in enumerate(rest[:4]) if re.fullmatch(r"\d{1,3}", w)), None)
        if n is not None and all(w in STOP or is_calendar(w) for w in rest[:n]) and \
                _UNIT_WORDS.get(rest[n + 1] if n + 1 < len(rest) else "", "age") == "age":
            return "qty:age", False, [rest[n]], frame
    # "has a job interview at Zalando", "hat einen Termin": an event, not a state.
    if any((w in EVENT_NOUNS and not (w == "surgery" and _PRACTICE.search(low)))
           or w.endswith(("termin", "appointment", "interview")) for w in rest):
        return None, False, value, frame
    # 1. The head of a possessive subject names the attribute: "Mia's employer is Siemens".
    # The whole head, never its last word: "passport number" is not "phone number".
    head_attr = ATTRIBUTE_NOUNS.get(head)
    if head.startswith(("favorite ", "favourite ", "lieblings")) or head.startswith("lieblings"):
        head_attr = "favorite " + head.split(" ", 1)[-1] if " " in head else head
    dose = bool(head) and head.split()[-1] in ("dose", "dosage", "dosis")
    if head and c.owner is not None and (head_attr or dose) and not c.apposition and (
            copula or _change_verb(verb, raw) or raw in ("has", "have", "hat", "had")):
        if head_attr == "dose" or (head.split()[-1] in ("dose", "dosage", "dosis")):
            drug = [w for w in head.split() if w not in ("dose", "dosage", "dosis")]
            return f"@owner:dose:{' '.join(drug)}", False, [w for w in value if re.match(r"\d", w)] \
                or value, frame
        if head_attr == "phone number" and head.split()[0] in ("office", "work", "desk", "home"):
            head_attr = "office number"
        return f"@owner:{head_attr}", False, value, frame
    # "has a new phone number: …", "hat am 2. März Geburtstag"
    if raw in ("has", "have", "hat", "haben", "had"):
        for n in (3, 2, 1):
            for j in range(len(rest) - n + 1):
                phrase = " ".join(w.lower() for w in rest[j:j + n])
                if phrase in ATTRIBUTE_NOUNS and ATTRIBUTE_NOUNS[phrase] in (
                        "phone number", "email", "address", "birthday", "anniversary", "name",
                        "handle", "employer", "manager", "partner", "office number", "blood type",
                        "doctor", "dentist", "payment"):  # "has a new GP, Dr. Osei"
                    kept = [w for w in value if w not in phrase.split()]
                    return ATTRIBUTE_NOUNS[phrase], False, kept, frame
    # "changed her Twitter handle to @x", "updated his email to …"
    m = re.search(r"\b(?:changed|updated|switched|set|änderte|hat)\s+(?:her|his|their|my|its|ihre|seine|"
                  r"meine)\s+((?:\w+\s+){0,2}\w+?)\s+(?:to|auf|zu|in)\s+(.+)$", low)
    if m:
        noun = m.group(1)
        attr = ATTRIBUTE_NOUNS.get(noun) or ATTRIBUTE_NOUNS.get(noun.split()[-1])
        if attr:
            return attr, False, _value_tokens(m.group(2).split()), frame
    # 2. Names.
    if re.search(r"\b(?:called|named|goes by|go by|heißt|heisst|hieß|nennt sich)\b", low) and (
            copula or raw in ("goes", "go", "wants", "want", "prefers", "prefer", "heißt", "likes")):
        if not re.search(r"\b(?:has|have|hat) (?:a|an|one|two|three|einen|eine|ein)\b", low):
            name = [w for w in value if w not in ("called", "named", "goes", "by", "wants", "be",
                                                 "prefers", "heißt", "heisst", "to")]
            return "called", False, name, frame
    # A plan is not yet a state: "will switch to the Schule am Park" leaves
    # the school Mia goes to now, as "will move to Hamburg" leaves her home.
    if _HEDGED.search(low) or (_PLAN.search(low) and not _DATEISH.search(low)
                               and not _WHEN_WORDS.search(low)):
        return None, False, value, frame  # a dated plan stays: it applies on its day
    # 3. Where one lives, works; where one comes from.
    if (verb in ("live", "wohn") or raw in ("lives", "live", "wohnt", "wohne", "wohnen", "lived")) and \
            re.match(r"^(?:right |just |very )?(?:next to|near|close to|around the corner|opposite|"
                     r"across from|nahe|neben|gegenüber)\b", rest_text.lower()):
        return "home-near", False, value, frame  # where in it, not which city
    if verb in ("live", "wohn") or raw in ("lives", "live", "wohnt", "wohne", "wohnen", "lived"):
        if re.search(r"^(?:\w+ )?(?:with|mit|together|zusammen|alone|allein|alleine|by herself|"
                     r"by himself|on (?:her|his) own)\b", rest_text.lower()):
            return "household", False, value, frame
        return "home", False, _places(c.rest) or value, frame
    if _CALLED_OFF.search(low):
        pass  # "cancelled the move to Hamburg", "decided not to move": no new home
    elif re.search(r"\b(?:moved|moving|moves|move|relocated|relocating|relocates|relocate)\b.*"
                   r"\b(?:to|into)\b", low) or \
            re.search(r"\b(?:zieht|ziehe|zog)\b.*\bnach\b|\bnach\b.*\b(?:gezogen|umgezogen)\b|"
                      r"\bumgezogen\b|\bist nach\b", low):
        places = _places(c.rest)
        target = re.search(r"\b(?:to|into|nach)\s+(?!move\b|relocate\b)(?:(?:a|an|the|her|his|their|"
                           r"my|new|small|bigger|smaller|larger)\s+)*(?:(?:flat|house|apartment|place|"
                           r"home|studio)\s+(?:in|near)\s+)?(\S+)", c.text)  # "to a flat in Dresden"
        if places and target and (target.group(1)[0].isupper() or german) and \
                not re.match(r"\d", target.group(1)) and not c.owner_is_thing():
            return "home", False, places, frame
    if re.search(r"\b(?:grew up|was born|born in|aufgewachsen|geboren)\b", low):
        return "origin", False, _places(c.rest) or value, frame
    if verb in ("work", "arbeit") or raw in ("works", "work", "worked", "arbeitet", "arbeite") or \
            re.search(r"\b(?:been|is|are|was|am) working (?:at|for|bei)\b", low):
        after = [w.lower() for w in c.lexical_rest if w.lower() not in _WORK_ADVERBS
                 and w.lower() != "working"]
        prep = after[0] if after else ""
        if prep in ("as", "als"):
            return "occupation", False, value, frame
        if prep in ("in", "im") and c.rest[1:2] and c.rest[1][0].isupper() and len(value) == 1:
            return "workplace", False, value, frame
        if prep in ("from", "von") or not after:
            return f"work:{' '.join(value)}", False, value, frame
        return "employer", False, _places(c.rest) or value, frame
    # Children at school: "started at the Schule am Park" is no employer.
    if "school" in classes and not re.search(r"\b(?:teach\w*|unterricht\w*|job|stelle)\b", low):
        return "school", False, _class_value(low, "school") or value, frame
    # "went freelance", "macht sich selbstständig": no employer but herself.
    if re.search(r"\b(?:went|goes|gone|is now|became|has become|turned) (?:freelance|self-employed)\b|"
                 r"\bselbstst(?:ä|a)ndig\b|\bfreiberuflich\b", low) and not c.owner_is_thing() and \
            not re.search(r"\bon the side\b|\bnebenbei\b|\bnebenberuflich\b|\bat weekends\b|"
                          r"\bin (?:her|his) spare time\b", low):
        return "employer", False, ["freelance"], frame
    # "got promoted to head of product": as what she works.
    promoted = re.search(r"\b(?:promoted to|befördert zum|befördert zur)\s+(?:the |a |an )?(.+)$", low)
    if promoted and not c.owner_is_thing():
        return "occupation", False, [w for w in words(promoted.group(1)) if w not in STOP], frame
    if raw in ("joined", "joins", "join") or re.search(r"\b(?:joined|f(?:ä|a)ngt bei|angefangen bei|"
                                                     r"bei \S+ angefangen|accepted (?:an|the|a) (?:job )?"
                                                     r"(?:offer|job|position) (?:from|at)|"
                                                     r"f(?:ä|a)ngt .*\bbei \S+ an\b|fing .*\bbei \S+ an\b|"
                                                     r"employed by|hired by|angestellt bei|"
                                                     r"started at|starts at|starting at)\b", low):
        return "employer", False, _places(c.rest) or value, frame
    if re.search(r"\b(?:left|quit|gekündigt|aufgehört bei|laid off|fired|let go|made redundant|"
                 r"entlassen)\b|\bhört\b[^.;]*\bbei \S+ auf\b", low) and \
            _places(c.rest) and \
            not re.search(r"\b(?:team|group|project|band|club|course|chat|channel|committee|board|"
                          r"choir|class)\b", low):
        return "employer", False, _places(c.rest), frame
    if re.search(r"\bjob\b|\bneuen job\b|\bnew job\b", low):
        orgs = [w.lower() for w in _places(c.rest)]
        if orgs:
            return "employer", False, orgs, frame
    if re.search(r"\bteach(?:es|ing)?\b|\bunterrichtet\b", low):
        return "occupation", False, value, frame
    # 4. "is single", "ist verheiratet", "is vegetarian", "is left-handed": a class of states;
    # "married Callum", "got engaged", "hat geheiratet": a new state.
    if "status" in classes and re.search(r"\b(?:married|divorced|engaged|separated|widowed|"
                                         r"geheiratet|verlobt|geschieden|getrennt)\b", low) and \
            not c.owner_is_thing():
        return "status", False, _class_value(low, "status") or value[:2], frame
    if re.search(r"\bturned \d+\b|\bwurde \d+\b|\bist (?:jetzt |nun |inzwischen )?\d+\b(?! \w)", low) \
            and not c.owner_is_thing():
        return "qty:age", False, [w for w in value if re.match(r"\d", w)], frame
    # "went vegan", "is going vegetarian", "wurde Veganerin": a diet, as "is vegan" is.
    if "diet" in classes and raw in ("went", "going", "goes", "go", "became", "becomes", "become",
                                     "turned", "wurde", "wird"):
        return "diet", False, _class_value(low, "diet") or value[:2], frame
    # "eats meat", "isst Fleisch": the diet of one who eats everything.
    if verb in ("eat", "ess") and re.search(r"\b(?:meat|fleisch)\b", low) and not c.owner_is_thing():
        return "diet", False, ["meat"], frame
    if c.verb_raw.lower() in COPULA or raw in COPULA:
        for special in ("diet", "status", "handed"):
            if special in classes:
                return special, False, _class_value(low, special) or value[:2], frame
        plain = [w for w in rest if w not in MARKERS and w not in ADVERBS]
        if "colour" in classes and c.owner_is_thing() and len(plain) <= 2:
            return "colour", False, _class_value(low, "colour"), frame  # "Sam's bike is red"
    # "wurde auf Freitag verschoben", "was moved to Friday": a time, though the verb is "to be".
    if copula and _moved_to(low):
        when_words = _when_words(rest)
        if when_words and not _quantity(rest):
            return "when", False, when_words, frame
    # 5. "is a nurse", "ist Lehrer", "is vegetarian", "is single": a class or an adjective.
    if copula and rest:
        words_after = [w for w in rest if w not in ARTICLES and w not in NEG_WORDS and w not in
                       MARKERS and w not in ("not", "no", "longer", "kein", "keine", "mehr")]
        occupation = next((w for w in words_after[:4] if w in OCCUPATIONS), None)
        # Not after a comma: "is dating Tom, a nurse" says what Tom is.
        if occupation is not None and not c.owner_is_thing() and \
                "," not in low.split(occupation, 1)[0]:
            return "occupation", False, value, frame
        if words_after and words_after[0] in ("allergic", "allergisch", "intolerant"):
            return "allergy", True, value[1:], frame
        qty = _quantity(rest)
        if qty:
            return _qty_attribute(qty, verb, raw, copula, value), False, qty[1], frame
        plain = [w for w in rest if w not in MARKERS and w not in ADVERBS]
        if c.owner is not None and plain and plain[0] in ("a", "an", "ein", "eine", "einen") and \
                c.owner_is_thing():
            return "kind", False, value, frame  # "Mia's dog is a beagle"
        if c.owner is not None and c.owner_is_thing() and c.head.split()[-1] in classes and \
                c.rest and any(ch.isupper() for ch in c.rest[0]):
            return "kind", False, value, frame  # "Mia's phone is iPhone 16" (a model, not a name)
        if len(plain) == 1 and re.fullmatch(r"\d+", plain[0]) and not c.owner_is_thing():
            return "qty:age", False, plain, frame  # "Lea is now 7"
        thing = c.owner_is_thing() or (bool(c.head) and not c.owner and not c.first)
        if thing and (re.match(r"^(?:at|um|on|am)\b", rest_text) or _moved_to(low)
                      or _DATEISH.search(rest_text) or _WHEN_WORDS.search(rest_text)):
            when_words = [w for w in rest if w in _RELATIVE_DAYS or w in _when_words([w])]
            if when_words:
                return "when", False, when_words, frame
        if len(words_after) <= 2 and words_after and not any(w[0].isupper() for w in c.rest[:2]):
            return f"adj:{stem(words_after[0])}", False, words_after, frame
        if rest and rest[0] in ("a", "an", "ein", "eine"):
            return f"isa:{stem(words_after[-1]) if words_after else ''}", True, value, frame
        return None, False, value, frame
    # "The book club meets on Tuesdays", "Das Training findet montags statt": when a thing happens.
    if c.owner_is_thing() or (not c.owner and c.head and not c.first):
        if re.search(r"\b(?:meets?|meeting|takes place|is held|happens|starts|begins|runs|findet|"
                     r"beginnt|startet|trifft sich)\b", low) and _WHEN_WORDS.search(low):
            return "when", False, [w for w in value if _WHEN_WORDS.search(w) or re.match(r"\d", w)], frame
    # 6. Things moved to a time: "standup moved to 10:15", "deadline was pushed to 17 March".
    if _moved_to(low) or (_change_verb(verb, raw) and not copula):
        when_words = _when_words(rest)  # "moved to Friday", "auf Freitag verschoben"
        if when_words and not _quantity(rest):
            return "when", False, when_words, frame
    # 6. Quantities with their unit: "has 8 engineers", "weighs 68 kg", "costs 30 euros".
    qty = _quantity(rest)
    if qty:
        if raw in ("takes", "take", "nimmt") and qty[0] in ("qty:mg", "qty:ml", "qty:g"):
            drug = [w for w in value if not re.match(r"\d", w) and w not in ("mg", "ml", "g", "of",
                                                                              "daily", "every",
                                                                              "morning", "day")]
            return f"dose:{drug[0] if drug else ''}", False, qty[1], frame
        return _qty_attribute(qty, verb, raw, copula, value), False, qty[1], frame
    # 7. Commute: "takes the bus to work", "fährt mit dem Rad zur Arbeit".
    if re.search(r"\bto work\b|\bzur arbeit\b|\bins büro\b|\bto the office\b", low):
        return "commute", False, value, frame
    # 8. Children at school: "goes to kindergarten", "started school".
    if "school" in classes:
        return "school", False, _class_value(low, "school") or value, frame
    # 9. Things used, driven, owned, spoken, played, liked.
    if verb in ("us", "use", "nutz", "verwend") or raw in ("uses", "use", "nutzt", "verwendet", "benutzt"):
        purpose = re.search(r"\b(?:for|für|auf|on)\b\s+(.*)$", rest_text)
        kinds = sorted(classes - {"commute"})
        if kinds:
            return f"uses:{kinds[0]}", False, value, frame
        if purpose:
            return f"uses-for:{stem(purpose.group(1).split()[-1])}", False, value, frame
        return "uses", True, value, frame
    if raw in ("switched", "switch", "switches", "umgestiegen") or re.search(r"\bswitched\b|"
                                                                          r"\bumgestiegen\b", low):
        kinds = sorted(classes - {"commute"})
        if kinds:
            return f"uses:{kinds[0]}", False, value, frame
        return "switched", True, value, frame
    if verb in ("driv", "drive", "fahr") or raw in ("drives", "drive", "fährt"):
        if "car" in classes:
            return "car", False, value, frame
    if raw in ("owns", "own", "has", "have", "hat", "besitzt", "haben") and rest:
        if any(w in EVENT_NOUNS or w.endswith(("termin", "appointment")) for w in rest):
            return None, False, value, frame
        if any(w in HEALTH for w in rest):
            return "health", True, value, frame
        if "car" in classes:
            return "possession", True, value, frame
        return "possession", True, value, frame
    if verb in ("speak", "sprech", "spreche") or raw in ("speaks", "speak", "spricht", "spreche"):
        return "language-spoken", True, value, frame
    if verb in ("play", "spiel") or raw in ("plays", "spielt", "spiele"):
        return "hobby", True, value, frame
    if raw in ("likes", "loves", "enjoys", "mag", "liebt", "like", "love", "adores"):
        return "like", True, value, frame
    if raw in ("hates", "dislikes", "hasst", "hate", "dislike"):
        return "dislike", True, value, frame
    if raw in ("prefers", "prefer", "bevorzugt", "wants", "want", "möchte", "needs", "need"):
        return "preference", True, value, frame
    if raw in ("studied", "studies", "study", "studiert", "graduated", "studierte"):
        return "education", True, value, frame
    if any(w in HEALTH for w in rest) or (raw.lower() in HEALTH):
        return "health", True, value, frame
    return None, False, value, frame


# Words that say how often or when a quantity holds: "runs 5 km every morning" is not
# "runs 10 km on Saturdays".
_SCHEDULE = frozenset({"every", "each", "daily", "weekly", "monthly", "yearly", "morning", "mornings",
                       "evening", "evenings", "night", "nights", "day", "week", "weekend", "weekends",
                       "weekday", "weekdays", "jeden", "jede", "täglich", "morgens", "abends",
                       "wöchentlich", "sonntags", "montags", "samstags", "wochenende"})
_CHANGE_WORDS = frozenset({"grown", "grew", "gone", "went", "up", "down", "rose", "raised",
                           "increased", "dropped", "fell", "to", "from", "by", "wurde", "auf",
                           "erhöht", "gestiegen", "gesunken", "gesenkt", "beträgt", "mittlerweile",
                           "inzwischen", "jetzt", "now", "costs", "cost", "kostet"})
_WHEN_WORDS = re.compile(r"\b(?:mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|"
                         r"sundays?|montags?|dienstags?|mittwochs?|donnerstags?|freitags?|samstags?|"
                         r"sonntags?|weekends?|weekdays?|\d{1,2}:\d\d|\d{1,2} ?(?:am|pm|uhr))\b", re.I)
_RELATIVE_DAYS = frozenset({"today", "tomorrow", "tonight", "yesterday", "next", "heute", "morgen",
                            "übermorgen", "gestern", "nächste", "nächsten", "week", "woche", "month",
                            "monat", "monday", "tuesday", "wednesday", "thursday", "friday",
                            "saturday", "sunday", "montag", "dienstag", "mittwoch", "donnerstag",
                            "freitag", "samstag", "sonntag"})
_DATEISH = re.compile(r"\b\d{1,2}:\d\d\b|\b\d{1,2}\.? (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|"
                      r"nov|dec|mär|mai|okt|dez)|\b\d{4}-\d\d-\d\d\b", re.I)
_MONTH3 = frozenset({"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                     "dec", "mär", "mai", "okt", "dez"})


def _is_calendar(word: str) -> bool:
    """A month or a weekday ("quit in April" names no employer): :func:`when.is_calendar`,
    without the days cut short ("sun" and "sat" are words of their own here)."""
    return is_calendar(word, short_days=False)
_QTY = re.compile(r"^(\d+(?:[.,]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
                  r"twelve|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|zwölf)$")
_UNIT_WORDS = {"people": "people", "persons": "people", "person": "people", "leute": "people",
               "personen": "people", "mitarbeiter": "people", "members": "people",
               "years": "age", "year": "age", "jahre": "age", "jahr": "age",
               "euros": "money", "euro": "money", "eur": "money", "dollars": "money",
               "dollar": "money", "pounds": "money", "€": "money", "$": "money", "£": "money",
               "kg": "kg", "kilos": "kg", "kilo": "kg", "lbs": "kg", "cm": "cm", "km": "km",
               "minutes": "min", "min": "min", "minuten": "min", "hours": "h", "stunden": "h",
               "mg": "mg", "ml": "ml",
               "kids": "children", "kid": "children", "children": "children", "child": "children",
               "kinder": "children", "kind": "children", "grandkids": "grandchildren",
               "grandchildren": "grandchildren", "enkel": "grandchildren",
               "enkelkinder": "grandchildren"}


# Spans of time, and the words that make one a when: "in 2 weeks", "for 3 days".
_SPANS = frozenset("""day days week weeks month months year years hour hours minute minutes
fortnight fortnights tag tage tagen woche wochen monat monate monaten jahr jahre jahren stunde
stunden minute minuten""".split())
_SPAN_BEFORE = frozenset("in within for next another über innerhalb binnen vor nach für noch "
                         "nächsten kommenden".split())


# Where a direct object ends: "finished the puzzle | with Jonas", "sold her bike | to Karl".
_OBJECT_ENDS = frozenset("with for to during after before from since until about at in on by "
                         "mit für an während nach vor seit bei".split())
# Heads that name no thing of their own: "quit her job at Zalando" ends Zalando.
_EMPTY_HEADS = frozenset("job position role post work stelle".split())


_CALLED_OFF = re.compile(r"\b(?:cancel\w*|called off|calls off|decided not|decides not|not to move|"
                         r"won't|will not|abgesagt|doch nicht|nicht mehr)\b", re.I)
_NEW_PLACE = re.compile(r"\b(?:New|Neu)\s+(?=[A-Z])")
_LEFT_SOMEWHERE = re.compile(r"\bleft\s+(?!work|school|home)(?!(?:\S+\s+)?(?:job|position|role|post|team|"
                             r"company|firm|band|club)\b)(?:\S+\s+){1,3}?(?:at|in|on|behind|outside|inside|under|"
                             r"next to|beside)\b(?!\s+(?:january|february|march|april|may|june|"
                             r"july|august|september|october|november|december|\d))")
_DETERMINED = re.compile(r"\b(?:her|his|their|my|the|den|die|das|dem|seinen|ihren|seine|ihre)\s*$")


_PRACTICE = re.compile(r"\b(?:gp|doctor'?s?|dental|vet'?s?|dentist'?s?)\s+surgery\b")  # a workplace
_BUT_ONLY = frozenset({"only", "just", "but", "nur", "sondern", "except", "außer"})
_LIGHT_GERUNDS = frozenset({"going", "doing", "having", "getting", "taking", "making"})


def _object_head(after: str, gerund: bool = True) -> list[str]:
    """What an ending verb ends: the head of its direct object, the last
    word of its noun phrase ("quit her accounting course" ends a course, not
    accounting; "finished her Spanish course" no language), or a gerund and
    its object ("stopped playing tennis"); never a person or place in a
    phrase after it ("finished the puzzle with Jonas")."""
    obj: list[str] = []
    for w in words(after):
        low = w.lower()
        if low in _OBJECT_ENDS and obj:
            if obj[-1].lower() in _EMPTY_HEADS and low in ("at", "bei", "with", "for"):
                obj = []  # "her job at Zalando": Zalando
                continue
            if len(obj) == 1 and obj[0].lower() in _LIGHT_GERUNDS and low in ("to", "at", "for",
                                                                              "into", "on"):
                continue  # "stopped going to the gym": the gym, not every "goes …"
            break
        if low in STOP or low in MARKERS:
            continue
        obj.append(w)
        if len(obj) == 3:
            break
    if len(obj) > 1 and not (gerund and obj[0].lower().endswith("ing")):
        obj = obj[-1:]
    return obj


def _when_words(rest: list[str]) -> list[str]:
    """The words of a predicate that say when: numbers, months, weekdays, clock times."""
    return [w for w in rest if re.match(r"\d", w) or _is_calendar(w) or _WHEN_WORDS.fullmatch(w)]


def _quantity(rest: list[str]) -> tuple[str, list[str], set[str]] | None:
    """A number and what it counts: ("qty:cat", ["3"], words used)."""
    for j, w in enumerate(rest):
        if _QTY.match(w.lower()) and j + 1 < len(rest):
            unit = rest[j + 1].lower()
            if unit in ("am", "pm", "uhr") or ":" in w or unit[:3] in _MONTH3:
                return None
            u = _UNIT_WORDS.get(unit) or stem(spelling(unit))
            if u in STOP or u.isdigit():
                continue
            before = rest[j - 1].lower() if j else ""
            after = rest[j + 2].lower() if j + 2 < len(rest) else ""
            if unit in _SPANS and (before in _SPAN_BEFORE or after in ("ago", "later", "from")):
                continue  # "in 2 weeks", "for 3 days", "vor 2 Wochen": when, not how many
            number = w.lower()
            return f"qty:{u}", [number], {w.lower(), unit, "old", "alt", "a", "month", "monat"}
    return None


def _qty_attribute(qty: tuple[str, list[str], set[str]], verb: str, raw: str, copula: bool,
                   value: list[str]) -> str:
    """"qty:<unit>[:<verb>][:<other words>]": a number of the same thing, counted
    the same way ("runs 5 km every morning" is not "runs 10 km on Saturdays")."""
    base = "" if (raw in ("has", "have", "hat", "haben") or _change_verb(verb, raw) or copula
                  or verb in ("grow", "go", "rise", "be", "hab", "sein")) else verb
    others = [w for w in value if w in _SCHEDULE or _WHEN_WORDS.fullmatch(w)]
    return ":".join(x for x in (qty[0], base, " ".join(others)) if x)


# How one works, not for whom: "works remotely for Spotify" is still an employer.
_WORK_ADVERBS = frozenset({"remotely", "remote", "fully", "part-time", "full-time", "mostly", "still",
                           "now", "currently", "freelance", "komplett", "jetzt", "inzwischen",
                           "mittlerweile", "seit", "kurzem", "teilzeit", "vollzeit", "hybrid"})


def _places(rest: list[str]) -> list[str]:
    """Capitalised words of a predicate: where, or for whom."""
    return [w.lower() for w in rest if PLACEISH.match(w) and w.lower() not in STOP
            and not _is_calendar(w)]


def _moved_to(low: str) -> bool:
    return bool(re.search(r"\b(?:moved|pushed|postponed|rescheduled|changed|delayed|shifted|slipped|"
                          r"slips|slipping|verschoben|verlegt)\b(?: back| out| again)? (?:to|until|auf)\b|"
                          r"\bauf \S+ (?:\S+ )?verschoben\b|\b(?:rutscht|verschiebt sich) (?:\w+ )?auf\b",
                          low))


def _change_verb(verb: str, raw: str) -> bool:
    return raw in ("grown", "grew", "rose", "went", "increased", "dropped", "fell", "raised",
                   "erhöht", "gestiegen", "gesunken", "gesenkt", "wurde", "changed", "changes",
                   "switched", "geändert", "ändert", "änderte") or verb in (
        "grow", "rise", "increas", "drop", "rais", "erhöh", "steig", "chang")
