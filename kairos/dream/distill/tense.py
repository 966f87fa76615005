"""Tense: which clauses of a line speak of the past, and putting one into the past tense.

The time rules (:mod:`~kairos.dream.distill.when`) need two things of a sentence:
whether the clause around a date speaks of the past ("started running in
March" resolves backwards), and, once its time is over, the sentence in the
past tense — one finite verb per clause: "is flying" → "flew", "has" →
"had", "will start" → "started", "fliegt" → "flog", "macht" → "machte".
What it cannot turn it leaves as it is.  English and German.  Pure: no I/O.
"""

from __future__ import annotations

import re

from kairos.dream.distill.words import EN_VERB_FORMS, IRREGULAR_EN, PARTICIPLES_EN, PAST_DE

_AUX_PAST_EN = {"was", "were", "had", "did"}
_AUX_EN = {"is", "are", "am", "was", "were", "has", "have", "had", "will", "does", "do", "did",
           "'s", "'re", "can", "could", "would", "should", "must", "may", "might", "cannot",
           "can't", "won't", "isn't", "aren't", "doesn't", "don't", "hasn't", "haven't",
           "couldn't", "wouldn't", "shouldn't", "mustn't", "didn't", "wasn't", "weren't", "hadn't"}
_PARTICIPLE_DE = re.compile(r"^\w{0,7}ge\w{2,}(?:t|en)$|^\w{3,}iert$")
# A state, not a perfect, after "ist"/"sind": "Release 4.2 ist für Donnerstag geplant"
# is a plan still (its past: "war … geplant"), where "ist nach Köln gezogen" is over.
_STATE_DE = frozenset("""geplant eingeplant vorgesehen angesetzt terminiert gebucht reserviert
vereinbart festgelegt angemeldet angekündigt bestätigt verschoben verlegt""".split())
# A full stop ends a clause, but not the one of a German day ("am 2. Februar").
_CLAUSE = re.compile(r"[;:!?()]|(?<!\d)\.\s|(?<=\d)\.\s(?!(?:Januar|Februar|März|April|Mai|"
                     r"Juni|Juli|August|September|Oktober|November|Dezember)\b)|\.$|"
                     r",\s+(?:but|and|sondern|aber|und|so)\b"
                     # a second sentence after a comma: "got the job, she starts on 1 July"
                     r"|,\s+(?=(?:he|she|they|I|we|er|ich|wir)\s+[a-zäöüß])"
                     r"|\s+(?:but|sondern)\s")
_AND = re.compile(r"\s+(?=(?:and|und)\s+([\w'’-]+))", re.IGNORECASE)
_TOKEN = re.compile(r"[\w'’-]+")


def _clauses(text: str) -> list[tuple[int, int]]:
    """The clauses of a line: cut at punctuation, parentheses and "but",
    and at "and" before a verb ("Sam lives in Oslo | and has an appointment
    tomorrow": the date is the second clause's alone)."""
    spans, start = [], 0
    for m in _CLAUSE.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    out = []
    for a, b in spans:
        for m in _AND.finditer(text, a, b):
            if _is_verb(m.group(1)):
                out.append((a, m.start()))
                a = m.end()  # the clause keeps its "and": its verb is not its first word
        out.append((a, b))
    return [(a, b) for a, b in out if text[a:b].strip()]


def _is_verb(word: str) -> bool:
    if word[:1].isupper():
        return False  # "Kim and Will", "Tom and May": names
    w = word.lower().replace("’", "'")
    return w in _AUX_EN or (w in EN_VERB_FORMS and EN_VERB_FORMS[w] != w) or w in PAST_DE


def clause_of(text: str, pos: int) -> tuple[int, int]:
    for a, b in _clauses(text):
        if a <= pos < b:
            return a, b
    return 0, len(text)


def _finite_en(tokens: list[re.Match[str]], subject: bool = True) -> int | None:
    """Index of the first finite verb of an English clause (after its
    subject; ``subject`` False: the clause goes on after a parenthesis,
    "Kim (born 1990) has a party …", and may start with its verb)."""
    for i, t in enumerate(tokens):
        w = t.group(0).lower().replace("’", "'")
        if i == 0 and subject and w not in ("i", "we", "they", "he", "she", "you"):
            continue
        if w == "may" and t.group(0)[0] == "M" and i > 0:
            continue  # the month: "on 3 May"
        if w in ("end", "start", "beginning", "middle") and i + 1 < len(tokens) and \
                tokens[i + 1].group(0).lower() == "of":
            continue  # a noun: "by end of March", "due start of May"
        if w in _AUX_EN:
            return i
        if i + 1 < len(tokens) and tokens[i + 1].group(0).lower() in _AUX_EN:
            continue  # "Sam's tax return is due": the noun before the verb
        prev = tokens[i - 1].group(0).lower() if i else ""
        if prev.endswith(("'s", "s'", "’s")) or prev in ("a", "an", "the", "my", "his", "her", "their",
                                                         "our", "your", "its"):
            continue  # "Tom's work email", "a run": a noun here
        if w in EN_VERB_FORMS and t.group(0)[0].islower():
            base = EN_VERB_FORMS[w]
            if w in (IRREGULAR_EN.get(base, ("", "", ""))[0], IRREGULAR_EN.get(base, ("", "", ""))[1],
                     base):
                return i
        if re.fullmatch(r"[a-z]+ed", w) and (i > 0 or not subject):
            return i
    return None


def _after_parenthesis(text: str, a: int) -> bool:
    """Whether a clause opens or closes a parenthesis ("(confirmed in
    January)", "Kim (born 1990) has …"): its first word may be its verb."""
    return text[:a].rstrip().endswith(("(", ")"))


def _past_en(text: str, a: int, b: int) -> str | None:
    tokens = list(_TOKEN.finditer(text, a, b))
    i = _finite_en(tokens, subject=not _after_parenthesis(text, a))
    state = _STATE.search(text, a, b)
    if state and (i is None or tokens[i].start() > state.start()):
        # "Jule off sick until …" -> "Jule was off sick until …" ("on parental leave": no verb)
        return text[:state.start()] + " was" + text[state.start():]
    if i is None:
        # A note without its subject: "flying to Lisbon on 12 June" -> "flew to Lisbon …"
        first = tokens[0].group(0) if tokens else ""
        if first.lower().endswith("ing") and first.lower() in EN_VERB_FORMS:
            then = _past_of(first.lower())
            return text[:tokens[0].start()] + (then.capitalize() if first[0].isupper() else then) + \
                text[tokens[0].end():]
        return _past_verbless(text, a, b)
    return _past_finite(text, tokens, i)


# A note's state without its verb: "Jule off sick until Friday", "Hoffmann away until 20 May".
_STATE = re.compile(r"(?<=\w)\s+(?=(?:off sick|off work|away|on (?:\w+ )?leave|on holiday|"
                    r"on vacation|in hospital|out sick|out of (?:the )?office)\b)", re.I)
_OFF_TO = re.compile(r"\s*(off) to\b", re.I)


def _past_verbless(text: str, a: int, b: int) -> str | None:
    """A terse note's past: "Off to Lisbon …" -> "Went to Lisbon …" (what it
    cannot read it leaves)."""
    m = _OFF_TO.match(text, a, b)
    if m:
        went = "Went" if m.group(1)[0].isupper() else "went"
        return text[:m.start(1)] + went + text[m.end(1):]
    return None


def _past_finite(text: str, tokens: list[re.Match[str]], i: int) -> str | None:
    """The past of a clause whose finite verb is ``tokens[i]``."""
    if i >= 2 and tokens[i - 1].group(0).lower() == "to":
        # "hopes to start": the verb before "to" is the finite one.
        before = tokens[i - 2].group(0)
        if not (before.islower() and before.endswith("s") and not before.endswith("ss")):
            return None  # "is about to start", "has yet to start": leave it
        if before.lower() not in _AUX_EN:
            return text[:tokens[i - 2].start()] + _past_of(before) + text[tokens[i - 2].end():]
        i -= 2
    t = tokens[i]
    w = t.group(0).lower().replace("’", "'")
    nxt = [x.group(0).lower() for x in tokens[i + 1:i + 4]]

    def put(start: int, stop: int, word: str) -> str:
        return text[:start] + word + text[stop:]

    if w in _NEGATED_EN:  # "can't come" -> "couldn't come", "won't be" -> "wasn't"
        past = "wasn't" if w == "won't" and nxt[:1] == ["be"] else _NEGATED_EN[w]
        if past is None or (w in ("hasn't", "haven't") and nxt and _perfect(nxt[0])):
            return None
        if w == "won't" and nxt[:1] == ["be"]:
            return put(t.start(), tokens[i + 1].end(), past)
        return put(t.start(), t.end(), past if t.group(0)[0].islower() else past.capitalize())
    if w == "can":
        return put(t.start(), t.end(), "could")
    if w == "cannot":
        return put(t.start(), t.end(), "could not")
    if w in ("could", "would", "should", "must", "may", "might"):
        return None

    if w in ("is", "are", "am", "'s", "'re"):
        be = "were" if w in ("are", "'re") else "was"
        for j, nw in enumerate(nxt):
            if nw.endswith("ing") and nw in EN_VERB_FORMS or (nw.endswith("ing") and len(nw) > 5):
                verb_tok = tokens[i + 1 + j]
                base = EN_VERB_FORMS.get(nw) or nw[:-3]
                if base == "go" and tokens[i + 2 + j:i + 3 + j] and \
                        tokens[i + 2 + j].group(0).lower() == "to" and tokens[i + 3 + j:i + 4 + j] and \
                        tokens[i + 3 + j].group(0).lower() in EN_VERB_FORMS:
                    # "is going to visit" -> "visited"
                    inner = tokens[i + 3 + j]
                    return put(t.start(), inner.end(), _past_of(inner.group(0).lower()))
                if base == "get" and tokens[i + 2 + j:i + 3 + j]:
                    return put(t.start(), verb_tok.end(), "got")
                return put(t.start(), verb_tok.end(), _past_of(nw))
            if nw not in ("currently", "also", "still", "now", "just", "finally", "probably"):
                break
        return put(t.start(), t.end(), be if t.group(0)[0].islower() else be.capitalize())
    if w in ("has", "have"):
        if nxt and _perfect(nxt[0]):
            return None  # present perfect: already past
        return put(t.start(), t.end(), "had")
    if w == "will":
        if nxt and nxt[0] == "be":
            return put(t.start(), tokens[i + 1].end(), "was")
        if nxt[:2] == ["not", "be"]:
            return put(t.start(), tokens[i + 2].end(), "was not")
        if nxt[:1] == ["not"]:
            return put(t.start(), tokens[i + 1].end(), "did not")
        if nxt:
            return put(t.start(), tokens[i + 1].end(), _past_of(nxt[0]))
        return None
    if w in _AUX_PAST_EN or w.endswith("ed"):
        return None
    if w in ("does", "do"):
        return put(t.start(), t.end(), "did")
    if w in EN_VERB_FORMS:
        return put(t.start(), t.end(), _past_of(w))
    return None


def _perfect(word: str) -> bool:
    return word.endswith("ed") or word in PARTICIPLES_EN


# Negated auxiliaries and their past ("couldn't" is past already: None).
_NEGATED_EN: dict[str, str | None] = {
    "can't": "couldn't", "won't": "didn't", "isn't": "wasn't", "aren't": "weren't",
    "doesn't": "didn't", "don't": "didn't", "hasn't": "hadn't", "haven't": "hadn't",
    "couldn't": None, "wouldn't": None, "shouldn't": None, "mustn't": None, "didn't": None,
    "wasn't": None, "weren't": None, "hadn't": None}
_VOWELS = re.compile(r"[aeiou]+")


def _past_of(word: str) -> str:
    base = EN_VERB_FORMS.get(word)
    if base is None:
        if word.endswith("ing"):
            base = word[:-3]
        elif word.endswith("ies"):
            base = word[:-3] + "y"
        elif word.endswith(("sses", "shes", "ches", "xes", "zes")):
            base = word[:-2]
        elif word.endswith("s"):
            base = word[:-1]
        else:
            base = word
    if base in IRREGULAR_EN:
        return IRREGULAR_EN[base][1]
    if base.endswith("e"):
        return base + "d"
    if base.endswith("y") and base[-2:-1] not in ("a", "e", "o", "u"):
        return base[:-1] + "ied"
    if len(base) <= 4 and len(_VOWELS.findall(base)) == 1 and re.search(
            r"[^aeiou][aeiou][bdgklmnprt]$", base):
        return base + base[-1] + "ed"  # plan -> planned, stop -> stopped, jog -> jogged
    return base + "ed"


# What a time put first holds before the verb: articles and prepositions.
_BEFORE_THE_VERB_DE = frozenset("""der die das dem den des vom von zum zur im in am an auf bis ab
seit für mit nach bei um über""".split())


def _past_de(text: str, a: int, b: int) -> str | None:
    tokens = list(_TOKEN.finditer(text, a, b))
    words = [t.group(0) for t in tokens]
    for i, t in enumerate(tokens):
        w = t.group(0)
        if i == 0 or not w[0].islower():
            continue
        if w in ("und", "nicht", "kein", "keine", "auch", "noch", "schon", "jetzt", "gern", "gerne"):
            continue
        if w in _BEFORE_THE_VERB_DE:  # "In der Woche vom 8. Juni ist Anna …": the verb comes after
            continue
        if w in ("war", "waren", "hatte", "hatten", "wurde", "wurden"):
            return None
        if w in ("hat", "haben", "ist", "sind", "habe", "bin") and words and \
                _PARTICIPLE_DE.match(words[-1]) and words[-1] != w and not _state_de(w, words[-1]):
            return None  # Perfekt: already past
        if w in PAST_DE:
            return text[:t.start()] + PAST_DE[w] + text[t.end():]
        if w.endswith(("et", "dt")):
            return text[:t.start()] + w + "e" + text[t.end():]
        if w.endswith("t") and len(w) > 3:
            return text[:t.start()] + w + "e" + text[t.end():]
        if w.endswith("en") and len(w) > 4:
            return text[:t.start()] + w[:-2] + "ten" + text[t.end():]
        return None
    return None


def _state_de(verb: str, last: str) -> bool:
    """Whether "ist … <participle>" tells a state that still holds (a plan set
    for a day), not a perfect: "ist für Donnerstag geplant"."""
    return verb in ("ist", "sind") and last.lower() in _STATE_DE


def has_finite_verb(text: str) -> bool:
    """Whether an English line has a finite verb ("dentist Tue 3pm" has none)."""
    return _finite_en(list(_TOKEN.finditer(text))) is not None


def clause_past(text: str, a: int, b: int, lang: str) -> bool:
    """Whether a clause speaks of the past (its finite verb, or a perfect)."""
    tokens = list(_TOKEN.finditer(text, a, b))
    words = [t.group(0) for t in tokens]
    lower = [w.lower() for w in words]
    if lang == "de":
        if any(w in ("war", "waren", "hatte", "hatten", "wurde", "wurden") for w in lower):
            return True
        if set(PAST_DE.values()) & set(lower[1:]) - {"war", "hatte"}:
            return True
        if any(w in ("hat", "haben", "ist", "sind", "habe", "bin") and not _state_de(w, lower[-1])
               for w in lower) and words and _PARTICIPLE_DE.match(lower[-1]):
            return True
        return False
    i = _finite_en(tokens, subject=not _after_parenthesis(text, a))
    if i is None:
        return False
    w = lower[i]
    if w in _AUX_PAST_EN:
        return True
    if w in ("has", "have") and i + 1 < len(lower) and (_perfect(lower[i + 1]) or lower[i + 1] == "had"):
        return True
    if w.endswith("ed"):
        # "best reached before 8", "usually parked in the yard": how it is, not what happened
        return not (i > 0 and lower[i - 1] in _HOW_IT_IS)
    base = EN_VERB_FORMS.get(w)
    return bool(base and base in IRREGULAR_EN and IRREGULAR_EN[base][1] == w
                and IRREGULAR_EN[base][0] != w and base != w)


# Adverbs before a participle that make it a standing fact's passive without its "is".
_HOW_IT_IS = frozenset("best easily usually normally generally always often only".split())


def past_tense(text: str, lang: str, clauses: list[tuple[int, int]] | None = None) -> str:
    """Put the clauses (all of the text when None) into the past tense, one
    finite verb each; what the rules cannot turn is left as it is."""
    spans = sorted(set(clauses or [(0, len(text))]), reverse=True)
    out = text
    for a, b in spans:
        changed = (_past_de if lang == "de" else _past_en)(out, a, b)
        if changed is not None:
            out = changed
    return out
