"""The costs that must not grow with a home (issue 13, items 1-3), as
behaviour: opening reads only the end of the newest day file; verification
and rebuilds stream day files entry by entry — with blocks made tiny here,
so a day file of a few hundred entries spans many of them — and find,
report and repair exactly what reading files whole did.  Timings are
benchmarks (benchmarks/bench_scale.py), not tests."""

from __future__ import annotations

import builtins
import shutil
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import pytest
from freezegun import freeze_time

from kairos.domain.events import MemoryStream
from kairos.domain.logformat import LogFormatError, parse_day
from kairos.engine import logread
from kairos.memory import Memory

DAY = "2026-11-02"
WHEN = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def seed(mem: Memory, events: int, per_stream: int = 50) -> None:
    """Many events in one day file, quickly: whole streams per save."""
    for s in range(events // per_stream):
        stream = MemoryStream.open("ada", f"u{s}", WHEN)
        for i in range(per_stream - 1):
            stream.write("MEMORY.md", f"fact {i} of user {s}", "append", "agent", None, WHEN)
        mem.engine.store.save(stream)
    mem.engine.catch_up()
    mem.flush()


def day_file(home: Path) -> Path:
    return home / "logs" / "2026" / "11" / f"{DAY}.md"


class Counting:
    """Counts the bytes read from one file through ``open``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, path: Path):
        self.path, self.total, self.largest = str(path), 0, 0
        real = builtins.open
        outer = self

        class Reader:
            def __init__(self, f: IO[bytes]):
                self.f = f

            def read(self, n: int = -1) -> bytes:
                data = self.f.read(n)
                outer.total += len(data)
                outer.largest = max(outer.largest, len(data))
                return data

            def __getattr__(self, name: str) -> Any:
                return getattr(self.f, name)

            def __enter__(self) -> Reader:
                return self

            def __exit__(self, *exc: object) -> None:
                self.f.close()

        def counting_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            f = real(file, mode, *args, **kwargs)
            return Reader(f) if str(file) == outer.path and "r" in mode else f

        for module in ("kairos.engine.logread", "kairos.engine.logmirror",
                       "kairos.engine.rebuild", "kairos.engine.verify"):
            monkeypatch.setattr(f"{module}.open", counting_open, raising=False)


@pytest.fixture
def big(tmp_path: Path) -> Iterator[Path]:
    """A home whose one day file holds 1,500 entries (about 0.6 MB)."""
    home = tmp_path / "home"
    with Memory.init(str(home)) as mem:
        seed(mem, 1500)
    yield home


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 2 KB: every streamed day file spans hundreds of them."""
    monkeypatch.setattr(logread, "BLOCK", 2048)


def test_opening_reads_only_the_end_of_the_day_file(big: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = day_file(big)
    size = path.stat().st_size
    assert size > 500_000
    counted = Counting(monkeypatch, path)
    with Memory(str(big)) as mem:
        assert mem.engine.mirror.current_tail().position == 1500
    assert 0 < counted.total < 64 * 1024  # a few kilobytes of its end, not 0.6 MB


def test_a_write_after_a_cheap_open_lands_on_the_right_line(big: Path) -> None:
    """The open does not count the tail file's lines; the first write into
    it does, once, and records the right line."""
    with freeze_time("2026-11-02T10:00:00Z"), Memory(str(big)) as mem:
        assert mem.engine.mirror.current_tail().lines is None
        for n in range(2):
            result = mem.write("ada", "MEMORY.md", f"one more fact {n}", user="sam")
            mem.flush()
            row = mem.event(result.event_id)
            assert row["log_file"] == f"logs/2026/11/{DAY}.md"
            lines = day_file(big).read_text().split("\n")
            assert lines[row["log_line"] - 1] == f"## {row['position']:06d} MemoryWritten"
        assert mem.verify().ok


def test_a_torn_tail_is_repaired_reading_only_the_end(big: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path = day_file(big)
    whole = path.read_bytes()
    with open(path, "ab") as f:
        f.write(b"## 001501 MemoryWritten\n\n- time: 2026-11")  # a write cut short
    counted = Counting(monkeypatch, path)
    with Memory(str(big)) as mem:
        assert [r.nbytes for r in mem.engine.repairs] == [len(b"## 001501 MemoryWritten\n\n"
                                                               b"- time: 2026-11")]
    assert counted.total < 64 * 1024
    assert path.read_bytes() == whole


def test_streamed_entries_are_the_whole_file_parse(big: Path, small_blocks: None) -> None:
    path = day_file(big)
    assert list(logread.iter_entries(str(path), DAY)) == parse_day(path.read_text(), DAY)


@pytest.mark.parametrize("damage", [
    ("- agent: ada\n", "- agent ada\n"),  # not a field line
    ("- hash: ", "- hush: "),  # an entry without its hash line
    ("\n\n## 000900 ", "\n## 000900 "),  # no blank line between two entries
    ("- text:\n\n      fact 3 of user 20\n\n", "- text:\n\n      fact 3 of user 20\n"),
])
def test_streamed_parse_fails_where_the_whole_file_does(big: Path, small_blocks: None,
                                                        damage: tuple[str, str]) -> None:
    path = day_file(big)
    text = path.read_text()
    at = text.index(damage[0], len(text) // 2)
    path.write_text(text[:at] + text[at:].replace(damage[0], damage[1], 1))
    with pytest.raises(LogFormatError) as whole:
        parse_day(path.read_text(), DAY)
    for block in (2048, 4096, 1 << 20):
        logread.BLOCK = block
        with pytest.raises(LogFormatError) as streamed:
            list(logread.iter_entries(str(path), DAY))
        assert (streamed.value.line, streamed.value.reason) == (whole.value.line,
                                                                 whole.value.reason)


def test_verify_streams_and_names_the_first_bad_entry(big: Path, small_blocks: None,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path = day_file(big)
    with Memory(str(big), read_only=True) as mem:
        counted = Counting(monkeypatch, path)
        report = mem.verify()
        assert report.ok, report.problems
        assert report.events == 1500
    assert counted.largest <= 4 * 2048  # never the whole file at once
    text = path.read_text()
    at = text.index("fact 7 of user 25")
    header = text.rfind("\n## ", 0, at) + 1
    line = text.count("\n", 0, header) + 1  # the entry's header line is named
    path.write_text(text[:at] + "fact 8 of user 25" + text[at + len("fact 7 of user 25"):])
    with Memory(str(big), read_only=True) as mem:
        report = mem.verify()
    assert not report.ok
    rel = f"logs/2026/11/{DAY}.md"
    differs = [p for p in report.problems if p.message == "differs from the store's event"]
    assert [(p.where, p.line) for p in differs] == [(rel, line)]
    assert f"## {differs[0].position:06d} " == text[header:header + 10]


def test_verify_names_a_truncated_file_and_an_extra_entry(big: Path, small_blocks: None) -> None:
    path = day_file(big)
    text = path.read_text()
    cut = text.index("## 000700 ")
    path.write_text(text[:cut])
    with Memory(str(big), recover=False, read_only=True) as mem:
        problems = mem.verify().problems
    assert any(p.message == "ends before the store's events do" and p.position == 700
               for p in problems)
    path.write_text(text + text[cut:text.index("## 000701 ")].replace("## 000700 ",
                                                                       "## 001501 "))
    with Memory(str(big), recover=False, read_only=True) as mem:  # as `kairos verify` opens
        problems = mem.verify().problems
    assert any("past the store's end" in p.message and p.position == 1501 for p in problems)


def test_rebuild_streams_and_repairs_a_damaged_day_file(big: Path, small_blocks: None) -> None:
    path = day_file(big)
    whole = path.read_bytes()
    text = whole.decode()
    at = text.index("fact 7 of user 25")
    path.write_text(text[:at] + "fact 8 of user 25" + text[at + len("fact 7 of user 25"):])
    with Memory(str(big)) as mem:
        report = mem.rebuild()
    assert report.logs_moved == [{"file": f"logs/2026/11/{DAY}.md",
                                  "moved_to": f"logs/2026/11/{DAY}.md.broken"}]
    assert path.read_bytes() == whole
    assert report.events == 1500 and report.rows == []


def test_rebuild_reports_edited_rows_without_a_map_of_every_row(big: Path,
                                                                small_blocks: None) -> None:
    db = sqlite3.connect(big / "kairos.db")
    with db:
        db.execute("UPDATE memory_index SET text = 'forged' WHERE position IN (10, 1200)")
        db.execute("DELETE FROM memory_index WHERE position = 900")
    db.close()
    with Memory(str(big)) as mem:
        report = mem.rebuild()
        assert mem.verify().ok
    assert report.rows == [
        {"table": "memory_index", "row": "position 10", "status": "changed"},
        {"table": "memory_index", "row": "position 1200", "status": "changed"},
        {"table": "memory_index", "row": "position 900", "status": "missing"},
    ]


def test_a_restore_from_streamed_logs_gives_the_same_home(big: Path, small_blocks: None,
                                                          tmp_path: Path) -> None:
    logs = {p.relative_to(big): p.read_bytes() for p in (big / "logs").rglob("*.md")}
    with Memory(str(big), read_only=True) as mem:
        files = {f["file"]: f for f in mem.files()}
    copy = tmp_path / "restored"
    copy.mkdir()
    shutil.copytree(big / "logs", copy / "logs")
    shutil.copy(big / "kairos.toml", copy / "kairos.toml")
    with Memory(str(copy), recover=False) as mem:
        report = mem.rebuild(from_logs=True)
        assert report.imported == 1500 and report.events == 1500
        assert mem.verify().ok
        assert {f["file"]: f for f in mem.files()} == files
    assert {p.relative_to(copy): p.read_bytes() for p in (copy / "logs").rglob("*.md")} == logs
