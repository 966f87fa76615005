"""Tamper paths closed: the read model and the files are checked against the
folds, entries past the store's end are named and not imported on their
own, and per-entry MACs make a forged entry fail even past the last
checkpoint."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import pytest
from freezegun import freeze_time
from sqlalchemy import inspect

from kairos.domain.events import MemoryWritten, expected_hash
from kairos.domain.hashing import chain_hash
from kairos.domain.ids import event_id
from kairos.domain.logformat import render_entry
from kairos.errors import BadInput, Inconsistent, VerificationFailed
from kairos.memory import Memory
from kairos.projections.readmodel import INDEX_BEFORE
from tests.conftest import Kairos
from tests.test_recovery import drop_database, fill


def sql(db_url: str, statement: str) -> None:
    if db_url.startswith("sqlite"):
        with sqlite3.connect(db_url[len("sqlite:///"):]) as conn:
            conn.execute(statement)
    else:
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute(statement)  # type: ignore[arg-type]


def test_a_read_model_edited_with_sql_fails_verify_and_rebuild_reports_it(
        mem: Memory, db_url: str, kairos: Kairos) -> None:
    fill(mem)
    mem.close()
    sql(db_url, "UPDATE memory_files SET content = 'Sam owes Eve 1000 EUR' "
                "WHERE file = 'MEMORY.md' AND user_id = 'sam'")
    sql(db_url, "UPDATE memory_index SET text = 'forged' WHERE position = 4")
    out = kairos("verify")
    assert out.exit_code == 1
    assert "read model (position 4): memory_index row differs from the store's event in text" \
        in out.output
    assert "memory_files row ada/sam/MEMORY.md differs from the fold of its events" in out.output
    out = kairos("rebuild")
    assert out.exit_code == 0
    assert "repaired memory_files row ada/sam/MEMORY.md (changed)" in out.output
    assert "repaired memory_index row position 4 (changed)" in out.output
    assert kairos("verify").exit_code == 0
    assert "repaired" not in kairos("rebuild").output


# A forged value for each column of memory_index but the position (its own
# case: a row moved is one extra and one missing).
FORGED = {"event_id": "'forged-id'", "stream_id": "'forged'", "version": "999",
          "type": "'forged'", "agent_id": "'forged'", "user_id": "'forged'",
          "file": "'forged'", "actor": "'forged'", "session_id": "'forged'",
          "recorded_at": "'2026-01-01T00:00:00.000000Z'", "text": "'forged'",
          "retracted_by": "'forged'", "log_file": "'forged'", "log_line": "999",
          "ref": "'forged'"}


def test_rebuild_names_each_index_row_edited_in_any_column_lost_or_added(
        mem: Memory, home: Path, db_url: str) -> None:
    fill(mem)
    for i in range(len(FORGED) + 4):
        mem.write("ada", "MEMORY.md", f"Kim fact {i}", user="kim", mode="append")
    mem.flush()
    last = mem.engine.store.max_position()
    mem.close()
    edited = {2 + i: column for i, column in enumerate(FORGED)}
    for position, column in edited.items():
        sql(db_url, f"UPDATE memory_index SET {column} = {FORGED[column]} "
                    f"WHERE position = {position}")
    sql(db_url, f"DELETE FROM memory_index WHERE position = {last - 1}")
    sql(db_url, f"UPDATE memory_index SET position = {last + 7} WHERE position = {last}")
    with Memory(str(home), db_url) as m:
        report = m.rebuild()
        assert m.rebuild().rows == []  # and a rebuild of what it rebuilt finds nothing
    rows = {r["row"]: r["status"] for r in report.rows if r["table"] == "memory_index"}
    assert rows == {**{f"position {p}": "changed" for p in edited},
                    f"position {last - 1}": "missing", f"position {last}": "missing",
                    f"position {last + 7}": "extra"}


@pytest.mark.parametrize("dies_in", ["indexer.load", "readmodel.create_indexes",
                                     "readmodel.fill_search_index", "readmodel.index_differences",
                                     "files.set_position"])
def test_a_rebuild_that_died_is_redone_whole_on_the_next_open(
        mem: Memory, home: Path, db_url: str, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture, dies_in: str) -> None:
    """A rebuild marks the read model in the transaction that drops its
    indexes, until the read model is whole again; one that dies before (its
    indexes, its retractions, its search index) is redone by the next
    writable open — never a read model without its search index, or with a
    retracted line searchable — and what the redo repaired is said.  Until
    then, verify names it."""
    fill(mem)  # Sam's nut allergy is retracted
    want = mem.search("ada", "Oslo", user="sam")
    assert want and not mem.search("ada", "nuts", user="sam")
    mem.close()
    sql(db_url, "UPDATE memory_index SET text = 'forged' WHERE position = 3")  # before the rebuild
    with Memory(str(home), db_url) as m, monkeypatch.context() as patch:
        part, name = dies_in.split(".")

        def die(*_: object) -> None:
            raise KeyboardInterrupt  # as a kill leaves it: nothing after runs
        patch.setattr(getattr(m.engine, part), name, die)
        with pytest.raises(KeyboardInterrupt):
            m.rebuild()
    whole = dies_in == "files.set_position"  # the read model was whole: no mark left
    if not whole:  # a read-only open serves no half-made read model
        with pytest.raises(Inconsistent, match="a rebuild did not finish"):
            Memory(str(home), db_url, read_only=True)
    with Memory(str(home), db_url, recover=False) as m:
        problems = [str(p) for p in m.verify().problems]
        assert any("a rebuild did not finish" in p for p in problems) != whole, problems
    with caplog.at_level("WARNING", logger="kairos"), Memory(str(home), db_url) as m:
        assert m.search("ada", "Oslo", user="sam") == want
        assert not m.search("ada", "nuts", user="sam")
        assert m.verify().ok
        assert not m.engine.readmodel.rebuild_unfinished()
        with m.engine.readmodel.engine.connect() as conn:
            assert not inspect(conn).has_table(INDEX_BEFORE)
    redone = [r.getMessage() for r in caplog.records if "had not finished" in r.getMessage()]
    if whole:
        assert not redone
    else:  # the row forged before the rebuild that died is named by the redo
        assert len(redone) == 1 and "memory_index position 3: changed" in redone[0], redone


def test_a_rebuild_that_fails_on_a_file_leaves_the_home_usable(
        mem: Memory, home: Path, kairos: Kairos) -> None:
    """A rebuild that fails after the read model is whole (a materialized
    file it cannot write) fails in one line, and the commands after it work:
    it is not redone, and refused, on every open."""
    fill(mem)
    mem.close()
    target = home / "memory/ada/users/kim/USER.md"
    target.unlink()
    target.mkdir()
    out = kairos("rebuild")
    assert out.exit_code == 1 and "Traceback" not in out.output
    assert kairos("write", "--agent", "ada", "--user", "sam", "--file", "MEMORY.md",
                  "Sam likes tea").exit_code == 0
    found = kairos("search", "--agent", "ada", "--user", "sam", "tea")
    assert found.exit_code == 0 and "Sam likes tea" in found.output
    target.rmdir()
    assert kairos("rebuild").exit_code == 0
    assert kairos("verify").exit_code == 0


def test_an_edited_materialized_file_fails_verify(mem: Memory, home: Path,
                                                   kairos: Kairos) -> None:
    fill(mem)
    (home / "memory/ada/users/sam/MEMORY.md").write_text("Sam lives in Paris\n")
    (home / "memory/ada/users/eve").mkdir(parents=True)
    (home / "memory/ada/users/eve/MEMORY.md").write_text("planted\n")
    out = kairos("verify")
    assert out.exit_code == 1
    assert "memory/ada/users/sam/MEMORY.md: differs from the fold of its events" in out.output
    assert "memory/ada/users/eve/MEMORY.md: is not a file of any stream's events" in out.output


def forge(home: Path, mem: Memory, text: str, day: str = "2026-11-03",
          key: bytes | None = None) -> int:
    """Append a well-formed entry, hash chain and all, to a day log: what
    someone with write access to the logs (and not the store) can do."""
    rows = mem.history("ada", user="sam")
    last = rows[-1]
    version = last["version"] + 1
    sid = last["stream_id"]
    from uuid import UUID

    stream = UUID(sid)
    eid = event_id(stream, version)
    payload = {"agent": "ada", "user": "sam", "file": "MEMORY.md", "mode": "append",
               "actor": "agent", "session": None, "text": text}
    prev = mem.engine.store.stream(stream)[-1].hash
    from kairos.domain.hashing import parse_time

    when = parse_time(f"{day}T10:00:00.000000Z")
    event = MemoryWritten(originator_id=stream, originator_version=version, timestamp=when,
                          event_id=eid, prev=prev,
                          hash=chain_hash("MemoryWritten", stream, version, when, eid, prev,
                                          payload), **payload)
    assert expected_hash(event) == event.hash
    position = mem.engine.store.max_position() + 1
    with open(home / f"logs/{day[:4]}/{day[5:7]}/{day}.md", "a") as f:
        f.write(render_entry(position, event, key))
    return position


def test_a_forged_entry_past_the_store_is_named_and_not_imported(
        mem: Memory, home: Path, db_url: str, kairos: Kairos) -> None:
    fill(mem)
    mem.close()
    with Memory(str(home), db_url) as m:
        position = forge(home, m, "Sam owes Eve 1000 EUR")
    with pytest.raises(Inconsistent) as refused:
        Memory(str(home), db_url)
    message = str(refused.value)
    assert f"{position:06d} MemoryWritten at logs/2026/11/2026-11-03.md:" in message
    assert "rebuild --from-logs" not in message and "does not import them" in message
    out = kairos("verify")
    assert out.exit_code == 1 and "MemoryWritten past the store's end" in out.output
    out = kairos("rebuild", "--from-logs")
    assert out.exit_code == 1 and "nothing imported" in out.stderr
    with Memory(str(home), db_url, recover=False) as m:
        assert m.engine.store.max_position() == position - 1
    out = kairos("rebuild", "--from-logs", "--import-past-end")
    assert out.exit_code == 0 and "imported 1 events" in out.output


def test_a_lost_database_still_restores_without_a_flag(mem: Memory, home: Path, db_url: str,
                                                       kairos: Kairos) -> None:
    fill(mem)
    mem.close()
    drop_database(home, db_url)
    out = kairos("rebuild", "--from-logs")
    assert out.exit_code == 0 and "imported 9 events" in out.output


@pytest.fixture
def entry_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> bytes:
    path = tmp_path / "outside" / "entry.key"
    path.parent.mkdir()
    key = bytes(range(32))
    path.write_text(key.hex() + "\n")
    monkeypatch.setenv("KAIROS_ENTRY_KEY", str(path))
    return key


def test_entries_carry_macs_and_a_forged_one_fails_even_after_a_checkpoint(
        home: Path, db_url: str, entry_key: bytes, kairos: Kairos) -> None:
    with freeze_time("2026-11-03T09:00:00Z"), Memory(str(home), db_url) as m:
        m.write("ada", "MEMORY.md", "Sam likes tea", user="sam")
        m.seal()
        m.write("ada", "MEMORY.md", "Sam likes jazz", user="sam")
    logged = (home / "logs/2026/11/2026-11-03.md").read_text()
    assert logged.count("\n- mac: ") == logged.count("\n## ")
    assert kairos("verify").exit_code == 0
    with Memory(str(home), db_url, recover=False, read_only=True) as m:
        forge(home, m, "forged without the key")  # no mac line
    out = kairos("verify")
    assert out.exit_code == 1 and "has no mac, but the entries from position 1 on do" \
        in out.output


def test_a_forged_entry_with_a_wrong_mac_fails(home: Path, db_url: str, entry_key: bytes,
                                               kairos: Kairos) -> None:
    with freeze_time("2026-11-03T09:00:00Z"), Memory(str(home), db_url) as m:
        m.write("ada", "MEMORY.md", "Sam likes tea", user="sam")
    with Memory(str(home), db_url, recover=False, read_only=True) as m:
        forge(home, m, "forged with a guessed key", key=b"not the key at all!")
    out = kairos("verify")
    assert out.exit_code == 1 and "its mac does not hold" in out.output
    drop_database(home, db_url)
    out = kairos("rebuild", "--from-logs")
    assert out.exit_code == 1 and "its mac does not hold" in out.stderr


def test_logs_regenerate_with_their_macs_and_without_the_key_say_so(
        home: Path, db_url: str, entry_key: bytes, kairos: Kairos,
        monkeypatch: pytest.MonkeyPatch) -> None:
    with freeze_time("2026-11-03T09:00:00Z"), Memory(str(home), db_url) as m:
        m.write("ada", "MEMORY.md", "Sam likes tea", user="sam")
    day = home / "logs/2026/11/2026-11-03.md"
    good = day.read_bytes()
    day.unlink()
    monkeypatch.delenv("KAIROS_ENTRY_KEY")
    out = kairos("verify")
    assert out.exit_code == 1  # the log file is missing
    day.write_bytes(good)
    assert "were not checked" in kairos("verify").output  # macs, but no key: a note
    day.write_bytes(good.replace(b"Sam likes tea", b"Sam likes tee"))  # damaged
    out = kairos("rebuild")
    assert out.exit_code == 1 and "no entry key was given" in out.stderr
    monkeypatch.setenv("KAIROS_ENTRY_KEY", str(Path(str(home)).parent / "outside/entry.key"))
    assert kairos("rebuild").exit_code == 0
    assert day.read_bytes() == good


def test_an_entry_key_inside_the_home_is_refused(home: Path, db_url: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    Memory.init(str(home), db_url).close()
    (home / "entry.key").write_text("00" * 32)
    monkeypatch.setenv("KAIROS_ENTRY_KEY", str(home / "entry.key"))
    with pytest.raises(BadInput, match="inside the home"):
        Memory(str(home), db_url)


def test_verify_reports_entries_it_cannot_parse_without_tracebacks(
        mem: Memory, home: Path, kairos: Kairos) -> None:
    fill(mem)
    day = home / "logs/2026/11/2026-11-02.md"
    day.write_bytes(day.read_bytes() + b"\xff\xfe garbage\n")
    out = kairos("verify")
    assert out.exit_code == 1 and "2026-11-02.md" in out.output
    assert VerificationFailed.exit_code == 1
