"""Search over an agent's own files (and one pair's) and their history: what
the agent asks for, ranked, and nothing it must not see.

The documents are every line of the current files and every raw write and
session note of the history (:class:`~kairos.ports.SearchIndex`, kept by the
read side).  A search:

1. scopes itself: the agent's own stream and, with a user, that pair's —
   the index puts the scope in SQL, and drops retracted writes there
   (unless the auditor's view asks for them);
2. ranks by words: BM25 over stemmed words (FTS5 on SQLite,
   ``ts_rank_cd`` on PostgreSQL), plus — when that found fewer than asked
   for, or the query is CJK — a substring companion for compounds and CJK,
   and — when a query word names a kind of fact (:mod:`synonyms`: work,
   home, family …) — a second ranking with the words of its kind added
   (weighed as much as the words, or double, when the words found only the
   person's name); an age question adds the lines that give an age, and a
   particle with its word ("on call", "on-call") the lines that hold them
   side by side; words that say the answer's form ("name", "called") only
   break ties among the lines found, and words that ask for what is true
   now ("now", "jetzt") or for the latest ("latest", "neueste") are not
   looked for (step 5 puts the newest first); a word that found nothing is
   looked for in its other forms, spellings and equivalents in either
   language ("family doctor": Hausarzt), the equivalents' lines a ranking
   of their own;
3. ranks by meaning, when an embedder is configured: cosine over the
   scope's vectors, keeping only those at or above ``min_similarity``
   (:data:`~kairos.home.MIN_SIMILARITY` by default) — without a floor the
   nearest lines come back however unrelated, so a query about something
   the agent never heard of would be answered with its closest noise — or,
   when the words found something (the query is about what the pair
   holds), at or above :data:`WORDS_FOUND` of it, so that paraphrases of
   what was found get in (a failing embedder: lexical only, and the result
   says so);
4. fuses the rankings by reciprocal rank (k = 60), one entry per text (a
   current line over the history entry it came from, and a write that one
   line of the files now states is that line);
5. ranks what an update superseded below what replaced it: a raw write no
   longer in its file (replaced, or dropped by a dream) goes just below the
   newer line of that file that names what it named (brought in when the
   query missed it), or else the best newer current line of that file
   found, and a result moves above an
   older one of the same file about the same thing (it holds every word of
   the query the older holds, and nearly the same words or a word besides:
   :func:`_same_subject`) — and, when the query does not ask about the
   past, above an older one it is a later version of: the same measure
   again of the same named thing, a changed value, a later year of the
   date asked for (:func:`_later_version`; asked for what is true now, such
   a line is brought in when the query missed it);
6. breaks ties current before history, newer before older.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet

from kairos.agent import typos
from kairos.agent.preamble import asked
from kairos.agent.synonyms import RELATIONS, equivalents, forms, idioms, related, spellings
from kairos.domain.files import POINTER, check_scope, file_spec
from kairos.domain.hashing import format_time
from kairos.domain.ids import check_id
from kairos.domain.inputs import check_text, parse_when
from kairos.errors import BadInput
from kairos.home import MIN_SIMILARITY
from kairos.ports import (
    Doc,
    Embedder,
    EmbedderUnavailable,
    SearchHit,
    SearchIndex,
    SearchResult,
    SearchScope,
    distinct_texts,
    text_key,
)

RRF_K = 60  # reciprocal rank fusion's constant (Cormack et al.): 1 / (k + rank)
KINDS_WEIGHT = 0.3  # the kind-of-fact ranking counts less: it must not outvote the query's own words
OTHER_PERSON_WEIGHT = 0.2  # a line about the user's mother, for a question about the user
TOPIC_LINES = 3  # a named topic file's lines that join the candidates, newest first
PULLED = 10  # the best results whose replacement is looked for when the search missed it
COMPANION_WEIGHT = 0.5  # the substring companion beside what the words found
AGE = re.compile(r"\bhow old\b|\bage\b|\bwie alt\b|\balter\b", re.I)
AGE_GIVEN = re.compile(r"\b(?:is|turned|turns|aged|age|ist|wird|wurde|who's)\s+\d{1,3}\b|"
                       r"\b\d{1,3}[- ]years?[- ]old\b|\b\d{1,3} jahre alt\b", re.I)
DEPTH = 25  # distinct texts each ranking contributes to the fusion (a line and its write: ~50 documents)
WORDS_FOUND = 0.6  # the share of min_similarity that is the floor when the words found something
REPLACES = 0.5  # word overlap (Jaccard) above which a newer result of a file replaces an older
COMMON = 3  # a query word in more than a third of the results (a name) names no topic
SNIPPET = 300  # a history entry longer than this comes back as a snippet around the match
MAX_LIMIT = 100
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
WORD = re.compile(r"\w+")
# A line that says it replaces something: "new number", "now lives", "neue Adresse".
CHANGED = re.compile(r"\b(?:new|now|changed|moved|switched|updated|replaced|ersetzt|"
                     r"slipped|postponed|delayed|rescheduled|brought\s+forward|instead|"
                     r"raised|increased|lowered|reduced|erhöht|gesenkt|"
                     r"verschoben|verlegt|statt|"
                     r"neue[nrsm]?|neu|jetzt|nun|"
                     r"inzwischen|geändert|umgezogen|quit|left|joined|gekündigt|gewechselt|"
                     r"fängt\b.*\ban|angefangen)\b", re.I)
ORDINAL = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)\b")
# Words that carry no meaning of their own in a query, dropped before
# matching (unless nothing else is left).  English ones always — but not
# "may", "will" or "it", which are also a month, a name and a department.
# German ones only in a query that reads as German (it holds one of
# GERMAN_MARKS): "die", "hat", "war", "man", "mit" and "den" are English
# words of their own ("Where is Sam's hat?").
STOP_EN = frozenset("""
a an the and or but of to in on at for from by with as is are was were be been being am do does did
have has had i me my we our you your he him his she her its they them their what which who whom
whose when where why how this that these those there here not no any all some can could should would
shall might must about into over under up than then so if just also very s t
""".split())
STOP_DE = frozenset("""
der die das den dem des ein eine einen einem einer eines und oder aber ist sind war waren sein hat
haben hatte wird werden wurde zu zum zur im am an auf aus bei mit nach von vor für über um wie was
wer wann wo warum welche welcher welches sich nicht kein keine keinen noch nur auch es er sie ihr
ihre ihren ihm ihn man mehr sehr so dass ob denn doch
""".split())
GERMAN_MARKS = frozenset("""
der das dem des ein eine einen einem einer eines und oder aber ist sind waren haben hatte wird werden
wurde zum zur auf bei nach für über wie wer wann wo warum welche welcher welches sich nicht kein keine
keinen noch nur auch sie ihr ihre ihren ihm ihn sehr dass ob denn doch
""".split())
# Words of a question that say what form its answer takes ("what's the name
# of Mei's cat?"), not what it is about: among the lines found they only
# break ties, so that "Mei's cat is called Mochi" ranks above "Sigrid has a
# dog named Tøffel".
ASKED_FORM = frozenset("name names named called namen heißt heisst".split())
# Words that ask for what is true now: not looked for ("Priya now works as …"
# is no answer to "where does Priya live now?"); the newest version of a
# fact ranks above the one it replaced whatever the query says
# (_below_replacements, _replacements_first).
NOW = frozenset("""now currently current nowadays presently jetzt aktuell aktuelle aktuellen
aktueller aktuelles derzeit momentan zurzeit mittlerweile""".split())
# Words that ask for the newest version of a fact ("the latest blood pressure
# reading", "die neueste Adresse"): not looked for either — "latest" is no
# word of the answer — and among the results a newer line of a file that
# holds the asked words an older one holds ranks above it even when it does
# not say it changed (:func:`_replacements_first`).  "last" only before
# another word than a name or a span of time ("last name", "last week").
# Phrases that ask for what is true now as "now" does ("what does she do
# these days"): their words are not looked for either ("days").
NOW_PHRASE = re.compile(r"\b(?:these\s+days|at\s+the\s+moment|right\s+now|at\s+present|"
                        r"im\s+moment|zur\s+zeit|heutzutage)\b", re.I)
# Words that ask about the past ("what was …", "where did she live before",
# "früher"): then a newer version of a fact is no better an answer than the
# one it replaced, and :func:`_later_version` does not move it up.  ("was"
# and "war" in their own language only: German "was" is "what".)
PAST_EN = re.compile(r"\b(?:was|were|did|used\s+to|previous(?:ly)?|former(?:ly)?|original(?:ly)?|"
                     r"earlier|before|(?<!how\s)old)\b", re.I)
PAST_DE = re.compile(r"\b(?:war|waren|hatte|hatten|früher|damals|vorher|ursprünglich|"
                     r"bisherige[nmrs]?|alte[nmrs]?|vorige[nmrs]?)\b", re.I)
LATEST = frozenset("""latest newest recent recently last neueste neuesten neuester neuestes
letzte letzten letzter letztes jüngste jüngsten""".split())
_NOT_LATEST = re.compile(r"\b(?:last|letzte[nrs]?)\s+(?:name|names|nachname|vorname|week|weekend|"
                         r"month|year|night|time|woche|wochenende|monat|jahr|nacht|mal)\b", re.I)
# Stop words that make a phrase with the word after them ("on call", "at home").
PARTICLES = frozenset("on at in to by for from of off up out with into over under".split())
# Words that only look inflected.
UNCUT = frozenset({"news", "series", "species", "physics", "always", "perhaps", "bus", "gas",
                   "yes", "this", "thus", "its", "his", "hers", "ours", "yours", "theirs"})
# Endings cut before comparing two results, and what replaces them.
SUFFIXES = (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))


def words_of(query: str) -> list[str]:
    """The query's words, NFKC case-folded, stop words dropped (unless only
    stop words are left), each once, in order."""
    folded = unicodedata.normalize("NFKC", query).casefold()
    folded += "".join(f" {m.group(1)}" for m in ORDINAL.finditer(folded))  # "the 21st": and 21
    found = [w for w in dict.fromkeys(WORD.findall(folded)) if w.strip("_")]
    german = any(w in GERMAN_MARKS or any(c in "äöüß" for c in w) for w in found)
    kept = [w for w in found if w not in STOP_EN and not (german and w in STOP_DE)]
    return kept or found


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """A cheap stem for comparing two results: English endings cut
    (:data:`SUFFIXES`, to a fixed point: meetings → meeting → meet; then
    one final "e") and diacritics dropped (lives/lived/living, flies/flying,
    Zürich/Zurich).  Not cut to a length: Johanna and Johannes, news and
    new, interview and internet are other words."""
    w = _plain(word)
    if w in UNCUT:
        return w
    cut = True
    while cut:
        cut = False
        for suffix, then in SUFFIXES:
            if (w.endswith(suffix) and len(w) - len(suffix) + len(then) >= 3
                    and not w.endswith(("ss", "is", "us"))):
                w, cut = w[:-len(suffix)] + then, True
                break
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    if w.endswith("is") and len(w) > 5:
        w = w[:-2] + "iz"  # organised / organized
    if len(w) > 5:
        w = w.replace("our", "or")  # colour / color, favourite / favorite
    return w


def _plain(word: str) -> str:
    """A word case-folded, without diacritics."""
    return "".join(c for c in unicodedata.normalize("NFKD", word.casefold())
                   if not unicodedata.combining(c))


@functools.lru_cache(maxsize=16384)
def _stems(text: str) -> frozenset[str]:
    """A document's words less stop words, each by :func:`_stem` (kept: a
    pair's lines come back search after search)."""
    return frozenset(_stem(w) for w in words_of(text))


class Search:
    """The search service: one instance per home, shared by ``Memory.search``,
    the ``memory_search`` tool and the MCP server."""

    def __init__(self, index: SearchIndex, embedder: Embedder | None = None,
                 min_similarity: float = MIN_SIMILARITY):
        self.index = index
        self.embedder = embedder
        self.min_similarity = min_similarity
        self.vocabularies = _Vocabularies()

    def search(self, agent: str, query: str, *, user: str | None = None, limit: int = 10,
               file: str | None = None, since: str | None = None,
               include_retracted: bool = False) -> SearchResult:
        """See :meth:`kairos.memory.Memory.search`.

        :raises BadInput: bad ids, file or time, a limit out of range, or a
            query with no words.
        """
        check_id(agent, "agent")
        if user is not None:
            check_id(user, "user")
        if file is not None:
            spec = file_spec(file)
            check_scope(spec, user) if spec.scope != "agent" else None
            file = spec.name
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
            raise BadInput(f"limit must be between 1 and {MAX_LIMIT}")
        if query and query.strip():
            check_text(query, "the query")  # a lone surrogate, a NUL: refused in one line
        # "can you look up …": the rest is searched (all of it, when that is all it says)
        said_as_asked, query = query, asked(query or "")
        words = words_of(query)
        if not words:
            raise BadInput("the query has no words to look for")
        scope = SearchScope(agent, user, file, format_time(parse_when(since, since=True)) if since else None,
                            include_retracted)
        index = self.index.now()  # one look at the store for the whole search
        words = idioms(query, words)  # "for a living": work
        latest = any(w in LATEST for w in words) and not _NOT_LATEST.search(query)
        phrased = {w for m in NOW_PHRASE.finditer(query) for w in words_of(m.group())}
        now = phrased or any(w in NOW for w in words)
        words = [w for w in words if w not in NOW and w not in phrased
                 and not (latest and w in LATEST)] or words
        now = bool(now) or latest  # "now", "these days": a newer line that says it changed first
        # Not asked about the past: a later version of the same measure of the
        # same thing ranks above the older (:func:`_later_version`); judged
        # by the words asked (and which of them are names: capitalised in an
        # English question), not only by those looked for besides.
        state = None if _asks_past(query) else (tuple(words), frozenset() if _german(query) else frozenset(
            _stem(w.casefold()) for w in WORD.findall(query) if w[0].isupper()))
        found = index.lexical(scope, words, DEPTH)
        # A word that found nothing is looked for in its other forms too
        # ("going": went, "goose": geese) and spellings ("Muenchen": München);
        # a word that found something is not: asked always, they put "Sam
        # feels tired" above "a grey felt hat" for "felt", and "Michael"
        # found "Michal".
        held_tokens = [_tokens(d.text) for d in found]
        unfound = [w for w in words if not any(_holds(t, (_plain(w), _stem(w)))
                                               for t in held_tokens)]
        other_forms = [f for f in forms(unfound) if f not in words]
        if other_forms:
            words = [*words, *other_forms]
            found = index.lexical(scope, words, DEPTH)
        # ... and in the other ways of saying it, in English and German
        # ("family doctor": Hausarzt): as the query's own words, ranked by
        # how rare they are like the words found — a generic word found
        # ("family" in "Family car") must not outrank the one the pair wrote
        # in other words.
        said = [w for w in equivalents(words, unfound) if w not in words]
        if said:
            words = [*words, *said]
            found = index.lexical(scope, words, DEPTH)
        spelt = [f for f in spellings(unfound) if f not in words]
        if spelt:  # as spelt, not by prefix: "güsts"* is "gust"* once stemmed, and finds Gustav
            words = [*words, *spelt]
            first = index.lexical(scope, spelt, DEPTH, prefix=False)
            keys = {text_key(d.text) for d in first}
            found = first + [d for d in found if text_key(d.text) not in keys]
        # ... and, when none of that says it, as mistyped ("vegitarian",
        # "dentsit"): the words of the pair's own lines it is a slip from.
        fixed = _mistyped(index, scope, found, words, unfound, said, self.vocabularies)
        if fixed:
            words = [*words, *fixed]
            found = index.lexical(scope, words, DEPTH)
        by_words, rare, held, demoted = _telling(found, words)
        by_words = _content_first(by_words, words)
        about = [w for w in rare if w not in ASKED_FORM] or rare  # what the question is about
        # The words found only the name ("Does Jonas have a dog?" and no line
        # says "dog"): those lines weigh as little as a kind's, and the kind's
        # ("Hund") as much as words.
        rankings = [(1.0 if held else KINDS_WEIGHT, by_words), (KINDS_WEIGHT, demoted)]
        # Of the telling words ("like" in every line names no kind); "who is X?"
        # asks for who X is to the user only when the pair knows an X.
        kinds = related(about, query if by_words else "")
        of_kind: list[Doc] = []
        if kinds:  # "employer" finds "works at", "home" finds "moved to" (see synonyms.py)
            # When the words found only the name, the kind's lines are the
            # only ones that hold what was asked: they count double, above
            # what meaning alone finds among the name's lines.  When the
            # words found nothing, they count as the words would.
            of_kind = index.lexical(scope, kinds, DEPTH, prefix=False)
            others = _other_people(query, lambda: index.lines(SearchScope(agent, user))) - {
                _stem((user or "").casefold())}  # "Lena's number" asked of the pair lena
            if others:  # "Stefan's phone number": not the user's own number
                of_kind = [d for d in of_kind if others & _words(d.text)]
            rankings.append((2.0 if not held else 1.0 if not by_words else KINDS_WEIGHT, of_kind))
        if distinct_texts(by_words) < limit or CJK.search(query):
            # What the words missed (compounds, CJK): the companion adds to
            # the words' ranking, it does not vote again on what they found,
            # and looks for the telling words only (not the name in every line).
            # Beside what the words or a word of the kind found it counts
            # half: a piece of a word ("like" in "dislike", "mobile" in
            # "automobile") is a weaker match than a word.
            # (Not the words said in other ways: "hausarzt" is looked for as a
            # word, its "haus" is no part of "Hausratversicherung".)
            have = {text_key(d.text) for d in by_words}
            pieces = [w for w in about if w not in said] or about
            rankings.append((1.0 if not by_words and not of_kind else COMPANION_WEIGHT,
                             [d for d in index.substring(scope, pieces, DEPTH)
                              if text_key(d.text) not in have]))
        if said:
            # The query said in the other language (or other words) votes as
            # its meaning does: the embedder, which finds "Family car" for
            # "family doctor", does not know that "Hausarzt" says it.
            rankings.append((1.0, index.lexical(scope, said, DEPTH)))
        phrases = _phrases(query)
        if phrases:  # "on-call", "on call": the words side by side, not "video calls"
            rankings.append((1.0, _holding_phrases(by_words, phrases)))
        if AGE.search(query):  # "how old is Kabir?": the lines that give an age
            rankings.append((1.0, [d for d in by_words if AGE_GIVEN.search(d.text)]))
        mode, note = "lexical", None
        if self.embedder is not None:
            try:
                vector = self.embedder.embed([query])[0]
                found, missing = index.nearest(scope, self.embedder, vector, DEPTH)
                # Words found something: the query is about what the pair
                # holds, and a lower floor lets paraphrases of it in.
                # (The words' own ranking: the companion's n-grams match
                # pieces of unrelated words, and must not lower the floor.)
                floor = self.min_similarity * (WORDS_FOUND if by_words else 1.0)
                rankings.append((1.0, [d for d in found if d.score >= floor]))
                mode = "hybrid"
                if missing:
                    note = (f"{missing} recent entries are not embedded yet: they are found by "
                            "their words only")
            except EmbedderUnavailable as e:
                note = f"semantic search unavailable, lexical results only: {e}"
        docs = self._rank(index, scope, rankings, words, latest, now,
                          who=bool(WHO_ASKS.match(query)), state=state)
        hits = [self._hit(d, score, words, include_retracted, kinds) for d, score in docs[:limit]]
        return SearchResult(said_as_asked, hits, mode, note)

    # -- ranking ------------------------------------------------------------------------
    @staticmethod
    def _rank(index: SearchIndex, scope: SearchScope,
              rankings: Sequence[tuple[float, list[Doc]]],
              words: Sequence[str], latest: bool = False,
              now: bool = False, who: bool = False,
              state: tuple[Sequence[str], AbstractSet[str]] | None = None
              ) -> list[tuple[Doc, float]]:
        best: dict[str, Doc] = {}  # one document per text: a current line over history
        scores: dict[str, float] = {}
        # A topic file's pointer ("More in topics/sport.md.") is no fact: the
        # lines it points to are the results, never the pointer.
        lines = [d for d in index.lines(SearchScope(scope.agent, scope.user))
                 if not POINTER.match(d.text)]
        line_of = {e: line for line in lines for e in line.event_ids}
        current = _Current(lines)  # made when a write of several lines is found
        user_stem = _stem((scope.user or "").casefold())
        # (nor "now", "name": a line of a rewrite is the one about what was asked)
        asked_words = [(_plain(w), _stem(w)) for w in words if _stem(w) != user_stem
                       and w not in ASKED_FORM] or [
            (_plain(w), _stem(w)) for w in words if _stem(w) != user_stem]
        cited = Counter(e for line in lines for e in line.event_ids)  # how many lines cite a write
        for weight, candidates in rankings:
            ranking: list[Doc] = []
            cut: list[bool] = []  # a line taken out of a write of several
            for doc in candidates:
                if doc.kind == "current" and POINTER.match(doc.text):
                    continue
                # A write a line of the files now says is that line ("on 14 May"
                # is "on 14 May 2026" since the dream): one result, not two.
                # (Only a write that became one line: a write of several lines is
                # none of them alone.)
                said = line_of.get(doc.event_ids[0]) if doc.kind == "history" else None
                if said is not None and cited[doc.event_ids[0]] == 1 and not scope.include_retracted and (
                        scope.file is None or said.file == scope.file) and (
                        scope.since is None or said.recorded_at >= scope.since):
                    doc = said
                elif doc.kind == "history" and doc.type == "MemoryWritten" and (
                        not scope.include_retracted):
                    # A write of several lines (a whole file, replaced) is found
                    # as the line of it that matched: that line, where the file
                    # still says it, or else as history — not the whole file
                    # again for every version of it the agent wrote.
                    line = _as_line(doc, asked_words, current, scope.since)
                    if line is not None:
                        cut.append(line is not doc)
                        ranking.append(line)
                    continue
                cut.append(False)
                ranking.append(doc)
            # A line cut out of a write ranks where the line itself ranked: the
            # write ranked by all its lines' words together ("Sam's" three
            # times), not by that line's.
            own = {text_key(d.text) for d, c in zip(ranking, cut, strict=True) if not c}
            seen: dict[str, None] = {}
            for doc, c in zip(ranking, cut, strict=True):
                key = text_key(doc.text)
                kept = best.get(key)
                if kept is None or (kept.kind, -kept.position) > (doc.kind, -doc.position):
                    best[key] = doc  # (the newest write that held the line: it was there then)
                if c and key in own:
                    continue
                if key not in seen:  # a text's best rank in this ranking counts, texts counted
                    seen[key] = None
                    scores[key] = scores.get(key, 0.0) + weight / (RRF_K + len(seen))
        # A topic file's name is a word of each of its lines ("Flight EZY2321 at
        # 7:15" in topics/lisbon.md is about Lisbon): a line of a file the
        # query names gains what a kind's first line would.
        asked = {_stem(w) for w in words}
        # A topic file the query names has its lines among the candidates when
        # the rankings found little ("films", "Which films has she seen?") —
        # not otherwise: topics/work.md must not flood "Where does Kathi work?".
        # Never by the user's own name (topics/kathi.md for "What's Kathi's
        # number?"), and at most TOPIC_LINES of the file, newest first.
        me = (scope.user or "").casefold()
        topical = asked - {_stem(me), _stem(me + "s"), me + "s"}  # "Kathis Nummer"
        named = [doc for doc in lines if doc.file and doc.file.startswith("topics/")
                 and _names_topic(doc.file, topical) and scope.file in (None, doc.file)
                 and (scope.since is None or doc.recorded_at >= scope.since)]
        topic_only: set[str] = set()  # found by nothing but the file's name: ranked after
        for doc in sorted(named, key=lambda d: -d.position)[:TOPIC_LINES]:
            if text_key(doc.text) not in best:
                topic_only.add(text_key(doc.text))
            best.setdefault(text_key(doc.text), doc)
            scores.setdefault(text_key(doc.text), 0.0)
        for key, doc in best.items():
            if doc.file and doc.file.startswith("topics/") and _names_topic(doc.file, asked) - _words(
                    doc.text):  # a line that says the word itself has it already
                scores[key] += KINDS_WEIGHT / (RRF_K + (2 if key in topic_only else 1))
        # "Where does Kathi live?": a line about Kathi's mother or friend is not
        # about Kathi, unless the query asks for the mother.
        # (only for a question about the user: "Who is allergic to peanuts?" is
        # not, and "who pays for Noah's lessons?" asks for someone else)
        about_user = _stem((scope.user or "").casefold()) in asked or asked & _USER_PRONOUNS
        if not who and not asked & _RELATION_STEMS and about_user:
            kin = {_stem(k) for k in related(list(words))}  # "is Sam married?": a girlfriend
            for key, doc in best.items():
                relative = _ABOUT_A_RELATIVE.match(doc.text)
                # (not when the query names the relative: "Where does Ingrid live?")
                if relative and _stem(relative.group(1).casefold()) not in kin and \
                        not asked & {_stem(w.casefold()) for w in re.findall(
                        r"\b[A-ZÄÖÜ][\w-]+", doc.text[relative.end():relative.end() + 40])}:
                    scores[key] *= OTHER_PERSON_WEIGHT
        superseded = {key for key, doc in best.items()
                      if doc.kind == "history" and doc.file is not None
                      and doc.type == "MemoryWritten" and doc.event_ids[0] not in line_of}
        order = sorted(best, key=lambda k: (-scores[k], best[k].kind != "current",
                                            -best[k].position))
        replaced_by: dict[int, Doc] = {}
        frequency: Counter[str] = Counter()  # of each word, in the pair's lines
        if superseded:
            frequency.update(w for line in lines for w in _words(line.text))
        written: Counter[tuple[str | None, int]] = Counter()  # lines an event put in a file
        in_file: Counter[str | None] = Counter()
        if superseded:
            written.update((line.file, line.position) for line in lines)
            in_file.update(line.file for line in lines)
        topic = asked - {user_stem}  # what the query asks of the user
        for key in [k for k in order[:PULLED] if k in superseded]:
            # A replaced write ranks just below what replaced it — the newer
            # line of its file that names what it named — found or not ("What
            # car does she drive?" finds "drives a Yaris", not "sold the Yaris
            # and now cycles"): that line takes at least the write's score.
            found = _replacement(best[key], lines, frequency, topic)
            if found is not None:
                found_key = text_key(found.text)
                best.setdefault(found_key, found)
                scores[found_key] = max(scores.get(found_key, 0.0), scores[key])
                replaced_by[id(best[key])] = best[found_key]
        wanted = None
        if state is not None:  # a word in a third of the pair's lines is a name too ("Bruno")
            held_by = Counter(s for line in lines for s in _stems(line.text) & asked)
            wanted = _Asked.of(state[0], state[1] | {
                s for s, n in held_by.items() if n > max(2, len(lines) // COMMON)}, words, user_stem)
        if now or latest:
            # Asked for what is true now: a newer line of a found line's file
            # that says it changed what the found one says ("Sessions moved
            # to Wednesdays" for "current tutoring schedule", which found
            # "Tutoring sessions: Tuesdays") comes in, or rises, to just
            # above it, though it lacks the asked words.
            changes = [d for d in lines if _says_changed(d.text)]
            in_lines: Counter[str] = Counter()  # counted once there is a candidate
            for key in [k for k in order[:PULLED] if best[k].kind == "current"]:
                if not in_lines and any(d.file == best[key].file for d in changes):
                    in_lines.update(w for line in lines for w in _stems(line.text))
                change = _changed_since(best[key], changes, len(lines), in_lines)
                if change is None and wanted is not None:
                    # ... or that gives the same measure again ("Bruno 49,0 kg beim
                    # Wiegen" after "Gewicht Bruno 51,2 kg")
                    change = _measured_again(best[key], lines, wanted)
                if change is not None:  # (found already, it rises to the older one)
                    best.setdefault(text_key(change.text), change)
                    scores[text_key(change.text)] = max(scores.get(text_key(change.text), 0.0),
                                                        scores[key])
        order = sorted(best, key=lambda k: (-scores[k], best[k].kind != "current",
                                            -best[k].position))
        ranked = _below_replacements(
            [(best[k], scores[k]) for k in order], {id(best[k]) for k in superseded},
            replaced_by, lambda old, new: _linked(old, new, _telling_words(
                old.text, lines, frequency), topic),
            lambda old, line: written[line.file, line.position] == 1 and (
                in_file[line.file] == 1 or not _partly(old, line, topic)))
        return _replacements_first(ranked, words, user=scope.user, latest=latest, now=now,
                                   state=wanted)

    @staticmethod
    def _hit(doc: Doc, score: float, words: list[str], auditor: bool,
             kinds: Sequence[str] = ()) -> SearchHit:
        where = doc.kind
        if where == "current" and (doc.file or "").startswith("topics/"):
            where = "topic"
        return SearchHit(_snippet(doc.text, words, kinds), doc.file, where, doc.recorded_at,
                         doc.event_ids, score, doc.retracted if auditor else None)


_RELATION_STEMS = frozenset(_stem(w) for w in RELATIONS.split())
_USER_PRONOUNS = frozenset(_stem(w) for w in ("she", "her", "he", "his", "sie", "ihr", "ihre", "er",
                                              "sein", "seine"))
# A question that asks for a person: its answer may be the user's relative.
WHO_ASKS = re.compile(r"^\s*(?:who|whom|whose|wer|wem|wen|wessen)\b", re.I)
# A line about someone's relative: "Kathi's mother Ingrid lives …", "Emil's best friend
# Noah …", "Ihr Bruder Tobias wohnt …".
_ABOUT_A_RELATIVE = re.compile(
    r"^\s*(?:(?-i:[A-ZÄÖÜ])[\w-]*(?:'s|’s|')\s+(?:\w+\s+)?|(?-i:[A-ZÄÖÜ])[\w-]*s\s+"
    r"|(?:her|his|their|ihre?|seine?)\s+(?:\w+\s+)?)"
    rf"({'|'.join(RELATIONS.split())}|mum|mom|dad|parents|eltern)\b", re.I)


class _Current:
    """The current lines by file and text, made on first use: most
    searches find no write of several lines, and a pair's lines are many."""

    def __init__(self, lines: Sequence[Doc]):
        self.lines = lines
        self.by: dict[tuple[str | None, str], Doc] | None = None

    def get(self, key: tuple[str | None, str]) -> Doc | None:
        if self.by is None:
            self.by = {(line.file, text_key(line.text)): line for line in self.lines}
        return self.by.get(key)


def _as_line(doc: Doc, asked: list[tuple[str, str]], current: _Current,
             since: str | None = None) -> Doc | None:
    """A history entry of several lines as the one of them that holds most
    of the query's words (``asked``, less the user's name, which most lines
    hold): the current line (``current``: by file and text) where its file
    still says it; of equals, one the file no longer says (it is news), else
    the first.  When no line holds a word (it was found by its meaning, a
    kind's word, part of a compound): the one line its file no longer says,
    if one; None when the file says every line (the current lines are the
    results); else the entry unchanged.  A current line recorded before
    ``since`` (the search's) is not taken for the entry: the entry is in the
    window, the line's time is not."""
    lines = list(dict.fromkeys(line.strip() for line in doc.text.split("\n") if line.strip()))
    if len(lines) < 2:
        return doc
    gone = [line for line in lines if current.get((doc.file, text_key(line))) is None]
    held = [sum(_holds(_tokens(line), want) for want in asked) for line in lines]
    most = max(held)
    if most == 0:
        if not gone:
            return None
        return dataclasses.replace(doc, text=gone[0]) if len(gone) == 1 else doc
    best = [line for line, n in zip(lines, held, strict=True) if n == most]
    line = ([b for b in best if b in gone] or best)[0]
    now = current.get((doc.file, text_key(line)))
    if now is not None and (since is None or now.recorded_at >= since):
        return now
    return dataclasses.replace(doc, text=line)


def _mistyped(index: SearchIndex, scope: SearchScope, found: Sequence[Doc], words: Sequence[str],
              unfound: Sequence[str], said: Sequence[str], held: _Vocabularies) -> list[str]:
    """The words of the scope's current lines that the query's words which
    still found nothing were mistyped for (:mod:`typos`): not a word with
    other forms or other ways of saying it, which is a word of its own, nor
    one that begins or ends a word of the pair's ("Lehrer" of
    "Grundschullehrer" is a part, which the companion finds).  The lines
    are read only when there is such a word."""
    tokens = [_tokens(d.text) for d in found]
    typed = [_plain(w) for w in unfound
             if not forms([w]) and not equivalents(words, [w]) and w not in said
             and not any(_holds(t, (_plain(w), _stem(w))) for t in tokens)]
    if not typed:
        return []
    vocabulary, joined = held.of(scope, index.lines(scope))
    return [m for w in typed if f"\n{w}" not in joined and f"{w}\n" not in joined
            for m in typos.meant(w, vocabulary) if m not in words]


class _Vocabularies:
    """The words of a few scopes' current lines, each with how many lines
    hold it, and all of them joined by line breaks (to find a word that
    begins or ends one in a single search); kept while the lines stay the
    same (made again when any line came or went: a line's key is its row's)."""

    HELD = 16

    def __init__(self) -> None:
        self._held: dict[SearchScope, tuple[int, dict[str, int], str]] = {}
        self._lock = threading.Lock()

    def of(self, scope: SearchScope, lines: Sequence[Doc]) -> tuple[dict[str, int], str]:
        same = hash(tuple(d.key for d in lines))
        with self._lock:
            held = self._held.get(scope)
        if held is not None and held[0] == same:
            return held[1], held[2]
        words = typos.vocabulary(_tokens(d.text) for d in lines)
        joined = "\n" + "\n".join(words) + "\n"
        with self._lock:  # threads of one server search at once
            while len(self._held) >= self.HELD:
                self._held.pop(next(iter(self._held)))
            self._held[scope] = (same, words, joined)
        return words, joined


@functools.lru_cache(maxsize=16384)
def _tokens(text: str) -> tuple[str, ...]:
    """A text's words, case-folded, without diacritics (kept: a pair's lines
    come back search after search)."""
    return tuple(_plain(m.group()) for m in WORD.finditer(text))


def _holds(tokens: Sequence[str], want: tuple[str, str]) -> bool:
    """Whether a text's words (:func:`_tokens`) hold a query word (its plain
    form and stem) as the index would match it."""
    return any(_matches(token, [want]) for token in tokens)


def _names_topic(file: str, asked: set[str]) -> set[str]:
    """The asked words a topic file's name holds ("sport" in topics/sport.md)."""
    return asked & {_stem(w) for w in WORD.findall(file[len("topics/"):].rsplit(".", 1)[0].casefold())}


def _replacement(old: Doc, lines: Sequence[Doc], frequency: Counter[str],
                 topic: AbstractSet[str]) -> Doc | None:
    """The newer current line of a replaced write's file that holds most of
    its telling words — those in few of the pair's lines (``frequency``:
    "Yaris", not the name every line holds) — or None when no line holds one."""
    newer = [d for d in lines if d.file == old.file and d.position > old.position]
    if not newer:
        return None
    telling = _telling_words(old.text, lines, frequency)
    shared = sorted(((len(telling & _words(d.text)), d.position, d) for d in newer),
                    key=lambda t: (t[0], t[1]), reverse=True)
    count, _, best = shared[0]
    if count == 0 or (count == 1 and len(shared) > 1 and shared[1][0] == 1):
        # One word in common, and another line has one too ("nurse", "Manchester"):
        # which replaced it is a guess (a dream's lines all look newest).
        return None
    return best if _linked(old, best, telling, topic) else None


def _changed_since(old: Doc, changes: Sequence[Doc], lines: int,
                   frequency: Counter[str]) -> Doc | None:
    """Of the lines that say they changed something (``changes``: the
    pair's that :func:`_says_changed`), the newer one of a current line's
    file that holds most of its telling words — or None when none does, or
    two hold as many (which changed it is a guess).  ``lines``: how many
    lines the pair has, ``frequency`` in how many each word is."""
    # (its words in few lines: the older and the newer line hold them both;
    # not a name, nor a word that says a change: "New salary at Larkspur"
    # changed no "new job at Larkspur")
    few = max(2, lines // 3)
    german = any(w in GERMAN_MARKS for w in _tokens(old.text))  # (every noun capitalised)
    telling = {w for w in _stems(old.text) if len(w) >= 3 and frequency[w] <= few
               and not (not german and _is_name(w, old.text)) and not CHANGED.fullmatch(w)}
    shared = sorted(((len(telling & _stems(d.text)), d.position, d) for d in changes
                     if d.file == old.file and d.position > old.position),
                    key=lambda t: (t[0], t[1]), reverse=True)
    if not shared or shared[0][0] == 0 or (len(shared) > 1 and shared[1][0] == shared[0][0]):
        return None
    return shared[0][2]


@functools.lru_cache(maxsize=16384)
def _says_changed(text: str) -> bool:
    """Whether a line says it changed something (:data:`CHANGED`; kept: a
    pair's lines come back search after search)."""
    return CHANGED.search(text) is not None


def _german(query: str) -> bool:
    """Whether a query reads as German (as :func:`words_of` judges it)."""
    return any(w in GERMAN_MARKS or any(c in "äöüß" for c in w) for w in WORD.findall(query.casefold()))


def _asks_past(query: str) -> bool:
    """Whether a query asks about the past (:data:`PAST_EN`, :data:`PAST_DE`,
    each in its own language)."""
    return bool((PAST_DE if _german(query) else PAST_EN).search(query))


# A number and its unit ("51,2 kg", "3 IU", "135°", "800 ms", "4 colonies",
# "12/day"), or a currency before it ("€0.14"); not a piece of a date, a time
# or a ratio ("12.03.2023", "7:30", "3:2").
_QUANTITY = re.compile(r"(?<![\w.,:/€$£-])(\d+(?:[.,]\d+)?)(?![.,:/]?\d)\s?(/\s?[^\W\d_]+|%|°|€|\$|£|"
                       r"[^\W\d_]{1,15})")
_PRICE = re.compile(r"([€$£])\s?(\d+(?:[.,]\d+)?)(?![.,:/]?\d)")
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_UNITS = {"eur": "€", "euro": "€", "euros": "€", "usd": "$", "dollar": "$", "dollars": "$",
          "gbp": "£", "pound": "£", "pounds": "£", "grad": "°", "degree": "°", "degrees": "°",
          "prozent": "%", "percent": "%", "kilo": "kg", "kilos": "kg", "wk": "week", "wks": "week"}
# Words after a number that are no unit of it ("3 per day", "2 x", "500 from July").
# (Nor a time of day: "10 Uhr" and "15 Uhr" are two appointments, not one measure.)
_NO_UNIT = STOP_EN | STOP_DE | frozenset("per pro x mal bis ab ca and und or oder uhr am pm h".split())
# Of the words that say a line changed, those that say a value changed (not
# "new", "now" or "left", which a line says of many things).
_CHANGED_VALUE = re.compile(r"\b(?:changed|moved|switched|updated|replaced|ersetzt|slipped|postponed|"
                            r"delayed|rescheduled|raised|increased|lowered|reduced|erhöht|gesenkt|"
                            r"verschoben|verlegt|geändert|umgezogen|gewechselt|umgestellt)\b", re.I)
_POSSESSOR = re.compile(r"\b([A-ZÄÖÜ][a-zäöüß]+)(?:'s|’s)")  # "Lena's weight"


@functools.lru_cache(maxsize=16384)
def _measures(text: str) -> tuple[tuple[str, float], ...]:
    """The quantities a line gives, as (unit, value): the unit stemmed, or
    its symbol (:data:`_UNITS`: "EUR" is €, "degrees" °)."""
    out = []
    for number, unit in _QUANTITY.findall(text):
        unit = unit.casefold().replace(" ", "")
        if unit.strip("/") in _NO_UNIT or unit.strip("/") in _CALENDAR or _stem(unit) in _CALENDAR:
            continue
        unit = _UNITS.get(unit, unit if len(unit) == 1 else _stem(unit))
        out.append((unit, _value(number)))
    out += [(symbol, _value(number)) for symbol, number in _PRICE.findall(text)]
    return tuple(out)


def _value(number: str) -> float:
    """A number as written: a point or comma before three digits separates
    thousands ("1.020 €", "€2,400"), else it is the decimal one ("51,2")."""
    whole, _, part = number.replace(",", ".").partition(".")
    if len(part) == 3 and whole != "0":
        return float(whole + part)
    return float(number.replace(",", "."))


def _same_measure(old_text: str, new_text: str) -> bool:
    """Whether two lines give a quantity in the same unit, of a like size
    (within a factor of two: "51,2 kg" and "49,0 kg" are a dog's weight
    twice, "31 kg" and "12 kg" a weight and a bag of food)."""
    new = _measures(new_text)
    return any(unit == u and 0 < min(value, v) and max(value, v) <= 2 * min(value, v)
               for unit, value in _measures(old_text) for u, v in new)


def _capitalised(text: str) -> frozenset[str]:
    """The stems of a line's capitalised words that may name a thing ("Bruno",
    "Pixel"): not days or months, stop words, the words of a change, nor a
    unit ("IU")."""
    units = {u for u, _ in _measures(text)}
    return frozenset(s for w in WORD.findall(text) if w[0].isupper()
                     and (s := _stem(w)) not in _CALENDAR and w.casefold() not in STOP_EN | STOP_DE
                     and not CHANGED.fullmatch(w) and w.casefold() not in NOW and s not in units)


@dataclasses.dataclass(frozen=True)
class _Asked:
    """What a question that does not ask about the past asks, for
    :func:`_later_version`: its own ``words`` (each as plain word and stem),
    the stems of the ``names`` among them (the user's, those capitalised in
    an English question, and those a third of the pair's lines hold: the
    dog every line is about), and the ``topic``: every word looked for
    (other forms, the other language's: "gewicht" for "weight") that is no
    name."""

    words: tuple[tuple[str, str], ...]
    names: frozenset[str]
    topic: tuple[tuple[str, str], ...]
    me: str  # the user's name, stemmed

    @classmethod
    def of(cls, asked: Sequence[str], names: AbstractSet[str], looked_for: Sequence[str],
           me: str) -> _Asked:
        topic = [(_plain(w), _stem(w)) for w in dict.fromkeys([*asked, *looked_for])]
        names = frozenset(names) | {me}
        return cls(tuple((_plain(w), _stem(w)) for w in asked), names,
                   tuple(w for w in topic if w[1] not in names), me)


def _held(old: Sequence[str], new: Sequence[str], want: tuple[str, str]) -> bool:
    """Whether a newer line holds an asked word as the older does: the word
    the older holds, or a longer one that holds it ("Caninsulin" for
    "insulin"), or the first part of it, hyphenated ("Tollwut-Auffrischung"
    for "Tollwutimpfung") — not a part of the older's word ("marathon" is
    no version of "Halbmarathon")."""
    mine = [t for t in old if _matches(t, [want])]
    return any(_matches(t, [want]) and any(m == t or _stem(m) == _stem(t) or m in t for m in mine)
               or any(len(t) >= 5 and m != t and m.startswith(t) for m in mine) for t in new)


def _later_version(old_text: str, new_text: str, asked: _Asked) -> bool:
    """Whether a newer line of a file, for a question that does not ask
    about the past, is a later version of what an older one answered.  The
    older holds a word of the question that is no name (``asked.topic``:
    a line that holds only the dog's name answers nothing of "Bruno's food
    allergy"); the newer holds each name asked that the older holds (not
    the user's, whom a note need not name), as the older holds it
    (:func:`_held`), and is about no one else ("Lena's weight", "the
    neighbours now have …"); and

    - it gives the same measure again (:func:`_same_measure`: "Bruno 49,0
      kg beim Wiegen" after "Gewicht Bruno 51,2 kg") of the same named
      thing (a capitalised word in both) or saying it changed ("Now 5
      colonies" after "Apiary: 4 colonies"), does not begin with a name the
      older lacks ("Lena weighs 61 kg" after "Sam weighs 82 kg"), and it
      holds the older's words
      of the question, or says it changed, or shares another word with it
      ("Diät"): "Bruno's treats: 200 g" is no version of "Bruno's food:
      300 g"; or
    - it holds every word of the question the older holds, and says a
      value changed ("Venue changed – the wedding is now at …") sharing
      another word with it — the asked word alone, in a line that changed
      something else, is no link — or gives a later year of a date the
      older gives ("nächste fällig 03/2029" after "Auffrischung fällig im
      März 2026")."""
    old_tokens, new_tokens = _tokens(old_text), _tokens(new_text)
    topic = [w for w in asked.topic if _holds(old_tokens, w)]
    if not topic:
        return False
    held = [w for w in asked.words if w[1] != asked.me and _holds(old_tokens, w)]
    if not all(_held(old_tokens, new_tokens, w) for w in held if w[1] in asked.names):
        return False
    if _someone_new(old_text, new_text):
        return False
    on_topic = all(_held(old_tokens, new_tokens, w) for w in [*held, *topic])
    changed = _says_changed(new_text)
    shared = {w for w in (_stems(old_text) & _stems(new_text)) - {s for _, s in [*held, *topic]}
              - asked.names - {u for u, _ in _measures(old_text)}
              if len(w) >= 2 and not CHANGED.fullmatch(w)}
    if _same_measure(old_text, new_text):
        return (bool(_capitalised(old_text) & _capitalised(new_text)) or changed) and (
            on_topic or changed or any(not w.isdigit() for w in shared)) and not _named_first(
            old_text, new_text)
    if not on_topic:
        return False
    if _CHANGED_VALUE.search(new_text):
        return bool(shared)
    years, new_years = _YEAR.findall(old_text), _YEAR.findall(new_text)
    return bool(years and new_years and max(new_years) > max(years))


def _someone_new(old_text: str, new_text: str) -> bool:
    """Whether a newer line is about someone the older is not: another's
    thing ("Lena's weight now 62 kg" after "Sam's weight: 80 kg"), or a
    relative or neighbour the older does not name ("The neighbours now have
    7 hens")."""
    old = _words(old_text)
    if {_stem(p.casefold()) for p in _POSSESSOR.findall(new_text)} - old:
        return True
    return bool((_words(new_text) - old) & _RELATION_STEMS)


def _named_first(old_text: str, new_text: str) -> bool:
    """Whether a newer line begins with a capitalised word the older lacks
    ("Lena weighs 61 kg" after "Sam weighs 82 kg") — not a word of when, of
    a change, or a tag ("Now 5 colonies", "Update: …"), nor in a German
    line, which capitalises every noun ("Vermieter hat erhöht")."""
    if _german(new_text):
        return False
    old = _words(old_text)
    first = next(iter(WORD.findall(_TAG.sub("", new_text, count=1))), "")
    folded = first.casefold()
    return bool(first) and first[0].isupper() and _stem(folded) not in old and not (
        folded in STOP_EN | STOP_DE | _LEADING | NOW or CHANGED.fullmatch(first)
        or _stem(folded) in _CALENDAR)


def _measured_again(old: Doc, lines: Sequence[Doc], asked: _Asked) -> Doc | None:
    """The newest line of a found line's file, newer than it, that is a later
    version of it (:func:`_later_version`) — or None."""
    if not _measures(old.text):
        return None
    return next((d for d in sorted(lines, key=lambda d: -d.position)
                 if d.file == old.file and d.position > old.position
                 and _later_version(old.text, d.text, asked)), None)


def _linked(old: Doc, new: Doc, telling: set[str], topic: AbstractSet[str]) -> bool:
    """Whether a newer line can be what replaced an older write: it says it
    changed something, or it holds two of the write's telling words, or all
    of them ("standup"), or one that names a thing ("Volvo", "X9Y8Z7") —
    one word of several ("number" of "Sam's passport number is X9Y8Z7", in
    "Sam's gym locker is number 97") is no link.  Short of a name, neither
    is a line that lacks a word of the query (``topic``: its stems, less the
    user's name) that the write holds: "Sam's train pass expires in March."
    is no update of "Sam's library card expires in March." for "When does
    the library card expire?"."""
    if CHANGED.search(new.text):
        return True
    shared = telling & _words(new.text)
    if any((_is_name(w, old.text) and w not in _CALENDAR) or any(c.isdigit() for c in w)
           for w in shared):  # "Sam sold the Volvo …" after "Sam drives a red Volvo."
        return True
    if _asked_of(old, topic) - _words(new.text):
        return False
    return len(shared) >= 2 or (bool(shared) and shared == telling)


def _asked_of(old: Doc, topic: AbstractSet[str]) -> set[str]:
    """The query's words a write holds, less the names it holds (the
    person both lines are about)."""
    return {w for w in topic & _words(old.text) if not _is_name(w, old.text)}


def _partly(old: Doc, new: Doc, topic: AbstractSet[str]) -> bool:
    """Whether a newer line holds some of the query's words the write holds
    but not all: another answer to the query ("Sam's gym locker is number
    97." for "passport number"), not what the write became."""
    asked = _asked_of(old, topic)
    return bool(asked & _words(new.text)) and bool(asked - _words(new.text))


# Days and months are written capitalised and name no thing: "Friday" in two
# lines does not make one the update of the other.
_CALENDAR = frozenset(_stem(w) for w in """
monday tuesday wednesday thursday friday saturday sunday january february march april may june
july august september october november december montag dienstag mittwoch donnerstag freitag
samstag sonntag januar februar märz mai juni juli oktober dezember""".split())


def _telling_words(text: str, lines: Sequence[Doc], frequency: Counter[str]) -> set[str]:
    """A text's words that tell what it is about: four letters or more, in
    few of the pair's lines ("Yaris", not the name every line holds)."""
    return {w for w in _words(text) if len(w) >= 4 and frequency[w] <= max(1, len(lines) // 3)}


def _telling(docs: list[Doc], words: Sequence[str]
             ) -> tuple[list[Doc], list[str], bool, list[Doc]]:
    """The word ranking less the documents that hold only the query's
    common words — a name most of the pair's lines hold ("Lena" in "Who is
    Lena dating?") — and the query's other words.  Ranked second, third …
    by that word alone, they would add up with their ranks by meaning and
    bury the one line that holds "dating".  A word is common when it is in
    four fifths of at least four texts found.  Nothing is dropped when the
    query has no other word, or no document holds one (then the third
    value is False: the words found only the name).  The fourth: the
    dropped documents that hold a common word that is no name."""
    texts = {text_key(d.text): d.text for d in docs}
    if len(texts) < 4:
        return docs, list(words), True, []
    stems = {key: _words(text) for key, text in texts.items()}
    asked = {w: _stem(w) for w in words}
    common = {w for w, s in asked.items()
              if sum(any(_near(s, t) for t in found) for found in stems.values()) >= 0.8 * len(stems)}
    rare = [w for w in words if w not in common]
    if not common or not rare:
        return docs, list(words), True, []
    kept = [d for d in docs if any(_near(asked[w], t) for w in rare for t in stems[text_key(d.text)])]
    if not kept:
        return docs, rare, False, []
    # A common word that is no name is still a topic ("school" in four of the
    # five lines found for "Which school does her son attend?"): the lines
    # that hold it are not dropped, they count less.
    topics = [asked[w] for w in common if not _named(w, texts.values())]
    held = set(map(id, kept))
    demoted = [d for d in docs if id(d) not in held
               and any(_near(s, t) for s in topics for t in stems[text_key(d.text)])]
    return kept, rare, True, demoted


def _content_first(docs: list[Doc], words: Sequence[str]) -> list[Doc]:
    """The word ranking with the documents that hold more of what the query
    is about (its words less :data:`ASKED_FORM`) first; among equals, as
    ranked.  Unchanged when the query has no such word, or only such words."""
    about = [w for w in words if w not in ASKED_FORM]
    if not about or len(about) == len(words):
        return docs
    wanted = [(_plain(w), _stem(w)) for w in about]
    held = {id(d): sum(_holds(_tokens(d.text), want) for want in wanted) for d in docs}
    return sorted(docs, key=lambda d: -held[id(d)])


def _phrases(query: str) -> list[tuple[str, str]]:
    """The query's particles with the word after them ("on call", "on-call",
    "at home"), and a hyphenated word's halves ("check-in"): the word
    ranking drops the stop word, and then "video calls" holds the query as
    much as "on call" does.  (Two words that both count are ranked together
    by the index already; "like to" in a question is no phrase of its
    answer.)"""
    folded = unicodedata.normalize("NFKC", query).casefold()
    out = []
    for m in re.finditer(r"(\w+)(?=(-|\s+)(\w+))", folded):  # each word and the next
        a, sep, b = _plain(m.group(1)), m.group(2), _plain(m.group(3))
        if (a in PARTICLES and b not in STOP_EN) or (sep == "-" and (a in STOP_EN) != (
                b in STOP_EN)):
            out.append((a, b))
    return list(dict.fromkeys(out))


def _holding_phrases(docs: Sequence[Doc], phrases: Sequence[tuple[str, str]]) -> list[Doc]:
    """The documents that hold one of the phrases (:func:`_phrases`), word
    beside word in that order (each word as it is, or another form of it),
    most phrases first, then as ranked."""
    def held(doc: Doc) -> int:
        tokens = _tokens(doc.text)
        pairs = set(zip(tokens, tokens[1:], strict=False))
        stems = {(_stem(a), _stem(b)) for a, b in pairs}
        return sum((a, b) in pairs or (_stem(a), _stem(b)) in stems for a, b in phrases)
    counts = {id(d): held(d) for d in docs}
    return sorted((d for d in docs if counts[id(d)]), key=lambda d: -counts[id(d)])


def _other_people(query: str, lines: Callable[[], Sequence[Doc]]) -> frozenset[str]:
    """The people whose things a query asks for who are not the user: its
    capitalised possessives ("Stefan's phone number") that few of the pair's
    lines hold — the user's own name is in most of them.  (Not any
    capitalised word: "did Sam live in Oslo?" names a place.)  ``lines``
    gives the pair's lines, read only when the query has such a name."""
    names = [m.group(1) for m in re.finditer(r"\b([A-ZÄÖÜ][\w-]+)(?:'s|’s|s'|')(?!\w)", query)
             if m.group(1).casefold() not in STOP_EN | STOP_DE]  # "What's"
    if not names:
        return frozenset()
    texts = [_words(d.text) for d in lines()]
    out = set()
    for name in names:
        stem = _stem(name.casefold())
        if sum(stem in t for t in texts) <= max(1, len(texts) // 3):
            out.add(stem)
    return frozenset(out)


def _named(word: str, texts: Iterable[str]) -> bool:
    """Whether a word is written as a name in the texts (capitalised where
    it stands, mostly): "Lena" is, "school" in four lines of five is not —
    a topic the pair talks of often is still what the query asks for."""
    capital = lower = 0
    for text in texts:
        for m in WORD.finditer(text):
            token = m.group()
            if token.casefold().startswith(word):
                if token[0].isupper():
                    capital += 1
                else:
                    lower += 1
    return capital > lower


@functools.lru_cache(maxsize=16384)
def _words(text: str) -> frozenset[str]:
    """A document's words, each by :func:`_stem` (kept: a pair's lines come
    back search after search)."""
    return frozenset(_stem(w) for w in WORD.findall(text.casefold()))


def _near(asked: str, word: str) -> bool:
    """A document's word as the index would match a query's: the same stem,
    or a longer word it begins (the index matches four letters or more by
    prefix: "Zahnarzt" in "Zahnarzttermin")."""
    return word == asked or (len(asked) >= 4 and word.startswith(asked))


def _below_replacements(ranked: list[tuple[Doc, float]], superseded: set[int],
                        replaced_by: dict[int, Doc], linked: Callable[[Doc, Doc], bool],
                        single: Callable[[Doc, Doc], bool]) -> list[tuple[Doc, float]]:
    """Move each superseded write (a raw write its file no longer holds)
    just below its likely replacement, when it ranks above it: the line
    :func:`_replacement` named, or else the newer current line of the same
    file that was found, when it is the only one, the only line its event
    wrote there, and either the only line of the file (the file was
    rewritten to it: "Sam's phone: 555-0199.") or not another answer to the
    query (``single``: "Sam's gym locker is number 97." holds "number" and
    not "passport"), or the best-ranked one that can have
    replaced it (``linked``) — not any newer line, which would bury the one
    real match under lines found by their meaning alone.  Whatever its
    score — found by more rankings than its replacement, the old text would
    otherwise outscore it — but no further: asked about the old value ("did
    Sam live in Oslo?") the old line still comes second, not below every
    line a dream wrote since.  It takes the score of the line it follows,
    when that is lower, so the scores stay in order."""
    out = list(ranked)
    for doc, _ in ranked:
        if id(doc) not in superseded:
            continue
        replacement = replaced_by.get(id(doc))
        i = next(n for n, (d, _) in enumerate(out) if d is doc)
        if replacement is None:
            newer = [n for n in range(i + 1, len(out)) if out[n][0].kind == "current"
                     and out[n][0].file == doc.file and out[n][0].position > doc.position]
            # One newer line of the file found, the one line its event wrote
            # there: that is what the update says ("Sam eats fish again." for
            # "Sam is vegetarian."); else one the write is linked to (a replace
            # of several lines: "Sam's gym locker is number 97." is no update
            # of "Sam's passport number is X9Y8Z7.").
            j = newer[0] if len(newer) == 1 and single(doc, out[newer[0]][0]) else next(
                (n for n in newer if linked(doc, out[n][0])), None)
        else:
            j = next((n for n in range(i + 1, len(out)) if out[n][0] is replacement), None)
        if j is not None:
            moved = out.pop(i)
            out.insert(j, (moved[0], min(moved[1], out[j - 1][1])))
    return out


def _replacements_first(ranked: list[tuple[Doc, float]], words: Sequence[str],
                        depth: int = 20, user: str | None = None,
                        latest: bool = False, now: bool = False,
                        state: _Asked | None = None
                        ) -> list[tuple[Doc, float]]:
    """Move a result above an older one of the same file that is about the
    same thing (:func:`_same_subject`): the likely replacement of a fact
    above the fact it replaced ("standup at 09:45" → "standup moved to
    10:15").  Asked for the ``latest`` (:data:`LATEST`), a newer line need
    not say it changed: holding two of the query's topic words the older
    holds (or the one it holds) is enough ("April recheck: blood pressure
    down to 128/82." above "Marta's blood pressure reading in January").
    The query's topic is its words that are not in most of the results (the
    person's name is in all of them, and says nothing of which fact a
    result is).  The moved result takes the score of the one it
    passes, so the scores stay in order."""
    top = list(ranked[:depth])
    stems = [_stems(d.text) for d, _ in top]
    asked = {_stem(w) for w in words}
    topic = {s for s in asked if sum(s in found for found in stems) <= max(2, len(top) // COMMON)}
    # The words most results hold (the person's name): two lines sharing one
    # are not about one thing.
    counts = Counter(w for found in stems for w in found)
    common = {w for w, n in counts.items() if n > max(2, len(top) // COMMON)}
    # The asked kind's words, in both languages ("mobile", "Handynummer"): a line
    # that says it is new and one of the old line's kind are about one thing.
    kin = frozenset(_stem(k) for k in related(list(words))) - common
    me = {_stem((user or "").casefold())}  # the user's name says nothing of which fact
    kind_of = {_stem(w): frozenset(_stem(k) for k in related([w])) for w in words}
    # Asked for what is true now (``now``), a newer line that says it changed ("sessions do
    # 18:00 statt di morgens") may hold the words every result holds, when
    # the user is known, their name left out ("when is the coaching session
    # now?" of a pair whose every line is about the sessions).
    own = asked - me if user else topic
    for j in range(1, len(top)):
        new, new_stems = top[j][0], stems[j]
        for i in range(j):
            old = top[i][0]
            if (old.file == new.file and new.position > old.position and new_stems
                    and not _someone_else(old.text, new.text, user)
                    and ((latest and _newer_of(stems[i], new_stems, topic - me))
                         or (now and CHANGED.search(new.text)
                             and _newer_of(stems[i], new_stems, own))
                         or _same_subject(stems[i], new_stems, topic, old.text, new.text, common,
                                          me)
                         or _new_in_other_words(old.text, new.text, stems[i], new_stems, kin,
                                                asked, user, kind_of)
                         or (state is not None and _later_version(old.text, new.text, state)
                             and not _newer_between(top, i, j)))):
                moved, moved_stems = top.pop(j), stems.pop(j)
                top.insert(i, (moved[0], top[i][1]))
                stems.insert(i, moved_stems)
                break
    return top + list(ranked[depth:])


def _newer_between(top: Sequence[tuple[Doc, float]], i: int, j: int) -> bool:
    """Whether a line ranked between an older one (``i``) and its later
    version (``j``) is newer still, of the same file, giving the same
    measure: the third version of a deal's value, already above the second,
    which must not pass it on its way up."""
    new = top[j][0]
    return any(d.file == new.file and d.position > new.position and _same_measure(new.text, d.text)
               for d, _ in top[i + 1:j])


def _newer_of(old: frozenset[str], new: frozenset[str], topic: AbstractSet[str]) -> bool:
    """Whether a newer line, asked for the latest, is a later version of an
    older one: it holds two of the query's topic words the older holds, or
    the only one the older holds."""
    held = topic & old
    return bool(held) and len(held & new) >= min(2, len(held))


def _new_in_other_words(old_text: str, new_text: str, old: frozenset[str], new: frozenset[str],
                        kin: frozenset[str], asked: AbstractSet[str], user: str | None,
                        kind_of: dict[str, frozenset[str]] | None = None) -> bool:
    """Whether a line that says it is new, sharing no word with an older line
    but a word of the asked kind, updates it in other words or another
    language ("Neue Handynummer: …" after "Kathi's mobile: …") — not when it
    is about someone else (:func:`_someone_else`), nor when its only word of
    the kind is the one that says it changed, it holds no word of the query
    (``asked``) and it begins with another subject: "Standup moved to
    10:15." is no answer to "Where does Sam live?", "She moved to Bergen."
    and "Moved to Bergen in May." are.  The user's name, in both, is no
    word shared ("Priya moved to Edinburgh" after "Priya lives in Leeds"),
    but then each asked word of a kind that the older line holds must be
    in the newer, or a word of its kind (``kind_of``): "Sam's team meeting
    moved" is no update of "Sam has a dentist appointment", asked about the
    dentist."""
    markers = {_stem(m.group()) for m in CHANGED.finditer(new_text)}
    if not markers or not old & kin or not new & kin:
        return False
    if not (new & kin) - markers and not new & asked and _another_subject(new_text, markers, user):
        return False
    me = _stem((user or "").casefold())
    shared = {w for w in old & new - kin if not w.isdigit()}
    if shared - {me}:
        return False
    kinds = kind_of or {}
    return not shared or all(w in new or new & kinds[w] for w in asked & old if kinds.get(w))


_PRONOUNS = frozenset("i we she he they ich wir sie er".split())
# Words a note may begin with before what happened: when, and how sure.
_LEADING = frozenset("""yesterday today tonight recently finally officially just now then soon
already also last this next week weekend month year night morning gestern heute vorgestern endlich
kürzlich neulich offiziell schon jetzt nun bald letzte letzten letzter diese dieser diesen vorige
voriges woche wochenende monat jahr""".split())
_TAG = re.compile(r"^\s*(?:update|note|news|fyi|info|hinweis|neu)\s*:\s*", re.I)  # "Update: moved …"
_DETERMINERS = frozenset("""the a an this that our my his her their its der die das den dem des
ein eine einen einem einer eines unser unsere mein meine sein seine ihr ihre""".split())


def _another_subject(text: str, markers: set[str], user: str | None) -> bool:
    """Whether a line begins with a subject of its own — an article, a
    possessive or a capitalised word ("Standup moved …", "The dentist
    appointment moved …", "His office moved …") — rather than a pronoun, a
    verb ("Moved to …", "Ist umgezogen") or a word of no meaning: a note's
    usual way of saying what the user did."""
    words = [m.group() for m in WORD.finditer(_TAG.sub("", text, count=1))]
    while words and words[0].casefold() in _LEADING:  # "Yesterday moved …", "Letzte Woche …"
        words.pop(0)
    if not words:
        return False
    word = words[0]
    folded = word.casefold()
    if folded in _PRONOUNS or _stem(folded) in markers or folded == (user or "").casefold():
        return False
    if folded in _DETERMINERS:
        return True
    return word[0].isupper() and folded not in STOP_EN | STOP_DE


_OF_A_RELATIVE = re.compile(r"\b(?:von|of) (?:\w+s |\w+'s )?(?:" + "|".join(RELATIONS.split())
                            + r"|mutter|vater)\b", re.I)  # "Neue Handynummer von Kathis Mutter"
_PERSON_SAYS = re.compile(r"\b([A-ZÄÖÜ][a-zäöüß]+)(?:'s|’s|s)?\s+(?:has|had|is|was|got|gets|hat|hatte|"
                          r"ist|war)\b")  # "Stefan has a new mobile"


def _someone_else(old_text: str, new_text: str, user: str | None = None) -> bool:
    """Whether a newer line is about someone the older is not ("Stefan has a
    new mobile", "Neue Handynummer von Kathis Mutter", a relative's line)."""
    if _ABOUT_A_RELATIVE.match(new_text) and not _ABOUT_A_RELATIVE.match(old_text):
        return True
    if _OF_A_RELATIVE.search(new_text):
        return True
    people = set(_PERSON_SAYS.findall(new_text))
    people -= {"She", "He", "Sie", "Er", "It", "Es", "They", "We", "I", "Ich", "Wir"}
    people = {p for p in people if p.casefold() != (user or "").casefold()}
    return bool(people - set(re.findall(r"\b[A-ZÄÖÜ][\w-]+", old_text)))


def _same_subject(old: frozenset[str], new: frozenset[str], topic: set[str],
                  old_text: str = "", new_text: str = "",
                  common: frozenset[str] | set[str] = frozenset(),
                  me: AbstractSet[str] = frozenset()) -> bool:
    """Whether a newer result is about what an older one was: the newer
    holds every topic word of the query the older holds ("allergic to
    penicillin" is not updated by "allergic to cats"), and they say nearly
    the same (word overlap ≥ :data:`REPLACES`) or share another word too
    ("Tom's day rate is £450" → "Tom raised his day rate to £500";
    "Sam lives in Oslo" → "Sam now lives in Bergen", where with two results
    the name, in both, counts as a topic word), so that one word in common
    ("phone" in "the vet's phone number" and "Sam's phone is an iPhone 13")
    is not enough."""
    asked = topic & old
    # "Neue Handynummer: 0176 …" after "Jonas' Handynummer: 0171 …": a line
    # that says it is new, on a long word of the older's, need not repeat
    # the name.
    changed = bool(CHANGED.search(new_text)) and any(
        len(w) >= 5 and w not in common for w in old & new)
    if changed:
        asked -= {w for w in asked - new if _is_name(w, old_text)}
        # "gekündigt … fängt bei Novartis an" is about work, though it says no "work"
        asked -= {w for w in asked - new if new & {_stem(k) for k in related([w])}}
    if not asked <= new:  # "allergic to penicillin" is not updated by "allergic to cats"
        return False
    if changed:
        return True
    if len(old & new) / len(old | new) >= REPLACES:
        return True
    # The user's name is one of them only in a line that says it changed
    # ("Mei moved into a shared flat" after "Mei lives in a student flat"):
    # "Priya's beagle barks during video calls" is no update of "Priya is on call".
    shared = old & new - (frozenset() if CHANGED.search(new_text) else me)
    return bool(asked) and len(shared) >= 2


def _is_name(stem: str, text: str) -> bool:
    """Whether a stem stands capitalised in a text, mid-sentence or at its start."""
    return any(m.group()[0].isupper() and _stem(m.group()) == stem for m in WORD.finditer(text))


def _snippet(text: str, words: list[str], kinds: Sequence[str] = ()) -> str:
    """A long history entry: the window that holds most of what the query
    asks — each query word that matches (the same word, another form of it
    ("meetings" for "meeting"), without its accents ("Zurich" for "Zürich"),
    or a compound that holds it ("Zahnarzttermin" for "zahnarzt")) counted
    once, a rarer one more, a name half (the name the note begins with says
    least), and a word of the kind asked ("employer": "work") half."""
    if len(text) <= SNIPPET:
        return text
    wanted = [(_plain(w), _stem(w)) for w in words]
    related_ = [(_plain(w), _stem(w)) for w in kinds if w not in words]
    hits: list[tuple[int, int, float]] = []  # (where, which, how much it counts)
    for m in WORD.finditer(text):
        token = _plain(m.group())
        for n, want in enumerate(wanted):
            if _matches(token, [want]):  # a name (capitalised) says less than a word
                hits.append((m.start(), n, 0.5 if m.group()[0].isupper() else 1.0))
        for n, want in enumerate(related_):
            if _matches(token, [want]):
                hits.append((m.start(), len(wanted) + n, 0.5))
    if not hits:
        return text[:SNIPPET - 1] + "…"
    count = Counter(n for _, n, _ in hits)
    if not any(w == 1.0 for _, _, w in hits):  # names only: each counts in full
        hits = [(at, n, 1.0) for at, n, _ in hits]
    best, best_score = 0, -1.0
    for at, _, _ in hits:
        start = max(0, min(at - SNIPPET // 3, len(text) - SNIPPET))
        inside = {n: w for where, n, w in hits if start <= where < start + SNIPPET - 2}
        score = sum(w / count[n] for n, w in inside.items())
        if score > best_score:
            best, best_score = start, score
    cut = text[best:best + SNIPPET - 2]
    return ("…" if best else "") + cut + ("…" if best + len(cut) < len(text) else "")


def _matches(token: str, wanted: list[tuple[str, str]]) -> bool:
    stem = _stem(token)
    # A compound holds the word ("zahnarzt" in "zahnarzttermin", "termin" in
    # it), but a short word must begin one ("work" is not in "homework").
    return any(token == w or stem == s or (len(w) >= 4 and token.startswith(w))
               or (len(w) >= 6 and w in token) for w, s in wanted)


__all__ = ["Search", "words_of"]
