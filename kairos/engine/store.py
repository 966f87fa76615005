"""The event store: an eventsourcing Application over SQLite or PostgreSQL.

Kairos keeps its events in the library's own tables through its own
Application, repository and recorders.  This adapter adds what the engine
needs on top: reading the global order in large pages (the library's
notification log serves 10 events a page; :meth:`Store.pages` is the one
paging loop, for ordinary reads, a rebuild's bulk read and verification),
loading a stream or part of it, saving with a retry-free conflict signal,
and restoring events at given positions (a rebuild from the logs).

Aggregates are cached (the library's LRU cache; :meth:`Store.get`
fast-forwards, :meth:`Store.cached` does not) and snapshotted every
:data:`SNAPSHOT_INTERVAL` events, so a write never replays a long stream.  A
snapshot of an older state shape (version 1, before the stream knew its
retractions and dreams) cannot be brought forward without the history it
summarizes: such a stream is replayed from its events instead, until a new
snapshot supersedes the old one.
"""

from __future__ import annotations

import gc
import os
import sqlite3
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any, NamedTuple, cast
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application, project_aggregate
from eventsourcing.persistence import (
    IntegrityError,
    JSONTranscoder,
    Notification,
    PersistenceError,
    Transcoder,
)

from kairos.domain.events import DomainEvent, MemoryStream, Recorded, SnapshotOutdated
from kairos.domain.hashing import format_time
from kairos.errors import KairosError, StoreUnavailable, one_line, storage_error
from kairos.projections.light import DECODERS, Light

# A snapshot every 200 events bounds a cold load of any stream to 200 events.
SNAPSHOT_INTERVAL = 200
# Read the global order 500 events a query: large pages (the library serves
# 10), bounded memory; larger pages measured no faster, a little slower.
PAGE = 500


def db_errors() -> tuple[type[BaseException], ...]:
    """What a database failure can raise.  psycopg's errors only once it is
    loaded (a PostgreSQL store): an SQLite home never imports it, which would
    cost a command a fifth of a second or more."""
    pg = sys.modules.get("psycopg")
    base: tuple[type[BaseException], ...] = (PersistenceError, OSError, sqlite3.Error)
    return base if pg is None else (*base, pg.Error)


class SubclassAwareTranscoder(JSONTranscoder):
    """Encodes subclasses of registered types as their base (a datetime
    subclass, such as the one a frozen test clock returns, as a datetime)."""

    def _encode_obj(self, o: Any) -> dict[str, Any]:
        for cls in type(o).__mro__:
            if cls in self.types:
                transcoding = self.types[cls]
                return {"_type_": transcoding.name, "_data_": transcoding.encode(o)}
        return super()._encode_obj(o)


class KairosApplication(Application[UUID]):
    name = "Kairos"
    snapshotting_intervals = {MemoryStream: SNAPSHOT_INTERVAL}

    def construct_transcoder(self) -> Transcoder:
        transcoder = SubclassAwareTranscoder()
        self.register_transcodings(transcoder)
        return transcoder

    def replay(self, stream_id: UUID, upto_version: int | None = None) -> MemoryStream | None:
        """A stream folded from its events alone, snapshots ignored."""
        return cast(MemoryStream | None,
                    project_aggregate(None, self.events.get(stream_id, lte=upto_version)))

    def take_snapshot(self, aggregate_id: UUID, version: int | None = None,
                      projector_func: Any = project_aggregate) -> None:
        """The library's, but a stream whose latest snapshot is outdated is
        snapshotted from its events (this runs inside a save that has
        already committed: it must not fail for an old snapshot)."""
        try:
            super().take_snapshot(aggregate_id, version, projector_func)
        except SnapshotOutdated:
            stream = self.replay(aggregate_id, version)
            if stream is not None and self.snapshots is not None:
                self.snapshots.put([MemoryStream.Snapshot.take(stream)])


def _time_text(iso: str) -> str:
    """:func:`~kairos.domain.hashing.format_time` of a stored ``isoformat()`` text,
    without parsing it in the usual (UTC) cases."""
    if iso.endswith("+00:00"):
        if len(iso) == 32:
            return iso[:26] + "Z"
        if len(iso) == 25:
            return iso[:19] + ".000000Z"
    return format_time(datetime.fromisoformat(iso))


# A stored event as a restore inserts it: position, originator id (a UUID,
# or its 32 hex digits), version, topic, state (the stored JSON).
StoredRow = tuple[int, UUID | str, int, str, bytes]


class BulkRecorded(NamedTuple):
    """A recorded event as a rebuild reads it: light when it can be."""

    position: int
    event: DomainEvent | Light


class Conflict(KairosError):
    """Another writer saved to the same stream first (optimistic concurrency)."""


def store_env(url: str, *, read_only: bool = False, immutable: bool = False) -> dict[str, str]:
    """Library settings for a store URL (``sqlite:///path`` or ``postgresql://…``);
    ``read_only``: create no tables."""
    # Cached aggregates are handed out without a deep copy: commands check
    # before they change anything, state is updated by replacement, and a
    # failed save evicts the stream (Store.save).
    common = {"AGGREGATE_CACHE_MAXSIZE": "1000", "IS_SNAPSHOTTING_ENABLED": "y",
              "DEEPCOPY_FROM_AGGREGATE_CACHE": "n", "CREATE_TABLE": "n" if read_only else "y"}
    if url.startswith(("postgresql:", "postgres:", "postgresql+psycopg:")):
        from kairos.engine.postgres import env_from_url

        return {**common, **env_from_url(url)}
    if url.startswith("sqlite:///"):
        path = url[len("sqlite:///"):]
        if read_only:
            from kairos.engine.sqlitefiles import read_only_uri

            return {**common, "PERSISTENCE_MODULE": "kairos.engine.sqlite:ReadOnlySQLiteFactory",
                    "SQLITE_DBNAME": read_only_uri(path, immutable=immutable),
                    "SQLITE_LOCK_TIMEOUT": "30"}
        return {**common, "PERSISTENCE_MODULE": "kairos.engine.sqlite:DurableSQLiteFactory",
                "SQLITE_DBNAME": path, "SQLITE_LOCK_TIMEOUT": "30"}
    raise StoreUnavailable(f"unsupported database URL {url!r}: use sqlite:///PATH or postgresql://…")


def shown_url(url: str) -> str:
    """A store URL as error messages show it: the SQLite path, or the
    PostgreSQL URL without its password."""
    if url.startswith("sqlite:///"):
        return url[len("sqlite:///"):]
    head, at, rest = url.rpartition("@")
    if not at:
        return url
    scheme, _, credentials = head.partition("://")
    return f"{scheme}://{credentials.split(':')[0]}@{rest}"


@contextmanager
def guarded(where: str) -> Iterator[None]:
    """Turn what the database raised into a Kairos error naming ``where``
    (a conflict on a stream version stays a conflict)."""
    try:
        yield
    except (Conflict, SnapshotOutdated):
        raise
    except db_errors() as e:
        raise storage_error(e, where) from e


class Store:
    """The event store of one home.

    Every method turns a database failure into a
    :class:`~kairos.errors.StorageFailed` naming the database (full,
    read-only, no permission, unreachable).

    :param read_only: open an SQLite store read-only (no table creation, no
        journal-mode change, ``mode=ro`` or ``immutable=1``: see
        :func:`kairos.engine.sqlitefiles.read_only_uri`).
    """

    def __init__(self, url: str, *, read_only: bool = False, immutable: bool = False):
        self.url = url
        self.where = shown_url(url)
        self.is_postgres = not url.startswith("sqlite:")
        self.read_only = read_only
        env = store_env(url, read_only=read_only, immutable=immutable)
        if not self.is_postgres:
            parent = os.path.dirname(self.where) or "."
            if not os.path.isdir(parent):
                raise StoreUnavailable(f"cannot open SQLite store: no directory {parent}")
            if read_only and not os.path.exists(self.where):
                raise StoreUnavailable(f"cannot open SQLite store read-only: no {self.where} "
                                       "(a home that was never written, or whose database "
                                       "was lost: see `kairos verify`)")
        app = None
        error = None
        try:
            app = KairosApplication(env=env)
            if self.is_postgres:
                from kairos.engine.postgres import tune_pool

                tune_pool(cast(Any, app.factory))
            app.recorder.max_notification_id()
        except db_errors() as e:
            error = storage_error(e, self.where)
            if isinstance(error, StoreUnavailable):
                error = StoreUnavailable(f"cannot reach the event store at {self.where}: "
                                         f"{one_line(e)}")
        if error is not None:
            if app is not None:
                app.close()
            # A half-built application holds a connection pool; collect it here,
            # on this thread, rather than let a pool thread run its __del__.
            gc.collect()
            raise error
        assert app is not None
        self.app = app

    def close(self) -> None:
        with guarded(self.where):
            self.app.close()

    def max_position(self) -> int:
        with guarded(self.where):
            return self.app.recorder.max_notification_id() or 0

    def pages(self, after: int = 0, upto: int | None = None,
              page: int = PAGE) -> Iterator[Sequence[Notification]]:
        """The stored rows with ``after < position <= upto``, in order, a page
        at a time ("ids greater than the last one seen": PostgreSQL ids can
        have gaps)."""
        while True:
            with guarded(self.where):
                rows = self.app.recorder.select_notifications(
                    start=after, limit=page, stop=upto, inclusive_of_start=False)
            if rows:
                yield rows
            if len(rows) < page:
                return
            after = rows[-1].id

    def read(self, after: int = 0, upto: int | None = None, page: int = PAGE
             ) -> Iterator[Recorded]:
        """Every event with ``after < position <= upto``, in order."""
        to_event = self.app.mapper.to_domain_event
        for rows in self.pages(after, upto, page):
            for n in rows:
                yield Recorded(n.id, cast(DomainEvent, to_event(n)))

    def read_bulk(self, after: int = 0, page: int = PAGE) -> Iterator[BulkRecorded]:
        """Like :meth:`read`, for a rebuild: the common events decoded straight
        from their stored JSON into light events
        (:mod:`kairos.projections.light`) instead of through
        the library's mapper (its per-object decoding is most of a read's
        cost).  The rest, and any store with a cipher or compressor, go
        through the mapper.  ``tests/test_store.py`` checks that both give the
        same fields for every event type."""
        return self._decoded(self._stored(after, page))

    def read_bulk_by_stream(self, page: int = PAGE) -> Iterator[BulkRecorded]:
        """Every event as :meth:`read_bulk` decodes it, stream by stream (by
        originator id, each stream's in version order) instead of in
        position order: a rebuild folds, writes and forgets one stream's
        files before the next, so its memory does not grow with the home."""
        return self._decoded(self._by_stream(page))

    def _by_stream(self, page: int) -> Iterator[tuple[int, UUID | str, int, str, bytes]]:
        recorder: Any = self.app.recorder
        after: Any = None  # the last row's (originator id as stored, version)
        stored_id: Any = None
        oid: Any = None
        while True:
            with guarded(self.where):
                if self.is_postgres:
                    from kairos.engine.postgres import stream_rows as postgres_rows

                    factory: Any = self.app.factory
                    rows: list[Any] = postgres_rows(factory, recorder.events_table_name,
                                                    after, page)
                else:
                    from kairos.engine.sqlite import stream_rows

                    rows = stream_rows(recorder, after, page)
            for position, stored, version, topic, state in rows:
                if stored != stored_id:  # a new stream: its UUID made once
                    stored_id = stored
                    oid = recorder.convert_originator_id(stored) if isinstance(stored, str) \
                        else stored
                yield position, oid, version, topic, state
            if len(rows) < page:
                return
            after = (rows[-1][1], rows[-1][2])

    def _decoded(self, stored: Iterable[tuple[int, UUID | str, int, str, bytes]]
                 ) -> Iterator[BulkRecorded]:
        mapper = self.app.mapper
        plain = mapper.cipher is None and mapper.compressor is None
        for position, oid, version, topic, state in stored:
            decoder = DECODERS.get(topic) if plain else None
            if decoder is None:
                n = Notification(id=position, originator_id=oid, originator_version=version,
                                 topic=topic, state=state)
                yield BulkRecorded(position, cast(DomainEvent, mapper.to_domain_event(n)))
                continue
            e = decoder.decode(state)
            e.at = _time_text(e.timestamp["_data_"])
            e.originator_id = cast(UUID, oid)
            e.originator_version = version
            yield BulkRecorded(position, e)

    def _stored(self, after: int, page: int) -> Iterator[tuple[int, UUID | str, int, str, bytes]]:
        """The stored rows after ``after``, in order: (position, originator
        id, version, topic, state).  On SQLite read directly, each stored
        originator id converted once (the library's recorder converts it to
        a new UUID for every row: a fifth of a rebuild's read)."""
        if self.is_postgres:
            for notifications in self.pages(after, page=page):
                for n in notifications:
                    yield n.id, n.originator_id, n.originator_version, n.topic, n.state
            return
        from kairos.engine.sqlite import stored_rows

        recorder: Any = self.app.recorder
        ids: dict[str, UUID | str] = {}  # as stored -> as the library gives it
        while True:
            with guarded(self.where):
                rows = stored_rows(recorder, after, page)
            for position, stored, version, topic, state in rows:
                oid = ids.get(stored)
                if oid is None:
                    oid = ids[stored] = recorder.convert_originator_id(stored)
                yield position, oid, version, topic, state
            if len(rows) < page:
                return
            after = rows[-1][0]

    def stream(self, stream_id: UUID, upto_version: int | None = None,
               after_version: int | None = None) -> list[DomainEvent]:
        """The events of one stream, in version order."""
        with guarded(self.where):
            return cast(list[DomainEvent],
                        list(self.app.events.get(stream_id, gt=after_version, lte=upto_version)))

    def get(self, stream_id: UUID) -> MemoryStream | None:
        """The stream to write to (cached, fast-forwarded), or None."""
        try:
            with guarded(self.where):
                return cast(MemoryStream, self.app.repository.get(stream_id))
        except AggregateNotFoundError:
            return None
        except SnapshotOutdated:
            with guarded(self.where):
                stream = self.app.replay(stream_id)
            if stream is not None and self.app.repository.cache is not None:
                self.app.repository.cache.put(stream_id, stream)
            return stream

    def cached(self, stream_id: UUID) -> MemoryStream | None:
        """The cached stream as it is (no fast-forward), or None."""
        cache = self.app.repository.cache
        if cache is None:
            return None
        try:
            return cast(MemoryStream, cache.get(stream_id))
        except KeyError:
            return None

    def save(self, *streams: MemoryStream) -> list[Recorded]:
        """Commit the streams' pending events, in one transaction: all of them
        or, on any error, none (several streams: a group commit).

        :raises Conflict: when another writer committed one of the versions
            first; the caller reloads the streams and tries again.
        """
        try:
            recordings = self.app.save(*streams)
        except BaseException as e:
            # The cache holds the very objects the commands changed: drop them,
            # so the next load reads the store instead of a state never saved.
            for stream in streams:
                self.evict(stream.id)
            if isinstance(e, IntegrityError):
                raise Conflict(", ".join(str(s.id) for s in streams)) from None
            if isinstance(e, db_errors()):
                raise storage_error(e, self.where) from e
            raise
        return [Recorded(r.notification.id, cast(DomainEvent, r.domain_event))
                for r in recordings]

    def evict(self, stream_id: UUID) -> None:
        cache = self.app.repository.cache
        if cache is not None:
            try:
                cache.get(stream_id, evict=True)
            except KeyError:
                pass

    def stored_row(self, recorded: Recorded) -> StoredRow:
        """An event as the store keeps it, through the library's mapper."""
        s = self.app.mapper.to_stored_event(recorded.event)
        return recorded.position, s.originator_id, s.originator_version, s.topic, s.state

    def state_encoder(self) -> Callable[[Any], bytes] | None:
        """The library's JSON encoding of an event's state and the values in
        it, for rows made without event objects (a restore); None when this
        store also compresses or enciphers the state (such rows go through
        the mapper)."""
        mapper = self.app.mapper
        if mapper.cipher is not None or mapper.compressor is not None:
            return None
        return cast(Callable[[Any], bytes], mapper.transcoder.encode)

    def restore(self, rows: Iterable[StoredRow]) -> int:
        """Insert stored rows at their positions (a rebuild from the logs), in
        one transaction; return how many.  An exception raised while
        ``rows`` is iterated rolls back the whole restore."""
        factory: Any = self.app.factory
        with guarded(self.where):
            if self.is_postgres:
                from kairos.engine.postgres import restore_events

                table: str = getattr(self.app.recorder, "events_table_name")  # noqa: B009
                return int(restore_events(factory, table, rows))
            from kairos.engine.sqlite import restore_events as restore_sqlite

            return int(restore_sqlite(factory, rows))
