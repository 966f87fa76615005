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
from itertools import accumulate, islice

from kairos import clock, faults
from kairos.domain.events import Recorded
from kairos.domain.logformat import (
    Entry,
    LogFormatError,
    day_of,
    file_header,
    parse_day,
    parse_entries,
    render_entry,
)
from kairos.errors import disk_errors

DAY_FILE = re.compile(r"(\d{4})-(\d{2})-(\d{2})\.md")


@dataclass
class Tail:
    """Where the logs end: the newest file, its size and lines, the last position."""

    path: str | None = None
    day: str | None = None
    size: int = 0
    lines: int = 0
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


def fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def aside_path(path: str) -> str:
    """A free ``.broken`` name beside ``path`` (``.broken``, ``.broken.2``, …)."""
    candidate = path + ".broken"
    n = 2
    while os.path.exists(candidate):
        candidate = f"{path}.broken.{n}"
        n += 1
    return candidate


# Up to this many positions, locate() searches for each instead of scanning.
FEW = 64
# An entry's header line with the newline before it (a file's first entry
# follows its title and a blank line, so it has one too), and that newline
# alone.  Searching from the newline lets the regex engine skip ahead to each
# one instead of trying every position as a line start.
_HEADER = re.compile(rb"\n## (\d+) ")
_BEFORE_HEADER = re.compile(rb"\n(?=## \d+ )")


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
        found: list[tuple[str, str]] = []
        if not os.path.isdir(self.root):
            return found
        for year in sorted(os.listdir(self.root)):
            ydir = os.path.join(self.root, year)
            if not (year.isdigit() and os.path.isdir(ydir)):
                continue
            for month in sorted(os.listdir(ydir)):
                mdir = os.path.join(ydir, month)
                if not (month.isdigit() and os.path.isdir(mdir)):
                    continue
                for name in sorted(os.listdir(mdir)):
                    m = DAY_FILE.fullmatch(name)
                    if m and m.group(1) == year and m.group(2) == month:
                        found.append((name[:-3], os.path.join(mdir, name)))
        return found

    # -- the tail ------------------------------------------------------------
    @disk_errors
    def scan_tail(self, *, repair: bool = True) -> list[Repair]:
        """Find where the logs end — the entry with the highest position, in
        whichever day file it is — moving a torn last entry aside.

        Reads the end of every day file (a few kilobytes each: after a wild
        clock reading the newest-dated file need not hold the last entry),
        then the whole of the one that does.  A torn entry can only end the
        file appended to last; it is moved aside (``repair=False``: left
        alone and ignored, for a read-only open).  Returns the repairs made;
        afterwards ``self.tail`` is exact.
        """
        repairs: list[Repair] = []
        best: tuple[int, str, str] | None = None
        for day, path in self.day_files():
            position = _last_position(path, day)
            if position is None:  # the last entry is torn (or the header is)
                with open(path, "rb") as f:
                    data = f.read()
                try:
                    good, last = _complete_prefix(data, day)
                except LogFormatError as e:
                    e.path = self.relpath(path)  # type: ignore[attr-defined]
                    raise
                if repair and good == 0 and file_header(day).encode().startswith(data):
                    os.unlink(path)  # a file whose creation was cut short: nothing to keep
                    fsync_dir(os.path.dirname(path))
                    continue
                if repair:
                    repairs.append(self._move_aside(path, data, good))
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
        with open(path, "rb") as f:
            data = f.read()
        good, last = _complete_prefix(data, day)
        assert last is not None
        self.tail = Tail(path, day, good, data.count(b"\n", 0, good), last.position,
                         last.event.hash)
        return repairs

    def _move_aside(self, path: str, data: bytes, good: int) -> Repair:
        target = aside_path(path)
        with open(target, "wb") as f:
            f.write(data[good:])
            f.flush()
            os.fsync(f.fileno())
        fsync_dir(os.path.dirname(path))
        with open(path, "r+b") as f:
            f.truncate(good)
            f.flush()
            os.fsync(f.fileno())
        return Repair(self.relpath(path), self.relpath(target), len(data) - good)

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
        sizes: dict[str, tuple[int, int]] = {}  # files this plan left: their size, lines
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
                        with open(tail.path, "rb") as f:
                            data = f.read()
                        tail.size, tail.lines = len(data), data.count(b"\n")
                    else:
                        header = file_header(day)
                        chunks[-1][1].append(header)
                        tail.lines += header.count("\n")
                        tail.size += len(header.encode())
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
        is None), found by their header lines alone, newest files first.

        A few positions (what another process wrote a moment ago) are looked
        for from the end of the newest files, each with one search and one
        count of newlines, both in C; many, with one pass over each file.
        """
        found: dict[int, tuple[str, int]] = {}
        want = None if positions is None else set(positions)
        for _day, path in reversed(self.day_files()):
            if want is not None and not want:
                break
            with open(path, "rb") as f:
                data = f.read()
            rel = self.relpath(path)
            if want is not None and len(want) <= FEW:
                for pos in sorted(want):
                    at = data.rfind(b"\n## %06d " % pos)
                    if at >= 0:
                        found[pos] = (rel, data.count(b"\n", 0, at + 1) + 1)
                        want.discard(pos)
                continue
            # Every header at once, without a Python step per line: the file
            # cut before each header, the lines of each piece added up.
            pieces = _BEFORE_HEADER.split(data)
            lines = accumulate([1] + [p.count(b"\n") + 1 for p in pieces[:-1]])
            for pos, line in zip(map(int, _HEADER.findall(data)), islice(lines, 1, None),
                                 strict=True):
                if want is None or pos in want:
                    found[pos] = (rel, line)
                    if want is not None:
                        want.discard(pos)
        return found


def _complete_prefix(data: bytes, day: str) -> tuple[int, Entry | None]:
    """How many leading bytes of a day file hold whole entries, and the last one.

    Only the last entry can be torn (entries are appended in order, each
    write fsynced), so only the region from the last entry header is parsed.
    """
    header = file_header(day).encode()
    if not data.startswith(header):
        if header.startswith(data):
            return 0, None  # torn while the file was being created
        raise LogFormatError(f"expected the header '# Kairos log {day}'", 1)
    start = data.rfind(b"\n## ")
    if start < len(header) - 1:
        return len(header), None
    start += 1
    region = data[start:]
    entry = _parse_one(region)
    if entry is not None:
        return len(data), entry
    # The region may be a whole entry followed by the start of a torn one.
    end = region.find(b"\n\n", region.find(b"\n- hash: "))
    if end != -1:
        end += 2
        first = _parse_one(region[:end])
        if first is not None:
            return start + end, first
    return start, _last_whole_before(data, start, day)


def _parse_one(region: bytes) -> Entry | None:
    try:
        parsed = parse_entries(region.decode("utf-8"))
    except (UnicodeDecodeError, LogFormatError, TypeError):
        return None
    return parsed[-1] if len(parsed) == 1 else None


def _last_whole_before(data: bytes, start: int, day: str) -> Entry | None:
    prev = data.rfind(b"\n## ", 0, start - 1)
    if prev == -1:
        return None
    return _parse_one(data[prev + 1:start])


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


def expected_days(recorded: Iterable[Recorded], key: bytes | None = None,
                  mac_from: int | None = None) -> Iterator[tuple[str, str]]:
    """The log text these events must give, as (day, text) runs in position
    order: each run is appended to its day's file, and a day's first run
    begins with the file header.  A day can come back after another (a clock
    that stepped back more than a day): its later runs continue the file.

    The same placement rule as :meth:`LogMirror.plan`, so logs regenerated
    from the store are byte-identical to logs written one event at a time;
    entries from position ``mac_from`` on carry their ``- mac:`` line, made
    with ``key``.
    """
    day: str | None = None
    seen: set[str] = set()
    parts: list[str] = []
    for rec in recorded:
        d = placed_day(day_of(rec.event.timestamp), day)
        if d != day:
            if day is not None:
                yield day, "".join(parts)
            day, parts = d, [] if d in seen else [file_header(d)]
            seen.add(d)
        parts.append(render_entry(rec.position, rec.event,
                                  key if mac_from is not None and rec.position >= mac_from
                                  else None))
    if day is not None:
        yield day, "".join(parts)


def expected_files(recorded: Iterable[Recorded], key: bytes | None = None,
                   mac_from: int | None = None) -> Iterator[tuple[str, str]]:
    """Each day file's whole expected text, as (day, text): the runs of
    :func:`expected_days` joined per day.  Streams day by day while the days
    come in order (always, but after a clock step back of more than a day)."""
    pending: dict[str, list[str]] = {}
    order: list[str] = []
    for day, text in expected_days(recorded, key, mac_from):
        if day not in pending:
            order.append(day)
            pending[day] = []
        pending[day].append(text)
    for day in order:
        yield day, "".join(pending.pop(day))


# How much of a file's end is read to find its last entry (most entries are
# far smaller; a larger one is found by reading more).
END_CHUNK = 4096


def _last_position(path: str, day: str, size: int | None = None) -> int | None:
    """The position of a day file's last entry (in its first ``size`` bytes),
    reading only its end; 0 when it holds only its header, None when its end
    is not a whole entry (torn)."""
    if size is None:
        size = os.path.getsize(path)
    chunk = END_CHUNK
    with open(path, "rb") as f:
        while True:
            start = max(0, size - chunk)
            f.seek(start)
            data = f.read(size - start)
            at = data.rfind(b"\n## ")
            if at >= 0 and (start > 0 or at >= len(file_header(day)) - 1):
                entry = _parse_one(data[at + 1:])
                return entry.position if entry is not None else None
            if start == 0:  # no entry header at all
                return 0 if data == file_header(day).encode() else None
            chunk *= 16


def _first_position(path: str, day: str) -> int | None:
    """The position of a day file's first entry (None: no entry header)."""
    with open(path, "rb") as f:
        data = f.read(len(file_header(day)) + 32)
    m = _HEADER.match(data, len(file_header(day)) - 1)
    return int(m.group(1)) if m else None


def read_upto(path: str, size: int | None = None) -> bytes:
    """A file's bytes, or its first ``size`` (a cut taken earlier)."""
    with open(path, "rb") as f:
        return f.read() if size is None else f.read(size)


def ordered_entries(mirror: LogMirror, bad: Callable[[str, Exception], None],
                    sizes: dict[str, int] | None = None) -> Iterator[tuple[str, Entry]]:
    """Every log entry, in position order, with its file (relative path).

    Files are read one at a time in the order of their first positions,
    as fast as one pass over them; only files whose position ranges
    overlap (a clock stepped back more than a day, and entries went on in
    an older file) are read together and merged.  A file that does not
    parse is handed to ``bad`` (with a :class:`LogFormatError` or a
    :class:`UnicodeDecodeError`) and left out.  With ``sizes`` (a cut: each
    file's size when it was taken), only those files, and only those bytes.
    """
    ranges: list[tuple[int, int, str, str]] = []
    for day, path in mirror.day_files():
        if sizes is not None and path not in sizes:
            continue
        size = None if sizes is None else sizes[path]
        first = _first_position(path, day)
        if first is None:
            _parse_file(mirror, day, path, bad, size)  # a header alone, or bad: checked
            continue
        last = _last_position(path, day, size)
        ranges.append((first, last if last else 1 << 62, day, path))
    ranges.sort()
    group: list[tuple[str, str]] = []
    end = 0
    for first, last, day, path in ranges:
        if group and first > end:
            yield from _merged(mirror, group, bad, sizes)
            group = []
        group.append((day, path))
        end = max(end, last) if len(group) > 1 else last
    if group:
        yield from _merged(mirror, group, bad, sizes)


def _merged(mirror: LogMirror, group: list[tuple[str, str]],
            bad: Callable[[str, Exception], None], sizes: dict[str, int] | None
            ) -> Iterator[tuple[str, Entry]]:
    def parsed(day: str, path: str) -> list[Entry]:
        return _parse_file(mirror, day, path, bad, None if sizes is None else sizes[path])

    if len(group) == 1:
        day, path = group[0]
        rel = mirror.relpath(path)
        for entry in parsed(day, path):
            yield rel, entry
        return
    runs = [[(e.position, mirror.relpath(path), e) for e in parsed(day, path)]
            for day, path in group]
    for _, rel, entry in heapq.merge(*runs, key=lambda t: t[0]):
        yield rel, entry


def _parse_file(mirror: LogMirror, day: str, path: str,
                bad: Callable[[str, Exception], None], size: int | None = None) -> list[Entry]:
    data = read_upto(path, size)
    if len(data) < len(file_header(day)) and file_header(day).encode().startswith(data):
        return []  # created, but its header not yet whole (a failed append): no entries
    try:
        return parse_day(data.decode("utf-8"), day)
    except (LogFormatError, UnicodeDecodeError) as e:
        bad(mirror.relpath(path), e)
        return []


_HEADER_TYPE = re.compile(rb"\n## (\d+) ([A-Za-z]+)\n")
SHOWN = 10  # entries past the store's end listed in a message


def past_the_end(mirror: LogMirror, stored: int) -> str:
    """Say which log entries lie past the store's end (``stored``): their
    positions, types and places.  Kairos does not import them on its own:
    they may be forged (anyone who can write the logs can append a
    well-formed entry), or the store an older backup; an operator decides,
    with ``kairos verify`` (entry MACs, a checkpoint)."""
    found: list[tuple[int, str, str, int]] = []
    for _day, path in mirror.day_files():
        data = read_upto(path)
        for m in _HEADER_TYPE.finditer(data):
            position = int(m.group(1))
            if position > stored:
                line = data.count(b"\n", 0, m.start() + 1) + 1
                found.append((position, m.group(2).decode(), mirror.relpath(path), line))
    found.sort()
    shown = ", ".join(f"{p:06d} {t} at {rel}:{line}" for p, t, rel, line in found[:SHOWN])
    more = f" and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
    return (f"the logs hold {len(found)} entries past the store's end (position {stored}): "
            f"{shown}{more}.  Kairos does not import them: they may have been forged, or the "
            "store restored from an older backup; check them with `kairos verify` "
            "(see docs/operations.md) before deciding")


MAC_LINE = re.compile(rb"(?<=\n)- mac: [0-9a-f]{64}\n")


def first_mac_position(mirror: LogMirror) -> int | None:
    """The position of the first log entry that carries a MAC (None: none
    does): from there on, every entry must."""
    best: int | None = None
    for _day, path in mirror.day_files():
        data = read_upto(path)
        at = data.find(b"\n- mac: ")
        if at < 0:
            continue
        header = data.rfind(b"\n## ", 0, at)
        m = _HEADER.match(data, header)
        if m is not None:
            position = int(m.group(1))
            best = position if best is None else min(best, position)
    return best
