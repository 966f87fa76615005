"""Rebuilds, in both directions.

* :func:`rebuild_projections` re-derives the read models and every
  materialized file from the store, and reports each file whose text
  differed from what was on disk (an incident signal: something other than
  Kairos wrote there, or a projection was lost).
* :func:`repair_logs` writes day files that are missing, and replaces those
  that are damaged (they no longer parse, or an entry's hash does not match
  its content) after moving them aside to ``.broken``.  A log file that is
  intact but disagrees with the store is *not* touched: two self-consistent
  histories need an operator, not a guess.
* :func:`restore_store` re-creates the store from the logs (the database was
  lost), after checking every entry's hash chain; it imports nothing if any
  entry fails.  A store that holds a prefix of the logs gets the rest.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from kairos.domain.events import Recorded, expected_hash
from kairos.domain.logformat import Entry, LogFormatError, parse_day
from kairos.engine.engine import Engine
from kairos.engine.logmirror import aside_path, expected_days, fsync_dir
from kairos.engine.verify import ChainChecker
from kairos.errors import Inconsistent, VerificationFailed
from kairos.projections.indexer import mark_retracted
from kairos.projections.materialize import existing_files, file_path, read_file, write_file


@dataclass
class RebuildReport:
    events: int = 0
    imported: int = 0
    files: int = 0
    changed: list[dict[str, str]] = field(default_factory=list)
    logs_written: list[str] = field(default_factory=list)
    logs_moved: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _digest(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def rebuild(engine: Engine, *, from_logs: bool = False) -> RebuildReport:
    """Re-derive read models and files from the store, and repair the logs,
    under the writer lock; with ``from_logs``, first restore the store from
    the logs.  (See :meth:`kairos.memory.Memory.rebuild`.)"""
    report = RebuildReport()
    with engine.writer_lock():
        if from_logs:
            restore_store(engine, report)
        engine.recover()
        repair_logs(engine, report)
        rebuild_projections(engine, report)
    return report


def restore_store(engine: Engine, report: RebuildReport) -> None:
    """Import the logs' events the store lacks, at their logged positions.

    One pass over the logs inside one store transaction, so nothing is
    imported unless everything checks out.
    :raises VerificationFailed: when a log file does not parse or an entry
        breaks its stream's hash chain.
    :raises Inconsistent: when the store holds events that differ from the logs.
    """
    chains = ChainChecker()
    stored = engine.store.max_position()
    in_store = engine.store.read()

    def entries() -> Iterator[Recorded]:
        last = 0
        for rel, entry in _all_entries(engine):
            wrong = chains.check(entry.event)
            if wrong or entry.position <= last:
                raise VerificationFailed(
                    f"{rel}:{entry.line} (position {entry.position}): "
                    f"{wrong or 'position out of order'}; nothing imported")
            last = entry.position
            if entry.position > stored:
                yield Recorded(entry.position, entry.event)
                continue
            have = next(in_store, None)
            if have is None or have.position != entry.position or have.event != entry.event:
                raise Inconsistent(f"the store's event at position {entry.position} differs "
                                   "from the logs: run `kairos verify`")
        if next(in_store, None) is not None:
            raise Inconsistent("the store holds events the logs do not: run `kairos verify`")

    report.imported = engine.store.restore(entries())


def _all_entries(engine: Engine) -> Iterator[tuple[str, Entry]]:
    mirror = engine.mirror
    for day, path in mirror.day_files():
        rel = mirror.relpath(path)
        try:
            with open(path, encoding="utf-8", newline="") as f:
                parsed = parse_day(f.read(), day)
        except (LogFormatError, UnicodeDecodeError) as e:
            line = getattr(e, "line", "?")
            raise VerificationFailed(f"{rel}:{line}: {getattr(e, 'reason', e)}; nothing imported"
                                     ) from None
        for entry in parsed:
            yield rel, entry


def rebuild_projections(engine: Engine, report: RebuildReport) -> None:
    home = engine.home
    # A read model about to be rebuilt, held from the follower and every
    # flush (which would apply events to it first).
    with engine.read_side_held() as readmodel:
        before = {rel: read_file(os.path.join(home, rel)) for rel in existing_files(home)}
        embedded = engine.vectors.kept_positions()  # the vector cache itself is kept
        readmodel.reset()
        where = engine.mirror.locate()
        with readmodel.transaction() as writer:
            report.events, position, retracted = engine.indexer.load(
                writer, engine.store.read_bulk(), where)
        # SQLite builds the indexes without Python's lock: compare the files
        # with what was on disk meanwhile.
        with ThreadPoolExecutor(1) as pool:
            indexed = pool.submit(readmodel.create_indexes)
            after = {}
            for row in readmodel.all_files():
                rel = os.path.relpath(file_path(home, row.agent, row.user, row.file), home)
                after[rel] = row.content
            indexed.result()
        with readmodel.transaction() as writer:
            mark_retracted(writer, retracted)
        engine.vectors.restore_positions(embedded, position)
        engine.applied = position
        for rel in sorted(set(before) | set(after)):
            old, new = before.get(rel), after.get(rel)
            if old != new:
                status = "missing" if old is None else "extra" if new is None else "changed"
                report.changed.append({"file": rel, "status": status,
                                       "was": _digest(old) or "-", "now": _digest(new) or "-"})
                write_file(os.path.join(home, rel), new or "")
        engine.files.set_position(position)
    report.files = len(after)


def repair_logs(engine: Engine, report: RebuildReport) -> None:
    mirror = engine.mirror
    actual = dict(mirror.day_files())
    for day, text in expected_days(engine.store.read()):
        path = actual.get(day) or mirror.path_for(day)
        want = text.encode("utf-8")
        if os.path.exists(path):
            with open(path, "rb") as f:
                data = f.read()
            if data == want:
                continue
            if not _damaged(data, day):
                raise Inconsistent(
                    f"{mirror.relpath(path)} is intact but differs from the store: "
                    "run `kairos verify`")
            target = aside_path(path)
            os.replace(path, target)
            report.logs_moved.append({"file": mirror.relpath(path),
                                      "moved_to": mirror.relpath(target)})
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(want)
            f.flush()
            os.fsync(f.fileno())
        fsync_dir(os.path.dirname(path))
        report.logs_written.append(mirror.relpath(path))
    mirror.tail = None


def _damaged(data: bytes, day: str) -> bool:
    try:
        entries = parse_day(data.decode("utf-8"), day)
    except (UnicodeDecodeError, LogFormatError):
        return True
    return any(expected_hash(e.event) != e.event.hash for e in entries)
