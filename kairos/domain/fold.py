"""Memory files as pure folds over their stream's events.

A file is a list of *segments*.  A raw segment is ``[event_id, text]``: an
append adds one, a replace sets the file to one, a retraction removes the
segments of the events it names (it withdraws what those events added; it
does not bring back what a retracted replace had replaced).  A distilled
segment, published by a dream, is ``[line_id, text, [source event ids]]``; a
retraction removes every line that cites one of its ids (the line's words may
be the retracted write's).  A dream approval or a rollback sets a file to the
segments it carries.  The file's text is its segments joined by newlines, with
a final newline.  The same events
always give byte-identical text, so a rebuild can be compared byte for byte.

These functions do no I/O and know nothing of stores: the write side uses
them to check limits, the read side to materialize files.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, cast

from kairos.domain.encrypted import text_len
from kairos.domain.kinds import EventType

# A segment is [event_id, text] (raw) or [line_id, text, [source ids]]
# (distilled): JSON lists, as the events and the read model store them.
Segments = list[list[Any]]
Files = dict[str, Segments]


class Foldable(Protocol):
    """What the folds read of an event: a domain event, or a light struct of
    :mod:`kairos.projections.light` (a rebuild folds those)."""

    @property
    def kind(self) -> EventType: ...

    @property
    def event_id(self) -> str: ...


# Module constants: reading a member off the enum class costs as much as the
# rest of a fold step (a rebuild folds every event), a global costs nothing.
WRITTEN, RETRACTED = EventType.WRITTEN, EventType.RETRACTED
APPROVED, ROLLED_BACK = EventType.APPROVED, EventType.ROLLED_BACK
ERASED = EventType.ERASED


class _Write(Protocol):
    event_id: str
    file: str
    mode: str
    text: str | None


class _Retraction(Protocol):
    file: str
    retracts: list[str]
    also: list[str] | None


class _Approval(Protocol):
    contents: dict[str, Segments]


class _Rollback(Protocol):
    file: str
    segments: Segments


class _Erasure(Protocol):
    files: list[str]


def apply_event(files: Files, event: Foldable) -> Files:
    """Return the files after ``event`` (a new dict; ``files`` is not changed)."""
    names = touched(event)
    if not names:
        return files
    return {**files, **{name: apply_to_file(files.get(name, []), event, name) for name in names}}


def apply_to_file(segments: Segments, event: Foldable, name: str) -> Segments:
    """The segments of file ``name`` after ``event``, one of the events that
    touch it (a new list; ``segments`` is not changed)."""
    kind = event.kind
    if kind is WRITTEN:
        w = cast(_Write, event)
        if w.text is None:  # sealed, and its key destroyed: nothing to show
            return segments if w.mode == "append" else []
        segment = [w.event_id, w.text]
        return [*segments, segment] if w.mode == "append" else [segment]
    if kind is RETRACTED:
        return retract(segments, set(cast(_Retraction, event).retracts))
    if kind is APPROVED:
        return [list(s) for s in cast(_Approval, event).contents[name]]
    if kind is ROLLED_BACK:
        return [list(s) for s in cast(_Rollback, event).segments]
    if kind is ERASED:
        return []
    return segments


def retract(segments: Segments, gone: set[str]) -> Segments:
    """The segments without what the retracted events said: their raw
    segments, and every distilled line citing one of them.  A line is not
    kept on its other sources: its words may be the retracted write's (a
    dream merged "allergic to birch pollen" into "… and penicillin"), and
    retracted text must never reach a model.  The other sources stay in the
    history, and the next dream says again what they say."""
    kept: Segments = []
    for seg in segments:
        if len(seg) == 2:
            if seg[0] not in gone:
                kept.append(seg)
        elif gone.isdisjoint(seg[2]):
            kept.append(seg)
    return kept


def cites(segments: Segments, ids: set[str]) -> bool:
    """Whether a file holds words of any of these events (a raw segment of
    one, or a line citing one)."""
    return any(seg[0] in ids if len(seg) == 2 else not ids.isdisjoint(seg[2]) for seg in segments)


def cites_any(files: Files, event_id: str) -> bool:
    return any(cites(segments, {event_id}) for segments in files.values())


def touched(event: Foldable) -> list[str]:
    """The files an event changes: a retraction's, also every other file
    that cited what it retracts when it was made."""
    kind = event.kind
    if kind is RETRACTED:
        r = cast(_Retraction, event)
        return [r.file, *r.also] if r.also else [r.file]
    if kind is WRITTEN or kind is ROLLED_BACK:
        return [cast(_Rollback, event).file]
    if kind is APPROVED:
        return sorted(cast(_Approval, event).contents)
    if kind is ERASED:
        return list(cast(_Erasure, event).files)
    return []



def fold(events: Iterable[Foldable]) -> Files:
    """Fold a stream's events, in version order, into its files."""
    files: Files = {}
    for event in events:
        files = apply_event(files, event)
    return files


def render(segments: Segments | None) -> str:
    """The text of a file; the empty string means the file does not exist."""
    if not segments:
        return ""
    return "".join(seg[1] + "\n" for seg in segments)


def size(text: str) -> int:
    """A file's size for its limit: its characters, not counting the final
    newline every file ends with (so a 2000-character note fits 2000)."""
    return max(len(text) - 1, 0)


def lines_size(lines: list[tuple[str, list[str]]]) -> int:
    """The size of a file made of these (text, sources) lines."""
    return max(sum(len(text) + 1 for text, _ in lines) - 1, 0)


def size_after_write(segments: Segments, text: str, mode: str) -> int:
    """The size the file would have after a write, for the limit checks
    (the segments' texts may be sealed: their plaintext lengths count)."""
    if mode == "replace" or not segments:
        return len(text)
    return sum(text_len(seg[1]) + 1 for seg in segments) + len(text)
