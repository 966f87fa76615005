"""Events as plain attributes, for bulk loads.

A rebuild reads every event once.  Building each one as the library's domain
event (its mapper decodes the stored JSON with a Python hook per object, then
makes a frozen dataclass) is most of what reading costs, and the folds and
the index need only the fields.  The common events are decoded instead
straight from their stored JSON into :class:`Light` structs (msgspec, in C),
one subclass per event type, named like the event class, because the folds
dispatch on the class name.  ``tests/test_store.py`` checks that they give
the same index rows and folds as the domain events, for every event type.
"""

from __future__ import annotations

from typing import Any

import msgspec


class Light(msgspec.Struct, kw_only=True):
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
    reason: str | None = None
    notes: str | None = None
    # Not in the stored JSON: the library keeps them in columns of their own.
    originator_id: Any = None
    originator_version: int = 0
    at: str = ""  # the time as text (hashing.format_time)


class StreamOpened(Light):
    pass


class MemoryWritten(Light):
    pass


class MemoryRetracted(Light):
    pass


class SessionEnded(Light):
    pass


# A decoder for each light event, by the library's topic.
DECODERS: dict[str, Any] = {
    f"kairos.domain:MemoryStream.{cls.__name__}": msgspec.json.Decoder(cls)
    for cls in (StreamOpened, MemoryWritten, MemoryRetracted, SessionEnded)
}
