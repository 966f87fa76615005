"""The embedded SQLite backend: the library's recorder, made durable.

The library opens its SQLite connections in WAL mode but leaves
``synchronous`` at the build's default.  A memory write must survive a power
cut once acknowledged, so every connection is set to ``synchronous=FULL``
and the setting is read back: a build that ignores it fails loudly at open
instead of silently losing writes.
"""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Iterable, Iterator
from typing import Any, cast
from uuid import UUID

from eventsourcing.sqlite import (
    SQLiteApplicationRecorder,
    SQLiteConnection,
    SQLiteConnectionPool,
    SQLiteFactory,
)

from kairos.errors import StorageReadOnly, StoreUnavailable

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
    ``mode=ro`` or ``immutable=1`` (:func:`read_only_uri`), the settings
    ``CREATE_TABLE=n``."""

    def __init__(self, env: Any):
        super().__init__(env)
        old = self.datastore.pool
        self.datastore.pool = ReadOnlyConnectionPool(db_name=old.db_name,
                                                     lock_timeout=old.lock_timeout)
        old.close()


# A WAL index (-shm) grows in 32 KiB regions: a shorter one is not in use
# (what a read-only open that could not extend it leaves on a full disk).
SHM_REGION = 32768


def wal_is_empty(path: str) -> bool:
    """No write-ahead log with content beside the database, and no WAL index
    in use: the whole database is in its main file."""
    def size(p: str) -> int:
        return os.path.getsize(p) if os.path.exists(p) else 0
    return size(path + "-wal") == 0 and size(path + "-shm") < SHM_REGION


def read_only_uri(path: str, *, immutable: bool = False) -> str:
    """An SQLite URI that opens the store at ``path`` without writing anything.

    A WAL database opened read-only needs its ``-shm`` file (the WAL index),
    or the right to create it.  So:

    * ``mode=ro`` when this process may write the directory or the ``-shm``
      exists: a home being written meanwhile is read consistently (the usual
      case, and ``verify`` under load);
    * ``immutable=1`` when it may not and there is no ``-shm`` (a copy for an
      auditor, a read-only mount): the whole database is in the main file,
      since no writer has it open (a writer would have made a ``-shm``);
    * neither, when a non-empty ``-wal`` is there without a ``-shm`` in a
      directory this process cannot write: its last writes are in the WAL
      and cannot be read without a WAL index, so refuse, saying why.

    ``immutable``: the second try of a caller whose ``mode=ro`` open failed
    while there was no usable ``-shm`` (it could not be made: a full disk) —
    see :func:`wal_is_empty`.

    :raises StorageReadOnly: in that last case.
    """
    directory = os.path.dirname(path) or "."
    wal, shm = path + "-wal", path + "-shm"
    quoted = urllib.parse.quote(path)
    if not immutable and (os.access(directory, os.W_OK) or os.path.exists(shm)):
        return f"file:{quoted}?mode=ro"
    if os.path.exists(wal) and os.path.getsize(wal) > 0:
        raise StorageReadOnly(
            f"cannot read {path} read-only: its last writes are in {wal}, which needs {shm} "
            "(absent) to be read, and the directory is not writable: copy the home with its "
            "-wal and -shm files, or open it once with write access")
    return f"file:{quoted}?immutable=1"


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
