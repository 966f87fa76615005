"""Verification: every stream's hash chain, in the store and in the logs, and
that the logs hold exactly the store's events, byte for byte.

Three independent checks, each naming the first bad place it finds:

1. the store: each stream's versions run 1, 2, 3…; each event's ``prev`` is
   the hash of the one before; each ``hash`` matches the event's content;
2. the logs: every file parses, positions only grow, and the same chain
   checks hold for the entries (so an edited log line is caught even if
   the store were gone);
3. the two agree: the day files are exactly what the store renders to.

A rewrite that recomputes every hash of a log still fails check 3, and one
that rewrites the store the same way fails it from the other side; a
checkpoint kept elsewhere (``kairos seal``) catches a rewrite of both.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, cast
from uuid import UUID

from kairos.domain.events import DomainEvent, Recorded, expected_hash
from kairos.domain.hashing import GENESIS
from kairos.domain.logformat import LogFormatError, parse_day
from kairos.engine.logmirror import LogMirror, expected_days
from kairos.engine.store import Store

MAX_PROBLEMS = 50


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

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, problem: Problem) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(problem)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "events": self.events, "streams": self.streams,
                "log_files": self.log_files,
                "problems": [{**asdict(p), "text": str(p)} for p in self.problems]}


class ChainChecker:
    """Checks events of many streams, fed in global order."""

    def __init__(self) -> None:
        self.heads: dict[UUID, tuple[int, str]] = {}

    def check(self, event: DomainEvent) -> str | None:
        """Return what is wrong with this event, or None."""
        version, head = self.heads.get(event.originator_id, (0, GENESIS))
        self.heads[event.originator_id] = (event.originator_version, event.hash)
        if event.originator_version != version + 1:
            return (f"stream {event.originator_id} jumps from version {version} "
                    f"to {event.originator_version}")
        if event.prev != head:
            return f"prev hash does not match the hash of version {version} of its stream"
        if expected_hash(event) != event.hash:
            return "hash does not match the event's content"
        return None


def store_events(store: Store, report: Report) -> Iterator[Recorded]:
    """The store's events in order; a row that does not decode is a problem."""
    to_event = store.app.mapper.to_domain_event
    for rows in store.pages():
        for n in rows:
            try:
                yield Recorded(n.id, cast(DomainEvent, to_event(n)))
            except Exception as e:  # a row edited into something the mapper rejects
                report.add(Problem("store", f"event does not decode: {e}", n.id))


def verify(store: Store, mirror: LogMirror) -> Report:
    """Run the three checks; one pass over the store, one day file at a time."""
    report = Report()
    chains = ChainChecker()

    def checked() -> Iterator[Recorded]:
        for rec in store_events(store, report):
            report.events += 1
            wrong = chains.check(rec.event)
            if wrong:
                report.add(Problem("store", wrong, rec.position))
            yield rec

    _verify_logs(mirror, report)
    _compare(checked(), mirror, report)
    report.streams = len(chains.heads)
    report.problems.sort(key=lambda p: (p.position is None, p.position or 0))
    return report


def _verify_logs(mirror: LogMirror, report: Report) -> None:
    chains = ChainChecker()
    last = 0
    for day, path in mirror.day_files():
        report.log_files += 1
        rel = mirror.relpath(path)
        try:
            with open(path, encoding="utf-8", newline="") as f:
                entries = parse_day(f.read(), day)
        except UnicodeDecodeError as e:
            report.add(Problem(rel, f"not valid UTF-8 ({e.reason})"))
            continue
        except LogFormatError as e:
            report.add(Problem(rel, e.reason, line=e.line))
            continue
        for entry in entries:
            if entry.position <= last:
                report.add(Problem(rel, f"position {entry.position} does not follow {last}",
                                   entry.position, entry.line))
            last = max(last, entry.position)
            wrong = chains.check(entry.event)
            if wrong:
                report.add(Problem(rel, wrong, entry.position, entry.line))


def _compare(recorded: Iterator[Recorded], mirror: LogMirror, report: Report) -> None:
    actual = dict(mirror.day_files())
    for day, text in expected_days(recorded):
        path = actual.pop(day, None)
        if path is None:
            first = text.split("\n")[2]
            report.add(Problem(mirror.relpath(mirror.path_for(day)), "log file is missing",
                               _position_of(first)))
            continue
        with open(path, "rb") as f:
            data = f.read()
        want = text.encode("utf-8")
        if data != want:
            report.add(_first_difference(mirror.relpath(path), data, want))
    for _day, path in sorted(actual.items()):
        report.add(Problem(mirror.relpath(path), "holds entries the store does not have"))


def _first_difference(rel: str, data: bytes, want: bytes) -> Problem:
    got_lines, want_lines = data.split(b"\n"), want.split(b"\n")
    n = next((i for i, (a, b) in enumerate(zip(got_lines, want_lines, strict=False)) if a != b),
             min(len(got_lines), len(want_lines)))
    line, position = _entry_at(got_lines, n)
    if n >= len(want_lines) - 1:
        return Problem(rel, "holds an entry the store does not have", position, line)
    if n >= len(got_lines) - 1:
        return Problem(rel, "ends before the store's events do", _entry_at(want_lines, n)[1],
                       n + 1)
    return Problem(rel, "differs from the store's event", position, line)


def _position_of(header: str) -> int | None:
    parts = header.split()
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None


def _entry_at(lines: list[bytes], n: int) -> tuple[int, int | None]:
    """The header line (1-based) and position of the entry holding line ``n``."""
    for i in range(min(n, len(lines) - 1), -1, -1):
        if lines[i].startswith(b"## "):
            return i + 1, _position_of(lines[i].decode("utf-8", "replace"))
    return n + 1, None
