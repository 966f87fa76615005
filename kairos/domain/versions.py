"""Published versions of a pair's files, as pure functions of its events.

A dream approval publishes version N of a file: the proposal's lines (each
citing its source events) with every raw write made after the proposal's
cutoff replayed on top.  Version 0 is the plain fold of the raw writes.
Rolling back (or forward) to version k sets the file to version k's lines
plus every raw write after *k's* cutoff.  Nothing here does I/O: callers pass
the stream's events, in version order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kairos.domain.events import (
    DomainEvent,
    DreamApproved,
    DreamProposed,
    MemoryRetracted,
    MemoryWritten,
    VersionRolledBack,
)
from kairos.domain.fold import Segments, apply_to_file, retract


@dataclass(frozen=True)
class Version:
    number: int
    file: str
    dream_id: str | None  # None for version 0
    cutoff: int  # stream version the lines were distilled up to
    lines: list[list[Any]]  # [[text, [sources]]]
    approved_at: datetime | None = None
    reviewer: str | None = None


def line_segments(dream_id: str, lines: Sequence[Sequence[Any]]) -> Segments:
    """A version's lines as distilled segments ``[line_id, text, sources]``."""
    return [[f"{dream_id}#{i}", text, list(sources)] for i, (text, sources) in enumerate(lines)]


def replay(segments: Segments, events: Iterable[DomainEvent], file: str, after: int) -> Segments:
    """Apply the raw writes of ``file`` made after stream version ``after``
    on top of ``segments``, and every retraction made after it, whichever
    file it named: a proposal or an older version may hold a retracted
    write's line in another file than the one it was written to (a dream
    moved it), and it must not come back with an approval or a rollback."""
    out = [list(s) for s in segments]
    for e in events:
        if e.originator_version <= after:
            continue
        if isinstance(e, MemoryWritten) and e.file == file:
            out = apply_to_file(out, e, file)
        elif isinstance(e, MemoryRetracted):
            out = retract(out, set(e.retracts))
    return out


def proposals(events: Iterable[DomainEvent]) -> dict[str, DreamProposed]:
    return {e.event_id: e for e in events if isinstance(e, DreamProposed)}


def approvals(events: Iterable[DomainEvent]) -> list[DreamApproved]:
    return [e for e in events if isinstance(e, DreamApproved)]


def versions(events: Sequence[DomainEvent], file: str) -> list[Version]:
    """Every published version of ``file``, version 0 first."""
    found = [Version(0, file, None, 0, [])]
    props = proposals(events)
    for e in approvals(events):
        if file in e.versions:
            p = props[e.dream_id]
            found.append(Version(e.versions[file], file, e.dream_id, p.cutoff,
                                 p.files[file]["lines"], e.timestamp, e.reviewer))
    return found


def active_version(events: Iterable[DomainEvent], file: str) -> int:
    """The version the file shows now (0 when no dream was published or after
    a rollback to 0)."""
    active = 0
    for e in events:
        if isinstance(e, DreamApproved) and file in e.versions:
            active = e.versions[file]
        elif isinstance(e, VersionRolledBack) and e.file == file:
            active = e.to_version
    return active


def content_of(events: Sequence[DomainEvent], file: str, number: int) -> Segments:
    """Version ``number`` of ``file`` with every raw write after its cutoff
    replayed on top — what a rollback to it shows.

    :raises KeyError: when there is no such version.
    """
    if number == 0:
        return replay([], events, file, 0)
    for v in versions(events, file):
        if v.number == number:
            assert v.dream_id is not None
            return replay(line_segments(v.dream_id, v.lines), events, file, v.cutoff)
    raise KeyError(number)


def published(events: Iterable[DomainEvent], file: str, number: int) -> Segments:
    """Version ``number`` of ``file`` as its approval published it (0: the
    plain fold of the raw writes).

    :raises KeyError: when there is no such version.
    """
    events = list(events)
    if number == 0:
        return replay([], events, file, 0)
    for e in approvals(events):
        if e.versions.get(file) == number:
            return [list(s) for s in e.contents[file]]
    raise KeyError(number)
