"""The stream guards its own rules: a retraction once, a proposal decided
once and never when stale, a rollback to a version that exists — checked by
the aggregate inside its command, under optimistic concurrency, so two
processes (or threads) racing each other cannot both pass the check."""

from __future__ import annotations

import multiprocessing
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kairos.domain.events import MemoryStream
from kairos.errors import BadInput, KairosError, NotFound
from kairos.memory import Memory

NOW = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def count(mem: Memory, agent: str, user: str, kind: str) -> int:
    """How many events of a kind the pair's stream holds (the store, not the index)."""
    events = mem.engine.store.stream(MemoryStream.stream_id(agent, user))
    return sum(1 for e in events if e.kind == kind)


# -- the rules, on the aggregate alone (no store) -------------------------------------
def test_the_stream_refuses_what_breaks_its_rules() -> None:
    s = MemoryStream.open("ada", "sam", NOW)
    s.write("MEMORY.md", "Sam likes tea", "append", "user", None, NOW)
    s.write("USER.md", "Name: Sam", "append", "user", None, NOW)
    events = {e.event_id: e for e in s.pending_events}
    tea, name = (e.event_id for e in s.pending_events[1:3])
    with pytest.raises(BadInput, match="not a write to MEMORY.md"):
        s.retract("MEMORY.md", [name], "x", "user", None, NOW, events.get)
    with pytest.raises(BadInput, match="no event nope in MEMORY.md"):
        s.retract("MEMORY.md", ["nope"], "x", "user", None, NOW, events.get)
    s.retract("MEMORY.md", [tea], "wrong", "user", None, NOW, events.get)
    with pytest.raises(BadInput, match="already retracted by"):
        s.retract("MEMORY.md", [tea], "again", "user", None, NOW, events.get)
    with pytest.raises(BadInput, match="over its hard limit of 10"):
        s.write("USER.md", "x" * 20, "replace", "user", None, NOW, limit=10)
    with pytest.raises(NotFound, match="no dream d-1"):
        s.reject("d-1", "alice", "no", NOW)
    with pytest.raises(BadInput, match="no version 1 of MEMORY.md: versions are 0..0"):
        s.roll_back("MEMORY.md", 1, "user", "x", [], NOW)
    with pytest.raises(BadInput, match="at version 0 already"):
        s.roll_back("MEMORY.md", 0, "user", "x", [], NOW)


def test_a_decided_proposal_cannot_be_decided_again() -> None:
    s = MemoryStream.open("ada", "sam", NOW)
    s.write("MEMORY.md", "Sam likes tea", "append", "user", None, NOW)
    line = [["Sam likes tea.", [s.pending_events[-1].event_id]]]
    first = s.propose(NOW, files={"MEMORY.md": {"base": 0, "lines": line}}, cutoff=2,
                      dropped=[], report={}, distiller="rules", model=None, usage={},
                      trigger="test")
    second = s.propose(NOW, files={"MEMORY.md": {"base": 0, "lines": line}}, cutoff=2,
                       dropped=[], report={}, distiller="rules", model=None, usage={},
                       trigger="test")
    history = list(s.pending_events)
    assert s.approve(first, "alice", "review", history, NOW) == {"MEMORY.md": 1}
    with pytest.raises(BadInput, match="already approved by alice"):
        s.approve(first, "bob", "review", history, NOW)
    with pytest.raises(BadInput, match="proposed on version 0 of MEMORY.md, but version 1"):
        s.approve(second, "bob", "review", history, NOW)
    s.reject(second, "bob", "stale", NOW)
    with pytest.raises(BadInput, match="already rejected by bob"):
        s.reject(second, "carol", "again", NOW)


# -- races: two processes, two threads --------------------------------------------------
def _retract_at_once(home: str, db_url: str, event_id: str, barrier: object,
                     results: object) -> None:
    with Memory(home, db_url) as m:
        barrier.wait()  # type: ignore[attr-defined]
        try:
            m.retract("ada", "MEMORY.md", [event_id], user="sam", reason="wrong")
            results.put("ok")  # type: ignore[attr-defined]
        except KairosError as e:
            results.put(str(e))  # type: ignore[attr-defined]


def _approve_at_once(home: str, db_url: str, dream_id: str, barrier: object,
                     results: object) -> None:
    with Memory(home, db_url) as m:
        barrier.wait()  # type: ignore[attr-defined]
        try:
            m.dreams.approve(dream_id, "alice")
            results.put("ok")  # type: ignore[attr-defined]
        except KairosError as e:
            results.put(str(e))  # type: ignore[attr-defined]


def race_processes(target: object, home: Path, db_url: str, arg: str) -> list[str]:
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=target, args=(str(home), db_url, arg, barrier, results))
             for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    return sorted(results.get(timeout=10) for _ in procs)


def race_threads(call: object) -> list[str]:
    barrier, results = threading.Barrier(2), []

    def run() -> None:
        barrier.wait()
        try:
            call()  # type: ignore[operator]
            results.append("ok")
        except KairosError as e:
            results.append(str(e))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return sorted(results)


def test_two_processes_retracting_one_write_record_one_retraction(
        mem: Memory, home: Path, db_url: str) -> None:
    w = mem.write("ada", "MEMORY.md", "Sam is allergic to nuts", user="sam")
    results = race_processes(_retract_at_once, home, db_url, w.event_id)
    assert results[0].startswith(f"event {w.event_id} was already retracted by")
    assert results[1] == "ok"
    assert count(mem, "ada", "sam", "MemoryRetracted") == 1
    assert mem.verify().ok


def test_two_threads_retracting_one_write_record_one_retraction(mem: Memory) -> None:
    w = mem.write("ada", "MEMORY.md", "Sam is allergic to nuts", user="sam")
    results = race_threads(lambda: mem.retract("ada", "MEMORY.md", [w.event_id], user="sam",
                                               reason="wrong"))
    assert results[0].startswith(f"event {w.event_id} was already retracted by")
    assert results[1] == "ok"
    assert count(mem, "ada", "sam", "MemoryRetracted") == 1


def dreamed(mem: Memory) -> str:
    mem.write("ada", "MEMORY.md", "Sam likes tea.", user="sam")
    mem.write("ada", "MEMORY.md", "Sam likes tea.", user="sam")
    dream_id = mem.dreams.dream("ada", "sam", force=True).dream_id
    assert dream_id is not None
    return dream_id


def test_two_processes_approving_one_proposal_publish_it_once(
        mem: Memory, home: Path, db_url: str) -> None:
    dream_id = dreamed(mem)
    results = race_processes(_approve_at_once, home, db_url, dream_id)
    assert results == [f"dream {dream_id} was already approved by alice", "ok"]
    assert count(mem, "ada", "sam", "DreamApproved") == 1
    assert [r["version"] for r in mem.dreams.versions("ada", "sam", "MEMORY.md")] == [0, 1]


def test_two_threads_approving_one_proposal_publish_it_once(mem: Memory) -> None:
    dream_id = dreamed(mem)
    results = race_threads(lambda: mem.dreams.approve(dream_id, "alice"))
    assert results == [f"dream {dream_id} was already approved by alice", "ok"]
    assert count(mem, "ada", "sam", "DreamApproved") == 1


def test_the_rules_hold_without_the_read_model(mem: Memory) -> None:
    """The service no longer asks the index whether a write was retracted:
    with the index wiped, a second retraction is still refused."""
    w = mem.write("ada", "MEMORY.md", "fact", user="sam")
    mem.retract("ada", "MEMORY.md", [w.event_id], user="sam", reason="wrong")
    with mem.engine.read_side_held() as readmodel:
        readmodel.reset()  # the index forgets who retracted what, until a read rebuilds it
    with pytest.raises(BadInput, match="already retracted"):
        mem.retract("ada", "MEMORY.md", [w.event_id], user="sam", reason="again")


# -- snapshots of the state before it knew its rules ----------------------------------
def put_old_snapshot(mem: Memory, agent: str, user: str) -> int:
    """A snapshot as version 1 of the state took it: no retractions, no dreams."""
    sid = MemoryStream.stream_id(agent, user)
    stream = mem.engine.store.get(sid)
    assert stream is not None and mem.engine.store.app.snapshots is not None
    old = MemoryStream.Snapshot(originator_id=sid, originator_version=stream.version,
                                timestamp=NOW, topic="kairos.domain:MemoryStream",
                                state={"agent": agent, "user": user, "head": stream.head,
                                       "files": stream.files})
    mem.engine.store.app.snapshots.put([old])
    return stream.version


def test_a_stream_snapshotted_in_the_old_shape_loads_from_its_events(
        mem: Memory, home: Path, db_url: str) -> None:
    w = mem.write("ada", "MEMORY.md", "Sam lives in Rome", user="sam")
    mem.write("ada", "MEMORY.md", "Sam likes tea", user="sam")
    mem.retract("ada", "MEMORY.md", [w.event_id], user="sam", reason="moved")
    at = put_old_snapshot(mem, "ada", "sam")
    mem.close()
    with Memory(str(home), db_url) as m:  # a new process: nothing cached
        with pytest.raises(BadInput, match="already retracted"):
            m.retract("ada", "MEMORY.md", [w.event_id], user="sam", reason="again")
        for i in range(200 - at):  # up to the next snapshot, taken in the new shape
            m.write("ada", "MEMORY.md", f"fact {i}", user="sam", mode="replace")
        snapshots = m.engine.store.app.snapshots
        assert snapshots is not None
        latest = list(snapshots.get(MemoryStream.stream_id("ada", "sam"), desc=True, limit=1))[0]
        assert latest.originator_version == 200
        assert latest.state["class_version"] == MemoryStream.class_version
        assert latest.state["retracted"] == {w.event_id: m.history("ada", user="sam")[3]["event_id"]}
        assert m.read("ada", "MEMORY.md", user="sam").content == f"fact {199 - at}\n"
        assert m.verify().ok
