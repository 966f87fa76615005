"""The background thread that brings the read side up to each write.

A write returns once its event is committed in the store and its log entry
is fsynced.  The read model (event index and current files) and the
materialized files follow, in this thread: :meth:`Follower.notify` wakes it,
it waits ``gather`` seconds, applies every event the read model lacks
(however many writes came in meanwhile, in transactions of up to 50 events),
then waits ``delay`` seconds, so that a burst of writes to one file costs
one rename, and writes the changed files.  The first wait makes a burst of
writes one round instead of one round per write or two: each round's fixed
work (its transactions, a rename per file it touched) is then shared, and
it competes with the writer for the database's write lock and Python's
lock less often (with 20 ms, 17 rounds instead of 22-24 per 2,000 writes
and a fifth less file-flush time a write, ``benchmarks/write_breakdown.py``;
the gain in writes/s is within this machine's noise: docs/benchmarks.md).
Another process's reads see a write that much later; this process's reads
never wait for the thread (below).  Last, when the home has an embedder, it
embeds what the search index gained (work that may wait: skipped once :meth:`stop` is called,
so a short-lived command never waits for a model to load).

Nothing here is needed for correctness: every read first brings the read
model up to the store itself (:meth:`kairos.engine.engine.Engine.fresh`),
every open writes missing files, and ``Memory.close`` waits for both.  The
thread only moves that work off the write path (``Memory(follow=False)``
does without it).

Its lifecycle is explicit:

* it starts on the first :meth:`notify`;
* :meth:`stop` ends it for good: a :meth:`notify` after it raises
  :class:`~kairos.errors.FollowerStopped` instead of starting another thread
  behind the caller's back (the engine stops it only when it closes, and a
  closed engine refuses writes before they reach here);
* an exception in a round is logged and kept until a round succeeds (a
  database that was down for a moment and is back: nothing is left to
  report); the next read or flush before that (the first to call
  :meth:`raise_failure`) raises it as :class:`~kairos.errors.ReadSideFailed`,
  so it is never swallowed.  The next round retries from the positions, as
  every round does.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from kairos.errors import FollowerStopped, KairosError, ReadSideFailed

log = logging.getLogger("kairos")


class Follower:
    def __init__(self, apply: Callable[[], None], flush: Callable[[], object],
                 after: Callable[[Callable[[], bool]], object] | None = None,
                 delay: float = 0.05, gather: float = 0.02):
        self.apply = apply
        self.flush = flush
        self.gather = gather
        # Work that may wait (embedding): run last, given a callable that says
        # when to stop, and skipped once stop() was called.
        self.after = after
        self.delay = delay
        self._wake = threading.Event()
        self._halt = threading.Event()
        self._stopped = False
        self._thread: threading.Thread | None = None
        self._failure: Exception | None = None
        self._failure_lock = threading.Lock()

    def notify(self) -> None:
        """Events were committed: apply them and write their files soon.

        :raises FollowerStopped: after :meth:`stop`.
        """
        if self._stopped:
            raise FollowerStopped("the read side's follower was stopped: it does not restart")
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="kairos-follower",
                                            daemon=True)
            self._thread.start()
        self._wake.set()

    def _run(self) -> None:
        while True:
            self._wake.wait()
            if self.gather:  # the rest of a burst joins this round (cut short by stop())
                self._halt.wait(self.gather)
            self._wake.clear()
            if self._stopped:  # checked after the clear: stop() sets it first
                return
            try:
                self.apply()
                if self.delay:
                    self._halt.wait(self.delay)  # cut short by stop()
                self.flush()
                with self._failure_lock:  # a round that succeeds settles an earlier failure
                    self._failure = None
                if self.after is not None and not self._stopped:
                    self.after(lambda: self._stopped)
            except Exception as e:  # a storage failure is one line, a bug a traceback
                log.error("the read side's follower failed: %s", e,
                          exc_info=not isinstance(e, KairosError))
                with self._failure_lock:
                    self._failure = e

    def raise_failure(self) -> None:
        """Raise (once) what the last failed round raised, if any.

        :raises ReadSideFailed: naming the follower's error.
        """
        with self._failure_lock:
            failure, self._failure = self._failure, None
        if failure is not None:
            raise ReadSideFailed(f"the read side failed in the background: {failure}"
                                 ) from failure

    def stop(self) -> None:
        """Stop the thread for good (after the round in progress, if any)."""
        self._stopped = True
        if self._thread is not None:
            self._halt.set()
            self._wake.set()
            self._thread.join()
            self._thread = None
