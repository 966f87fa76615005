"""The group commit: concurrent writes of one process share one store
transaction and one log append, and each is answered only when its own
event is durable — on both backends."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from kairos.domain.events import MemoryStream
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


# -- what a batch must never do (a review's findings, each forced into one batch) --------
def one_batch(m: Memory, calls: list[Callable[[], Any]]) -> list[tuple[str, Any]]:
    """Run the calls so that they queue in this order and form one batch:
    the engine is told a batch is being committed while the threads queue."""
    engine = m.engine
    out: list[tuple[str, Any]] = [("", None)] * len(calls)

    def run(i: int, call: Callable[[], Any]) -> None:
        try:
            out[i] = ("ok", call())
        except Exception as e:
            out[i] = ("err", e)

    with engine._batching:
        engine._committing = True
    threads = []
    for i, call in enumerate(calls):
        t = threading.Thread(target=run, args=(i, call))
        t.start()
        threads.append(t)
        while len(engine._queue) < i + 1:
            threading.Event().wait(0.001)
    with engine._batching:
        engine._committing = False
        engine._batching.notify_all()
    for t in threads:
        t.join(30)
    return out


def proposal(m: Memory, text: str) -> str:
    from kairos import clock

    w = m.write("ada", "MEMORY.md", "old fact", user="sam")
    cutoff = m.engine.store.get(MemoryStream.stream_id("ada", "sam")).version
    _, dream_id = m.engine.execute("ada", "sam", lambda s: s.propose(
        clock.now(), files={"MEMORY.md": {"base": 0, "lines": [[text, [w.event_id]]]}},
        cutoff=cutoff, dropped=[], report={}, distiller="test", model=None, usage={},
        trigger="manual"))
    return str(dream_id)


def test_a_write_beside_an_approval_or_a_rollback_of_its_pair_is_kept(mem: Memory) -> None:
    dream_id = proposal(mem, "distilled fact")
    out = one_batch(mem, [lambda: mem.write("ada", "MEMORY.md", "LATE FACT", user="sam"),
                          lambda: mem.dreams.approve(dream_id, "rev"),
                          lambda: mem.write("bob", "MEMORY.md", "bob's", user="zoe")])
    assert [o[0] for o in out] == ["ok", "ok", "ok"], out
    assert mem.read("ada", "MEMORY.md", user="sam").content == "distilled fact\nLATE FACT\n"
    out = one_batch(mem, [lambda: mem.write("ada", "MEMORY.md", "LATER FACT", user="sam"),
                          lambda: mem.dreams.rollback("ada", "sam", "MEMORY.md", 0, "back")])
    assert [o[0] for o in out] == ["ok", "ok"], out
    content = mem.read("ada", "MEMORY.md", user="sam").content or ""
    assert "LATER FACT" in content and "LATE FACT" in content
    assert mem.verify().problems == []


def test_a_failed_load_in_a_batch_leaves_nothing_for_a_later_write(mem: Memory,
                                                                 monkeypatch: Any) -> None:
    from kairos.errors import StorageFailed

    mem.write("ada", "MEMORY.md", "one", user="sam")
    mem.write("bob", "MEMORY.md", "b-one", user="zoe")
    real = mem.engine._load

    def load(agent: str, user: str | None) -> Any:
        if agent == "bob":
            raise StorageFailed("the store went away")
        return real(agent, user)

    monkeypatch.setattr(mem.engine, "_load", load)
    out = one_batch(mem, [lambda: mem.write("ada", "MEMORY.md", "two", user="sam"),
                          lambda: mem.write("bob", "MEMORY.md", "FAILED", user="zoe")])
    monkeypatch.setattr(mem.engine, "_load", real)
    assert out[0][0] == "ok" and out[1][0] == "err", out
    mem.write("bob", "MEMORY.md", "b-two", user="zoe")
    assert mem.read("bob", "MEMORY.md", user="zoe").content == "b-one\nb-two\n"
    assert mem.read("ada", "MEMORY.md", user="sam").content == "one\ntwo\n"


def test_a_log_failure_names_each_callers_own_event(mem: Memory) -> None:
    from kairos import faults
    from kairos.errors import WriteIncomplete

    mem.write("ada", "USER.md", "x", user="sam")
    mem.write("bob", "USER.md", "y", user="zoe")
    faults.arm("ENOSPC@log-append")
    try:
        out = one_batch(mem, [lambda: mem.write("ada", "MEMORY.md", "sam's", user="sam"),
                              lambda: mem.write("bob", "MEMORY.md", "zoe's", user="zoe")])
    finally:
        faults.arm(None)
    assert all(kind == "err" and isinstance(e, WriteIncomplete) for kind, e in out), out
    mem.write("ada", "SOUL.md", "next")  # the next write appends the entries the logs lack
    for (_, error), (agent, user, text) in zip(out, (("ada", "sam", "sam's"),
                                                     ("bob", "zoe", "zoe's")), strict=True):
        event_id = next(e["event_id"] for e in mem.history(agent, user=user)
                        if e["text"] == text)  # recorded, and its log entry completed since
        assert event_id in str(error)
    assert mem.verify().problems == []


def test_bad_input_on_a_new_stream_in_a_batch_records_nothing(mem: Memory) -> None:
    mem.write("ada", "USER.md", "x", user="sam")
    before = mem.engine.store.max_position()
    out = one_batch(mem, [lambda: mem.write("ada", "MEMORY.md", "ok", user="sam"),
                          lambda: mem.retract("ada", "MEMORY.md", ["nope"], reason="r",
                                              user="newcomer")])
    assert out[0][0] == "ok" and out[1][0] == "err", out
    assert mem.engine.store.max_position() == before + 1  # the write alone: no StreamOpened
    assert mem.history("ada", user="newcomer") == []


def test_one_key_twice_in_a_batch_is_written_once(mem: Memory) -> None:
    mem.write("ada", "USER.md", "x", user="sam")
    out = one_batch(mem, [lambda: mem.write("ada", "MEMORY.md", "tea", user="sam",
                                            idempotency_key="k"),
                          lambda: mem.write("ada", "MEMORY.md", "tea", user="sam",
                                            idempotency_key="k")])
    assert [o[0] for o in out] == ["ok", "ok"], out
    assert out[0][1].event_id == out[1][1].event_id
    assert mem.read("ada", "MEMORY.md", user="sam").content == "tea\n"
