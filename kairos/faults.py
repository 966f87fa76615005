"""The fault-injection seam: named points where a test can make a process die.

Production code calls :func:`point` by name at the few places whose crash
recovery the tests prove (after the store commit, after the log append,
before a dream records its proposal).  A point does nothing unless the
process was started with ``KAIROS_FAULT`` set to its name; then the process
exits at once with status 70, as a crash would, without cleanup.  The
variable is read once, at import: a disarmed point costs one comparison.
"""

from __future__ import annotations

import os

ENV = "KAIROS_FAULT"
CRASH_STATUS = 70
POINTS = ("after-store-commit", "after-log-append", "before-dream-record")

_armed = os.environ.get(ENV)


def point(name: str) -> None:
    """Die here when this point is armed."""
    if _armed == name:
        os._exit(CRASH_STATUS)
