"""The one place Kairos reads the time (UTC), so tests can freeze it."""

from __future__ import annotations

from datetime import UTC, datetime


def now() -> datetime:
    return datetime.now(UTC)
