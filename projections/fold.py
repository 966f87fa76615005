"""Memory files as pure folds over their stream's events.

A file is a list of *segments*.  A raw segment is ``[event_id, text]``: an
append adds one, a replace sets the file to one, a retraction removes the
segments of the events it names (it withdraws what those events added; it
does not bring back what a retracted replace had replaced).  A distilled
segment, published by a dream, is ``[line_id, text, [source event ids]]``; a
retraction takes its ids out of the sources, and the line goes when none is
left.  A dream approval or a rollback sets a file to the segments it carries.  The file's text
is its segments joined by newlines, with a final newline.  The same events
always give byte-identical text, so a rebuild can be compared byte for byte.

These functions do no I/O and know nothing of stores: the write side uses
them to check limits, the read side to materialize files.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

Segments = list[list[Any]]
Files = dict[str, Segments]


def apply_event(files: Files, event: Any) -> Files:
    """Return the files after ``event`` (a new dict; ``files`` is not changed)."""
    names = touched(event)
    if not names:
        return files
    return {**files, **{name: apply_to_file(files.get(name, []), event, name) for name in names}}


def apply_to_file(segments: Segments, event: Any, name: str) -> Segments:
    """The segments of file ``name`` after ``event``, one of the events that
    touch it (a new list; ``segments`` is not changed)."""
    kind = type(event).__name__
    if kind == "MemoryWritten":
        segment = [event.event_id, event.text]
        return [*segments, segment] if event.mode == "append" else [segment]
    if kind == "MemoryRetracted":
        return retract(segments, set(event.retracts))
    if kind == "DreamApproved":
        return [list(s) for s in event.contents[name]]
    if kind == "VersionRolledBack":
        return [list(s) for s in event.segments]
    return segments


def retract(segments: Segments, gone: set[str]) -> Segments:
    kept: Segments = []
    for seg in segments:
        if len(seg) == 2:
            if seg[0] not in gone:
                kept.append(seg)
            continue
        sources = [s for s in seg[2] if s not in gone]
        if sources:
            kept.append([seg[0], seg[1], sources])
    return kept


def touched(event: Any) -> list[str]:
    """The files an event changes."""
    kind = type(event).__name__
    if kind in ("MemoryWritten", "MemoryRetracted", "VersionRolledBack"):
        return [event.file]
    if kind == "DreamApproved":
        return sorted(event.contents)
    return []


def fold(events: Iterable[Any]) -> Files:
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
    """The size the file would have after a write, for the limit checks."""
    if mode == "replace" or not segments:
        return len(text)
    return size(render(segments)) + 1 + len(text)
