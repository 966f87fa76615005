"""The write path and the machinery that keeps store, read models, logs and
files in step.

A write, under the home's writer lock:

1. commits its events to the store **and**, in the same transaction (a hook
   in the recorder), the read-model rows, including the log file and line
   each entry is about to get;
2. appends the planned entries to the dated logs and fsyncs them;
3. returns, and a background thread writes the materialized files the
   events changed (:class:`~kairos.projections.materialize.Materializer`).

Positions keep them in step: the store's highest notification id, the read
model's position row (committed with its events), the last entry of the
newest log file, and the files position.  A crash after the commit leaves
the logs behind the store, and :meth:`Engine.catch_up` — run on every open and
by any writer that finds the positions off — appends the entries of every
event after the last logged one, in order, exactly once; the files catch up
from their own position.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Sequence
from itertools import islice
from typing import Any

from kairos.domain import MemoryStream
from kairos.errors import Inconsistent
from kairos.logmirror import LogMirror, Plan, Repair
from kairos.projections.indexer import Indexer
from kairos.projections.materialize import Materializer
from kairos.projections.readmodel import ReadModel, create_read_engine
from kairos.store import Recorded, Store

# Test-only fault injection: a process with this variable set dies right
# after the store commit ("store"), or right after the log append, before
# any materialized file is written ("log") — the crashes the recovery tests
# simulate.
CRASH_AFTER = "KAIROS_TEST_CRASH_AFTER"
PAGE = 1000
log = logging.getLogger("kairos")


def chunks(items: Iterator[Recorded], size: int = PAGE) -> Iterator[list[Recorded]]:
    while True:
        chunk = list(islice(items, size))
        if not chunk:
            return
        yield chunk


def _crash_point(name: str) -> None:
    if os.environ.get(CRASH_AFTER) == name:
        os._exit(70)


class Engine:
    def __init__(self, home: str, url: str):
        self.home = home
        self.store = Store(url)
        try:
            self.readmodel = ReadModel(create_read_engine(url))
            self.readmodel.migrate()
        except Exception:
            self.store.close()
            raise
        self.indexer = Indexer(self.store.paramstyle)
        self.mirror = LogMirror(os.path.join(home, "logs"))
        self.files = Materializer(home, self.readmodel)
        # The position up to which this process knows store, read model,
        # files and logs agree (None until it has checked).
        self.synced: int | None = None
        self.repairs: list[Repair] = []

    def close(self) -> None:
        try:
            self.files.close()
        except OSError as e:  # derived files: the next open writes them
            log.warning("could not write the materialized files: %s", e)
        self.readmodel.close()
        self.store.close()

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
        self.files.flush()

    def catch_up(self) -> None:
        """Bring the read model and the logs up to the store's last position
        (the files follow, see :class:`Materializer`)."""
        self.repairs.extend(self.mirror.scan_tail())
        log_pos = self.mirror.current_tail().position
        rm_pos = self.readmodel.position()
        moved = False
        for chunk in chunks(self.store.read(after=min(log_pos, rm_pos))):
            plan = self.mirror.plan([r for r in chunk if r.position > log_pos])
            for_rm = [r for r in chunk if r.position > rm_pos]
            if for_rm:
                where = dict(plan.where)
                missing = {r.position for r in for_rm} - where.keys()
                if missing:
                    where.update(self.mirror.locate(missing))
                with self.store.transaction() as cursor:
                    applied = self.indexer.apply(cursor, for_rm, where, expect=rm_pos)
                if applied is None:
                    raise Inconsistent("the read model moved during catch-up: try again")
                rm_pos = for_rm[-1].position
            if plan.chunks:
                self.mirror.write(plan)
            log_pos = max(log_pos, chunk[-1].position)
            moved = True
        self.synced = self.store.max_position()
        if moved:
            self.files.notify()

    # -- the write path --------------------------------------------------------------
    def commit(self, stream: MemoryStream) -> list[Recorded]:
        """Save a stream's pending events, with their read-model rows, then
        append their log entries; the files follow (lock held).

        :raises kairos.store.Conflict: when another writer took the version.
        """
        pending = list(stream.pending_events)
        done: dict[str, Any] = {}

        def in_transaction(cursor: Any, ids: list[int]) -> None:
            before = ids[0] - 1
            if self.synced != before or not self.mirror.tail_is_current(before):
                return  # someone else wrote: catch up in order after the commit
            recorded = [Recorded(p, e) for p, e in zip(ids, pending, strict=True)]
            plan = self.mirror.plan(recorded)
            changes = self.indexer.apply(cursor, recorded, plan.where, expect=before,
                                         final=stream.files)
            if changes is not None:
                done.update(plan=plan)

        recorded = self.store.save(stream, in_transaction)
        _crash_point("store")
        if done:
            self.mirror.write(done["plan"])
            self.synced = recorded[-1].position
            _crash_point("log")
            self.files.notify()
        else:
            self.catch_up()
        return recorded

    def stream(self, agent: str, user: str | None) -> Any:
        """Load a stream (lock held).  While no other process has written since
        this one last did, the cached stream is current as it is: skip the
        library's fast-forward query."""
        stream_id = MemoryStream.stream_id(agent, user)
        if self.synced is not None and self.synced == self.store.max_position():
            cached = self.store.cached(stream_id)
            if cached is not None:
                return cached
        return self.store.get(stream_id)
