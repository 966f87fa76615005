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
* :func:`~kairos.engine.restore.restore_store` re-creates the store from
  the logs (the database was lost), after checking every entry's hash chain
  and MAC; it imports nothing if any entry fails.  Entries past the end of a
  store that holds events are imported only when asked
  (``import_past_end``): anyone who can write the logs can append a
  well-formed entry, so Kairos never takes them on its own.  When it found
  every entry to be what the restored store renders to, the logs are not
  compared with the store again.

Every repair is reported: each read-model row (``memory_files``,
``memory_index``: see :mod:`kairos.engine.rowdigests`) and each
materialized file that differed from what the events give, each log file
written or moved aside.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import asdict, dataclass, field
from typing import Any, BinaryIO

from kairos.domain.events import expected_hash
from kairos.domain.logformat import LogFormatError
from kairos.engine.engine import Engine
from kairos.engine.logmirror import (
    MAC_LINE,
    Places,
    aside_path,
    expected_entries,
    first_mac_position,
    ordered_places,
)
from kairos.engine.logread import DayReader, iter_entries
from kairos.engine.restore import restore_store
from kairos.engine.rowdigests import file_digests, report_index_rows, report_rows
from kairos.errors import Inconsistent, disk_errors
from kairos.home import fsync_dir
from kairos.progress import SILENT, Progress, counted
from kairos.projections.indexer import mark_retracted
from kairos.projections.materialize import existing_files, file_path, read_file, write_file


@dataclass
class RebuildReport:
    events: int = 0
    imported: int = 0
    files: int = 0
    changed: list[dict[str, str]] = field(default_factory=list)
    rows: list[dict[str, str]] = field(default_factory=list)  # read-model rows repaired
    logs_written: list[str] = field(default_factory=list)
    logs_moved: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _digest(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


@disk_errors
def rebuild(engine: Engine, *, from_logs: bool = False, import_past_end: bool = False,
            key: bytes | None = None, progress: Progress = SILENT) -> RebuildReport:
    """Re-derive read models and files from the store, and repair the logs,
    under the writer lock; with ``from_logs``, first restore the store from
    the logs.  (See :meth:`kairos.memory.Memory.rebuild`.)"""
    report = RebuildReport()
    with engine.writer_lock():
        matched = False
        if from_logs:
            progress.phase("import from the logs", None, "entries")
            matched = restore_store(engine, report, import_past_end=import_past_end, key=key,
                                    progress=progress)
            # Not the read side: every event is new to it, and it is rebuilt
            # from scratch below (applying them one batch at a time first
            # was most of a restore's time).
            progress.phase("recover", None)
            repairs = len(engine.repairs)
            engine.recover_logs()
            matched = matched and len(engine.repairs) == repairs
        else:
            progress.phase("recover", None)
            engine.recover()
        position = engine.store.max_position()
        progress.phase("repair the logs", position)
        if matched:  # the restore found the logs to be what the store renders to
            engine.mirror.tail = None
            progress.advance(position)
        else:
            repair_logs(engine, report, key, progress)
        rebuild_projections(engine, report, progress)
        if from_logs:
            engine.complete_seals()  # what recover() does after the read side
            engine.files.flush()
    return report


def rebuild_projections(engine: Engine, report: RebuildReport,
                        progress: Progress = SILENT) -> None:
    home = engine.home
    # A read model about to be rebuilt, held from the follower and every
    # flush (which would apply events to it first).
    with engine.read_side_held() as readmodel:
        before = set(existing_files(home))  # each read when it is compared
        files_before = file_digests(readmodel)
        embedded = engine.vectors.kept_positions()  # the vector cache itself is kept
        readmodel.reset()
        progress.phase("locate log entries", None)  # streamed: found as the load advances
        where = Places(ordered_places(engine.mirror))
        progress.phase("project", engine.store.max_position())
        with readmodel.transaction() as writer:
            report.events, position, retracted, folded = engine.indexer.load(
                writer, counted(engine.store.read_bulk(), progress), where)
            if not folded:  # too many files to hold at once: folded stream by stream
                progress.phase("fold the files", report.events)
                engine.indexer.load_files(writer, counted(engine.store.read_bulk_by_stream(),
                                                          progress))
        progress.phase("index and compare files", None)
        # The database builds the indexes mostly without Python's lock: the
        # rows and files are compared with what was there meanwhile, on
        # other connections (the index rows in SQL, beside the full-text
        # index, which is a third of a rebuild of 1,000,000 events).
        with ThreadPoolExecutor(1) as pool:
            indexed = pool.submit(readmodel.create_indexes)
            report_rows(report, files_before, file_digests(readmodel))
            indexed.result()
            with readmodel.transaction() as writer:  # needs the index on event ids
                mark_retracted(writer, retracted)
            searchable = pool.submit(readmodel.fill_search_index)
            report_index_rows(report, readmodel)
            # The files are written while the full-text index builds: a file
            # written after gigabytes of database pages waits on the disk's
            # write-back, a millisecond each.  A file that cannot be written
            # is raised only once the read model is whole (below), so that
            # no later open redoes a rebuild that would fail the same way.
            try:
                # (closed however the writing ends: a stream left open holds its
                # connection, and on PostgreSQL its lock on the table, which the
                # next rebuild's drop would wait for)
                with closing(readmodel.file_texts()) as streamed:
                    report.files = _write_files(home, before, streamed, engine.files.enabled,
                                                report)
                failed: Exception | None = None
            except Exception as e:  # noqa: BLE001 (raised below)
                failed = e
            searchable.result()
        engine.vectors.restore_positions(embedded, position)
        # The read model is whole: a failure from here on leaves nothing a
        # redo must finish (every flush writes the files).
        readmodel.rebuilt()
        engine.applied = position
        if failed is not None:
            raise failed
        engine.files.set_position(position)


def _write_files(home: str, before: set[str], after: Iterable[tuple[str, str | None, str, str]],
                 kept: bool, report: RebuildReport) -> int:
    """Write every file that differs from what the events give, and report
    it; ``before``: the files on disk, each read as it is compared, and
    ``after`` the read model's, streamed (a home's files are never all in
    memory).  ``kept``: whether the home keeps files (not when encrypting:
    every file there is extra).  Returns how many files the read model has."""
    count = 0
    changed: list[dict[str, str]] = []

    def compare(rel: str, new: str | None) -> None:
        old = read_file(os.path.join(home, rel)) if rel in before else None
        if old != new:
            status = "missing" if old is None else "extra" if new is None else "changed"
            changed.append({"file": rel, "status": status,
                            "was": _digest(old) or "-", "now": _digest(new) or "-"})
            write_file(os.path.join(home, rel), new or "")

    seen: set[str] = set()
    for agent, user, name, content in after:
        count += 1
        if kept:
            rel = os.path.relpath(file_path(home, agent, user, name), home)
            seen.add(rel)
            compare(rel, content)
    for rel in sorted(before - seen):
        compare(rel, None)
    report.changed += sorted(changed, key=lambda c: c["file"])
    return count


def repair_logs(engine: Engine, report: RebuildReport, key: bytes | None = None,
                progress: Progress = SILENT) -> None:
    """Write missing day files and replace damaged ones from the store (see
    the module's docstring).  Entries from the first one that carries a MAC
    on get theirs again, so regenerating them needs the entry key.

    One pass over the store compares every file with what the events render
    to, entry by entry, each file read forward as the entries come; the
    files that differ are checked (all of them before anything is written),
    moved aside and written again in a second pass.  Memory does not grow
    with the logs.

    :raises Inconsistent: a file is intact but differs from the store, or
        must be regenerated with macs and no key was given.
    """
    mirror = engine.mirror
    actual = dict(mirror.day_files())
    mac_from = first_mac_position(mirror)
    strip = MAC_LINE if key is None and mac_from is not None else None
    readers: dict[str, DayReader] = {}
    redo: dict[str, str] = {}  # day -> path, in the order the days come
    for day, text, _ in expected_entries(counted(engine.store.read(), progress), key,
                                          mac_from):
        if day in redo:
            continue
        reader = readers.get(day)
        if reader is None:  # the day's first entry: its file looked at once
            path = actual.get(day)
            if path is None or not os.path.exists(path):
                redo[day] = path or mirror.path_for(day)
                continue
            reader = readers[day] = DayReader(path, os.path.getsize(path), strip)
        want = text.encode("utf-8")
        if reader.take(len(want)) != want:
            redo[day] = actual[day]
    for day, reader in readers.items():
        if day not in redo and any(reader.rest()):
            redo[day] = actual[day]
    for day, path in redo.items():
        if key is None and mac_from is not None:
            raise Inconsistent(
                f"{mirror.relpath(path)} must be written again from the store, but its entries "
                "carry macs and no entry key was given (KAIROS_ENTRY_KEY): nothing written")
        if os.path.exists(path) and not _damaged(path, day):
            raise Inconsistent(f"{mirror.relpath(path)} is intact but differs from the store: "
                               "run `kairos verify`")
    if redo:
        _write_again(engine, report, redo, key, mac_from)
    mirror.tail = None


def _write_again(engine: Engine, report: RebuildReport, redo: dict[str, str],
                 key: bytes | None, mac_from: int | None) -> None:
    """Move the damaged files aside and write every file of ``redo`` from
    the store, streamed (a day that comes back is appended to)."""
    mirror = engine.mirror
    for path in redo.values():
        if os.path.exists(path):
            target = aside_path(path)
            os.replace(path, target)
            report.logs_moved.append({"file": mirror.relpath(path),
                                      "moved_to": mirror.relpath(target)})
    out: BinaryIO | None = None
    current: str | None = None
    pending: list[bytes] = []

    def close() -> None:
        if out is not None:
            out.write(b"".join(pending))
            pending.clear()
            out.flush()
            os.fsync(out.fileno())
            out.close()

    try:
        for day, text, _ in expected_entries(engine.store.read(), key, mac_from):
            if day not in redo:
                continue
            if day != current:
                close()
                path = redo[day]
                os.makedirs(os.path.dirname(path), exist_ok=True)
                out, current = open(path, "ab"), day  # noqa: SIM115 - closed by close()
            pending.append(text.encode("utf-8"))
            if len(pending) >= 2048:
                assert out is not None
                out.write(b"".join(pending))
                pending.clear()
    finally:
        close()
    for path in redo.values():
        fsync_dir(os.path.dirname(path))
        report.logs_written.append(mirror.relpath(path))


def _damaged(path: str, day: str) -> bool:
    """Whether a day file no longer parses, or an entry's hash does not
    match its content (streamed)."""
    try:
        return any(expected_hash(e.event) != e.event.hash for e in iter_entries(path, day))
    except (UnicodeDecodeError, LogFormatError):
        return True
