"""Crashes, torn writes, lost databases, tampering: the home recovers or says what is wrong."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from freezegun import freeze_time

from kairos.errors import Inconsistent
from kairos.memory import Memory
from tests.conftest import Kairos


def kairos_process(home: Path, db_url: str, *args: str, crash: str | None = None
                   ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KAIROS_HOME": str(home), "KAIROS_DATABASE_URL": db_url}
    if crash:
        env["KAIROS_FAULT"] = crash
    return subprocess.run([sys.executable, "-m", "kairos.cli", *args], env=env,
                          capture_output=True, text=True)


def log_text(home: Path) -> str:
    return "".join(p.read_text() for p in sorted((home / "logs").rglob("*.md")))


def projections(home: Path) -> dict[str, bytes]:
    return {p.relative_to(home).as_posix(): p.read_bytes()
            for p in sorted((home / "memory").rglob("*.md"))}


def fill(mem: Memory) -> None:
    """A few days of realistic history on two pairs."""
    with freeze_time("2026-11-01T09:00:00Z"):
        mem.write("ada", "SOUL.md", "I am Ada, a careful assistant.")
        mem.write("ada", "MEMORY.md", "Sam lives in Oslo", user="sam")
    with freeze_time("2026-11-02T09:00:00Z"):
        w = mem.write("ada", "MEMORY.md", "Sam is allergic to nuts", user="sam")
        mem.write("ada", "USER.md", "Name: Kim", user="kim")
    with freeze_time("2026-11-03T09:00:00Z"):
        mem.retract("ada", "MEMORY.md", [w.event_id], user="sam", reason="it was Kim")
        mem.end_session("ada", "sam", session="s-1")
    mem.flush()


@pytest.mark.parametrize("crash", ["after-store-commit", "after-log-append"])
def test_a_crash_after_the_store_commit_is_completed_once_on_next_open(
        mem: Memory, home: Path, db_url: str, crash: str) -> None:
    mem.write("ada", "MEMORY.md", "before the crash", user="sam")
    mem.close()
    died = kairos_process(home, db_url, "write", "-a", "ada", "-u", "sam", "-f", "MEMORY.md",
                          "committed then crashed", crash=crash)
    assert died.returncode == 70
    # Died after the commit or after the log append: either
    # way before the materialized file was written.
    target = home / "memory/ada/users/sam/MEMORY.md"
    assert target.read_text() == "before the crash\n"
    assert log_text(home).count("committed then crashed") == (crash == "after-log-append")
    # A read (read-only: it repairs nothing) already shows the acknowledged write ...
    after = kairos_process(home, db_url, "read", "-a", "ada", "-u", "sam", "-f", "MEMORY.md")
    assert after.stdout == "before the crash\ncommitted then crashed\n"
    assert target.read_text() == "before the crash\n"
    # ... and the next command that may write completes the logs and the files.
    assert kairos_process(home, db_url, "files").returncode == 0
    assert target.read_text() == after.stdout
    assert log_text(home).count("committed then crashed") == 1
    again = kairos_process(home, db_url, "verify")
    assert again.returncode == 0, again.stdout
    assert log_text(home).count("committed then crashed") == 1


def test_a_torn_last_entry_is_moved_aside_and_rewritten(mem: Memory, home: Path,
                                                        db_url: str) -> None:
    fill(mem)
    mem.close()
    day = home / "logs/2026/11/2026-11-03.md"
    whole = day.read_bytes()
    cut = len(whole) - 150
    day.write_bytes(whole[:cut])  # the last entry lost its end in a crash
    with Memory(str(home), db_url) as m:
        assert [r.moved_to for r in m.engine.repairs] == ["logs/2026/11/2026-11-03.md.broken"]
        assert m.verify().ok
    assert day.read_bytes() == whole
    assert (home / "logs/2026/11/2026-11-03.md.broken").read_bytes() == whole[
        whole.rfind(b"\n## ", 0, cut) + 1:cut]


def test_a_torn_new_file_header_is_repaired(mem: Memory, home: Path, db_url: str) -> None:
    fill(mem)
    mem.close()
    day = home / "logs/2026/11/2026-11-03.md"
    whole = day.read_bytes()
    day.write_bytes(whole[:10])
    with Memory(str(home), db_url) as m:
        assert m.verify().ok
    assert day.read_bytes() == whole


def drop_database(home: Path, db_url: str) -> None:
    if db_url.startswith("sqlite"):
        for p in home.glob("kairos.db*"):
            p.unlink()
        return
    base, name = db_url.rsplit("/", 1)
    with psycopg.connect(base + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def test_a_lost_database_is_restored_from_the_logs(mem: Memory, home: Path, db_url: str,
                                                   kairos: Kairos) -> None:
    fill(mem)
    before_files, before_logs = projections(home), log_text(home)
    before_read = mem.read("ada", "MEMORY.md", user="sam").content
    mem.close()
    drop_database(home, db_url)
    shutil.rmtree(home / "memory")
    with pytest.raises(Inconsistent, match="rebuild --from-logs"):
        Memory(str(home), db_url)
    out = kairos("rebuild", "--from-logs")
    assert out.exit_code == 0, out.output
    assert "imported 9 events" in out.output
    assert kairos("verify").exit_code == 0
    assert projections(home) == before_files
    assert log_text(home) == before_logs
    with Memory(str(home), db_url) as m:
        assert m.read("ada", "MEMORY.md", user="sam").content == before_read
        m.write("ada", "MEMORY.md", "life goes on", user="sam")
        assert m.verify().ok


def test_rebuild_from_a_tampered_log_imports_nothing(mem: Memory, home: Path, db_url: str,
                                                     kairos: Kairos) -> None:
    fill(mem)
    mem.close()
    drop_database(home, db_url)
    day = home / "logs/2026/11/2026-11-01.md"
    day.write_text(day.read_text().replace("Oslo", "Oslp"))
    out = kairos("rebuild", "--from-logs")
    assert out.exit_code == 1
    assert "2026-11-01.md" in out.stderr and "nothing imported" in out.stderr
    with Memory(str(home), db_url, recover=False) as m:
        assert m.engine.store.max_position() == 0


def test_verify_names_an_edited_old_log_entry(mem: Memory, home: Path, kairos: Kairos) -> None:
    fill(mem)
    day = home / "logs/2026/11/2026-11-01.md"
    text = day.read_text()
    day.write_text(text.replace("Sam lives in Oslo", "Sam lives in Oslp"))
    line = text.split("\n").index("## 000004 MemoryWritten") + 1
    out = kairos("verify")
    assert out.exit_code == 1
    assert out.output.startswith(f"FAILED: logs/2026/11/2026-11-01.md:{line} (position 4): "
                                 "hash does not match")


def test_verify_names_a_changed_database_row(mem: Memory, db_url: str, kairos: Kairos) -> None:
    fill(mem)
    position = mem.write("ada", "MEMORY.md", "Sam likes jazz", user="sam").position
    mem.write("ada", "MEMORY.md", "Sam likes tea", user="sam")
    if db_url.startswith("sqlite"):
        import sqlite3

        with sqlite3.connect(db_url[len("sqlite:///"):]) as conn:
            conn.execute("UPDATE stored_events SET state = CAST(REPLACE(CAST(state AS TEXT), "
                         "'jazz', 'rock') AS BLOB) WHERE rowid = ?", (position,))
    else:
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute("UPDATE kairos_events SET state = convert_to(replace(convert_from("
                         "state, 'UTF8'), 'jazz', 'rock'), 'UTF8') WHERE notification_id = %s",
                         (position,))
    out = kairos("verify")
    assert out.exit_code == 1
    assert out.output.startswith(f"FAILED: store (position {position}): hash does not match")


def test_rebuild_reports_and_repairs_a_changed_projection(mem: Memory, home: Path,
                                                          kairos: Kairos) -> None:
    fill(mem)
    target = home / "memory/ada/users/sam/MEMORY.md"
    good = target.read_bytes()
    target.write_text("Sam lives in Paris\n")
    (home / "memory/ada/SOUL.md").unlink()
    out = kairos("rebuild")
    assert out.exit_code == 0
    assert "changed: memory/ada/users/sam/MEMORY.md" in out.output
    assert "missing: memory/ada/SOUL.md" in out.output
    assert target.read_bytes() == good and (home / "memory/ada/SOUL.md").exists()
    assert "changed" not in kairos("rebuild").output


def test_rebuild_regenerates_missing_and_damaged_log_files(mem: Memory, home: Path,
                                                           kairos: Kairos) -> None:
    fill(mem)
    first, second = home / "logs/2026/11/2026-11-01.md", home / "logs/2026/11/2026-11-02.md"
    good_first, good_second = first.read_bytes(), second.read_bytes()
    first.unlink()
    second.write_text(second.read_text().replace("Kim", "Tim"))
    assert kairos("verify").exit_code == 1
    out = kairos("rebuild")
    assert out.exit_code == 0, out.output
    assert "log written from the store: logs/2026/11/2026-11-01.md" in out.output
    assert "damaged log moved aside: logs/2026/11/2026-11-02.md" in out.output
    assert first.read_bytes() == good_first and second.read_bytes() == good_second
    assert "Tim" in (home / "logs/2026/11/2026-11-02.md.broken").read_text()
    assert kairos("verify").exit_code == 0


def test_rebuild_repairs_a_day_file_that_an_earlier_day_came_back_to(
        mem: Memory, home: Path, kairos: Kairos) -> None:
    """A clock that stepped back more than a day appends to an earlier day's
    file after later days began: the comparison follows each day's own file,
    and the damaged one is the one moved aside and written again."""
    fill(mem)  # 1, 2 and 3 November
    with freeze_time("2026-11-01T10:00:00Z"):
        mem.write("ada", "MEMORY.md", "two days back", user="sam")
    mem.close()
    days = {d: home / f"logs/2026/11/2026-11-0{d}.md" for d in (1, 2, 3)}
    good = {d: p.read_bytes() for d, p in days.items()}
    assert b"two days back" in good[1]
    days[1].write_bytes(good[1].replace(b"two days back", b"two days gone"))
    out = kairos("rebuild")
    assert out.exit_code == 0, out.output
    assert "damaged log moved aside: logs/2026/11/2026-11-01.md" in out.output
    assert {d: p.read_bytes() for d, p in days.items()} == good
    assert kairos("verify").exit_code == 0


def test_rebuild_is_byte_identical_to_the_incremental_projections(mem: Memory,
                                                                  home: Path) -> None:
    fill(mem)
    files = projections(home)
    rows = mem.engine.index.all_files()
    report = mem.rebuild()
    assert report.changed == [] and projections(home) == files
    assert mem.engine.index.all_files() == rows


def test_a_writer_open_through_another_process_crash_writes_in_order(
        mem: Memory, home: Path, db_url: str) -> None:
    mem.write("ada", "MEMORY.md", "before the crash", user="sam")  # the stream is cached
    died = kairos_process(home, db_url, "write", "-a", "ada", "-u", "sam", "-f", "MEMORY.md",
                          "committed then crashed", crash="after-store-commit")
    assert died.returncode == 70
    # The logs end where this process left them, so it trusts its cache: the
    # save conflicts on the version the dead process took, and the retry wins.
    after = mem.write("ada", "MEMORY.md", "after the crash", user="sam")
    assert after.position == 4
    assert mem.read("ada", "MEMORY.md", user="sam").content == (
        "before the crash\ncommitted then crashed\nafter the crash\n")
    assert log_text(home).count("committed then crashed") == 1
    assert mem.verify().ok
