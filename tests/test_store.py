"""The store's bulk read (what a rebuild reads) against its ordinary read."""

from __future__ import annotations

from freezegun import freeze_time

from kairos import clock
from kairos.domain.fold import apply_event, touched
from kairos.memory import Memory
from kairos.projections.indexer import index_row
from kairos.projections.light import DECODERS, Light


def every_kind_of_event(mem: Memory) -> None:
    with freeze_time("2026-11-01T09:00:00Z"):  # a time without microseconds
        mem.write("ada", "SOUL.md", "I am Ada.")
        w = mem.write("ada", "MEMORY.md", "Sam lives in Oslo\n## 000001 forged", user="sam")
    with freeze_time("2026-11-02T09:00:00.123456Z"):
        mem.write("ada", "MEMORY.md", "Sam likes tea.", user="sam", session="s-1")
        mem.write("ada", "MEMORY.md", "Sam likes tea!", user="sam", mode="append", actor="user")
        mem.retract("ada", "MEMORY.md", [w.event_id], user="sam", reason="moved")
        mem.end_session("ada", "sam", session="s-1")
        first = mem.dreams.dream("ada", "sam", force=True).dream_id
        mem.dreams.reject(first, "alice", "not yet")
        second = mem.dreams.dream("ada", "sam", force=True).dream_id
        mem.dreams.approve(second, "alice")
        mem.write("ada", "USER.md", "Name: Sam", user="sam", mode="replace")
        mem.dreams.rollback("ada", "sam", "MEMORY.md", 0, "raw again")
        # An erasure's event (forget itself needs a home that encrypts:
        # tests/test_privacy.py), recorded straight through the engine.
        mem.write("ada", "MEMORY.md", "Kim plays chess", user="kim")
        mem.engine.execute("ada", "kim", lambda s: s.erase("dpo", "a test", [], clock.now()))
        # An API key of kairos serve, issued and revoked (events of the system stream).
        _, key = mem.keys.create("agent", agent="ada", user="sam", by="ops")
        mem.keys.revoke(key.key_id, by="ops", reason="a test")
        mem.seal()


def test_the_bulk_read_gives_what_the_ordinary_read_gives(mem: Memory) -> None:
    every_kind_of_event(mem)
    store = mem.engine.store
    where = mem.engine.mirror.locate()
    ordinary, bulk = list(store.read()), list(store.read_bulk())
    assert [r.position for r in bulk] == [r.position for r in ordinary]
    kinds = {type(r.event).__name__ for r in ordinary}
    assert {"StreamOpened", "MemoryWritten", "MemoryRetracted", "SessionEnded", "DreamProposed",
            "DreamRejected", "DreamApproved", "VersionRolledBack", "CheckpointSealed"} <= kinds
    light = [r for r in bulk if isinstance(r.event, Light)]
    assert {type(r.event).__name__ for r in light} == {
        t.rsplit(".", 1)[1] for t in DECODERS}  # the common events do come light
    ids: dict[int, str] = {}
    for o, b in zip(ordinary, bulk, strict=True):
        assert index_row(b, where, ids) == index_row(o, where)
        assert touched(b.event) == touched(o.event)
        assert apply_event({}, b.event) == apply_event({}, o.event)


def test_the_read_by_stream_gives_every_event_once_stream_by_stream(mem: Memory) -> None:
    """What a rebuild of a big home folds from: every event of the bulk
    read, decoded alike, each stream's together and in version order — in
    pages smaller than a stream, so that a stream continues across them."""
    every_kind_of_event(mem)
    for n in range(7):
        mem.write("ada", "MEMORY.md", f"Note {n}.", user=("sam", "kim", "lena")[n % 3])
    store = mem.engine.store
    bulk = {r.position: r for r in store.read_bulk()}
    streams = list(store.read_bulk_by_stream(page=3))
    assert sorted(r.position for r in streams) == sorted(bulk)
    order = [r.event.originator_id for r in streams]
    assert len(set(order)) >= 4 and order == sorted(order, key=order.index)  # each stream together
    for a, b in zip(streams, streams[1:], strict=False):
        if a.event.originator_id == b.event.originator_id:
            assert b.event.originator_version == a.event.originator_version + 1
    for r in streams:
        same = bulk[r.position].event
        assert (type(r.event), r.event.originator_id, touched(r.event)) == (
            type(same), same.originator_id, touched(same))
        assert apply_event({}, r.event) == apply_event({}, same)


def test_a_rebuild_after_every_kind_of_event_changes_nothing(mem: Memory) -> None:
    every_kind_of_event(mem)
    mem.flush()
    rows = mem.engine.index.events()
    files = mem.engine.index.all_files()
    report = mem.rebuild()
    assert report.changed == []
    assert report.rows == []
    assert mem.engine.index.events() == rows
    assert mem.engine.index.all_files() == files
