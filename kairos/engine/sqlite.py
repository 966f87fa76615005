"""The embedded SQLite backend: the library's recorder, made durable.

The library opens its SQLite connections in WAL mode but leaves
``synchronous`` at the build's default.  A memory write must survive a power
cut once acknowledged, so every connection is set to ``synchronous=FULL``
and the setting is read back: a build that ignores it fails loudly at open
instead of silently losing writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, cast
from uuid import UUID

from eventsourcing.sqlite import (
    SQLiteApplicationRecorder,
    SQLiteConnection,
    SQLiteConnectionPool,
    SQLiteFactory,
)

from kairos.errors import StoreUnavailable

SYNCHRONOUS_FULL = 2


class DurableConnectionPool(SQLiteConnectionPool):
    def _create_connection(self) -> SQLiteConnection:
        conn = super()._create_connection()
        raw = conn._sqlite_conn
        raw.execute("PRAGMA synchronous=FULL")
        level = raw.execute("PRAGMA synchronous").fetchone()[0]
        if level != SYNCHRONOUS_FULL:
            raise StoreUnavailable(
                f"SQLite refused synchronous=FULL (got {level}): writes would not be durable"
            )
        return conn


class DurableSQLiteFactory(SQLiteFactory):
    """The library's SQLite factory with a connection pool that insists on FULL
    sync."""

    def __init__(self, env: Any):
        super().__init__(env)
        old = self.datastore.pool
        self.datastore.pool = DurableConnectionPool(
            db_name=old.db_name, lock_timeout=old.lock_timeout
        )
        old.close()


def restore_events(factory: DurableSQLiteFactory,
                   rows: Iterable[tuple[int, UUID | str, int, str, bytes]]) -> int:
    """Insert stored events at the given notification ids (a restore from logs).

    The library's recorder numbers events itself; a restore must reproduce the
    positions the logs recorded (gaps included, when the logs came from
    PostgreSQL), so the rows go into the library's own table with an explicit
    rowid, all in one transaction: an error from ``rows`` rolls back everything.
    """
    count = 0

    def params() -> Iterator[tuple[Any, ...]]:
        nonlocal count
        for position, oid, version, topic, state in rows:
            count += 1
            yield position, oid.hex if isinstance(oid, UUID) else oid, version, topic, state

    with factory.datastore.transaction(commit=True) as c:
        c.executemany(
            "INSERT INTO stored_events (rowid, originator_id, originator_version, topic, state) "
            "VALUES (?, ?, ?, ?, ?)", params())
    return count


class ReadOnlyConnectionPool(SQLiteConnectionPool):
    """Connections that never write: the library's pool would set the
    journal mode to WAL when it reads another (an immutable open reads
    ``delete``); here it is taken as set."""

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.is_journal_mode_wal = True


class ReadOnlySQLiteFactory(SQLiteFactory):
    """The library's SQLite factory for a read-only open: the URI says
    ``mode=ro`` or ``immutable=1``
    (:func:`kairos.engine.sqlitefiles.read_only_uri`), the settings
    ``CREATE_TABLE=n``."""

    def __init__(self, env: Any):
        super().__init__(env)
        old = self.datastore.pool
        self.datastore.pool = ReadOnlyConnectionPool(db_name=old.db_name,
                                                     lock_timeout=old.lock_timeout)
        old.close()


def stored_rows(recorder: SQLiteApplicationRecorder, after: int, limit: int
                ) -> list[tuple[int, str, int, str, bytes]]:
    """Up to ``limit`` stored events after position ``after``, in order, as
    the rows the library's own query reads (position, originator id as
    stored, version, topic, state), without making each a notification: a
    rebuild makes the originator's UUID once per stream, not once per event
    (:meth:`kairos.engine.store.Store.read_bulk`)."""
    with recorder.datastore.transaction(commit=False) as c:
        c.execute(f"SELECT rowid, originator_id, originator_version, topic, state "
                  f"FROM {recorder.events_table_name} WHERE rowid>? ORDER BY rowid LIMIT ?",
                  (after, limit))
        return cast(list[tuple[int, str, int, str, bytes]], c.fetchall())


def stream_rows(recorder: SQLiteApplicationRecorder, after: tuple[str, int] | None, limit: int
                ) -> list[tuple[int, str, int, str, bytes]]:
    """Up to ``limit`` stored events after ``after`` (an originator id as
    stored and a version) in stream order — by originator id, then version,
    along the library's unique index on the two — as :func:`stored_rows`
    gives them: a rebuild folds one stream's files at a time
    (:meth:`kairos.engine.store.Store.read_bulk_by_stream`)."""
    where, args = ("WHERE (originator_id, originator_version) > (?, ?) ", after) if after \
        else ("", ())
    with recorder.datastore.transaction(commit=False) as c:
        c.execute(f"SELECT rowid, originator_id, originator_version, topic, state "
                  f"FROM {recorder.events_table_name} {where}"
                  "ORDER BY originator_id, originator_version LIMIT ?", (*args, limit))
        return cast(list[tuple[int, str, int, str, bytes]], c.fetchall())
