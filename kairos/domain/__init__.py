"""The domain: the aggregate and its events, ids, hashes, files and their
folds, published versions, Merkle trees and the canonical text of events.

Nothing here does I/O or imports the rest of Kairos (but its errors and its
clock): the write path, the read side and every service depend on it, never
the reverse.  ``MemoryStream`` is reachable here because the topics the
event store persists name it as ``kairos.domain:MemoryStream``; it is
imported on first use, so that a light module of the domain (ids, files,
kinds) does not load eventsourcing with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kairos.domain.events import MemoryStream

__all__ = ["MemoryStream"]


def __getattr__(name: str) -> Any:
    if name == "MemoryStream":
        from kairos.domain.events import MemoryStream

        return MemoryStream
    raise AttributeError(f"module 'kairos.domain' has no attribute {name!r}")
