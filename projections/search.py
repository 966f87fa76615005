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
  prefix).  A history row's FTS rowid is its position, a line's is its id
  plus :data:`LINES_FROM` (2^48, past any position), so that the rows a
  transaction adds come in rising rowid order: FTS5 flushes its pending
  terms to a new segment whenever a rowid is lower than the one before,
  and lines numbered downwards made every line its own segment (a rebuild
  indexed lines at a seventh of the speed of history).  Each row carries
  its scope (the stream id, hex) as a second column, and every query
  matches the scope tokens of the agent's stream and the pair's: FTS5 seeks
  through the pair's own postings instead of ranking the whole home's, and
  the scope is part of the match itself.  Triggers keep it
  in step with the two tables, in their transactions; a rebuild drops them
  for its bulk load and fills the index in one statement afterwards.
* PostgreSQL: GIN expression indexes over ``to_tsvector('english', text)``
  of both tables, ranked with ``ts_rank_cd``.

BM25 (FTS5) and ``ts_rank_cd`` give different numbers, so callers use ranks
only (reciprocal rank fusion, :mod:`kairos.agent.search`): the contract is
the order within a pair.  Every statement selects by agent and user in its
WHERE clause, before any row leaves the database.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Connection, Engine, text

from kairos.domain.ids import agent_stream_id, pair_stream_id
from kairos.ports import Doc, SearchScope

# Event types whose text is memory (a write, a session's notes), not a reason.
HISTORY_TYPES = ("MemoryWritten", "SessionEnded")
_TYPES_SQL = "('MemoryWritten', 'SessionEnded')"
TOKENIZER = "porter unicode61 remove_diacritics 2"
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")
PREFIX_MIN = 4  # a query word this long also matches as a prefix ("zahnarzt" → Zahnarzttermin)
GRAM = 4  # the companion's n-grams of long query words (compound parts)
GRAM_MIN_WORD = 7
LINES_FROM = 1 << 48  # a current line's FTS rowid is its id plus this; history's, its position


def scope_token(agent: str, user: str | None) -> str:
    """The FTS scope token of the agent's own stream (``user`` None) or a
    pair's: the stream id in hex, as the history rows' stream ids give it."""
    return (agent_stream_id(agent) if user is None else pair_stream_id(agent, user)).hex


# -- the index's DDL ----------------------------------------------------------------------
_SQLITE_TRIGGERS = {
    "memory_fts_history": f"""
        CREATE TRIGGER IF NOT EXISTS memory_fts_history AFTER INSERT ON memory_index
        WHEN new.type IN {_TYPES_SQL} AND new.text IS NOT NULL BEGIN
          INSERT INTO memory_fts(rowid, body, scope)
          VALUES (new.position, new.text, replace(new.stream_id, '-', ''));
        END""",
    "memory_fts_line_in": f"""
        CREATE TRIGGER IF NOT EXISTS memory_fts_line_in AFTER INSERT ON memory_lines BEGIN
          INSERT INTO memory_fts(rowid, body, scope)
          VALUES (new.id + {LINES_FROM}, new.text, new.scope);
        END""",
    "memory_fts_line_out": f"""
        CREATE TRIGGER IF NOT EXISTS memory_fts_line_out AFTER DELETE ON memory_lines BEGIN
          INSERT INTO memory_fts(memory_fts, rowid, body, scope)
          VALUES ('delete', old.id + {LINES_FROM}, old.text, old.scope);
        END""",
}
_PG_INDEXES = {
    "memory_index_fts": "CREATE INDEX IF NOT EXISTS memory_index_fts ON memory_index USING gin "
                        f"(to_tsvector('english', text)) WHERE type IN {_TYPES_SQL}",
    "memory_lines_fts": "CREATE INDEX IF NOT EXISTS memory_lines_fts ON memory_lines USING gin "
                        "(to_tsvector('english', text))",
}


def create_fts(conn: Connection) -> None:
    """Create the full-text index and what keeps it in step (idempotent)."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql(f"CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5("
                             f"body, scope, content='', tokenize='{TOKENIZER}')")
        for ddl in _SQLITE_TRIGGERS.values():
            conn.exec_driver_sql(ddl)
    else:
        for ddl in _PG_INDEXES.values():
            conn.exec_driver_sql(ddl)


def drop_fts(conn: Connection) -> None:
    """Drop the full-text index (a rebuild, before its bulk load)."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql("DROP TABLE IF EXISTS memory_fts")
        for name in _SQLITE_TRIGGERS:
            conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")
    else:
        for name in _PG_INDEXES:
            conn.exec_driver_sql(f"DROP INDEX IF EXISTS {name}")


def fill_fts(conn: Connection) -> None:
    """Build the full-text index over everything loaded (a rebuild, after its
    bulk load): one statement on SQLite, the GIN indexes on PostgreSQL."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql(f"CREATE VIRTUAL TABLE memory_fts USING fts5("
                             f"body, scope, content='', tokenize='{TOKENIZER}')")
        conn.exec_driver_sql(
            "INSERT INTO memory_fts(rowid, body, scope) "
            "SELECT position, text, replace(stream_id, '-', '') FROM memory_index "
            f"WHERE type IN {_TYPES_SQL} AND text IS NOT NULL")
        conn.exec_driver_sql("INSERT INTO memory_fts(rowid, body, scope) "
                             f"SELECT id + {LINES_FROM}, text, scope FROM memory_lines "
                             "ORDER BY id")
    create_fts(conn)


# -- current lines --------------------------------------------------------------------------
def line_rows(agent: str, user: str, name: str, segments: Sequence[Sequence[Any]],
              born: dict[str, tuple[int, str]], keep: dict[str, list[tuple[int, str]]],
              position: int, at: str) -> list[tuple[str, str, str, str, str, str, int, str]]:
    """The ``memory_lines`` rows of a file's segments (``LINE_COLUMNS`` order).

    Each line gets the position and time it entered the file: a line of the
    same text that was there before keeps its own (``keep``, by text,
    consumed as used); else its segment's (``born``, by the segment's first
    event id); else ``position`` and ``at``, the event that changed the file.
    """
    scope = scope_token(agent, user or None)
    rows = []
    for seg in segments:
        sources = " ".join(seg[2]) if len(seg) > 2 else str(seg[0])
        entered = born.get(str(seg[0]), (position, at))
        for line in str(seg[1]).split("\n"):
            if not line.strip():
                continue
            old = keep.get(line)
            pos, when = old.pop() if old else entered
            rows.append((agent, user, name, scope, line, sources, pos, when))
    return rows


def check(conn: Connection) -> list[str]:
    """What is wrong with the search index, against the read model it is
    derived from (``kairos verify``): each file's lines, and on SQLite the
    full-text index's row counts.  Empty when it is sound."""
    import json
    from collections import Counter

    problems = []
    want: Counter[tuple[str, str, str, str, str]] = Counter()
    for r in conn.execute(text("SELECT agent_id, user_id, file, segments FROM memory_files")):
        for line in line_rows(r.agent_id, r.user_id, r.file, json.loads(r.segments), {}, {}, 0, ""):
            want[line[:3] + line[4:6]] += 1
    have = Counter(tuple(r) for r in conn.execute(text(
        "SELECT agent_id, user_id, file, text, sources FROM memory_lines")))
    for key in sorted(set(want) | set(have)):
        if want[key] != have[key]:
            problems.append(f"search index: {key[0]}/{key[1] or '-'} {key[2]} has "
                            f"{have[key]} rows for a line its file holds {want[key]} times: "
                            "run `kairos rebuild`")
            break
    if conn.dialect.name == "sqlite":
        indexed = conn.execute(text(f"SELECT sum(id < {LINES_FROM}), sum(id >= {LINES_FROM}) "
                                    "FROM memory_fts_docsize")).one()
        history = conn.scalar(text(f"SELECT count(*) FROM memory_index WHERE type IN {_TYPES_SQL} "
                                   "AND text IS NOT NULL"))
        lines = conn.scalar(text("SELECT count(*) FROM memory_lines"))
        if (indexed[0] or 0, indexed[1] or 0) != (history, lines):
            problems.append(f"search index: the full-text index holds {indexed[0] or 0} history "
                            f"entries and {indexed[1] or 0} lines, the read model {history} and "
                            f"{lines}: run `kairos rebuild`")
    return problems


# -- queries ----------------------------------------------------------------------------------
def _fts_terms(words: Sequence[str]) -> str:
    terms = []
    for w in words:
        terms.append(f'"{w}"')
        if len(w) >= PREFIX_MIN and not CJK.search(w):
            terms.append(f'"{w}"*')
    return " OR ".join(terms)


def _tsquery(words: Sequence[str]) -> str:
    terms = []
    for w in words:
        terms.append(w)
        if len(w) >= PREFIX_MIN and not CJK.search(w):
            terms.append(f"{w}:*")
    return " | ".join(terms)


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
                    "i.retracted_by")
_LINE_COLUMNS = "l.id, l.sources, l.file, l.recorded_at, l.text, l.position"


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


class SearchQueries:
    """The search index's reads, over one read model's engine."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self.sqlite = engine.dialect.name == "sqlite"

    def lexical(self, scope: SearchScope, words: Sequence[str], depth: int) -> list[Doc]:
        """The pair's best ``depth`` documents for the words, best first."""
        if not words:
            return []
        with self.engine.connect() as conn:
            if self.sqlite:
                found = self._fts5(conn, scope, words, depth)
            else:
                found = self._tsvector(conn, scope, words, depth)
        found.sort(key=_order)
        return found[:depth]

    def _fts5(self, conn: Connection, scope: SearchScope, words: Sequence[str],
              depth: int) -> list[Doc]:
        tokens = [scope_token(scope.agent, None)]
        if scope.user is not None:
            tokens.append(scope_token(scope.agent, scope.user))
        match = (f"scope : ({' OR '.join(tokens)}) AND body : ({_fts_terms(words)})")
        params: dict[str, Any] = {"match": match, "depth": depth}
        history = _filters(scope, "i", params, lines=False)
        lines = _filters(scope, "l", params, lines=True)
        rank = "bm25(memory_fts, 1.0, 0.0)"
        h = conn.execute(text(
            f"SELECT {_HISTORY_COLUMNS}, {rank} AS s FROM memory_fts "
            "JOIN memory_index i ON i.position = memory_fts.rowid "
            f"WHERE memory_fts MATCH :match AND memory_fts.rowid < {LINES_FROM} AND {history} "
            "ORDER BY s LIMIT :depth"), params).all()
        cur = conn.execute(text(
            f"SELECT {_LINE_COLUMNS}, {rank} AS s FROM memory_fts "
            f"JOIN memory_lines l ON l.id = memory_fts.rowid - {LINES_FROM} "
            f"WHERE memory_fts MATCH :match AND memory_fts.rowid >= {LINES_FROM} AND {lines} "
            "ORDER BY s LIMIT :depth"), params).all()
        # FTS5's bm25 is negative: more negative is better.
        return [_history_doc(r, -r.s) for r in h] + [_line_doc(r, -r.s) for r in cur]

    def _tsvector(self, conn: Connection, scope: SearchScope, words: Sequence[str],
                  depth: int) -> list[Doc]:
        params: dict[str, Any] = {"q": _tsquery(words), "depth": depth}
        history = _filters(scope, "i", params, lines=False)
        lines = _filters(scope, "l", params, lines=True)
        h = conn.execute(text(
            f"SELECT {_HISTORY_COLUMNS}, ts_rank_cd(to_tsvector('english', i.text), q) AS s "
            "FROM memory_index i, to_tsquery('english', :q) q "
            f"WHERE to_tsvector('english', i.text) @@ q AND {history} "
            "ORDER BY s DESC LIMIT :depth"), params).all()
        cur = conn.execute(text(
            f"SELECT {_LINE_COLUMNS}, ts_rank_cd(to_tsvector('english', l.text), q) AS s "
            "FROM memory_lines l, to_tsquery('english', :q) q "
            f"WHERE to_tsvector('english', l.text) @@ q AND {lines} "
            "ORDER BY s DESC LIMIT :depth"), params).all()
        return [_history_doc(r, float(r.s)) for r in h] + [_line_doc(r, float(r.s)) for r in cur]

    def substring(self, scope: SearchScope, words: Sequence[str], depth: int) -> list[Doc]:
        """The companion ranking: documents by how many of the query's
        substrings (:func:`grams`) they contain, best first — for compounds
        ("Zahnarzt" in "Zahnarzttermin", "Chor" in "Kirchenchor") and CJK
        text, which the word index cannot split.  A scan of the pair's rows
        (selected by the pair's index), so the caller runs it only when the
        word index found little."""
        parts = grams(words)[:24]
        if not parts:
            return []
        params: dict[str, Any] = {"depth": depth}
        hits = []
        for n, g in enumerate(parts):
            params[f"g{n}"] = "%" + g.replace("\\", "\\\\").replace("%", "\\%").replace(
                "_", "\\_") + "%"
        found: list[Doc] = []
        with self.engine.connect() as conn:
            for alias, table, columns, make, lines in (
                    ("i", "memory_index", _HISTORY_COLUMNS, _history_doc, False),
                    ("l", "memory_lines", _LINE_COLUMNS, _line_doc, True)):
                hits = [f"(CASE WHEN lower({alias}.text) LIKE :g{n} ESCAPE '\\' THEN 1 ELSE 0 END)"
                        for n in range(len(parts))]
                score = " + ".join(hits)
                where = _filters(scope, alias, params, lines=lines)
                rows = conn.execute(text(
                    f"SELECT * FROM (SELECT {columns}, {score} AS s FROM {table} {alias} "
                    f"WHERE {where}) x WHERE s > 0 ORDER BY s DESC LIMIT :depth"
                    ), params).all()
                found += [make(r, float(r.s)) for r in rows]
        found.sort(key=_order)
        return found[:depth]

    def lines(self, scope: SearchScope) -> list[Doc]:
        """Every current line of the scope (the agent's files and the pair's)."""
        params: dict[str, Any] = {}
        where = _filters(scope, "l", params, lines=True)
        with self.engine.connect() as conn:
            rows = conn.execute(text(f"SELECT {_LINE_COLUMNS} FROM memory_lines l WHERE {where}"),
                                params).all()
        return [_line_doc(r) for r in rows]

    def history(self, scope: SearchScope, after: int = 0) -> list[Doc]:
        """The scope's history documents after a position, in order."""
        params: dict[str, Any] = {"after": after}
        where = _filters(scope, "i", params, lines=False)
        with self.engine.connect() as conn:
            rows = conn.execute(text(
                f"SELECT {_HISTORY_COLUMNS} FROM memory_index i "
                f"WHERE i.position > :after AND {where} ORDER BY i.position"), params).all()
        return [_history_doc(r) for r in rows]

    def docs(self, scope: SearchScope, keys: Iterable[int]) -> dict[int, Doc]:
        """Documents by key, re-selected within the scope (and without
        retracted history unless the scope includes it): a key from a cache
        that another pair's or a retracted row slipped into is dropped here."""
        keys = list(keys)
        out: dict[int, Doc] = {}
        positions = [k for k in keys if k > 0]
        ids = [-k for k in keys if k < 0]
        with self.engine.connect() as conn:
            for i in range(0, len(positions), 500):
                params: dict[str, Any] = {f"k{n}": k for n, k in enumerate(positions[i:i + 500])}
                where = _filters(scope, "i", params, lines=False)
                marks = ", ".join(f":k{n}" for n in range(len(positions[i:i + 500])))
                for r in conn.execute(text(f"SELECT {_HISTORY_COLUMNS} FROM memory_index i "
                                           f"WHERE i.position IN ({marks}) AND {where}"), params):
                    out[int(r.position)] = _history_doc(r)
            for i in range(0, len(ids), 500):
                params = {f"k{n}": k for n, k in enumerate(ids[i:i + 500])}
                where = _filters(scope, "l", params, lines=True)
                marks = ", ".join(f":k{n}" for n in range(len(ids[i:i + 500])))
                for r in conn.execute(text(f"SELECT {_LINE_COLUMNS} FROM memory_lines l "
                                           f"WHERE l.id IN ({marks}) AND {where}"), params):
                    out[-int(r.id)] = _line_doc(r)
        return out


__all__ = ["HISTORY_TYPES", "SearchQueries", "check", "create_fts", "drop_fts", "fill_fts", "grams",
           "line_rows", "scope_token"]
