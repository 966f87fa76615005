"""The read side follows each write: the read model before any read, the
materialized files shortly after (a background thread), both tracked by
positions so that a process dying leaves nothing that the next one cannot fill."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from kairos.memory import Memory


def wait_for(check, seconds: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.01)
    return bool(check())


def test_another_process_reads_a_write_the_moment_it_returns(mem: Memory, home: Path,
                                                             db_url: str) -> None:
    writer = Memory(str(home), db_url, follow=False)  # no follower to help
    other = Memory(str(home), db_url)
    try:
        w = writer.write("ada", "MEMORY.md", "Sam lives in Oslo", user="sam")
        assert writer.engine.readmodel.position() < w.position  # not applied by the writer
        assert other.read("ada", "MEMORY.md", user="sam").content == "Sam lives in Oslo\n"
        row = other.event(w.event_id)
        assert row is not None and row["log_file"] and row["log_line"]
        assert [h["event_id"] for h in other.history("ada", user="sam")][-1] == w.event_id
    finally:
        other.close()
        writer.close()


def test_files_follow_a_write_without_a_flush(mem: Memory, home: Path) -> None:
    mem.write("ada", "SOUL.md", "I am Ada.")
    target = home / "memory/ada/SOUL.md"
    assert wait_for(lambda: target.exists() and target.read_text() == "I am Ada.\n")
    mem.write("ada", "SOUL.md", "I am Ada, still.", mode="replace")
    assert wait_for(lambda: target.read_text() == "I am Ada, still.\n")


def test_close_waits_for_the_files(home: Path, db_url: str) -> None:
    with Memory.init(str(home), db_url) as m:
        for i in range(20):
            m.write("ada", "MEMORY.md", f"fact {i}", user=f"u{i}")
    for i in range(20):
        assert (home / f"memory/ada/users/u{i}/MEMORY.md").read_text() == f"fact {i}\n"


def test_lost_files_are_written_again_on_open(mem: Memory, home: Path, db_url: str) -> None:
    mem.write("ada", "SOUL.md", "I am Ada.")
    mem.write("ada", "USER.md", "Name: Sam", user="sam")
    mem.close()
    shutil.rmtree(home / "memory")  # with the files position inside it
    with Memory(str(home), db_url):
        pass
    assert (home / "memory/ada/SOUL.md").read_text() == "I am Ada.\n"
    assert (home / "memory/ada/users/sam/USER.md").read_text() == "Name: Sam\n"


def test_the_files_position_names_what_is_on_disk(home: Path, db_url: str) -> None:
    Memory.init(str(home), db_url).close()
    mem = Memory(str(home), db_url, follow=False)
    first = mem.write("ada", "SOUL.md", "I am Ada.")
    assert mem.flush() == 1
    assert mem.engine.files.position() == first.position
    second = mem.write("ada", "ABOUT.md", "Made in Oslo.")
    assert mem.engine.files.position() == first.position
    assert not (home / "memory/ada/ABOUT.md").exists()
    assert mem.flush() == 1  # only what changed after the position
    assert mem.engine.files.position() == second.position
    assert mem.flush() == 0
    mem.close()


def test_entries_are_located_alike_one_by_one_and_in_one_pass(mem: Memory) -> None:
    for i in range(70):  # more than FEW, so both ways are taken
        mem.write("ada", "MEMORY.md", f"fact {i}\n## {i:06d} forged", user=f"u{i % 3}")
    mirror = mem.engine.mirror
    everything = mirror.locate()
    assert len(everything) == mem.engine.store.max_position()
    some = {2, 17, 31, max(everything)}
    assert mirror.locate(some) == {p: everything[p] for p in some}
    assert mirror.locate(set(everything)) == everything  # more than a few: one pass
    with open(f"{mem.engine.home}/{everything[17][0]}", encoding="utf-8") as f:
        assert f.read().split("\n")[everything[17][1] - 1].startswith("## 000017 ")


def test_a_reader_sees_a_write_another_process_made_in_a_new_day_file(
        mem: Memory, home: Path, db_url: str) -> None:
    from freezegun import freeze_time

    with freeze_time("2026-11-01T23:59:00Z"):
        mem.write("ada", "MEMORY.md", "Sam lives in Oslo", user="sam")
        assert mem.read("ada", "MEMORY.md", user="sam").content == "Sam lives in Oslo\n"
    other = Memory(str(home), db_url)
    try:
        with freeze_time("2026-11-02T00:01:00Z"):
            other.write("ada", "MEMORY.md", "Sam moved to Bergen", user="sam")
            assert (home / "logs/2026/11/2026-11-02.md").exists()
            # The reader's own last day file did not change: the new one is seen.
            assert mem.read("ada", "MEMORY.md", user="sam").content == (
                "Sam lives in Oslo\nSam moved to Bergen\n")
    finally:
        other.close()


def test_a_read_finishes_what_another_process_applied_half_of(mem: Memory, home: Path,
                                                              db_url: str) -> None:
    writer = Memory(str(home), db_url, follow=False)
    reader, rival = Memory(str(home), db_url), Memory(str(home), db_url)
    try:
        for i in range(3):
            writer.write("ada", "MEMORY.md", f"fact {i}", user="sam")
        real = reader.engine.indexer.write
        raced: list[int] = []

        def racing(out, batch, *, expect):  # type: ignore[no-untyped-def]
            # The rival applies the first event after the reader worked out
            # its batch from the rows before it, and before the reader writes.
            if not raced:
                first = rival.engine.store.read(after=expect, upto=expect + 1)
                raced.append(expect + 1)
                rival.engine._apply([list(first)], {}, expect)
            return real(out, batch, expect=expect)

        reader.engine.indexer.write = racing  # type: ignore[method-assign]
        assert reader.read("ada", "MEMORY.md", user="sam").content == "fact 0\nfact 1\nfact 2\n"
        assert raced  # the race happened: the reader's first batch was refused, then redone
        assert [r["text"] for r in reader.history("ada", user="sam")
                if r["type"] == "MemoryWritten"] == ["fact 0", "fact 1", "fact 2"]
    finally:
        reader.close()
        rival.close()
        writer.close()


def test_a_stopped_follower_does_not_restart_and_a_closed_memory_refuses_writes(
        mem: Memory) -> None:
    from kairos.errors import FollowerStopped, MemoryClosed

    mem.write("ada", "SOUL.md", "I am Ada.")
    follower = mem.engine.follower
    assert follower is not None
    follower.stop()
    with pytest.raises(FollowerStopped):
        follower.notify()
    mem.close()
    with pytest.raises(MemoryClosed, match="closed"):
        mem.write("ada", "SOUL.md", "I am Ada, still.", mode="replace")


def test_without_a_follower_reads_and_flush_bring_the_read_side_up(home: Path,
                                                                   db_url: str) -> None:
    Memory.init(str(home), db_url).close()
    with Memory(str(home), db_url, follow=False) as mem:
        assert mem.engine.follower is None
        w = mem.write("ada", "SOUL.md", "I am Ada.")
        assert mem.engine.readmodel.position() < w.position
        assert mem.read("ada", "SOUL.md").content == "I am Ada.\n"
        assert not (home / "memory/ada/SOUL.md").exists()
        assert mem.flush() == 1
    assert (home / "memory/ada/SOUL.md").read_text() == "I am Ada.\n"


def test_a_failure_in_the_follower_is_raised_at_the_next_read_not_swallowed(
        mem: Memory, home: Path) -> None:
    from kairos.errors import ReadSideFailed

    mem.write("ada", "SOUL.md", "I am Ada.")
    mem.flush()
    shutil.rmtree(home / "memory/ada")
    (home / "memory/ada").write_text("a file where a folder should be")
    mem.write("ada", "SOUL.md", "I am Ada, still.", mode="replace")
    failures: list[str] = []

    def failed() -> bool:
        try:
            mem.read("ada", "ABOUT.md")
        except ReadSideFailed as e:
            failures.append(str(e))
        return bool(failures)

    assert wait_for(failed)
    assert failures[0].startswith("the read side failed in the background: ")
    assert mem.read("ada", "SOUL.md").content == "I am Ada, still.\n"  # raised once
    (home / "memory/ada").unlink()
    assert mem.flush() == 1


def test_the_follower_gathers_a_burst_of_writes_into_one_round() -> None:
    from kairos.engine.follower import Follower

    rounds: list[float] = []
    follower = Follower(lambda: rounds.append(time.monotonic()), lambda: None,
                        delay=0.0, gather=0.5)
    try:
        start = time.monotonic()
        for _ in range(10):  # a burst, spread over about 0.1 s
            follower.notify()
            time.sleep(0.01)
        assert wait_for(lambda: len(rounds) >= 1)
        time.sleep(0.2)  # a second round, if the burst had made one, would have run by now
        assert len(rounds) == 1
        assert rounds[0] - start >= 0.5  # it waited for the rest of the burst
        follower.notify()  # a later write: a round of its own
        assert wait_for(lambda: len(rounds) == 2)
    finally:
        follower.stop()


def test_stopping_the_follower_cuts_its_wait_short() -> None:
    from kairos.engine.follower import Follower

    rounds: list[int] = []
    follower = Follower(lambda: rounds.append(1), lambda: None, delay=30.0, gather=30.0)
    follower.notify()
    time.sleep(0.05)  # in the wait before its round
    start = time.monotonic()
    follower.stop()
    assert time.monotonic() - start < 5.0
    assert rounds == []  # stopped before its round: what is left is the closer's to do
