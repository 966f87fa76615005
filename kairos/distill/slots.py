"""Subjects and attributes: when a newer line updates an older one.

A line is read into *claims*: who or what it is about (the subject: "Mia",
"Mia's dog", "I", "the project deadline", "Jonas' Team"), which attribute
of it (where they live, who employs them, what they are called, a quantity
with its unit, a value class such as the phone or the operating system they
use, a ``Key:`` …), the value, and whether it is negated ("no longer",
"not … anymore", "quit", "kein … mehr", "aufgehört") or marks a change
("now", "switched to", "moved to", "jetzt", "inzwischen", "umgestiegen").

:func:`is_update` says ``"update"`` when a newer line replaces an older one
about the same subject *and* the same attribute — a new value of a
single-valued attribute, a negation of what the older said, a reversal of a
negation, a switch within one class of things — and ``"coexist"`` otherwise:
different attributes of one subject ("Mia's dog is called Bruno" / "Mia's
dog is a beagle"), many-valued attributes (allergies, languages, pets,
hobbies, ``Pet:``), two dated past events, or a line that says "also".

The same detector decides supersession in the rules distiller and checks a
"superseded by" reason in the guards, for every distiller.  Lexicons, not a
model: what it does not recognise it leaves as coexisting, so an unknown
attribute never loses a fact.  English and German.  Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

from kairos.distill.when import QUOTED
from kairos.distill.words import (
    EN_VERB_FORMS,
    IRREGULAR_EN,
    STOP,
    STOP_DE,
    is_german,
    spelling,
    stem,
    words,
)

# -- lexicons ------------------------------------------------------------------------------------
# Nouns that name an attribute of their owner ("Mia's employer is …", "Jonas' Handynummer
# ist …", "Phone: …"), mapped to one attribute name per meaning.
ATTRIBUTE_NOUNS: dict[str, str] = {}
for _attr, _nouns in {
    "home": "home city|hometown|home town|home|city|town|residence|wohnort|stadt|heimatstadt",
    "address": "address|home address|postal address|adresse|anschrift|postanschrift",
    "employer": "employer|company|firm|workplace|arbeitgeber|firma|arbeitsstelle",
    "occupation": "job|job title|occupation|profession|role|position|title|beruf|stelle|jobtitel",
    "phone number": "phone number|phone no|mobile number|mobile|cell number|cell phone number|"
                    "telephone number|mobile phone number|handynummer|telefonnummer|handy-nummer|"
                    "mobilnummer|rufnummer|private number",
    "office number": "office number|work number|office phone|work phone|desk phone|festnetz|"
                     "festnetznummer|büronummer|dienstnummer",
    "email": "email|e-mail|email address|e-mail address|mail|work email|mail address|"
             "e-mail-adresse|emailadresse|mailadresse",
    "name": "name|first name|vorname",
    "full name": "full name|legal name|surname|last name|family name|nachname|vollständiger name",
    "called": "preferred name|nickname|nick name|rufname|spitzname|called",
    "manager": "manager|boss|line manager|supervisor|team lead|lead|chef|chefin|vorgesetzter|"
               "vorgesetzte|teamleiter|teamleiterin",
    "partner": "partner|partnerin|lebensgefährte|lebensgefährtin",
    "spouse": "husband|wife|spouse|mann|ehemann|frau|ehefrau",
    "girlfriend": "girlfriend|freundin",
    "boyfriend": "boyfriend|freund",
    "fiance": "fiance|fiancé|fiancee|fiancée|verlobter|verlobte",
    "age": "age|alter",
    "weight": "weight|gewicht",
    "height": "height|größe|körpergröße",
    "rent": "rent|miete|kaltmiete|warmmiete",
    "salary": "salary|pay|income|wage|gehalt|lohn|einkommen",
    "commute": "commute|arbeitsweg|pendelzeit",
    "bank": "bank",
    "doctor": "gp|doctor|family doctor|physician|hausarzt|hausärztin|ärztin|arzt",
    "dentist": "dentist|zahnarzt|zahnärztin",
    "handle": "handle|username|user name|nick|github handle|twitter handle|mastodon handle|"
              "instagram handle|benutzername",
    "birthday": "birthday|date of birth|birth date|geburtstag|geburtsdatum",
    "anniversary": "anniversary|wedding anniversary|hochzeitstag|jahrestag",
    "blood type": "blood type|blood group|blutgruppe",
    "shoe size": "shoe size|schuhgröße",
    "timezone": "timezone|time zone|zeitzone",
    "pronouns": "pronouns|pronoun|pronomen",
    "insurance": "insurance|health insurance|krankenkasse|versicherung",
    "school": "school|kita|kindergarten|schule",
    "language": "preferred language|language|sprache|bevorzugte sprache|muttersprache",
    "emergency contact": "emergency contact|notfallkontakt",
    "dose": "dose|dosage|dosis",
    "editor": "editor",
    "os": "os|operating system|betriebssystem",
    "deadline": "deadline|due date|frist|abgabetermin|release date|launch date",
    "size": "size|team size",
}.items():
    for _noun in _nouns.split("|"):
        ATTRIBUTE_NOUNS[_noun] = _attr
# Keys of `Key: value` lines that name an attribute only as a key ("Phone: …" is the phone
# number; "Mia's phone is an iPhone" is the device).
KEY_ATTRIBUTES = {"phone": "phone number", "tel": "phone number", "telephone": "phone number",
                  "telefon": "phone number", "handy": "phone number", "mobil": "phone number",
                  "cell": "phone number", "number": "phone number", "nummer": "phone number",
                  "mail": "email", "e-mail": "email"}
# Attributes that hold many values at once: a new one is added, not replacing.
MANY_VALUED = frozenset({"allergy", "language-spoken", "pet", "hobby", "possession", "like",
                         "dislike", "interest", "skill", "preference", "child", "sibling", "friend",
                         "health", "habit"})
MANY_KEYS = frozenset({
    "preference", "preferences", "pet", "pets", "hobby", "hobbies", "allergy", "allergies",
    "interest", "interests", "skill", "skills", "like", "likes", "dislike", "dislikes", "note",
    "notes", "tag", "tags", "language spoken", "languages", "haustier", "haustiere", "allergie",
    "allergien", "vorliebe", "vorlieben", "interesse", "interessen", "kind", "kinder", "child",
    "children", "friend", "friends", "fact", "facts", "info", "habit", "habits", "goal", "goals",
    "project", "projects", "sport", "sports", "tool", "tools", "diet restriction",
})
# Values that fall in one class, for "switched to" and "uses X" / "uses Y".
CLASSES: dict[str, str] = {}
for _cls, _members in {
    "phone": "iphone|pixel|galaxy|android|fairphone|nokia|xiaomi|oneplus|smartphone|handy|"
             "android-handy|blackberry|motorola|huawei",
    "laptop": "macbook|thinkpad|laptop|chromebook|xps|surface|notebook|zenbook|framework",
    "os": "windows|linux|macos|mac os|ubuntu|fedora|debian|arch|chromeos|freebsd|mint",
    "editor": "vim|neovim|nvim|emacs|vs code|vscode|visual studio code|sublime|sublime text|"
              "helix|zed|intellij|pycharm|nano|atom|cursor|webstorm|kate",
    "car": "car|golf|tesla|vw|volkswagen|toyota|yaris|kia|ev6|opel|astra|skoda|enyaq|fiat|"
           "panda|ford|volvo|renault|model 3|model y|polo|corolla|prius|truck|auto|e-bike|mini|"
           "octavia|bmw|audi|mercedes|honda|civic|hyundai|mazda|nissan|peugeot|citroen|seat",
    "drink": "coffee|tea|matcha|espresso|decaf|chai|rooibos|kaffee|tee|mate|cocoa|kakao|latte|lattes|"
             "flat white|flat whites|cappuccino|cappuccinos|americano|americanos|green tea|"
             "black tea|herbal tea|oat latte|oat lattes|cold brew|filter coffee|mocha",
    "browser": "firefox|chrome|safari|edge|brave|arc|opera|vivaldi|chromium",
    "music app": "spotify|apple music|tidal|deezer|youtube music",
    "messenger": "whatsapp|signal|telegram|threema|imessage",
    "notes app": "notion|obsidian|evernote|onenote|bear|logseq|apple notes",
    "milk": "oat milk|almond milk|soy milk|cow's milk|milk|hafermilch|mandelmilch|sojamilch",
    "school": "kindergarten|preschool|pre-school|nursery|primary school|secondary school|"
              "elementary school|middle school|high school|school|kita|grundschule|schule|"
              "gymnasium|realschule|university|college|uni|universität",
    "diet": "vegetarian|vegan|pescatarian|vegetarier|vegetarierin|veganer|veganerin|"
            "vegetarisch|omnivore|carnivore|flexitarian",
    "status": "single|married|engaged|divorced|widowed|separated|in a relationship|ledig|"
              "verheiratet|verlobt|geschieden|verwitwet|getrennt|vergeben",
    "handed": "left-handed|right-handed|linkshänder|rechtshänder|linkshänderin|rechtshänderin",
    "language": "english|german|spanish|french|italian|portuguese|dutch|polish|turkish|arabic|"
                "japanese|chinese|mandarin|russian|swedish|norwegian|danish|irish|greek|hindi|"
                "englisch|deutsch|spanisch|französisch|italienisch|portugiesisch|niederländisch|"
                "polnisch|türkisch|arabisch|japanisch|chinesisch|russisch|schwedisch",
    "theme": "dark|light|dark mode|light mode",
    "colour": "red|blue|green|black|white|silver|yellow|grey|gray|orange|purple|pink|brown|beige|"
              "teal|navy|gold|turquoise|rot|blau|grün|schwarz|weiß|gelb|grau|lila|rosa|braun",
    "commute": "bus|train|tram|bike|car|foot|subway|metro|u-bahn|s-bahn|rad|fahrrad|zug|bahn",
}.items():
    for _m in _members.split("|"):
        CLASSES.setdefault(_m, _cls)
OCCUPATIONS = frozenset("""
engineer developer programmer designer manager nurse teacher doctor physician student
pharmacist paramedic baker carpenter accountant midwife lawyer architect scientist researcher
postdoc professor lecturer consultant analyst sre devops chef cook waiter waitress journalist
writer editor photographer artist musician electrician plumber mechanic driver pilot farmer
firefighter police officer soldier therapist psychologist dentist vet veterinarian librarian
cashier clerk secretary assistant intern apprentice founder ceo cto cfo entrepreneur freelancer
translator tutor coach trainer nanny caregiver retiree retired unemployed phd maintainer
lehrer lehrerin ingenieur ingenieurin entwickler entwicklerin krankenpfleger krankenschwester
pflegerin arzt ärztin studentin student schulleiter schulleiterin bäcker bäckerin
anwalt anwältin architektin wissenschaftler wissenschaftlerin erzieher erzieherin rentner
rentnerin verkäufer verkäuferin polizist polizistin tischler tischlerin koch köchin
""".split())
# Nouns of things that happen at a time: "has an appointment" is not a possession.
EVENT_NOUNS = frozenset("""
appointment meeting interview call exam test class lesson party date flight trip visit
session surgery operation checkup check-up concert game match talk presentation deadline
termin prüfung besprechung flug reise operation konzert spiel vortrag
""".split())
HEALTH = frozenset("""
allergic allergy allergies asthma diabetes diabetic diabetikerin diabetiker epilepsy migraine
migraines intolerant intolerance coeliac celiac glasses lenses deaf blind colour-blind
color-blind disability pregnant inhaler insulin hypertension adhd autism autistic dyslexic
dyslexia arthritis allergisch asthmatiker brille schwerhörig blutgruppe
""".split())

# Words that negate the predicate when they stand before its value.
NEG_WORDS = frozenset({"not", "no", "never", "nicht", "kein", "keine", "keinen", "keinem",
                       "keiner", "nie", "niemals", "n't"})
NEG_VERBS = frozenset({"quit", "stop", "give", "left", "leave", "sell", "sold", "finish", "drop",
                       "cancel", "break", "aufhör", "aufgehör", "aufgegeb", "aufgeb", "verkauf",
                       "gekündig", "kündig", "abgemeld", "ausgestieg", "ausgezog"})
NEG_PHRASES = re.compile(
    r"\bno longer\b|\bnot\b.*\b(?:anymore|any more|any longer)\b|\bn't\b.*\b(?:anymore|any more|"
    r"any longer)\b|\bnicht mehr\b|\bkein\w*\b.*\bmehr\b|\bgave up\b|\bgive up\b|\bbroke up\b|"
    r"\bstopped\b(?!\s+(?:by|at|in|over)\b)|\bquit\b|\bno more\b|\bsold\b|\baufgehört\b|"
    r"\baufgegeben\b|\bverkauft\b|\bgekündigt\b|\bfinished\b|\bleft\b(?!\s+(?:by|at|in|for|to|from|on|early|late|home|work|"
    r"school|town)\b)|\bex-", re.I)
CHANGE = re.compile(
    r"\bnow\b|\bnew\b|\bnewly\b|\bswitched\b|\bswitch(?:es)? to\b|\bmoved\b|\bchanged\b|\bbecame\b|"
    r"\bactually\b|\bin fact\b|\bafter all\b|\bcorrect(?:ion|ed)?\b|\bjoined\b|\brelocated\b|"
    r"\bpushed\b|\bpostponed\b|\brescheduled\b|\bgrown\b|\bgrew to\b|\bwent up\b|\bwent down\b|"
    r"\brose\b|\braised\b|\bincreased\b|\bdropped\b|\bfell\b|\bjetzt\b|\binzwischen\b|"
    r"\bmittlerweile\b|\bneue[nrsm]?\b|\bseit kurzem\b|\bumgestiegen\b|\bumgezogen\b|\bgezogen\b|"
    r"\beigentlich\b|\bin wahrheit\b|\bverschoben\b|\berhöht\b|\bgesenkt\b|\bgewechselt\b|"
    r"\bnun\b|\bstattdessen\b|\binstead\b|\bsondern\b|\bthese days\b", re.I)
AGAIN = re.compile(r"\bagain\b|\bwieder\b|\bstarted\b|\bbegan\b|\bangefangen\b|\bbegonnen\b|"
                   r"\bresumed\b|\bback to\b", re.I)
ADDED = re.compile(r"\balso\b|\btoo\b|\bas well\b|\bauch\b|\bebenfalls\b|\bzusätzlich\b|"
                   r"\banother\b|\bnoch ein", re.I)
_MARKERS = frozenset({"now", "new", "newly", "actually", "again", "still", "currently", "jetzt",
                      "inzwischen", "mittlerweile", "neue", "neuer", "neuen", "neues", "neuem",
                      "eigentlich", "wieder", "nun", "seit", "kurzem", "after", "fact", "really",
                      "occasionally", "instead", "stattdessen", "sondern", "anymore", "longer",
                      "mehr", "gerade", "these", "days", "officially", "finally", "all"})
PRONOUNS_EN = {"i": "@user", "we": "@user", "me": "@user", "she": "@main", "he": "@main",
               "they": "@main", "it": "@main", "ich": "@user", "wir": "@user", "sie": "@main",
               "er": "@main", "es": "@main"}
POSSESSIVE_PRONOUNS = {"my": "@user", "our": "@user", "her": "@main", "his": "@main",
                       "their": "@main", "its": "@main", "mein": "@user", "meine": "@user",
                       "meinen": "@user", "meinem": "@user", "meiner": "@user", "unser": "@user",
                       "unsere": "@user", "ihr": "@main", "ihre": "@main", "ihren": "@main",
                       "sein": "@main", "seine": "@main", "seinen": "@main"}
ARTICLES = frozenset({"the", "a", "an", "der", "die", "das", "den", "dem", "des", "ein", "eine"})
COPULA = frozenset({"be", "is", "are", "am", "was", "were", "ist", "sind", "bin", "war", "waren",
                    "beträgt", "betragen", "liegt", "heißt", "become", "became", "wurde", "wird",
                    "'s"})
AUX_EN = frozenset({"is", "are", "am", "was", "were", "has", "have", "had", "does", "do", "did",
                    "will", "can", "would", "'s", "'re", "isn't", "doesn't", "don't", "didn't",
                    "wasn't", "hasn't", "won't"})
# Verbs that end what they govern: "quit smoking", "left Siemens", "sold her Golf".
_ENDING = re.compile(r"\b(?:gave up|give up|gives up|stopped|quit|finished|broke up|left|sold|"
                     r"aufgehört|aufgegeben|verkauft|gekündigt)\b"
                     # "stopped by her mother's", "left for Lisbon", "left work early": no ending
                     r"(?!\s+(?:by|at|in|for|to|from|on|off|over|behind|around|early|late|home|work|"
                     r"school|town|the house|the office)\b)"
                     r"(?:\s+(?:with|mit|her|his|their|my|the|den|die|das|dem|seinen|ihren|seine|ihre))*",
                     re.I)
# The subject itself is gone: "Mia's cat died", "Jonas' Katze ist gestorben".
_GONE = re.compile(r"\b(?:died|passed away|was put down|was put to sleep|ran away|was rehomed|"
                   r"was stolen|gestorben|verstorben|eingeschläfert|weggelaufen|gestohlen)\b", re.I)
_KEY = re.compile(r"^\s*([A-Za-zÄÖÜäöüß][\w /’.-]{0,38}?)\s*:(?!\d)\s*(\S.*)$")
_NUMBER = re.compile(r"^\d+(?:[.,:]\d+)*$")
_PLACEISH = re.compile(r"^[A-ZÄÖÜ]")


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
    text: str = field(default="", compare=False)


# -- reading a line -----------------------------------------------------------------------------------
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


_ADVERBS = frozenset({"now", "still", "also", "actually", "currently", "usually", "always",
                      "often", "never", "no", "longer", "just", "really", "finally", "recently",
                      "sometimes", "already", "mostly", "rarely", "only", "officially", "newly"})
_LEXICAL_AUX = frozenset({"does", "do", "did", "doesn't", "don't", "didn't", "will", "won't",
                          "can", "can't", "cannot", "would", "should", "might", "may", "must"})


def _is_verb(tok: str, german: bool, context: str) -> bool:
    """Whether a token is the finite verb, given what came before it:
    ``start``, ``name`` (a name or pronoun), ``possessive`` (right after one),
    ``head`` (a singular noun) or ``heads`` (a plural noun)."""
    w = tok.lower().replace("’", "'")
    if german:
        return context != "start" and tok[0].islower() and (
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
        return bool(self.head) and self.head.split()[-1] not in _PERSON_NOUNS


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
        if not german and low in _ADVERBS and context != "possessive":
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
        if _NUMBER.match(tok) and head:
            head.append(low)  # "bike number 3", "room 12": the number names which one
            i += 1
            continue
        if tok[0].isupper() or _NUMBER.match(tok):
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
        if verb_raw in _LEXICAL_AUX or verb_raw.endswith("n't"):
            while j < len(toks) and toks[j].lower() in ("not", "no", "longer", "ever", "really",
                                                        "even"):
                j += 1
            if j < len(toks) and toks[j].lower() in EN_VERB_FORMS:
                lexical = toks[j].lower()
        elif verb_raw in ("is", "are", "am", "was", "were", "'s") and j < len(toks):
            while j < len(toks) and toks[j].lower() in _ADVERBS:
                j += 1
            if j < len(toks) and toks[j].lower().endswith("ing") and toks[j].lower() in EN_VERB_FORMS:
                lexical = toks[j].lower()
        elif verb_raw in ("has", "have", "had") and j < len(toks):
            while j < len(toks) and toks[j].lower() in _ADVERBS:
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
    for piece in _STRONG.split(text):
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
                if low in PRONOUNS_EN or (german and nxt[0].islower() and low not in STOP) or (
                        not german and _is_verb(nxt, False, "name")):
                    out.append(" ".join(toks[start:k]))
                    start = k + 1
        out.append(" ".join(toks[start:]))
    return [p for p in out if p.strip(" ,.")]


_STRONG = re.compile(r";|\s+—\s+|,\s*(?=(?:but|so|sondern|stattdessen|aber|instead)\b)"
                     r"|\s+(?=(?:but|sondern|stattdessen|instead)\b)")


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
        if (low in STOP or low in _MARKERS or low in NEG_WORDS) and not (w[0].isupper() and len(w) > 2
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


def _classes(text_low: str, tokens: list[str]) -> set[str]:
    found = {CLASSES[t] for t in tokens if t in CLASSES}
    found.update(CLASSES[m] for m in _MULTIWORD.findall(text_low))
    return found


def claims_of(text: str, names: frozenset[str] = frozenset()) -> list[Claim]:
    """The claims of a line (see the module docstring).  ``names`` are the
    user's own names ("mia"): a line about them is about "@user"."""
    return list(_claims(text, frozenset(names)))


@lru_cache(maxsize=16384)
def _claims(text: str, names: frozenset[str]) -> tuple[Claim, ...]:
    return tuple(_read_claims(text, names))


def _read_claims(text: str, names: frozenset[str]) -> list[Claim]:
    aliases = {n.lower() for n in names}
    # A quoted title is one name: 'Leave No Trace' negates nothing.
    text = QUOTED.sub(lambda m: " " + "_".join(words(m.group(0))) + " ", text)
    german = is_german(text)
    key = _KEY.match(text)
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
        first_tok = words(body)[:1]
        starts_with_verb = bool(first_tok) and previous is not None and not german and \
            first_tok[0][0].islower() and _is_verb(first_tok[0], german, "name")
        clause = _parse_clause(body, german, main) if body and not starts_with_verb else None
        if clause is None and previous is not None:
            # ellipsis: "…, sondern bei Audi", "stattdessen Tee", "and joined Zalando"
            toks = words(body)
            if toks and toks[0].lower() not in STOP and _is_verb(toks[0], german, "name") and not german:
                clause = _Clause(set(previous.subjects), previous.owner, previous.head,
                                 _verb_stem(toks[0], german), toks[0], toks[1:], toks, body)
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


def _key_claim(key: str, value: str, aliases: set[str]) -> Claim:
    k = " ".join(spelling(w.lower()) for w in words(key))
    attr = ATTRIBUTE_NOUNS.get(k) or KEY_ATTRIBUTES.get(k)
    singular = k[:-1] if k.endswith("s") and not k.endswith("ss") else k
    many = k in MANY_KEYS or singular in MANY_KEYS or (attr is None and k.endswith("s") and not
                                                       k.endswith("ss") and singular not in
                                                       ATTRIBUTE_NOUNS)
    value_toks = _value_tokens(words(re.sub(r"\(.*?\)", " ", value)))
    if attr is None and k.startswith(("favorite ", "favourite ", "lieblings")):
        attr = "favorite " + k.split(" ", 1)[-1] if " " in k else k
    if attr is None and k.startswith("lieblings"):
        attr = k
    low = value.lower()
    return Claim(frozenset({"@user"}), None, attr or f"key:{singular}", tuple(value_toks), "",
                 frozenset(stem(w) for w in value_toks), negated=bool(NEG_PHRASES.search(low)),
                 change=bool(CHANGE.search(low)), many=many and attr is None,
                 frame=tuple(stem(w) for w in value_toks),
                 classes=frozenset(_classes(low, [w.lower() for w in words(value)])), text=value)


_DATED_PAST = re.compile(r"\b(?:in|im|seit|since)? ?(?:19|20)\d\d\b|\b(?:in|im) (?:January|February|"
                         r"March|April|May|June|July|August|September|October|November|December|"
                         r"Januar|Februar|März|Mai|Juni|Juli|Oktober|Dezember)\b")
_PAST_EN = re.compile(r"^(?:[a-z]+ed|was|were|had|did|left|quit|sold|ran|went|got|made|took|"
                      r"began|grew|met|became|gave|broke|came|found|bought|won|lost|wrote|flew|"
                      r"drove|spent|taught|studied|born)$")


def _claim(c: _Clause, piece: str, line: str, german: bool) -> Claim:
    low = piece.lower()
    rest_low = [w.lower().replace("’", "'") for w in c.rest]
    verb = c.verb
    raw = c.verb_raw.lower().replace("’", "'")
    negated = bool(NEG_PHRASES.search(low)) or raw.endswith("n't") or \
        any(w in NEG_WORDS for w in rest_low[:2]) or (german and any(w in NEG_WORDS for w in rest_low))
    # "called Bruno, not Bruhno": a correction, not a negation
    if re.search(r",\s*(?:not|nicht)\s+\w+\s*$", piece, re.I) and not NEG_PHRASES.search(low):
        negated = raw.endswith("n't")
    ended = _ENDING.search(low)
    if ended:
        negated = True
    gone = bool(_GONE.search(low))
    if gone:
        negated = True
    change = bool(CHANGE.search(low))
    again = bool(AGAIN.search(low))
    added = bool(ADDED.search(low))
    value = _value_tokens(c.rest)
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
        after = [w for w in words(piece[ended.end():]) if w.lower() not in STOP
                 and w.lower() not in _MARKERS][:3]
        negates = frozenset(stem(spelling(w.lower())) for w in after)
    else:
        negates = content
    classes = _classes(" ".join([raw, *rest_low]), [raw, *rest_low])
    past = bool(_PAST_EN.match(raw)) if not german else bool(
        re.search(r"\b(?:war|waren|hatte|hatten)\b", low) or (
            raw in ("hat", "ist", "sind", "haben") and rest_low and
            re.match(r"^\w{0,7}ge\w{2,}(?:t|en)$", rest_low[-1])))
    dated_past = past and bool(_DATED_PAST.search(piece))
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
                 piece)


def _attribute(c: _Clause, low: str, rest: list[str], value: list[str], classes: set[str],
               german: bool) -> tuple[str | None, bool, list[str], list[str]]:
    """The attribute a clause speaks of: (name, many-valued, value, frame)."""
    verb = c.verb
    raw = c.perfect or c.verb_raw.lower()
    head = c.head
    copula = raw in COPULA or verb in ("be", "sein", "becom", "become") or raw in ("heißt",)
    rest_text = " ".join(rest)
    frame = [stem(w) for w in value]
    # "has a job interview at Zalando", "hat einen Termin": an event, not a state.
    if any(w in EVENT_NOUNS or w.endswith(("termin", "appointment", "interview")) for w in rest):
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
                        "handle", "employer", "manager", "partner", "office number", "blood type"):
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
    # 3. Where one lives, works; where one comes from.
    if verb in ("live", "wohn") or raw in ("lives", "live", "wohnt", "wohne", "wohnen", "lived"):
        if re.search(r"^(?:\w+ )?(?:with|mit|together|zusammen|alone|allein|alleine|by herself|"
                     r"by himself|on (?:her|his) own)\b", rest_text.lower()):
            return "household", False, value, frame
        return "home", False, _places(c.rest) or value, frame
    if re.search(r"\b(?:moved|moving|moves|relocated|relocating|relocates)\b.*\b(?:to|into)\b", low) or \
            re.search(r"\b(?:zieht|ziehe|zog)\b.*\bnach\b|\bnach\b.*\b(?:gezogen|umgezogen)\b|"
                      r"\bumgezogen\b|\bist nach\b", low):
        places = _places(c.rest)
        target = re.search(r"\b(?:to|into|nach)\s+(\S+)", piece_of(c))
        if places and target and (target.group(1)[0].isupper() or german) and \
                not re.match(r"\d", target.group(1)) and not c.owner_is_thing():
            return "home", False, places, frame
    if re.search(r"\b(?:grew up|was born|born in|aufgewachsen|geboren)\b", low):
        return "origin", False, _places(c.rest) or value, frame
    if verb in ("work", "arbeit") or raw in ("works", "work", "worked", "arbeitet", "arbeite"):
        after = [w.lower() for w in c.lexical_rest if w.lower() not in _WORK_ADVERBS]
        prep = after[0] if after else ""
        if prep in ("as", "als"):
            return "occupation", False, value, frame
        if prep in ("in", "im") and c.rest[1:2] and c.rest[1][0].isupper() and len(value) == 1:
            return "workplace", False, value, frame
        if prep in ("from", "von") or not after:
            return f"work:{' '.join(value)}", False, value, frame
        return "employer", False, _places(c.rest) or value, frame
    if raw in ("joined", "joins", "join") or re.search(r"\b(?:joined|fängt bei|angefangen bei|"
                                                     r"started at|starts at|starting at)\b", low):
        return "employer", False, _places(c.rest) or value, frame
    if re.search(r"\b(?:left|quit|gekündigt|aufgehört bei)\b", low) and _places(c.rest):
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
    if c.verb_raw.lower() in COPULA or raw in COPULA:
        for special in ("diet", "status", "handed"):
            if special in classes:
                return special, False, _class_value(low, special) or value[:2], frame
        plain = [w for w in rest if w not in _MARKERS and w not in _ADVERBS]
        if "colour" in classes and c.owner_is_thing() and len(plain) <= 2:
            return "colour", False, _class_value(low, "colour"), frame  # "Sam's bike is red"
    # 5. "is a nurse", "ist Lehrer", "is vegetarian", "is single": a class or an adjective.
    if copula and rest:
        words_after = [w for w in rest if w not in ARTICLES and w not in NEG_WORDS and w not in
                       _MARKERS and w not in ("not", "no", "longer", "kein", "keine", "mehr")]
        if any(w in OCCUPATIONS for w in words_after[:4]) and not c.owner_is_thing():
            return "occupation", False, value, frame
        if words_after and words_after[0] in ("allergic", "allergisch", "intolerant"):
            return "allergy", True, value[1:], frame
        qty = _quantity(rest)
        if qty:
            return _qty_attribute(qty, verb, raw, copula, value), False, qty[1], frame
        plain = [w for w in rest if w not in _MARKERS and w not in _ADVERBS]
        if c.owner is not None and plain and plain[0] in ("a", "an", "ein", "eine", "einen") and \
                c.owner_is_thing():
            return "kind", False, value, frame  # "Mia's dog is a beagle"
        if len(plain) == 1 and re.fullmatch(r"\d+", plain[0]) and not c.owner_is_thing():
            return "qty:age", False, plain, frame  # "Lea is now 7"
        thing = c.owner_is_thing() or (bool(c.head) and not c.owner and not c.first)
        if thing and (re.match(r"^(?:at|um|on|am)\b", rest_text) or _moved_to(low)
                      or _DATEISH.search(rest_text) or _WHEN_WORDS.search(rest_text)):
            when_words = [w for w in rest if re.match(r"\d", w) or w[:3] in _MONTH3
                          or _WHEN_WORDS.fullmatch(w) or w in _RELATIVE_DAYS]
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
        when_words = [w for w in rest if re.match(r"\d", w) or w[:3] in _MONTH3]
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
_QTY = re.compile(r"^(\d+(?:[.,]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
                  r"twelve|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|zwölf)$")
_UNIT_WORDS = {"people": "people", "persons": "people", "person": "people", "leute": "people",
               "personen": "people", "mitarbeiter": "people", "members": "people",
               "years": "age", "year": "age", "jahre": "age", "jahr": "age",
               "euros": "money", "euro": "money", "eur": "money", "dollars": "money",
               "dollar": "money", "pounds": "money", "€": "money", "$": "money", "£": "money",
               "kg": "kg", "kilos": "kg", "kilo": "kg", "lbs": "kg", "cm": "cm", "km": "km",
               "minutes": "min", "min": "min", "minuten": "min", "hours": "h", "stunden": "h",
               "mg": "mg", "ml": "ml"}


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
    return [w.lower() for w in rest if _PLACEISH.match(w) and w.lower() not in STOP]


def _moved_to(low: str) -> bool:
    return bool(re.search(r"\b(?:moved|pushed|postponed|rescheduled|changed|delayed|shifted|"
                          r"verschoben|verlegt)\b(?: back)? (?:to|until|auf)\b|\bauf \S+ (?:\S+ )?"
                          r"verschoben\b", low))


def _change_verb(verb: str, raw: str) -> bool:
    return raw in ("grown", "grew", "rose", "went", "increased", "dropped", "fell", "raised",
                   "erhöht", "gestiegen", "gesunken", "gesenkt", "wurde") or verb in (
        "grow", "rise", "increas", "drop", "rais", "erhöh", "steig")


def piece_of(c: _Clause) -> str:
    return c.text


_PERSON_NOUNS = frozenset("""
sister brother mother father mom mum dad parent parents son daughter child kid kids wife husband
partner friend boss manager colleague neighbour neighbor cousin aunt uncle grandmother
grandfather grandma grandpa niece nephew girlfriend boyfriend fiance fiancee team
schwester bruder mutter vater eltern sohn tochter kind kinder frau mann partnerin freund freundin
chef chefin kollege kollegin nachbar nachbarin cousine oma opa onkel tante
""".split())


# -- deciding ---------------------------------------------------------------------------------------
def _same_subject(a: Claim, b: Claim) -> bool:
    return bool(a.subjects & b.subjects)


def _overlap(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> bool:
    return bool({w for w in a if len(w) > 2} & {w for w in b if len(w) > 2})


def _frame_differs_in_slot(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Same frame, another value: "dark mode in every app" / "light mode in every app"."""
    common = set(a) & set(b)
    if not {w for w in common if len(w) > 2}:
        return False
    da, db = [w for w in a if w not in common], [w for w in b if w not in common]
    return 0 < len(da) <= 2 and 0 < len(db) <= 2


def decide(older: Claim, newer: Claim) -> bool:
    """Whether the newer claim replaces the older one."""
    if newer.added and not newer.change and not newer.negated:
        return False
    if older.dated_past and newer.dated_past:
        return False  # two events in history: both stay true
    same = _same_subject(older, newer)
    owned = older.owner is not None and older.owner in newer.subjects
    # "Mia's cat Luna died" ends "Mia has a cat called Luna" and "Mia's cat is a tabby".
    if newer.negated and newer.owner is not None and newer.owner in older.subjects and \
            _GONE.search(newer.text) and _overlap(newer.negates, older.content | frozenset(
                stem(w) for w in older.value)):
        return True
    if same and newer.negated and _GONE.search(newer.text) and not older.negated and not older.past:
        return True  # what was true of it stays history: "Mia's father was a teacher"
    if not same and not owned:
        return False
    o_all = older.content | frozenset(older.value) | frozenset(stem(w) for w in older.value)
    n_obj = newer.content - {newer.verb}
    n_neg = (newer.negates or newer.content) - {newer.verb}
    if same and older.attribute and older.attribute == newer.attribute:
        if older.many:
            if older.attribute in ("preference",) or older.attribute.startswith("key:"):
                if older.negated != newer.negated and set(older.frame) == set(newer.frame):
                    return True
                return _frame_differs_in_slot(older.frame, newer.frame) and not newer.added
            return older.negated != newer.negated and (
                set(older.value) == set(newer.value) or _overlap(set(older.value), set(newer.value)))
        if older.negated != newer.negated:
            return True
        return older.value != newer.value and bool(newer.value)
    # A negation of what the older said: "no longer drinks coffee", "sold her Golf", "quit smoking".
    if newer.negated and not older.negated and not newer.dated_past:
        heads = frozenset(stem(w) for s in older.subjects if "'s " in s for w in s.split("'s ", 1)[1].split())
        if _overlap(o_all, n_neg) or (owned and _overlap(heads, n_neg)):
            return True
    # A reversal of a negation: "doesn't drink alcohol" -> "drinks wine again".
    if older.negated and not newer.negated and same and older.verb and (
            newer.verb == older.verb or older.verb in newer.content) and (
            newer.again or newer.change or _overlap(older.content - {older.verb}, n_obj)):
        return True
    # A switch within one class: "uses an iPhone 12" -> "switched to a Pixel 8".
    if same and newer.change and older.classes & newer.classes - {"commute", "language"} and \
            (older.attribute or "").split(":")[0] in {"uses", "car", "possession", "switched", "",
                                                      (newer.attribute or "").split(":")[0]}:
        return True
    # "drinks oat lattes" -> "switched to flat whites": a switch from what one uses or consumes,
    # unless the two are known to be of different classes.
    if same and newer.attribute in ("switched",) or (same and newer.attribute and
                                                     newer.attribute.startswith("uses:") and newer.change):
        if older.verb in _USE_VERBS and not older.negated and not older.added and \
                not (older.classes and newer.classes and not older.classes & newer.classes) and \
                not (older.attribute or "").startswith(("uses-for", "key:")):
            return True
    # Same frame, a new value, and the newer says it changed: "switched to almond milk in her coffee".
    if same and newer.change and not newer.added and older.attribute not in ("home", "employer") and \
            _frame_differs_in_slot(tuple(stem(w) for w in older.value),
                                   tuple(stem(w) for w in newer.value)) and \
            (older.attribute == newer.attribute or newer.attribute in (None, "switched") or
             older.attribute is None):
        return True
    # Single-valued attributes worded differently on the two sides.
    return False


# What one uses or consumes: "drinks oat lattes" -> "switched to flat whites".
_USE_VERBS = frozenset({"us", "use", "drink", "eat", "nutz", "trink", "ess", "verwend"})


def is_update(older: str, newer: str, names: frozenset[str] = frozenset()) -> str:
    """``"update"`` when ``newer`` replaces ``older`` (same subject and
    attribute), else ``"coexist"``."""
    olds, news = claims_of(older, names), claims_of(newer, names)
    for o in olds:
        for n in news:
            if decide(o, n):
                return "update"
    return "coexist"


def durable_attribute(text: str, claims: list[Claim] | None = None) -> str | None:
    """The durable attribute a line states, if any (home, employer, health …)."""
    for c in claims if claims is not None else claims_of(text):
        if c.attribute is None:
            continue
        base = c.attribute.split(":")[0]
        if base in DURABLE_ATTRIBUTES or c.attribute.startswith(("favorite", "lieblings")):
            return base
    return None


DURABLE_ATTRIBUTES = frozenset({
    "home", "address", "employer", "occupation", "workplace", "work", "phone number",
    "office number", "email", "name", "manager", "partner", "spouse", "girlfriend", "boyfriend",
    "fiance", "age", "weight", "height", "rent", "salary", "commute", "bank", "doctor", "dentist",
    "handle", "birthday", "anniversary", "blood type", "shoe size", "timezone", "pronouns",
    "insurance", "school", "language", "emergency contact", "dose", "editor", "os", "origin",
    "household", "diet", "status", "handed", "allergy", "health", "language-spoken", "hobby",
    "possession", "like", "dislike", "preference", "education", "uses", "uses-for", "car", "kind",
    "key", "qty", "favorite", "switched", "adj", "isa", "size",
})


__all__ = ["Claim", "claims_of", "decide", "durable_attribute", "is_update", "replace"]
