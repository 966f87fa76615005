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

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from itertools import accumulate, islice

from kairos import clock
from kairos.domain.events import Recorded
from kairos.domain.logformat import (
    Entry,
    LogFormatError,
    day_of,
    file_header,
    parse_entries,
    render_entry,
)

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
    def __init__(self, root: str):
        self.root = root  # the home's logs/ folder
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
    def scan_tail(self) -> list[Repair]:
        """Find where the logs end, moving a torn last entry aside.

        Reads the newest day file only.  Returns the repairs made (at most one
        file's torn tail); afterwards ``self.tail`` is exact.
        """
        repairs: list[Repair] = []
        files = self.day_files()
        while files:
            day, path = files[-1]
            with open(path, "rb") as f:
                data = f.read()
            try:
                good, last = _complete_prefix(data, day)
            except LogFormatError as e:
                e.path = self.relpath(path)  # type: ignore[attr-defined]
                raise
            if good < len(data):
                repairs.append(self._move_aside(path, data, good))
                data = data[:good]
            if good == 0:
                # Nothing whole in this file (a torn header): it is gone aside;
                # look at the file before it.
                os.unlink(path)
                files.pop()
                continue
            self.tail = Tail(path, day, len(data), data.count(b"\n"),
                             last.position if last else 0,
                             last.event.hash if last else None)
            if last is None:  # a header with no entry yet: position is in older files
                self.tail.position, self.tail.last_hash = self._last_before(files[:-1])
            return repairs
        self.tail = Tail()
        return repairs

    def _last_before(self, files: list[tuple[str, str]]) -> tuple[int, str | None]:
        for day, path in reversed(files):
            with open(path, "rb") as f:
                good, last = _complete_prefix(f.read(), day)
            if last is not None:
                return last.position, last.event.hash
        return 0, None

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

    def tail_is_current(self, expected_position: int) -> bool:
        """True when our cached tail still describes the files (no other writer
        appended since): the last entry we know of is at ``expected_position``,
        the newest file has the size we wrote, and no newer day file began."""
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
        if t.day != day_of(clock.now()):  # another process may have started a new day
            files = self.day_files()
            return bool(files) and files[-1][1] == t.path
        return True

    # -- appending -----------------------------------------------------------
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
        for rec in recorded:
            if rec.position <= tail.position:
                raise LogFormatError(
                    f"position {rec.position} is not after the last logged {tail.position}", 0)
            day = day_of(rec.event.timestamp)
            if tail.day is not None and day < tail.day:
                day = tail.day
            if not chunks or chunks[-1][0] != day:
                chunks.append((day, []))
                if day != tail.day:
                    tail.path, tail.day, tail.size, tail.lines = self.path_for(day), day, 0, 0
                    if os.path.exists(tail.path):  # a file we did not know of: count it
                        with open(tail.path, "rb") as f:
                            data = f.read()
                        tail.size, tail.lines = len(data), data.count(b"\n")
                    else:
                        header = file_header(day)
                        chunks[-1][1].append(header)
                        tail.lines += header.count("\n")
                        tail.size += len(header.encode())
            text = render_entry(rec.position, rec.event)
            where[rec.position] = (self.relpath(tail.path or ""), tail.lines + 1)
            chunks[-1][1].append(text)
            tail.lines += text.count("\n")
            tail.size += len(text.encode("utf-8"))
            tail.position = rec.position
            tail.last_hash = rec.event.hash
        return Plan(where, [(day, "".join(parts)) for day, parts in chunks], tail)

    def write(self, plan: Plan) -> None:
        """Append a plan's entries, fsynced; afterwards the tail is the plan's."""
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


def expected_days(recorded: Iterable[Recorded]) -> Iterator[tuple[str, str]]:
    """The day files the logs must hold for these events, as (day, text).

    The same placement rule as :meth:`LogMirror.plan`, so logs regenerated
    from the store are byte-identical to logs written one event at a time.
    """
    day: str | None = None
    parts: list[str] = []
    for rec in recorded:
        d = day_of(rec.event.timestamp)
        if day is not None and d < day:
            d = day
        if d != day:
            if day is not None:
                yield day, "".join(parts)
            day, parts = d, [file_header(d)]
        parts.append(render_entry(rec.position, rec.event))
    if day is not None:
        yield day, "".join(parts)
