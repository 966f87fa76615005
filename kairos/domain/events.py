"""The aggregate: one event stream per scope, the events that can happen in
it, and the rules a command must keep.

A :class:`MemoryStream` is the aggregate of one agent (its SOUL, ABOUT and
TOOLS files) or of one agent+user pair (USER, MEMORY, topics, sessions,
dreams).  Its commands are verbs (``write``, ``retract``, ``approve``…); each
checks its rule against the stream's state and raises
:class:`~kairos.errors.BadInput` (or :class:`~kairos.errors.NotFound`) before
it records anything, so a rule is enforced under optimistic concurrency, on
the state as of the version the command will be saved after — never against
a read model that may be a moment behind.

The state is what the rules need, and bounded on purpose (a snapshot every
200 events stores all of it): the version, the head of the hash chain, the
current segments of the files (bounded by the file limits), the ids retracted
so far with what retracted them (grows with retractions, each an explicit
act, never with writes), the pending proposals with the versions they were
based on, the decided ones, and per file the version showing and the latest
published one (grow with dreams: the gate lets a pair dream once a day).
Whether an id is a write of this stream to a file is a fact of history that
never changes, so ``retract`` asks the history for the event itself (a
lookup the caller passes in) instead of keeping every write id in the state.

Events are past-tense nouns.  Each carries a deterministic ``event_id`` and
its place in the per-stream hash chain (``prev``, ``hash``); see
:mod:`kairos.domain.hashing`.  This module does no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, ClassVar, NamedTuple, TypedDict
from uuid import UUID

from eventsourcing.domain import Aggregate
from eventsourcing.utils import register_topic

from kairos.domain.encrypted import ENCRYPTING, encrypt_payload
from kairos.domain.fold import Files, Segments, apply_to_file, cites, cites_any, size_after_write, touched
from kairos.domain.hashing import GENESIS, chain_hash
from kairos.domain.ids import agent_stream_id, event_id, pair_stream_id
from kairos.domain.kinds import BASE_FIELDS, EventType
from kairos.errors import BadInput, KairosError, NotFound

# The home's own stream (checkpoints).  Ids cannot start with "_", so no
# agent can ever share it.
SYSTEM_AGENT = "_system"
MODES = ("append", "replace")



class ProposedFile(TypedDict):
    """One file of a proposal: the version it was based on and its new lines."""

    base: int
    lines: list[list[Any]]  # [[text, [source event ids]]]


# The idempotency keys a stream remembers: a retry comes within moments of
# the call it repeats, so the last 256 cover it with room to spare, and a
# snapshot (every 200 events) carries at most 256 short strings.  Older keys
# are found in the read model's key index (``recorded_key``).
RECENT_KEYS = 256


class AlreadyWritten(KairosError):
    """A write's idempotency key was recorded already by ``event_id``: the
    write is a retry, and nothing new is recorded (``version`` is 0 when the
    key was found in the history rather than in the stream's recent keys)."""

    def __init__(self, key: str, event_id: str, version: int):
        super().__init__(f"idempotency key {key!r} was recorded by event {event_id}")
        self.key, self.event_id, self.version = key, event_id, version


class SnapshotOutdated(KairosError):
    """A snapshot taken before the state knew retractions and dreams: it
    cannot be brought forward (that would take the history it summarizes),
    so the store replays the stream from its events instead."""


class MemoryStream(Aggregate):
    """The events of one scope: an agent (``user`` is None) or an agent+user pair."""

    # Topics are the names the store persists for these classes; they stay
    # those of the module the classes were first defined in (kairos/domain.py)
    # so that every existing home's events and snapshots resolve.  (Set below,
    # once the class exists: set here, the library would ask for a topic on
    # every event class it defines itself.)
    TOPIC: ClassVar[str]
    # Version 2 of the state added retractions, proposals and versions;
    # version 3 the recent idempotency keys.
    class_version = 3

    class StreamOpened(Aggregate.Created):
        TOPIC = "kairos.domain:MemoryStream.StreamOpened"
        kind: ClassVar[EventType] = EventType.OPENED
        agent: str
        user: str | None
        event_id: str
        prev: str
        hash: str

    class Event(Aggregate.Event):
        kind: ClassVar[EventType]

        def apply(self, aggregate: MemoryStream) -> None:
            aggregate.head = self.hash  # type: ignore[attr-defined]

    class MemoryWritten(Event):
        TOPIC = "kairos.domain:MemoryStream.MemoryWritten"
        kind: ClassVar[EventType] = EventType.WRITTEN
        agent: str
        user: str | None
        file: str
        mode: str
        actor: str
        session: str | None
        text: str
        event_id: str
        prev: str
        hash: str
        # Optional payload fields come last, with a default: absent (None)
        # they are left out of the hash and the log entry, so adding one
        # changes no existing event's hash.
        idempotency_key: str | None = None

        def apply(self, aggregate: MemoryStream) -> None:
            aggregate.head = self.hash
            aggregate.set_file(self.file, apply_to_file(aggregate.files.get(self.file, []),
                                                        self, self.file))
            if self.idempotency_key is not None:
                aggregate.remember_key(self.idempotency_key, self.event_id,
                                       self.originator_version)

    class MemoryRetracted(Event):
        TOPIC = "kairos.domain:MemoryStream.MemoryRetracted"
        kind: ClassVar[EventType] = EventType.RETRACTED
        agent: str
        user: str | None
        file: str
        retracts: list[str]
        actor: str
        session: str | None
        reason: str
        event_id: str
        prev: str
        hash: str
        # The other files of the stream that cite a retracted write when it
        # is retracted (a dream moved its line to a topic file, or into
        # USER.md): its words leave those too.  Absent on older events.
        also: list[str] | None = None

        def apply(self, aggregate: MemoryStream) -> None:
            aggregate.head = self.hash
            for name in touched(self):
                aggregate.set_file(name, apply_to_file(aggregate.files.get(name, []), self, name))
            aggregate.retracted = {**aggregate.retracted,
                                   **dict.fromkeys(self.retracts, self.event_id)}

    class SessionEnded(Event):
        TOPIC = "kairos.domain:MemoryStream.SessionEnded"
        kind: ClassVar[EventType] = EventType.SESSION_ENDED
        agent: str
        user: str | None
        session: str | None
        actor: str
        notes: str | None
        event_id: str
        prev: str
        hash: str

    class DreamProposed(Event):
        """A dream's proposal: new lines for some pair files, each citing events."""

        TOPIC = "kairos.domain:MemoryStream.DreamProposed"
        kind: ClassVar[EventType] = EventType.PROPOSED
        agent: str
        user: str | None
        files: dict[str, ProposedFile]
        cutoff: int  # the stream version distilled up to
        dropped: list[dict[str, Any]]  # [{"file", "text", "sources", "reason"}]
        report: dict[str, Any]  # the four phases
        distiller: str
        model: str | None
        usage: dict[str, Any]  # tokens and cost
        trigger: str
        event_id: str
        prev: str
        hash: str

        def apply(self, aggregate: MemoryStream) -> None:
            aggregate.head = self.hash
            aggregate.pending = {**aggregate.pending, self.event_id: {
                name: f["base"] for name, f in self.files.items()}}

    class DreamApproved(Event):
        """Publishes a proposal: each file becomes the given segments (the
        version's lines with every write after its cutoff replayed on top)."""

        TOPIC = "kairos.domain:MemoryStream.DreamApproved"
        kind: ClassVar[EventType] = EventType.APPROVED
        agent: str
        user: str | None
        dream_id: str
        reviewer: str
        policy: str  # "review" or "auto"
        versions: dict[str, int]
        contents: dict[str, Segments]
        event_id: str
        prev: str
        hash: str

        def apply(self, aggregate: MemoryStream) -> None:
            aggregate.head = self.hash
            for name in sorted(self.contents):
                aggregate.set_file(name, apply_to_file([], self, name))
            aggregate.decide(self.dream_id, "approved", self.reviewer)
            aggregate.active = {**aggregate.active, **self.versions}
            aggregate.latest = {**aggregate.latest, **{
                name: max(v, aggregate.latest.get(name, 0)) for name, v in self.versions.items()}}

    class DreamRejected(Event):
        TOPIC = "kairos.domain:MemoryStream.DreamRejected"
        kind: ClassVar[EventType] = EventType.REJECTED
        agent: str
        user: str | None
        dream_id: str
        reviewer: str
        reason: str
        event_id: str
        prev: str
        hash: str

        def apply(self, aggregate: MemoryStream) -> None:
            aggregate.head = self.hash
            aggregate.decide(self.dream_id, "rejected", self.reviewer)

    class DreamRefused(Event):
        """A dream whose draft a guard refused (or whose distiller failed): the
        rule and what the model call cost — never the draft's words."""

        TOPIC = "kairos.domain:MemoryStream.DreamRefused"
        kind: ClassVar[EventType] = EventType.REFUSED
        agent: str
        user: str | None
        reason: str
        distiller: str
        model: str | None
        usage: dict[str, Any]  # tokens and cost the model call spent
        event_id: str
        prev: str
        hash: str

    class VersionRolledBack(Event):
        """Sets a file back (or forward) to a version, writes after its cutoff replayed."""

        TOPIC = "kairos.domain:MemoryStream.VersionRolledBack"
        kind: ClassVar[EventType] = EventType.ROLLED_BACK
        agent: str
        user: str | None
        file: str
        to_version: int
        actor: str
        reason: str
        segments: Segments
        event_id: str
        prev: str
        hash: str

        def apply(self, aggregate: MemoryStream) -> None:
            aggregate.head = self.hash
            aggregate.set_file(self.file, apply_to_file([], self, self.file))
            aggregate.active = {**aggregate.active, self.file: self.to_version}

    class CheckpointSealed(Event):
        """A checkpoint over the global order: its size, last position and Merkle root."""

        TOPIC = "kairos.domain:MemoryStream.CheckpointSealed"
        kind: ClassVar[EventType] = EventType.SEALED
        agent: str
        user: str | None
        size: int
        position: int
        root: str
        public_key: str | None
        event_id: str
        prev: str
        hash: str
        # Optional (absent: not hashed): the checkpoint's signature, so that its
        # file is a function of the event (kairos.domain.sealing).
        signature: str | None = None

    class SubjectErased(Event):
        """A person's memory in this pair erased: the pair's data keys were
        destroyed, so nothing it recorded before decrypts again, and every
        file it had is empty from here on.  Who, when, why and how much —
        never what was said (its own fields are not encrypted: the audit
        needs them after the erasure)."""

        TOPIC = "kairos.domain:MemoryStream.SubjectErased"
        kind: ClassVar[EventType] = EventType.ERASED
        agent: str
        user: str | None
        by: str
        reason: str
        files: list[str]  # the files the pair had
        events: int  # how many of its events came before
        keys: list[str]  # the ids of the keys destroyed
        event_id: str
        prev: str
        hash: str

        def apply(self, aggregate: MemoryStream) -> None:
            aggregate.head = self.hash
            for name in self.files:
                aggregate.set_file(name, [])
            aggregate.erased = self.originator_version
            aggregate.erased_keys = sorted({*getattr(aggregate, "erased_keys", ()), *self.keys})

    class KeyIssued(Event):
        """An API key of ``kairos serve`` issued (in the system stream): who
        may do what, from when to when.  The key itself is never recorded,
        only its id and a SHA-256 digest of its secret."""

        TOPIC = "kairos.domain:MemoryStream.KeyIssued"
        kind: ClassVar[EventType] = EventType.KEY_ISSUED
        agent: str
        user: str | None
        key_id: str
        role: str  # agent, reviewer, auditor or admin
        scope_agent: str | None  # the one agent it reaches (None: every agent)
        scope_user: str | None  # the one user it reaches (None: every user)
        expires: str | None  # an ISO time, or None: until revoked
        digest: str  # SHA-256 of the secret, hex
        by: str
        event_id: str
        prev: str
        hash: str

    class KeyRevoked(Event):
        """An API key revoked: from this event on, it opens nothing."""

        TOPIC = "kairos.domain:MemoryStream.KeyRevoked"
        kind: ClassVar[EventType] = EventType.KEY_REVOKED
        agent: str
        user: str | None
        key_id: str
        by: str
        reason: str
        event_id: str
        prev: str
        hash: str

    def __init__(self, agent: str, user: str | None, event_id: str, prev: str, hash: str):
        self.agent = agent
        self.user = user
        self.head = hash
        self.files: Files = {}
        self.retracted: dict[str, str] = {}  # retracted write id -> the retraction's id
        self.pending: dict[str, dict[str, int]] = {}  # dream id -> {file: base version}
        self.decided: dict[str, list[str]] = {}  # dream id -> [approved|rejected, reviewer]
        self.active: dict[str, int] = {}  # file -> the version it shows (absent: 0)
        self.latest: dict[str, int] = {}  # file -> the latest published version
        # The last RECENT_KEYS idempotency keys of writes -> [event id, version],
        # oldest first, and how many keyed writes the stream has had in all.
        self.keys: dict[str, list[Any]] = {}
        self.keyed = 0
        # The version of the pair's last erasure, and the key ids erasures
        # destroyed, which no later text may be encrypted under (absent from
        # snapshots taken before erasures existed: read with a default).
        self.erased = 0
        self.erased_keys: list[str] = []

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        raise SnapshotOutdated("a version 1 snapshot lacks retractions and dreams")

    @staticmethod
    def upcast_v2_v3(state: dict[str, Any]) -> None:
        # Keys came with version 3: a version 2 stream has never had one.
        state["keys"] = {}
        state["keyed"] = 0

    # -- state changes (by replacement: a cached stream is handed out as it is) --
    def set_file(self, name: str, segments: Segments) -> None:
        self.files = {**self.files, name: segments}

    def remember_key(self, key: str, event_id: str, version: int) -> None:
        keys = {**self.keys, key: [event_id, version]}
        if len(keys) > RECENT_KEYS:
            keys.pop(next(iter(keys)))
        self.keys = keys
        self.keyed += 1

    def decide(self, dream_id: str, verb: str, reviewer: str) -> None:
        self.pending = {k: v for k, v in self.pending.items() if k != dream_id}
        self.decided = {**self.decided, dream_id: [verb, reviewer]}

    # -- identity -------------------------------------------------------------------
    @staticmethod
    def stream_id(agent: str, user: str | None) -> UUID:
        return agent_stream_id(agent) if user is None else pair_stream_id(agent, user)

    @classmethod
    def open(cls, agent: str, user: str | None, now: datetime) -> MemoryStream:
        """Start the stream of an agent or a pair (its first event)."""
        sid = cls.stream_id(agent, user)
        eid = event_id(sid, 1)
        payload = {"agent": agent, "user": user}
        digest = chain_hash(EventType.OPENED, sid, 1, now, eid, GENESIS, payload)
        return cls._create(
            cls.StreamOpened, id=sid, timestamp=now, event_id=eid,
            prev=GENESIS, hash=digest, **payload,
        )

    def _record(self, event_class: type[Event], now: datetime, **payload: Any) -> str:
        version = self.version + 1
        eid = event_id(self.id, version)
        payload = {"agent": self.agent, "user": self.user, **payload}
        optional = optional_fields(event_class)
        if optional:  # absent optional fields are not hashed (see hashed_payload)
            payload = {k: v for k, v in payload.items() if v is not None or k not in optional}
        encrypt = ENCRYPTING.get()
        if encrypt is not None:  # the home encrypts: the event holds its content encrypted
            payload = encrypt_payload(event_class.kind, payload, encrypt)
        digest = chain_hash(event_class.kind, self.id, version, now, eid, self.head, payload)
        self.trigger_event(
            event_class, timestamp=now, event_id=eid, prev=self.head, hash=digest, **payload
        )
        return eid

    # -- commands: each checks its rule, then records --------------------------------
    def write(self, file: str, text: str, mode: str, actor: str, session: str | None,
              now: datetime, *, limit: int | None = None, ceiling: int | None = None,
              key: str | None = None,
              recorded_key: Callable[[str], str | None] | None = None) -> int:
        """Append a line to ``file`` or replace it; return its size afterwards.

        ``limit`` is a hard limit; ``ceiling`` the most a soft-limited file
        may hold.  ``key`` is the caller's idempotency key: a write with a key
        this stream already recorded records nothing and raises
        :class:`AlreadyWritten` naming the original event.  The stream
        remembers its last :data:`RECENT_KEYS` keys; for a stream that has had
        more, ``recorded_key`` looks a key up in the history (the event id of
        the write that recorded it, or None).
        :raises BadInput: when ``limit`` or ``ceiling`` would be passed.
        :raises AlreadyWritten: when ``key`` was recorded already.
        """
        if key is not None:
            self.check_key(key, recorded_key)
        size = size_after_write(self.files.get(file, []), text, mode)
        if limit is not None and size > limit:
            raise BadInput(f"{file} would be {size} chars, over its hard limit of {limit}: "
                           "nothing written")
        if ceiling is not None and size > ceiling:
            raise BadInput(f"{file} would be {size} chars, over its ceiling of {ceiling} "
                           "(its soft limit lets writes pass up to there): compress it first; "
                           "nothing written")
        self._record(self.MemoryWritten, now, file=file, text=text, mode=mode, actor=actor,
                     session=session, idempotency_key=key)
        return size

    def check_key(self, key: str, recorded_key: Callable[[str], str | None] | None) -> None:
        """:raises AlreadyWritten: when a write of this stream recorded ``key``."""
        known = self.keys.get(key)
        if known is not None:
            raise AlreadyWritten(key, str(known[0]), int(known[1]))
        if self.keyed > len(self.keys) and recorded_key is not None:
            found = recorded_key(key)  # older than the keys the stream remembers
            if found is not None:
                raise AlreadyWritten(key, found, 0)

    def retract(self, file: str, retracts: Sequence[str], reason: str, actor: str,
                session: str | None, now: datetime,
                lookup: Callable[[str], DomainEvent | None]) -> None:
        """Withdraw writes of ``file``: each must be a write of this stream to
        this file that no retraction named yet.  ``lookup`` finds an event by
        id in the history (None when there is none).

        :raises BadInput: naming the first id that breaks the rule.
        """
        ids = set(retracts)
        citing = sorted(name for name, segments in self.files.items() if cites(segments, ids))
        for eid in retracts:
            if eid in self.retracted and not cites_any(self.files, eid):
                raise BadInput(f"event {eid} was already retracted by {self.retracted[eid]}")
            event = lookup(eid)
            if event is None or event.originator_id != self.id:
                raise BadInput(f"no event {eid} in {file} of this scope")
            if not isinstance(event, MemoryStream.MemoryWritten) or (
                    event.file != file and file not in citing):
                raise BadInput(f"event {eid} is not a write to {file}")
        also = [name for name in citing if name != file]
        self._record(self.MemoryRetracted, now, file=file, retracts=list(retracts),
                     reason=reason, actor=actor, session=session, also=also or None)

    def end_session(self, session: str | None, actor: str, notes: str | None,
                    now: datetime) -> None:
        self._record(self.SessionEnded, now, session=session, actor=actor, notes=notes)

    def active_version(self, file: str) -> int:
        return self.active.get(file, 0)

    def propose(self, now: datetime, *, files: dict[str, ProposedFile], cutoff: int,
                dropped: list[dict[str, Any]], report: dict[str, Any], distiller: str,
                model: str | None, usage: dict[str, Any], trigger: str) -> str:
        """Record a dream's proposal; return its id (the dream id).

        :raises BadInput: when a file's version moved since the dream read
            it, or the pair was erased after what it read (its draft may hold
            erased words).
        """
        if cutoff < getattr(self, "erased", 0):
            raise BadInput("the pair was erased while dreaming: nothing proposed")
        for name, f in files.items():
            if self.active_version(name) != f["base"]:
                raise BadInput(f"{name} changed version while dreaming: dream again")
        return self._record(self.DreamProposed, now, files=files, cutoff=cutoff,
                            dropped=dropped, report=report, distiller=distiller, model=model,
                            usage=usage, trigger=trigger)

    def _undecided(self, dream_id: str) -> dict[str, int]:
        if dream_id in self.decided:
            verb, reviewer = self.decided[dream_id]
            raise BadInput(f"dream {dream_id} was already {verb} by {reviewer}")
        bases = self.pending.get(dream_id)
        if bases is None:
            raise NotFound(f"no dream {dream_id}")
        return bases

    def approve(self, dream_id: str, reviewer: str, policy: str,
                history: Sequence[DomainEvent], now: datetime) -> dict[str, int]:
        """Publish a pending proposal that is not stale; return the versions.

        ``history`` is this stream's events up to its version: each file
        becomes the proposal's lines with every raw write after its cutoff
        replayed on top.
        :raises BadInput: decided already, or a file moved past the version
            the proposal was based on.
        :raises NotFound: no such proposal in this stream.
        """
        from kairos.domain.versions import line_segments, replay  # it reads these classes

        bases = self._undecided(dream_id)
        for name, base in sorted(bases.items()):
            current = self.active_version(name)
            if current != base:
                raise BadInput(f"dream {dream_id} was proposed on version {base} of {name}, "
                               f"but version {current} is current now: dream again")
        proposal = next(e for e in (*history, *self.pending_events)
                        if isinstance(e, MemoryStream.DreamProposed) and e.event_id == dream_id)
        versions = {name: self.latest.get(name, 0) + 1 for name in proposal.files}
        contents = {name: replay(line_segments(dream_id, f["lines"]), history, name,
                                 proposal.cutoff) for name, f in proposal.files.items()}
        self._record(self.DreamApproved, now, dream_id=dream_id, reviewer=reviewer,
                     policy=policy, versions=versions, contents=contents)
        return versions

    def reject(self, dream_id: str, reviewer: str, reason: str, now: datetime) -> None:
        """:raises BadInput: decided already.  :raises NotFound: no such proposal."""
        self._undecided(dream_id)
        self._record(self.DreamRejected, now, dream_id=dream_id, reviewer=reviewer,
                     reason=reason)

    def refuse(self, reason: str, distiller: str, model: str | None, usage: dict[str, Any],
               now: datetime) -> None:
        """Record a refused draft: its rule and cost, never its words."""
        self._record(self.DreamRefused, now, reason=reason, distiller=distiller, model=model,
                     usage=dict(usage))

    def roll_back(self, file: str, to: int, actor: str, reason: str,
                  history: Sequence[DomainEvent], now: datetime) -> None:
        """Set ``file`` to published version ``to`` (writes after its cutoff stay).

        :raises BadInput: no such version, or the file shows it already.
        """
        from kairos.domain.versions import content_of  # it reads these classes

        latest = self.latest.get(file, 0)
        if not 0 <= to <= latest:
            raise BadInput(f"no version {to} of {file}: versions are 0..{latest}")
        if to == self.active_version(file):
            raise BadInput(f"{file} is at version {to} already")
        self._record(self.VersionRolledBack, now, file=file, to_version=to, actor=actor,
                     reason=reason, segments=content_of(history, file, to))

    def erase(self, by: str, reason: str, keys: list[str], now: datetime) -> None:
        """Record that this pair's keys are being destroyed (before they are:
        an erasure interrupted is finished by running it again).

        :raises BadInput: an agent's own stream (its files are not a person's).
        """
        if self.user is None:
            raise BadInput("an agent's own files (SOUL, ABOUT, TOOLS) are not a person's "
                           "memory: forget erases the pairs of a user")
        self._record(self.SubjectErased, now, by=by, reason=reason,
                     files=sorted(name for name, segs in self.files.items() if segs),
                     events=self.version, keys=sorted(keys))

    def issue_key(self, key_id: str, role: str, scope_agent: str | None,
                  scope_user: str | None, expires: str | None, digest: str, by: str,
                  now: datetime) -> None:
        self._record(self.KeyIssued, now, key_id=key_id, role=role, scope_agent=scope_agent,
                     scope_user=scope_user, expires=expires, digest=digest, by=by)

    def revoke_key(self, key_id: str, by: str, reason: str, now: datetime) -> None:
        self._record(self.KeyRevoked, now, key_id=key_id, by=by, reason=reason)

    def seal(self, size: int, position: int, root: str, public_key: str | None,
             now: datetime, signature: str | None = None) -> None:
        self._record(self.CheckpointSealed, now, size=size, position=position, root=root,
                     public_key=public_key, signature=signature)


StreamOpened = MemoryStream.StreamOpened
MemoryWritten = MemoryStream.MemoryWritten
MemoryRetracted = MemoryStream.MemoryRetracted
SessionEnded = MemoryStream.SessionEnded
DreamProposed = MemoryStream.DreamProposed
DreamApproved = MemoryStream.DreamApproved
DreamRejected = MemoryStream.DreamRejected
DreamRefused = MemoryStream.DreamRefused
VersionRolledBack = MemoryStream.VersionRolledBack
CheckpointSealed = MemoryStream.CheckpointSealed
SubjectErased = MemoryStream.SubjectErased
KeyIssued = MemoryStream.KeyIssued
KeyRevoked = MemoryStream.KeyRevoked

DomainEvent = (StreamOpened | MemoryWritten | MemoryRetracted | SessionEnded | DreamProposed
               | DreamApproved | DreamRejected | DreamRefused | VersionRolledBack | CheckpointSealed
               | SubjectErased | KeyIssued | KeyRevoked)

MemoryStream.TOPIC = "kairos.domain:MemoryStream"
for _cls in (MemoryStream, StreamOpened, MemoryWritten, MemoryRetracted, SessionEnded,
             DreamProposed, DreamApproved, DreamRejected, DreamRefused, VersionRolledBack,
             CheckpointSealed, SubjectErased, KeyIssued, KeyRevoked):
    register_topic(_cls.TOPIC, _cls)

# Event classes by the type name used in hashes and log entries, in the
# order a stream's life usually meets them.
EVENT_TYPES: dict[str, type[DomainEvent]] = {
    cls.kind: cls
    for cls in (StreamOpened, MemoryWritten, MemoryRetracted, SessionEnded, DreamProposed,
                DreamApproved, DreamRejected, DreamRefused, VersionRolledBack, CheckpointSealed,
                SubjectErased, KeyIssued, KeyRevoked)
}


class Recorded(NamedTuple):
    """An event with its global position (the store's notification id).
    (A named tuple: rebuilds make one per event, and it is the cheapest.)"""

    position: int
    event: DomainEvent


_FIELDS: dict[type, tuple[str, ...]] = {}
_OPTIONAL: dict[type, frozenset[str]] = {}


def payload_fields(cls: type) -> tuple[str, ...]:
    """The payload field names of an event class, in declaration order."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls)
                                     if f.name not in BASE_FIELDS)
    return names


def optional_fields(cls: type) -> frozenset[str]:
    """The payload fields added after the event type first shipped (they have
    a default): left out of the hash and the log entry while None."""
    names = _OPTIONAL.get(cls)
    if names is None:
        names = _OPTIONAL[cls] = frozenset(
            f.name for f in dataclasses.fields(cls) if f.name not in BASE_FIELDS
            and f.default is not dataclasses.MISSING)
    return names


def payload_of(event: DomainEvent) -> dict[str, Any]:
    return {name: getattr(event, name) for name in payload_fields(type(event))}


def hashed_payload(event: DomainEvent) -> dict[str, Any]:
    """The payload as hashed: every field, but optional ones only when set."""
    payload = payload_of(event)
    optional = optional_fields(type(event))
    if optional:
        payload = {k: v for k, v in payload.items() if v is not None or k not in optional}
    return payload


def expected_hash(event: DomainEvent) -> str:
    """Recompute an event's hash from its fields (what verification compares)."""
    return chain_hash(event.kind, event.originator_id, event.originator_version,
                      event.timestamp, event.event_id, event.prev, hashed_payload(event))
