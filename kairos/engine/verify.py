"""Verification: every stream's hash chain, in the store and in the logs;
that the logs hold exactly the store's events, byte for byte; that each log
entry's MAC holds; and that the read side is what the events fold to.

Four independent checks, each naming the first bad place it finds:

1. the store: each stream's versions run 1, 2, 3…; each event's ``prev`` is
   the hash of the one before; each ``hash`` matches the event's content;
2. the logs: every file parses, positions ascend, and the same chain checks
   hold for the entries (so an edited log line is caught even if the store
   were gone); once an entry carries a MAC (the entry key), every later one
   must, and each must hold — an entry forged by someone who can write the
   logs but lacks the key fails, even past the last checkpoint;
3. the two agree: the day files are exactly what the store renders to, and
   entries past the store's end are named (position, type, file:line);
4. the read side (:mod:`kairos.engine.verify_read`): the read model's rows
   and the materialized files are what the store's events fold to.

**A consistent cut.**  Writers keep running while ``verify`` reads.  It
takes, once, under the writers' lock (shared, and only if the lock file is
there: it never creates one), the store's last position and every log
file's size; it then checks the store up to that position and the logs up
to those sizes.  Writes that land meanwhile are outside the cut: never a
false alarm.

A rewrite that recomputes every hash of a log still fails check 3, and one
that rewrites the store the same way fails it from the other side; a
checkpoint kept elsewhere (``kairos seal``) catches a rewrite of both.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, cast
from uuid import UUID

from kairos.domain.events import DomainEvent, Recorded, expected_hash
from kairos.domain.hashing import GENESIS
from kairos.domain.logformat import LogFormatError, mac_holds
from kairos.engine.locks import shared_lock_if_present
from kairos.engine.logmirror import MAC_LINE, LogMirror, expected_entries, ordered_entries
from kairos.engine.logread import DayReader, iter_entries
from kairos.engine.store import Store
from kairos.progress import SILENT, Progress, counted

MAX_PROBLEMS = 50
_HEADER = re.compile(rb"\n## (\d+) ")


@dataclass(frozen=True)
class Problem:
    where: str  # "store" or a log file path relative to the home
    message: str
    position: int | None = None
    line: int | None = None

    def __str__(self) -> str:
        place = self.where if self.line is None else f"{self.where}:{self.line}"
        at = f" (position {self.position})" if self.position is not None else ""
        return f"{place}{at}: {self.message}"


@dataclass
class Report:
    events: int = 0
    streams: int = 0
    log_files: int = 0
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # not failures: what was not checked
    position: int = 0  # the store's last position at the cut

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, problem: Problem) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(problem)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "events": self.events, "streams": self.streams,
                "log_files": self.log_files, "position": self.position, "notes": self.notes,
                "problems": [{**asdict(p), "text": str(p)} for p in self.problems]}


class ChainChecker:
    """Checks events of many streams, fed in global order."""

    def __init__(self) -> None:
        self.heads: dict[UUID | str, tuple[int, str]] = {}

    def check(self, event: DomainEvent) -> str | None:
        """Return what is wrong with this event, or None."""
        wrong = self.link(event.originator_id, event.originator_version, event.prev, event.hash)
        if wrong is None and expected_hash(event) != event.hash:
            return "hash does not match the event's content"
        return wrong

    def link(self, stream: UUID | str, version: int, prev: str, hash: str) -> str | None:
        """What is wrong with an event's place in its stream (its version and
        ``prev``), or None; the caller checks its hash against its content.
        ``stream``: always a UUID, or always its text (a restore), never both."""
        last, head = self.heads.get(stream, (0, GENESIS))
        self.heads[stream] = (version, hash)
        if version != last + 1:
            return f"stream {stream} jumps from version {last} to {version}"
        if prev != head:
            return f"prev hash does not match the hash of version {last} of its stream"
        return None


@dataclass(frozen=True)
class Cut:
    """What ``verify`` checks: the store up to ``position``, each log file
    (by path) up to its size, taken at one moment under the writers' lock."""

    position: int
    sizes: dict[str, int]


def take_cut(store: Store, mirror: LogMirror, lock_path: str) -> Cut:
    """The store's position and the logs' sizes at one moment: no writer is
    between its commit and its log append while the shared lock is held."""
    with shared_lock_if_present(lock_path):
        position = store.max_position()
        sizes = {path: os.path.getsize(path) for _day, path in mirror.day_files()}
    return Cut(position, sizes)


def store_events(store: Store, report: Report, upto: int | None = None) -> Iterator[Recorded]:
    """The store's events in order; a row that does not decode is a problem."""
    to_event = store.app.mapper.to_domain_event
    for rows in store.pages(upto=upto):
        for n in rows:
            try:
                yield Recorded(n.id, cast(DomainEvent, to_event(n)))
            except Exception as e:  # a row edited into something the mapper rejects
                report.add(Problem("store", f"event does not decode: {e}", n.id))


def verify(store: Store, mirror: LogMirror, cut: Cut, key: bytes | None = None,
           progress: Progress = SILENT) -> Report:
    """Run checks 1-3 on ``cut``; one pass over the store, one over the logs.
    (Check 4 is :func:`kairos.engine.verify_read.verify_read_side`.)
    ``progress`` hears of each pass and the entries it checked."""
    report = Report(position=cut.position)
    chains = ChainChecker()

    def checked() -> Iterator[Recorded]:
        progress.phase("store and logs agree", cut.position)
        for rec in counted(store_events(store, report, cut.position), progress):
            report.events += 1
            wrong = chains.check(rec.event)
            if wrong:
                report.add(Problem("store", wrong, rec.position))
            yield rec

    progress.phase("log chains", cut.position, "entries")
    mac_from, past = _verify_logs(mirror, report, cut, key, progress)
    _compare(checked(), mirror, report, cut, key if mac_from is not None else None, mac_from,
             past)
    report.streams = len(chains.heads)
    return report


def sort_problems(report: Report) -> None:
    report.problems.sort(key=lambda p: (p.position is None, p.position or 0))


def _verify_logs(mirror: LogMirror, report: Report, cut: Cut, key: bytes | None,
                 progress: Progress = SILENT) -> tuple[int | None, set[int]]:
    """Check 2; return the first position with a MAC, and the positions past
    the store's end (each reported with its type and place)."""
    chains = ChainChecker()
    last = 0
    mac_from: int | None = None
    past: set[int] = set()
    report.log_files = len(cut.sizes)

    def bad(rel: str, e: Exception) -> None:
        if isinstance(e, LogFormatError):
            report.add(Problem(rel, e.reason, line=e.line))
        else:
            report.add(Problem(rel, f"not valid UTF-8 ({getattr(e, 'reason', e)})"))

    for rel, entry in counted(ordered_entries(mirror, bad, cut.sizes, read=iter_entries), progress):
        if entry.position <= last:
            report.add(Problem(rel, f"position {entry.position} does not follow {last}",
                               entry.position, entry.line))
        last = max(last, entry.position)
        wrong = chains.check(entry.event)
        if wrong:
            report.add(Problem(rel, wrong, entry.position, entry.line))
        if entry.mac is not None:
            if mac_from is None:
                mac_from = entry.position
            if key is not None and not mac_holds(key, entry):
                report.add(Problem(rel, "its mac does not hold: the entry was forged or "
                                   "altered by someone without the entry key",
                                   entry.position, entry.line))
        elif mac_from is not None:
            report.add(Problem(rel, f"has no mac, but the entries from position {mac_from} "
                               "on do: it was written without the entry key (forged?)",
                               entry.position, entry.line))
        if entry.position > cut.position:
            past.add(entry.position)
            report.add(Problem(rel, f"{entry.event.kind.value} past the store's end (position "
                               f"{cut.position}): the store does not have it",
                               entry.position, entry.line))
    if mac_from is not None and key is None:
        report.notes.append(f"log entries carry macs from position {mac_from} on, but no entry "
                            "key was given (KAIROS_ENTRY_KEY): they were not checked")
    return mac_from, past


def _compare(recorded: Iterator[Recorded], mirror: LogMirror, report: Report, cut: Cut,
             key: bytes | None, mac_from: int | None, past: set[int]) -> None:
    """Check 3: each day file is, up to the cut, the store's entries rendered
    (run after run: a day can come back after a clock stepped back), one
    problem at most per run.  Entry by entry, each file read forward as the
    entries come (:class:`~kairos.engine.logread.DayReader`): memory does
    not grow with the files.  Without the key, mac lines are left out of
    the comparison (check 2 saw them)."""
    actual = {day: path for day, path in mirror.day_files() if path in cut.sizes}
    strip = MAC_LINE if key is None and mac_from is not None else None
    readers: dict[str, DayReader] = {}
    missing: set[str] = set()
    failed = False  # the current run has its problem already
    for day, text, starts in expected_entries(recorded, key,
                                              mac_from if key is not None else None):
        failed = failed and not starts
        path = actual.get(day)
        if path is None:
            if day not in missing:
                missing.add(day)
                first = text.split("\n")[2 if text.startswith("# ") else 0]
                report.add(Problem(mirror.relpath(mirror.path_for(day)), "log file is missing",
                                   _position_of(first)))
            continue
        reader = readers.get(day)
        if reader is None:
            reader = readers[day] = DayReader(path, cut.sizes[path], strip)
        want = text.encode("utf-8")
        line = reader.line
        got = reader.take(len(want))
        if got == want or failed:
            continue
        failed = True
        window = got + reader.peek(len(want) + 4096)
        report.add(_first_difference(mirror.relpath(path), window, want, line))
    for day, path in sorted(actual.items()):
        reader = readers.get(day) or DayReader(path, cut.sizes[path])
        done = reader.last != b""  # some of it was compared
        before, left, headers = reader.last, False, False
        first_unknown: int | None = None
        for piece in reader.rest():
            left = left or piece != b""
            for m in _HEADER.finditer(before + piece):
                headers = True
                position = int(m.group(1))
                if position not in past and (first_unknown is None or position < first_unknown):
                    first_unknown = position
            before = piece[-1:]
        if left and (first_unknown is not None or (not done and not headers)):
            report.add(Problem(mirror.relpath(path), "holds entries the store does not have",
                               first_unknown))


def _first_difference(rel: str, data: bytes, want: bytes, base: int = 1) -> Problem:
    """The problem at the first line where ``data`` (the file from an entry's
    first line, on line ``base``) and ``want`` (the entry) differ."""
    got_lines, want_lines = data.split(b"\n"), want.split(b"\n")
    n = next((i for i, (a, b) in enumerate(zip(got_lines, want_lines, strict=False)) if a != b),
             min(len(got_lines), len(want_lines)))
    line, position = _entry_at(got_lines, n)
    if n >= len(want_lines) - 1:
        return Problem(rel, "holds an entry the store does not have", position, base + line - 1)
    if n >= len(got_lines) - 1:
        return Problem(rel, "ends before the store's events do", _entry_at(want_lines, n)[1],
                       base + n)
    return Problem(rel, "differs from the store's event", position, base + line - 1)


def _position_of(header: str) -> int | None:
    parts = header.split()
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None


def _entry_at(lines: list[bytes], n: int) -> tuple[int, int | None]:
    """The header line (1-based) and position of the entry holding line ``n``."""
    for i in range(min(n, len(lines) - 1), -1, -1):
        if lines[i].startswith(b"## "):
            return i + 1, _position_of(lines[i].decode("utf-8", "replace"))
    return n + 1, None
