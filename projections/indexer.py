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
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, cast
from uuid import UUID

from kairos.domain.encrypted import CONTENT_TYPES, TEXT_FIELDS, StreamDecrypt, decrypt_event
from kairos.domain.events import DomainEvent, DreamProposed
from kairos.domain.fold import Files, Foldable, Segments, apply_event, apply_to_file, render, touched
from kairos.domain.hashing import format_time
from kairos.domain.kinds import EventType
from kairos.projections import lines
from kairos.projections.light import Light
from kairos.projections.readmodel import FileTuple, IndexTuple, LineTuple, Writer

Place = tuple[str, int] | tuple[None, None]  # (log file, line), or none known


class Where(Protocol):
    """Log places by position: a dict, or a rebuild's places streamed in
    position order (:class:`kairos.engine.logmirror.Places`)."""

    def get(self, key: int, default: Place, /) -> Place: ...


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
    originator_id: UUID
    originator_version: int


class Decrypted(NamedTuple):
    """A recorded event with its content decrypted."""

    position: int
    event: Any


# Read once: a member off the enum class costs more than the index row.
RETRACTED, PROPOSED, WRITTEN = EventType.RETRACTED, EventType.PROPOSED, EventType.WRITTEN
ERASED = EventType.ERASED
FILES_BATCH = 5_000  # file and line rows a rebuild holds before it writes them
# Files a rebuild folds in one pass over the events (about 6 KB each held: a
# pair's MEMORY.md of 100 lines); a home with more is folded stream by stream.
FOLD_CAP = 20_000
NAMES = {kind: kind.value for kind in EventType}
# The event's own text in the index: what was written, or why (the content
# fields, and an erasure's reason, which is not content).
_TEXT = {**{kind: fields[0] for kind, fields in TEXT_FIELDS.items()},
         EventType.ERASED: "reason"}


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
    in :data:`schema.ROW_COLUMNS` order.

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
            getattr(e, "actor", None) or getattr(e, "reviewer", None) or getattr(e, "by", None),
            getattr(e, "session", None), format_time(e.timestamp), text_of(e), log_file,
            log_line, getattr(e, "dream_id", None))


def recorded_at(e: DomainEvent | Light) -> str:
    """An event's time as the index row holds it (index 10 of :func:`index_row`)."""
    return e.at if isinstance(e, Light) else format_time(e.timestamp)


@dataclass
class Batch:
    """What a batch of events does to the read model, worked out before its
    transaction (:meth:`Indexer.plan`) so that the transaction only writes
    (:meth:`Indexer.write`): the store's writer waits for the database's
    write lock while a read-model transaction holds it."""

    last: int  # the position of the batch's last event
    rows: list[IndexTuple]
    keys: list[tuple[str, str, str]]
    retracted: list[tuple[str, str]]
    files: list[tuple[FileTuple, bool, list[int], list[LineTuple]]]  # row, new, lines gone, added
    # Streams erased, each with the erasure's position: the text of their
    # events before it leaves the index.
    erased: list[tuple[str, int]] = field(default_factory=list)


class Indexer:
    """Applies recorded events to the read model.

    :param decrypt: in a home that encrypts, how to decrypt the events'
        content (:mod:`kairos.domain.encrypted`): the read model holds it
        decrypted, and leaves out what no longer decrypts (erased).
    """

    fold_cap = FOLD_CAP  # files a rebuild folds in one pass (:meth:`load`)

    def __init__(self, decrypt: StreamDecrypt | None = None):
        self.decrypt = decrypt

    def decrypted(self, recorded: Iterable[Applicable]) -> Iterable[Applicable]:
        decrypt = self.decrypt
        if decrypt is None:
            return recorded
        return (Decrypted(r.position, decrypt_event(r.event, decrypt)) for r in recorded)

    def plan(self, reader: Writer, recorded: Sequence[Applicable], where: Where
             ) -> Batch | None:
        """The rows a batch of events adds and changes, folded from what the
        read model holds (read through ``reader``, outside any transaction
        of the caller's: :meth:`write` then refuses the batch if another
        process applied events meanwhile).  None for no events."""
        if not recorded:
            return None
        rows: list[IndexTuple] = []
        keys: list[tuple[str, str, str]] = []
        retracted: list[tuple[str, str]] = []
        state: dict[tuple[str, str, str], tuple[Files, int, int, str]] = {}
        new: set[tuple[str, str, str]] = set()
        current: dict[tuple[str, str, str], _Lines] = {}
        erased: list[tuple[str, int]] = []
        for r in self.decrypted(recorded):
            e = r.event
            row = index_row(r, where)
            rows.append(row)
            if e.kind is ERASED:
                erased.append((row[2], r.position))
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
                    segments = reader.segments(*key)
                    if segments is None:
                        new.add(key)
                    files = {} if segments is None else {name: segments}
                    current[key] = _Lines(loaded=segments is None)
                files = apply_event(files, cast(Foldable, e))
                state[key] = (files, scoped.originator_version, r.position, row[10])
                current[key].step(reader, key, files.get(name, []), r.position, row[10],
                                  appended=_is_append(e))
        changed = []
        for (agent, user, name), (files, version, position, at) in state.items():
            segments = files.get(name, [])
            gone, added = current[agent, user, name].changes((agent, user, name))
            changed.append(((agent, user, name, render(segments), json.dumps(segments), version,
                             position, at), (agent, user, name) in new, gone, added))
        return Batch(recorded[-1].position, rows, keys, retracted, changed, erased)

    @staticmethod
    def write(writer: Writer, batch: Batch, *, expect: int) -> bool:
        """Write a planned batch in the caller's transaction, moving the
        position from ``expect``; False, writing nothing, when the read model
        is not there (another process applied these events first)."""
        if not writer.move_position(batch.last, expect):
            return False
        writer.insert_index(batch.rows)
        for stream_id, position in batch.erased:
            writer.erase_texts(stream_id, position)
        if batch.keys:
            writer.insert_keys(batch.keys)
        if batch.retracted:
            writer.mark_retracted(batch.retracted)
        for row, new, _, _ in batch.files:
            writer.put_file(row, new=new)
        # The batch's lines in two statements, not two per file: the full-
        # text index then sees its rows leave and come in rowid order (an
        # out-of-order rowid makes FTS5 write its pending terms out first).
        gone = sorted(i for _, _, ids, _ in batch.files for i in ids)
        if gone:
            writer.delete_lines(gone)
        added = [line for _, _, _, rows in batch.files for line in rows]
        if added:
            writer.insert_lines(added)
        return True

    def load(self, writer: Writer, recorded: Iterable[Applicable], where: Where
             ) -> tuple[int, int, list[tuple[str, str]], bool]:
        """Fill an empty read model from every event, in position order (a
        rebuild).

        One streamed insert for the index; the files are folded in memory as
        the events come and written once each at the end — while the home's
        files number at most :attr:`fold_cap`.  Past that, the fold is dropped
        and the files are left to :meth:`load_files`, which folds them stream
        by stream from a second read: memory stays bounded whatever the size
        of the home, and a home that fits is read once.  Returns how many
        events, the last position, the retractions to mark (which the caller
        applies once the index on event ids exists: a bulk load runs without
        secondary indexes), and whether the files were written.
        """
        retracted: list[tuple[str, str]] = []
        keys: list[tuple[str, str, str]] = []
        stream_ids: dict[int, str] = {}
        erased: list[tuple[str, int]] = []
        fold: _Fold | None = _Fold()
        last = count = 0

        def rows() -> Iterator[IndexTuple]:
            nonlocal last, count, fold
            for r in self.decrypted(recorded):
                e = r.event
                row = index_row(r, where, stream_ids)
                yield row
                if e.kind is ERASED:
                    erased.append((row[2], r.position))
                key = getattr(e, "idempotency_key", None)
                if key is not None:
                    keys.append((row[2], key, row[1]))
                if e.kind is RETRACTED:
                    x = cast(_Retraction, e)
                    retracted.extend((x.event_id, eid) for eid in x.retracts)
                if fold is not None:
                    fold.step(r.position, e, row[10])
                    if len(fold.state) > self.fold_cap:
                        fold = None  # too big to hold: load_files folds stream by stream
                last = r.position
                count += 1

        writer.load_index(rows())
        for stream_id, at in erased:  # as the write path does on an erasure
            writer.erase_texts(stream_id, at, fts=False)  # (the full-text index comes later)
        if fold is not None:
            writer.load_files(fold.files())
            writer.load_lines(fold.lines())
        if keys:
            writer.insert_keys(keys)
        writer.set_position(last)
        return count, last, retracted, fold is not None

    def load_files(self, writer: Writer, by_stream: Iterable[Applicable],
                   batch: int = FILES_BATCH) -> None:
        """Fill an empty read model's files and lines from every event, read
        stream by stream (:meth:`Store.read_bulk_by_stream
        <kairos.engine.store.Store.read_bulk_by_stream>`): a rebuild whose
        :meth:`load` found the home too big to fold in one pass.  A stream's
        files are folded and rendered before the next stream's are begun, and
        written ``batch`` rows at a time, so memory holds one stream's files
        whatever the size of the home.  A file's events are all in its
        stream, so the folds are those of position order."""
        fold = _Fold()
        files: list[FileTuple] = []
        held: list[LineTuple] = []
        stream: object = None

        def done() -> None:  # the stream's files and lines leave the fold for the batch
            files.extend(fold.files())
            held.extend(fold.lines())
            fold.state.clear()
            fold.current.clear()
            if len(files) + len(held) >= batch:
                write()

        def write() -> None:
            writer.load_files(files)
            writer.load_lines(held)
            files.clear()
            held.clear()

        for r in self.decrypted(by_stream):
            e = r.event
            if cast(_Scoped, e).originator_id != stream:
                done()
                stream = cast(_Scoped, e).originator_id
            fold.step(r.position, e, recorded_at(e))
        done()
        write()


class _Fold:
    """Files and their lines folded in memory, event by event (a rebuild)."""

    def __init__(self) -> None:
        self.state: dict[tuple[str, str, str], tuple[Segments, int, int, str]] = {}
        self.current: dict[tuple[str, str, str], list[lines.Line]] = {}

    def step(self, position: int, e: DomainEvent | Light, at: str) -> None:
        scoped, folded = cast(_Scoped, e), cast(Foldable, e)
        for name in touched(folded):
            key = (scoped.agent, scoped.user or "", name)
            segments = self.state[key][0] if key in self.state else []
            after = apply_to_file(segments, folded, name)
            self.state[key] = (after, scoped.originator_version, position, at)
            if _is_append(e):
                self.current.setdefault(key, []).extend(lines.appended(after[-1], position, at))
            else:
                self.current[key] = lines.rewritten(self.current.get(key, []), after, position, at)

    def files(self) -> Iterator[FileTuple]:
        for (agent, user, name), (segments, version, position, at) in self.state.items():
            yield agent, user, name, render(segments), json.dumps(segments), version, position, at

    def lines(self) -> Iterator[LineTuple]:
        for key, file_lines in self.current.items():
            yield from lines.rows(*key, file_lines)


def without_erased_text(row: IndexTuple, erasures: dict[str, int]) -> IndexTuple:
    """The index row as an erasure of its stream leaves it (``erasures``: the
    last erasure's position by stream id): content text cleared when the
    event came before one."""
    at = erasures.get(row[2])
    if at is None or row[0] >= at or row[4] not in CONTENT_TYPES or row[11] is None:
        return row
    return (*row[:11], None, *row[12:])


def _is_append(e: DomainEvent | Light) -> bool:
    """An append that adds a line (an erased one adds nothing)."""
    return (e.kind is WRITTEN and getattr(e, "mode", None) == "append"
            and getattr(e, "text", None) is not None)


class _Lines:
    """A file's lines through a batch of events (:mod:`lines`' rule, event by
    event).  Appends need none of the lines already stored: theirs are
    inserted as they are, without reading the file's others (a write to a
    long MEMORY.md costs one insert, not a read of all its lines).  The
    first event that rewrites the file reads them."""

    def __init__(self, *, loaded: bool):
        self.loaded = loaded  # a new file has no stored lines to read
        self.stored: list[tuple[int, str, str, int, str, int]] = []  # (id, *lines.Line)
        self.lines: list[lines.Line] = []

    def step(self, writer: Writer, key: tuple[str, str, str], segments: Segments,
             position: int, at: str, *, appended: bool) -> None:
        if appended:
            self.lines += lines.appended(segments[-1], position, at)
            return
        if not self.loaded:
            self.stored = writer.lines(*key)
            self.lines = [line[1:] for line in self.stored] + self.lines
            self.loaded = True
        self.lines = lines.rewritten(self.lines, segments, position, at)

    def changes(self, key: tuple[str, str, str]) -> tuple[list[int], list[LineTuple]]:
        """The stored rows that are no longer lines (their ids), and the rows
        of the lines not stored (with nothing read, every line is new)."""
        unmatched: dict[lines.Line, list[int]] = {}
        for stored in self.stored:
            unmatched.setdefault(stored[1:], []).append(stored[0])
        added: list[lines.Line] = []
        for line in self.lines:
            same = unmatched.get(line)
            if same:
                same.pop()
            else:
                added.append(line)
        return [i for ids in unmatched.values() for i in ids], lines.rows(*key, added)


def mark_retracted(writer: Writer, retracted: list[tuple[str, str]]) -> None:
    if retracted:
        writer.mark_retracted(retracted)


__all__ = ["Applicable", "Indexer", "index_row", "mark_retracted", "text_of",
           "without_erased_text"]
