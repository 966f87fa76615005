"""Search over a sealed read model: the full-text index in memory.

A home that encrypts keeps the read model's text sealed
(:class:`kairos.ports.Seal`), and its full-text index on disk stays empty:
an index's term dictionary is the words themselves.  Search there builds,
per scope, the same FTS5 index — the same tokenizer, tags and queries as
:mod:`kairos.projections.search` — in an in-memory SQLite database, from
the scope's rows opened, and keeps it while the read model stands still.
When the read model moves, the new history joins it, what was retracted
leaves, and the current lines are replaced; an erasure or a rebuild makes
it again.  Nothing of it is written to a disk.  A PostgreSQL home that
encrypts searches the same way, so both backends rank alike.

What it costs is measured in ``docs/benchmarks.md``: the first search of a
scope opens and indexes all its rows; later ones pay for what changed.
"""

from __future__ import annotations

import dataclasses
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any, cast

from sqlalchemy import Connection, text

from kairos.ports import Doc, SearchScope, first_texts
from kairos.projections import terms
from kairos.projections.lines import stream_of
from kairos.projections.search import (
    _HISTORY_COLUMNS,
    _LINE_COLUMNS,
    _VOCAB,
    LINES_FROM,
    SCOPES_HELD,
    TOKENIZER,
    SearchQueries,
    _filters,
    _key,
    _order,
    _rescored,
    _scopes,
    applied,
    grams,
)


class _Memo:
    """One scope's index in memory: an FTS5 table over its opened documents,
    and the documents by key.  Used under its lock, one search at a time."""

    def __init__(self, at: tuple[int, int]):
        self.at = at  # the read model's (position, generation) it was brought to
        self.lock = threading.Lock()
        self.db = sqlite3.connect(":memory:", check_same_thread=False)
        self.db.execute(f"CREATE VIRTUAL TABLE memory_fts USING fts5(body, tokenize='{TOKENIZER}')")
        for name, kind in _VOCAB.items():
            self.db.execute(f"CREATE VIRTUAL TABLE {name} USING fts5vocab(memory_fts, {kind})")
        self.docs: dict[int, Doc] = {}
        self.stored: dict[int, str] = {}  # a line's stored (sealed) value, by its key

    def exec_driver_sql(self, sql: str, params: Sequence[Any]) -> sqlite3.Cursor:
        """The one call :class:`SearchQueries`' FTS5 queries make of a connection."""
        return self.db.execute(sql, params)

    def add(self, docs: Iterable[tuple[Doc, str]]) -> None:
        """Index documents, each with its stream (the tag of its words)."""
        rows = []
        for d, stream in docs:
            self.docs[d.key] = d
            rows.append((d.key if d.key > 0 else LINES_FROM - d.key,
                         terms.index_text(d.text, stream)))
        self.db.executemany("INSERT INTO memory_fts(rowid, body) VALUES (?, ?)", rows)

    def remove(self, keys: Iterable[int]) -> None:
        gone = [k for k in keys if self.docs.pop(k, None) is not None]
        for k in gone:
            self.stored.pop(k, None)
        self.db.executemany("DELETE FROM memory_fts WHERE rowid = ?",
                            [(k if k > 0 else LINES_FROM - k,) for k in gone])


class SealedQueries(SearchQueries):
    """:class:`SearchQueries` for a sealed read model: lexical and substring
    search over each scope's index in memory; the rest as on disk, opened."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._memos: OrderedDict[SearchScope, _Memo] = OrderedDict()
        self._memos_lock = threading.Lock()

    def lexical(self, scope: SearchScope, words: Sequence[str], depth: int, *,
                prefix: bool = True) -> list[Doc]:
        if not words:
            return []
        memo = self._memo(scope)
        with memo.lock:
            found = self._fts5(cast(Connection, memo), scope, words, depth, prefix)
        found.sort(key=_order)
        return first_texts(found, depth)

    def substring(self, scope: SearchScope, words: Sequence[str], depth: int) -> list[Doc]:
        parts = grams(words)[:24]
        if not parts:
            return []
        memo = self._memo(scope)
        with memo.lock:
            return self._parts_in(memo, scope, words, parts, depth)

    def _passing(self, conn: Connection, scope: SearchScope, ranked: Sequence[tuple[int, float]],
                 depth: int, score: Callable[[Doc], float] | None = None) -> list[Doc]:
        """The memo's documents of FTS rows, with their scores: every one
        passes, for the memo holds the scope's documents only."""
        docs = cast(_Memo, conn).docs
        out = [dataclasses.replace(docs[_key(rowid)], score=score) for rowid, score in ranked
               if _key(rowid) in docs]
        return first_texts(_rescored(out, score), depth)

    # -- the memos -----------------------------------------------------------------------------
    def _memo(self, scope: SearchScope) -> _Memo:
        """The scope's index, brought to where the read model stands."""
        with self.engine.connect() as conn:
            now = applied(conn)
            with self._memos_lock:
                memo = self._memos.get(scope)
                if memo is not None:
                    self._memos.move_to_end(scope)
            if memo is not None and memo.at == now:
                return memo
            if memo is None or memo.at[1] != now[1] or self._erased(conn, scope, memo.at[0], now[0]):
                memo = _Memo((0, now[1]))
                with self._memos_lock:
                    self._memos[scope] = memo
                    while len(self._memos) > SCOPES_HELD:
                        self._memos.popitem(last=False)
            with memo.lock:
                if memo.at != now:
                    try:
                        self._catch_up(conn, scope, memo, now)
                    except BaseException:
                        # Half caught up, it would add rows it holds already: the
                        # next search makes the scope's index again.
                        with self._memos_lock:
                            if self._memos.get(scope) is memo:
                                del self._memos[scope]
                        raise
        return memo

    def _catch_up(self, conn: Connection, scope: SearchScope, memo: _Memo,
                  now: tuple[int, int]) -> None:
        """Bring a memo from its position to ``now``: history after it added,
        history retracted since taken out, the current lines replaced."""
        params: dict[str, Any] = {"after": memo.at[0], "upto": now[0]}
        where = _filters(scope, "i", params, lines=False)
        rows = conn.execute(text(
            f"SELECT {_HISTORY_COLUMNS} FROM memory_index i "
            f"WHERE i.position > :after AND i.position <= :upto AND {where}"), params).all()
        streams = {int(r.position): r.stream_id for r in rows}
        memo.add((d, streams[d.key]) for d in self._opened(rows, lines=False))
        if not scope.include_retracted and memo.at[0]:
            params = {"after": memo.at[0]}
            where = _filters(dataclasses.replace(scope, include_retracted=True), "i", params,
                             lines=False)
            memo.remove(int(p) for p in conn.execute(text(
                "SELECT i.position FROM memory_index i WHERE i.position <= :after "
                f"AND i.retracted_by IS NOT NULL AND {where}"), params).scalars())
        params = {}
        where = _filters(scope, "l", params, lines=True)
        lines = conn.execute(text(f"SELECT {_LINE_COLUMNS} FROM memory_lines l WHERE {where}"),
                             params).all()
        # A line's id is not its text for ever: SQLite gives a deleted row's id
        # to the next row (a rewrite deletes every line and adds the file's
        # lines again), so a line is held only while its stored value is the
        # one the memo indexed.
        held = {k for k in memo.docs if k < 0}
        same = {-int(r.id) for r in lines if memo.stored.get(-int(r.id)) == r.text}
        memo.remove(held - same)
        fresh = [r for r in lines if -int(r.id) not in same]
        memo.stored.update((-int(r.id), r.text) for r in fresh)
        scopes = {-int(r.id): r.scope for r in fresh}
        memo.add((d, scopes[d.key]) for d in self._opened(fresh, lines=True))
        memo.at = now

    @staticmethod
    def _erased(conn: Connection, scope: SearchScope, after: int, upto: int) -> bool:
        """Whether one of the scope's streams was erased between two positions
        (the memo is then made again: what it held of them is gone)."""
        streams = {f"s{n}": str(stream_of(s)) for n, s in enumerate(_scopes(scope))}
        found = conn.execute(text(
            "SELECT 1 FROM memory_index WHERE type = 'SubjectErased' AND position > :after "
            f"AND position <= :upto AND stream_id IN ({', '.join(':' + k for k in streams)}) "
            "LIMIT 1"), {"after": after, "upto": upto, **streams}).first()
        return found is not None


__all__ = ["SealedQueries"]
