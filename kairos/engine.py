"""The write path and the machinery that keeps store, logs and read models in step.

A write commits its event to the store, appends its entry to the dated logs
(fsynced), then applies it to the read models and materialized files — all
under the home's writer lock.  Each of the three tracks its own position:
the store's is its highest notification id, the logs' is the last entry of
the newest day file, the read model's is a row written in the same
transaction as its updates.  A crash between any two steps leaves one of
them behind; :meth:`Engine.catch_up` (run on every open, and by any writer
that finds the positions off) fills the gap from the store, in order,
exactly once.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from itertools import islice
from typing import Any

from kairos.domain import MemoryStream
from kairos.errors import Inconsistent
from kairos.logmirror import LogMirror, Repair
from kairos.projections.materialize import file_path, write_file
from kairos.projections.readmodel import FileChange, ReadModel, create_read_engine
from kairos.store import Recorded, Store

# Test-only fault injection: a process with this variable set dies right
# after the store commit, before the log append ("store") or before the
# read-model update ("logs"), the crashes the recovery tests simulate.
CRASH_AFTER = "KAIROS_TEST_CRASH_AFTER"


def _chunks(items: Iterator[Recorded], size: int) -> Iterator[list[Recorded]]:
    while True:
        chunk = list(islice(items, size))
        if not chunk:
            return
        yield chunk


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
        self.mirror = LogMirror(os.path.join(home, "logs"))
        self.rm_position: int | None = None
        self.repairs: list[Repair] = []

    def close(self) -> None:
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

    def catch_up(self) -> None:
        """Bring logs and read models up to the store's last position."""
        self.repairs.extend(self.mirror.scan_tail())
        log_pos = self.mirror.current_tail().position
        rm_pos = self.readmodel.position()
        low = min(log_pos, rm_pos)
        for chunk in _chunks(self.store.read(after=low), 1000):
            self._propagate(chunk, log_pos, rm_pos)
        self.rm_position = self.readmodel.position()

    def _propagate(self, recorded: Sequence[Recorded], log_pos: int, rm_pos: int) -> None:
        where = self.mirror.append([r for r in recorded if r.position > log_pos])
        if os.environ.get(CRASH_AFTER) == "logs":
            os._exit(70)
        for_rm = [r for r in recorded if r.position > rm_pos]
        missing = {r.position for r in for_rm} - where.keys()
        if missing:
            where.update(self.mirror.locate(missing))
        self.readmodel.apply(for_rm, where, self.materialize)

    # -- the write path --------------------------------------------------------------
    def commit(self, stream: MemoryStream) -> list[Recorded]:
        """Save a stream's pending events, then log and apply them (lock held).

        :raises kairos.store.Conflict: when another writer took the version.
        """
        recorded = self.store.save(stream)
        if os.environ.get(CRASH_AFTER) == "store":
            os._exit(70)
        before = recorded[0].position - 1
        if self.rm_position == before and self.mirror.tail_is_current(before):
            self._propagate(recorded, before, before)
            self.rm_position = recorded[-1].position
        else:
            self.catch_up()
        return recorded

    def materialize(self, changes: list[FileChange]) -> None:
        for c in changes:
            write_file(file_path(self.home, c.agent, c.user, c.file), c.content)

    def stream(self, agent: str, user: str | None) -> Any:
        return self.store.get(MemoryStream.stream_id(agent, user))
