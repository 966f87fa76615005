"""The append-only dated logs: ``logs/YYYY/MM/YYYY-MM-DD.md`` in the home.

Every event the store commits is appended here, in global order, and
fsynced (the directories too when a file or folder is new) before a write
returns.  Nothing here rewrites or deletes a line: the only bytes that ever
leave a log file are those of a *torn* last entry (a write cut short by a
crash), and those are first saved to a ``.broken`` file beside it; the
entry is then written again, whole, from the store.

An entry goes in the file of its event's UTC date, except that a clock that
steps back never sends an entry to an older file than the newest one: the
logs stay in position order when read file by file.  The same rule applies
when the logs are regenerated from the store, so they come out identical.
"""

from __future__ import annotations

import functools
import heapq
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import Protocol, TypeVar

from kairos import clock, faults
from kairos.domain.events import Recorded
from kairos.domain.logformat import LogFormatError, day_of, file_header, render_entry
from kairos.engine.logread import (
    HEADER_AT,
    blocks,
    complete_prefix,
    count_lines,
    file_places,
    first_position,
    last_position,
)
from kairos.errors import disk_errors
from kairos.home import day_files, fsync_dir
from kairos.projections.indexer import Place


@dataclass
class Tail:
    """Where the logs end: the newest file, its size and lines, the last position."""

    path: str | None = None
    day: str | None = None
    size: int = 0
    lines: int | None = 0  # None: not counted yet (see LogMirror.plan)
    position: int = 0
    last_hash: str | None = None


@dataclass(frozen=True)
class Plan:
    """Entries rendered and placed, not yet written (see :meth:`LogMirror.plan`)."""

    where: dict[int, tuple[str, int]]
    chunks: list[tuple[str, str]]
    tail: Tail


@dataclass(frozen=True)
class Repair:
    path: str
    moved_to: str
    nbytes: int


def aside_path(path: str) -> str:
    """A free ``.broken`` name beside ``path`` (``.broken``, ``.broken.2``, …)."""
    candidate = path + ".broken"
    n = 2
    while os.path.exists(candidate):
        candidate = f"{path}.broken.{n}"
        n += 1
    return candidate


class LogMirror:
    """The dated logs of one home.  ``key``: the entry key; every entry
    written gets its ``- mac:`` line (see :func:`kairos.domain.logformat.entry_mac`)."""

    def __init__(self, root: str, key: bytes | None = None):
        self.root = root  # the home's logs/ folder
        self.key = key
        self.tail: Tail | None = None

    # -- paths -------------------------------------------------------------
    def path_for(self, day: str) -> str:
        return os.path.join(self.root, day[:4], day[5:7], f"{day}.md")

    def relpath(self, path: str) -> str:
        """A log file's path relative to the home, with forward slashes."""
        inside = self.root + os.sep
        if path.startswith(inside):  # every day file: no need for os.path.relpath
            return os.path.basename(self.root) + "/" + path[len(inside):].replace(os.sep, "/")
        return os.path.relpath(path, os.path.dirname(self.root)).replace(os.sep, "/")

    @disk_errors
    def day_files(self) -> list[tuple[str, str]]:
        """Every day file as (day, path), oldest first."""
        return day_files(self.root)

    # -- the tail ------------------------------------------------------------
    @disk_errors
    def scan_tail(self, *, repair: bool = True) -> list[Repair]:
        """Find where the logs end — the entry with the highest position, in
        whichever day file it is — moving a torn last entry aside.

        Reads only the end of every day file, backwards, a few kilobytes at a
        time (after a wild clock reading the newest-dated file need not hold
        the last entry): the cost does not grow with the files, so opening a
        home with a million entries in today's file costs what opening one
        with ten does.  The line count of the tail file is left unknown until
        a write needs it (:meth:`plan`).  A torn entry can only end the file
        appended to last; it is moved aside (``repair=False``: left alone and
        ignored, for a read-only open).  Returns the repairs made; afterwards
        ``self.tail`` is exact.
        """
        repairs: list[Repair] = []
        best: tuple[int, str, str] | None = None
        for day, path in self.day_files():
            position = last_position(path, day)
            if position is None:  # the last entry is torn (or the header is)
                try:
                    good, last, torn = complete_prefix(path, day)
                except LogFormatError as e:
                    e.path = self.relpath(path)  # type: ignore[attr-defined]
                    raise
                if repair and good == 0 and file_header(day).encode().startswith(torn):
                    os.unlink(path)  # a file whose creation was cut short: nothing to keep
                    fsync_dir(os.path.dirname(path))
                    continue
                if repair:
                    repairs.append(self._move_aside(path, good, torn))
                    if good == 0:  # nothing whole in it (a torn header): it is gone aside
                        os.unlink(path)
                        continue
                position = last.position if last is not None else 0
            if position and (best is None or position > best[0]):
                best = (position, day, path)
        if best is None:
            self.tail = Tail()
            return repairs
        _, day, path = best
        good, last, _ = complete_prefix(path, day)
        assert last is not None
        self.tail = Tail(path, day, good, None, last.position, last.event.hash)
        return repairs

    def _move_aside(self, path: str, good: int, torn: bytes) -> Repair:
        target = aside_path(path)
        with open(target, "wb") as f:
            f.write(torn)
            f.flush()
            os.fsync(f.fileno())
        fsync_dir(os.path.dirname(path))
        with open(path, "r+b") as f:
            f.truncate(good)
            f.flush()
            os.fsync(f.fileno())
        return Repair(self.relpath(path), self.relpath(target), len(torn))

    def current_tail(self) -> Tail:
        if self.tail is None:
            self.scan_tail()
        assert self.tail is not None
        return self.tail

    @disk_errors
    def tail_is_current(self, expected_position: int) -> bool:
        """True when our cached tail still describes the files (no other writer
        appended since): the last entry we know of is at ``expected_position``,
        its file has the size we wrote, and no other file exists that a writer
        with our clock would append to now (the file of today, when our tail
        is in another).  One ``stat``, two on another day than the tail's."""
        t = self.tail
        if t is None or t.position != expected_position:
            return False
        if t.path is None:
            return not self.day_files()
        try:
            if os.stat(t.path).st_size != t.size:
                return False
        except FileNotFoundError:
            return False
        today = day_of(clock.now())
        if t.day != today and placed_day(today, t.day) == today:
            return not os.path.exists(self.path_for(today))
        return True

    # -- appending -----------------------------------------------------------
    @disk_errors
    def plan(self, recorded: Iterable[Recorded]) -> Plan:
        """Render entries and decide where each lands, without writing.

        Planning first lets the read model record each entry's file and line
        in the same transaction as the event; :meth:`write` then appends
        exactly these bytes.  Rendering is deterministic, so a plan made again
        after a crash lands every entry on the same line.
        """
        tail = replace(self.current_tail())
        where: dict[int, tuple[str, int]] = {}
        chunks: list[tuple[str, list[str]]] = []
        sizes: dict[str, tuple[int, int | None]] = {}  # files this plan left: their size, lines
        for rec in recorded:
            if rec.position <= tail.position:
                raise LogFormatError(
                    f"position {rec.position} is not after the last logged {tail.position}", 0)
            day = placed_day(day_of(rec.event.timestamp), tail.day)
            if not chunks or chunks[-1][0] != day:
                chunks.append((day, []))
                if day != tail.day:
                    if tail.day is not None:
                        sizes[tail.day] = (tail.size, tail.lines)
                    tail.path, tail.day, tail.size, tail.lines = self.path_for(day), day, 0, 0
                    if day in sizes:  # a file this plan appends to again
                        tail.size, tail.lines = sizes[day]
                    elif os.path.exists(tail.path):  # a file we did not know of: count it
                        tail.size = os.path.getsize(tail.path)
                        tail.lines = count_lines(tail.path, tail.size)
                    else:
                        header = file_header(day)
                        chunks[-1][1].append(header)
                        tail.lines += header.count("\n")
                        tail.size += len(header.encode())
            if tail.lines is None:  # the tail file, not counted at open: count it once
                assert tail.path is not None
                tail.lines = count_lines(tail.path, tail.size)
            text = render_entry(rec.position, rec.event, self.key)
            where[rec.position] = (self.relpath(tail.path or ""), tail.lines + 1)
            chunks[-1][1].append(text)
            tail.lines += text.count("\n")
            tail.size += len(text.encode("utf-8"))
            tail.position = rec.position
            tail.last_hash = rec.event.hash
        return Plan(where, [(day, "".join(parts)) for day, parts in chunks], tail)

    @disk_errors
    def write(self, plan: Plan) -> None:
        """Append a plan's entries, fsynced; afterwards the tail is the plan's."""
        faults.point("log-append")
        for day, text in plan.chunks:
            self._write(day, text)
        self.tail = plan.tail

    def _write(self, day: str, text: str) -> None:
        path = self.path_for(day)
        new_dirs = []
        d = os.path.dirname(path)
        while not os.path.isdir(d):
            new_dirs.append(d)
            d = os.path.dirname(d)
        for nd in reversed(new_dirs):
            os.mkdir(nd)
        is_new = not os.path.exists(path)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            data = text.encode("utf-8")
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
            os.fsync(fd)
        finally:
            os.close(fd)
        if is_new:
            fsync_dir(os.path.dirname(path))
        for nd in new_dirs:
            fsync_dir(os.path.dirname(nd))

    # -- reading -------------------------------------------------------------
    @disk_errors
    def locate(self, positions: set[int] | None = None) -> dict[int, tuple[str, int]]:
        """The (file, line) of entries in the logs (all of them when ``positions``
        is None), found by their header lines alone, newest files first, each
        file streamed (:func:`~kairos.engine.logread.file_places`).  A rebuild
        uses :func:`ordered_places` instead, which holds no map of every entry."""
        found: dict[int, tuple[str, int]] = {}
        want = None if positions is None else set(positions)
        for _day, path in reversed(self.day_files()):
            if want is not None and not want:
                break
            rel = self.relpath(path)
            for pos, line in file_places(path):
                if want is None or pos in want:
                    found[pos] = (rel, line)
                    if want is not None:
                        want.discard(pos)
        return found


def placed_day(own: str, previous: str | None) -> str:
    """The day file of an entry whose event's UTC day is ``own``, logged
    after an entry placed in ``previous``: its own day, except that a small
    step back — ``own`` at most one day before ``previous`` — keeps it in
    ``previous`` (a clock corrected around midnight writes the logs it
    always did).  A larger step back goes to its own day's file, so one wild
    clock reading (year 9999) captures nothing after it."""
    if previous is not None and own < previous and own >= _day_before(previous):
        return previous
    return own


@functools.lru_cache(maxsize=64)
def _day_before(day: str) -> str:
    return (date.fromisoformat(day) - timedelta(days=1)).isoformat()


def expected_entries(recorded: Iterable[Recorded], key: bytes | None = None,
                     mac_from: int | None = None) -> Iterator[tuple[str, str, bool]]:
    """The log text these events must give, entry by entry, in position
    order: (day, text, whether a run of the day starts here).  A day's first
    entry carries the file header before it; a day can come back after
    another (a clock that stepped back more than a day): its later runs
    continue the file.

    The same placement rule as :meth:`LogMirror.plan`, so logs regenerated
    from the store are byte-identical to logs written one event at a time;
    entries from position ``mac_from`` on carry their ``- mac:`` line, made
    with ``key``.  One entry at a time: nothing here grows with the logs.
    """
    day: str | None = None
    seen: set[str] = set()
    for rec in recorded:
        d = placed_day(day_of(rec.event.timestamp), day)
        text = render_entry(rec.position, rec.event,
                            key if mac_from is not None and rec.position >= mac_from else None)
        if d != day:
            day = d
            if d not in seen:
                seen.add(d)
                text = file_header(d) + text
            yield d, text, True
        else:
            yield d, text, False


def ordered_files(mirror: LogMirror, sizes: dict[str, int] | None = None
                  ) -> Iterator[list[tuple[str, str]]]:
    """The day files in the order of their positions, as groups of (day,
    path): one file a group, but files whose position ranges overlap (a
    clock stepped back more than a day, and entries went on in an older
    file), which must be read together and merged.  A file with no entry
    header (a header alone, or bad) is a group of its own, first."""
    ranges: list[tuple[int, int, str, str]] = []
    for day, path in mirror.day_files():
        if sizes is not None and path not in sizes:
            continue
        first = first_position(path, day)
        if first is None:
            yield [(day, path)]
            continue
        last = last_position(path, day, None if sizes is None else sizes[path])
        ranges.append((first, last if last else 1 << 62, day, path))
    ranges.sort()
    group: list[tuple[str, str]] = []
    end = 0
    for first, last, day, path in ranges:
        if group and first > end:
            yield group
            group = []
        group.append((day, path))
        end = max(end, last) if len(group) > 1 else last
    if group:
        yield group


class Positioned(Protocol):
    @property
    def position(self) -> int: ...


E = TypeVar("E", bound=Positioned)


def ordered_entries(mirror: LogMirror, bad: Callable[[str, Exception], None],
                    sizes: dict[str, int] | None = None, *,
                    read: Callable[[str, str, int | None], Iterator[E]]
                    ) -> Iterator[tuple[str, E]]:
    """Every log entry, in position order, with its file (relative path).

    Each file is streamed (:func:`~kairos.engine.logread.iter_entries`), in
    the order of :func:`ordered_files`; the files of a group are merged.  A
    file that does not parse is handed to ``bad`` (with a
    :class:`LogFormatError` or a :class:`UnicodeDecodeError`) where it stops
    parsing: its entries before that point have been yielded.  With
    ``sizes`` (a cut: each file's size when it was taken), only those files,
    and only those bytes.  ``read``: how a file is read
    (:func:`~kairos.engine.logread.iter_entries`; a restore reads entries
    fast: :func:`~kairos.engine.logread.iter_fast`).
    """
    def entries(day: str, path: str) -> Iterator[tuple[int, str, E]]:
        rel = mirror.relpath(path)
        try:
            for entry in read(path, day, None if sizes is None else sizes[path]):
                yield entry.position, rel, entry
        except (LogFormatError, UnicodeDecodeError) as e:
            bad(rel, e)

    for group in ordered_files(mirror, sizes):
        runs = [entries(day, path) for day, path in group]
        merged = runs[0] if len(runs) == 1 else heapq.merge(*runs, key=lambda t: t[0])
        for _, rel, entry in merged:
            yield rel, entry


def ordered_places(mirror: LogMirror) -> Iterator[tuple[int, str, int]]:
    """(position, file, line) of every log entry, in position order, each
    file streamed: what a rebuild records of each event, without a map of
    every entry in memory."""
    def places(path: str) -> Iterator[tuple[int, str, int]]:
        rel = mirror.relpath(path)
        for position, line in file_places(path):
            yield position, rel, line

    for group in ordered_files(mirror):
        runs = [places(path) for _, path in group]
        yield from runs[0] if len(runs) == 1 else heapq.merge(*runs)


class Places:
    """Log places looked up in ascending position order (a rebuild's load),
    read from :func:`ordered_places` as the lookups advance: the
    ``where.get`` of :func:`kairos.projections.indexer.index_row` without a
    map of every entry."""

    def __init__(self, places: Iterator[tuple[int, str, int]]):
        self._places = places
        self._next: tuple[int, str, int] | None = next(places, None)

    def get(self, position: int, default: Place, /) -> Place:
        while self._next is not None and self._next[0] < position:
            self._next = next(self._places, None)
        if self._next is not None and self._next[0] == position:
            return self._next[1], self._next[2]
        return default


_HEADER_TYPE = re.compile(rb"\n## (\d+) ([A-Za-z]+)\n")
SHOWN = 10  # entries past the store's end listed in a message


def past_the_end(mirror: LogMirror, stored: int) -> str:
    """Say which log entries lie past the store's end (``stored``): their
    positions, types and places.  Kairos does not import them on its own:
    they may be forged (anyone who can write the logs can append a
    well-formed entry), or the store an older backup; an operator decides,
    with ``kairos verify`` (entry MACs, a checkpoint).  Each file is read a
    block at a time; only the first few entries past the end are kept."""
    found: list[tuple[int, str, str, int]] = []
    count = 0
    for _day, path in mirror.day_files():
        line = 1
        for piece in blocks(path):
            data = b"\n" + piece
            for m in _HEADER_TYPE.finditer(data):
                position = int(m.group(1))
                if position > stored:
                    count += 1
                    at = line + data.count(b"\n", 1, m.start() + 1)
                    found.append((position, m.group(2).decode(), mirror.relpath(path), at))
            line += piece.count(b"\n")
            if len(found) > 4 * SHOWN:
                found = sorted(found)[:SHOWN]
    found.sort()
    shown = ", ".join(f"{p:06d} {t} at {rel}:{line}" for p, t, rel, line in found[:SHOWN])
    more = f" and {count - SHOWN} more" if count > SHOWN else ""
    return (f"the logs hold {count} entries past the store's end (position {stored}): "
            f"{shown}{more}.  Kairos does not import them: they may have been forged, or the "
            "store restored from an older backup; check them with `kairos verify` "
            "(see docs/operations.md) before deciding")


MAC_LINE = re.compile(rb"(?<=\n)- mac: [0-9a-f]{64}\n")


def first_mac_position(mirror: LogMirror) -> int | None:
    """The position of the first log entry that carries a MAC (None: none
    does): from there on, every entry must.  Each file is read a block at a
    time until its first mac line."""
    best: int | None = None
    for _day, path in mirror.day_files():
        for piece in blocks(path):
            at = piece.find(b"\n- mac: ")
            if at < 0:
                continue
            header = piece.rfind(b"\n## ", 0, at)
            m = HEADER_AT.match(piece, header) if header >= 0 else None
            if m is None and piece.startswith(b"## "):
                m = HEADER_AT.match(b"\n" + piece)
            if m is not None:
                position = int(m.group(1))
                best = position if best is None else min(best, position)
            break
    return best
