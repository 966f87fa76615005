"""The domain: one event stream per scope, and the events that can happen in it.

A :class:`MemoryStream` is the aggregate of one agent (its SOUL, ABOUT and
TOOLS files) or of one agent+user pair (USER, MEMORY, sessions).  Its state
is small on purpose: the version, the head of the hash chain and the current
segments of its files (a few KB, bounded by the file limits), which is what a
command needs to check a write.  History lives in the store, not here.

Events are past-tense nouns.  Each carries a deterministic ``event_id`` and
its place in the per-stream hash chain (``prev``, ``hash``); see
:mod:`kairos.hashing`.  This module does no I/O.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate

from kairos.hashing import GENESIS, chain_hash
from kairos.ids import agent_stream_id, event_id, pair_stream_id
from kairos.projections.fold import Files, apply_event

ACTORS = ("agent", "user", "system", "import")
# The home's own stream (checkpoints).  Ids cannot start with "_", so no
# agent can ever share it.
SYSTEM_AGENT = "_system"
MODES = ("append", "replace")

# Fields every event has; the rest of an event's fields are its payload.
BASE_FIELDS = frozenset(
    {"originator_id", "originator_version", "timestamp", "originator_topic",
     "event_id", "prev", "hash"}
)


_FIELDS: dict[type, tuple[str, ...]] = {}


def payload_fields(cls: type) -> tuple[str, ...]:
    """The payload field names of an event class, in declaration order."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls)
                                     if f.name not in BASE_FIELDS)
    return names


def payload_of(event: Any) -> dict[str, Any]:
    return {name: getattr(event, name) for name in payload_fields(type(event))}


def expected_hash(event: Any) -> str:
    """Recompute an event's hash from its fields (what verification compares)."""
    return chain_hash(
        type(event).__name__,
        event.originator_id,
        event.originator_version,
        event.timestamp,
        event.event_id,
        event.prev,
        payload_of(event),
    )


class MemoryStream(Aggregate):
    """The events of one scope: an agent (``user`` is None) or an agent+user pair."""

    class StreamOpened(Aggregate.Created):
        agent: str
        user: str | None
        event_id: str
        prev: str
        hash: str

    class Event(Aggregate.Event):
        def apply(self, aggregate: Any) -> None:
            aggregate.head = self.hash  # type: ignore[attr-defined]
            aggregate.files = apply_event(aggregate.files, self)

    class MemoryWritten(Event):
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

    class MemoryRetracted(Event):
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

    class SessionEnded(Event):
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

        agent: str
        user: str | None
        files: dict[str, Any]  # {file: {"base": version, "lines": [[text, [event ids]]]}}
        cutoff: int  # the stream version distilled up to
        dropped: list[Any]  # [{"file", "text", "sources", "reason"}]
        report: dict[str, Any]  # the four phases
        distiller: str
        model: str | None
        usage: dict[str, Any]  # tokens and cost
        trigger: str
        event_id: str
        prev: str
        hash: str

    class DreamApproved(Event):
        """Publishes a proposal: each file becomes the given segments (the
        version's lines with every write after its cutoff replayed on top)."""

        agent: str
        user: str | None
        dream_id: str
        reviewer: str
        policy: str  # "review" or "auto"
        versions: dict[str, int]
        contents: dict[str, Any]
        event_id: str
        prev: str
        hash: str

    class DreamRejected(Event):
        agent: str
        user: str | None
        dream_id: str
        reviewer: str
        reason: str
        event_id: str
        prev: str
        hash: str

    class DreamRefused(Event):
        """A dream whose draft a guard refused (or whose distiller failed): the
        rule and what the model call cost — never the draft's words."""

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

        agent: str
        user: str | None
        file: str
        to_version: int
        actor: str
        reason: str
        segments: list[Any]
        event_id: str
        prev: str
        hash: str

    class CheckpointSealed(Event):
        """A checkpoint over the global order: its size, last position and Merkle root."""

        agent: str
        user: str | None
        size: int
        position: int
        root: str
        public_key: str | None
        event_id: str
        prev: str
        hash: str

    def __init__(self, agent: str, user: str | None, event_id: str, prev: str, hash: str):
        self.agent = agent
        self.user = user
        self.head = hash
        self.files: Files = {}

    @staticmethod
    def stream_id(agent: str, user: str | None) -> UUID:
        return agent_stream_id(agent) if user is None else pair_stream_id(agent, user)

    @classmethod
    def open(cls, agent: str, user: str | None, now: datetime) -> MemoryStream:
        """Start the stream of an agent or a pair (its first event)."""
        sid = cls.stream_id(agent, user)
        eid = event_id(sid, 1)
        payload = {"agent": agent, "user": user}
        digest = chain_hash("StreamOpened", sid, 1, now, eid, GENESIS, payload)
        return cls._create(
            cls.StreamOpened, id=sid, timestamp=now, event_id=eid,
            prev=GENESIS, hash=digest, **payload,
        )

    def _record(self, event_class: type, now: datetime, **payload: Any) -> None:
        version = self.version + 1
        eid = event_id(self.id, version)
        payload = {"agent": self.agent, "user": self.user, **payload}
        digest = chain_hash(event_class.__name__, self.id, version, now, eid, self.head, payload)
        self.trigger_event(
            event_class, timestamp=now, event_id=eid, prev=self.head, hash=digest, **payload
        )

    def write(self, file: str, text: str, mode: str, actor: str,
              session: str | None, now: datetime) -> None:
        self._record(self.MemoryWritten, now, file=file, text=text, mode=mode,
                     actor=actor, session=session)

    def retract(self, file: str, retracts: list[str], reason: str, actor: str,
                session: str | None, now: datetime) -> None:
        self._record(self.MemoryRetracted, now, file=file, retracts=list(retracts),
                     reason=reason, actor=actor, session=session)

    def end_session(self, session: str | None, actor: str, notes: str | None,
                    now: datetime) -> None:
        self._record(self.SessionEnded, now, session=session, actor=actor, notes=notes)

    def propose(self, now: datetime, **proposal: Any) -> str:
        self._record(self.DreamProposed, now, **proposal)
        return str(self.pending_events[-1].event_id)  # type: ignore[attr-defined]

    def approve(self, dream_id: str, reviewer: str, policy: str, versions: dict[str, int],
                contents: dict[str, Any], now: datetime) -> None:
        self._record(self.DreamApproved, now, dream_id=dream_id, reviewer=reviewer,
                     policy=policy, versions=versions, contents=contents)

    def reject(self, dream_id: str, reviewer: str, reason: str, now: datetime) -> None:
        self._record(self.DreamRejected, now, dream_id=dream_id, reviewer=reviewer,
                     reason=reason)

    def refuse(self, reason: str, distiller: str, model: str | None, usage: dict[str, Any],
               now: datetime) -> None:
        self._record(self.DreamRefused, now, reason=reason, distiller=distiller, model=model,
                     usage=dict(usage))

    def seal(self, size: int, position: int, root: str, public_key: str | None,
             now: datetime) -> None:
        self._record(self.CheckpointSealed, now, size=size, position=position, root=root,
                     public_key=public_key)

    def roll_back(self, file: str, to_version: int, actor: str, reason: str,
                  segments: list[Any], now: datetime) -> None:
        self._record(self.VersionRolledBack, now, file=file, to_version=to_version,
                     actor=actor, reason=reason, segments=segments)


# Event classes by the type name used in hashes and log entries.
EVENT_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        MemoryStream.StreamOpened,
        MemoryStream.MemoryWritten,
        MemoryStream.MemoryRetracted,
        MemoryStream.SessionEnded,
        MemoryStream.DreamProposed,
        MemoryStream.DreamApproved,
        MemoryStream.DreamRejected,
        MemoryStream.DreamRefused,
        MemoryStream.VersionRolledBack,
        MemoryStream.CheckpointSealed,
    )
}
