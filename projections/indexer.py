"""Turns recorded events into read-model rows (``memory_index``,
``memory_files``, the position), through a :class:`~readmodel.Writer`.

Events reach the read model after their commit (see
:mod:`kairos.engine.engine`): each batch moves the position row from where
it expects it, in the same transaction as its rows, so a batch is applied
exactly once whichever process gets there first, and a crash never applies
half of one.  A rebuild fills an empty read model in one streamed load
(:meth:`Indexer.load`).  No SQL here: the statements are
:mod:`readmodel`'s.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol, cast
from uuid import UUID

from kairos.domain.events import DomainEvent, DreamProposed
from kairos.domain.fold import Files, Foldable, Segments, apply_event, apply_to_file, render, touched
from kairos.domain.hashing import format_time
from kairos.domain.kinds import EventType
from kairos.projections.light import Light
from kairos.projections.readmodel import IndexTuple, LineTuple, Writer
from kairos.projections.search import line_rows

Place = tuple[str, int] | tuple[None, None]  # (log file, line), or none known


class Where(Protocol):
    """Log places by position: a dict, or a rebuild's places streamed in
    position order (:class:`kairos.engine.logmirror.Places`)."""

    def get(self, key: int, default: Place, /) -> Place: ...
Born = dict[str, tuple[int, str]]  # a segment's first event id -> (position, time) it entered


class Applicable(Protocol):
    """A recorded event, full or light (what a rebuild reads), with its position."""

    @property
    def position(self) -> int: ...

    @property
    def event(self) -> DomainEvent | Light: ...


class _Retraction(Protocol):
    event_id: str
    retracts: list[str]


class _Scoped(Protocol):
    agent: str
    user: str | None
    originator_version: int


# Read once: a member off the enum class costs more than the index row.
RETRACTED, PROPOSED, WRITTEN = EventType.RETRACTED, EventType.PROPOSED, EventType.WRITTEN
NAMES = {kind: kind.value for kind in EventType}
# The event's own text in the index: what was written, or why.
_TEXT = {EventType.WRITTEN: "text", EventType.RETRACTED: "reason",
         EventType.SESSION_ENDED: "notes", EventType.REJECTED: "reason",
         EventType.REFUSED: "reason", EventType.ROLLED_BACK: "reason"}


def text_of(e: DomainEvent | Light) -> str | None:
    kind = e.kind
    attr = _TEXT.get(kind)
    if attr is not None:
        return cast(str | None, getattr(e, attr))
    if kind is PROPOSED:
        p = cast(DreamProposed, e)
        return ", ".join(sorted(p.files)) + f" from events up to version {p.cutoff}"
    return None


def index_row(r: Applicable, where: Where, stream_ids: dict[int, str] | None = None
              ) -> IndexTuple:
    """The ``memory_index`` row of a recorded event (its time at index 10),
    in :data:`readmodel.ROW_COLUMNS` order.

    ``stream_ids`` caches the text of stream ids across a bulk load.
    """
    e = r.event
    log_file, log_line = where.get(r.position, (None, None))
    if isinstance(e, Light):  # every field is there: no lookups that may fail
        oid = cast(UUID, e.originator_id)
        sid = stream_ids.get(oid.int) if stream_ids is not None else None
        if sid is None:
            sid = str(oid)
            if stream_ids is not None:
                stream_ids[oid.int] = sid
        return (r.position, e.event_id, sid, e.originator_version, NAMES[e.kind],
                e.agent, e.user, e.file, e.actor, e.session, e.at, text_of(e), log_file,
                log_line, None)
    return (r.position, e.event_id, str(e.originator_id), e.originator_version,
            NAMES[e.kind], e.agent, e.user, getattr(e, "file", None),
            getattr(e, "actor", None) or getattr(e, "reviewer", None),
            getattr(e, "session", None), format_time(e.timestamp), text_of(e), log_file,
            log_line, getattr(e, "dream_id", None))


class Indexer:
    """Applies recorded events to the read model."""

    def apply(self, writer: Writer, recorded: Sequence[Applicable], where: Where,
              *, expect: int) -> bool:
        """Apply events that follow position ``expect``.

        Returns False, applying nothing, when the read model is not at
        ``expect`` (another process got there first: its rows are the same).
        """
        if not recorded:
            return True
        if not writer.move_position(recorded[-1].position, expect):
            return False
        rows: list[IndexTuple] = []
        keys: list[tuple[str, str, str]] = []
        retracted: list[tuple[str, str]] = []
        state: dict[tuple[str, str, str], tuple[Files, int, int, str]] = {}
        new: set[tuple[str, str, str]] = set()
        born: Born = {}
        for r in recorded:
            e = r.event
            row = index_row(r, where)
            rows.append(row)
            born[row[1]] = (r.position, row[10])
            key = getattr(e, "idempotency_key", None)
            if key is not None:
                keys.append((row[2], key, row[1]))
            if e.kind is RETRACTED:
                x = cast(_Retraction, e)
                retracted.extend((x.event_id, eid) for eid in x.retracts)
            scoped = cast(_Scoped, e)
            for name in touched(cast(Foldable, e)):
                key = (scoped.agent, scoped.user or "", name)
                if key in state:
                    files = state[key][0]
                else:
                    segments = writer.segments(*key)
                    if segments is None:
                        new.add(key)
                    files = {} if segments is None else {name: segments}
                files = apply_event(files, cast(Foldable, e))
                state[key] = (files, scoped.originator_version, r.position, row[10])
        writer.insert_index(rows)
        if keys:
            writer.insert_keys(keys)
        if retracted:
            writer.mark_retracted(retracted)
        for (agent, user, name), (files, version, position, at) in state.items():
            segments = files.get(name, [])
            writer.put_file((agent, user, name, render(segments), json.dumps(segments),
                             version, position, at), new=(agent, user, name) in new)
            _sync_lines(writer, agent, user, name, segments, born, position, at,
                        new=(agent, user, name) in new)
        return True

    def load(self, writer: Writer, recorded: Iterable[Applicable],
             where: Where) -> tuple[int, int, list[tuple[str, str]]]:
        """Fill an empty read model from every event, in order (a rebuild).

        One streamed insert for the index, files folded in memory and written
        once each at the end.  Returns how many events, the last position, and
        the retractions to mark, which the caller applies once the index on
        event ids exists (a bulk load runs without secondary indexes).
        """
        retracted: list[tuple[str, str]] = []
        keys: list[tuple[str, str, str]] = []
        state: dict[tuple[str, str, str], tuple[Segments, int, int, str]] = {}
        born: dict[tuple[str, str, str], Born] = {}
        stream_ids: dict[int, str] = {}
        last = count = 0

        def rows() -> Iterator[IndexTuple]:
            nonlocal last, count
            for r in recorded:
                e = r.event
                row = index_row(r, where, stream_ids)
                yield row
                key = getattr(e, "idempotency_key", None)
                if key is not None:
                    keys.append((row[2], key, row[1]))
                if e.kind is RETRACTED:
                    x = cast(_Retraction, e)
                    retracted.extend((x.event_id, eid) for eid in x.retracts)
                scoped, folded = cast(_Scoped, e), cast(Foldable, e)
                for name in touched(folded):
                    key = (scoped.agent, scoped.user or "", name)
                    segments = state[key][0] if key in state else []
                    after = apply_to_file(segments, folded, name)
                    state[key] = (after, scoped.originator_version, r.position, row[10])
                    _track_born(born, key, after, (r.position, row[10]),
                                appended=e.kind is WRITTEN and getattr(e, "mode", None) == "append")
                last = r.position
                count += 1

        writer.load_index(rows())
        writer.load_files(
            (agent, user, name, render(segments), json.dumps(segments), version, position, at)
            for (agent, user, name), (segments, version, position, at) in state.items())
        writer.load_lines(
            line for key, (segments, _, position, at) in state.items()
            for line in line_rows(*key, segments, born.get(key, {}), {}, position, at))
        if keys:
            writer.insert_keys(keys)
        writer.set_position(last)
        return count, last, retracted


def _track_born(born: dict[tuple[str, str, str], Born], key: tuple[str, str, str],
                after: Segments, now: tuple[int, str], *, appended: bool) -> None:
    """Keep, for a file being folded in a bulk load, when each of its current
    segments entered it: an append adds one; anything else keeps the times of
    the segments that stay and gives the others this event's."""
    times = born.setdefault(key, {})
    if appended:
        times[after[-1][0]] = now
        return
    born[key] = {seg[0]: times.get(seg[0], now) for seg in after}


def _sync_lines(writer: Writer, agent: str, user: str, name: str, segments: Segments,
                born: Born, position: int, at: str, *, new: bool) -> None:
    """Bring a file's rows of ``memory_lines`` to its segments: delete the
    lines that left, insert those that came (an append: one insert)."""
    old = [] if new else writer.lines(agent, user, name)
    keep: dict[str, list[tuple[int, str]]] = {}
    added: list[LineTuple] = []
    ids: dict[tuple[str, str], list[int]] = {}
    for line_id, text, sources, pos, when in old:
        keep.setdefault(text, []).append((pos, when))
        ids.setdefault((text, sources), []).append(line_id)
    for row in line_rows(agent, user, name, segments, born, keep, position, at):
        same = ids.get((row[4], row[5]))
        if same:
            same.pop()
        else:
            added.append(row)
    gone = [i for left in ids.values() for i in left]
    if gone:
        writer.delete_lines(gone)
    if added:
        writer.insert_lines(added)


def mark_retracted(writer: Writer, retracted: list[tuple[str, str]]) -> None:
    if retracted:
        writer.mark_retracted(retracted)


__all__ = ["Applicable", "Indexer", "index_row", "mark_retracted", "text_of"]
