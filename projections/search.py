"""The search index: full-text indexes over a pair's current lines and its
history, in the read model, and the queries that rank them.

What is searchable: every line of a current file (``memory_lines``, kept by
the indexer in the same transactions as ``memory_files``) and the history of
raw writes and session notes (``memory_index`` itself: its rows are the
history).  A retracted write stays in the history (an auditor may search it)
but every query made for an agent filters it out in SQL
(``retracted_by IS NULL``); only ``include_retracted`` — the auditor's view —
drops that condition.

Per backend, one full-text index over both:

* SQLite: an FTS5 table, ``memory_fts``, contentless (the text lives in the
  two tables above), tokenized by ``porter unicode61 remove_diacritics 2``
  (English stemming; German and other words are matched as they are, or by
  prefix), over each text's words tagged with its scope
  (:mod:`kairos.projections.terms`): a query reads its own pair's postings,
  whatever the size of the home.  A history row's FTS rowid is its
  position, a line's is its id plus :data:`LINES_FROM` (2^48, past any
  position), so that the rows a transaction adds come in rising rowid
  order: FTS5 flushes its pending terms to a new segment whenever a rowid
  is lower than the one before, and lines numbered downwards made every
  line its own segment (a rebuild indexed lines at a seventh of the speed
  of history).  A line that is the whole text of a one-line append, most
  lines, has no row of its own (``memory_lines.shared``,
  :mod:`kairos.projections.lines`): a query finds it through the append's
  history row, where it ranks as that row does, and lists it first.  A
  write's words are indexed once, not twice (about a third of the index's
  upkeep).  Triggers keep it in step with the two tables, in their
  transactions (through the SQL function ``kairos_terms``, which the read
  model's engine registers on every connection); a rebuild drops them for
  its bulk load and fills the index in one statement afterwards.  Two
  ``fts5vocab`` tables read its term dictionary: the substring companion
  looks for compound parts among a pair's own words there.
* PostgreSQL: GIN expression indexes over ``to_tsvector('english', text)``
  of both tables, ranked with ``ts_rank_cd``.

BM25 (FTS5) and ``ts_rank_cd`` give different numbers, so callers use ranks
only (reciprocal rank fusion, :mod:`kairos.agent.search`): the contract is
the order within a pair.  Every statement selects by agent and user in its
WHERE clause, before any row leaves the database.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, TextClause, bindparam, text

from kairos.domain.encrypted import CONTENT_TYPES
from kairos.ports import Doc, SearchScope, distinct_texts, first_texts
from kairos.projections import terms
from kairos.projections.lines import scope_token, segment_lines, stream_of

if TYPE_CHECKING:
    from kairos.projections.readmodel import Sealing

# Event types whose text is memory (a write, a session's notes), not a reason.
HISTORY_TYPES = ("MemoryWritten", "SessionEnded")
_TYPES_SQL = "('MemoryWritten', 'SessionEnded')"
TOKENIZER = "porter unicode61 remove_diacritics 2"
CJK = terms.CJK_RUN  # runs of CJK text (one group: the run)
PREFIX_MIN = terms.PREFIX_MIN
SCOPES_HELD = 64  # scopes whose current lines a process keeps between searches
MAX_TERMS = 200  # the companion's words holding a part, most parts first
STEM_ENDINGS = ("e", "s", "es")  # what the stemmer cuts off a word that has no English suffix
GRAM = 4  # the companion's n-grams of long query words (compound parts)
GRAM_MIN_WORD = 7
# A long word's head for asking the stemmer how it leaves a part at the end
# of a compound: vowels and consonants in turn, so that the stemmer's
# measure is that of a long word ("er" is cut only there: "grundschullehr").
HEAD = "bababa"
AFFIX_REST = 4  # letters a shared beginning or ending must have besides an affix to be a part
# Endings and beginnings that words share without sharing a part: derivation
# makes them ("vegetarian", "veterinarian"; "automatic", "automobile";
# "hypertension", "pension"; "instrument", "instead").  Latin "-ion" and
# "in-", "con-", "com-", "ex-" begin and end too many English words that
# are no compounds: a run must hold four letters besides them to be a part.
SUFFIX_AFFIXES = tuple("""arian arians ation ations ition itions ution utions ment ments ness able
ible ical ally ship hood less ious eous ance ence ology ologist ician ional ing ings ling ist ists ism
ity ive ung ungen heit keit schaft lich isch chen lein erei ion ions""".split())
PREFIX_AFFIXES = tuple("""auto inter intra tele micro macro super trans under over multi anti semi
counter photo post pre dis un re non mis ver vor unter uber ueber ge be ent zer in im con com
ex""".split())
LINES_FROM = 1 << 48  # a current line's FTS rowid is its id plus this; history's, its position


def _scopes(scope: SearchScope) -> list[str]:
    """The streams a search reads: the agent's own and, with a user, the pair's."""
    out = [scope_token(scope.agent, None)]
    if scope.user is not None:
        out.append(scope_token(scope.agent, scope.user))
    return out


# -- the index's DDL ----------------------------------------------------------------------
_SQLITE_TRIGGERS = {
    "memory_fts_history": f"""
        CREATE TRIGGER IF NOT EXISTS memory_fts_history AFTER INSERT ON memory_index
        WHEN new.type IN {_TYPES_SQL} AND new.text IS NOT NULL BEGIN
          INSERT INTO memory_fts(rowid, body)
          VALUES (new.position, kairos_terms(new.text, new.stream_id));
        END""",
    "memory_fts_line_in": f"""
        CREATE TRIGGER IF NOT EXISTS memory_fts_line_in AFTER INSERT ON memory_lines
        WHEN new.shared = 0 BEGIN
          INSERT INTO memory_fts(rowid, body)
          VALUES (new.id + {LINES_FROM}, kairos_terms(new.text, new.scope));
        END""",
    "memory_fts_line_out": f"""
        CREATE TRIGGER IF NOT EXISTS memory_fts_line_out AFTER DELETE ON memory_lines
        WHEN old.shared = 0 BEGIN
          INSERT INTO memory_fts(memory_fts, rowid, body)
          VALUES ('delete', old.id + {LINES_FROM}, kairos_terms(old.text, old.scope));
        END""",
}
_FTS_TABLE = f"memory_fts USING fts5(body, content='', tokenize='{TOKENIZER}')"
# The shared lines by the position of the history entry whose row they share.
_SHARED_INDEX = ("CREATE INDEX IF NOT EXISTS memory_lines_shared ON memory_lines(position) "
                 "WHERE shared = 1")
_VOCAB = {"memory_fts_terms": "row", "memory_fts_where": "instance"}
_PG_INDEXES = {
    "memory_index_fts": "CREATE INDEX IF NOT EXISTS memory_index_fts ON memory_index USING gin "
                        f"(to_tsvector('english', text)) WHERE type IN {_TYPES_SQL}",
    "memory_lines_fts": "CREATE INDEX IF NOT EXISTS memory_lines_fts ON memory_lines USING gin "
                        "(to_tsvector('english', text))",
}


def create_fts(conn: Connection) -> None:
    """Create the full-text index and what keeps it in step (idempotent)."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql(f"CREATE VIRTUAL TABLE IF NOT EXISTS {_FTS_TABLE}")
        for name, kind in _VOCAB.items():
            conn.exec_driver_sql(f"CREATE VIRTUAL TABLE IF NOT EXISTS {name} "
                                 f"USING fts5vocab(memory_fts, {kind})")
        for ddl in _SQLITE_TRIGGERS.values():
            conn.exec_driver_sql(ddl)
        conn.exec_driver_sql(_SHARED_INDEX)
    else:
        for ddl in _PG_INDEXES.values():
            conn.exec_driver_sql(ddl)


def drop_fts(conn: Connection) -> None:
    """Drop the full-text index (a rebuild, before its bulk load)."""
    if conn.dialect.name == "sqlite":
        for name in _VOCAB:
            conn.exec_driver_sql(f"DROP TABLE IF EXISTS {name}")
        conn.exec_driver_sql("DROP TABLE IF EXISTS memory_fts")
        for name in _SQLITE_TRIGGERS:
            conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")
        conn.exec_driver_sql("DROP INDEX IF EXISTS memory_lines_shared")
    else:
        for name in _PG_INDEXES:
            conn.exec_driver_sql(f"DROP INDEX IF EXISTS {name}")


def fill_fts(conn: Connection) -> None:
    """Build the full-text index over everything loaded (a rebuild, after its
    bulk load): one statement on SQLite, the GIN indexes on PostgreSQL."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql(f"CREATE VIRTUAL TABLE {_FTS_TABLE}")
        conn.exec_driver_sql(
            "INSERT INTO memory_fts(rowid, body) "
            "SELECT position, kairos_terms(text, stream_id) FROM memory_index "
            f"WHERE type IN {_TYPES_SQL} AND text IS NOT NULL")
        conn.exec_driver_sql("INSERT INTO memory_fts(rowid, body) "
                             f"SELECT id + {LINES_FROM}, kairos_terms(text, scope) "
                             "FROM memory_lines WHERE shared = 0 ORDER BY id")
    create_fts(conn)


def erase_history(conn: Connection, stream_id: str, before: int, *, fts: bool = True) -> None:
    """Take the text of a stream's events before ``before`` out of the index
    and the full-text index (an erasure).  The full-text index is
    contentless: a row leaves it only by naming the terms it went in with."""
    if fts and conn.dialect.name == "sqlite":
        conn.execute(text(
            "INSERT INTO memory_fts(memory_fts, rowid, body) "
            "SELECT 'delete', position, kairos_terms(text, stream_id) FROM memory_index "
            f"WHERE stream_id = :s AND position < :p AND type IN {_TYPES_SQL} "
            "AND text IS NOT NULL"), {"s": stream_id, "p": before})
    content = ", ".join(f"'{name}'" for name in sorted(CONTENT_TYPES))  # a dream's summary stays
    conn.execute(text("UPDATE memory_index SET text = NULL WHERE stream_id = :s "
                      f"AND position < :p AND type IN ({content}) AND text IS NOT NULL"),
                 {"s": stream_id, "p": before})


def compact(conn: Connection) -> None:
    """Merge the full-text index into one segment: a deleted row's terms
    stay in the older segments until they are merged (an erasure)."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql("INSERT INTO memory_fts(memory_fts) VALUES ('optimize')")


def check(conn: Connection, sealing: Sealing | None = None) -> list[str]:
    """What is wrong with the search index, against the read model it is
    derived from (``kairos verify``): each file's lines, and on SQLite the
    full-text index's row counts.  Empty when it is sound.  ``sealing``:
    how to open a sealed read model's text."""
    import json
    from collections import Counter

    def opened(agent: str, user: str, value: str) -> str:
        return value if sealing is None else sealing.open_file(agent, user, value)

    problems = []
    # File by file, both tables read in the same order as they stream: memory
    # is one file's lines, whatever the size of the home (a home of 5,000,000
    # events held every line of every pair at once, 2 GB).
    order = ' COLLATE "C"' if conn.dialect.name == "postgresql" else ""
    keys = ", ".join(f"{c}{order}" for c in ("agent_id", "user_id", "file"))
    streaming = conn.execution_options(stream_results=True, yield_per=1000)
    files = streaming.execute(text(
        f"SELECT agent_id, user_id, file, segments FROM memory_files ORDER BY {keys}"))
    rows = streaming.execute(text(
        f"SELECT agent_id, user_id, file, text, sources FROM memory_lines ORDER BY {keys}"))

    def wanted() -> Iterator[tuple[tuple[str, str, str], Counter[tuple[str, str]]]]:
        for r in files:
            lines: Counter[tuple[str, str]] = Counter()
            for segment in json.loads(opened(r.agent_id, r.user_id, r.segments) or "[]"):
                lines.update(segment_lines(segment))
            yield (r.agent_id, r.user_id, r.file), lines

    def held() -> Iterator[tuple[tuple[str, str, str], Counter[tuple[str, str]]]]:
        for key, group in itertools.groupby(rows, lambda r: (r.agent_id, r.user_id, r.file)):
            yield key, Counter((opened(key[0], key[1], r.text), r.sources) for r in group)

    want, have = wanted(), held()
    w, h = next(want, None), next(have, None)
    while w is not None or h is not None:
        key = min(x[0] for x in (w, h) if x is not None)
        a = w[1] if w is not None and w[0] == key else Counter()
        b = h[1] if h is not None and h[0] == key else Counter()
        wrong = next((line for line in sorted(set(a) | set(b)) if a[line] != b[line]), None)
        if wrong is not None:
            problems.append(f"search index: {key[0]}/{key[1] or '-'} {key[2]} has "
                            f"{b[wrong]} rows for a line its file holds {a[wrong]} times: "
                            "run `kairos rebuild`")
            break
        if w is not None and w[0] == key:
            w = next(want, None)
        if h is not None and h[0] == key:
            h = next(have, None)
    files.close()
    rows.close()
    if conn.dialect.name == "sqlite":
        indexed = conn.execute(text(f"SELECT sum(id < {LINES_FROM}), sum(id >= {LINES_FROM}) "
                                    "FROM memory_fts_docsize")).one()
        history = conn.scalar(text(f"SELECT count(*) FROM memory_index WHERE type IN {_TYPES_SQL} "
                                   "AND text IS NOT NULL"))
        lines = conn.scalar(text("SELECT count(*) FROM memory_lines WHERE shared = 0"))
        if (indexed[0] or 0, indexed[1] or 0) != (history, lines):
            problems.append(f"search index: the full-text index holds {indexed[0] or 0} history "
                            f"entries and {indexed[1] or 0} lines, the read model {history} and "
                            f"{lines}: run `kairos rebuild`")
        # A shared line is found only through its history entry's row: that
        # entry must be there and be the line (a sealed text is sealed apart).
        same = "" if sealing is not None and sealing.seal is not None else "AND i.text = l.text"
        astray = conn.scalar(text(
            "SELECT count(*) FROM memory_lines l WHERE l.shared = 1 AND NOT EXISTS ("
            "SELECT 1 FROM memory_index i WHERE i.position = l.position "
            f"AND i.type = 'MemoryWritten' AND i.text IS NOT NULL {same})"))
        if astray:
            problems.append(f"search index: {astray} lines are marked as found through a "
                            "history entry that does not hold them: run `kairos rebuild`")
    return problems


# -- queries ----------------------------------------------------------------------------------
def _tsquery(words: Sequence[str], prefix: bool = True) -> str:
    terms = []
    for w in words:
        terms.append(w)
        if prefix and len(w) >= PREFIX_MIN and not CJK.search(w):
            terms.append(f"{w}:*")
    return " | ".join(terms)


def _accent_map() -> tuple[str, str]:
    """The Latin letters with diacritics (Latin-1 and Latin Extended-A) and
    their plain letters, for PostgreSQL's ``translate``: the substring
    companion there finds "Zürich" for "zurich", as FTS5's
    ``remove_diacritics`` does on SQLite."""
    import unicodedata

    accented, plain = [], []
    for code in range(0xC0, 0x180):
        base = unicodedata.normalize("NFKD", chr(code))[0]
        if base != chr(code) and base.isascii() and base.isalpha():
            accented.append(chr(code))
            plain.append(base)
    return "".join(accented), "".join(plain)


ACCENTED, PLAIN = _accent_map()


def grams(words: Sequence[str]) -> list[str]:
    """What the substring companion looks for: each word of four letters or
    more; the n-grams of a long word (the parts of a compound: Chorprobe →
    chor, prob…); a CJK run's bigrams (CJK has no spaces between words)."""
    out: list[str] = []
    for w in words:
        runs = CJK.findall(w)
        if runs:
            for run in runs:
                out += [run] if len(run) <= 2 else [run[i:i + 2] for i in range(len(run) - 1)]
            continue
        if len(w) >= GRAM:  # shorter ones are parts of too many words (tea: steamed)
            out.append(w)
        if len(w) >= GRAM_MIN_WORD:
            out += [w[i:i + GRAM] for i in range(len(w) - GRAM + 1)]
    return list(dict.fromkeys(out))


_HISTORY_COLUMNS = ("i.position, i.event_id, i.file, i.recorded_at, i.text, i.type, "
                    "i.retracted_by, i.stream_id")
_LINE_COLUMNS = "l.id, l.sources, l.file, l.recorded_at, l.text, l.position, l.scope"


def _filters(scope: SearchScope, alias: str, params: dict[str, Any], *, lines: bool) -> str:
    """The scope (agent, and the pair when there is a user), in SQL, and the
    caller's filters."""
    params["agent"] = scope.agent
    params["user"] = scope.user or ""
    if lines:
        where = [f"{alias}.agent_id = :agent", f"{alias}.user_id IN ('', :user)"]
    else:
        where = [f"{alias}.agent_id = :agent",
                 f"({alias}.user_id IS NULL OR {alias}.user_id = :user)"
                 if scope.user is not None else f"{alias}.user_id IS NULL",
                 f"{alias}.type IN {_TYPES_SQL}", f"{alias}.text IS NOT NULL"]
        if not scope.include_retracted:
            where.append(f"{alias}.retracted_by IS NULL")
    if scope.file is not None:
        params["file"] = scope.file
        where.append(f"{alias}.file = :file")
    if scope.since is not None:
        params["since"] = scope.since
        where.append(f"{alias}.recorded_at >= :since")
    return " AND ".join(where)


def _history_doc(r: Any, score: float = 0.0) -> Doc:
    return Doc(key=int(r.position), text=r.text, file=r.file, kind="history",
               recorded_at=r.recorded_at, position=int(r.position), event_ids=(r.event_id,),
               score=score, type=r.type, retracted=r.retracted_by is not None)


def _line_doc(r: Any, score: float = 0.0) -> Doc:
    return Doc(key=-int(r.id), text=r.text, file=r.file, kind="current",
               recorded_at=r.recorded_at, position=int(r.position),
               event_ids=tuple(r.sources.split()), score=score)


def _order(d: Doc) -> tuple[float, bool, int]:
    """Best first; at equal score a current line before history, newer before older."""
    return (-d.score, d.kind != "current", -d.position)


def _holding(words: Sequence[str], needles: Sequence[str]) -> dict[int, set[int]]:
    """Which indexed words hold which needles (by number): a needle is a
    piece of a word, or one ending in "\\n", a word's end.
    One search of all the words joined per needle, not a test per word."""
    joined = "\n".join(words) + "\n"
    starts = [0]
    for w in words:
        starts.append(starts[-1] + len(w) + 1)
    out: dict[int, set[int]] = {}
    for n, needle in enumerate(needles):
        at = joined.find(needle)
        while at >= 0:
            out.setdefault(bisect.bisect_right(starts, at) - 1, set()).add(n)
            at = joined.find(needle, at + 1)
    return out


_stemmer_lock = threading.Lock()
_stemmer: list[Any] = []  # the in-memory index that stem_at_end asks, made on first use


@functools.lru_cache(maxsize=4096)
def stem_at_end(part: str) -> str:
    """What the index's stemmer leaves of a word at the end of a long word
    ("lehrer" in "grundschullehrer" → "lehr", "bier" in "lieblingsbier" →
    "bi"), asked of SQLite's own porter tokenizer: alone, a short word keeps
    what the stemmer cuts off a long one ("lehrer" stays "lehrer"), so a
    part is not found as it stands in the index.  Empty when the stemmer
    cuts the whole part."""
    import sqlite3

    with _stemmer_lock:
        if not _stemmer:
            db = sqlite3.connect(":memory:", check_same_thread=False)
            db.execute(f"CREATE VIRTUAL TABLE stems USING fts5(body, tokenize='{TOKENIZER}')")
            db.execute("CREATE VIRTUAL TABLE stems_vocab USING fts5vocab(stems, row)")
            _stemmer.append(db)
        db = _stemmer[0]
        db.execute("DELETE FROM stems")
        db.execute("INSERT INTO stems(body) VALUES (?)", (HEAD + part,))
        found = db.execute("SELECT term FROM stems_vocab").fetchall()
    if len(found) != 1 or not found[0][0].startswith(HEAD):
        return ""
    return str(found[0][0][len(HEAD):])


def _needles(words: Sequence[str], parts: Sequence[str]) -> tuple[list[str], list[set[int]]]:
    """What the companion looks for among a scope's indexed (stemmed) words,
    each with the parts (by number) it stands for: each part, and a query
    word (not an n-gram: "inde" is no word, and "remind" ends in "ind") at
    an indexed word's end as the stemmer leaves it there — less an ending
    it cut ("knies" is indexed as "kni", "iphone" as "iphon"), or as it
    stems a long word's end ("lieblingsbier" → "lieblingsbi").  These find
    candidates only: a stem's tail cannot tell "Lieblingsbier" from
    "Nairobi" (both end in "bi"); the text can, and :func:`held_parts`
    reads it."""
    needles: dict[str, set[int]] = {}
    for n, part in enumerate(parts):
        needles.setdefault(part, set()).add(n)
        if part not in words or CJK.search(part):
            continue
        ends = [part[:-len(end)] for end in STEM_ENDINGS
                if part.endswith(end) and len(part) - len(end) >= 3]
        for end in [*ends, stem_at_end(part)]:
            if len(end) >= 2 and end != part:
                needles.setdefault(end + "\n", set()).add(n)
    return list(needles), list(needles.values())


def _affixed(run: str, ending: bool) -> bool:
    """Whether a run of letters two words share at the same end is an affix
    and little else: derivation gives unrelated words one ("vegetarian" and
    "veterinarian" end in "arian", "automatic" and "automobile" begin with
    "auto"); a part shared is a word of its own ("Mineralwasser" and
    "Sprudelwasser", "iPhone" and "smartphone")."""
    if ending:  # (or a piece of one: "rian" of "arian")
        return any((run.endswith(a) and len(run) - len(a) < AFFIX_REST) or a.endswith(run)
                   for a in SUFFIX_AFFIXES)
    return any((run.startswith(a) and len(run) - len(a) < AFFIX_REST) or a.startswith(run)
               for a in PREFIX_AFFIXES)


def _run(word: str, token: str) -> str:
    """The longest part of a long query word that a text's word holds: a
    run of its letters, four or more, that begins or ends the query word (a
    shared middle, "inder" of "Kindern" in "reminders", is no part) and
    either is the text's word ("mobile" in "automobile"), or begins the one
    and ends the other, where two compounds meet ("Chor" of "Chorprobe" in
    "Kirchenchor"), or is a shared beginning or ending that is not an
    affix (:func:`_affixed`).  Empty when it holds none."""
    for k in range(len(word) - 1, GRAM - 1, -1):
        for run, first in ((word[:k], True), (word[-k:], False)):
            at = token.find(run)
            while at >= 0:
                starts, ends = at == 0, at + k == len(token)
                if (starts and ends) or (first and ends) or (not first and starts) or \
                        not _affixed(run, ending=not first):
                    return run
                at = token.find(run, at + 1)
    return ""


def held_parts(text: str, words: Sequence[str], parts: AbstractSet[str]) -> int:
    """How many of the companion's parts (:func:`grams` of ``words``,
    ``parts`` those looked for) a text holds: a CJK word's bigrams as
    substrings; a word of four letters or more inside one of the text's
    words (and with it all its n-grams); else the n-grams of the longest
    part of it a text's word holds (:func:`_run`).  The same on both
    backends: PostgreSQL's companion reads the text, SQLite's its stemmed
    words (then this, on the documents they found)."""
    tokens = terms.tokens(text)
    folded = " ".join(tokens)
    held: set[str] = set()
    for w in words:
        w = terms.plain(w)
        own = grams([w])
        if CJK.search(w):
            held.update(g for g in own if g in folded)
        elif len(w) >= GRAM and w in folded and any(w in t for t in tokens):
            held.update(own)
        elif len(w) >= GRAM_MIN_WORD:
            run = max((_run(w, t) for t in tokens if len(t) >= GRAM), key=len, default="")
            held.update(g for g in own if len(g) == GRAM and g in run)
    return len(held & parts)


def _parts_score(words: Sequence[str], parts: Sequence[str]) -> Callable[[Doc], float]:
    """A document's score in the companion: the parts its text holds."""
    wanted = frozenset(terms.plain(p) for p in parts)
    return lambda d: float(held_parts(d.text, words, wanted))


def _rescored(docs: list[Doc], score: Callable[[Doc], float] | None) -> list[Doc]:
    """The documents with the scores ``score`` gives them, those above 0."""
    if score is None:
        return docs
    scored = [(d, score(d)) for d in docs]
    return [dataclasses.replace(d, score=s) for d, s in scored if s > 0]


def applied(conn: Connection) -> tuple[int, int]:
    """How far the read model is (its position) and which rebuild made it
    (its generation): what a process may cache of it holds while both stay."""
    found: dict[str, int] = {name: int(position) for name, position in conn.execute(text(
        "SELECT name, position FROM memory_positions WHERE name IN ('index', 'generation')"))}
    return int(found.get("index", 0)), int(found.get("generation", 0))


def _key(rowid: int) -> int:
    """A document's key (:class:`~kairos.ports.Doc`) from its FTS rowid."""
    return rowid if rowid < LINES_FROM else -(rowid - LINES_FROM)


class SearchQueries:
    """The search index's reads, over one read model's engine."""

    def __init__(self, engine: Engine, sealing: Sealing | None = None):
        self.engine = engine
        self.sqlite = engine.dialect.name == "sqlite"
        self.sealing = sealing if sealing is not None and sealing.seal is not None else None
        self._lines: dict[SearchScope, tuple[tuple[int, int], list[Doc]]] = {}
        self._lines_lock = threading.Lock()

    def lexical(self, scope: SearchScope, words: Sequence[str], depth: int, *,
                prefix: bool = True) -> list[Doc]:
        """The pair's best ``depth`` documents for the words, best first."""
        if not words:
            return []
        with self.engine.connect() as conn:
            if self.sqlite:
                found = self._fts5(conn, scope, words, depth, prefix)
            else:
                found = self._tsvector(conn, scope, words, depth, prefix)
        found.sort(key=_order)
        return first_texts(found, depth)

    def _fts5(self, conn: Connection, scope: SearchScope, words: Sequence[str],
              depth: int, prefix: bool = True) -> list[Doc]:
        """BM25 over the scope's own postings (its words are tagged), best
        first; the rows then pass the scope's filters in SQL (a shared tag,
        a retracted write, a file or time asked for), asking FTS5 for more
        until ``depth`` pass or it has no more."""
        expression = terms.match(words, _scopes(scope), prefix=prefix)
        if expression is None:
            return []
        want = depth
        while True:
            rows = conn.exec_driver_sql(
                "SELECT rowid, bm25(memory_fts) FROM memory_fts WHERE memory_fts MATCH ? "
                "ORDER BY 2 LIMIT ?", (expression, want)).fetchall()
            # FTS5's bm25 is negative: more negative is better.
            found = self._passing(conn, scope, [(rowid, -s) for rowid, s in rows], depth)
            if distinct_texts(found) >= depth or len(rows) < want:
                return found
            want *= 4

    def _passing(self, conn: Connection, scope: SearchScope, ranked: Sequence[tuple[int, float]],
                 depth: int, score: Callable[[Doc], float] | None = None) -> list[Doc]:
        """The documents of FTS rows, best first, with their scores: those
        that pass the scope, until ``depth`` texts do.  ``score``: a
        document's score from its text instead (none above 0: left out)."""
        out: list[Doc] = []
        for i in range(0, len(ranked), 200):
            chunk = ranked[i:i + 200]
            scores = {_key(rowid): score for rowid, score in chunk}
            docs = self._docs(conn, scope, scores, scores)
            shared = self._shared(conn, scope, {k: s for k, s in scores.items() if k > 0})
            found = []
            for key in scores:  # a shared line where its history entry ranks, before it
                found += shared.get(key, [])
                if key in docs:
                    found.append(docs[key])
            out += _rescored(found, score)
            if distinct_texts(out) >= depth:
                break
        return first_texts(out, depth)

    def _shared(self, conn: Connection, scope: SearchScope, scores: dict[int, float]
                ) -> dict[int, list[Doc]]:
        """The current lines that share the full-text rows of these history
        entries (by position: :mod:`kairos.projections.lines`), within the
        scope's filters, each with its entry's score."""
        out: dict[int, list[Doc]] = {}
        wanted = list(scores)
        params: dict[str, Any] = {}
        where = _filters(scope, "l", params, lines=True)
        for i in range(0, len(wanted), 500):
            chunk = wanted[i:i + 500]
            rows = conn.exec_driver_sql(_by_keys_sql(True, where, len(chunk), shared=True), {
                **params, **{f"k{n}": k for n, k in enumerate(chunk)}}).fetchall()
            opened = self._opened(rows, lines=True,
                                  scores={-int(r.id): scores[int(r.position)] for r in rows})
            for d in opened:
                out.setdefault(d.position, []).append(d)
        return out

    def _tsvector(self, conn: Connection, scope: SearchScope, words: Sequence[str],
                  depth: int, prefix: bool = True) -> list[Doc]:
        """The best rows of history and of lines, asking for more while
        repeated texts leave fewer than ``depth`` distinct ones."""
        # Ranked by the words with their prefixes, plus the words alone: a
        # line with the word itself ("Johannes") above one it is a prefix
        # of ("Johanna"), which cover density alone ranks the same.
        params: dict[str, Any] = {"q": _tsquery(words, prefix), "qx": " | ".join(words),
                                  "depth": depth}
        history = _filters(scope, "i", params, lines=False)
        lines = _filters(scope, "l", params, lines=True)
        while True:
            h = conn.execute(text(
                f"SELECT {_HISTORY_COLUMNS}, ts_rank_cd(to_tsvector('english', i.text), q) "
                "+ ts_rank_cd(to_tsvector('english', i.text), qx) AS s "
                "FROM memory_index i, to_tsquery('english', :q) q, to_tsquery('english', :qx) qx "
                f"WHERE to_tsvector('english', i.text) @@ q AND {history} "
                "ORDER BY s DESC LIMIT :depth"), params).all()
            cur = conn.execute(text(
                f"SELECT {_LINE_COLUMNS}, ts_rank_cd(to_tsvector('english', l.text), q) "
                "+ ts_rank_cd(to_tsvector('english', l.text), qx) AS s "
                "FROM memory_lines l, to_tsquery('english', :q) q, to_tsquery('english', :qx) qx "
                f"WHERE to_tsvector('english', l.text) @@ q AND {lines} "
                "ORDER BY s DESC LIMIT :depth"), params).all()
            found = ([_history_doc(r, float(r.s)) for r in h]
                     + [_line_doc(r, float(r.s)) for r in cur])
            if (distinct_texts(found) >= depth
                    or (len(h) < params["depth"] and len(cur) < params["depth"])):
                return found
            params["depth"] *= 4

    def substring(self, scope: SearchScope, words: Sequence[str], depth: int) -> list[Doc]:
        """The companion ranking: documents by how many of the query's
        substrings (:func:`grams`) they contain, best first — for compounds
        ("Zahnarzt" in "Zahnarzttermin", "Chor" in "Kirchenchor") and CJK
        text, which the word index cannot split.  On SQLite the substrings
        are looked for among the scope's own words in the index's term
        dictionary (a few thousand, where its rows are tens of thousands);
        on PostgreSQL, a scan of the pair's rows.  Both then count what each
        found document's text holds (:func:`held_parts`): a piece of a word
        that begins or ends the query's is a part, a shared middle or affix
        is not.  The caller runs it only when the word index found little."""
        parts = grams(words)[:24]
        if not parts:
            return []
        if self.sqlite:
            return self._fts5_parts(scope, words, parts, depth)
        # Repeated texts, and rows whose pieces of words are no parts: cut to depth below.
        params: dict[str, Any] = {"depth": 8 * depth}
        hits = []
        for n, g in enumerate(parts):
            g = terms.plain(g)
            params[f"g{n}"] = "%" + g.replace("\\", "\\\\").replace("%", "\\%").replace(
                "_", "\\_") + "%"
        params["accented"], params["plain"] = ACCENTED, PLAIN
        found: list[Doc] = []
        with self.engine.connect() as conn:
            for alias, table, columns, make, lines in (
                    ("i", "memory_index", _HISTORY_COLUMNS, _history_doc, False),
                    ("l", "memory_lines", _LINE_COLUMNS, _line_doc, True)):
                folded = f"lower(translate({alias}.text, :accented, :plain))"
                hits = [f"(CASE WHEN {folded} LIKE :g{n} ESCAPE '\\' THEN 1 ELSE 0 END)"
                        for n in range(len(parts))]
                score = " + ".join(hits)
                where = _filters(scope, alias, params, lines=lines)
                rows = conn.execute(text(
                    f"SELECT * FROM (SELECT {columns}, {score} AS s FROM {table} {alias} "
                    f"WHERE {where}) x WHERE s > 0 ORDER BY s DESC LIMIT :depth"
                    ), params).all()
                found += [make(r, float(r.s)) for r in rows]
        found = _rescored(found, _parts_score(words, parts))
        found.sort(key=_order)
        return first_texts(found, depth)

    def _fts5_parts(self, scope: SearchScope, words: Sequence[str], parts: Sequence[str],
                    depth: int) -> list[Doc]:
        with self.engine.connect() as conn:
            return self._parts_in(conn, scope, words, parts, depth)

    def _parts_in(self, conn: Any, scope: SearchScope, words: Sequence[str],
                  parts: Sequence[str], depth: int) -> list[Doc]:
        """:meth:`substring` on an FTS5 index: the scope's indexed words that hold
        a part (:func:`_needles`), then the documents that hold those words,
        ranked by how many parts their text holds (:func:`held_parts`), then
        newest first."""
        parts = list(dict.fromkeys(terms.plain(p) for p in parts))
        needles, meant = _needles([terms.plain(w) for w in words], parts)
        held: dict[int, set[int]] = {}  # FTS rowid -> the parts it may hold
        found: dict[str, set[int]] = {}
        for stream in _scopes(scope):
            cut = len(terms.tag(stream))
            for low, high in terms.term_ranges(stream):
                vocabulary = [t for (t,) in conn.exec_driver_sql(
                    "SELECT term FROM memory_fts_terms WHERE term >= ? AND term < ?",
                    (low, high)).fetchall()]
                for n, hit in _holding([t[cut:] for t in vocabulary], needles).items():
                    found[vocabulary[n]] = set().union(*(meant[h] for h in hit))
        chosen = sorted(found, key=lambda t: -len(found[t]))[:MAX_TERMS]
        for i in range(0, len(chosen), 100):
            batch = chosen[i:i + 100]
            marks = ", ".join("?" * len(batch))
            for term, doc in conn.exec_driver_sql(
                    f"SELECT DISTINCT term, doc FROM memory_fts_where WHERE term IN ({marks})",
                    tuple(batch)).fetchall():
                held.setdefault(doc, set()).update(found[term])
        ranked = sorted(held, key=lambda d: (-len(held[d]), -d))
        out = self._passing(conn, scope, [(d, float(len(held[d]))) for d in ranked], depth,
                            _parts_score(words, parts))
        out.sort(key=_order)
        return out

    def lines(self, scope: SearchScope) -> list[Doc]:
        """Every current line of the scope (the agent's files and the pair's),
        read again only when the read model changed (:func:`applied`)."""
        with self.engine.connect() as conn:
            now = applied(conn)
            held = self._lines.get(scope)
            if held is not None and held[0] == now:
                return list(held[1])
            params: dict[str, Any] = {}
            where = _filters(scope, "l", params, lines=True)
            rows = conn.execute(text(f"SELECT {_LINE_COLUMNS} FROM memory_lines l WHERE {where}"),
                                params).all()
        found = self._opened(rows, lines=True)
        with self._lines_lock:  # threads of one server search at once
            while len(self._lines) >= SCOPES_HELD:
                self._lines.pop(next(iter(self._lines)))
            self._lines[scope] = (now, found)
        return list(found)

    def history(self, scope: SearchScope, after: int = 0) -> list[Doc]:
        """The scope's history documents after a position, in order."""
        params: dict[str, Any] = {"after": after}
        where = _filters(scope, "i", params, lines=False)
        with self.engine.connect() as conn:
            rows = conn.execute(text(
                f"SELECT {_HISTORY_COLUMNS} FROM memory_index i "
                f"WHERE i.position > :after AND {where} ORDER BY i.position"), params).all()
        return self._opened(rows, lines=False)

    def docs(self, scope: SearchScope, keys: Iterable[int],
             scores: dict[int, float] | None = None) -> dict[int, Doc]:
        """Documents by key, re-selected within the scope (and without
        retracted history unless the scope includes it): a key from a cache
        that another pair's or a retracted row slipped into is dropped here."""
        with self.engine.connect() as conn:
            return self._docs(conn, scope, keys, scores)

    def _docs(self, conn: Connection, scope: SearchScope, keys: Iterable[int],
              scores: dict[int, float] | None = None) -> dict[int, Doc]:
        """:meth:`docs`, each with its score from ``scores`` (by key)."""
        keys = list(keys)
        scores = scores or {}
        out: dict[int, Doc] = {}
        for lines, wanted in ((False, [k for k in keys if k > 0]), (True, [-k for k in keys if k < 0])):
            if not wanted:
                continue
            params: dict[str, Any] = {}
            where = _filters(scope, "l" if lines else "i", params, lines=lines)
            for i in range(0, len(wanted), 500):
                chunk = wanted[i:i + 500]
                if self.sqlite:  # the driver's statement, a parameter per key
                    rows = conn.exec_driver_sql(_by_keys_sql(lines, where, len(chunk)), {
                        **params, **{f"k{n}": k for n, k in enumerate(chunk)}}).fetchall()
                else:
                    rows = conn.execute(_by_keys(lines, where), {**params, "keys": chunk}).all()
                for d in self._opened(rows, lines=lines, scores=scores):
                    out[d.key] = d
        return out

    def _opened(self, rows: Iterable[Any], *, lines: bool,
                scores: dict[int, float] | None = None) -> list[Doc]:
        """The documents of rows, their text opened in a sealed read model
        (a text whose key is gone, erased, leaves its document out)."""
        scores = scores or {}
        make = _line_doc if lines else _history_doc
        if self.sealing is None:
            return [make(r, scores.get(-int(r.id) if lines else int(r.position), 0.0))
                    for r in rows]
        out = []
        for r in rows:
            opened = self.sealing.open(r.text, stream_of(r.scope if lines else r.stream_id))
            if opened is not None:
                d = make(r, scores.get(-int(r.id) if lines else int(r.position), 0.0))
                out.append(dataclasses.replace(d, text=opened))
        return out


@functools.lru_cache(maxsize=256)
def _by_keys_sql(lines: bool, where: str, keys: int, *, shared: bool = False) -> str:
    """On SQLite, the statement that selects ``keys`` documents by key within
    a scope's filters, as the driver runs it: SQLAlchemy's expanding IN cost
    three times the query itself (1.1 of 1.5 ms for 50 keys).  By key, not
    through the pair's index (``NOT INDEXED``): SQLite's planner, without
    statistics, would rather walk the pair's rows (5 ms for 50 keys)."""
    marks = ", ".join(f":k{n}" for n in range(keys))
    if shared:  # the shared lines of history entries, by their positions
        return (f"SELECT {_LINE_COLUMNS} FROM memory_lines l INDEXED BY memory_lines_shared "
                f"WHERE l.shared = 1 AND l.position IN ({marks}) AND {where}")
    if lines:
        return (f"SELECT {_LINE_COLUMNS} FROM memory_lines l NOT INDEXED "
                f"WHERE l.id IN ({marks}) AND {where}")
    return (f"SELECT {_HISTORY_COLUMNS} FROM memory_index i NOT INDEXED "
            f"WHERE i.position IN ({marks}) AND {where}")


@functools.lru_cache(maxsize=64)
def _by_keys(lines: bool, where: str) -> TextClause:
    """On PostgreSQL, the statement that selects documents by key within a
    scope's filters, made once per filter (SQLAlchemy then caches its
    compiled form)."""
    if lines:
        sql = f"SELECT {_LINE_COLUMNS} FROM memory_lines l WHERE l.id IN :keys AND {where}"
    else:
        sql = (f"SELECT {_HISTORY_COLUMNS} FROM memory_index i "
               f"WHERE i.position IN :keys AND {where}")
    return text(sql).bindparams(bindparam("keys", expanding=True))


__all__ = ["HISTORY_TYPES", "SearchQueries", "check", "create_fts", "drop_fts", "fill_fts", "grams",
           "scope_token"]
