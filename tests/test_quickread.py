"""``kairos read`` answered without the event store's libraries
(:mod:`kairos.engine.quickread`) gives, byte for byte, what the full path
gives — or steps aside and lets the full path answer.

Every comparison runs the command twice on the same home: as it is, and
with the quick read switched off (``read_now`` returning None).  On SQLite
a caught-up home must be answered by the quick read; a lagging read model,
a torn or doctored log tail, unknown migrations, bad input and PostgreSQL
must fall back and still show what the store acknowledged.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import kairos.engine.quickread as quickread
from kairos.engine.logread import parse_one
from kairos.memory import Memory
from kairos.projections.migrations import MIGRATIONS
from tests.conftest import Kairos
from tests.faultkit import kairos_cli

READS = [
    ("-a", "ada", "-f", "SOUL.md"), ("-a", "ada", "-f", "ABOUT.md"),
    ("-a", "ada", "-f", "TOOLS.md"), ("-a", "ada", "-u", "sam", "-f", "USER.md"),
    ("-a", "ada", "-u", "sam", "-f", "MEMORY.md"), ("-a", "ada", "-u", "mia", "-f", "MEMORY.md"),
    ("-a", "ada", "-u", "sam", "-f", "topics/travel.md"), ("-a", "bob", "-f", "SOUL.md"),
    ("-a", "ada", "-u", "zed", "-f", "USER.md"),  # a pair nobody wrote to
]
BAD = [
    ("-a", "bad/id", "-f", "SOUL.md"), ("-a", "ada", "-u", "../sam", "-f", "MEMORY.md"),
    ("-a", "ada", "-f", "NOTES.md"), ("-a", "ada", "-f", "MEMORY.md"),
    ("-a", "ada", "-u", "sam", "-f", "SOUL.md"), ("-a", "..", "-f", "SOUL.md"),
]


class Counted:
    """``read_now`` as it is, counting the reads it answered."""

    def __init__(self) -> None:
        self.real = quickread.read_now
        self.answered = 0

    def __call__(self, *args: object) -> object:
        found = self.real(*args)  # type: ignore[arg-type]
        self.answered += found is not None
        return found


def both(kairos: Kairos, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
         ) -> tuple[tuple[int, str, str], bool]:
    """(exit, stdout, stderr) of ``kairos read ARGS``, checked to be the
    full path's, and whether the quick read answered it."""
    counted = Counted()
    with monkeypatch.context() as m:
        m.setattr(quickread, "read_now", counted)
        quick = kairos("read", *args)
    with monkeypatch.context() as m:
        m.setattr(quickread, "read_now", lambda *a: None)
        full = kairos("read", *args)
    got = (quick.exit_code, quick.stdout, quick.stderr)
    assert got == (full.exit_code, full.stdout, full.stderr), args
    return got, counted.answered > 0


def all_reads(kairos: Kairos, monkeypatch: pytest.MonkeyPatch, backend: str,
              *, quick: bool = True) -> dict[tuple[str, ...], tuple[int, str, str]]:
    """Every read of READS, plain and --json, the same both ways; answered
    by the quick read on SQLite when ``quick``, never on PostgreSQL."""
    out = {}
    for args in READS:
        for extra in ((), ("--json",)):
            got, answered = both(kairos, monkeypatch, args + extra)
            assert answered == (quick and backend == "sqlite"), args + extra
            out[args + extra] = got
    return out


def fill(mem: Memory) -> list[str]:
    mem.write("ada", "SOUL.md", "I am Ada.\nCareful with dates.", mode="replace", actor="user")
    mem.write("ada", "TOOLS.md", "calendar: read only")
    mem.write("bob", "SOUL.md", "I am Bob.")
    mem.write("ada", "USER.md", "Name: Sam.", user="sam", mode="replace")
    ids = [mem.write("ada", "MEMORY.md", f"Sam fact {i}: {'ü' * i}", user="sam").event_id
           for i in range(4)]
    mem.write("ada", "MEMORY.md", "Mia likes jazz.", user="mia")
    mem.write("ada", "topics/travel.md", "Sam flew to Oslo.", user="sam")
    mem.flush()
    return ids


def test_reads_are_the_full_paths_after_writes_and_retractions(
        kairos: Kairos, mem: Memory, backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = all_reads(kairos, monkeypatch, backend)
    assert all("does not exist" in err for _, _, err in
               (v for k, v in empty.items() if "--json" not in k))
    ids = fill(mem)
    after = all_reads(kairos, monkeypatch, backend)
    assert after[READS[4]][1].startswith("Sam fact 0: \nSam fact 1: ü\n")
    assert '"version":' in after[READS[4] + ("--json",)][1]
    mem.retract("ada", "MEMORY.md", ids[1:3], user="sam", reason="wrong")
    mem.retract("ada", "MEMORY.md", [ids[0], ids[3]], user="sam", reason="all of it")
    mem.flush()
    gone = all_reads(kairos, monkeypatch, backend)
    assert "does not exist" in gone[READS[4]][2]
    assert gone[READS[4] + ("--json",)][1].startswith('{"agent":"ada","user":"sam"')


def test_limits_from_the_settings_and_a_soft_limit_passed(
        home: Path, db_url: str, backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    home.mkdir(parents=True)
    (home / "kairos.toml").write_text('[limits]\n"TOOLS.md" = 3000\n"MEMORY.md" = 40\n')
    with Memory.init(str(home), db_url) as m:
        fill(m)
    kairos = Kairos(home, db_url)
    reads = all_reads(kairos, monkeypatch, backend)
    assert '"limit":3000' in reads[READS[2] + ("--json",)][1]
    assert "over its soft limit of 40" in reads[READS[4]][2]


def test_bad_input_gives_the_full_paths_error(
        kairos: Kairos, mem: Memory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fill(mem)
    for args in BAD:
        (code, out, err), _ = both(kairos, monkeypatch, args)
        assert code == 2 and out == "" and err.startswith("Error: ") and err.count("\n") == 1
    nowhere = Kairos(tmp_path / "nowhere", kairos.db_url)
    (code, _, err), _ = both(nowhere, monkeypatch, READS[0])
    assert code != 0 and "not a Kairos home" in err


def test_a_dream_approved_reads_the_same(
        kairos: Kairos, mem: Memory, backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fill(mem)
    for i in range(5):
        mem.end_session("ada", "sam", session=f"s{i}")
    outcome = mem.dreams.dream("ada", "sam", force=True)
    assert outcome.dream_id is not None
    mem.dreams.approve(outcome.dream_id, reviewer="ops")
    mem.flush()
    all_reads(kairos, monkeypatch, backend)


def test_a_lagging_read_model_falls_back_and_shows_the_newest_write(
        kairos: Kairos, mem: Memory, home: Path, db_url: str, backend: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    fill(mem)
    mem.close()
    # The writer dies after its log entry, before its follower applied the event.
    died = kairos_cli(home, db_url, "write", "-a", "ada", "-u", "sam", "-f", "MEMORY.md",
                      "the newest write", fault="after-log-append")
    assert died.returncode != 0
    reads = all_reads(kairos, monkeypatch, backend, quick=False)
    assert reads[READS[4]][1].endswith("the newest write\n")
    assert reads[READS[0]][1] == "I am Ada.\nCareful with dates.\n"


def test_a_torn_log_tail_falls_back_and_reads_the_store(
        kairos: Kairos, mem: Memory, home: Path, backend: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    fill(mem)
    last = sorted((home / "logs").rglob("*.md"))[-1]
    with open(last, "ab") as f:
        f.write(b"## 000099 MemoryWritten\n\n- time: 2026-")
    reads = all_reads(kairos, monkeypatch, backend, quick=False)
    assert reads[READS[4]][1].startswith("Sam fact 0")


def test_logs_that_disagree_with_the_store_refuse_as_the_full_path_does(
        kairos: Kairos, mem: Memory, home: Path, backend: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    fill(mem)
    last = sorted((home / "logs").rglob("*.md"))[-1]
    text = last.read_text()
    at = text.rindex("- hash: ") + len("- hash: ")
    last.write_text(text[:at] + ("0" if text[at] != "0" else "1") + text[at + 1:])
    (code, _, err), answered = both(kairos, monkeypatch, READS[0])
    assert not answered and code == 1 and "is not the store's event" in err


def test_a_store_behind_its_logs_refuses_as_the_full_path_does(
        kairos: Kairos, mem: Memory, home: Path, backend: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    if backend != "sqlite":
        pytest.skip("drops a row of the SQLite store")
    fill(mem)
    mem.close()
    with sqlite3.connect(home / "kairos.db") as conn:  # an older backup, say
        conn.execute("DELETE FROM stored_events WHERE rowid = (SELECT MAX(rowid) "
                     "FROM stored_events)")
    (code, _, err), answered = both(kairos, monkeypatch, READS[4])
    assert not answered and code == 1 and "past the store's end" in err


def test_unknown_migrations_fall_back(
        kairos: Kairos, mem: Memory, home: Path, backend: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    if backend != "sqlite":
        pytest.skip("edits the SQLite read model")
    fill(mem)
    mem.close()
    with sqlite3.connect(home / "kairos.db") as conn:  # what a newer Kairos applied
        conn.execute("INSERT INTO memory_migrations VALUES ('m999_future')")
    all_reads(kairos, monkeypatch, backend, quick=False)


def test_the_known_migrations_are_the_read_models() -> None:
    """A new migration must be looked at here: the quick read reads its tables."""
    assert {m.__name__ for m in MIGRATIONS} == quickread.MIGRATIONS


def test_an_entry_the_quick_read_accepts_the_log_parser_accepts_too() -> None:
    """Over every entry of the sample logs and many ways of cutting each
    short: where parse_entry says "a whole entry", so does the parser the
    full path uses, with the same position, type and hash."""
    root = Path(__file__).resolve().parent.parent / "logs"
    checked = 0
    for _day, path in quickread.day_files(str(root)):
        data = Path(path).read_bytes()
        starts = [i + 1 for i in range(len(data)) if data.startswith(b"\n## ", i)]
        for start, end in zip(starts, [*starts[1:], len(data)], strict=True):
            entry = data[start:end]
            for cut in {*range(0, len(entry), 7), len(entry) - 1, len(entry)}:
                mine, theirs = quickread.parse_entry(entry[:cut]), parse_one(entry[:cut])
                if mine is not None:
                    assert theirs is not None, entry[:cut]
                    assert (mine[0], mine[1], mine[2]["hash"]) == (
                        theirs.position, theirs.event.kind.value, theirs.event.hash)
            assert quickread.parse_entry(entry) is not None
            checked += 1
    assert checked > 50


def test_every_read_sees_the_write_acknowledged_just_before_it(
        kairos: Kairos, mem: Memory) -> None:
    """No flush between a write and the read after it: the follower may not
    have applied it yet, and then the quick read must step aside."""
    for i in range(15):
        mem.write("ada", "MEMORY.md", f"fact {i}", user="sam")
        out = kairos("read", *READS[4])
        assert out.exit_code == 0 and out.stdout.endswith(f"fact {i}\n"), out.stdout
