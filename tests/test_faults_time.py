"""Time rules that survive a bad clock: four-digit years, a refused clock,
log placement after a wild reading, and as-of as the longest prefix."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from freezegun import freeze_time

from kairos.domain.hashing import format_time, parse_time
from kairos.domain.logformat import day_of
from kairos.engine.logmirror import placed_day
from kairos.errors import BadInput, ClockOutOfRange
from kairos.memory import Memory
from tests.conftest import Kairos, store_rows


def days(home: Path) -> list[str]:
    return sorted(p.name for p in (home / "logs").rglob("*.md"))


def test_years_before_1000_are_written_with_four_digits() -> None:
    for year in (1, 999, 1000, 9999):
        t = datetime(year, 3, 4, 5, 6, 7, 89, tzinfo=UTC)
        text = format_time(t)
        assert text.startswith(f"{year:04d}-03-04T05:06:07.000089Z") and len(text) == 27
        assert parse_time(text) == t and day_of(t) == text[:10]


@pytest.mark.parametrize("moment", ["1969-12-31T23:59:59Z", "0999-06-01T00:00:00Z"])
def test_a_clock_outside_1970_to_9999_is_refused_and_nothing_written(
        mem: Memory, moment: str) -> None:
    before = store_rows(mem)
    with freeze_time(moment), pytest.raises(ClockOutOfRange, match="outside 1970"):
        mem.write("ada", "MEMORY.md", "from the past", user="sam")
    assert store_rows(mem) == before
    assert mem.verify().ok


def test_placement_rule() -> None:
    assert placed_day("2026-11-30", None) == "2026-11-30"
    assert placed_day("2026-11-30", "2026-12-01") == "2026-12-01"  # one day back: stays
    assert placed_day("2026-11-29", "2026-12-01") == "2026-11-29"  # two: its own day
    assert placed_day("2026-11-30", "9999-12-31") == "2026-11-30"  # after a wild reading
    assert placed_day("2027-01-01", "2026-12-31") == "2027-01-01"
    assert placed_day("2026-02-28", "2026-03-01") == "2026-03-01"  # across a month end


def test_a_step_back_across_midnight_keeps_the_later_file(mem: Memory, home: Path) -> None:
    with freeze_time("2026-11-02T00:00:05Z"):
        mem.write("ada", "MEMORY.md", "after midnight", user="sam")
    with freeze_time("2026-11-01T23:59:58Z"):  # NTP stepped the clock back
        mem.write("ada", "MEMORY.md", "a moment earlier", user="sam")
    assert days(home) == ["2026-11-02.md"]
    assert mem.verify().ok


def test_one_wild_clock_reading_captures_nothing_after_it(mem: Memory, home: Path,
                                                          db_url: str, kairos: Kairos) -> None:
    with freeze_time("2026-11-02T09:00:00Z"):
        mem.write("ada", "MEMORY.md", "before", user="sam")
    with freeze_time("9999-12-31T23:00:00Z"):
        mem.write("ada", "MEMORY.md", "the wild reading", user="sam")
    with freeze_time("2026-11-02T09:05:00Z"):
        mem.write("ada", "MEMORY.md", "back to normal", user="sam")
    with freeze_time("2026-11-03T09:00:00Z"):
        mem.write("ada", "MEMORY.md", "the next day", user="sam")
        assert "the next day" in kairos("log").output  # today's log shows today's writes
    assert days(home) == ["2026-11-02.md", "2026-11-03.md", "9999-12-31.md"]
    assert mem.verify().ok
    rows = {r["text"]: (r["log_file"], r["log_line"]) for r in mem.history("ada", user="sam")}
    assert rows["back to normal"][0] == "logs/2026/11/2026-11-02.md"
    logs = {p.name: p.read_bytes() for p in (home / "logs").rglob("*.md")}
    mem.close()
    # Every reader copes with files out of position order: open (the tail is
    # in 2026-11-03, not in the newest-dated file), regeneration, restore.
    with freeze_time("2026-11-03T10:00:00Z"), Memory(str(home), db_url) as m:
        w = m.write("ada", "MEMORY.md", "after reopening", user="sam")
        assert m.history("ada", user="sam")[-1]["log_file"] == "logs/2026/11/2026-11-03.md"
        for p in (home / "logs").rglob("*.md"):
            p.unlink()
        m.rebuild()  # the logs written again from the store, by the same rule
        assert m.verify().ok and w.position == 6
    regenerated = {p.name: p.read_bytes() for p in (home / "logs").rglob("*.md")}
    assert regenerated.keys() == logs.keys()
    for name, data in logs.items():
        assert regenerated[name].startswith(data), name
    assert regenerated["2026-11-03.md"].endswith(b"      after reopening\n" + regenerated[
        "2026-11-03.md"].split(b"      after reopening\n")[1])
    with freeze_time("2026-11-03T11:00:00Z"):
        out = kairos("rebuild", "--from-logs")
    assert out.exit_code == 0 and "imported 0 events" in out.output


def test_as_of_is_the_longest_prefix_recorded_by_then(mem: Memory, kairos: Kairos) -> None:
    """A step back across midnight and a month end: 23:59:50 on 31 October,
    00:00:10 on 1 November, then the clock reads 23:59:55 on 31 October."""
    with freeze_time("2026-10-31T23:59:50Z"):
        mem.write("ada", "MEMORY.md", "A", user="sam")
    with freeze_time("2026-11-01T00:00:10Z"):
        mem.write("ada", "MEMORY.md", "B", user="sam")
    with freeze_time("2026-10-31T23:59:55Z"):
        mem.write("ada", "MEMORY.md", "C recorded after B", user="sam")

    def at(moment: str) -> str | None:
        return mem.read("ada", "MEMORY.md", user="sam", as_of=moment).content

    assert at("2026-10-31T23:59:49Z") is None
    assert at("2026-10-31T23:59:52Z") == "A\n"
    # C's time is before this moment, but it was recorded after B, which is
    # not: a write recorded after the moment is never part of it.
    assert at("2026-10-31T23:59:58Z") == "A\n"
    assert at("2026-11-01T00:00:10Z") == "A\nB\nC recorded after B\n"
    traced = kairos("trace", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--as-of",
                    "2026-10-31T23:59:58Z", "--json")
    assert [r["text"] for r in __import__("json").loads(traced.stdout)] == ["A"]


def test_unparsable_or_out_of_range_days_are_bad_input(mem: Memory) -> None:
    for day in ("99999-01-01", "2026-13-01", "0000-01-01", "../../etc"):
        with pytest.raises(BadInput):
            mem.log(day)
