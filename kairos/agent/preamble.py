"""What a query says about asking, taken off before it is searched.

A model calling ``memory_search`` phrases its query as a request: "can you
look up what we know about Walter's hearing aids", "please find anything we
have noted about respite care", "kannst du mal nachschauen, was wir über den
Wasserschaden notiert haben".  The request's words ("look", "know", "noted",
"anything", "notiert") are no part of any answer, yet each is looked for:
they find lines that happen to hold them ("knows Python", "noted allergy")
and weigh against the words that matter.  The stop words already drop
"what", "we", "about"; these phrases are the rest.  Only whole phrases of
asking are taken, never a lone word ("find" in "what does Sam find hard?"
is the question), and a query that would be left with nothing is kept.
"""

from __future__ import annotations

import re

# Asking, at the start of a query: "can you (please) look up", "could you
# search memory for", "please find", "I need to check whether", "kannst du
# mal nachschauen", "such mal".
_OPENING = [
    r"(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:quickly\s+)?)?"
    r"(?:look\s+up|look\s+for|search\s+(?:your\s+|the\s+)?(?:memory|notes)\s+for|search\s+for|"
    r"search|find\s+out|find|check|see|pull\s+up|dig\s+up|show\s+me|tell\s+me|"
    r"remind\s+me(?:\s+of)?|fetch|retrieve|recall|get\s+me|give\s+me)\b",
    r"i(?:\s+(?:need|want|would\s+like)|'d\s+like)\s+to\s+(?:check|know|find\s+out|see|look\s+up|"
    r"confirm)(?:\s+(?:whether|if))?\b",
    r"(?:kannst|könntest)\s+du\s+(?:bitte\s+)?(?:mal\s+)?(?:nachschauen|nachsehen|schauen|"
    r"suchen|raussuchen|heraussuchen|checken|prüfen)\b",
    r"(?:such|schau|guck)\s+(?:bitte\s+)?mal(?:\s+nach)?\b",
]
# Asking, anywhere: "what do we know about", "anything we have noted about",
# "any notes on", "was wir … notiert haben", "was wissen wir über".
_ANYWHERE = [
    r"what\s+(?:(?:do|did)\s+(?:we|you|i)\s+|(?:we|you)\s+)?(?:know|have(?:\s+got)?|got|"
    r"have\s+(?:noted|saved|stored|written(?:\s+down)?|on\s+file))\s+(?:about|on|regarding)\b",
    r"(?:any|all|the)\s+(?:notes?|information|info|details|entries|records|memories)\s+"
    r"(?:(?:we|you)\s+(?:have|keep|saved|stored)\s+)?(?:saved\s+|stored\s+|on\s+file\s+)?"
    r"(?:about|on|regarding)\b",
    r"(?:anything|everything|something)\s+(?:(?:we|you)\s+(?:have\s+|'ve\s+)?"
    r"(?:noted|saved|stored|written(?:\s+down)?|know|have|got)\s+)?(?:about|on|regarding)\b",
    r"(?:is|are)\s+there\s+(?:any(?:thing)?|something)\s+(?:saved\s+|noted\s+|stored\s+|"
    r"written\s+)?(?:about|on|regarding)\b",
    r"(?:information|info)\s+(?:saved|noted|stored)\s+(?:about|on|regarding)\b",
    r"was\s+wissen\s+wir\s+(?:über|zu)\b",
    r"was\s+wir\s+(?:über|zu)\b",
    r"(?:notiert|gespeichert|vermerkt|aufgeschrieben)\s+(?:haben|hast|habe|ist|sind)\b",
    r"(?:gibt\s+es\s+)?(?:notizen|infos?|informationen)\s+(?:über|zu|zum|zur)\b",
]
OPENING = re.compile(r"^[\s,;:]*(?:" + "|".join(_OPENING) + r")[\s,;:]*", re.I)
ANYWHERE = re.compile(r"(?<!\w)(?:" + "|".join(_ANYWHERE) + r")(?!\w)", re.I)


def asked(query: str) -> str:
    """The query without its phrases of asking (or as it was, when they are
    all it holds)."""
    rest = query
    while True:
        cut = OPENING.sub("", rest, count=1)
        if cut == rest:
            break
        rest = cut
    rest = ANYWHERE.sub(" ", rest)
    return rest if re.search(r"\w", rest) else query


__all__ = ["asked"]
