"""Writes the read models (``memory_index``, ``memory_files``, the position)
through a DB-API cursor of the event store itself.

On the write path this runs *inside* the store's transaction (a hook in the
recorder, see :mod:`kairos.stores`), so an event and its read-model rows
commit together or not at all and the read model can never lag the store
because of a crash.  Catch-up and rebuild run it in a transaction of their
own.  Plain SQL, the same for SQLite and PostgreSQL but for the parameter
marker; the tables are defined (and migrated) in :mod:`readmodel`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from kairos.hashing import format_time
from kairos.projections.fold import Files, apply_event, render, touched
from kairos.projections.readmodel import FileChange, text_of

SELECT_POSITION = "SELECT position FROM memory_positions WHERE name = 'index'"
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
SET_LOG_PLACE = "UPDATE memory_index SET log_file = ?, log_line = ? WHERE position = ?"
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

    def position(self, cursor: Any) -> int:
        return int(self._one(cursor, SELECT_POSITION) or 0)

    def apply(self, cursor: Any, recorded: Sequence[Any], where: dict[int, tuple[str, int]],
              *, expect: int, final: Files | None = None) -> list[FileChange] | None:
        """Apply events (each with ``.position`` and ``.event``) that follow
        position ``expect``; return the files they changed.

        Returns None, applying nothing, when the read model is not at
        ``expect`` (another writer or a restore got there first; the caller
        catches up in order instead).  ``final``: the files of the one stream
        all these events belong to, as they stand after them (the write path
        has them in the aggregate: the same fold, so no need to read and fold
        the stored segments again).
        """
        if not recorded:
            return []
        if self._one(cursor, MOVE_POSITION, (recorded[-1].position, expect)) is None:
            return None
        rows: list[tuple[Any, ...]] = []
        retracted: list[tuple[str, str]] = []
        state: dict[tuple[str, str, str], tuple[Files, int, int, str]] = {}
        for r in recorded:
            e = r.event
            kind = type(e).__name__
            log_file, log_line = where.get(r.position, (None, None))
            at = format_time(e.timestamp)
            rows.append((r.position, e.event_id, str(e.originator_id), e.originator_version, kind,
                         e.agent, e.user, getattr(e, "file", None),
                         getattr(e, "actor", None) or getattr(e, "reviewer", None),
                         getattr(e, "session", None), at, text_of(e), log_file, log_line,
                         getattr(e, "dream_id", None)))
            if kind == "MemoryRetracted":
                retracted.extend((e.event_id, eid) for eid in e.retracts)
            for name in touched(e):
                key = (e.agent, e.user or "", name)
                if final is not None:
                    files = {name: final.get(name, [])}
                else:
                    files = apply_event(state[key][0] if key in state else self._load(cursor, key),
                                        e)
                state[key] = (files, e.originator_version, r.position, at)
        cursor.executemany(self._sql(INSERT_INDEX), rows)
        if retracted:
            cursor.executemany(self._sql(MARK_RETRACTED), retracted)
        changes = []
        for (agent, user, name), (files, version, position, at) in state.items():
            segments = files.get(name, [])
            content = render(segments)
            cursor.execute(self._sql(UPSERT_FILE), (agent, user, name, content,
                                                    json.dumps(segments), version, position, at))
            changes.append(FileChange(agent, user or None, name, content))
        return changes

    def _load(self, cursor: Any, key: tuple[str, str, str]) -> Files:
        segments = self._one(cursor, SELECT_SEGMENTS, key)
        return {} if segments is None else {key[2]: json.loads(segments)}

    def set_log_places(self, cursor: Any, where: dict[int, tuple[str, int]]) -> None:
        """Record where entries landed in the logs (for rows applied before)."""
        if where:
            cursor.executemany(self._sql(SET_LOG_PLACE),
                               [(f, line, pos) for pos, (f, line) in sorted(where.items())])
