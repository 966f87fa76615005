"""No ghost writes: idempotency keys, and a write saved whose log append failed.

The disk-full case runs on a real small tmpfs holding the logs when the
suite runs as root with ``mount``; everywhere it also runs with an injected
ENOSPC at the log append (``KAIROS_FAULT=ENOSPC@log-append``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kairos import faults
from kairos.agent.tools import ToolExecutor
from kairos.domain import events
from kairos.errors import BadInput, WriteIncomplete
from kairos.memory import Memory
from tests.conftest import store_rows
from tests.faultkit import can_mount, fill, kairos_cli, one_clear_line, tmpfs


def texts(mem: Memory, text: str) -> int:
    """How many events of the store carry ``text``."""
    return sum(text.encode() in row[3] for row in store_rows(mem))


def logged(home: Path, text: str) -> int:
    return sum(p.read_text().count(f"      {text}\n") for p in (home / "logs").rglob("*.md"))


def test_a_retried_write_returns_the_original_event_and_writes_nothing(mem: Memory) -> None:
    first = mem.write("ada", "MEMORY.md", "Sam likes jazz", user="sam", idempotency_key="call-1")
    mem.write("ada", "MEMORY.md", "Sam likes tea", user="sam")
    again = mem.write("ada", "MEMORY.md", "Sam likes jazz", user="sam", idempotency_key="call-1")
    assert again == first  # same id, same position, same size
    assert texts(mem, "Sam likes jazz") == 1
    # A key names one write in its stream: another pair may use the same.
    other = mem.write("ada", "MEMORY.md", "Kim likes jazz", user="kim", idempotency_key="call-1")
    assert other.event_id != first.event_id
    assert mem.verify().ok


def test_a_key_older_than_the_stream_remembers_is_found_in_the_index(
        mem: Memory, home: Path, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(events, "RECENT_KEYS", 2)
    firsts = [mem.write("ada", "MEMORY.md", f"fact {i}", user="sam", idempotency_key=f"k{i}")
              for i in range(5)]
    mem.close()
    with Memory(str(home), db_url) as m:  # a new process: the stream from the store
        stream = m.engine.store.get(events.MemoryStream.stream_id("ada", "sam"))
        assert stream is not None and list(stream.keys) == ["k3", "k4"] and stream.keyed == 5
        assert m.write("ada", "MEMORY.md", "fact 0", user="sam", idempotency_key="k0") == firsts[0]
        assert texts(m, "fact 0") == 1


def test_keys_ride_in_snapshots(mem: Memory, home: Path, db_url: str) -> None:
    first = mem.write("ada", "MEMORY.md", "kept once", user="sam", idempotency_key="snap")
    for i in range(199):  # the 200th event of the stream takes a snapshot
        mem.write("ada", "MEMORY.md", f"n{i}", user="sam", mode="replace")
    mem.close()
    with Memory(str(home), db_url) as m:
        snapshots = m.engine.store.app.snapshots
        assert snapshots is not None
        sid = events.MemoryStream.stream_id("ada", "sam")
        latest = list(snapshots.get(sid, desc=True, limit=1))[0]
        assert latest.state["keys"] == {"snap": [first.event_id, 2]}
        assert m.write("ada", "MEMORY.md", "kept once", user="sam",
                       idempotency_key="snap").position == first.position


def test_an_invalid_key_is_refused(mem: Memory) -> None:
    for bad in ("", "has space", "x" * 257, "tab\there", "é"):
        with pytest.raises(BadInput, match="idempotency key"):
            mem.write("ada", "MEMORY.md", "x", user="sam", idempotency_key=bad)


# Longer than a page: on a full tmpfs, an append that fits in the file's last
# page still succeeds; this one needs a new page.
FULL_TEXT = "written on a full disk " + "z" * 6000


def _disk_full_then_retry(mem: Memory, home: Path, full: object) -> None:
    """The story both variants tell: a keyed write whose log append hits a
    full disk says it WAS saved; a retry while still full says so again;
    once space returns the retry returns the original, exactly once."""
    with pytest.raises(WriteIncomplete) as failed:
        mem.write("ada", "MEMORY.md", FULL_TEXT, user="sam", idempotency_key="call-full")
    e = failed.value
    assert f"WAS saved, as event {e.event_id} at position {e.position}" in str(e)
    assert "completed on the next write or open" in str(e)
    with pytest.raises(WriteIncomplete) as again:  # still full: the same event, not a new one
        mem.write("ada", "MEMORY.md", FULL_TEXT, user="sam", idempotency_key="call-full")
    assert again.value.event_id == e.event_id
    assert callable(full)
    full()  # space returns
    retry = mem.write("ada", "MEMORY.md", FULL_TEXT, user="sam", idempotency_key="call-full")
    assert (retry.event_id, retry.position) == (e.event_id, e.position)
    assert texts(mem, FULL_TEXT) == 1
    assert logged(home, FULL_TEXT) == 1
    mem.write("ada", "MEMORY.md", "the home works again", user="sam")
    assert mem.read("ada", "MEMORY.md", user="sam").content == (
        f"before\n{FULL_TEXT}\nthe home works again\n")
    report = mem.verify()
    assert report.ok, report.problems


def test_disk_full_between_commit_and_log_append_injected(mem: Memory, home: Path) -> None:
    mem.write("ada", "MEMORY.md", "before", user="sam")
    faults.arm("ENOSPC@log-append")
    try:
        _disk_full_then_retry(mem, home, lambda: faults.arm(None))
    finally:
        faults.arm(None)


def test_disk_full_between_commit_and_log_append_on_a_real_tmpfs(
        tmp_path: Path, db_url: str) -> None:
    if not can_mount():
        pytest.skip("needs root and mount: the injected ENOSPC test covers this path")
    home = tmp_path / "home"
    home.mkdir()
    Memory.init(str(home), db_url).close()
    with tmpfs(tmp_path / "logs-fs", "256k") as logs_fs:
        # The logs on a small file system of their own, the store elsewhere:
        # the commit succeeds, the append finds the disk full.
        (home / "logs").rmdir()
        (home / "logs").symlink_to(logs_fs)
        with Memory(str(home), db_url) as mem:
            mem.write("ada", "MEMORY.md", "before", user="sam")
            filler = fill(logs_fs)
            _disk_full_then_retry(mem, home, filler.unlink)


def test_the_cli_says_the_write_was_saved_and_a_retry_prints_the_original(
        mem: Memory, home: Path, db_url: str) -> None:
    mem.close()
    args = ("write", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--idempotency-key", "cli-1",
            "Sam likes jazz")
    line = one_clear_line(kairos_cli(home, db_url, *args, fault="ENOSPC@log-append"))
    assert "WAS saved, as event" in line and "logs: no space left on the device" in line
    retry = kairos_cli(home, db_url, *args)
    assert retry.returncode == 0, retry.stderr
    event_id, position = retry.stdout.split()
    assert event_id in line and f"at position {position}" in line
    with Memory(str(home), db_url) as m:
        assert texts(m, "Sam likes jazz") == 1 and m.verify().ok


def test_a_tool_call_retried_after_a_failed_append_writes_once(mem: Memory) -> None:
    tools = ToolExecutor(mem, "ada", "sam", session="s-1")
    args = {"file": "MEMORY.md", "text": "Sam adopted a cat."}
    faults.arm("ENOSPC@log-append")
    try:
        failed = tools.run("memory_write", args, call_id="call_abc")
    finally:
        faults.arm(None)
    assert failed["saved"] is True and "WAS saved" in failed["error"]
    retried = tools.run("memory_write", args, call_id="call_abc")
    assert retried["saved"] is True and retried["event_id"] == failed["event_id"]
    assert "error" not in retried
    assert texts(mem, "Sam adopted a cat.") == 1
    assert mem.verify().ok
