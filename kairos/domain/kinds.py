"""The kinds of event, in a module of their own so that the folds and the
event classes can both dispatch on them without importing each other."""

from __future__ import annotations

from enum import StrEnum

# Who can record an event (the command line offers all but "import").  Here,
# not with the event classes, so the command line can name them without
# loading the event store's library.
ACTORS = ("agent", "user", "system", "import")

# Fields every event has; the rest of an event's fields are its payload.
# Here, not with the event classes, so that a reader of stored events and
# log entries (kairos.engine.quickread) can tell them apart without the
# event store's library.
BASE_FIELDS = frozenset(
    {"originator_id", "originator_version", "timestamp", "originator_topic",
     "event_id", "prev", "hash"}
)


class EventType(StrEnum):
    """The kinds of event, valued by the type name that hashes, log entries
    and the event index use.  Every event class (and each light struct of
    :mod:`kairos.projections.light`) names its kind in ``kind``: dispatch is
    one attribute read and an identity test, never a comparison of class
    names."""

    OPENED = "StreamOpened"
    WRITTEN = "MemoryWritten"
    RETRACTED = "MemoryRetracted"
    SESSION_ENDED = "SessionEnded"
    PROPOSED = "DreamProposed"
    APPROVED = "DreamApproved"
    REJECTED = "DreamRejected"
    REFUSED = "DreamRefused"
    ROLLED_BACK = "VersionRolledBack"
    SEALED = "CheckpointSealed"
    ERASED = "SubjectErased"
    KEY_ISSUED = "KeyIssued"
    KEY_REVOKED = "KeyRevoked"
