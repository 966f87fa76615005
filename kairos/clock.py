"""The one place Kairos reads the time (UTC), so tests can freeze it.

A time outside 1970–9999 is refused (:class:`~kairos.errors.ClockOutOfRange`)
before anything is recorded: every recorded time must have a four-digit year
(the log format, day files and as-of reads depend on it), and a clock set
before 1970 is a broken clock, not a date anyone means.
"""

from __future__ import annotations

from datetime import UTC, datetime

from kairos.errors import ClockOutOfRange

FIRST_YEAR, LAST_YEAR = 1970, 9999


def now() -> datetime:
    """The current time, UTC.

    :raises ClockOutOfRange: the system clock reads a year outside 1970–9999.
    """
    t = datetime.now(UTC)
    if not FIRST_YEAR <= t.year <= LAST_YEAR:
        raise ClockOutOfRange(f"the system clock reads {t.isoformat()}, outside "
                              f"{FIRST_YEAR}–{LAST_YEAR}: fix the clock; nothing was written")
    return t
