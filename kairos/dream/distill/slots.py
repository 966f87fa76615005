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
from datetime import date

from kairos.dream.distill import items, records, restated, when
from kairos.dream.distill.claims import Claim, claims_of
from kairos.dream.distill.lexicon import (
    ATTRIBUTE_NOUNS,
    CANCELLED,
    DURABLE_ATTRIBUTES,
    EVENT_NOUNS,
    GONE,
    PERSON_NOUNS,
)
from kairos.dream.distill.words import EN_VERB_FORMS, STOP, stem, words


def _same_subject(a: Claim, b: Claim) -> bool:
    """Whether two claims share a subject — but two relatives each named
    ("Sam's brother Tom", "Sam's brother Jon") are two people."""
    shared = a.subjects & b.subjects
    if not shared:
        return False
    names_a, names_b = _names(a.subjects), _names(b.subjects)
    if names_a and names_b and not names_a & names_b and shared.isdisjoint(names_a):
        return False
    # "Lena's sister Anna" and "Lena's colleague Anna": one name, two people.
    roles_a, roles_b = _roles(a.subjects), _roles(b.subjects)
    return not (roles_a and roles_b and roles_a.isdisjoint(roles_b))


def _roles(subjects: frozenset[str]) -> set[str]:
    """Who a subject is to someone ("lena's sister" -> sister), when it says."""
    return {s.split("'s ", 1)[1] for s in subjects
            if "'s " in s and s.split("'s ", 1)[1] in PERSON_NOUNS}


def _names_wrong(older: Claim, newer: Claim) -> bool:
    """Whether the newer corrects the older by naming what it got wrong
    ("…, not 6"), about the same subject and attribute — and says it is a
    correction, or the attribute is a known one ("drinks green tea in the
    evening, not coffee" corrects nothing)."""
    return bool(newer.wrong) and (newer.corrects_marked or older.attribute is not None) and \
        _same_subject(older, newer) and older.attribute == newer.attribute and \
        not older.negated and bool(newer.wrong & (frozenset(stem(w) for w in older.value)
                                                  | older.content))


def _owns(owner: str | None, subjects: frozenset[str]) -> bool:
    """Whether ``owner`` is one of the subjects — German genitives included
    ("Lenas Termin" is Lena's)."""
    return owner is not None and (owner in subjects or (
        owner.endswith("s") and len(owner) > 3 and owner[:-1] in subjects))


def _names(subjects: frozenset[str]) -> set[str]:
    return {s for s in subjects if " " not in s and "'" not in s and "’" not in s}


def _overlap(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> bool:
    return bool({w for w in a if len(w) > 2} & {w for w in b if len(w) > 2})


def _overlap_prefix(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> bool:
    """:func:`_overlap`, or one word beginning the other, five letters or
    more: the crude stems of "accountant" and "accounting" differ."""
    if _overlap(a, b):
        return True
    return any(x.startswith(y) or y.startswith(x) for x in a for y in b
               if min(len(x), len(y)) >= 5)


def _frame_differs_in_slot(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Same frame, another value: "dark mode in every app" / "light mode in every app"."""
    common = set(a) & set(b)
    if not {w for w in common if len(w) > 2}:
        return False
    da, db = [w for w in a if w not in common], [w for w in b if w not in common]
    return 0 < len(da) <= 2 and 0 < len(db) <= 2


def decide(older: Claim, newer: Claim, days: tuple[date | None, date | None] | None = None
           ) -> bool:
    """Whether the newer claim replaces the older one.  ``days``: the first
    day each line names, resolved against when it was written (the dream
    knows them; without, read from the words, absolute days only)."""
    if newer.added and not newer.change and not newer.negated:
        return False
    # "cancelled her trip to Rome" ends "is flying to Rome on 20 February".
    if CANCELLED.search(newer.text) and _calls_off(older, newer):
        return True
    # "postponed the Lisbon trip to March" moves "is flying to Lisbon on 12 February":
    # the plan is the newer line now, and the old day never comes.
    if _POSTPONED.search(newer.text) and not _POSTPONED.search(older.text) and \
            not _DELAY_OF_HOURS.search(newer.text) and _calls_off(older, newer):
        return True
    if newer.hedged and not newer.wrong:  # "wonders whether to move": nothing changed yet
        return False
    # "Rent was 880 EUR/month when we moved in": a value the newer says was, with no word of
    # now, is history beside "Rent: 950 EUR/month", not a new value of it.
    if _WAS_VALUE.search(newer.text) and not _WAS_VALUE.search(older.text) and \
            not _NOW.search(newer.text) and not newer.corrects:
        return False
    if _POSTPONED.search(newer.text) and newer.attribute != "when" or _DELAY_OF_HOURS.search(
            newer.text) and _POSTPONED.search(newer.text):
        return False  # "postponed her move to Hamburg": she lives where she lived
    # One for work, one private: "uses an iPhone for work" / "a Pixel for her private phone".
    purposes = _purpose(older.text), _purpose(newer.text)
    if all(purposes) and purposes[0] != purposes[1]:
        return False
    if older.dated_past and newer.dated_past and not _names_wrong(older, newer) and not (
            (newer.change or _running_total(older, newer)) and older.attribute and
            older.attribute == newer.attribute and _same_subject(older, newer) and
            _dates(older) and _dates(older) == _dates(newer)
    ) and not _moved_on(older, newer, days):
        return False  # two events in history: both stay true (unless one corrects the other:
        # "Actually, Mia ran 12 km on 1 March" — the same day, the same measure)
    same = _same_subject(older, newer)
    owned = _owns(older.owner, newer.subjects)
    # "takes metformin 500 mg" -> "the doctor raised the metformin to 1000 mg": the dose of
    # the drug the newer names, with a new amount and a word of change.
    drug = (older.attribute or "")[len("dose:"):] if (older.attribute or "").startswith("dose:") else ""
    if drug and (same or newer.subjects & older.subjects or "@user" in newer.subjects) and \
            stem(drug.split()[-1]) in newer.content | frozenset(stem(w) for w in newer.value) and \
            (newer.change or _DOSED.search(newer.text)) and not newer.negated and \
            {w for w in newer.value if w.isdigit()} - {w for w in older.value if w.isdigit()}:
        return True
    # "our rabbit is called Hoppel" -> "we renamed the rabbit to Karotte".
    renamed = _RENAMED.search(newer.text)
    if renamed and older.attribute == "called" and not older.negated:
        noun, name = (renamed.group(1) or renamed.group(3)).lower(), renamed.group(2) or renamed.group(4)
        if any(stem(s.split()[-1]) == stem(noun) for s in older.subjects) and \
                name.lower() not in older.value:
            return True
    # "Omar's father lives in Tangier" -> "has moved in with him": a home, without a place.
    if same and older.attribute == "home" and not older.negated and not newer.negated and \
            _MOVED_IN.search(newer.text) and not newer.plan and not newer.hedged:
        return True
    # "now cycles to work" -> "back to the S-Bahn for the winter": a switch of commute undone.
    if same and older.attribute == "commute" and older.change and _BACK.search(newer.text) and \
            "commute" in newer.classes and not newer.negated and not newer.hedged:
        return True
    # "commutes by S-Bahn, about 40 minutes" -> "now cycles to work": how one gets to work.
    if same and newer.change and newer.attribute == "commute" and not newer.added and (
            "commute" in older.classes or (older.attribute or "").startswith("commute")):
        return True
    # "can deadlift 100 kg" -> "Ben's deadlift is now 110 kg": the measure named as a noun.
    measured = {stem(s.split("'s ", 1)[1].split()[-1]) for s in newer.subjects if "'s " in s}
    if _owns(newer.owner, older.subjects) and measured & older.content and \
            (newer.attribute or "").startswith("qty:") and \
            (older.attribute or "").startswith(newer.attribute or "-") and not newer.added:
        return True
    # "Sara and Jonas broke up" ends "Sara has a boyfriend called Jonas"; "Omar and Lina
    # got married" ends "Omar's girlfriend is Lina": the couple, both named, changed.
    if _COUPLE.search(newer.text) and not older.negated and _a_couple(older) and \
            len(_people(older) & _people(newer)) >= 2:
        return True
    # "Mia's cat Luna died" ends "Mia has a cat called Luna" and "Mia's cat is a tabby".
    if newer.negated and _owns(newer.owner, older.subjects) and \
            gone(newer.text) and _overlap(newer.negates, older.content | frozenset(
                stem(w) for w in older.value)) and not _other_thing_named(older, newer):
        return True
    if same and newer.negated and gone(newer.text) and not older.negated and not older.past:
        return True  # what was true of it stays history: "Mia's father was a teacher"
    # "Pixel died last night" ends "Lena has a cat called Pixel": the one named is gone.
    gone_names = {s for s in newer.subjects if "'" not in s and not s.startswith("@")
                  and " " not in s} - older.subjects
    if newer.negated and gone(newer.text) and not older.negated and \
            gone_names & {w.lower() for w in proper_names(older.text)} and \
            not _other_thing_named(older, newer):
        return True
    # "Lena's dentist appointment moved to 17 March" -> "Lena has a dentist appointment on 10 March".
    # "Der Zahnarzttermin wurde auf Freitag verschoben" -> "Lena hat am Donnerstag einen Zahnarzttermin".
    # "Project Falcon launch deadline: 15 April" -> "Falcon launch slipped to April 29": its key names it.
    if newer.attribute == "when" and (_owns(newer.owner, older.subjects) or newer.owner is None) \
            and not older.negated and (older.attribute in (None, "when")
                                       or bool(older.key) and newer.owner is None):
        named = {_EVENT_VERBS.get(stem(w), stem(w)) for s in newer.subjects
                 for w in (s.split("'s ", 1)[1] if "'s " in s else s if newer.owner is None
                           else "").split()}  # "flight" is "flies"
        known = older.content | frozenset(stem(w) for w in older.key.split())
        events = {next((c for c in known if len(h) > 6 and h.startswith(c) and len(c) >= 6),
                       h) for h in named}  # the stemmer cuts "Zahnarzttermin" one letter shorter
        extra = newer.content - known - {stem(w) for w in newer.value} - _MOVE_WORDS
        if older.attribute not in (None, "when"):  # by its key: every word of the newer known
            extra |= {stem(w.lower()) for w in words(newer.text) if w.lower() not in STOP} - known - \
                {stem(w) for w in newer.value} - _MOVE_WORDS
        if events and events <= known and not extra and any(
                _is_date_word(w) for w in older.value):
            return True
    # "Dentist moved to 21 May" -> "Dentist appointment on 14 May …": a line with no verb of its own.
    if newer.attribute == "when" and same and older.attribute is None and not older.negated and \
            not older.past and any(_is_date_word(w) for w in older.value) and \
            not (newer.content - older.content - {stem(w) for w in newer.value} - _MOVE_WORDS):
        return True
    if _key_named(older, newer):
        return True
    if not same and not owned:
        return False
    # "allergic to cats, not dogs", "Correction: … on 28 February, not 1 March": what it names
    # as wrong is replaced.
    if _names_wrong(older, newer):
        return True
    o_all = older.content | frozenset(older.value) | frozenset(stem(w) for w in older.value)
    n_obj = newer.content - {newer.verb}
    n_neg = (newer.negates or newer.content) - {newer.verb}
    if newer.negated and not older.negated and (_PAUSE.search(newer.text) or (
            _ONE_OFF.search(newer.text) and not _ENDS_FOR_GOOD.search(newer.text))):
        return False  # "didn't play the piano today", "stopped running for two weeks": a pause
    if same and older.attribute and older.attribute == newer.attribute:
        if older.attribute in ("occupation", "employer", "workplace") and not newer.change and \
                not newer.negated and _ON_THE_SIDE.search(newer.text) and \
                not _ON_THE_SIDE.search(older.text):
            return False  # "works as a barista on weekends" beside "is an engineer at SAP"
        if older.many:
            if older.attribute in ("preference",) or older.attribute.startswith("key:"):
                if older.negated != newer.negated and set(older.frame) == set(newer.frame):
                    return True
                if newer.change and older.classes & newer.classes and not newer.added:
                    return True  # "Actually, Lena prefers tea" after "prefers coffee"
                return _frame_differs_in_slot(older.frame, newer.frame) and not newer.added
            return older.negated != newer.negated and (
                set(older.value) == set(newer.value) or _overlap(set(older.value), set(newer.value)))
        if newer.negated and not older.negated and newer.value and older.value and (
                _NOT.search(newer.text) or older.attribute in _PLACES_HELD) and not _overlap(
                {stem(w) for w in older.value}, {stem(w) for w in newer.value}):
            # "is not moving to Hamburg" leaves "lives in Berlin"; "quit her weekend
            # job at Café Rosa" leaves "works at Zalando" ("divorced" ends "married")
            return False
        if older.negated != newer.negated:
            return True
        return older.value != newer.value and bool(newer.value)
    # A plan that came true: "will switch to the Schule am Park" -> "started at the Schule am Park".
    if older.plan and not newer.plan and not newer.negated and same and newer.attribute and \
            _overlap(frozenset(stem(w) for w in older.value) - {older.verb, "mov", "move"},
                     frozenset(stem(w) for w in newer.value)):
        return True
    # A negation of what the older said: "no longer drinks coffee", "sold her Golf", "quit smoking".
    # Not an allergy or where one comes from ("stopped taking penicillin" leaves the allergy);
    # and what one sells is a thing one had ("sold her old piano" leaves "plays the piano").
    if newer.negated and not older.negated and older.attribute not in _LASTING and not (
            _SOLD.search(newer.text) and older.verb not in _OWN_VERBS):
        # The head nouns of the older's subjects ("Sam's son" -> son).
        head_words = [w for s in older.subjects if "'s " in s for w in s.split("'s ", 1)[1].split()]
        heads = frozenset(stem(w) for w in head_words)
        # On what the two say besides their verbs ("plays the cello" is not
        # ended by "stopped playing tennis"), or on the verb when either has
        # nothing besides ("smokes" -> "no longer smokes", "quit smoking").
        o_obj = o_all - {older.verb}
        n_obj_neg = n_neg - {older.verb, newer.verb}
        if n_obj_neg & {"job", "stelle"} and not n_obj_neg - {"job", "stelle"} and \
                older.attribute in ("employer", "occupation", "workplace") and same and \
                re.search(r"\b(?:her|his|their|my|the|ihre[nm]?|seine[nm]?)\s+(?:job|stelle)\b",
                          newer.text, re.I):
            return True  # "quit her job" ends where and as what she works
        said = (_overlap_prefix(o_obj, n_obj_neg) if o_obj and n_obj_neg
                else older.verb not in _EMPTY_VERBS
                and older.verb in (newer.negates or newer.content) | {newer.verb})
        # "sold her car" ends "owns a VW Golf": the class of the thing is named.
        said = said or bool(older.classes and older.classes & (newer.negates or frozenset()))
        # "no longer drinks coffee after 2pm" narrows "drinks coffee every morning", it does not end it.
        if _NARROWED.search(newer.text) and not _NARROWED.search(older.text):
            said = False
        # A fact about a relative ("Sam's son is vegetarian") is not ended by
        # one about the owner ("Sam is no longer vegetarian"); one about a
        # thing the owner has ("Mia's car is a Golf" -> "Mia sold her Golf") is.
        person = any(w in PERSON_NOUNS for w in head_words)
        # Who someone is to one ends only when they part: "stopped texting
        # Jonas" or "finished the report for Jonas" leaves him her husband.
        parted = older.attribute not in _PEOPLE or bool(_PARTED.search(newer.text))
        if parted and ((said and (same or (owned and not person))) or
                       (owned and _overlap(heads, n_neg))):
            return True
    # A reversal of a negation: "doesn't drink alcohol" -> "drinks wine again".
    if older.negated and not newer.negated and same and older.verb and (
            newer.verb == older.verb or older.verb in newer.content) and (
            newer.again or newer.change or _overlap(older.content - {older.verb}, n_obj)):
        return True
    # A switch within one class: "uses an iPhone 12" -> "switched to a Pixel 8"; and back:
    # "switched to VS Code" -> "is back on Vim".
    # Of a thing the owner has: "Mia's phone is a Pixel 7" -> "Mia switched to an iPhone 16".
    things = {s.split("'s ", 1)[1].split()[-1] for s in older.subjects if "'s " in s}
    theirs = owned and bool(things & older.classes & newer.classes)
    if (same or theirs) and (newer.change or _BACK.search(newer.text)) and \
            older.classes & newer.classes - {"commute", "language"} and \
            (older.attribute or "").split(":")[0] in {"uses", "car", "possession", "switched", "",
                                                      "kind", (newer.attribute or "").split(":")[0]}:
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
    if same and newer.change and not newer.added and (
            older.attribute not in ("home", "employer") or newer.attribute == "switched") and \
            _frame_differs_in_slot(tuple(stem(w) for w in older.value),
                                   tuple(stem(w) for w in newer.value)) and \
            (older.attribute == newer.attribute or newer.attribute in (None, "switched") or
             older.attribute is None):
        return True
    # Single-valued attributes worded differently on the two sides.
    return False


# The verb an event noun names: "Lena's flight … moved" updates "Lena flies …".
_EVENT_VERBS = {"fligh": "fly", "flug": "flieg", "drive": "driv", "ride": "rid"}
# "Physio on Thursday is off, moved to Tuesday, same time": what a move says beside the new day.
_MOVE_WORDS = frozenset("mov push postpo reschedul chang delay shif slip slipp rutsch verschieb "
                        "verschob verleg back to auf "
                        "off same time tim on am gleich zeit uhrzeit "
                        "be hav now wurd werd word ist sind hab".split())
_WORK = re.compile(r"\b(?:for work|work|business|office|job|dienstlich\w*|beruflich\w*|arbeit\w*)\b",
                   re.I)
_PRIVATE = re.compile(r"\b(?:private|personal|privat\w*|persönlich\w*|home)\b", re.I)
# A restriction of a habit to a time: "after 2pm", "at night", "on weekdays".
# A pause said with its end, whatever the verb: "stopped running for two weeks".
_PAUSE = re.compile(r"\bfor (?:a|an|one|two|three|four|five|six|\d+|a few|several|the next|a couple of) "
                    r"(?:days?|weeks?|months?)\b|\bfor lent\b|\bthis (?:winter|summer|spring|autumn|fall)\b|"
                    r"\bvorerst\b|\bvorübergehend\b|\bbis (?:\w+ ){0,4}(?:verheilt|vorbei|besser)\b|"
                    r"\buntil (?:\w+ ){0,4}(?:heals|healed|is better|gets better)\b|"
                    r"\buntil (?:the )?(?:spring|summer|autumn|fall|winter|easter|christmas|next \w+|"
                    r"january|february|march|april|may|june|july|august|september|october|november|"
                    r"december)\b|\bbis (?:januar|februar|märz|april|mai|juni|juli|august|september|"
                    r"oktober|november|dezember|zum sommer)\b|"
                    r"\bbis (?:ostern|weihnachten|zum (?:frühjahr|frühling|sommer|herbst|winter)|"
                    r"nächste\w* \w+)\b", re.I)
_ONE_OFF = re.compile(
    r"\b(?:today|tonight|tomorrow|yesterday|this (?:morning|afternoon|evening|week|weekend)|last night|"
    r"on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|on \d{1,2}(?:st|nd|rd|th)? \w+|"
    r"on the \d{1,2}|in the week of|for (?:a|an|one|two|three|four|five|six|seven|eight|\d+|a few|"
    r"several|the next) (?:days?|weeks?|months?)|heute|gestern|diese woche|am \d{1,2}\.|"
    r"am (?:montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)|für (?:\w+ )?(?:tage|wochen))\b",
    re.I)
_ENDS_FOR_GOOD = re.compile(r"\b(?:no longer|any ?more|stop(?:s|ped|ping)?|quit(?:s|ting)?|"
                            r"g[ai]ves? up|given up|giving up|never again|nicht mehr|kein\w* \w+ mehr|"
                            r"aufgehört|hört\b.*\bauf|gibt\b.*\bauf)\b", re.I)
_NARROWED = re.compile(r"\b(?:after|before) (?:\d|noon|midnight|dinner|lunch|bed|work|\w+day)|"
                       r"\bat (?:work|home|the office|night)\b|"
                       r"\bat night\b|\bin the (?:evening|morning|afternoon)s?\b|"
                       r"\bon (?:weekdays|weekends|workdays|week nights)\b|\bduring the week\b|"
                       r"\bnach \d|\babends\b|\bunter der woche\b", re.I)


_CANCEL_STEMS = frozenset("cancel cancell call off fell through abgesagt sag ab fäll aus storn".split())
_POSTPONED = re.compile(r"\b(?:postpone[sd]?|postponing|pushed back|push(?:es|ing)? back|delayed|"
                        r"rescheduled|put off|verschoben|verlegt|vertagt)\b", re.I)
_DELAY_OF_HOURS = re.compile(r"\b(?:by|um) (?:\w+ )?(?:minutes?|hours?|minuten|stunden)\b", re.I)
_NOT = re.compile(r"\b(?:not|never|nicht|nie|kein\w*)\b|n't\b", re.I)
_JOB_PLAN = re.compile(r"\b(?:offer|job|position|role|contract|start|angebot|stelle|vertrag)\b", re.I)
_MOVE_PLAN = re.compile(r"\b(?:move|moving|relocation|umzug|umziehen)\b", re.I)
_RECURRING = re.compile(r"\bevery\b|\beach\b|\bweekly\b|\bjede[nrsm]?\b|\bwöchentlich\b|"
                        r"\b\w+day (?:mornings|afternoons|evenings|nights)\b|"
                        r"\b(?:on )?(?:mon|tues|wednes|thurs|fri|satur|sun)days\b|\bimmer\b", re.I)
# Plans besides EVENT_NOUNS: what a cancellation names.
_EVENT_WORDS = frozenset("""dinner lunch breakfast brunch adoption wedding party trip holiday vacation
booking reservation session lesson course treffen essen abendessen mittagessen reise urlaub hochzeit
feier kurs training cinema kino movie film theatre theater show gig dance
offsite off-site retreat workshop kickoff kick-off conference webinar hackathon summit tagung
klausur konferenz marathon half-marathon halbmarathon triathlon race""".split())
_EVENT_STEMS = ("adopt", "visit", "meetin")  # "is adopting" / "the adoption"
# Words that name any plan: "sagt das Treffen ab" may end "trifft sich zum Essen".
_ANY_EVENT = frozenset("meeting treffen plans plan termin appointment date".split())

def _key_named(older: Claim, newer: Claim) -> bool:
    """Whether a new value is said of a key line's attribute, the attribute
    named as the subject: "Zahlungsart: SEPA" -> "payment method switched to
    credit card", "Die Zahlungsart ist jetzt Kreditkarte", "Dentist: Dr.
    Aydin" -> "the dentist is now Dr. Brenner".  A word of change is needed,
    and another value ("payment method confirmed as SEPA" changes nothing)."""
    return older.subjects == {"@user"} and bool(older.attribute) and \
        not (older.attribute or "").startswith("key:") and newer.owner is None and \
        any(ATTRIBUTE_NOUNS.get(s) == older.attribute for s in newer.subjects) and \
        newer.change and not newer.negated and not newer.hedged and not newer.plan and \
        not newer.added and bool(newer.value) and not older.negated and \
        not _overlap({stem(w) for w in older.value}, {stem(w) for w in newer.value})


def _calls_off(older: Claim, newer: Claim) -> bool:
    """Whether a cancellation ends the older line: a plan or appointment
    (an event's noun or a date, never a habit or who someone is) that it
    names — by a person or place ("the dinner with Marta"), or by what it
    was ("the adoption" of "is adopting") — and, when both name the event,
    the same one (of "dinner with Marta" and "cinema with Marta", the dinner)."""
    if older.negated or older.past or CANCELLED.search(older.text) or \
            _RECURRING.search(older.text):
        return False
    events_old = {w for w in _low_words(older.text) if _event_word(w)}
    events_new = {w for w in _low_words(newer.text) if _event_word(w)}
    dated = any(_is_date_word(w) for w in _low_words(older.text))
    # "cancelled the move to Hamburg" ends "is moving to Hamburg on 1 March" (never where she lives).
    # "declined the SAP offer" ends "starts at SAP on 1 March" (never where she works now).
    moving = (older.attribute == "home" and dated and bool(_MOVE_PLAN.search(newer.text))) or (
        older.attribute in ("employer", "school", "workplace") and dated and bool(
            _JOB_PLAN.search(newer.text)))
    if not (events_old or dated) or (older.attribute not in (None, "when") and not events_old
                                     and not moving):
        return False
    if events_old and events_new - _ANY_EVENT and not any(
            _same_event(a, b) for a in events_old for b in events_new):
        return False  # "the dinner with Marta" is not "the cinema with Marta"
    names_old, names_new = proper_names(older.text), proper_names(newer.text)
    by_name = any(n.startswith(o) for o in names_old for n in names_new)
    if names_old and names_new and not by_name:
        return False  # the meeting with Paul is not the meeting with Ingrid
    return by_name or any(_same_event(a, b) for a in events_old for b in events_new)


def _same_event(a: str, b: str) -> bool:
    """One event's noun twice: "dinner" / "dinners", "marathon" / "half-marathon"."""
    return a[:5] == b[:5] or len(a) >= 5 and len(b) >= 5 and (a.endswith(b) or b.endswith(a))


_DATE = re.compile(r"\b\d{1,2}\.? (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mär|mai|okt|dez)\w*"
                   r"(?: \d{4})?|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b\d{4}-\d\d-\d\d\b",
                   re.I)


# What one has one of at a time: a later start somewhere ends the earlier one.
_ONE_AT_A_TIME = frozenset({"home", "employer", "workplace", "occupation", "status", "school"})
# Where one lives, works, learns, as what: leaving one names which.
_PLACES_HELD = frozenset({"home", "employer", "workplace", "occupation", "school"})


def _moved_on(older: Claim, newer: Claim, days: tuple[date | None, date | None] | None) -> bool:
    """Two dated changes of one single thing of a subject, the newer one later:
    where it stands now is the later one ("Tom moved to Rome in February
    2026", then "Tom moved to Paris in March 2026")."""
    if not ((older.change and newer.change or older.attribute in _ONE_AT_A_TIME)
            and older.attribute and older.attribute == newer.attribute
            and not older.many and not older.negated and not newer.negated
            and _same_subject(older, newer)):
        return False
    before, after = days or (_first_day(older.text), _first_day(newer.text))
    return before is not None and after is not None and after > before


def _first_day(text: str) -> date | None:
    """The first day a line names with its year (a line of the files has
    absolute dates): None when it names none."""
    found = [m.first for m in when.find(text, _ANY_DAY) if not m.relative]
    return min(found) if found else None


_ANY_DAY = date(2000, 1, 1)  # absolute days resolve alike against any day


def _other_thing_named(older: Claim, newer: Claim) -> bool:
    """Whether what is gone only shares a name with what the older line
    has: "Lena's Google Pixel died" is no cat called Pixel."""
    known = older.content | frozenset(stem(w) for w in older.value)
    names = {stem(w.lower()) for w in proper_names(older.text) | proper_names(newer.text)}
    shared, extra = newer.negates & known, newer.negates - known
    return bool(shared) and shared <= names and bool(extra)


def gone(text: str) -> bool:
    """Whether a line says its subject is gone ("Pixel died", "ist gestorben"),
    not that it nearly went ("Pixel nearly died but is fine now")."""
    m = GONE.search(text)
    return m is not None and not re.search(r"\b(?:nearly|almost|fast|beinahe|beinah)\s+$",
                                          text[:m.start()], re.I)


def _running_total(older: Claim, newer: Claim) -> bool:
    """Two counts so far of one period, in the perfect: "has read 12 books
    in 2026" then "has read 15 books in 2026" (two runs in March, told in
    the past, are two events)."""
    return bool((older.attribute or "").startswith("qty:") and _PERFECT.search(older.text)
                and _PERFECT.search(newer.text))


_PERFECT = re.compile(r"\b(?:has|have|hat|haben)\b(?! to\b)", re.I)


def _dates(claim: Claim) -> frozenset[str]:
    """The days a claim names, as written ("1 march 2026")."""
    return frozenset(m.group().lower() for m in _DATE.finditer(claim.text))


def _is_date_word(word: str) -> bool:
    """A number, a month or a weekday (and their short forms): "Marta" is none."""
    return bool(re.match(r"\d", word)) or when.is_calendar(word)


def _event_word(word: str) -> bool:
    return word in EVENT_NOUNS or word in _EVENT_WORDS or any(
        word[:5] == e[:5] for e in _EVENT_STEMS if len(word) >= 5)


def _low_words(text: str) -> list[str]:
    return [w.lower() for w in words(text)]


def cancels(text: str) -> bool:
    """Whether a line calls something off ("cancelled her trip", "abgesagt"),
    or puts it off ("postponed the Lisbon trip", "verschoben"): either way
    the plan it names does not happen on its day."""
    return bool(CANCELLED.search(text) or _POSTPONED.search(text))


_CAPITALIZED = re.compile(r"(?<!^)(?<![.!?] )\b[A-ZÄÖÜ][\w'’-]+")


def proper_names(text: str) -> set[str]:
    """The names a line holds (its capitalised words but the first of a
    sentence, and the calendar's), lower-cased: the people and places it is
    about."""
    return {w.lower() for w in _CAPITALIZED.findall(text.strip()) if w.lower() not in when.CALENDAR_WORDS}


def _purpose(text: str) -> str | None:
    """What a thing is for, when a line says: "work" or "private"."""
    work, private = bool(_WORK.search(text)), bool(_PRIVATE.search(text))
    return "work" if work and not private else "private" if private and not work else None


# What no ending verb ends: only "no longer allergic" or a correction does.
_LASTING = frozenset({"allergy", "health", "origin", "blood type", "birthday", "full name", "name"})
_SOLD = re.compile(r"\b(?:sold|sells|selling|verkauft|verkaufte)\b", re.I)
_OWN_VERBS = frozenset({"hav", "have", "own", "us", "use", "driv", "drive", "rid", "besitz", "fahr",
                        "hab", "be", ""})
# Attributes whose value is a person, and the words that say two people parted.
_PEOPLE = frozenset({"spouse", "partner", "boyfriend", "girlfriend", "fiance", "manager", "doctor"})
# What a couple does that ends how one of them was named to the other.
_COUPLE = re.compile(r"\b(?:broke up|break up|split up|separated|divorced|got (?:married|engaged)|"
                     r"married each other|are (?:now )?(?:married|engaged)|getrennt|geschieden|"
                     r"Schluss gemacht|(?:haben|hat) (?:\w+ )?geheiratet|verlobt|verheiratet)\b", re.I)
_COUPLE_WORDS = frozenset("""boyfriend girlfriend partner fiance fiancé fiancee fiancée husband wife
spouse freund freundin partnerin verlobter verlobte ehemann ehefrau mann frau""".split())
_COUPLE_VERBS = re.compile(r"\b(?:dating|dates|is seeing|going out with|married to|engaged to|"
                           r"together with|zusammen mit|verheiratet mit|verlobt mit)\b", re.I)
_RENAMED = re.compile(r"\brenamed (?:the |our |my |her |his |their )?(\w+) (?:to |as )?([A-ZÄÖÜ][\w-]+)|"
                      r"\b(?:den|die|das|unseren|unsere|ihren|seinen) (\w+) in ([A-ZÄÖÜ][\w-]+) "
                      r"umbenannt\b", re.I)
_MOVED_IN = re.compile(r"\bmoved in(?: with)?\b|\bhas moved in\b|\bist (?:bei \w+ )?eingezogen\b|"
                       r"\bwohnt jetzt bei\b|\bist zu (?:ihm|ihr|uns|ihnen) gezogen\b", re.I)
# A dose changed: "raised the metformin to 1000 mg", "Dosis auf 10 mg erhöht".
_DOSED = re.compile(r"\b(?:raised|increased|upped|lowered|reduced|cut|halved|doubled|changed|"
                    r"adjusted|erhöht|gesenkt|reduziert|halbiert|verdoppelt|angepasst)\b", re.I)
# Work for part of one's time, beside a main job.
_ON_THE_SIDE = re.compile(r"\b(?:on|at|over) (?:the )?weekends?\b|\bin the evenings?\b|\bevenings\b|"
                          r"\bpart[- ]time\b|\bon the side\b|\bside (?:job|gig|hustle)\b|"
                          r"\bin (?:her|his|their|my) (?:spare|free) time\b|\bnebenbei\b|"
                          r"\bnebenberuflich\b|\bam wochenende\b|\bwochenends\b|\bteilzeit\b|"
                          r"\bminijob\b|\bnebenjob\b|\babends\b", re.I)
_WAS_VALUE = re.compile(r"\b(?:was|were|war|waren|had been)\s+(?:~|about\s+|around\s+|only\s+|just\s+|"
                        r"noch\s+|nur\s+|ca\.?\s*)?[\d€$£]", re.I)
_NOW = re.compile(r"\b(?:now|today|currently|since|from now|jetzt|nun|heute|aktuell|seit|ab sofort)\b", re.I)
_BACK = re.compile(r"\bback (?:on|to)\b|\bzurück (?:zu[mr]?|bei|auf)\b", re.I)


def _a_couple(claim: Claim) -> bool:
    """Whether a claim says who is whose partner: "Omar's girlfriend is
    Lina", "has a boyfriend called Jonas", "is dating Jonas" (not what the
    girlfriend does: "Omar's girlfriend Lina is a nurse")."""
    if (claim.attribute or "") in _COUPLE_WORDS:
        return True
    if claim.attribute in (None, "possession", "status") and \
            _COUPLE_WORDS & {w.lower() for w in claim.value}:
        return True
    return bool(_COUPLE_VERBS.search(claim.text))


def _people(claim: Claim) -> set[str]:
    """Who a claim names: its subjects and the names in it, but not an
    owner named beside them ("Sara's friends Jonas and Lea got married":
    her friends did)."""
    out = {s for s in claim.subjects if " " not in s and "'" not in s}
    return out | {w.lower() for w in re.findall(r"\b[A-ZÄÖÜ][\w-]+\b(?!['’]s?\b)", claim.text)}


_PARTED = re.compile(r"\b(?:broke up|break up|split|separated|divorced|left|dumped|no longer|ex-|"
                     r"anymore|any more|not .* any longer|getrennt|geschieden|schluss|verlassen|"
                     r"nicht mehr)\b", re.I)
# Verbs that say nothing by themselves: two claims do not meet on them alone.
_EMPTY_VERBS = frozenset({"", "be", "hav", "have", "ha", "do", "get", "sein", "hab", "haben"})
# What one uses or consumes: "drinks oat lattes" -> "switched to flat whites".
_USE_VERBS = frozenset({"us", "use", "drink", "eat", "nutz", "trink", "ess", "verwend"})


def with_subject(text: str, file: str | None) -> str:
    """A note of USER.md that begins with its verb is the user's: "stopped the
    ibuprofen", "moved to Nippes" are read as "I stopped …", "I moved …" (the
    rules and the guards read it so; the line keeps its words)."""
    first = text.split(" ", 1)[0]
    inflected = first.isalpha() and first.islower() and EN_VERB_FORMS.get(first, first) != first
    if file == "USER.md" and _BACK_FIRST.match(text):  # "Back to the S-Bahn for the winter"
        return f"I am {text[0].lower()}{text[1:]}"
    return f"I {text}" if file == "USER.md" and inflected else text


_BACK_FIRST = re.compile(r"(?i)back (?:to|on)\b")


def claims_or_plan(text: str, names: frozenset[str] = frozenset()) -> list[Claim]:
    """The claims of a line, or, of a line with no verb ("Team offsite in
    Lyon, 14-16 October"), one that names no subject: only a cancellation
    or a move of what it names can end it (see :func:`_calls_off`), never a
    statement about someone."""
    return claims_of(text, names) or [Claim(frozenset(), text=text)]


def is_update(older: str, newer: str, names: frozenset[str] = frozenset()) -> str:
    """``"update"`` when ``newer`` replaces ``older`` (same subject and
    attribute), else ``"coexist"``."""
    if items.ends(older, newer):  # "ticket 5512: open" -> "5512 solved/closed"; "role filled"
        return "update"
    olds, news = claims_or_plan(older, names), claims_of(newer, names)
    for o in olds:
        for n in news:
            if decide(o, n):
                return "update"
    # A record's field given a new value in other words: "Flat 2A rent: 950 EUR/month" ->
    # "2A rent goes up to 1,010 EUR from 1 April" (the fields it leaves stay: see records).
    if records.revalued(older, newer):
        return "update"
    # The record told again with other values, in any words: "Zoe's shoe size 31" ->
    # "Zoe's shoe size 33"; "Takes ibuprofen 400 mg three times a day" -> "Ibu jetzt 600 mg, 2x tgl.".
    if restated.told_again(older, newer):
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


__all__ = ["Claim", "cancels", "claims_of", "claims_or_plan", "decide", "durable_attribute", "is_update",
           "proper_names", "with_subject"]
