"""The write path and the machinery that keeps store, logs, read model and
files in step.

A write, under the home's writer lock:

1. commits its events to the store;
2. renders their log entries, now that their positions are known, appends
   them to the dated logs and fsyncs them;
3. returns.  The read model (event index, current files) and the
   materialized files follow in a background thread
   (:class:`~kairos.follower.Follower`).

Positions keep the four in step: the store's highest notification id, the
last entry of the newest log file, the read model's position row (committed
with its rows) and the files position.  Each follows the one before it and
catches up from its own position: :meth:`Engine.catch_up` appends the log
entries of every event after the last logged one (on every open, and by any
writer that finds another process wrote), :meth:`Engine.fresh` applies what
the read model lacks — before every read, so a read always sees every
acknowledged write — and :meth:`Materializer.flush` writes what the files
lack.  A crash anywhere leaves gaps that are filled in order, exactly once.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from itertools import islice
from typing import Any

from kairos.domain import MemoryStream
from kairos.errors import Inconsistent
from kairos.follower import Follower
from kairos.logmirror import LogMirror, Repair
from kairos.projections.indexer import Indexer
from kairos.projections.materialize import Materializer
from kairos.projections.readmodel import ReadModel, create_read_engine
from kairos.store import Recorded, Store

# Test-only fault injection: a process with this variable set dies right
# after the store commit ("store"), or right after the log append, before the
# read model or any file has the event ("log") — the crashes the recovery
# tests simulate.
CRASH_AFTER = "KAIROS_TEST_CRASH_AFTER"
PAGE = 1000
# Read-model transactions hold the database's write lock, which the next
# write waits for: small ones keep that wait short.
BATCH = 50
log = logging.getLogger("kairos")


def chunks(items: Iterator[Recorded], size: int = PAGE) -> Iterator[list[Recorded]]:
    while True:
        chunk = list(islice(items, size))
        if not chunk:
            return
        yield chunk


_CRASH_ARMED = os.environ.get(CRASH_AFTER)  # read once: a lookup costs microseconds


def _crash_point(name: str) -> None:
    if _CRASH_ARMED == name:
        os._exit(70)


class Engine:
    def __init__(self, home: str, url: str):
        self.home = home
        self.store = Store(url)
        try:
            self._readmodel = ReadModel(create_read_engine(url))
            self._readmodel.migrate()
        except Exception:
            self.store.close()
            raise
        self.indexer = Indexer(self.store.paramstyle)
        self.mirror = LogMirror(os.path.join(home, "logs"))
        self.files = Materializer(home, self._readmodel)
        self.follower = Follower(self.fresh, self.files.flush)
        # The position up to which this process knows store and logs agree
        # (None until it has checked), and the read model's last known one.
        self.synced: int | None = None
        self.applied = 0
        # Events this process committed, with their log places, not yet in the
        # read model: what the follower applies without reading them back.
        self._pending: list[tuple[int, list[Recorded], dict[int, tuple[str, int]]]] = []
        self._pending_lock = threading.Lock()
        self._apply_lock = threading.RLock()
        # Taken around every write transaction of this process, so that the
        # follower and the write path queue here (woken the moment the other
        # is done) instead of in SQLite's busy handler, which sleeps 1 ms or
        # more each time it finds the database locked.
        self._db_write = threading.Lock()
        self.repairs: list[Repair] = []
        self.closed = False

    def close(self) -> None:
        """Stop the follower and finish its work (unless the home was opened
        read-only and never written: then nothing is written on close)."""
        if self.closed:
            return
        self.closed = True
        self.follower.stop()
        if self.synced is not None:
            try:
                self.fresh()
                self.files.flush()
            except OSError as e:  # derived: the next open catches up
                log.warning("could not bring the read side up to date: %s", e)
        self._readmodel.close()
        self.store.close()

    @contextmanager
    def read_side_held(self) -> Iterator[ReadModel]:
        """The read model, with neither the follower nor any flush (of this
        process or another) touching it or the files: for a rebuild."""
        with self._apply_lock, self.files.locked():
            yield self._readmodel

    @property
    def readmodel(self) -> ReadModel:
        """The read model, brought up to every event in the store first."""
        self.fresh()
        return self._readmodel

    # -- recovery ----------------------------------------------------------------
    def logs_ahead(self) -> tuple[int, int] | None:
        """(logged, stored) positions when the logs hold events the store lacks."""
        tail = self.mirror.current_tail()
        stored = self.store.max_position()
        return (tail.position, stored) if tail.position > stored else None

    def recover(self) -> None:
        """Repair a torn log tail and fill every gap (call with the lock held).

        :raises Inconsistent: when the logs are ahead of the store (restore it
            with ``rebuild --from-logs``) or the last logged entry is not the
            store's event at that position.
        """
        self.repairs.extend(self.mirror.scan_tail())
        ahead = self.logs_ahead()
        if ahead is not None:
            raise Inconsistent(
                f"the logs hold events up to position {ahead[0]} but the store only up to "
                f"{ahead[1]}: restore the store with `kairos rebuild --from-logs`"
            )
        tail = self.mirror.current_tail()
        if tail.position:
            stored = next(self.store.read(after=tail.position - 1, upto=tail.position), None)
            if stored is None or stored.event.hash != tail.last_hash:
                raise Inconsistent(
                    f"the last log entry (position {tail.position}) is not the store's event "
                    "at that position: run `kairos verify`"
                )
        self.catch_up()
        self.fresh()
        self.files.flush()

    def catch_up(self) -> None:
        """Append the log entries of every stored event after the last logged
        one, in order (lock held); the read side follows."""
        self.repairs.extend(self.mirror.scan_tail())
        log_pos = self.mirror.current_tail().position
        for chunk in chunks(self.store.read(after=log_pos)):
            self.mirror.write(self.mirror.plan(chunk))
        self.synced = self.store.max_position()
        if self.synced > log_pos:
            self.follower.notify()

    # -- the read model ------------------------------------------------------------
    def fresh(self) -> None:
        """Apply to the read model every stored event it lacks.

        Cheap when nothing is missing (a ``stat`` of the newest log file, or
        one query when another process has written).  Events this process
        committed are applied as they were recorded; others (another process
        wrote and its follower has not applied them yet, or it died) are read
        from the store and their log places looked up in the logs.
        """
        if (self.synced is not None and self.applied >= self.synced
                and self.mirror.tail_is_current(self.synced)):
            # Applied all this process knows of, and the logs end where it
            # left them: no other process has acknowledged a write since.
            return
        stored = self.store.max_position()
        if stored <= self.applied:
            return
        with self._apply_lock:
            while True:  # again when another process moved the read model meanwhile
                at = self._readmodel.position()
                if at >= stored:
                    self.applied = max(self.applied, at)
                    return
                with self._pending_lock:
                    pending, self._pending = self._pending, []
                pending = [p for p in pending if p[1][-1].position > at]
                where = {k: v for _, _, w in pending for k, v in w.items()}
                if pending and pending[0][0] == at and all(
                        later[0] == earlier[1][-1].position
                        for earlier, later in zip(pending, pending[1:], strict=False)):
                    pages: Iterable[list[Recorded]] = [
                        [r for _, batch, _ in pending for r in batch]]
                else:
                    pages = chunks(self.store.read(after=at))
                self._apply(pages, where, at)

    def _apply(self, pages: Iterable[list[Recorded]], where: dict[int, tuple[str, int]],
               at: int) -> None:
        """Apply pages of events that follow position ``at``, in small
        transactions; stop when another process got there first."""
        for page in pages:
            missing = {r.position for r in page} - where.keys()
            if missing:
                where.update(self.mirror.locate(missing))
            for batch in (page[i:i + BATCH] for i in range(0, len(page), BATCH)):
                with self._db_write, self._readmodel.transaction() as cursor:
                    done = self.indexer.apply(cursor, batch, where, expect=at)
                if not done:
                    return
                at = batch[-1].position
                self.applied = max(self.applied, at)

    # -- the write path --------------------------------------------------------------
    def commit(self, stream: MemoryStream) -> list[Recorded]:
        """Save a stream's pending events and append their log entries (lock
        held); the read side follows.

        :raises kairos.store.Conflict: when another writer took the version.
        """
        with self._db_write:
            recorded = self.store.save(stream)
        _crash_point("store")
        before = recorded[0].position - 1
        if self.synced == before and self.mirror.tail_is_current(before):
            plan = self.mirror.plan(recorded)
            self.mirror.write(plan)
            self.synced = recorded[-1].position
            with self._pending_lock:
                self._pending.append((before, recorded, plan.where))
            _crash_point("log")
            self.follower.notify()
        else:  # someone else wrote (or died) since this process did: in order
            self.catch_up()
        return recorded

    def stream(self, agent: str, user: str | None) -> Any:
        """Load a stream to write to it (lock held).

        While the logs end where this process left them, no other process has
        written since it last did, and the cached stream is current as it is:
        skip the library's fast-forward query.  (A process that died between
        its commit and its log append is the one case this misses; the save
        then conflicts on the stream version, and the retry loads afresh.)
        """
        stream_id = MemoryStream.stream_id(agent, user)
        if self.synced is not None and self.mirror.tail_is_current(self.synced):
            cached = self.store.cached(stream_id)
            if cached is not None:
                return cached
        return self.store.get(stream_id)
