"""The write path and the machinery that keeps store, logs, read model and
files in step.

A write, under the home's writer lock:

1. commits its events to the store;
2. renders their log entries, now that their positions are known, appends
   them to the dated logs and fsyncs them;
3. returns.  The read model (event index, current files) and the
   materialized files follow in a background thread
   (:class:`~kairos.engine.follower.Follower`).

Positions keep the four in step: the store's highest notification id, the
last entry of the newest log file, the read model's position row (committed
with its rows) and the files position.  Each follows the one before it and
catches up from its own position: :meth:`Engine.catch_up` appends the log
entries of every event after the last logged one (on every open, and by any
writer that finds another process wrote), :meth:`Engine.fresh` applies what
the read model lacks — before every read, so a read always sees every
acknowledged write — and :meth:`Materializer.flush` writes what the files
lack.  A crash anywhere leaves gaps that are filled in order, exactly once.

The engine is also what the services are given to reach storage (see
:mod:`kairos.ports`): it is :class:`~kairos.ports.Commands`
(:meth:`Engine.execute`), its store is :class:`~kairos.ports.History`, and
:attr:`Engine.index` is :class:`~kairos.ports.Index`.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from itertools import islice
from typing import Any, TypeVar, cast
from uuid import UUID

from sqlalchemy.exc import DBAPIError

from kairos import clock, faults
from kairos.domain.encrypted import Encrypt, StreamDecrypt, decrypt_event, encrypting
from kairos.domain.events import (
    SYSTEM_AGENT,
    CheckpointSealed,
    DomainEvent,
    MemoryStream,
    Recorded,
)
from kairos.domain.kinds import EventType
from kairos.domain.sealing import FOLDER, checkpoint_file, checkpoint_text
from kairos.engine.follower import Follower
from kairos.engine.keyring import Keyring, Sealer
from kairos.engine.locks import dream_lock, file_lock, shared_lock_if_present, writer_lock
from kairos.engine.logmirror import LogMirror, Repair, past_the_end
from kairos.engine.sqlitefiles import read_only_uri, wal_is_empty
from kairos.engine.store import Conflict, Store
from kairos.errors import (
    BadInput,
    Inconsistent,
    KairosError,
    MemoryClosed,
    StorageFailed,
    TooManyWriters,
    WriteIncomplete,
    on_disk,
    one_line,
)
from kairos.home import write_durably
from kairos.ports import (
    Decrypter,
    Doc,
    Embedder,
    EmbedderUnavailable,
    FileRow,
    History,
    IndexRow,
    SearchScope,
)
from kairos.projections.indexer import Applicable, Indexer
from kairos.projections.materialize import Materializer
from kairos.projections.readmodel import ReadModel, create_read_engine
from kairos.projections.sealedsearch import SealedQueries
from kairos.projections.search import SearchQueries
from kairos.projections.vectors import Vectors

T = TypeVar("T")
PAGE = 1000
# Read-model transactions hold the database's write lock, which the next
# write waits for: small ones keep that wait short.
BATCH = 50
RETRIES = 5  # optimistic-concurrency retries before a command gives up
# How long a read-only open waits for a writer's follower to bring the read
# model up to the store before it says the read model lags.
READ_ONLY_WAIT = 2.0
# The advisory lock key of dream runs on PostgreSQL ("KAIR" in ASCII).
DREAM_LOCK_KEY = 0x4B414952
log = logging.getLogger("kairos")


def chunks(items: Iterator[Recorded], size: int = PAGE) -> Iterator[list[Recorded]]:
    while True:
        chunk = list(islice(items, size))
        if not chunk:
            return
        yield chunk


class _Ticket:
    """One command waiting in the group commit, and how it ended."""

    __slots__ = ("agent", "user", "command", "done", "result", "recorded", "error")

    def __init__(self, agent: str, user: str | None, command: Callable[[MemoryStream], Any]):
        self.agent, self.user, self.command = agent, user, command
        self.done = False
        self.result: Any = None
        self.recorded: Recorded | None = None
        self.error: BaseException | None = None

    def fail(self, error: BaseException) -> None:
        self.error, self.done = error, True


class Engine:
    """The write path of one home, and its read side kept in step.

    :param follow: run the background follower (False: the read side is
        brought up by reads, ``flush`` and ``close`` alone).
    """

    def __init__(self, home: str, url: str, *, follow: bool = True, read_only: bool = False,
                 key: bytes | None = None, embedder: Embedder | None = None,
                 keyring: Keyring | None = None):
        self.home = home
        self.keyring = keyring
        self.read_only = read_only
        self.store, immutable = self._open_store(url, read_only)
        try:
            uri = None
            if read_only and not self.store.is_postgres:
                uri = read_only_uri(url[len("sqlite:///"):], immutable=immutable)
            # A home that encrypts keeps the read model's text sealed (kairos.ports.Seal).
            seal = Sealer(keyring) if keyring is not None else None
            self.readmodel = ReadModel(create_read_engine(url, where=self.store.where,
                                                          read_only_uri=uri), seal)
            if not read_only:
                self.readmodel.migrate()
        except Exception:
            self.store.close()
            raise
        self.indexer = Indexer(keyring.decrypt if keyring is not None else None)
        # The history as the services read it: content decrypted.
        self.history: History = self.store if keyring is None else DecryptedHistory(
            self.store, keyring.decrypt, lambda: self.readmodel.erasures(None))
        self.mirror = LogMirror(os.path.join(home, "logs"), key)
        self.files = Materializer(home, self.readmodel, file_lock,
                                  enabled=keyring is None or not keyring.encrypts)
        self.embedder = embedder
        if seal is None:
            self.vectors = Vectors(self.readmodel.engine, SearchQueries(self.readmodel.engine),
                                   read_only=read_only)
        else:  # a sealed read model is searched in memory (kairos.projections.sealedsearch)
            self.vectors = Vectors(self.readmodel.engine,
                                   SealedQueries(self.readmodel.engine, self.readmodel.sealing),
                                   read_only=read_only, digest=seal.digest)
        self.follower = Follower(self._bring_up, self.files.flush,
                                 self._embed_later if embedder is not None else None
                                 ) if follow and not read_only else None
        self.index = FreshIndex(self)
        self.search_index = FreshSearch(self)
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
        # The group commit (execute): commands queued, and the lock whose
        # holder commits every queued command at once.
        self._queue: list[_Ticket] = []
        self._batching = threading.Condition()
        self._committing = False
        # Held by an embedding round and by a rebuild (which sets _holding to
        # make a round in progress stop early).
        self._embed_lock = threading.Lock()
        self._holding = False
        self.repairs: list[Repair] = []
        self.closed = False

    @staticmethod
    def _open_store(url: str, read_only: bool) -> tuple[Store, bool]:
        """The store; read-only on SQLite, ``mode=ro`` first, then — when that
        failed for want of a ``-shm`` it could not create (a full disk) —
        ``immutable=1`` (see :func:`kairos.engine.sqlitefiles.read_only_uri`)."""
        try:
            return Store(url, read_only=read_only), False
        except StorageFailed:
            if not (read_only and url.startswith("sqlite:///")
                    and wal_is_empty(url[len("sqlite:///"):])):
                raise
            return Store(url, read_only=True, immutable=True), True

    def close(self) -> None:
        """Stop the follower and finish its work (unless the home was opened
        read-only and never written: then nothing is written on close)."""
        if self.closed:
            return
        self.closed = True
        if self.follower is not None:
            self.follower.stop()
        if self.synced is not None:
            try:
                self._bring_up()
                self.files.flush()
            except (OSError, KairosError) as e:  # derived: the next open catches up
                log.warning("could not bring the read side up to date: %s", e)
        try:
            self.readmodel.close()
        finally:
            self.store.close()

    @contextmanager
    def read_side_held(self) -> Iterator[ReadModel]:
        """The read model, with neither the follower (its embedding too) nor
        any flush (of this process or another) touching it or the files: for
        a rebuild."""
        self._holding = True  # an embedding in progress stops after its page
        try:
            with self._embed_lock, self._apply_lock, self.files.locked():
                yield self.readmodel
        finally:
            self._holding = False

    def flush(self) -> int:
        """Bring the read model and the materialized files up to the store
        now; return how many files were written.

        :raises ReadSideFailed: the follower failed since the last read.
        """
        self.fresh()
        return self.files.flush()

    # -- locks -------------------------------------------------------------------
    def writer_lock(self) -> AbstractContextManager[bool]:
        return writer_lock(self.home)

    def dream_lock(self) -> AbstractContextManager[bool]:
        """One nightly run per home: PostgreSQL's advisory lock on a
        PostgreSQL home (one per database), a file lock on an SQLite home;
        both released by the system when the process dies.  Yields whether
        this process got it."""
        if self.store.is_postgres:
            return self.readmodel.advisory_lock(DREAM_LOCK_KEY)
        return dream_lock(self.home)

    # -- recovery ----------------------------------------------------------------
    def logs_ahead(self) -> tuple[int, int] | None:
        """(logged, stored) positions when the logs hold events the store lacks."""
        tail = self.mirror.current_tail()
        stored = self.store.max_position()
        return (tail.position, stored) if tail.position > stored else None

    def check(self) -> None:
        """The checks of :meth:`recover`, repairing nothing (a read-only open).

        :raises Inconsistent: as :meth:`recover` does.
        """
        self.mirror.scan_tail(repair=False)
        self._check_tail()
        if self.rebuild_unfinished():  # its read model may lack rows, indexes, retractions
            raise Inconsistent("the read model is incomplete: a rebuild did not finish "
                               "(a command that opens the home for writing redoes it; "
                               "or run `kairos rebuild`)")

    def rebuild_unfinished(self) -> bool:
        """Whether a rebuild began and did not finish (its process died, or
        it failed early).  One under way, which holds the writers' lock, is
        waited for first.  (Not with the writers' lock held: it is taken.)"""
        if not self.readmodel.rebuild_unfinished():
            return False
        with shared_lock_if_present(os.path.join(self.home, ".kairos.lock")):
            return self.readmodel.rebuild_unfinished()

    def recover(self) -> None:
        """Repair a torn log tail and fill every gap (call with the lock held).

        :raises Inconsistent: when the logs are ahead of the store (restore it
            with ``rebuild --from-logs``) or the last logged entry is not the
            store's event at that position.
        """
        self.recover_logs()
        self._bring_up()
        self.complete_seals()
        self.files.flush()

    def recover_logs(self) -> None:
        """The log half of :meth:`recover`: a torn tail repaired, the checks,
        the missing entries appended.  A rebuild runs this alone, since it
        re-derives the read side from scratch next (bringing it up first
        would apply every event twice)."""
        self.repairs.extend(self.mirror.scan_tail())
        self._check_tail()
        self.catch_up()

    def _check_tail(self) -> None:
        ahead = self.logs_ahead()
        if ahead is not None:
            if ahead[1] == 0:  # the database was lost: the logs restore it
                raise Inconsistent(
                    f"the store is empty but the logs hold events up to position {ahead[0]}: "
                    "restore the store with `kairos rebuild --from-logs`")
            raise Inconsistent(past_the_end(self.mirror, ahead[1]))
        tail = self.mirror.current_tail()
        if tail.position:
            stored = next(self.store.read(after=tail.position - 1, upto=tail.position), None)
            if stored is None or stored.event.hash != tail.last_hash:
                raise Inconsistent(
                    f"the last log entry (position {tail.position}) is not the store's event "
                    "at that position: run `kairos verify`"
                )

    def complete_seals(self) -> None:
        """Write the checkpoint file of the home's last seal if it is missing
        (a seal that crashed between its commit and its file): the file is a
        function of its event (:mod:`kairos.domain.sealing`)."""
        stream_id = MemoryStream.stream_id(SYSTEM_AGENT, None)
        stream = self.store.get(stream_id)
        if stream is None:
            return
        last = self.store.stream(stream_id, after_version=stream.version - 1)
        if not last or not isinstance(last[0], CheckpointSealed):
            return
        event = last[0]
        name, _ = checkpoint_file(event, 0)
        path = os.path.join(self.home, FOLDER, name)
        if os.path.exists(path):
            return
        row = self.readmodel.event(event.event_id)  # brought up to the store by the caller
        if row is None:
            return
        _, data = checkpoint_file(event, row["position"])
        with on_disk(path):
            write_durably(path, checkpoint_text(data).encode("utf-8"))

    def catch_up(self) -> None:
        """Append the log entries of every stored event after the last logged
        one, in order (lock held); the read side follows."""
        self.repairs.extend(self.mirror.scan_tail())
        log_pos = self.mirror.current_tail().position
        for chunk in chunks(self.store.read(after=log_pos)):
            self.mirror.write(self.mirror.plan(chunk))
        self.synced = self.store.max_position()
        if self.synced > log_pos:
            self._notify()

    # -- the read model ------------------------------------------------------------
    def fresh(self) -> None:
        """Apply to the read model every stored event it lacks (before a read).

        :raises ReadSideFailed: the follower failed since the last read.
        """
        if self.follower is not None:
            self.follower.raise_failure()
        self._bring_up()

    def _bring_up(self) -> None:
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
        if self.read_only:
            self._await_read_model(stored)
            return
        with self._apply_lock:
            while True:  # again when another process moved the read model meanwhile
                at = self.readmodel.position()
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
                    pages: Iterable[Sequence[Applicable]] = [
                        [r for _, batch, _ in pending for r in batch]]
                else:
                    pages = chunks(self.store.read(after=at))
                self._apply(pages, where, at)

    def lags(self) -> bool:
        """Whether the read model lacks events the store holds."""
        return self.readmodel.position() < self.store.max_position()

    def _await_read_model(self, stored: int) -> None:
        """A read-only open cannot apply events: wait a moment for the writer
        that committed them (its follower applies them within milliseconds).

        :raises Inconsistent: the read model still lags the store (a writer
            stopped before bringing it up): a writable open repairs it.
        """
        deadline = time.monotonic() + READ_ONLY_WAIT
        while True:
            at = self.readmodel.position()
            if at >= stored:
                self.applied = at
                return
            if time.monotonic() >= deadline:
                raise Inconsistent(
                    f"the read model is at position {at} but the store at {stored}, and this "
                    "home was opened read-only: a writer stopped before bringing it up; any "
                    "command that writes (or `kairos rebuild`) completes it")
            time.sleep(0.02)

    def _apply(self, pages: Iterable[Sequence[Applicable]], where: dict[int, tuple[str, int]],
               at: int) -> None:
        """Apply pages of events that follow position ``at``, in small
        transactions; stop when another process got there first."""
        for page in pages:
            missing = {r.position for r in page} - where.keys()
            if missing:
                where.update(self.mirror.locate(missing))
            for batch in (page[i:i + BATCH] for i in range(0, len(page), BATCH)):
                # Worked out first, written after: the store's writer waits
                # for the write lock only while the rows are written.
                with self.readmodel.reading() as reader:
                    planned = self.indexer.plan(reader, batch, where)
                if planned is None:
                    continue
                with self._db_write, self.readmodel.transaction() as writer:
                    done = self.indexer.write(writer, planned, expect=at)
                if not done:
                    return
                at = batch[-1].position
                self.applied = max(self.applied, at)

    def _embed_later(self, stop: Callable[[], bool]) -> int:
        """The follower's round: skipped, not queued, while a rebuild holds
        the read side or another round runs (the next round catches up)."""
        return self.embed(stop, wait=False)

    def embed(self, stop: Callable[[], bool] = lambda: False, *, wait: bool = True) -> int:
        """Embed what the read model holds and the vector cache lacks (the
        follower's last step, off the write path); return how many texts were
        embedded.  A failing embedder is logged (by :class:`Guarded`) and
        tried again in a later round: never raised to a writer or a reader.
        Without ``wait``, return 0 at once when a rebuild or another round
        holds the embedding lock."""
        if self.embedder is None or not self._embed_lock.acquire(blocking=wait):
            return 0
        try:
            return self.vectors.catch_up(self.embedder, self.readmodel.position(),
                                         lambda: self._holding or stop())
        except EmbedderUnavailable:
            return 0
        except DBAPIError as e:  # another process rebuilding the read model, say
            log.warning("embedding stopped, to be tried again: %s", e)
            return 0
        finally:
            self._embed_lock.release()

    # -- the write path --------------------------------------------------------------
    def execute(self, agent: str, user: str | None, command: Callable[[MemoryStream], T],
                then: Callable[[], None] | None = None) -> tuple[Recorded, T]:
        """Load the stream (or open it), run ``command(stream)``, save, under
        the writer lock; a conflict (another writer took the version) reloads
        and runs the command again, so its checks see the new state.

        ``then`` runs after the commit, the lock still held (an erasure
        destroys the keys before any other writer can use them).

        :raises MemoryClosed: after :meth:`close`.
        :raises TooManyWriters: after :data:`RETRIES` conflicts.
        (And whatever the command raises: then nothing is recorded.)
        """
        if self.closed:
            raise MemoryClosed("this Memory is closed")
        if self.read_only:
            raise BadInput("this home was opened read-only: open it without read_only to write")
        if then is not None:
            return self._execute_one(agent, user, command, then)
        return self._grouped(agent, user, command)

    # -- group commit ----------------------------------------------------------------
    def _grouped(self, agent: str, user: str | None, command: Callable[[MemoryStream], T]
                 ) -> tuple[Recorded, T]:
        """:meth:`execute` through the group commit: the command joins the
        queue; while no batch is being committed, one waiting thread takes
        the queue — at most one command per stream — and commits it in one
        store transaction and one log append and fsync, while the threads
        that come meanwhile queue for the next batch.  Every thread returns
        once its own event is durable in both, or with its own command's
        error.  Alone, a command takes the plain path (:meth:`_execute_one`).

        One command per stream: a command reads its stream's history from
        the store (an approval replays it), which holds nothing of another
        command's events pending in the same batch."""
        ticket = _Ticket(agent, user, command)
        with self._batching:
            self._queue.append(ticket)
        while True:
            with self._batching:
                while not ticket.done and self._committing:
                    self._batching.wait()
                if ticket.done:
                    break
                self._committing = True
                batch, streams, rest = [], set(), []
                for t in self._queue:
                    if (t.agent, t.user) in streams:
                        rest.append(t)
                    else:
                        streams.add((t.agent, t.user))
                        batch.append(t)
                self._queue = rest
            try:
                self._run_batch(batch)
            finally:
                with self._batching:
                    self._committing = False
                    self._batching.notify_all()
        if ticket.error is not None:
            raise ticket.error
        assert ticket.recorded is not None
        return ticket.recorded, ticket.result

    def _run_batch(self, batch: list[_Ticket]) -> None:
        if len(batch) == 1:
            self._run_alone(batch[0])
            return
        again: list[_Ticket] = []
        try:
            with self.writer_lock():
                again = self._commit_batch(batch)
        except BaseException as e:  # the writer lock itself failed: nothing ran
            for t in batch:
                if not t.done:
                    t.fail(e)
        for t in again:  # a conflict with another process: each on its own
            self._run_alone(t)

    def _run_alone(self, t: _Ticket) -> None:
        try:
            t.recorded, t.result = self._execute_one(t.agent, t.user, t.command, None)
        except BaseException as e:
            t.fail(e)
        t.done = True

    def _commit_batch(self, batch: list[_Ticket]) -> list[_Ticket]:
        """Run the commands (one per stream) and commit what they recorded
        (writer lock held); return the tickets to run again on their own:
        the batch met a conflict with another process, and nothing of it
        was recorded."""
        streams: dict[tuple[str, str | None], MemoryStream] = {}
        ran: list[tuple[_Ticket, MemoryStream]] = []
        try:
            for t in batch:
                key = (t.agent, t.user)
                stream: MemoryStream | None = None
                try:
                    stream = self._load(t.agent, t.user)
                    new = stream is None
                    if stream is None:
                        stream = MemoryStream.open(t.agent, t.user, clock.now())
                    with encrypting(self._encryptor(t.agent, stream)):
                        t.result = t.command(stream)
                except BaseException as e:
                    t.fail(e)
                    if stream is not None:
                        self.store.evict(stream.id)  # whatever it holds is not to be saved
                    continue
                if not stream.pending_events or (new and len(stream.pending_events) == 1):
                    self.store.evict(stream.id)
                    t.fail(BadInput("the command recorded nothing"))
                    continue
                streams[key] = stream
                ran.append((t, stream))
            if not ran:
                return []
            try:
                recorded = self.commit_many(list(streams.values()))
            except Conflict:
                return [t for t, _ in ran]
            except WriteIncomplete as e:  # committed: each caller is told of its own event
                recorded = getattr(e, "recorded", [])
                for t, stream in ran:
                    mine = [r for r in recorded if r.event.originator_id == stream.id]
                    t.fail(self._incomplete(mine[-1].event.event_id, mine[-1].position, e)
                           if mine else e)
                return []
            except BaseException as e:  # nothing was committed (the store refused)
                for t, _ in ran:
                    t.fail(e)
                return []
        except BaseException:
            for stream in streams.values():  # never saved: drop what they hold
                self.store.evict(stream.id)
            raise
        for t, stream in ran:
            mine = [r for r in recorded if r.event.originator_id == stream.id]
            t.recorded, t.done = mine[-1], True
        return []

    def _execute_one(self, agent: str, user: str | None, command: Callable[[MemoryStream], T],
                     then: Callable[[], None] | None) -> tuple[Recorded, T]:
        with self.writer_lock():
            for _ in range(RETRIES):
                stream = self._load(agent, user) or MemoryStream.open(agent, user, clock.now())
                try:
                    with encrypting(self._encryptor(agent, stream)):
                        result = command(stream)
                except BaseException:
                    # The cache holds the very object the command may have
                    # changed: drop it, so the next load reads the store.
                    self.store.evict(stream.id)
                    raise
                try:
                    recorded = self.commit(stream)
                except Conflict:
                    continue
                if then is not None:
                    then()
                return recorded[-1], result
        raise TooManyWriters(f"could not write to {agent}/{user}: too many concurrent writers")

    def _encryptor(self, agent: str, stream: MemoryStream) -> Encrypt | None:
        """How a command encrypts content for this stream: None in a home
        that does not encrypt, and for the home's own stream (checkpoints
        carry no memory); never under a key an erasure destroyed."""
        if self.keyring is None or not self.keyring.encrypts or agent == SYSTEM_AGENT:
            return None
        return self.keyring.encryptor(stream.id, getattr(stream, "erased_keys", ()))

    def commit(self, stream: MemoryStream) -> list[Recorded]:
        """Save a stream's pending events and append their log entries (lock
        held); the read side follows.

        :raises kairos.engine.store.Conflict: when another writer took the version.
        """
        return self.commit_many([stream])

    def commit_many(self, streams: list[MemoryStream]) -> list[Recorded]:
        """:meth:`commit` for several streams at once: one transaction, one
        log append (a group commit)."""
        with self._db_write:
            recorded = self.store.save(*streams)
        faults.point("after-store-commit")
        before = recorded[0].position - 1
        try:
            if self.synced == before and self.mirror.tail_is_current(before):
                plan = self.mirror.plan(recorded)
                self.mirror.write(plan)
                self.synced = recorded[-1].position
                with self._pending_lock:
                    self._pending.append((before, recorded, plan.where))
                faults.point("after-log-append")
                self._notify()
            else:  # someone else wrote (or died) since this process did: in order
                self.catch_up()
        except Exception as e:
            last = recorded[-1]
            incomplete = self._incomplete(last.event.event_id, last.position, e)
            incomplete.recorded = recorded  # type: ignore[attr-defined]  # a batch's, each its own
            raise incomplete from e
        return recorded

    def _incomplete(self, event_id: str, position: int, cause: BaseException) -> WriteIncomplete:
        """The event is committed but its log entry is not (a full or
        read-only disk): forget the cached log tail, so that the next write or
        open reads the logs again and appends what they lack."""
        self.mirror.tail = None
        self.synced = None
        return WriteIncomplete(
            f"the write WAS saved, as event {event_id} at position {position}, "
            f"but its log entry could not be appended ({one_line(cause)}); the log is "
            "completed on the next write or open (retry with the same idempotency key: "
            "nothing is written twice)", event_id, position)

    def complete_log(self, event_id: str, position: int) -> None:
        """Append whatever the logs lack (after a retry found its write
        recorded already: the first attempt may have failed before its log
        entry).  :raises WriteIncomplete: naming the event, when they still cannot."""
        with self.writer_lock():
            if self.synced is not None and self.mirror.tail_is_current(self.synced):
                return
            try:
                self.catch_up()
            except Exception as e:
                raise self._incomplete(event_id, position, e) from e

    def key_event(self, stream_id: UUID, key: str) -> str | None:
        """The write of a stream that carried an idempotency key (lock held:
        the read model, brought up to the store first, is exact)."""
        self._bring_up()
        return self.readmodel.key_event(str(stream_id), key)

    def _notify(self) -> None:
        if self.follower is not None:
            self.follower.notify()

    def _load(self, agent: str, user: str | None) -> MemoryStream | None:
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

    def lookup(self, event_id: str) -> DomainEvent | None:
        """An event by id, from the store (the index says where it is)."""
        row = self.index.event(event_id)
        if row is None:
            return None
        found = self.store.stream(UUID(row["stream_id"]), upto_version=row["version"],
                                  after_version=row["version"] - 1)
        return found[0] if found else None


class DecryptedHistory:
    """The store's events with their content decrypted (:class:`kairos.ports.History`),
    for the services of a home that encrypts.  Erased content is left out —
    both what no longer decrypts and everything of a stream recorded before
    its last ``SubjectErased``, whatever keys still exist (an erasure
    interrupted before its keys went, or a key another process still holds).
    """

    def __init__(self, store: Store, decrypt: StreamDecrypt,
                 erasures: Callable[[], dict[str, int]]):
        self.store = store
        self.decrypt = decrypt
        self.erasures = erasures  # stream id -> position of its last erasure (read model)

    def read(self, after: int = 0, upto: int | None = None) -> Iterator[Recorded]:
        decrypted = self.decrypter()
        for r in self.store.read(after, upto):
            yield Recorded(r.position, decrypted(r.event, r.position))

    def decrypter(self) -> Decrypter:
        """Decrypt events read elsewhere, given their positions (the
        erasures are looked up once, here)."""
        erasures = self.erasures()

        def decrypted(event: DomainEvent, position: int) -> DomainEvent:
            at = erasures.get(str(event.originator_id))
            return cast(DomainEvent, decrypt_event(event, self.decrypt,
                                                   erased=at is not None and position < at))
        return decrypted

    def stream(self, stream_id: UUID, upto_version: int | None = None) -> list[DomainEvent]:
        events = self.store.stream(stream_id)  # whole: a later erasure counts
        erased = max((e.originator_version for e in events if e.kind is EventType.ERASED),
                     default=0)
        return [cast(DomainEvent, decrypt_event(e, self.decrypt,
                                                erased=e.originator_version < erased))
                for e in events if upto_version is None or e.originator_version <= upto_version]

    def max_position(self) -> int:
        return self.store.max_position()


class FreshIndex:
    """The read model as the services query it (:class:`kairos.ports.Index`):
    each query first brings it up to every event in the store, so a read
    never misses an acknowledged write."""

    def __init__(self, engine: Engine):
        self._engine = engine
        self._model = engine.readmodel

    def event(self, event_id: str) -> IndexRow | None:
        self._engine.fresh()
        return self._model.event(event_id)

    def events(self, *, agent: str | None = None, user: str | None = None,
               pair_only: bool = False, file: str | None = None,
               types: Iterable[str] | None = None, stream_id: str | None = None,
               until: str | None = None, since: str | None = None, actor: str | None = None,
               session: str | None = None, grep: str | None = None,
               limit: int | None = None) -> list[IndexRow]:
        self._engine.fresh()
        return self._model.events(agent=agent, user=user, pair_only=pair_only, file=file,
                                  types=types, stream_id=stream_id, until=until, since=since,
                                  actor=actor, session=session, grep=grep, limit=limit)

    def file(self, agent: str, user: str | None, name: str) -> FileRow | None:
        self._engine.fresh()
        return self._model.file(agent, user, name)

    def files_of(self, agent: str, user: str | None) -> list[FileRow]:
        self._engine.fresh()
        return self._model.files_of(agent, user)

    def all_files(self) -> list[FileRow]:
        self._engine.fresh()
        return self._model.all_files()

    def pairs(self) -> list[tuple[str, str]]:
        self._engine.fresh()
        return self._model.pairs()

    def stream_version_at(self, agent: str, user: str | None, until: str) -> int:
        self._engine.fresh()
        return self._model.stream_version_at(agent, user, until)


class FreshSearch:
    """The search index as the search service queries it
    (:class:`kairos.ports.SearchIndex`): each query first brings the read
    model up to every event in the store."""

    def __init__(self, engine: Engine):
        self._engine = engine
        self._now = SearchNow(engine.vectors.queries, engine.vectors)  # one lines cache

    def now(self) -> SearchNow:
        self._engine.fresh()
        return self._now

    def lexical(self, scope: SearchScope, words: list[str], depth: int, *,
                prefix: bool = True) -> list[Doc]:
        return self.now().lexical(scope, words, depth, prefix=prefix)

    def substring(self, scope: SearchScope, words: list[str], depth: int) -> list[Doc]:
        return self.now().substring(scope, words, depth)

    def lines(self, scope: SearchScope) -> list[Doc]:
        return self.now().lines(scope)

    def docs(self, scope: SearchScope, keys: Iterable[int]) -> dict[int, Doc]:
        return self.now().docs(scope, keys)

    def nearest(self, scope: SearchScope, embedder: Embedder, vector: Any,
                depth: int) -> tuple[list[Doc], int]:
        return self.now().nearest(scope, embedder, vector, depth)


class SearchNow:
    """The search index as it stands, without first bringing it up: what
    :meth:`FreshSearch.now` hands one search after bringing it up once."""

    def __init__(self, queries: SearchQueries, vectors: Vectors):
        self._queries = queries
        self._vectors = vectors

    def now(self) -> SearchNow:
        return self

    def lexical(self, scope: SearchScope, words: list[str], depth: int, *,
                prefix: bool = True) -> list[Doc]:
        return self._queries.lexical(scope, words, depth, prefix=prefix)

    def substring(self, scope: SearchScope, words: list[str], depth: int) -> list[Doc]:
        return self._queries.substring(scope, words, depth)

    def lines(self, scope: SearchScope) -> list[Doc]:
        return self._queries.lines(scope)

    def docs(self, scope: SearchScope, keys: Iterable[int]) -> dict[int, Doc]:
        return self._queries.docs(scope, keys)

    def nearest(self, scope: SearchScope, embedder: Embedder, vector: Any,
                depth: int) -> tuple[list[Doc], int]:
        return self._vectors.nearest(scope, embedder, vector, depth)
