"""The fast restore from the logs against the one it replaced.

A restore reads entries fast (text to fields, checked by rendering) and
makes each stored row without an event object.  These tests hold it to the
old way — every entry parsed into an event and stored through the library's
mapper, which :meth:`Store.state_encoder` returning None still forces —
row for row, for every event type, on both backends.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from uuid import UUID

import pytest
from freezegun import freeze_time
from hypothesis import given, settings
from hypothesis import strategies as st

from kairos import clock
from kairos.domain.events import EVENT_TYPES, Recorded, expected_hash
from kairos.domain.logfast import read_entry
from kairos.domain.logformat import parse_entries, render_entry
from kairos.engine import rebuild, restore
from kairos.engine.rebuild import repair_logs
from kairos.engine.restore import fast_row
from kairos.engine.store import KairosApplication, Store
from kairos.memory import Memory
from tests.conftest import Kairos, store_rows
from tests.test_logformat import events_for, texts
from tests.test_recovery import drop_database
from tests.test_store import every_kind_of_event


def odd_texts(mem: Memory) -> None:
    """Texts the log must escape or block: control characters, backslashes,
    a line that looks like a header, separators, non-Latin scripts; and the
    optional fields set."""
    with freeze_time("2026-11-03T00:00:00.000001Z"):
        mem.write("ada", "MEMORY.md", "tab\there\x01\x7f\x85 back\\slash \\x41\r\n## 000009 Forged",
                  user="sam", idempotency_key="key-1", session="s-2")
        mem.write("ada", "TOOLS.md", "line\u2028sep\u2029para 東京 İstanbul null")
        mem.write("ada", "MEMORY.md", "true", user="sam")
        mem.write("ada", "MEMORY.md", "12", user="eve")
        mem.end_session("ada", "eve", session="s-3", notes="she left\nearly")
        mem.engine.execute("ada", "sam", lambda stream: stream.refuse(  # a guard's refusal
            "loss", "llm", "model-x", {"prompt_tokens": 12, "cost": 0.0031}, clock.now()))


def restored(home: Path, db_url: str, monkeypatch: pytest.MonkeyPatch, *, fast: bool
             ) -> list[tuple[int, str, int, bytes]]:
    """The store's rows after dropping it and restoring it from the logs."""
    drop_database(home, db_url)
    made, compared = [], []
    with monkeypatch.context() as patch:
        if not fast:  # the old way: every entry an event, every row through the mapper
            patch.setattr(Store, "state_encoder", lambda self: None)
        patch.setattr(restore, "fast_row", lambda *a: made.append(1) or fast_row(*a))
        patch.setattr(rebuild, "repair_logs", lambda *a: compared.append(1) or repair_logs(*a))
        with Memory(str(home), db_url, recover=False) as m:
            report = m.rebuild(from_logs=True)
            assert report.imported == m.engine.store.max_position()
            # Fast: every row made from its entry, the logs not compared again.
            assert (len(made), len(compared)) == ((report.imported, 0) if fast else (0, 1))
            assert m.verify().ok
            rows = store_rows(m)
            topics = {t for (t,) in _topics(m)}
    assert topics == {cls.TOPIC for cls in EVENT_TYPES.values()}  # every event type
    return rows


def _topics(m: Memory) -> list[tuple[str]]:
    rows = m.engine.store.app.recorder.select_notifications(start=None, limit=10**9)
    return [(n.topic,) for n in rows]


def test_a_fast_restore_stores_exactly_the_rows_of_the_old_one(
        mem: Memory, home: Path, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    every_kind_of_event(mem)
    odd_texts(mem)
    mem.close()
    logs = {p: p.read_bytes() for p in (home / "logs").rglob("*.md")}
    fast = restored(home, db_url, monkeypatch, fast=True)
    assert restored(home, db_url, monkeypatch, fast=False) == fast
    assert {p: p.read_bytes() for p in (home / "logs").rglob("*.md")} == logs


def test_files_out_of_position_order_restore_fast_and_the_same(
        mem: Memory, home: Path, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A clock that stepped back more than a day: files whose positions
    interleave are merged, and each entry is where the store places it."""
    every_kind_of_event(mem)
    odd_texts(mem)
    with freeze_time("9999-12-31T23:00:00Z"):
        mem.write("ada", "MEMORY.md", "the wild reading", user="sam")
    with freeze_time("2026-11-02T09:05:00Z"):
        mem.write("ada", "MEMORY.md", "back to normal", user="sam")
    with freeze_time("2026-11-01T09:05:00Z"):
        mem.write("ada", "MEMORY.md", "two days back", user="sam")
    mem.close()
    logs = {p: p.read_bytes() for p in (home / "logs").rglob("*.md")}
    assert len(logs) == 4  # 1, 2 (and the later ones), 3 November; 9999
    assert restored(home, db_url, monkeypatch, fast=True) == restored(
        home, db_url, monkeypatch, fast=False)
    assert {p: p.read_bytes() for p in (home / "logs").rglob("*.md")} == logs


def test_every_entry_sqlite_wrote_is_read_fast_into_the_row_the_mapper_stores(
        mem: Memory, home: Path) -> None:
    every_kind_of_event(mem)
    odd_texts(mem)
    store = mem.engine.store
    encode = store.state_encoder()
    assert encode is not None
    seen = set()
    for rec in store.read():
        text = render_entry(rec.position, rec.event)
        fast = read_entry(text, 7)
        assert fast is not None, text
        assert fast.content_hash() == rec.event.hash
        parsed = parse_entries(text)[0].event  # what a restore stored before
        row, old = restore.fast_row(fast, encode), store.stored_row(Recorded(rec.position, parsed))
        assert (row[0], UUID(str(row[1])), *row[2:]) == old  # the id as hex digits, or a UUID
        seen.add(rec.event.kind)
    assert seen == set(EVENT_TYPES)


@pytest.mark.parametrize("edit", [
    ("- agent: ada\n", "- agent:\n\n      ada\n\n"),  # a block where a bare value goes
    ("- mode: append\n", "- mode: append \n"),
    ("      Sam likes tea.\n", "      Sam likes tea.\n      \n"),
    ("- user: sam\n", "- user (json): \"sam\"\n"),
])
def test_an_entry_not_in_its_rendering_is_parsed_and_ends_as_before(
        mem: Memory, home: Path, db_url: str, monkeypatch: pytest.MonkeyPatch,
        kairos: Kairos, edit: tuple[str, str]) -> None:
    """Hand-edited layouts never go the fast way: the old parser takes them,
    and the restore ends exactly as it did (imported, refused, or imported
    and then the logs found to differ from the store)."""
    every_kind_of_event(mem)
    mem.close()
    day = home / "logs/2026/11/2026-11-02.md"
    text = day.read_text()
    assert edit[0] in text
    day.write_text(text.replace(edit[0], edit[1], 1))
    outcomes = []
    for fast in (True, False):
        drop_database(home, db_url)
        with monkeypatch.context() as patch:
            if not fast:
                patch.setattr(Store, "state_encoder", lambda self: None)
            out = kairos("rebuild", "--from-logs")
        with Memory(str(home), db_url, recover=False, read_only=True) as m:
            outcomes.append((out.exit_code, out.stderr, out.output, store_rows(m)))
        day.write_text(text.replace(edit[0], edit[1], 1))
    assert outcomes[0] == outcomes[1]


def test_entries_with_macs_restore_fast_and_are_checked(
        home: Path, db_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        kairos: Kairos) -> None:
    key_path = tmp_path / "outside" / "entry.key"
    key_path.parent.mkdir()
    key_path.write_text(bytes(range(32)).hex() + "\n")
    monkeypatch.setenv("KAIROS_ENTRY_KEY", str(key_path))
    with Memory(str(home), db_url) as m:
        every_kind_of_event(m)
        odd_texts(m)
    day = home / "logs/2026/11/2026-11-02.md"
    assert "\n- mac: " in day.read_text()
    assert restored(home, db_url, monkeypatch, fast=True) == restored(
        home, db_url, monkeypatch, fast=False)
    calls = []
    monkeypatch.setattr(restore, "fast_row", lambda *a: calls.append(1) or fast_row(*a))
    drop_database(home, db_url)
    text = day.read_text()
    at = text.index("\n- mac: ") + 8
    day.write_text(text[:at] + ("0" if text[at] != "0" else "1") + text[at + 1:])
    out = kairos("rebuild", "--from-logs")
    assert out.exit_code == 1 and "its mac does not hold" in out.stderr
    assert calls  # the entries before the bad one did go the fast way
    with Memory(str(home), db_url, recover=False, read_only=True) as m:
        assert m.engine.store.max_position() == 0
    assert os.path.exists(day)


def test_a_store_that_holds_every_kind_of_event_is_found_to_match_its_logs(
        mem: Memory, home: Path, db_url: str, kairos: Kairos) -> None:
    """A restore into a store that still holds its events compares each with
    its entry as events: payloads in any key order, odd texts, every event
    type — an untouched home passes and nothing changes."""
    every_kind_of_event(mem)
    odd_texts(mem)
    mem.close()
    with Memory(str(home), db_url, recover=False, read_only=True) as m:
        before = store_rows(m)
    out = kairos("rebuild", "--from-logs")
    assert out.exit_code == 0, out.stderr
    with Memory(str(home), db_url, recover=False, read_only=True) as m:
        assert store_rows(m) == before


def test_logs_that_differ_from_a_store_with_events_are_refused(
        mem: Memory, home: Path, db_url: str, kairos: Kairos) -> None:
    """A store that still holds events is compared with the logs, entry by
    entry: the last event of a stream rewritten in the logs, its hash made
    good, is found; so is a store holding events the logs lack."""
    with freeze_time("2026-11-02T09:00:00Z"):
        for i in range(60):
            mem.write("ada", "MEMORY.md", f"fact {i} about the weather", user=f"u{i % 3}")
    last = mem.engine.store.max_position()
    rec = list(mem.engine.store.read())[-1]
    mem.close()
    day = home / "logs/2026/11/2026-11-02.md"
    text = day.read_text()
    forged = dataclasses.replace(rec.event, text="Sam owes Eve 1000 EUR")
    forged = dataclasses.replace(forged, hash=expected_hash(forged))
    original = render_entry(rec.position, rec.event)
    assert text.endswith(original)
    day.write_text(text[:-len(original)] + render_entry(rec.position, forged))
    out = kairos("rebuild", "--from-logs")
    assert out.exit_code == 1
    assert f"the store's event at position {last} differs from the logs" in out.stderr
    day.write_text(text[:-len(original)])  # the store's last event not in the logs
    out = kairos("rebuild", "--from-logs")
    assert out.exit_code == 1 and "the store holds events the logs do not" in out.stderr
    day.write_text(text)
    out = kairos("rebuild", "--from-logs")
    assert out.exit_code == 0, out.stderr


_mapper = KairosApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}).mapper


@settings(max_examples=300, deadline=None)
@given(st.lists(texts, min_size=1, max_size=4), texts)
def test_any_text_is_read_fast_into_the_fields_hash_and_row_of_its_event(
        written: list[str], reason: str) -> None:
    for position, event in enumerate(events_for(written, reason), 1):
        text = render_entry(position, event)
        fast = read_entry(text, 3)
        assert fast is not None, text
        assert fast.payload == {name: getattr(event, name) for name in fast.payload}
        assert fast.content_hash() == event.hash
        parsed = parse_entries(text)[0].event  # what a restore stored before
        stored = _mapper.to_stored_event(parsed)
        assert fast_row(fast, _mapper.transcoder.encode)[2:] == (
            stored.originator_version, stored.topic, stored.state)


def test_a_restore_into_a_lost_database_reports_one_line_per_table_not_a_row_each(
        mem: Memory, home: Path, db_url: str) -> None:
    """Every read-model row of a lost database is new after a restore: the
    report says so in a line per table (a home of a million events would
    otherwise print a million lines), and a read model emptied behind
    Kairos's back is reported the same way by a plain rebuild."""
    for i in range(30):
        mem.write("ada", "MEMORY.md", f"fact {i}", user="sam" if i % 2 else "eve")
    mem.close()
    drop_database(home, db_url)
    with Memory(str(home), db_url, recover=False) as m:
        report = m.rebuild(from_logs=True)
        last = m.engine.store.max_position()
        assert report.rows == [
            {"table": "memory_files", "status": "missing",
             "row": "all 2 rows (the read model was empty)"},
            {"table": "memory_index", "status": "missing",
             "row": f"all {last} rows, positions 1-{last} (the read model was empty)"}]
        assert m.rebuild().rows == []
        with m.engine.readmodel.engine.begin() as conn:
            conn.exec_driver_sql("DELETE FROM memory_index")
        assert [r["row"] for r in m.rebuild().rows] == [
            f"all {last} rows, positions 1-{last} (the read model was empty)"]
