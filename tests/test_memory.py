"""The memory model through the Python API, on SQLite and on PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from freezegun import freeze_time

from kairos.errors import BadInput, NotAHome, StorageFailed
from kairos.memory import Memory


def test_append_adds_a_line_and_replace_sets_the_file(mem: Memory) -> None:
    mem.write("ada", "MEMORY.md", "Sam prefers tea", user="sam")
    mem.write("ada", "MEMORY.md", "Sam lives in Oslo", user="sam")
    assert mem.read("ada", "MEMORY.md", user="sam").content == "Sam prefers tea\nSam lives in Oslo\n"
    mem.write("ada", "MEMORY.md", "Only this", user="sam", mode="replace")
    assert mem.read("ada", "MEMORY.md", user="sam").content == "Only this\n"


def test_a_file_exists_only_once_written(mem: Memory, home: Path) -> None:
    result = mem.read("ada", "USER.md", user="sam")
    assert result.content is None and not result.exists and result.size == 0
    assert not (home / "memory" / "ada" / "users" / "sam" / "USER.md").exists()
    mem.write("ada", "USER.md", "Name: Sam", user="sam")
    mem.flush()
    assert (home / "memory/ada/users/sam/USER.md").read_text() == "Name: Sam\n"


def test_write_returns_event_id_and_position_in_global_order(mem: Memory) -> None:
    a = mem.write("ada", "SOUL.md", "I am Ada.")
    b = mem.write("ada", "MEMORY.md", "fact", user="sam")
    assert a.position < b.position
    assert mem.event(a.event_id)["position"] == a.position


def test_agent_files_are_shared_and_pair_files_are_not(mem: Memory) -> None:
    mem.write("ada", "SOUL.md", "I am Ada.")
    mem.write("ada", "MEMORY.md", "secret of sam", user="sam")
    mem.write("ada", "MEMORY.md", "secret of kim", user="kim")
    mem.write("bob", "MEMORY.md", "bob's own", user="sam")
    assert mem.read("ada", "MEMORY.md", user="sam").content == "secret of sam\n"
    assert mem.read("ada", "MEMORY.md", user="kim").content == "secret of kim\n"
    assert mem.read("bob", "MEMORY.md", user="sam").content == "bob's own\n"
    history = mem.history("ada", user="sam")
    texts = " ".join(str(r["text"]) for r in history)
    assert "secret of sam" in texts and "kim" not in texts and "bob" not in texts
    assert {r["user_id"] for r in history} == {"sam"}
    assert [r["text"] for r in mem.history("ada") if r["text"]] == ["I am Ada."]
    ada_sam_log = mem.log(None, agent="ada", user="sam")
    assert "secret of sam" in ada_sam_log and "I am Ada." in ada_sam_log
    assert "secret of kim" not in ada_sam_log and "bob's own" not in ada_sam_log


def test_hard_limit_refuses_and_writes_nothing(mem: Memory) -> None:
    mem.write("ada", "USER.md", "x" * 1990, user="sam")
    with pytest.raises(BadInput, match=r"USER.md would be 2001 chars, over its hard limit of 2000"):
        mem.write("ada", "USER.md", "y" * 10, user="sam")
    assert mem.read("ada", "USER.md", user="sam").size == 1990
    assert len(mem.history("ada", user="sam", file="USER.md")) == 1


def test_a_file_may_fill_its_hard_limit_exactly(mem: Memory) -> None:
    assert mem.write("ada", "SOUL.md", "s" * 2000).size == 2000
    with pytest.raises(BadInput, match="SOUL.md would be 2001 chars"):
        mem.write("ada", "SOUL.md", "s" * 2001, mode="replace")
    mem.write("ada", "ABOUT.md", "a" * 999)
    mem.write("ada", "ABOUT.md", "b" * 1000)
    assert mem.read("ada", "ABOUT.md").size == 2000


def test_soft_limit_accepts_and_flags_compress(mem: Memory) -> None:
    result = mem.write("ada", "MEMORY.md", "m" * 5200, user="sam")
    assert result.over_limit and result.limit == 5000
    read = mem.read("ada", "MEMORY.md", user="sam")
    assert read.over_limit and read.size == 5200


def test_limits_are_per_file_settings(home: Path, db_url: str) -> None:
    Memory.init(str(home), db_url).close()
    (home / "kairos.toml").write_text('[limits]\n"TOOLS.md" = 3000\n')
    with Memory(str(home), db_url) as m:
        m.write("ada", "TOOLS.md", "t" * 2500)
        with pytest.raises(BadInput, match="hard limit of 3000"):
            m.write("ada", "TOOLS.md", "t" * 600)


def test_retraction_removes_what_the_event_added_and_history_keeps_it(mem: Memory) -> None:
    wrong = mem.write("ada", "MEMORY.md", "Sam lives in Rome", user="sam")
    mem.write("ada", "MEMORY.md", "Sam prefers tea", user="sam")
    r = mem.retract("ada", "MEMORY.md", [wrong.event_id], user="sam", reason="moved")
    assert mem.read("ada", "MEMORY.md", user="sam").content == "Sam prefers tea\n"
    rows = {row["event_id"]: row for row in mem.history("ada", user="sam")}
    assert rows[wrong.event_id]["text"] == "Sam lives in Rome"
    assert rows[wrong.event_id]["retracted_by"] == r.event_id
    assert rows[r.event_id]["text"] == "moved"


def test_retracting_everything_makes_the_file_absent(mem: Memory, home: Path) -> None:
    w = mem.write("ada", "USER.md", "Name: Sam", user="sam")
    mem.retract("ada", "USER.md", [w.event_id], user="sam", reason="asked to forget")
    assert mem.read("ada", "USER.md", user="sam").content is None
    mem.flush()
    assert not (home / "memory/ada/users/sam/USER.md").exists()


@pytest.mark.parametrize("case", ["unknown", "other pair", "other file", "twice", "not a write"])
def test_bad_retractions_are_refused(mem: Memory, case: str) -> None:
    mine = mem.write("ada", "MEMORY.md", "mine", user="sam")
    other = mem.write("ada", "MEMORY.md", "theirs", user="kim")
    user_md = mem.write("ada", "USER.md", "Name: Sam", user="sam")
    session = mem.end_session("ada", "sam")
    ids = {"unknown": ["00000000-0000-0000-0000-000000000000"], "other pair": [other.event_id],
           "other file": [user_md.event_id], "twice": [mine.event_id, mine.event_id],
           "not a write": [session.event_id]}[case]
    with pytest.raises(BadInput):
        mem.retract("ada", "MEMORY.md", ids, user="sam", reason="x")
    assert mem.read("ada", "MEMORY.md", user="sam").content == "mine\n"


def test_a_retraction_cannot_be_repeated(mem: Memory) -> None:
    w = mem.write("ada", "MEMORY.md", "fact", user="sam")
    mem.retract("ada", "MEMORY.md", [w.event_id], user="sam", reason="wrong")
    with pytest.raises(BadInput, match="already retracted"):
        mem.retract("ada", "MEMORY.md", [w.event_id], user="sam", reason="again")


def test_read_as_of_a_time_and_a_version(mem: Memory) -> None:
    with freeze_time("2026-11-01T10:00:00Z"):
        mem.write("ada", "MEMORY.md", "first", user="sam")
    with freeze_time("2026-11-02T10:00:00Z"):
        mem.write("ada", "MEMORY.md", "second", user="sam")
    with freeze_time("2026-11-03T10:00:00Z"):
        mem.write("ada", "MEMORY.md", "third", user="sam", mode="replace")
    assert mem.read("ada", "MEMORY.md", user="sam", as_of="2026-10-31").content is None
    assert mem.read("ada", "MEMORY.md", user="sam", as_of="2026-11-01T12:00:00Z").content == "first\n"
    assert mem.read("ada", "MEMORY.md", user="sam",
                    as_of="2026-11-02T10:00:00+00:00").content == "first\nsecond\n"
    assert mem.read("ada", "MEMORY.md", user="sam", as_of="2026-11-04").content == "third\n"
    # stream version 1 opens the stream, 2 is the first write
    assert mem.read("ada", "MEMORY.md", user="sam", stream_version=1).content is None
    assert mem.read("ada", "MEMORY.md", user="sam", stream_version=3).content == "first\nsecond\n"


def test_sessions_are_events_of_the_pair(mem: Memory) -> None:
    mem.end_session("ada", "sam", session="s-1")
    mem.end_session("ada", "sam", session="s-2", notes="talked about tea")
    rows = [r for r in mem.history("ada", user="sam") if r["type"] == "SessionEnded"]
    assert [r["session_id"] for r in rows] == ["s-1", "s-2"]
    assert rows[1]["text"] == "talked about tea"


def test_a_long_stream_loads_without_replaying_everything(mem: Memory) -> None:
    for i in range(450):
        mem.write("ada", "MEMORY.md", f"fact {i}", user="sam", mode="replace")
    snapshots = mem.engine.store.app.snapshots
    assert snapshots is not None
    from kairos.domain.events import MemoryStream

    assert list(snapshots.get(MemoryStream.stream_id("ada", "sam"), desc=True, limit=1))[0] \
        .originator_version == 400
    assert mem.read("ada", "MEMORY.md", user="sam").content == "fact 449\n"


def test_a_directory_that_is_not_a_home_is_refused(tmp_path: Path) -> None:
    with pytest.raises(NotAHome):
        Memory(str(tmp_path))


def test_a_failed_save_leaves_no_trace_in_the_cached_stream(mem: Memory, monkeypatch) -> None:
    mem.write("ada", "MEMORY.md", "kept", user="sam")
    app = mem.engine.store.app

    def broken(*args, **kwargs):
        raise OSError("disk on fire")

    monkeypatch.setattr(app.events, "put", broken)
    with pytest.raises(StorageFailed, match="disk on fire"):  # never a raw OSError
        mem.write("ada", "MEMORY.md", "lost in the fire", user="sam")
    monkeypatch.undo()
    mem.write("ada", "MEMORY.md", "after the fire", user="sam")
    assert mem.read("ada", "MEMORY.md", user="sam").content == "kept\nafter the fire\n"
    assert [r["version"] for r in mem.history("ada", user="sam")] == [1, 2, 3]
    assert mem.verify().ok
