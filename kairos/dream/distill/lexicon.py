"""The lexicons of the update detector: attribute nouns, value classes, verbs, markers.

Hand-written word lists and patterns, English and German, that
:mod:`~kairos.dream.distill.claims` reads lines with and
:mod:`~kairos.dream.distill.slots` decides updates with.  Adding a word here
teaches both; nothing else in the rules knows a word by heart.  Pure: no I/O.
"""

from __future__ import annotations

import re

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
    "email": "email|e-mail|email address|e-mail address|mail|mail address|"
             "e-mail-adresse|emailadresse|mailadresse",
    "work email": "work email|work e-mail|business email|office email|work address|"
                  "dienstliche e-mail|dienstliche mail|arbeits-e-mail|firmen-e-mail",
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
    "payment": "payment method|payment type|payment|zahlungsart|zahlungsmethode|bezahlart|"
               "bezahlmethode|zahlweise",
}.items():
    for _noun in _nouns.split("|"):
        ATTRIBUTE_NOUNS[_noun] = _attr
# Keys of `Key: value` lines that name an attribute only as a key ("Phone: …" is the phone
# number; "Mia's phone is an iPhone" is the device).
KEY_ATTRIBUTES = {"phone": "phone number", "tel": "phone number", "telephone": "phone number",
                  "telefon": "phone number", "handy": "phone number", "mobil": "phone number",
                  "cell": "phone number", "number": "phone number", "nummer": "phone number",
                  "mail": "email", "e-mail": "email"}
MANY_KEYS = frozenset({
    "preference", "preferences", "pet", "pets", "hobby", "hobbies", "allergy", "allergies",
    "interest", "interests", "skill", "skills", "like", "likes", "dislike", "dislikes", "note",
    "notes", "tag", "tags", "language spoken", "languages", "haustier", "haustiere", "allergie",
    "allergien", "vorliebe", "vorlieben", "interesse", "interessen", "kind", "kinder", "child",
    "children", "friend", "friends", "fact", "facts", "info", "habit", "habits", "goal", "goals",
    "project", "projects", "sport", "sports", "tool", "tools", "diet restriction",
    "price list", "preisliste", "menu", "speisekarte",  # a list's key holds many items
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
    "diet": "vegetarian|vegan|pescatarian|pescetarian|vegetarier|vegetarierin|veganer|veganerin|"
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
    "payment": "sepa|sepa direct debit|direct debit|lastschrift|sepa-lastschrift|credit card|"
               "kreditkarte|debit card|paypal|bank transfer|überweisung|visa|mastercard|amex|"
               "apple pay|google pay|klarna|girocard|ec-karte",
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
NEG_PHRASES = re.compile(
    r"\bno longer\b|\bnot\b.*\b(?:anymore|any more|any longer)\b|\bn't\b.*\b(?:anymore|any more|"
    r"any longer)\b|\bnicht mehr\b|\bkein\w*\b.*\bmehr\b|\bgave up\b|\bgive up\b|\bgiven up\b|"
    r"\bbroke up\b|"
    r"\bstopped\b(?!\s+(?:by|at|in|over)\b)|\bquit\b|\bno more\b|\bsold\b|\baufgehört\b|"
    r"\baufgegeben\b|\bverkauft\b|\bgekündigt\b|\bfinished\b|\blaid off\b|\b(?:was|got|been) fired\b|"
    r"\b(?:was|been) let go\b|\bmade redundant\b|\bentlassen\b|"
    r"\bleft\b(?!\s+(?:by|at|in|for|to|from|on|early|late|home|work|"
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
ADDED = re.compile(r"\balso\b|\btoo\b(?=\s*(?:[.,;!?)]|$))|\bas well\b|\bauch\b|\bebenfalls\b|\bzusätzlich\b|"
                   r"\banother\b|\bnoch ein", re.I)
MARKERS = frozenset({"now", "new", "newly", "actually", "again", "still", "currently", "jetzt",
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
ENDING = re.compile(r"\b(?:gave up|give up|gives up|given up|stopped|stops|quit|quits|quitting|finished|"
                    r"broke up|"
                    r"left|sold|"
                    r"divorced|split up with|separated from|dumped|gave up on|give up on|gives up on|"
                    r"hört\b[^.;,]{0,40}?\bauf(?=\s*(?:[.!;,]|$|und\b))|"
                    r"gibt\b[^.;,]{0,40}?\bauf(?=\s*(?:[.!;,]|$|und\b))|getrennt|"
                     r"aufgehört|aufgegeben|verkauft|gekündigt)\b"
                     # "stopped by her mother's", "left for Lisbon", "left work early": no ending
                     r"(?!\s+(?:by|at|in|for|to|from|on|off|over|behind|around|early|late|home|work|"
                     r"school|town|the house|the office)\b)"
                     r"(?:\s+(?:with|mit|her|his|their|my|the|den|die|das|dem|seinen|ihren|seine|ihre))*",
                     re.I)
# The subject itself is gone: "Mia's cat died", "Jonas' Katze ist gestorben".
GONE = re.compile(r"\b(?:died|passed away|was put down|was put to sleep|ran away|was rehomed|"
                   r"was stolen|gestorben|verstorben|eingeschläfert|weggelaufen|gestohlen)\b", re.I)
KEY_LINE = re.compile(r"^\s*([A-Za-zÄÖÜäöüß][\w /’'.-]{0,38}?)\s*:(?!\d)\s*(\S.*)$")
# Terse notes write a key with "=": "GP = Dr Osei", "plan=pro annual now".
KEY_EQUALS = re.compile(r"^\s*([A-Za-zÄÖÜäöüß][\w /’'.-]{0,38}?)\s*=(?!=)\s*(\S.*)$")
NUMBER_TOKEN = re.compile(r"^\d+(?:[.,:]\d+)*$")
PLACEISH = re.compile(r"^[A-ZÄÖÜ]")


ADVERBS = frozenset({"now", "still", "also", "actually", "currently", "usually", "always",
                      "often", "never", "no", "longer", "just", "really", "finally", "recently",
                      "sometimes", "already", "mostly", "rarely", "only", "officially", "newly"})
LEXICAL_AUX = frozenset({"does", "do", "did", "doesn't", "don't", "didn't", "will", "won't",
                          "can", "can't", "cannot", "would", "should", "might", "may", "must"})


CLAUSE_BREAK = re.compile(r";|\s+—\s+|\s+[-–]\s+(?=(?:the|a|an|she|he|they|I|we|it|my|her|his|their|der|die|"
                     r"das|sie|er|es|ich|wir)\s)|,\s*(?=(?:but|so|sondern|stattdessen|aber|instead)\b)"
                     r"|\s+(?=(?:but|sondern|stattdessen|instead)\b)"
                     # a sentence's end: "… for lunch. She moved …" (not "Dr. Roth", "2. Februar")
                     r"|,\s*(?=(?:who|which|die|der|welche[rs]?)\s+[a-zäöüß])"  # "her aunt, who moved …"
                     # "finished 'Piranesi', now reading 'Babel'": what is now, a clause of its own
                     r"|,\s*(?=(?:now|jetzt|nun)\s+[a-zäöüß]+(?:ing|t|en)\b)"
                     # a second sentence after a comma: "Oskar is 8, he loves dinosaurs"
                     r"|,\s*(?=(?:he|she|they|I|we|er|ich|wir)\s+(?!and\b|und\b|or\b|oder\b)[a-zäöüß]"
                     r"[\w'’]*\s)"
                     r"|(?<=[a-zäöüß]{2})(?<!\bMrs)(?<!\bMs)(?<!\bMr)(?<!\bSt)(?<!\bvs)(?<!\betc)(?<!\bca)"
                     r"(?<!\bbzw)(?<!\busw)(?<!\bProf)(?<!\bNr)(?<!\bStr)[.!?]\s+(?=[A-ZÄÖÜ])"
                     r"|(?<=\d{4})[.!?]\s+(?=[A-ZÄÖÜ])")


DATED_PAST = re.compile(r"\b(?:in|im|seit|since)? ?(?:19|20)\d\d\b|\b(?:in|im) (?:January|February|"
                         r"March|April|May|June|July|August|September|October|November|December|"
                         r"Januar|Februar|März|Mai|Juni|Juli|Oktober|Dezember)\b")
PAST_EN = re.compile(r"^(?:[a-z]+ed|was|were|had|did|left|quit|sold|ran|went|got|made|took|"
                      r"began|grew|met|became|gave|broke|came|found|bought|won|lost|wrote|flew|"
                      r"drove|spent|taught|studied|born)$")


PERSON_NOUNS = frozenset("""
sister brother mother father mom mum dad parent parents son daughter child kid kids wife husband
partner friend boss manager colleague neighbour neighbor cousin aunt uncle grandmother
grandfather grandma grandpa niece nephew girlfriend boyfriend fiance fiancee team
schwester bruder mutter vater eltern sohn tochter kind kinder frau mann partnerin freund freundin
chef chefin kollege kollegin nachbar nachbarin cousine oma opa onkel tante
""".split())


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

# How a note says it corrects an earlier one ("Correction:", "Sorry, I mixed that up:").
CORRECTION = re.compile(r"\s*(?:(?:actually|sorry|oops),?\s*)?"
                         r"(?:correction|corrected|update|berichtigung|korrektur|richtig ist|"
                         r"i got that wrong|that was wrong|i was wrong|my mistake|sorry|i misspoke|"
                         r"i mixed (?:that|it|them) up|i wrote that wrong(?: earlier)?|i meant to say|"
                         r"ich habe mich vertan|ich hab mich vertan|ich habe mich verschrieben|"
                         r"das war falsch)\s*[:,–—-]\s*", re.I)

# Calling something off: the plan it names does not happen ("cancelled the trip", "abgesagt").
CANCELLED = re.compile(r"\b(?:cancel(?:l?ed|s|ling)?|called off|calls off|fell through|falls through|"
                       r"declined|turned down|abgelehnt|scrapped|gave up on|given up on|"
                       r"dropped (?:the |her |his |my |our |their )?[\w-]+ (?:plan|idea|trip|visit|party)|"
                       r"(?:plans?|trip|visit|party|holiday|vacation|wedding|dinner|event|move|idea) "
                       r"(?:is|are) off\b|aufgegeben|fällt flach|"
                       r"abgesagt|sag\w*\b[^.;]{0,40}?\bab|storniert|fällt\b[^.;]{0,30}?\baus|"
                       r"fiel\b[^.;]{0,30}?\baus|ausgefallen)\b", re.I)
