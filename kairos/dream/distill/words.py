"""Words the dream's rules share: tokens, stems, spellings, verb forms (English, German).

Small hand-written lexicons, not a language model: what the rules in
:mod:`~kairos.dream.distill.facts`, :mod:`~kairos.dream.distill.slots`,
:mod:`~kairos.dream.distill.when` and :mod:`~kairos.dream.distill.faithful` need to
compare two lines ("favourite" is "favorite", "flew" is "fly", "machte" is
"macht") and to put a sentence into the past tense.  Pure: no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

WORD = re.compile(r"[^\W_](?:[\w'’+.-]*[^\W_])?(?::\d\d)?'?")
NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")

# -- function words -------------------------------------------------------------------------
STOP_EN = frozenset("""
a an the and or but nor so of to in on at by for with from into onto over under about as than
then that this these those there here it its it's is are am was were be been being has have had
having do does did done will would shall should can could may might must not no yes very too
also just only still even again now new actually really quite rather some any all each every
both either neither such own same other another more most less least much many few lot lots
he she they we you i me him her them us my your his their our mine yours hers theirs ours who
whom whose which what when where why how if while because though although after before until
since during per via around up down out off away back s
""".split())
STOP_DE = frozenset("""
der die das den dem des ein eine einen einem einer eines und oder aber sondern doch denn als wie
zu zum zur im in am an auf aus bei mit nach von vor für fur über uber unter um durch gegen ohne
bis seit ab ist sind war waren bin bist sein gewesen hat haben hatte hatten wird werden wurde
wurden kann können muss müssen soll will nicht kein keine keinen keinem keiner mehr noch schon
auch nur sehr jetzt inzwischen mittlerweile nun wieder er sie es wir ihr ich du mich dich sich
ihm ihn ihre ihren seine seinen sein mein meine meinen dein unser euer man dass ob wenn weil
""".split())
STOP = STOP_EN | STOP_DE
# Words a note is said with that say nothing of the fact ("i'm left handed btw").
FILLER = frozenset({"btw", "fyi", "ugh", "lol", "haha", "tbh", "imo", "fwiw", "übrigens", "ubrigens"})

# -- spelling ---------------------------------------------------------------------------------
# British and American spellings and vocabulary of one thing: compared as the same word.
SPELLING = {
    "favourite": "favorite", "favourites": "favorites", "colour": "color", "colours": "colors",
    "coloured": "colored", "honour": "honor", "humour": "humor", "neighbour": "neighbor",
    "neighbours": "neighbors", "behaviour": "behavior", "flavour": "flavor", "labour": "labor",
    "centre": "center", "theatre": "theater", "metre": "meter", "metres": "meters",
    "kilometre": "kilometer", "kilometres": "kilometers", "litre": "liter", "litres": "liters",
    "licence": "license", "defence": "defense", "offence": "offense", "grey": "gray",
    "programme": "program", "programmes": "programs", "travelling": "traveling",
    "travelled": "traveled", "traveller": "traveler", "cancelled": "canceled",
    "cancelling": "canceling", "jewellery": "jewelry", "pyjamas": "pajamas", "cheque": "check",
    "tyre": "tire", "tyres": "tires", "aluminium": "aluminum", "catalogue": "catalog",
    "dialogue": "dialog", "analyse": "analyze", "analysed": "analyzed", "paralyse": "paralyze",
    "mum": "mom", "flat": "apartment", "flats": "apartments", "holiday": "vacation",
    "holidays": "vacations", "autumn": "fall", "mobile": "cell", "postcode": "zipcode",
    "football": "soccer", "lorry": "truck", "petrol": "gas", "cinema": "movies", "film": "movie",
    "films": "movies", "sample": "example", "samples": "examples",
}
# -ise/-isation verbs: organise = organize (a closed list: "wise", "rise", "promise" stay).
_ISE = ("organis", "recognis", "realis", "apologis", "specialis", "prioritis", "summaris",
        "optimis", "personalis", "customis", "categoris", "visualis", "memoris", "minimis",
        "maximis", "utilis", "finalis", "standardis", "synchronis", "emphasis", "criticis",
        "authoris", "normalis", "sympathis", "socialis", "modernis", "mobilis", "stabilis")

# -- units ------------------------------------------------------------------------------------
UNITS = {
    "km": "km", "kms": "km", "kilometer": "km", "kilometers": "km", "kilometre": "km",
    "kilometres": "km", "kilometern": "km", "m": "m", "meter": "m", "meters": "m", "metres": "m",
    "metre": "m", "metern": "m", "cm": "cm", "mm": "mm", "mi": "mi", "mile": "mi", "miles": "mi",
    "kg": "kg", "kgs": "kg", "kilo": "kg", "kilos": "kg", "kilogram": "kg", "kilograms": "kg",
    "kilogramm": "kg", "g": "g", "gram": "g", "grams": "g", "gramm": "g", "mg": "mg",
    "milligram": "mg", "milligrams": "mg", "milligramm": "mg", "mcg": "mcg", "ug": "mcg",
    "microgram": "mcg", "micrograms": "mcg", "mikrogramm": "mcg", "lb": "lb", "lbs": "lb",
    "pound": "lb", "pounds": "lb", "l": "l", "liter": "l", "liters": "l", "litre": "l",
    "litres": "l", "ml": "ml", "min": "min", "mins": "min", "minute": "min", "minutes": "min",
    "minuten": "min", "h": "h", "hr": "h", "hrs": "h", "hour": "h", "hours": "h", "stunde": "h",
    "stunden": "h", "std": "h", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
    "sekunden": "s", "eur": "eur", "euro": "eur", "euros": "eur", "€": "eur", "usd": "usd",
    "dollar": "usd", "dollars": "usd", "$": "usd", "gbp": "gbp", "£": "gbp", "%": "pct",
    "percent": "pct", "prozent": "pct",
}

# -- verbs --------------------------------------------------------------------------------------
# English past participles that do not end in "-ed": "has gone", "Felix's moved" and
# "Mia's been to Rome" (a "'s" that is "has") are told by them.
PARTICIPLES_EN = frozenset("""been gone got gotten become left quit taken given begun done made bought
sold found grown run seen won lost written broken chosen driven eaten fallen flown forgotten hidden
known ridden risen shown spoken stolen sworn thrown worn kept held met paid put read said sent set
spent stood told thought understood""".split())
# English irregular verbs: base -> (third person, past, present participle).
IRREGULAR_EN: dict[str, tuple[str, str, str]] = {
    "be": ("is", "was", "being"), "have": ("has", "had", "having"), "do": ("does", "did", "doing"),
    "go": ("goes", "went", "going"), "fly": ("flies", "flew", "flying"),
    "run": ("runs", "ran", "running"), "swim": ("swims", "swam", "swimming"),
    "drive": ("drives", "drove", "driving"), "ride": ("rides", "rode", "riding"),
    "write": ("writes", "wrote", "writing"), "take": ("takes", "took", "taking"),
    "make": ("makes", "made", "making"), "get": ("gets", "got", "getting"),
    "give": ("gives", "gave", "giving"), "come": ("comes", "came", "coming"),
    "see": ("sees", "saw", "seeing"), "meet": ("meets", "met", "meeting"),
    "leave": ("leaves", "left", "leaving"), "begin": ("begins", "began", "beginning"),
    "buy": ("buys", "bought", "buying"), "sell": ("sells", "sold", "selling"),
    "teach": ("teaches", "taught", "teaching"), "bring": ("brings", "brought", "bringing"),
    "eat": ("eats", "ate", "eating"), "drink": ("drinks", "drank", "drinking"),
    "speak": ("speaks", "spoke", "speaking"), "sit": ("sits", "sat", "sitting"),
    "stand": ("stands", "stood", "standing"), "win": ("wins", "won", "winning"),
    "lose": ("loses", "lost", "losing"), "find": ("finds", "found", "finding"),
    "keep": ("keeps", "kept", "keeping"), "sleep": ("sleeps", "slept", "sleeping"),
    "feel": ("feels", "felt", "feeling"), "grow": ("grows", "grew", "growing"),
    "know": ("knows", "knew", "knowing"), "wear": ("wears", "wore", "wearing"),
    "hold": ("holds", "held", "holding"), "read": ("reads", "read", "reading"),
    "put": ("puts", "put", "putting"), "quit": ("quits", "quit", "quitting"),
    "send": ("sends", "sent", "sending"), "spend": ("spends", "spent", "spending"),
    "build": ("builds", "built", "building"), "tell": ("tells", "told", "telling"),
    "say": ("says", "said", "saying"), "pay": ("pays", "paid", "paying"),
    "hear": ("hears", "heard", "hearing"), "break": ("breaks", "broke", "breaking"),
    "choose": ("chooses", "chose", "choosing"), "fall": ("falls", "fell", "falling"),
    "catch": ("catches", "caught", "catching"), "become": ("becomes", "became", "becoming"),
    "think": ("thinks", "thought", "thinking"), "sing": ("sings", "sang", "singing"),
    "shut": ("shuts", "shut", "shutting"), "set": ("sets", "set", "setting"),
    "cut": ("cuts", "cut", "cutting"), "hit": ("hits", "hit", "hitting"),
    "let": ("lets", "let", "letting"), "lead": ("leads", "led", "leading"),
    "understand": ("understands", "understood", "understanding"),
    "forget": ("forgets", "forgot", "forgetting"), "sew": ("sews", "sewed", "sewing"),
    "lend": ("lends", "lent", "lending"), "rise": ("rises", "rose", "rising"),
    "shop": ("shops", "shopped", "shopping"), "plan": ("plans", "planned", "planning"),
    "stop": ("stops", "stopped", "stopping"), "travel": ("travels", "traveled", "traveling"),
    "ski": ("skis", "skied", "skiing"), "try": ("tries", "tried", "trying"),
    "marry": ("marries", "married", "marrying"), "study": ("studies", "studied", "studying"),
    "carry": ("carries", "carried", "carrying"), "apply": ("applies", "applied", "applying"),
    "hurry": ("hurries", "hurried", "hurrying"), "move": ("moves", "moved", "moving"),
    "live": ("lives", "lived", "living"), "arrive": ("arrives", "arrived", "arriving"),
    "hike": ("hikes", "hiked", "hiking"), "cycle": ("cycles", "cycled", "cycling"),
    "bake": ("bakes", "baked", "baking"), "dance": ("dances", "danced", "dancing"),
    "celebrate": ("celebrates", "celebrated", "celebrating"),
    "expire": ("expires", "expired", "expiring"), "close": ("closes", "closed", "closing"),
    "finish": ("finishes", "finished", "finishing"), "watch": ("watches", "watched", "watching"),
    "visit": ("visits", "visited", "visiting"), "attend": ("attends", "attended", "attending"),
    "start": ("starts", "started", "starting"), "end": ("ends", "ended", "ending"),
    "return": ("returns", "returned", "returning"), "host": ("hosts", "hosted", "hosting"),
    "present": ("presents", "presented", "presenting"), "open": ("opens", "opened", "opening"),
    "join": ("joins", "joined", "joining"), "stay": ("stays", "stayed", "staying"),
    "work": ("works", "worked", "working"), "play": ("plays", "played", "playing"),
    "cook": ("cooks", "cooked", "cooking"), "walk": ("walks", "walked", "walking"),
    "launch": ("launches", "launched", "launching"), "happen": ("happens", "happened", "happening"),
    "use": ("uses", "used", "using"), "like": ("likes", "liked", "liking"),
    "love": ("loves", "loved", "loving"), "prefer": ("prefers", "preferred", "preferring"),
    "need": ("needs", "needed", "needing"), "want": ("wants", "wanted", "wanting"),
    "smoke": ("smokes", "smoked", "smoking"), "vape": ("vapes", "vaped", "vaping"),
    "switch": ("switches", "switched", "switching"), "change": ("changes", "changed", "changing"),
    "learn": ("learns", "learned", "learning"), "own": ("owns", "owned", "owning"),
    "rent": ("rents", "rented", "renting"), "weigh": ("weighs", "weighed", "weighing"),
    "cost": ("costs", "cost", "costing"), "earn": ("earns", "earned", "earning"),
    "commute": ("commutes", "commuted", "commuting"), "relocate": ("relocates", "relocated", "relocating"),
    "graduate": ("graduates", "graduated", "graduating"), "divorce": ("divorces", "divorced", "divorcing"),
    "retire": ("retires", "retired", "retiring"), "complete": ("completes", "completed", "completing"),
    "pass": ("passes", "passed", "passing"), "fix": ("fixes", "fixed", "fixing"),
    "miss": ("misses", "missed", "missing"), "reach": ("reaches", "reached", "reaching"),
    "share": ("shares", "shared", "sharing"), "manage": ("manages", "managed", "managing"),
    "organize": ("organizes", "organized", "organizing"),
    "volunteer": ("volunteers", "volunteered", "volunteering"),
    "meditate": ("meditates", "meditated", "meditating"), "train": ("trains", "trained", "training"),
    "practice": ("practices", "practiced", "practicing"), "call": ("calls", "called", "calling"),
    "name": ("names", "named", "naming"), "adopt": ("adopts", "adopted", "adopting"),
    "undergo": ("undergoes", "underwent", "undergoing"), "wake": ("wakes", "woke", "waking"),
    "show": ("shows", "showed", "showing"),
}
EN_VERB_FORMS: dict[str, str] = {}  # any form -> base
for _base, (_s, _past, _ing) in IRREGULAR_EN.items():
    for _form in (_base, _s, _past, _ing):
        EN_VERB_FORMS.setdefault(_form, _base)
for _form, _base in {"am": "be", "are": "be", "were": "be", "been": "be", "gone": "go",
                     "flown": "fly", "driven": "drive", "written": "write", "taken": "take",
                     "given": "give", "seen": "see", "begun": "begin", "eaten": "eat",
                     "drunk": "drink", "spoken": "speak", "known": "know", "worn": "wear",
                     "broken": "break", "chosen": "choose", "fallen": "fall", "grown": "grow",
                     "ridden": "ride", "swum": "swim", "forgotten": "forget", "risen": "rise"}.items():
    EN_VERB_FORMS.setdefault(_form, _base)

# German verbs: third person present -> simple past (Präteritum), for strong and mixed verbs;
# weak verbs take -te (macht -> machte, arbeitet -> arbeitete).
PAST_DE = {
    "ist": "war", "sind": "waren", "hat": "hatte", "haben": "hatten", "wird": "wurde",
    "werden": "wurden", "fliegt": "flog", "fährt": "fuhr", "geht": "ging", "kommt": "kam",
    "zieht": "zog", "beginnt": "begann", "trifft": "traf", "sieht": "sah", "bleibt": "blieb",
    "läuft": "lief", "nimmt": "nahm", "gibt": "gab", "findet": "fand", "liegt": "lag",
    "schreibt": "schrieb", "spricht": "sprach", "isst": "aß", "trinkt": "trank", "hält": "hielt",
    "fängt": "fing", "schläft": "schlief", "steht": "stand", "sitzt": "saß", "tut": "tat",
    "bringt": "brachte", "denkt": "dachte", "weiß": "wusste", "kennt": "kannte",
    "rennt": "rannte", "singt": "sang", "schwimmt": "schwamm", "reitet": "ritt",
    "verlässt": "verließ", "heißt": "hieß", "lässt": "ließ", "hilft": "half", "stirbt": "starb",
    "wirft": "warf", "bricht": "brach", "leiht": "lieh", "liest": "las", "fällt": "fiel",
    "fliegen": "flogen", "fahren": "fuhren", "gehen": "gingen", "kommen": "kamen",
    "besucht": "besuchte", "macht": "machte", "feiert": "feierte", "heiratet": "heiratete",
    "reist": "reiste", "startet": "startete", "arbeitet": "arbeitete", "endet": "endete",
}
# German verb forms -> a shared stem, for comparing (wohnt, wohne, wohnen -> wohn).
IRREGULAR_DE_STEM = {
    "war": "sein", "waren": "sein", "ist": "sein", "sind": "sein", "bin": "sein",
    "hatte": "hab", "hatten": "hab", "hat": "hab", "haben": "hab", "habe": "hab",
    "flog": "flieg", "fuhr": "fahr", "fährt": "fahr", "ging": "geh", "kam": "komm", "zog": "zieh",
    "gezogen": "zieh", "umgezogen": "umzieh", "begann": "beginn", "traf": "treff", "trifft": "treff",
    "sah": "seh", "sieht": "seh", "lief": "lauf", "läuft": "lauf", "nahm": "nehm", "nimmt": "nehm",
    "isst": "ess", "aß": "ess", "gegessen": "ess", "trank": "trink", "getrunken": "trink",
    "spricht": "sprech", "sprach": "sprech", "hieß": "heiß", "heißt": "heiß",
}


def strip_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def words(text: str) -> list[str]:
    """The word tokens of a text, in order (letters and digits, with inner
    apostrophes, dots, dashes, plus signs and @ kept: "Hamburg-Altona",
    "e-mail", "4.5", "mia@example.org" are one token each)."""
    out = []
    for w in WORD.findall(text.replace("’", "'")):
        w = w.strip(".-").lstrip("'")
        if w.endswith("'") and not w[:-1].endswith(("s", "x", "z")):
            w = w.rstrip("'")
        if w:
            out.append(w)
    return out


@lru_cache(maxsize=65536)
def spelling(word: str) -> str:
    """One spelling of a lower-case word: American for British, -ize for -ise."""
    w = SPELLING.get(word, word)
    for prefix in _ISE:
        if w.startswith(prefix):
            return prefix[:-2] + "iz" + w[len(prefix):]
    return w


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude stem for comparing words across inflections, in both languages:
    "running" ~ "runs" ~ "ran", "wohnt" ~ "wohne", "cats" ~ "cat"."""
    w = spelling(word.lower().replace("'s", "").rstrip("'"))
    if w in IRREGULAR_DE_STEM:
        return IRREGULAR_DE_STEM[w]
    base = EN_VERB_FORMS.get(w)
    if base is not None:
        w = base
    if len(w) <= 3 or any(c.isdigit() for c in w):
        return w
    # Strip to a fixed point, so "daughter" and "daughters" meet at the same stem.
    while True:
        shorter = _strip(w, 3 if w in (word.lower(), base) else 4)
        if shorter == w:
            return w
        w = shorter


def _strip(w: str, least: int) -> str:
    for suffix in ("ungen", "ing", "ies", "ied", "ung", "en", "es", "ed", "er", "te", "st",
                   "e", "s", "t", "n"):
        if w.endswith(suffix) and len(w) - len(suffix) >= least:
            w = w[: -len(suffix)]
            if suffix == "ies" or suffix == "ied":
                w += "y"
            break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
        w = w[:-1]  # running -> runn -> run, stopped -> stopp -> stop
    return w


@lru_cache(maxsize=16384)
def is_german(text: str) -> bool:
    """Whether a line reads as German (its function words, umlauts, ß)."""
    toks = [w.lower() for w in words(text)]
    if not toks:
        return False
    hits = sum(1 for w in toks if w in _DE_MARKERS) + sum(2 for w in toks if any(c in w for c in "äöüß"))
    english = sum(1 for w in toks if w in _EN_MARKERS)
    if hits == english and len(toks) > 1:
        # "Jonas raucht.": a German verb after the name ends in -t, an English one in -s
        second = toks[1]
        return (second.isalpha() and second.endswith("t") and second not in EN_VERB_FORMS
                and not second.endswith(("nt", "ght")))
    return hits > english


_DE_MARKERS = frozenset("""
der die das den dem des ein eine einen einem einer und ist sind hat haben nicht kein keine keinen
mehr im am beim zum zur bei nach mit für auf ihr ihre sein seine ich wohnt wohne arbeitet arbeite
heißt fährt fliegt macht geht trinkt isst spielt nutzt raucht kocht backt singt liest mag läuft
schwimmt spricht wohnen arbeiten jetzt inzwischen morgen heute gestern
übermorgen nächste nächsten woche monat jahr uhr sondern stattdessen seit wurde wird auch noch
""".split())
_EN_MARKERS = frozenset("""
the a and is are has have not no was were of to on at with for her his she he they it its
lives works likes prefers uses now next week month tomorrow today yesterday from by my
doesn't don't isn't
""".split())


# -- the same fact in other words (facts.covers) ----------------------------------------------------
# Short forms and other words for one thing, compared as one word: "tel" is "phone",
# "Di" and "dienstags" are "dienstag", "e-mail" is "email".
ALIASES = {
    **dict.fromkeys(("tel", "telephone", "phone", "mobile", "mob", "cell", "cellphone", "handy",
                     "telefon", "mobil", "mobilnummer", "handynummer", "telefonnummer",
                     "phonenumber"), "phone"),
    **dict.fromkeys(("email", "e-mail", "emails", "e-mails", "mail-adresse"), "email"),
    **{d: "montag" for d in ("mo", "mon", "monday", "mondays", "montag", "montags")},
    **{d: "dienstag" for d in ("di", "tue", "tues", "tuesday", "tuesdays", "dienstag", "dienstags")},
    **{d: "mittwoch" for d in ("wed", "weds", "wednesday", "wednesdays", "mittwoch", "mittwochs")},
    **{d: "donnerstag" for d in ("thu", "thur", "thurs", "thursday", "thursdays", "donnerstag",
                                 "donnerstags")},
    **{d: "freitag" for d in ("fr", "fri", "friday", "fridays", "freitag", "freitags")},
    **{d: "samstag" for d in ("saturday", "saturdays", "samstag", "samstags", "sonnabend")},
    **{d: "sonntag" for d in ("sunday", "sundays", "sonntag", "sonntags")},
    "nr": "number", "no.": "number", "nummer": "number", "num": "number",
    "mornings": "morning", "morgens": "morning", "evenings": "evening", "abends": "evening",
    "nights": "night", "nachts": "night",
    "mother": "mom", "mama": "mom", "mutter": "mom", "father": "dad", "papa": "dad", "vater": "dad",
}
# Words a line may add to what another says without saying more: articles, linking
# verbs ("has", "takes", "kommt"), a label ("meds", "reminder to self"), filler ("pls").
WEAK = frozenset("""
a an the of in on at by for with and & is are am be being has have takes take gets get uses use
comes come who which pls plz please btw fyi note notes reminder remember self info re always just
really very so meds medication medications medicine
der die das den dem des ein eine einen einem einer eines im in an am auf bei beim mit für fur und
ist sind hat haben kommt kommen nimmt bekommt bitte immer sehr mal notiz erinnerung medikament
medikamente
""".split())
# Which way a thing goes: a line may leave one out ("Mehl kommt von Müller"), never
# say another ("flight from Rome" is not "flight to Rome").
DIRECTION = frozenset("from to into von nach zu zum zur aus ab bis".split())
# Words that, added by the line that would be kept, change what the other says: a
# change of state, a wish, a plan, a doubt, someone else's word.
SHIFT = frozenset("""
again wieder now jetzt inzwischen mittlerweile new neu neue neuer neues neuen former ex old alt alte
previously formerly früher fruher cancelled canceled abgesagt healed recovered geheilt sold verkauft
died gestorben dead tot moved umgezogen ended quit stopped resolved fixed closed done erledigt
changed switched replaced instead stattdessen statt anymore longer wants want wanted plans plan
planned planning will would wish hopes hope möchte mochte plant geplant soll should might maybe
perhaps probably possibly vielleicht wahrscheinlich eventuell if wenn falls unless heard rumour
rumor thinks think glaubt denkt told said says asked sagt meint claims goal ziel target aim
""".split())
