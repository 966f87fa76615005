"""The same thing in the other language or in other words: one token for it.

A user writes a fact once in English and once in German ("Sam is
vegetarian", "Sam ist Vegetarier"), or twice in other words ("Max prefers
window seats", "Max likes to sit by the window").  To compare such lines the
rules read each word, or each phrase, that names one thing of the project's
glossary (:mod:`kairos.glossary`, curated for search) or of :data:`MORE` here
(the everyday words of a fact the glossary leaves to the word index: diet,
likes, home, work, pets, family, languages; a line that shares a way of
saying it with another is that line's thing) as one *concept* token, and a
German compound of two such words ("Zahnarzttermin") as both.

Precision over recall: a way of saying a thing that is another word in the
other language ("Chef" is a boss, a chef cooks; "Kind" is a child, "kind" is
nice) is read so only in a German line (:data:`FALSE_FRIENDS`), and a short
form of one or two letters never.  Only the words listed are read: a word
that is not is compared as it is written.  Pure: no I/O but the glossary's
file, read once.
"""

from __future__ import annotations

from functools import lru_cache

from kairos import glossary
from kairos.dream.distill.words import ALIASES, spelling, strip_accents

# The words of a fact the glossary does not hold (it is written for search, which finds
# them by its word index), English and German, one thing a line, every form written out.
MORE = """
vegetarian | vegetarians | veggie | vegetarier | vegetarierin | vegetarisch | vegetarische
vegan | vegans | veganer | veganerin | vegane
allergy | allergies | allergic | allergic to | allergy to
allergy | allergie | allergien | allergisch | allergisch gegen | allergisch auf | allergie gegen
intolerant | intolerance | unverträglichkeit | intoleranz
lives | live | lived | living | resides | wohnt | wohnen | wohnte | lebt | leben | lebte
works | work | worked | working | arbeitet | arbeiten | arbeitete
job | jobs | beruf
likes | like | liked | loves | love | loved | enjoys | enjoy | enjoyed | prefers | prefer | preferred
likes | mag | mögen | mochte | liebt | lieben | bevorzugt | bevorzugen
hates | hate | hated | hasst | hassen
dog | dogs | hund | hunde | hündin
cat | cats | katze | katzen
pet | pets | haustier | haustiere
birthday | birthdays | bday | geburtstag | geburtstage
born | geboren
married | verheiratet
divorced | geschieden
engaged | verlobt
pregnant | schwanger
drinks | drink | drank | drinking | trinkt | trinken | trank
eats | eat | ate | eating | isst | essen | aß
plays | play | played | playing | spielt | spielen | spielte
speaks | speak | spoke | speaking | spricht | sprechen | sprach
smokes | smoke | smoking | smoker | smoked | raucht | rauchen | raucher | raucherin | rauchte
owes | owe | owed | schuldet | schulden
flight | flights | flug | flüge
fish | fisch
tea | tee
wine | wein
red wine | rotwein
white wine | weißwein
beer | bier
water | wasser
sugar | zucker
bread | brot
flour | mehl
supplier | suppliers | lieferant | lieferantin | lieferanten
children | kinder
girlfriend | freundin
bathroom | bad
boyfriend | freund
cousin | cousine | vetter
neighbour | neighbor | neighbours | neighbors | nachbar | nachbarin | nachbarn
office | büro
meeting | meetings | besprechung | besprechungen
car | cars | auto | autos
bike | bikes | bicycle | fahrrad | fahrräder
train | zug | züge
window seat | window seats | sit by the window | sits by the window | sitting by the window
window seat | seat by the window | fensterplatz | fensterplätze | am fenster sitzen | sitzt am fenster
aisle seat | aisle seats | sit on the aisle | sits on the aisle | gangplatz | gangplätze
seat | seats | sitzplatz | sitzplätze
called | named | heißt | heisst | namens
as | als
every | each | jeden | jede | jedes | jeder
only | nur
german | deutsch
english | englisch
french | französisch
spanish | spanisch
italian | italienisch
left handed | left-handed | linkshänder | linkshänderin
right handed | right-handed | rechtshänder | rechtshänderin
glasses | brille
engineer | engineers | ingenieur | ingenieurin
software engineer | software developer | softwareentwickler | softwareentwicklerin
developer | developers | entwickler | entwicklerin
nurse | nurses | krankenschwester | krankenpfleger | pflegefachkraft
lawyer | lawyers | anwalt | anwältin | rechtsanwalt | rechtsanwältin
accountant | buchhalter | buchhalterin
architect | architekt | architektin
data analyst | datenanalyst | datenanalystin
baker | bäcker | bäckerin
may | mai
august | aug
munich | münchen
cologne | köln
vienna | wien
zurich | zürich
nuremberg | nürnberg
milan | mailand
venice | venedig
prague | prag
warsaw | warschau
brussels | brüssel
lisbon | lissabon
copenhagen | kopenhagen
florence | florenz
naples | neapel
geneva | genf
hanover | hannover
germany | deutschland
austria | österreich
switzerland | schweiz
italy | italien
spain | spanien
france | frankreich
netherlands | niederlande
denmark | dänemark
sweden | schweden
norway | norwegen
poland | polen
greece | griechenland
"""

# Words that are another word in English: read as the glossary's only in a German line.
FALSE_FRIENDS = frozenset("""
chef kind herd probe beute rom wax kater hort depot alarm gift brut mist rat art hell bald see
also will war fast handy rock note bad arm samen mappe fonds
""".split())
# Words a phrase may leave out: "range of motion" is "range motion" in the glossary.
_SKIPPED = frozenset("a an the of der die das den dem des ein eine einen einem einer".split())
_LINKS = ("", "s", "es", "n", "en", "e")  # German compounds: "Zahnarzt|termin", "Arbeit|s|platz"


def norm(word: str) -> str:
    """A word as :func:`~kairos.dream.distill.facts.telling` writes it."""
    w = strip_accents(word.lower()).replace("’", "'").removesuffix("'s").rstrip("'")
    w = ALIASES.get(w, w)
    if "-" in w and not any(c.isdigit() for c in w):
        w = ALIASES.get(w.replace("-", ""), w.replace("-", ""))
    return spelling(w)


def _forms(word: str) -> list[str]:
    """A glossary word and its regular plural and inflected forms (English and German)."""
    out = [word]
    if len(word) < 4:
        return out
    out += [word + "s", word + "es", word + "n", word + "en"]
    if word.endswith("y"):
        out.append(word[:-1] + "ies")
    return out


@lru_cache(maxsize=1)
def _table() -> tuple[dict[tuple[str, ...], str], dict[tuple[str, ...], str], int]:
    """The phrases of every line (their words normalized, articles left out),
    each to its concept token: those read in any line, those read only in a
    German one; and the longest phrase's length.  A line that shares a way
    of saying it with another line joins that line's concept."""
    plain: dict[tuple[str, ...], str] = {}
    german: dict[tuple[str, ...], str] = {}
    forms: list[tuple[dict[tuple[str, ...], str], tuple[str, ...], str]] = []
    longest = 1
    ours = MORE.strip().splitlines()
    for n, line in enumerate((*ours, *glossary.lines())):
        alternatives = []
        for alternative in line.split("|"):
            ws = tuple(norm(w) for w in alternative.split() if w not in _SKIPPED)
            if ws and (n < len(ours) or not (len(ws) == 1 and len(ws[0]) <= 2)):
                alternatives.append(ws)
        known = next((table[a] for a in alternatives for table in (plain, german) if a in table), None)
        if len(alternatives) < 2 and known is None:
            continue
        concept = known or "~" + " ".join(alternatives[0]) + "~"
        for ws in alternatives:
            table = german if len(ws) == 1 and ws[0] in FALSE_FRIENDS else plain
            table.setdefault(ws, concept)
            longest = max(longest, len(ws))
            forms += [(table, (*ws[:-1], form), concept) for form in _forms(ws[-1])[1:]]
    for table, ws, concept in forms:  # a form never takes the place of a word written out
        if ws not in plain and ws not in german:
            table[ws] = concept
    return plain, german, longest


def word(w: str, *, german: bool = False) -> str | None:
    """The concept a single (normalized) word names, or None."""
    plain, de, _ = _table()
    key = (w,)
    return plain.get(key) or (de.get(key) if german else None)


def compound(w: str, *, german: bool = False) -> tuple[str, str] | None:
    """A German compound's two parts, as concepts where they are one, when at
    least one part is ("Zahnarzttermin": dentist, appointment; "Penicillinallergie":
    "penicillin", allergy); the longest first part wins."""
    if len(w) < 7 or any(c.isdigit() for c in w):
        return None
    for i in range(len(w) - 3, 2, -1):
        head = w[:i]
        first = word(head, german=german)
        for link in _LINKS:
            if not w.startswith(link, i):
                continue
            rest = w[i + len(link):]
            if len(rest) < 3:
                continue
            second = word(rest, german=german)
            if first and second:
                return first, second
            if (first or second) and len(head) >= 4 and len(rest) >= 4:
                return first or head, second or rest
    return None


def read(ws: tuple[str, ...], *, german: bool = False) -> tuple[frozenset[str], ...]:
    """The concepts each of a line's (normalized) words says: a phrase's for
    each of its words (articles in it too), a word's own, a compound's two
    parts (a part that is no concept as it is written); empty where it says
    none."""
    plain, de, longest = _table()
    out: list[frozenset[str]] = [frozenset()] * len(ws)
    i = 0
    while i < len(ws):
        if ws[i] in _SKIPPED:
            i += 1
            continue
        found = None
        # the longest phrase from here, articles skipped
        kept: list[int] = []
        j = i
        while j < len(ws) and len(kept) < longest:
            if ws[j] not in _SKIPPED:
                kept.append(j)
                key = tuple(ws[k] for k in kept)
                concept = plain.get(key) or (de.get(key) if german else None)
                if concept is not None:
                    found = (concept, j)
            j += 1
        if found is not None:
            concept, end = found
            for k in range(i, end + 1):
                out[k] = frozenset({concept})
            i = end + 1
            continue
        parts = compound(ws[i], german=german)
        if parts is not None:
            out[i] = frozenset(parts)
        i += 1
    return tuple(out)


def is_concept(token: str) -> bool:
    return token.startswith("~")


__all__ = ["FALSE_FRIENDS", "MORE", "compound", "is_concept", "norm", "read", "word"]
