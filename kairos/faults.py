"""The fault-injection seam: named points where a test can make a process
die, or make an operation fail as a full or read-only disk would.

Production code calls :func:`point` by name at the few places whose crash
recovery the tests prove (:data:`POINTS`).  A point does nothing unless the
process was started with ``KAIROS_FAULT`` naming it:

* ``KAIROS_FAULT=<point>`` — the process exits at once with status 70, as a
  crash (``kill -9``) would, without cleanup;
* ``KAIROS_FAULT=<ERRNO>@<point>`` (e.g. ``ENOSPC@log-append``) — the point
  raises ``OSError(<ERRNO>)``, as the storage would: the tests of clear
  errors and of "nothing acknowledged is lost" use it where a real full or
  read-only disk cannot be had (no root, no ``mount``).

The variable is read once, at import: a disarmed point costs one comparison.
"""

from __future__ import annotations

import errno
import os

ENV = "KAIROS_FAULT"
CRASH_STATUS = 70
POINTS = (
    "after-store-commit",  # the event is in the store, its log entry not yet written
    "log-append",  # about to append log entries (errno faults: a full or read-only disk)
    "after-log-append",  # the write is acknowledged-complete but the follower has not run
    "before-dream-record",  # a dream distilled, its proposal not yet recorded
    "after-seal-commit",  # a checkpoint event recorded, its file not yet written
)

_armed = os.environ.get(ENV)


def arm(value: str | None) -> None:
    """Arm (or with None disarm) a point in this process (in-process tests)."""
    global _armed
    _armed = value


def point(name: str) -> None:
    """Die here, or raise the armed errno, when this point is armed."""
    if _armed is not None:
        _fire(name)


def _fire(name: str) -> None:
    if _armed == name:
        os._exit(CRASH_STATUS)
    code, _, at = (_armed or "").partition("@")
    if at == name and hasattr(errno, code):
        number = getattr(errno, code)
        raise OSError(number, os.strerror(number) + f" (injected at {name})")
