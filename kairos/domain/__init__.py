"""The domain: the aggregate and its events, ids, hashes, files and their
folds, published versions, Merkle trees and the canonical text of events.

Nothing here does I/O or imports the rest of Kairos (but its errors and its
clock): the write path, the read side and every service depend on it, never
the reverse.  ``MemoryStream`` is re-exported here because the topics the
event store persists name it as ``kairos.domain:MemoryStream``.
"""

from kairos.domain.events import MemoryStream

__all__ = ["MemoryStream"]
