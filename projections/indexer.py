"""Writes the read models (``memory_index``, ``memory_files``, the position)
through a DB-API cursor.

Events reach the read model after their commit (see :mod:`kairos.engine`):
each batch moves the position row from where it expects it, in the same
transaction as its rows, so a batch is applied exactly once whichever
process gets there first, and a crash never applies half of one.  A rebuild
fills an empty read model in one streamed load (:meth:`Indexer.load`).
Plain SQL, the same for SQLite and PostgreSQL but for the parameter marker;
the tables are defined (and migrated) in :mod:`readmodel`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from kairos.hashing import format_time
from kairos.projections.fold import (
    Files,
    Segments,
    apply_event,
    apply_to_file,
    render,
    touched,
)
from kairos.projections.light import Light
from kairos.projections.readmodel import text_of

SET_POSITION = "UPDATE memory_positions SET position = ? WHERE name = 'index'"
# Moves the position only from where the caller expects it: no row comes
# back when another writer or a restore got there first.
MOVE_POSITION = (
    "UPDATE memory_positions SET position = ? WHERE name = 'index' AND position = ? "
    "RETURNING position"
)
INSERT_INDEX = (
    "INSERT INTO memory_index (position, event_id, stream_id, version, type, agent_id, "
    "user_id, file, actor, session_id, recorded_at, text, retracted_by, log_file, log_line, "
    "ref) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)"
)
MARK_RETRACTED = "UPDATE memory_index SET retracted_by = ? WHERE event_id = ?"
SELECT_SEGMENTS = (
    "SELECT segments FROM memory_files WHERE agent_id = ? AND user_id = ? AND file = ?"
)
UPSERT_FILE = (
    "INSERT INTO memory_files (agent_id, user_id, file, content, segments, version, position, "
    "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (agent_id, user_id, file) DO UPDATE SET content = excluded.content, "
    "segments = excluded.segments, version = excluded.version, position = excluded.position, "
    "updated_at = excluded.updated_at"
)


def index_row(r: Any, where: dict[int, tuple[str, int]],
              stream_ids: dict[int, str] | None = None) -> tuple[Any, ...]:
    """The ``memory_index`` row of a recorded event (its time at index 10).

    ``stream_ids`` caches the text of stream ids across a bulk load.
    """
    e = r.event
    log_file, log_line = where.get(r.position, (None, None))
    if isinstance(e, Light):  # every field is there: no lookups that may fail
        oid = e.originator_id
        sid = stream_ids.get(oid.int) if stream_ids is not None else None
        if sid is None:
            sid = str(oid)
            if stream_ids is not None:
                stream_ids[oid.int] = sid
        return (r.position, e.event_id, sid, e.originator_version, type(e).__name__,
                e.agent, e.user, e.file, e.actor, e.session, e.at, text_of(e), log_file,
                log_line, None)
    return (r.position, e.event_id, str(e.originator_id), e.originator_version,
            type(e).__name__, e.agent, e.user, getattr(e, "file", None),
            getattr(e, "actor", None) or getattr(e, "reviewer", None),
            getattr(e, "session", None), format_time(e.timestamp), text_of(e), log_file,
            log_line, getattr(e, "dream_id", None))


class Indexer:
    """Applies recorded events to the read models through a raw cursor."""

    def __init__(self, paramstyle: str):
        self.marker = "%s" if paramstyle in ("format", "pyformat") else "?"

    def _sql(self, statement: str) -> str:
        return statement if self.marker == "?" else statement.replace("?", "%s")

    def _one(self, cursor: Any, statement: str, params: Sequence[Any] = ()) -> Any:
        cursor.execute(self._sql(statement), params)
        row = cursor.fetchone()
        return None if row is None else (row[0] if isinstance(row, tuple) else
                                         row[next(iter(row.keys()))])

    def apply(self, cursor: Any, recorded: Sequence[Any], where: dict[int, tuple[str, int]],
              *, expect: int) -> bool:
        """Apply events (each with ``.position`` and ``.event``) that follow
        position ``expect``.

        Returns False, applying nothing, when the read model is not at
        ``expect`` (another process got there first: its rows are the same).
        """
        if not recorded:
            return True
        if self._one(cursor, MOVE_POSITION, (recorded[-1].position, expect)) is None:
            return False
        rows: list[tuple[Any, ...]] = []
        retracted: list[tuple[str, str]] = []
        state: dict[tuple[str, str, str], tuple[Files, int, int, str]] = {}
        for r in recorded:
            e = r.event
            row = index_row(r, where)
            rows.append(row)
            if row[4] == "MemoryRetracted":
                retracted.extend((e.event_id, eid) for eid in e.retracts)
            for name in touched(e):
                key = (e.agent, e.user or "", name)
                files = apply_event(state[key][0] if key in state else self._load(cursor, key), e)
                state[key] = (files, e.originator_version, r.position, row[10])
        cursor.executemany(self._sql(INSERT_INDEX), rows)
        if retracted:
            cursor.executemany(self._sql(MARK_RETRACTED), retracted)
        for (agent, user, name), (files, version, position, at) in state.items():
            segments = files.get(name, [])
            cursor.execute(self._sql(UPSERT_FILE), (agent, user, name, render(segments),
                                                    json.dumps(segments), version, position, at))
        return True

    def load(self, cursor: Any, recorded: Iterable[Any],
             where: dict[int, tuple[str, int]]) -> tuple[int, int, list[tuple[str, str]]]:
        """Fill an empty read model from every event, in order (a rebuild).

        One streamed insert for the index, files folded in memory and written
        once each at the end.  Returns how many events, the last position, and
        the retractions to mark, which the caller applies once the index on
        event ids exists (a bulk load runs without secondary indexes).
        """
        retracted: list[tuple[str, str]] = []
        state: dict[tuple[str, str, str], tuple[Segments, int, int, str]] = {}
        stream_ids: dict[int, str] = {}
        last = count = 0

        def rows() -> Iterator[tuple[Any, ...]]:
            nonlocal last, count
            for r in recorded:
                e = r.event
                row = index_row(r, where, stream_ids)
                yield row
                if row[4] == "MemoryRetracted":
                    retracted.extend((e.event_id, eid) for eid in e.retracts)
                for name in touched(e):
                    key = (e.agent, e.user or "", name)
                    segments = state[key][0] if key in state else []
                    state[key] = (apply_to_file(segments, e, name), e.originator_version,
                                  r.position, row[10])
                last = r.position
                count += 1

        cursor.executemany(self._sql(INSERT_INDEX), rows())
        cursor.executemany(self._sql(UPSERT_FILE), (
            (agent, user, name, render(segments), json.dumps(segments), version, position, at)
            for (agent, user, name), (segments, version, position, at) in state.items()))
        cursor.execute(self._sql(SET_POSITION), (last,))
        return count, last, retracted

    def mark_retracted(self, cursor: Any, retracted: list[tuple[str, str]]) -> None:
        if retracted:
            cursor.executemany(self._sql(MARK_RETRACTED), retracted)

    def _load(self, cursor: Any, key: tuple[str, str, str]) -> Files:
        segments = self._one(cursor, SELECT_SEGMENTS, key)
        return {} if segments is None else {key[2]: json.loads(segments)}
