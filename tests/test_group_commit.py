"""The group commit: concurrent writes of one process share one store
transaction and one log append, and each is answered only when its own
event is durable — on both backends."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from kairos.errors import BadInput
from kairos.memory import Memory


def spy_batches(m: Memory) -> list[int]:
    """The sizes of the commits the engine makes (a spy: the real commit runs)."""
    sizes: list[int] = []
    real: Callable[..., Any] = m.engine.commit_many

    def commit_many(streams: list[Any]) -> Any:
        recorded = real(streams)
        sizes.append(len(recorded))
        return recorded

    m.engine.commit_many = commit_many  # type: ignore[method-assign]
    return sizes


def test_concurrent_writes_share_commits_and_every_one_is_recorded(mem: Memory) -> None:
    for u in range(5):  # the streams exist: a commit's events are then the writes alone
        mem.write("ada", "USER.md", f"user {u}", user=f"u{u}")
    sizes = spy_batches(mem)
    start = threading.Barrier(16)

    def write(i: int) -> str:
        if i < 16:
            start.wait()
        return mem.write("ada", "MEMORY.md", f"fact {i}", user=f"u{i % 5}").event_id

    with ThreadPoolExecutor(16) as pool:
        ids = list(pool.map(write, range(160)))
    assert len(set(ids)) == 160
    assert max(sizes) > 1 and sum(sizes) == 160  # batches formed, nothing twice
    recorded = {e["event_id"]: e["text"] for u in range(5)
                for e in mem.history("ada", user=f"u{u}")}
    assert set(ids) <= set(recorded)
    for u in range(5):  # each pair's file holds its writes, in its stream's order
        content = mem.read("ada", "MEMORY.md", user=f"u{u}").content or ""
        assert sorted(content.split("\n")[:-1]) == sorted(
            f"fact {i}" for i in range(160) if i % 5 == u)
    assert mem.verify().problems == []
    assert mem.rebuild().changed == []


def test_a_failing_command_in_a_batch_fails_alone(mem: Memory) -> None:
    mem.write("ada", "USER.md", "Sam", user="sam")
    sizes = spy_batches(mem)
    start = threading.Barrier(12)

    def write(i: int) -> str:
        start.wait()
        if i % 3 == 0:  # a file that does not exist: refused, nothing recorded
            try:
                mem.write("ada", "NOTES.md", f"bad {i}", user="sam")
            except BadInput as e:
                return f"refused: {e}"
            return "written?"
        return mem.write("ada", "MEMORY.md", f"good {i}", user="sam").event_id

    with ThreadPoolExecutor(12) as pool:
        out = list(pool.map(write, range(12)))
    assert sum(o.startswith("refused") for o in out) == 4
    content = mem.read("ada", "MEMORY.md", user="sam").content or ""
    assert sorted(content.splitlines()) == sorted(f"good {i}" for i in range(12) if i % 3)
    assert sum(sizes) == 8


def test_a_retry_in_the_same_batch_is_written_once(mem: Memory) -> None:
    start = threading.Barrier(8)

    def write(_: int) -> str:
        start.wait()
        return mem.write("ada", "MEMORY.md", "Sam likes tea", user="sam",
                         idempotency_key="call-1").event_id

    with ThreadPoolExecutor(8) as pool:
        ids = set(pool.map(write, range(8)))
    assert len(ids) == 1
    assert mem.read("ada", "MEMORY.md", user="sam").content == "Sam likes tea\n"


def test_batches_and_another_process_writing_at_once(mem: Memory, home: Path,
                                                     db_url: str) -> None:
    other = Memory(str(home), db_url)
    try:
        def mine(i: int) -> str:
            return mem.write("ada", "MEMORY.md", f"mine {i}", user="sam").event_id

        def theirs(i: int) -> str:
            return other.write("ada", "MEMORY.md", f"theirs {i}", user="sam").event_id

        with ThreadPoolExecutor(8) as pool:
            ids = list(pool.map(lambda i: (mine if i % 2 else theirs)(i), range(80)))
        assert len(set(ids)) == 80
    finally:
        other.close()
    lines = (mem.read("ada", "MEMORY.md", user="sam").content or "").splitlines()
    assert sorted(lines) == sorted([f"mine {i}" for i in range(1, 80, 2)]
                                   + [f"theirs {i}" for i in range(0, 80, 2)])
    assert mem.verify().problems == []


def test_a_write_alone_takes_the_plain_path(mem: Memory) -> None:
    mem.write("ada", "USER.md", "Sam", user="sam")
    sizes = spy_batches(mem)
    for i in range(3):
        mem.write("ada", "MEMORY.md", f"alone {i}", user="sam")
    assert sizes == [1, 1, 1]
