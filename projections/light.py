"""Events as plain attributes, for bulk loads.

A rebuild reads every event once.  Building each one as the library's domain
event (its mapper decodes the stored JSON with a hook per object, then makes
a frozen dataclass) is most of what reading costs, and the folds and the
index need only the fields.  :class:`Light` holds those fields as they were
stored, plus ``at``, the time as text; one subclass per event type, named like
the event class, because the folds dispatch on the class name.
"""

from __future__ import annotations

from typing import Any


class Light:
    def __init__(self, fields: dict[str, Any]):
        self.__dict__ = fields


# The events whose payloads are plain strings and lists (no transcoded value
# but the timestamp), by the library's topic.
LIGHT: dict[str, type[Light]] = {
    f"kairos.domain:MemoryStream.{name}": type(name, (Light,), {})
    for name in ("StreamOpened", "MemoryWritten", "MemoryRetracted", "SessionEnded")
}
