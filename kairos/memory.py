"""The Kairos Python API: :class:`Memory`, one home's memory engine.

``Memory`` opens the engine (the write path, :mod:`kairos.engine`) and
composes the services once, each over the ports it needs
(:mod:`kairos.ports`): ``dreams`` (:mod:`kairos.dream`), ``audit`` and
``checkpoints`` (:mod:`kairos.audit`), ``contexts`` and search
(:mod:`kairos.agent`).  Its own methods check their input completely, then
run one command on the stream (get, command, save): bad input raises
:class:`~kairos.errors.BadInput` and changes nothing, and the stream itself
refuses a command that breaks one of its rules.  Reads come from the read
model (never a replay of history); as-of reads fold the stream's events up
to the moment asked for.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kairos import clock
from kairos.domain.events import MODES, AlreadyWritten, MemoryStream, payload_of
from kairos.domain.files import FileSpec, check_scope, checked_scope, file_spec
from kairos.domain.fold import Segments, apply_to_file, fold, render, size, touched
from kairos.domain.hashing import format_time
from kairos.domain.ids import check_id
from kairos.domain.inputs import check_key, check_text, parse_day, parse_when
from kairos.domain.kinds import ACTORS, EventType
from kairos.domain.logformat import Entry, file_header, render_entry
from kairos.domain.logformat import parse_day as parse_log_day
from kairos.engine.engine import DecryptedHistory, Engine
from kairos.engine.keyring import Sealer, open_keyring
from kairos.engine.locks import writer_lock
from kairos.errors import BadInput, NotFound, disk_errors, on_disk
from kairos.home import (
    CONFIG,
    DEFAULT_CONFIG,
    check_home,
    load_entry_key,
    load_settings,
    resolve_home,
    store_url,
)
from kairos.ports import IndexRow, ReadResult, SearchResult, WriteResult
from kairos.progress import SILENT, Progress
from kairos.projections.embedders import make_embedder

if TYPE_CHECKING:
    from kairos.access.keys import Keys
    from kairos.agent.context import Contexts
    from kairos.agent.search import Search
    from kairos.audit.checkpoints import CheckpointCheck, Checkpoints
    from kairos.audit.trace import Audit
    from kairos.dream.service import Dreams
    from kairos.engine.erasure import Erasure
    from kairos.engine.rebuild import RebuildReport
    from kairos.engine.verify import Report

__all__ = ["Memory", "ReadResult", "WriteResult", "check_text", "parse_when"]


log = logging.getLogger("kairos")


@disk_errors
def _finish_rebuild(engine: Engine) -> None:
    """Redo the read side's rebuild that a process began and did not finish
    (it died, or failed before the read model was whole), and say so: what
    it repaired is named as a ``kairos rebuild`` would name it."""
    from kairos.engine.rebuild import RebuildReport, rebuild_projections

    report = RebuildReport()
    engine.recover_logs()  # then the read side, from scratch
    rebuild_projections(engine, report)
    repaired = [f"{r['table']} {r['row']}: {r['status']}" for r in report.rows] + [
        f"{c['file']}: {c['status']}" for c in report.changed]
    log.warning("kairos: a rebuild of the read side had not finished; it was redone on open "
                "(%d events)%s", report.events,
                "; repaired: " + "; ".join(repaired[:20]) + (" …" if len(repaired) > 20 else "")
                if repaired else "")


class Memory:
    """The memory engine of one home.

    >>> mem = Memory.init("/tmp/home")                       # doctest: +SKIP
    >>> mem.write("ada", "MEMORY.md", "Sam prefers tea", user="sam")  # doctest: +SKIP

    :param home: the home directory (default: ``KAIROS_HOME``, else the cwd).
    :param db: the store URL (default: ``KAIROS_DATABASE_URL``, the home's
        settings, else ``sqlite:///<home>/kairos.db``).
    :param recover: repair and catch up on open (``verify`` opens without).
    :param follow: bring the read side up in a background thread after each
        write (False: reads, ``flush`` and ``close`` do it; writes do not).
    :param read_only: write nothing to the home or the store — no lock file,
        no migrations, no repairs, no follower, no files; SQLite opened
        read-only — so a home on read-only media, or without write
        permission, can be read and verified.  Writes raise
        :class:`~kairos.errors.BadInput`.
    :raises NotAHome: when ``home`` is not a Kairos home.
    :raises StoreUnavailable: when the store cannot be reached.
    :raises StorageFailed: the home's storage refused (full, read-only, no permission).
    :raises Inconsistent: when logs and store disagree (see :meth:`rebuild`).
    """

    def __init__(self, home: str | None = None, db: str | None = None, *,
                 recover: bool = True, follow: bool = True, read_only: bool = False):
        self.home = resolve_home(home)
        check_home(self.home)
        self.settings = load_settings(self.home)
        self.url = store_url(self.home, db, self.settings)
        self.embedder = make_embedder(self.settings.search)
        self.entry_key = load_entry_key(self.home, self.settings)
        self.keyring = open_keyring(self.home, self.settings)
        self.read_only = read_only
        self.engine = self._open(recover, follow)

    # The services are built, and their modules imported, on first use: a
    # command that reads or writes one file (an agent's tool call, a cron
    # line) does not load the dream's distillers or the audit's Merkle code.
    @functools.cached_property
    def dreams(self) -> Dreams:
        from kairos.dream.service import Dreams

        engine = self.engine
        return Dreams(engine, engine.history, engine.index, self.settings, engine.dream_lock)

    @functools.cached_property
    def contexts(self) -> Contexts:
        from kairos.agent.context import Contexts

        return Contexts(self)

    @functools.cached_property
    def audit(self) -> Audit:
        from kairos.audit.trace import Audit

        history = self.engine.history
        return Audit(self.engine.index, history, self, self.contexts, self.home,
                     stored=self.engine.store, decrypter=history.decrypter
                     if isinstance(history, DecryptedHistory) else None)

    @functools.cached_property
    def keys(self) -> Keys:
        """The API keys of ``kairos serve`` (:mod:`kairos.access.keys`)."""
        from kairos.access.keys import Keys

        return Keys(self.engine, self.engine.history)

    @functools.cached_property
    def checkpoints(self) -> Checkpoints:
        from kairos.audit.checkpoints import Checkpoints

        return Checkpoints(self.engine, self.engine.store, self.home)

    @functools.cached_property
    def _search(self) -> Search:
        from kairos.agent.search import Search

        return Search(self.engine.search_index, self.embedder,
                      self.settings.search.min_similarity)

    def _open(self, recover: bool, follow: bool) -> Engine:
        if self.read_only:
            engine = Engine(self.home, self.url, read_only=True, key=self.entry_key,
                            keyring=self.keyring)
            if recover:
                try:
                    engine.check()
                except BaseException:
                    engine.close()
                    raise
            return engine
        # Opening creates tables (the library's and the read model's) on first
        # use: under the writer lock, so processes opening at once do not race.
        with writer_lock(self.home):
            engine = Engine(self.home, self.url, follow=follow, key=self.entry_key,
                            embedder=self.embedder, keyring=self.keyring)
            if recover:
                try:
                    if engine.readmodel.rebuild_unfinished():  # one died, or failed early
                        _finish_rebuild(engine)
                    engine.recover()
                except BaseException:
                    engine.close()
                    raise
        return engine

    @classmethod
    def init(cls, home: str | None = None, db: str | None = None) -> Memory:
        """Create a home (idempotent): settings file, logs folder, store tables."""
        path = resolve_home(home)
        if os.path.exists(path) and not os.path.isdir(path):
            raise BadInput(f"cannot create a home at {path}: it is a file")
        with on_disk(path):
            os.makedirs(os.path.join(path, "logs"), exist_ok=True)
            config = os.path.join(path, CONFIG)
            if not os.path.exists(config):
                with open(config, "w", encoding="utf-8") as f:
                    f.write(DEFAULT_CONFIG)
        return cls(path, db)

    def close(self) -> None:
        """Bring the read model and the materialized files up to the last
        write (the follower's pending work), then release the store."""
        self.engine.close()

    def flush(self) -> int:
        """Bring the materialized files (``memory/…``) up to date now.

        Writes return once the event is in the store and the logs; the read
        model (which every read brings up to date first) and the files follow
        within moments, from a background thread.  Call this when something
        is about to read the files themselves.  Returns how many files were
        written.
        :raises ReadSideFailed: the background follower failed since the last read.
        """
        return self.engine.flush()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- helpers -----------------------------------------------------------------
    def limit_of(self, spec: FileSpec) -> int:
        return self.settings.limit_of(spec)

    @staticmethod
    def _scope(agent: str, user: str | None, file: str | None) -> FileSpec:
        return checked_scope(agent, user, file)

    @staticmethod
    def _actor(actor: str, session: str | None) -> None:
        if actor not in ACTORS:
            raise BadInput(f"unknown actor {actor!r}: use one of {', '.join(ACTORS)}")
        if session is not None:
            check_id(session, "session")

    # -- commands ------------------------------------------------------------------
    def write(self, agent: str, file: str, text: str | bytes, *, user: str | None = None,
              mode: str = "append", actor: str = "agent", session: str | None = None,
              idempotency_key: str | None = None) -> WriteResult:
        """Record a memory write: ``append`` adds a line, ``replace`` sets the file.

        ``idempotency_key``: the caller's name for this write (a tool call's
        id).  A write whose key this stream recorded already is a retry: it
        writes nothing and returns the original write's result (same event
        id and position), whatever its arguments.
        :raises BadInput: unknown file, wrong scope, invalid id or key, empty,
            non-UTF-8 or oversized text (``[limits] max_write``), a NUL, or a
            result over the file's hard limit or its ceiling.  Nothing is written.
        :raises WriteIncomplete: the event WAS saved (the error names it) but its
            log entry could not be appended: the next write or open completes it.
        :raises StorageFailed: the store or the logs refused the write (full,
            read-only, no permission, unreachable); nothing was saved.
        """
        spec = self._scope(agent, user, file)
        checked = check_text(text, limit=self.settings.max_write)
        if mode not in MODES:
            raise BadInput(f"unknown mode {mode!r}: use append or replace")
        self._actor(actor, session)
        key = None if idempotency_key is None else check_key(idempotency_key)
        limit = self.limit_of(spec)
        stream_id = MemoryStream.stream_id(agent, user)
        try:
            rec, size_after = self.engine.execute(agent, user, lambda stream: stream.write(
                spec.name, checked, mode, actor, session, clock.now(),
                limit=limit if spec.hard else None, ceiling=self.settings.ceiling_of(spec),
                key=key, recorded_key=lambda k: self.engine.key_event(stream_id, k)))
        except AlreadyWritten as e:
            return self._original(agent, user, e.event_id)
        return WriteResult(rec.event.event_id, rec.position, EventType.WRITTEN.value, agent, user,
                           spec.name, size_after, limit, size_after > limit)

    def _original(self, agent: str, user: str | None, event_id: str) -> WriteResult:
        """The result a write returned, rebuilt for its retry: its event, and
        the size of its file just after it (the stream folded up to it)."""
        row = self.engine.index.event(event_id)
        if row is None:  # the index is brought up to the store: it cannot lack it
            raise NotFound(f"no event {event_id}")
        self.engine.complete_log(event_id, row["position"])
        spec = file_spec(row["file"])
        limit = self.limit_of(spec)
        events = self.engine.history.stream(MemoryStream.stream_id(agent, user),
                                            upto_version=row["version"])
        size_after = size(render(fold(events).get(spec.name)))
        return WriteResult(event_id, row["position"], EventType.WRITTEN.value, agent, user,
                           spec.name, size_after, limit, size_after > limit)

    def retract(self, agent: str, file: str, event_ids: list[str], *, reason: str,
                user: str | None = None, actor: str = "user",
                session: str | None = None) -> WriteResult:
        """Withdraw earlier writes of a file; the history keeps them.

        :raises BadInput: when an id is unknown, belongs to another scope or file,
            is not a write, or was already retracted; or the reason is empty.
        """
        spec = self._scope(agent, user, file)
        checked = check_text(reason, "reason", limit=self.settings.max_write)
        if not event_ids:
            raise BadInput("name at least one event id to retract")
        if len(set(event_ids)) != len(event_ids):
            raise BadInput("an event id is named twice")
        self._actor(actor, session)
        rec, _ = self.engine.execute(agent, user, lambda stream: stream.retract(
            spec.name, event_ids, checked, actor, session, clock.now(), self.engine.lookup))
        return WriteResult(rec.event.event_id, rec.position, EventType.RETRACTED.value, agent,
                           user, spec.name)

    def end_session(self, agent: str, user: str, *, session: str | None = None,
                    notes: str | bytes | None = None, actor: str = "system") -> WriteResult:
        """Record that a session of the pair ended (the nightly dream counts these)."""
        check_id(agent, "agent")
        check_id(user, "user")
        checked = None if notes is None else check_text(notes, "notes",
                                                        limit=self.settings.max_write)
        self._actor(actor, session)
        rec, _ = self.engine.execute(agent, user, lambda stream: stream.end_session(
            session, actor, checked, clock.now()))
        return WriteResult(rec.event.event_id, rec.position, EventType.SESSION_ENDED.value,
                           agent, user, None)

    # -- queries ---------------------------------------------------------------------
    def read(self, agent: str, file: str, *, user: str | None = None,
             as_of: str | datetime | None = None, version: int | None = None,
             stream_version: int | None = None) -> ReadResult:
        """Read a memory file: now, as of a moment (``as_of``), as a published
        dream version showed it (``version``; 0 is the plain fold of the raw
        writes), or as of a version of its stream (``stream_version``).

        An absent file is not an error: ``content`` is None.
        :raises BadInput: bad scope or ids, an unparsable date, more than one
            of ``as_of``, ``version`` and ``stream_version``, or a negative number.
        :raises NotFound: no such dream version.
        """
        spec = self._scope(agent, user, file)
        limit = self.limit_of(spec)
        if sum(x is not None for x in (as_of, version, stream_version)) > 1:
            raise BadInput("give only one of --as-of, --version and --stream-version")
        if version is not None and (not isinstance(version, int) or version < 0):
            raise BadInput("version must be a non-negative integer")
        if stream_version is not None and (not isinstance(stream_version, int)
                                           or stream_version < 1):
            raise BadInput("stream version must be a positive integer")
        shown = None
        if version is not None:
            content = self.dreams.read_version(agent, user, spec.name, version)
        elif as_of is None and stream_version is None:
            if self.read_only and self.engine.lags():
                content, at = self._folded_now(agent, user, spec.name)
                return ReadResult(agent, user, spec.name, content, size(content or ""), limit,
                                  spec.hard, at)
            row = self.engine.index.file(agent, user, spec.name)
            return ReadResult(agent, user, spec.name, row.content if row else None,
                              size(row.content if row else ""), limit, spec.hard,
                              row.version if row else None)
        else:
            if as_of is not None:
                shown = format_time(parse_when(as_of))
                stream_version = self.engine.index.stream_version_at(agent, user, shown)
            events = (self.engine.history.stream(MemoryStream.stream_id(agent, user),
                                                 upto_version=stream_version)
                      if stream_version else [])
            content = render(fold(events).get(spec.name)) or None
        return ReadResult(agent, user, spec.name, content, size(content or ""), limit,
                          spec.hard, version if version is not None else stream_version, shown)

    def _folded_now(self, agent: str, user: str | None, name: str) -> tuple[str | None, int | None]:
        """A file now, folded from its stream (a read-only open whose read
        model lags the store cannot bring it up), and the version of the
        stream's last event that touched it."""
        at = None
        segments: Segments = []
        for event in self.engine.history.stream(MemoryStream.stream_id(agent, user)):
            if name in touched(event):
                segments = apply_to_file(segments, event, name)
                at = event.originator_version
        return render(segments) or None, at

    def forget(self, user: str, *, reason: str, by: str, agent: str | None = None,
               dry_run: bool = False) -> Erasure:
        """Erase a person: every pair of ``user`` (or the one with ``agent``).

        The pairs' data keys are destroyed, so nothing they recorded decrypts
        again; their files, lines, search index entries and embeddings are
        purged; a ``SubjectErased`` event in each pair says who, when, why and
        how much — never what.  No event and no log line changes, and every
        hash chain and checkpoint still verifies (:mod:`kairos.engine.erasure`).
        ``dry_run`` reports what would be erased and erases nothing.

        :raises BadInput: a bad id, an empty reason or name, a home that does
            not encrypt, or a pair with events recorded in clear.
        :raises NotFound: no pair of that user (and agent).
        """
        from kairos.engine.erasure import erase

        check_id(user, "user")
        if agent is not None:
            check_id(agent, "agent")
        reason = check_text(reason, "reason").strip()
        by = check_text(by, "by").strip()
        if any(not c.isprintable() for c in by) or len(by) > 128:
            raise BadInput("by must be a name on one line, at most 128 characters")
        if not dry_run and self.read_only:
            raise BadInput("this home was opened read-only: open it without read_only to erase")
        return erase(self.engine, user, agent, by=by, reason=reason, dry_run=dry_run)

    def rotate_master_key(self, new_key: bytes) -> int:
        """Wrap every data key with ``new_key`` (32 bytes); return how many.
        No event changes; afterwards only the new master key opens the home.

        :raises BadInput: the home does not encrypt, or the key is not 32 bytes.
        """
        if self.keyring is None:
            raise BadInput("this home holds no encryption keys: nothing to rotate")
        if len(new_key) != 32:
            raise BadInput("a master key is 32 bytes")
        with writer_lock(self.home):
            count = self.keyring.rewrap(new_key)
        # The embeddings are named by a digest keyed by the master key: they
        # are made again under the new one (kairos.engine.keyring.Sealer).
        self.engine.vectors.clear(Sealer(self.keyring).digest)
        return count

    def history(self, agent: str, *, user: str | None = None,
                file: str | None = None) -> list[IndexRow]:
        """The events of one scope (the agent's own stream, or one pair's), in order."""
        check_id(agent, "agent")
        if user is not None:
            check_id(user, "user")
        if file is not None:
            check_scope(file_spec(file), user)
        return self.engine.index.events(agent=agent, user=user, pair_only=True, file=file)

    def log(self, day: str | None = None, *, agent: str | None = None,
            user: str | None = None, decrypt: bool = False) -> str:
        """A day's log (today, UTC, by default), whole or only one scope's entries.

        With ``agent`` (and ``user``): only that agent's own entries (and that
        pair's), so one pair never reads another's log lines.  ``decrypt``:
        in a home that encrypts, the entries with their content decrypted
        (as the file holds them, the hashes cover it encrypted).
        :raises NotFound: when there is no log for that day.
        """
        day, text = self._day_text(day, agent, user)
        if agent is None and not decrypt:
            return text
        shown = self._shown(decrypt)
        return file_header(day) + "".join(
            render_entry(e.position, shown(e.event, e.position))
            for e in self._entries(day, text, agent, user))

    def log_entries(self, day: str | None = None, *, agent: str | None = None,
                    user: str | None = None, decrypt: bool = False) -> list[dict[str, Any]]:
        """The same entries as :meth:`log`, as dicts (with their line in the file)."""
        day, text = self._day_text(day, agent, user)
        rel = self.engine.mirror.relpath(self.engine.mirror.path_for(day))
        shown = self._shown(decrypt)
        return [{"position": e.position, "type": e.event.kind.value,
                 "time": format_time(e.event.timestamp), "stream": str(e.event.originator_id),
                 "version": e.event.originator_version, "event_id": e.event.event_id,
                 **payload_of(shown(e.event, e.position)), "prev": e.event.prev,
                 "hash": e.event.hash, "log_file": rel, "log_line": e.line}
                for e in self._entries(day, text, agent, user)]

    def _shown(self, decrypt: bool) -> Callable[[Any, int], Any]:
        """How a log shows an event at a position: decrypted when asked, in a
        home with keys; else as it is."""
        history = self.engine.history
        if not decrypt or not isinstance(history, DecryptedHistory):
            return lambda event, _position: event
        return history.decrypter()

    def _day_text(self, day: str | None, agent: str | None, user: str | None) -> tuple[str, str]:
        day = parse_day(day) if day else clock.now().date().isoformat()
        if user is not None and agent is None:
            raise BadInput("--user needs --agent")
        if agent is not None:
            check_id(agent, "agent")
        if user is not None:
            check_id(user, "user")
        try:
            with open(self.engine.mirror.path_for(day), encoding="utf-8", newline="") as f:
                return day, f.read()
        except FileNotFoundError:
            raise NotFound(f"no log for {day}") from None

    @staticmethod
    def _entries(day: str, text: str, agent: str | None, user: str | None) -> list[Entry]:
        return [e for e in parse_log_day(text, day)
                if agent is None or (e.event.agent == agent and e.event.user in (None, user))]

    def search(self, agent: str, query: str, *, user: str | None = None, limit: int = 10,
               file: str | None = None, since: str | datetime | None = None,
               include_retracted: bool = False) -> SearchResult:
        """Search an agent's own files (and, with ``user``, that pair's) and
        their history, best first.

        Words are matched stemmed (English), by prefix and, for compounds and
        CJK, as substrings; with an embedder configured (``[search]
        embeddings``), by meaning too, fused by reciprocal rank (see
        :mod:`kairos.agent.search`).  Current lines rank ahead of history at
        equal relevance, newer ahead of older, and a raw write its file no
        longer holds below what replaced it.  Retracted writes are never
        returned, except with ``include_retracted`` (an auditor's view, each
        hit marked).  ``file`` and ``since`` narrow the search.  The result's
        ``mode`` says whether meaning was used, and ``note`` why not.
        :raises BadInput: bad ids, file or time, a limit outside 1–100, or a
            query with no words.
        """
        when = format_time(parse_when(since, since=True)) if since is not None else None
        return self._search.search(agent, query, user=user, limit=limit, file=file,
                                   since=when, include_retracted=include_retracted)

    def files(self) -> list[dict[str, Any]]:
        """Every existing memory file of the home with its size (no contents)."""
        return [{"agent": r.agent, "user": r.user, "file": r.file, "size": size(r.content),
                 "limit": self.limit_of(file_spec(r.file)), "updated_at": r.updated_at}
                for r in self.engine.index.all_files()]

    def event(self, event_id: str) -> IndexRow:
        """One event of the index.  :raises NotFound: no such event."""
        row = self.engine.index.event(event_id)
        if row is None:
            raise NotFound(f"no event {event_id}")
        return row

    # -- operations ------------------------------------------------------------------
    def verify(self, progress: Progress = SILENT) -> Report:
        """Check every hash chain in the store and the logs, that they agree,
        that each log entry's MAC holds (with the entry key), and that the
        read model and the materialized files are the folds of the events.

        Read-only, and exact under load: it checks the cut it takes at its
        start (:func:`kairos.engine.verify.take_cut`), so writes landing
        meanwhile never raise a false alarm.  The report's first problem
        names the first bad entry, row or file; the search index is checked
        against the read model it derives from.  ``progress`` hears of each
        pass (:mod:`kairos.progress`).
        """
        from kairos.engine.verify import Problem, sort_problems, take_cut, verify
        from kairos.engine.verify_read import TRIES, verify_read_side
        from kairos.projections.search import check as check_search

        engine = self.engine
        cut = take_cut(engine.store, engine.mirror, os.path.join(self.home, ".kairos.lock"))
        try:
            report = verify(engine.store, engine.mirror, cut, self.entry_key, progress)
            if engine.rebuild_unfinished():  # its rows and indexes: not there to check
                report.add(Problem("read model", "a rebuild did not finish: its rows, indexes "
                                   "or retractions may be missing (the next writable open, or "
                                   "`kairos rebuild`, finishes it)"))
            else:
                verify_read_side(engine.history, engine.readmodel, engine.files, report,
                                 progress)
                # Checked at a moment no batch lands in (as the read side is):
                # writers go on meanwhile, and a torn view is no finding.
                for _ in range(TRIES):
                    at = engine.readmodel.position()
                    with engine.readmodel.engine.connect() as conn:
                        found = check_search(conn, engine.readmodel.sealing)
                    if engine.readmodel.position() == at:
                        for problem in found:
                            report.add(Problem("read model", problem))
                        break
                else:
                    report.notes.append("the search index was not checked: the read model "
                                        f"moved on during each of {TRIES} tries (writes in "
                                        "progress)")
        finally:
            progress.done()
        sort_problems(report)
        return report

    def rebuild(self, *, from_logs: bool = False, import_past_end: bool = False,
                progress: Progress = SILENT) -> RebuildReport:
        """Re-derive read models and files from the store, and repair the logs;
        report every read-model row and file it repaired.

        With ``from_logs``: first restore the store from the logs (the
        database was lost: an empty store takes every entry).  Entries past
        the end of a store that holds events are imported only with
        ``import_past_end`` (they may be forged: check them first).
        ``progress`` hears of each phase (:mod:`kairos.progress`).
        :raises VerificationFailed: a log entry fails its hash chain or its
            MAC (with ``from_logs``; nothing is imported).
        :raises Inconsistent: store and logs hold different histories, or the
            logs hold entries past a non-empty store's end (without
            ``import_past_end``).
        """
        if self.read_only:
            raise BadInput("this home was opened read-only: a rebuild writes")
        from kairos.engine.rebuild import rebuild

        try:
            return rebuild(self.engine, from_logs=from_logs, import_past_end=import_past_end,
                           key=self.entry_key, progress=progress)
        finally:
            progress.done()

    def seal(self, key: str | None = None, progress: Progress = SILENT) -> dict[str, Any]:
        """Record a checkpoint over every event so far, and write its file.

        ``key``: an Ed25519 private key (PEM) to sign it with (default:
        ``KAIROS_SIGNING_KEY``, else unsigned).  Returns the checkpoint.
        ``progress`` hears of the pass over every event.
        """
        try:
            return self.checkpoints.seal(key, progress)
        finally:
            progress.done()

    def verify_checkpoint(self, path: str, public_key: str | None = None,
                          progress: Progress = SILENT) -> CheckpointCheck:
        """Prove the current history extends the checkpoint in ``path``
        (one pass over every event: ``progress`` hears of it)."""
        try:
            return self.checkpoints.verify(path, public_key, progress)
        finally:
            progress.done()
