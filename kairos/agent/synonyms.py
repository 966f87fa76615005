"""Words that name the same kind of fact, for recall by words alone.

An agent asks in its own words ("Sam's employer", "where does Sam work?")
for what it wrote in others ("Sam joined Globex as an engineer" is found by
"work" only if the line says "works").  Word search cannot know that; the
embedded model knows some of it, and a search by words alone none.  So a
query whose words belong to one of these groups also runs a second word
ranking by the group's words alone, and the fusion gives a line found by a
related word its place beside the ones found by the query's own words.

The groups are the kinds of fact an assistant keeps about a person — work,
home, family, pets, health, food, preferences, travel, contact, dates,
study, transport, pastimes, money — each in English and German together,
so that a question in one language finds a note in the other.  They are kept
small and plain on purpose: a word in two groups, or one too general
("number", "call", "office"), would pull in lines about something else.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from kairos.glossary import EQUIVALENTS, lines

# Who someone is to the user: "Who is Arjun?" asks for the line that says.
RELATIONS = ("husband wife partner boyfriend girlfriend friend brother sister son daughter mother "
             "father mum mom dad colleague boss manager neighbour neighbor cousin uncle aunt "
             "ex roommate flatmate housemate "
             "mann frau freund freundin bruder schwester sohn tochter mutter vater kollege kollegin "
             "mitbewohner mitbewohnerin")
GROUPS = (
    # work (not "working": "what is Yuki working on?" asks for a project, not a job)
    "work works worked job jobs employer employers employed employee company career profession "
    "occupation joined hired role position arbeit arbeitet arbeitete firma arbeitgeber beruf "
    # a change of job said without "work" (not "quit", "gekündigt", "fängt an": a habit, a
    # contract or a course end and start too)
    "gewechselt freelance freiberuflich selbstständig laid "
    "nurse teacher engineer developer designer lawyer accountant consultant architect electrician "
    "programmer scientist researcher analyst pharmacist plumber elektriker lehrer lehrerin "
    "ingenieur ingenieurin entwickler entwicklerin krankenschwester pfleger pflegerin",
    # home
    "live lives lived living home address flat apartment house moved resides reside "
    "neighbourhood neighborhood hometown wohnt wohnte wohnen wohnung zuhause adresse umgezogen "
    "addr apt",
    # family
    "kid kids child children son sons daughter daughters baby kind kinder sohn tochter",
    "wife husband spouse partner married marriage girlfriend boyfriend fiance fiancee dating "
    "ehefrau ehemann partnerin verheiratet freundin freund frau hubby bf gf",
    "boss manager mgr supervisor chef chefin vorgesetzte vorgesetzter teamleiter teamleiterin "
    "teamleitung",
    "secretary assistant sekretär sekretärin assistent assistentin",
    "anniversary wedding married marry marries hochzeitstag hochzeit heiratet jahrestag",
    "parent parents mother father mom mum dad eltern mutter vater",
    "sibling siblings brother brothers sister sisters bruder schwester geschwister",
    # pets
    "pet pets dog dogs cat cats puppy kitten haustier haustiere hund katze",
    "vet vets veterinarian veterinarians veterinary tierarzt tierärztin",
    # health
    "allergy allergies allergic intolerance intolerant allergie allergisch heuschnupfen hayfever "
    "pollen",
    "doctor dr physician gp clinic arzt ärztin hausarzt hausärztin",
    "hypertension bluthochdruck blutdruck",
    "dentist dental teeth tooth zahnarzt zahnärztin zahnarzttermin",
    "medication medications medicine medicines drug drugs pills prescription medikament "
    "medikamente",
    "sick ill illness flu fever krank",
    "peanut peanuts erdnuss erdnüsse erdnussallergie",
    # food and drink
    "food foods eat eats eating diet meal meals cuisine dish dishes essen",
    "vegetarian vegan vegetarier vegetarierin",
    "dairy lactose laktose milchprodukte",
    "drink drinks drinking beverage beverages trinkt",
    # preferences
    "like likes liked love loves enjoy enjoys prefer prefers preferred preference preferences "
    "favourite favorite mag liebt lieblings",
    "hate hates dislike dislikes",
    # travel
    "trip trips travel travels travelling traveling flight flights fly flying flies vacation "
    "holiday holidays journey reise urlaub flug",
    "seat seats seating aisle",
    # contact
    "phone mobile cell telephone smartphone iphone android handy telefon handynummer "
    "telefonnummer mobilnummer tel",
    "email emails mail inbox",
    "computer computers laptop laptops desktop pc macbook thinkpad rechner",
    # dates
    "birthday birthdays bday born birth geburtstag geboren",
    "appointment appointments appt appts meeting meetings mtg standup termin",
    # study
    "study studies studied studying university college school degree course studium schule",
    # transport
    "car cars drive drives driving vehicle automobile auto",
    "bike bikes bicycle cycling cycles fahrrad",
    # pastimes
    "hobby hobbies pastime pastimes hobbys freizeit climbing bouldering hiking yoga painting "
    "knitting gardening photography chess guitar piano dancing",
    "sport sports exercise training workout gym swim swims swimming jogging yoga pilates "
    "schwimmen joggen",
    "music musical musician instrument instruments cello violin viola flute clarinet trumpet "
    "saxophone drums piano guitar musik instrumente geige klavier gitarre flöte",
    "book books novel novels reading buch",
    # money
    "salary income earns wage gehalt",
    "rent rents landlord lease miete",
    "debt debts loan loans schulden kredit darlehen",
    "tax taxes steuer steuern steuererklärung finanzamt",
    # home
    "heating heater boiler radiator radiators heizung heizkessel",
    # who someone is (asked as "who is …", see related())
    "who " + RELATIONS,
)

# The same thing in other words (kairos.glossary: EQUIVALENTS and equivalents.txt), for
# a query word that found nothing: "family doctor" asked of a pair that wrote "Hausarzt".
# Unlike a kind's words (GROUPS), these are looked for as the query's own words.
_EQUIVALENTS: tuple[tuple[tuple[str, ...], ...], ...] = tuple(
    tuple(tuple(alternative.split()) for alternative in line.split("|"))
    for line in lines())


@lru_cache(maxsize=1)
def _by_first() -> dict[str, list[tuple[int, tuple[str, ...], int]]]:
    """Each way of saying a thing (its words' bases), by the base of its
    first word: a query's words find their lines without a pass over all."""
    out: dict[str, list[tuple[int, tuple[str, ...], int]]] = {}
    for n, line in enumerate(_EQUIVALENTS):
        for alternative in line:
            wanted = tuple(_base(w) for w in alternative)
            out.setdefault(wanted[0], []).append((len(wanted), wanted, n))
    return out


MAX_ADDED = 40  # words a query gains at most
WHO_IS = re.compile(r"^\s*(?:who(?:'s| is| was)|wer ist|wer war)\b", re.I)
FOR_A_LIVING = re.compile(r"\bfor a living\b|\bberuflich\b", re.I)
# Forms the stemmer cannot reach, a family a line: any of them asked for
# finds the others ("going" finds "went", "goose" finds "geese").  Left out:
# past forms that are other words as often ("saw", "left", "rose", "fell",
# "sat", "led", "spoke").
IRREGULAR_FAMILIES = """
go goes going went gone | fly flies flying flew flown | run runs running ran
swim swims swimming swam swum | drive drives driving drove driven | ride rides riding rode ridden
write writes writing wrote written | take takes taking took taken | make makes making made
get gets getting got gotten | give gives giving gave given | come comes coming came
see sees seeing seen | meet meets met | begin begins beginning began begun
buy buys buying bought | sell sells selling sold | teach teaches teaching taught
bring brings bringing brought | eat eats eating ate eaten | drink drinks drinking drank drunk
speak speaks speaking spoken | stand stands standing stood | win wins winning won
lose loses losing lost | find finds finding found | keep keeps keeping kept
sleep sleeps sleeping slept | feel feels feeling felt | grow grows growing grew grown
know knows knowing knew known | wear wears wearing wore worn | hold holds holding held
send sends sending sent | spend spends spending spent | build builds building built
tell tells telling told | pay pays paying paid | hear hears hearing heard
break breaks breaking broke broken | choose chooses choosing chose chosen
catch catches catching caught | become becomes becoming became | think thinks thinking thought
sing sings singing sang sung | forget forgets forgetting forgot forgotten
understand understands understanding understood | wake wakes waking woke woken
throw throws throwing threw thrown | steal steals stealing stole stolen | fight fights fighting fought
mouse mice | knife knives | child children | man men | woman women | tooth teeth | foot feet
life lives | wife wives | leaf leaves | goose geese | person people
"""
IRREGULAR: dict[str, tuple[str, ...]] = {
    form: tuple(family.split())
    for family in IRREGULAR_FAMILIES.replace("\n", " | ").split("|") if family.strip()
    for form in family.split()}


def idioms(query: str, words: list[str]) -> list[str]:
    """The query's words with its idioms read: "what does she do for a
    living" asks for work, not for where she lives."""
    if FOR_A_LIVING.search(query):
        words = [w for w in words if w not in ("living", "beruflich")] + ["work"]
    return list(dict.fromkeys(words))


def equivalents(words: Sequence[str], unfound: Sequence[str]) -> list[str]:
    """The words of the other ways of saying what the query's words say
    (:data:`EQUIVALENTS`), when one of those words found nothing: a way of
    saying it is in the query when its words stand there side by side
    ("tax return" in "tax return deadline", stop words left out); each
    added word once, none the query holds in any form ("parent" for
    "parents evening" would find every line about the parents)."""
    missing = {_base(w) for w in unfound}
    bases = [_base(w) for w in words]  # "sleeping" says "sleep", "shoes" "shoe"
    lines: dict[int, None] = {}  # the lines that say what the query says, in order
    for i, first in enumerate(bases):
        for n, wanted, line in _by_first().get(first, ()):
            if tuple(bases[i:i + n]) == wanted and missing & set(wanted):
                lines[line] = None
    out: dict[str, None] = {}
    for line in sorted(lines):
        for other in _EQUIVALENTS[line]:
            for w in other:
                out[w] = None
    held = {_base(w) for w in words}
    return [w for w in out if _base(w) not in held]


def forms(words: Sequence[str]) -> list[str]:
    """Other forms of the words that stemming does not find ("ran" for
    "run", "mice" for "mouse") — only forms of another stem: "runs" and
    "running" beside "run" would count the one word three times."""
    seen = {_base(w) for w in words}
    out = []
    for w in words:
        for form in IRREGULAR.get(w, ()):
            if _base(form) not in seen:
                seen.add(_base(form))
                out.append(form)
    return out


def spellings(words: Sequence[str]) -> list[str]:
    """German umlauts typed as two letters ("Muenchen", "Koeln") and "ss"
    for "ß" ("Gruesse"), spelt as German spells them: SQLite's index folds
    "München" to "munchen" and "ß" to "ss", PostgreSQL's keeps both."""
    out: list[str] = []
    for w in words:
        if len(w) < 5:
            continue
        umlauted = _UMLAUT.sub(lambda m: _UMLAUTS[m.group()], w)
        out += [form for form in dict.fromkeys((umlauted, umlauted.replace("ss", "ß")))
                if form != w]
    return out


def _base(word: str) -> str:
    """A word less a regular ending, as the index's stemmer takes it off
    ("running", "runs" → "run"; "drives" → "driv"): what another form of a
    word must not repeat."""
    for suffix in ("ing", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            word = word[:-len(suffix)]
            break
    if len(word) > 2 and word[-1] == word[-2] and word[-1] not in "ls":
        word = word[:-1]  # "runn", "swimm"
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


_UMLAUTS = {"ae": "ä", "oe": "ö", "ue": "ü"}
# Not at a word's end ("blue", "issue"), nor after a vowel or q: "neuen",
# "Frauen", "Trauer" hold a diphthong and an e, "queen" no umlaut.
_UMLAUT = re.compile(r"(?<![aeiouyq])(?:ae|oe|ue)(?=[a-zß])")


@lru_cache(maxsize=1)
def _index() -> dict[str, tuple[str, ...]]:
    """Each word's group words.  The words that say who one is to the user
    are one group only when asked "who is …?" (under "who"): "boyfriend"
    is asked as a partner, not as any relative or colleague."""
    out: dict[str, tuple[str, ...]] = {"who": tuple(GROUPS[-1].split())}
    for group in GROUPS[:-1]:
        words = tuple(group.split())
        for w in words:
            out[w] = out.get(w, ()) + words
    return out


def related(words: Sequence[str], query: str = "") -> list[str]:
    """The query's words that name a kind of fact, then the other words of
    their groups, at most :data:`MAX_ADDED` of those (empty when no word
    names one).  The query's other words — a name, above all, which every
    line of the pair holds — are left out: this ranking is about the kind."""
    index = _index()
    kinds = [w for w in words if w in index]
    if not kinds and WHO_IS.search(query):  # "who is Arjun?": the words that say who one is
        kinds = ["who"]
    out: dict[str, None] = {}
    for w in kinds:
        for other in index[w]:
            if other not in kinds:
                out[other] = None
    # One form of each word: the index stems ("works", "worked" are "work").
    seen = {_form(w) for w in kinds}
    added: list[str] = []
    for w in out:
        if _form(w) not in seen and len(added) < MAX_ADDED:
            seen.add(_form(w))
            added.append(w)
    return [w for w in [*kinds, *added] if w != "who"] if kinds else []


def _form(word: str) -> str:
    """A word less its English inflection, roughly as the index's stemmer
    takes it ("employers" and "employer" are one word to it)."""
    return re.sub(r"(?:ies|ing|ed|es|s)$", "", word) if len(word) > 4 else word


__all__ = ["EQUIVALENTS", "GROUPS", "equivalents", "forms", "idioms", "related"]
