"""The background thread that brings the read side up to each write.

A write returns once its event is committed in the store and its log entry
is fsynced.  The read model (event index and current files) and the
materialized files follow, in this thread: :meth:`Follower.notify` wakes it,
it applies every event the read model lacks (however many writes came in
meanwhile, in transactions of up to 50 events), then waits ``delay`` seconds,
so that a burst of writes to one file costs one rename, and writes the
changed files.

Nothing here is needed for correctness: every read first brings the read
model up to the store itself (:meth:`kairos.engine.Engine.fresh`), every open
writes missing files, and ``Memory.close`` waits for both.  The thread only
moves that work off the write path.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger("kairos")


class Follower:
    def __init__(self, apply: Callable[[], None], flush: Callable[[], object],
                 delay: float = 0.05):
        self.apply = apply
        self.flush = flush
        self.delay = delay
        self._wake = threading.Event()
        self._halt = threading.Event()
        self._stopping = False
        self._thread: threading.Thread | None = None

    def notify(self) -> None:
        """Events were committed: apply them and write their files soon."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="kairos-follower",
                                            daemon=True)
            self._thread.start()
        self._wake.set()

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._stopping:  # checked after the clear: stop() sets it first
                return
            try:
                self.apply()
                if self.delay:
                    self._halt.wait(self.delay)  # cut short by stop()
                self.flush()
            except Exception as e:  # the next round, read or open retries
                log.warning("could not bring the read side up to date: %s", e)

    def stop(self) -> None:
        """Stop the thread (after the round in progress, if any)."""
        if self._thread is not None:
            self._stopping = True
            self._halt.set()
            self._wake.set()
            self._thread.join()
            self._thread = None
            self._stopping = False
            self._halt.clear()
