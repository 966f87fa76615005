"""Entries land in the day file of their UTC recording date."""

from __future__ import annotations

from pathlib import Path

from freezegun import freeze_time

from kairos.memory import Memory


def test_midnight_splits_days_months_and_years(mem: Memory, home: Path) -> None:
    with freeze_time("2026-12-31T23:59:59Z"):
        mem.write("ada", "MEMORY.md", "last of the year", user="sam")
    with freeze_time("2027-01-01T00:00:00Z"):
        mem.write("ada", "MEMORY.md", "first of the year", user="sam")
    old = (home / "logs/2026/12/2026-12-31.md").read_text()
    new = (home / "logs/2027/01/2027-01-01.md").read_text()
    assert old.startswith("# Kairos log 2026-12-31\n") and "last of the year" in old
    assert new.startswith("# Kairos log 2027-01-01\n") and "first of the year" in new
    assert "first of the year" not in old and "last of the year" not in new
    assert "- time: 2026-12-31T23:59:59.000000Z" in old
    assert "- time: 2027-01-01T00:00:00.000000Z" in new


def test_local_time_zones_do_not_move_the_day(mem: Memory, home: Path) -> None:
    with freeze_time("2026-11-02T23:30:00-05:00"):  # already 04:30 on the 3rd in UTC
        mem.write("ada", "SOUL.md", "I am Ada.")
    assert (home / "logs/2026/11/2026-11-03.md").exists()


def test_a_clock_that_steps_back_keeps_the_logs_in_order(mem: Memory, home: Path) -> None:
    with freeze_time("2026-11-03T10:00:00Z"):
        mem.write("ada", "SOUL.md", "I am Ada.")
    with freeze_time("2026-11-02T10:00:00Z"):
        mem.write("ada", "ABOUT.md", "A helper.")
    assert not (home / "logs/2026/11/2026-11-02.md").exists()
    assert "A helper." in (home / "logs/2026/11/2026-11-03.md").read_text()
    assert mem.verify().ok
