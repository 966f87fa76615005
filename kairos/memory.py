"""The Kairos Python API: :class:`Memory`, one home's memory engine.

Every method validates its input completely before it takes the writer lock,
so bad input raises :class:`~kairos.errors.BadInput` and changes nothing.
Reads come from the read model (never a replay of history); as-of reads fold
the stream's events up to the moment asked for.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from kairos import clock
from kairos.domain import ACTORS, MODES, SYSTEM_AGENT, MemoryStream, payload_of
from kairos.engine import Engine
from kairos.errors import BadInput, NotFound
from kairos.files import FileSpec, check_scope, file_spec
from kairos.hashing import format_time
from kairos.home import (
    CONFIG,
    DEFAULT_CONFIG,
    check_home,
    load_settings,
    resolve_home,
    store_url,
    writer_lock,
)
from kairos.ids import check_id
from kairos.logformat import Entry, file_header, render_entry
from kairos.logformat import parse_day as parse_log_day
from kairos.projections.fold import fold, render, size, size_after_write
from kairos.rebuild import RebuildReport, rebuild_projections, repair_logs, restore_store
from kairos.store import Conflict
from kairos.verify import Report, verify

if TYPE_CHECKING:
    from kairos.dreams import Dreams

RETRIES = 5  # optimistic-concurrency retries before a write gives up


@dataclass(frozen=True)
class WriteResult:
    """What a write, retraction or session end recorded."""

    event_id: str
    position: int
    type: str
    agent: str
    user: str | None
    file: str | None
    size: int | None = None
    limit: int | None = None
    over_limit: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ReadResult:
    """A memory file as read. ``content`` is None when the file does not exist;
    ``size`` counts its characters but the final newline (what limits count)."""

    agent: str
    user: str | None
    file: str
    content: str | None
    size: int
    limit: int
    hard_limit: bool
    version: int | None = None
    as_of: str | None = None

    @property
    def exists(self) -> bool:
        return self.content is not None

    @property
    def over_limit(self) -> bool:
        return self.size > self.limit

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "exists": self.exists, "over_limit": self.over_limit}


def check_text(text: str | bytes, what: str = "text") -> str:
    """Return the text as str, or raise :class:`BadInput` (empty, NUL, not UTF-8)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise BadInput(f"{what} is not valid UTF-8") from None
    if not isinstance(text, str):
        raise BadInput(f"{what} must be a string")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput(f"{what} is not valid UTF-8 (it holds a lone surrogate)") from None
    if "\x00" in text:
        raise BadInput(f"{what} contains a NUL character")
    if not text.strip():
        raise BadInput(f"{what} is empty")
    return text


def parse_when(value: str | datetime) -> datetime:
    """An ISO 8601 date or date-time; naive values are taken as UTC.

    :raises BadInput: when the value does not parse.
    """
    if isinstance(value, datetime):
        dt = value
    else:
        try:
            dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise BadInput(f"unparsable date {value!r}: use ISO 8601, e.g. 2026-11-02T09:00:00Z") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC)


def parse_day(value: str) -> str:
    try:
        return date.fromisoformat(value).isoformat()
    except ValueError:
        raise BadInput(f"unparsable date {value!r}: use YYYY-MM-DD") from None


class Memory:
    """The memory engine of one home.

    >>> mem = Memory.init("/tmp/home")                       # doctest: +SKIP
    >>> mem.write("ada", "MEMORY.md", "Sam prefers tea", user="sam")  # doctest: +SKIP

    :param home: the home directory (default: ``KAIROS_HOME``, else the cwd).
    :param db: the store URL (default: ``KAIROS_DATABASE_URL``, the home's
        settings, else ``sqlite:///<home>/kairos.db``).
    :raises NotAHome: when ``home`` is not a Kairos home.
    :raises StoreUnavailable: when the store cannot be reached.
    :raises Inconsistent: when logs and store disagree (see :meth:`rebuild`).
    """

    def __init__(self, home: str | None = None, db: str | None = None, *, recover: bool = True):
        self.home = resolve_home(home)
        check_home(self.home)
        self.settings = load_settings(self.home)
        self.url = store_url(self.home, db, self.settings)
        # Opening creates tables (the library's and the read model's) on first
        # use: under the writer lock, so processes opening at once do not race.
        with writer_lock(self.home):
            self.engine = Engine(self.home, self.url)
            if recover:
                try:
                    self.engine.recover()
                except BaseException:
                    self.engine.close()
                    raise

    @classmethod
    def init(cls, home: str | None = None, db: str | None = None) -> Memory:
        """Create a home (idempotent): settings file, logs folder, store tables."""
        path = resolve_home(home)
        if os.path.exists(path) and not os.path.isdir(path):
            raise BadInput(f"cannot create a home at {path}: it is a file")
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
        within moments, from a background thread.  Call
        this when something is about to read the files themselves.  Returns
        how many files were written.
        """
        self.engine.fresh()
        return self.engine.files.flush()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- helpers -----------------------------------------------------------------
    def limit_of(self, spec: FileSpec) -> int:
        return self.settings.limits.get(spec.name, spec.limit)

    def _scope(self, agent: str, user: str | None, file: str | None) -> FileSpec:
        check_id(agent, "agent")
        if user is not None:
            check_id(user, "user")
        spec = file_spec(file)
        check_scope(spec, user)
        return spec

    def _commit(self, agent: str, user: str | None, command: Any) -> Any:
        """Load the stream, run ``command(stream)``, save; retry on conflict."""
        with writer_lock(self.home):
            for _ in range(RETRIES):
                stream = self.engine.stream(agent, user) or MemoryStream.open(agent, user, clock.now())
                extra = command(stream)
                try:
                    recorded = self.engine.commit(stream)
                except Conflict:
                    continue
                return recorded[-1], extra
        raise BadInput(f"could not write to {agent}/{user}: too many concurrent writers")

    # -- commands ------------------------------------------------------------------
    def write(self, agent: str, file: str, text: str | bytes, *, user: str | None = None,
              mode: str = "append", actor: str = "agent", session: str | None = None) -> WriteResult:
        """Record a memory write: ``append`` adds a line, ``replace`` sets the file.

        :raises BadInput: unknown file, wrong scope, invalid id, empty or non-UTF-8
            text, a NUL, or a result over the file's hard limit.  Nothing is written.
        """
        spec = self._scope(agent, user, file)
        text = check_text(text)
        if mode not in MODES:
            raise BadInput(f"unknown mode {mode!r}: use append or replace")
        if actor not in ACTORS:
            raise BadInput(f"unknown actor {actor!r}: use one of {', '.join(ACTORS)}")
        if session is not None:
            check_id(session, "session")
        limit = self.limit_of(spec)

        def command(stream: MemoryStream) -> int:
            size = size_after_write(stream.files.get(spec.name, []), text, mode)
            if spec.hard and size > limit:
                raise BadInput(f"{spec.name} would be {size} chars, over its hard limit of "
                               f"{limit}: nothing written")
            stream.write(spec.name, text, mode, actor, session, clock.now())
            return size

        rec, size = self._commit(agent, user, command)
        return WriteResult(rec.event.event_id, rec.position, "MemoryWritten", agent, user,
                           spec.name, size, limit, size > limit)

    def retract(self, agent: str, file: str, event_ids: list[str], *, reason: str,
                user: str | None = None, actor: str = "user",
                session: str | None = None) -> WriteResult:
        """Withdraw earlier writes of a file; the history keeps them.

        :raises BadInput: when an id is unknown, belongs to another scope or file,
            is not a write, or was already retracted; or the reason is empty.
        """
        spec = self._scope(agent, user, file)
        reason = check_text(reason, "reason")
        if not event_ids:
            raise BadInput("name at least one event id to retract")
        if len(set(event_ids)) != len(event_ids):
            raise BadInput("an event id is named twice")
        if actor not in ACTORS:
            raise BadInput(f"unknown actor {actor!r}: use one of {', '.join(ACTORS)}")
        if session is not None:
            check_id(session, "session")
        stream_id = str(MemoryStream.stream_id(agent, user))
        for eid in event_ids:
            row = self.engine.readmodel.event(eid)
            if row is None or row["stream_id"] != stream_id:
                raise BadInput(f"no event {eid} in {spec.name} of this scope")
            if row["type"] != "MemoryWritten" or row["file"] != spec.name:
                raise BadInput(f"event {eid} is not a write to {spec.name}")
            if row["retracted_by"]:
                raise BadInput(f"event {eid} was already retracted by {row['retracted_by']}")

        def command(stream: MemoryStream) -> None:
            stream.retract(spec.name, event_ids, reason, actor, session, clock.now())

        rec, _ = self._commit(agent, user, command)
        return WriteResult(rec.event.event_id, rec.position, "MemoryRetracted", agent, user, spec.name)

    def end_session(self, agent: str, user: str, *, session: str | None = None,
                    notes: str | bytes | None = None, actor: str = "system") -> WriteResult:
        """Record that a session of the pair ended (the nightly dream counts these)."""
        check_id(agent, "agent")
        check_id(user, "user")
        if session is not None:
            check_id(session, "session")
        checked = None if notes is None else check_text(notes, "notes")
        if actor not in ACTORS:
            raise BadInput(f"unknown actor {actor!r}: use one of {', '.join(ACTORS)}")

        def command(stream: MemoryStream) -> None:
            stream.end_session(session, actor, checked, clock.now())

        rec, _ = self._commit(agent, user, command)
        return WriteResult(rec.event.event_id, rec.position, "SessionEnded", agent, user, None)

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
            row = self.engine.readmodel.file(agent, user, spec.name)
            return ReadResult(agent, user, spec.name, row.content if row else None,
                              size(row.content if row else ""), limit, spec.hard,
                              row.version if row else None)
        else:
            stream_id = MemoryStream.stream_id(agent, user)
            if as_of is not None:
                shown = format_time(parse_when(as_of))
                stream_version = self.engine.readmodel.stream_version_at(agent, user, shown)
            events = (self.engine.store.stream(stream_id, upto_version=stream_version)
                      if stream_version else [])
            content = render(fold(events).get(spec.name)) or None
        return ReadResult(agent, user, spec.name, content, size(content or ""), limit,
                          spec.hard, version if version is not None else stream_version, shown)

    @property
    def dreams(self) -> Dreams:
        """Dreams, review, versions and rollbacks of this home's pairs."""
        from kairos.dreams import Dreams

        return Dreams(self)

    def history(self, agent: str, *, user: str | None = None,
                file: str | None = None) -> list[dict[str, Any]]:
        """The events of one scope (the agent's own stream, or one pair's), in order."""
        check_id(agent, "agent")
        if user is not None:
            check_id(user, "user")
        if file is not None:
            check_scope(file_spec(file), user)
        return self.engine.readmodel.events(agent=agent, user=user, pair_only=True, file=file)

    def log(self, day: str | None = None, *, agent: str | None = None,
            user: str | None = None) -> str:
        """A day's log (today, UTC, by default), whole or only one scope's entries.

        With ``agent`` (and ``user``): only that agent's own entries (and that
        pair's), so one pair never reads another's log lines.
        :raises NotFound: when there is no log for that day.
        """
        day, text = self._day_text(day, agent, user)
        if agent is None:
            return text
        return file_header(day) + "".join(
            render_entry(e.position, e.event) for e in self._entries(day, text, agent, user))

    def log_entries(self, day: str | None = None, *, agent: str | None = None,
                    user: str | None = None) -> list[dict[str, Any]]:
        """The same entries as :meth:`log`, as dicts (with their line in the file)."""
        day, text = self._day_text(day, agent, user)
        rel = self.engine.mirror.relpath(self.engine.mirror.path_for(day))
        return [{"position": e.position, "type": type(e.event).__name__,
                 "time": format_time(e.event.timestamp), "stream": str(e.event.originator_id),
                 "version": e.event.originator_version, "event_id": e.event.event_id,
                 **payload_of(e.event), "prev": e.event.prev, "hash": e.event.hash,
                 "log_file": rel, "log_line": e.line}
                for e in self._entries(day, text, agent, user)]

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

    # -- operations ------------------------------------------------------------------
    def verify(self) -> Report:
        """Check every hash chain in the store and the logs, and that they agree.

        Read-only.  The report's first problem names the first bad entry.
        """
        return verify(self.engine.store, self.engine.mirror)

    def rebuild(self, *, from_logs: bool = False) -> RebuildReport:
        """Re-derive read models and files from the store, and repair the logs.

        With ``from_logs``: first restore the store from the logs (the
        database was lost, or holds only an older prefix of them).
        :raises VerificationFailed: a log entry fails its hash chain (with
            ``from_logs``; nothing is imported).
        :raises Inconsistent: store and logs hold different histories.
        """
        report = RebuildReport()
        with writer_lock(self.home):
            if from_logs:
                restore_store(self.engine, report)
            self.engine.recover()
            repair_logs(self.engine, report)
            rebuild_projections(self.engine, report)
        return report

    def search(self, agent: str, query: str, *, user: str | None = None,
               limit: int = 10) -> list[dict[str, Any]]:
        """Search an agent's own files (and one pair's) and their history.

        Matches every word of ``query`` (case-insensitive) anywhere in a line
        of a current file, or in the text of an earlier event.  Each result
        carries the ids of the events it comes from; current lines come first.
        :raises BadInput: bad ids, or a query with no words.
        """
        check_id(agent, "agent")
        if user is not None:
            check_id(user, "user")
        words = [w.lower() for w in re.findall(r"[\w']+", query or "")]
        if not words:
            raise BadInput("the query has no words to look for")

        def matches(text: str | None) -> bool:
            low = (text or "").lower()
            return all(w in low for w in words)

        results: list[dict[str, Any]] = []
        seen: set[str] = set()
        for scope_user in ([None, user] if user is not None else [None]):
            for row in self.engine.readmodel.files_of(agent, scope_user):
                for seg in row.segments:
                    sources = list(seg[2]) if len(seg) > 2 else [seg[0]]
                    for line in seg[1].split("\n"):
                        if matches(line):
                            results.append({"where": "current", "file": row.file, "text": line,
                                            "event_ids": sources})
                            seen.update(sources)
        scopes = [None] if user is None else [None, user]
        history = [r for u in scopes
                   for r in self.engine.readmodel.events(agent=agent, user=u, pair_only=True)
                   if r["type"] in ("MemoryWritten", "SessionEnded") and matches(r["text"])
                   and r["event_id"] not in seen]
        history.sort(key=lambda r: r["position"], reverse=True)
        for r in history:
            text = r["text"]
            results.append({"where": "history", "file": r["file"], "type": r["type"],
                            "time": r["recorded_at"], "event_ids": [r["event_id"]],
                            "text": text if len(text) <= 300 else text[:299] + "…",
                            "retracted": bool(r["retracted_by"])})
        return results[:limit]

    def seal(self, key: str | None = None) -> dict[str, Any]:
        """Record a checkpoint over every event so far, and write its file.

        ``key``: an Ed25519 private key (PEM) to sign it with (default:
        ``KAIROS_SIGNING_KEY``, else unsigned).  Returns the checkpoint.
        """
        from kairos import checkpoints

        key = key or os.environ.get("KAIROS_SIGNING_KEY") or None
        from kairos.merkle import root

        hashes, positions = checkpoints.leaves(self.engine.store)
        size, last, head = len(hashes), positions[-1] if positions else 0, root(hashes).hex()
        body: dict[str, Any] = {"format": checkpoints.FORMAT, "size": size, "position": last,
                                "root": head, "time": format_time(clock.now())}
        signed = checkpoints.sign(body, key) if key else {}

        def command(stream: MemoryStream) -> None:
            stream.seal(size, last, head, signed.get("public_key"), clock.now())

        rec, _ = self._commit(SYSTEM_AGENT, None, command)
        data = {**body, **signed, "event_id": rec.event.event_id, "event_position": rec.position}
        folder = os.path.join(self.home, "checkpoints")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"checkpoint-{body['position']:06d}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2, sort_keys=True)
            f.write("\n")
        data["file"] = os.path.relpath(path, self.home)
        return data

    def verify_checkpoint(self, path: str, public_key: str | None = None) -> Any:
        """Prove the current history extends the checkpoint in ``path``."""
        from kairos import checkpoints

        trusted = checkpoints.public_key_text(public_key) if public_key else None
        return checkpoints.verify_checkpoint(self.engine.store,
                                             checkpoints.read_checkpoint(path), trusted)

    def files(self) -> list[dict[str, Any]]:
        """Every existing memory file of the home with its size (no contents)."""
        return [{"agent": r.agent, "user": r.user, "file": r.file, "size": size(r.content),
                 "limit": self.limit_of(file_spec(r.file)), "updated_at": r.updated_at}
                for r in self.engine.readmodel.all_files()]

    def event(self, event_id: str) -> dict[str, Any]:
        row = self.engine.readmodel.event(event_id)
        if row is None:
            raise NotFound(f"no event {event_id}")
        return row
