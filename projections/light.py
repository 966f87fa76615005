"""Events as plain attributes, for bulk loads.

A rebuild reads every event once.  Building each one as the library's domain
event (its mapper decodes the stored JSON with a Python hook per object, then
makes a frozen dataclass) is most of what reading costs, and the folds and
the index need only the fields.  The common events are decoded instead
straight from their stored JSON into :class:`Light` structs (msgspec, in C),
one subclass per event type, each naming its :class:`EventType` in ``kind``
as the domain classes do, so the folds and the index dispatch on both alike.
``tests/test_store.py`` checks that they give the same index rows and folds
as the domain events, for every event type.
"""

from __future__ import annotations

from typing import ClassVar
from uuid import UUID

import msgspec

from kairos.domain.events import EVENT_TYPES
from kairos.domain.kinds import EventType


class Light(msgspec.Struct, kw_only=True):
    kind: ClassVar[EventType]
    timestamp: dict[str, str]  # as the library transcodes it: {"_type_", "_data_"}
    agent: str
    user: str | None
    event_id: str
    file: str | None = None
    mode: str | None = None
    actor: str | None = None
    session: str | None = None
    text: str | None = None
    retracts: list[str] | None = None
    also: list[str] | None = None
    reason: str | None = None
    notes: str | None = None
    idempotency_key: str | None = None
    # Not in the stored JSON: the library keeps them in columns of their own.
    originator_id: UUID | None = None
    originator_version: int = 0
    at: str = ""  # the time as text (hashing.format_time)


class StreamOpened(Light):
    kind: ClassVar[EventType] = EventType.OPENED


class MemoryWritten(Light):
    kind: ClassVar[EventType] = EventType.WRITTEN


class MemoryRetracted(Light):
    kind: ClassVar[EventType] = EventType.RETRACTED


class SessionEnded(Light):
    kind: ClassVar[EventType] = EventType.SESSION_ENDED


# A decoder for each light event, by the library's topic.
DECODERS: dict[str, msgspec.json.Decoder[Light]] = {
    EVENT_TYPES[cls.kind].TOPIC: msgspec.json.Decoder(cls)
    for cls in (StreamOpened, MemoryWritten, MemoryRetracted, SessionEnded)
}
